// Twin of house:cowardly: the legal move that ends farthest from the opponent.
#include <stdlib.h>
#include "en_garde.h"

// Spaces between the fencers after `m`: 0 is a hit, 255 off the strip.
static int distance_after(const en_garde_view_t *view, en_garde_fencer_move_t m) {
  int step = m.direction == ARENA_BOTS_EN_GARDE_TYPES_DIRECTION_FORWARD ? m.card : -m.card;
  int to = view->my_position + (view->seat == 0 ? step : -step);
  return to < 0 || to > 22 ? 255 : abs(to - view->opponent_position);
}

void exports_en_garde_start_game(en_garde_game_info_t *info) { (void)info; }

// The callee owns its arguments: free what it was given.
void exports_en_garde_start_round(en_garde_round_info_t *info) { en_garde_round_info_free(info); }

void exports_en_garde_choose_move(en_garde_view_t *view, en_garde_fencer_move_t *ret) {
  en_garde_fencer_move_t best = view->legal_moves.ptr[0];
  for (size_t i = 1; i < view->legal_moves.len; i++) {
    if (distance_after(view, view->legal_moves.ptr[i]) > distance_after(view, best)) best = view->legal_moves.ptr[i];
  }
  *ret = best;
  en_garde_view_free(view);
}
