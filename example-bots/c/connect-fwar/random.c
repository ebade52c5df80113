// Twin of house:random: a random column 0-3, whether or not the card fits.
#include "arena_rng.h"
#include "connect_fwar.h"

static arena_rng rng;

void exports_connect_fwar_start_game(connect_fwar_game_info_t *info) { arena_rng_seed(&rng, info->seed); }

int32_t exports_connect_fwar_choose_column(connect_fwar_view_t *view) {
  connect_fwar_view_free(view);
  return (int32_t)arena_rng_range(&rng, 4);
}
