//! Hostile fixture: loops forever in its start-of-round hook.

use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, RoundInfo, View};

struct Stuck;

impl Bot for Stuck {
    fn new(_info: &GameInfo) -> Self {
        Stuck
    }

    fn start_round(&mut self, info: &RoundInfo) {
        let mut x = u64::from(info.round);
        loop {
            x = std::hint::black_box(x ^ (x << 7));
        }
    }

    fn choose_move(&mut self, view: &View) -> Move {
        view.legal_moves()[0]
    }
}

arena_bot_sdk::export!(en_garde, Stuck);
