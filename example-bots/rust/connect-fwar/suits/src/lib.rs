//! Twin of `house:suits`: the column numbered suit - 1.

use arena_bot_sdk::connect_fwar::{Bot, GameInfo, View};

struct Suits;

impl Bot for Suits {
    fn new(_info: &GameInfo) -> Self {
        Suits
    }

    fn choose_column(&mut self, view: &View) -> i32 {
        i32::from(view.card.suit) - 1
    }
}

arena_bot_sdk::export!(connect_fwar, Suits);
