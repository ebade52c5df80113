// Twin of house:basic: the first column, left to right, where the card fits.
#include "connect_fwar.h"

void exports_connect_fwar_start_game(connect_fwar_game_info_t *info) { (void)info; }

int32_t exports_connect_fwar_choose_column(connect_fwar_view_t *view) {
  // Column 0 when nothing fits: the card is discarded either way.
  int32_t column = view->legal_columns.len > 0 ? view->legal_columns.ptr[0] : 0;
  connect_fwar_view_free(view);
  return column;
}
