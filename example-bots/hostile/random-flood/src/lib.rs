//! Hostile fixture: asks WASI for 1 MiB of random bytes, again and again.
//! The host's work (making and copying the bytes) is charged in fuel per
//! byte, so fuel stops it, the same way on a busy machine as on an idle one.

use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, View};

struct Dice;

impl Bot for Dice {
    fn new(_info: &GameInfo) -> Self {
        Dice
    }

    fn choose_move(&mut self, _view: &View) -> Move {
        loop {
            std::hint::black_box(wasip2::random::random::get_random_bytes(1 << 20));
        }
    }
}

arena_bot_sdk::export!(en_garde, Dice);
