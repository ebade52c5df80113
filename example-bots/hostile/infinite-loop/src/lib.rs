//! Hostile fixture: never answers (an infinite loop in choose-move).

use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, View};

struct Spin;

impl Bot for Spin {
    fn new(_info: &GameInfo) -> Self {
        Spin
    }

    fn choose_move(&mut self, view: &View) -> Move {
        let mut x: u64 = view.round.into();
        loop {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    }
}

arena_bot_sdk::export!(en_garde, Spin);
