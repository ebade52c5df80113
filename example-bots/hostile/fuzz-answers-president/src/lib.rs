//! Fuzzing fixture: every answer is random from the game's seed, over the
//! whole value space of `option<list<card>>`: a pass, or a list of any
//! length 0-60 of cards of any rank and suit (0-255), often drawn from its
//! own hand (duplicates and all); half the answers are legal plays, so
//! games reach later tricks. `tests/fuzz.rs` plays it thousands of times:
//! the host must end every game with a result or a typed forfeit, the same
//! on every run.

use arena_bot_sdk::president::{Bot, Card, GameInfo, View};
use arena_bot_sdk::{Rng, RngExt, SeedableRng};

struct Fuzz {
    rng: Rng,
}

impl Bot for Fuzz {
    fn new(info: &GameInfo) -> Self {
        Fuzz {
            rng: Rng::seed_from_u64(info.seed),
        }
    }

    fn play(&mut self, view: &View) -> Option<Vec<Card>> {
        let legal = view.legal_plays();
        if !legal.is_empty() && self.rng.random::<bool>() {
            return Some(legal[self.rng.random_range(0..legal.len() as u32) as usize].clone());
        }
        if self.rng.random_range(0..6u32) == 0 {
            return None;
        }
        let len = match self.rng.random_range(0..8u32) {
            0 => self.rng.random_range(0..=60u32),
            _ => self.rng.random_range(0..=4u32),
        };
        let hand = &view.hand;
        Some(
            (0..len)
                .map(|_| match self.rng.random_range(0..16u32) {
                    2..=15 if !hand.is_empty() => hand[self.rng.random_range(0..hand.len() as u32) as usize],
                    1 => Card {
                        rank: self.rng.random_range(0..16u8),
                        suit: self.rng.random_range(0..6u8),
                    },
                    _ => Card {
                        rank: self.rng.random::<u8>(),
                        suit: self.rng.random::<u8>(),
                    },
                })
                .collect(),
        )
    }
}

arena_bot_sdk::export!(president, Fuzz);
