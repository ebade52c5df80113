//! Twin of `house:aggressive`: the legal move that ends closest to the opponent.

use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, View};

struct Aggressive;

impl Bot for Aggressive {
    fn new(_info: &GameInfo) -> Self {
        Aggressive
    }

    fn choose_move(&mut self, view: &View) -> Move {
        let moves = view.legal_moves();
        // The first of the closest moves, as the house bot does.
        let mut best = moves[0];
        for mv in &moves[1..] {
            if view.distance_after(mv) < view.distance_after(&best) {
                best = *mv;
            }
        }
        best
    }
}

arena_bot_sdk::export!(en_garde, Aggressive);
