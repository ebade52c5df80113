//! Twin of `house:random`: a random placement, then uniformly random legal moves.

use arena_bot_sdk::sugar::{Action, Bot, PlaceInfo, View};
use arena_bot_sdk::{Rng, RngExt, SeedableRng};

struct Random {
    rng: Rng,
}

impl Bot for Random {
    fn new(info: &PlaceInfo) -> Self {
        Random {
            rng: Rng::seed_from_u64(info.seed),
        }
    }

    fn place(&mut self, _info: &PlaceInfo) -> Vec<u8> {
        // Fisher-Yates as rand's `shuffle` does it, so the twin draws the same numbers.
        let mut xs: Vec<u8> = (0..5).collect();
        for i in (1..xs.len()).rev() {
            let j = self.rng.random_range(0..(i + 1) as u32) as usize;
            xs.swap(i, j);
        }
        xs
    }

    fn choose_action(&mut self, view: &View) -> Action {
        // The legal actions as the arena sent them, in the house bot's order.
        let moves = &view.legal_actions;
        moves[self.rng.random_range(0..moves.len() as u32) as usize]
    }
}

arena_bot_sdk::export!(sugar, Random);
