//! Hostile fixture: floods its log and stdout, then plays a normal move.

use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, View};

struct Chatty;

impl Bot for Chatty {
    fn new(_info: &GameInfo) -> Self {
        Chatty
    }

    fn choose_move(&mut self, view: &View) -> Move {
        let line = "x".repeat(4096);
        for _ in 0..200 {
            arena_bot_sdk::log(&line);
            println!("{line}");
        }
        view.legal_moves()[0]
    }
}

arena_bot_sdk::export!(en_garde, Chatty);
