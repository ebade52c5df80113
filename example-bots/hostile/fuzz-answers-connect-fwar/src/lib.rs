//! Fuzzing fixture: every answer is a random column over the whole `s32`
//! range (and often near the board, and the extremes), from the game's
//! seed. `tests/fuzz.rs` plays it thousands of times: the host must end
//! every game with a result or a typed forfeit, the same on every run.

use arena_bot_sdk::connect_fwar::{Bot, GameInfo, View};
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

    fn choose_column(&mut self, view: &View) -> i32 {
        match self.rng.random_range(0..4u32) {
            0 => self.rng.random::<i32>(),
            1 => self.rng.random_range(-2..7i32),
            2 => [i32::MIN, i32::MAX, -1, 4, 256][self.rng.random_range(0..5u32) as usize],
            _ => {
                let fits = view.fitting_columns();
                if fits.is_empty() {
                    self.rng.random_range(0..4i32)
                } else {
                    fits[self.rng.random_range(0..fits.len() as u32) as usize]
                }
            }
        }
    }
}

arena_bot_sdk::export!(connect_fwar, Fuzz);
