//! Hostile fixture: logs one byte at a time, without end. Each call into
//! the host costs fuel, so fuel stops it, not the wall clock.

use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, View};

struct Drip;

impl Bot for Drip {
    fn new(_info: &GameInfo) -> Self {
        Drip
    }

    fn choose_move(&mut self, _view: &View) -> Move {
        loop {
            arena_bot_sdk::log(std::hint::black_box("x"));
        }
    }
}

arena_bot_sdk::export!(en_garde, Drip);
