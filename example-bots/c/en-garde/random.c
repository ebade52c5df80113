// Twin of house:random: a uniformly random legal move, seeded by the game.
#include "arena_rng.h"
#include "en_garde.h"

static arena_rng rng;

void exports_en_garde_start_game(en_garde_game_info_t *info) { arena_rng_seed(&rng, info->seed); }

void exports_en_garde_start_round(en_garde_round_info_t *info) { en_garde_round_info_free(info); }

void exports_en_garde_choose_move(en_garde_view_t *view, en_garde_fencer_move_t *ret) {
  *ret = view->legal_moves.ptr[arena_rng_range(&rng, (uint32_t)view->legal_moves.len)];
  en_garde_view_free(view);
}
