//! Twin of `house:ranks`: the column numbered (rank - 1) mod 4.

use arena_bot_sdk::connect_fwar::{Bot, GameInfo, View};

struct Ranks;

impl Bot for Ranks {
    fn new(_info: &GameInfo) -> Self {
        Ranks
    }

    fn choose_column(&mut self, view: &View) -> i32 {
        (i32::from(view.card.rank) - 1) % 4
    }
}

arena_bot_sdk::export!(connect_fwar, Ranks);
