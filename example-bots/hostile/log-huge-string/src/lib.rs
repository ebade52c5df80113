//! Hostile fixture: logs the same 4 MiB string without end. The log is
//! full after the first call; each call still costs fuel per byte passed,
//! and the host does not read a string it will not keep.

use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, View};

struct Shout {
    text: String,
}

impl Bot for Shout {
    fn new(_info: &GameInfo) -> Self {
        Shout {
            text: "x".repeat(4 << 20),
        }
    }

    fn choose_move(&mut self, _view: &View) -> Move {
        loop {
            arena_bot_sdk::log(std::hint::black_box(&self.text));
        }
    }
}

arena_bot_sdk::export!(en_garde, Shout);
