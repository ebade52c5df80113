// The simplest legal Sugargame bot: agents on their own columns, then the
// first legal action every turn (agent by agent, up, down, left, right).
#include <stdlib.h>
#include "sugar.h"

// The callee owns its arguments; the returned list is freed by the bindings.
void exports_sugar_place(sugar_place_info_t *info, sugar_list_u8_t *ret) {
  ret->len = info->agents.len;
  ret->ptr = malloc(ret->len);
  for (size_t i = 0; i < ret->len; i++) ret->ptr[i] = (uint8_t)i;
  sugar_place_info_free(info);
}

void exports_sugar_choose_action(sugar_view_t *view, sugar_action_t *ret) {
  *ret = view->legal_actions.ptr[0];
  sugar_view_free(view);
}
