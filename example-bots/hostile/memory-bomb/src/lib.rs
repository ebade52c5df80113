//! Hostile fixture: allocates without end until the memory cap stops it.

use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, View};

struct Hog {
    hoard: Vec<Vec<u8>>,
}

impl Bot for Hog {
    fn new(_info: &GameInfo) -> Self {
        Hog { hoard: Vec::new() }
    }

    fn choose_move(&mut self, view: &View) -> Move {
        loop {
            // Touch every page so the memory is really used.
            self.hoard.push(vec![view.round as u8; 1 << 20]);
        }
    }
}

arena_bot_sdk::export!(en_garde, Hog);
