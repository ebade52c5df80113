// The simplest legal President bot: the first (weakest) legal play, or a
// pass when there is none.
#include <stdlib.h>
#include <string.h>
#include "president.h"

void exports_president_start_game(president_game_info_t *info) { president_game_info_free(info); }

// Returns true and fills `ret` to play cards, false to pass. The returned
// list is freed by the bindings, so it is a copy.
bool exports_president_play(president_view_t *view, president_list_card_t *ret) {
  bool play = view->legal_plays.len > 0;
  if (play) {
    arena_bots_president_types_list_card_t weakest = view->legal_plays.ptr[0];
    ret->len = weakest.len;
    ret->ptr = malloc(weakest.len * sizeof *weakest.ptr);
    memcpy(ret->ptr, weakest.ptr, weakest.len * sizeof *weakest.ptr);
  }
  president_view_free(view);
  return play;
}
