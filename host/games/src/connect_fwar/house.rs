//! The four ConnectFwar baselines of the course, exactly as defined.
//!
//! Each has a wasm twin in `example-bots/rust/connect-fwar/`.

use super::rules::{GameInfo, Player, View};
use arena_core::Failure;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The house bots of ConnectFwar: name and one-line description.
pub const HOUSE_BOTS: &[(&str, &str)] = &[
    ("random", "a random column 0-3, whether or not the card fits"),
    ("basic", "the first column, left to right, where the card fits"),
    ("suits", "the column numbered suit - 1"),
    ("ranks", "the column numbered (rank - 1) mod 4"),
];

/// A house bot by name.
pub fn house_bot(name: &str) -> Option<Box<dyn Player + Send>> {
    match name {
        "random" => Some(Box::new(Random {
            rng: ChaCha8Rng::seed_from_u64(0),
        })),
        "basic" => Some(Box::new(Basic)),
        "suits" => Some(Box::new(Suits)),
        "ranks" => Some(Box::new(Ranks)),
        _ => None,
    }
}

/// A random column 0-3.
pub struct Random {
    rng: ChaCha8Rng,
}

impl Player for Random {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        self.rng = ChaCha8Rng::seed_from_u64(info.seed);
        Ok(())
    }
    fn choose_column(&mut self, _view: &View) -> Result<i32, Failure> {
        Ok(self.rng.random_range(0..4u32) as i32)
    }
}

/// The first column where the card fits (column 0, a discard, when none does).
pub struct Basic;

impl Player for Basic {
    fn start_game(&mut self, _: &GameInfo) -> Result<(), Failure> {
        Ok(())
    }
    fn choose_column(&mut self, view: &View) -> Result<i32, Failure> {
        Ok(view.fitting_columns().first().map_or(0, |&c| c as i32))
    }
}

/// The column numbered suit - 1.
pub struct Suits;

impl Player for Suits {
    fn start_game(&mut self, _: &GameInfo) -> Result<(), Failure> {
        Ok(())
    }
    fn choose_column(&mut self, view: &View) -> Result<i32, Failure> {
        Ok(i32::from(view.card.suit.number()) - 1)
    }
}

/// The column numbered (rank - 1) mod 4.
pub struct Ranks;

impl Player for Ranks {
    fn start_game(&mut self, _: &GameInfo) -> Result<(), Failure> {
        Ok(())
    }
    fn choose_column(&mut self, view: &View) -> Result<i32, Failure> {
        Ok((i32::from(view.card.rank) - 1) % 4)
    }
}
