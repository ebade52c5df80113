//! Hostile fixture: panics on its first move.

use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, View};

struct Oops;

impl Bot for Oops {
    fn new(_info: &GameInfo) -> Self {
        Oops
    }

    fn choose_move(&mut self, view: &View) -> Move {
        let empty: Vec<Move> = Vec::new();
        // Index out of bounds: a plain student bug.
        empty[view.hand.len()]
    }
}

arena_bot_sdk::export!(en_garde, Oops);
