//! Fuzzing fixture: every answer is random from the game's seed, over the
//! whole value space of `fencer-move` (any card 0-255, either direction).
//! Half the answers are legal moves and most of the rest use cards 1-5
//! (legal or not), so games reach later rounds and end states too; one in
//! sixteen is a card the host cannot use at all. `tests/fuzz.rs` plays it
//! thousands of times: the host must end every game with a result or a
//! typed forfeit, the same on every run.

use arena_bot_sdk::en_garde::{Bot, Direction, GameInfo, Move, View};
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

    fn choose_move(&mut self, view: &View) -> Move {
        let legal = view.legal_moves();
        if !legal.is_empty() && self.rng.random::<bool>() {
            return legal[self.rng.random_range(0..legal.len() as u32) as usize];
        }
        let card = match self.rng.random_range(0..8u32) {
            0 => match self.rng.random_range(0..3u32) {
                0 => self.rng.random::<u8>(),
                1 => self.rng.random_range(0..8u8),
                _ => [0, 6, 127, 128, 255][self.rng.random_range(0..5u32) as usize],
            },
            _ => self.rng.random_range(1..=5u8),
        };
        let direction = if self.rng.random::<bool>() {
            Direction::Forward
        } else {
            Direction::Backward
        };
        Move { card, direction }
    }
}

arena_bot_sdk::export!(en_garde, Fuzz);
