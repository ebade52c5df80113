//! Twin of `house:cowardly`: the legal move that ends farthest from the opponent.

use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, View};

struct Cowardly;

impl Bot for Cowardly {
    fn new(_info: &GameInfo) -> Self {
        Cowardly
    }

    fn choose_move(&mut self, view: &View) -> Move {
        let moves = view.legal_moves();
        let mut best = moves[0];
        for mv in &moves[1..] {
            if view.distance_after(mv) > view.distance_after(&best) {
                best = *mv;
            }
        }
        best
    }
}

arena_bot_sdk::export!(en_garde, Cowardly);
