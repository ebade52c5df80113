//! Twin of `house:random`: a uniformly random legal move, seeded by the game.

use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, View};
use arena_bot_sdk::{Rng, RngExt, SeedableRng};

struct Random {
    rng: Rng,
}

impl Bot for Random {
    fn new(info: &GameInfo) -> Self {
        Random { rng: Rng::seed_from_u64(info.seed) }
    }

    fn choose_move(&mut self, view: &View) -> Move {
        let moves = view.legal_moves();
        moves[self.rng.random_range(0..moves.len() as u32) as usize]
    }
}

arena_bot_sdk::export!(en_garde, Random);
