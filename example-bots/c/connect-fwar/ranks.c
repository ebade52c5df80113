// Twin of house:ranks: the column numbered (rank - 1) mod 4.
#include "connect_fwar.h"

void exports_connect_fwar_start_game(connect_fwar_game_info_t *info) { (void)info; }

int32_t exports_connect_fwar_choose_column(connect_fwar_view_t *view) {
  int32_t column = ((int32_t)view->card.rank - 1) % 4;
  connect_fwar_view_free(view);
  return column;
}
