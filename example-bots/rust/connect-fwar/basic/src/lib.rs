//! Twin of `house:basic`: the first column, left to right, where the card fits.

use arena_bot_sdk::connect_fwar::{Bot, GameInfo, View};

struct Basic;

impl Bot for Basic {
    fn new(_info: &GameInfo) -> Self {
        Basic
    }

    fn choose_column(&mut self, view: &View) -> i32 {
        // Column 0 when nothing fits: the card is discarded either way.
        view.fitting_columns().first().copied().unwrap_or(0)
    }
}

arena_bot_sdk::export!(connect_fwar, Basic);
