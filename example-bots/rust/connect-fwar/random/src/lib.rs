//! Twin of `house:random`: a uniformly random column 0-3, fit or not.

use arena_bot_sdk::connect_fwar::{Bot, GameInfo, View};
use arena_bot_sdk::{Rng, RngExt, SeedableRng};

struct Random {
    rng: Rng,
}

impl Bot for Random {
    fn new(info: &GameInfo) -> Self {
        Random { rng: Rng::seed_from_u64(info.seed) }
    }

    fn choose_column(&mut self, _view: &View) -> i32 {
        self.rng.random_range(0..4u32) as i32
    }
}

arena_bot_sdk::export!(connect_fwar, Random);
