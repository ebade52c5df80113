//! Twin of `house:random`: a uniformly random legal play, or a pass when following.

use arena_bot_sdk::president::{Bot, Card, GameInfo, View};
use arena_bot_sdk::{Rng, RngExt, SeedableRng};

struct Random {
    rng: Rng,
}

impl Bot for Random {
    fn new(info: &GameInfo) -> Self {
        Random { rng: Rng::seed_from_u64(info.seed) }
    }

    fn play(&mut self, view: &View) -> Option<Vec<Card>> {
        let mut options: Vec<Option<Vec<Card>>> = view.simple_plays().into_iter().map(Some).collect();
        if !view.leading() {
            options.push(None);
        }
        if options.is_empty() {
            return None;
        }
        let i = self.rng.random_range(0..options.len() as u32) as usize;
        options.swap_remove(i)
    }
}

arena_bot_sdk::export!(president, Random);
