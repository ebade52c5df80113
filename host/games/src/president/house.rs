//! House bots, each with a wasm twin in `example-bots/rust/president/`.

use super::rules::{Card, GameInfo, PresidentPlayer, View};
use arena_core::Failure;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The house bots of President: name and one-line description.
pub const HOUSE_BOTS: &[(&str, &str)] = &[
    (
        "lowest",
        "plays its weakest legal cards (fewest first), passes when it cannot",
    ),
    ("random", "a uniformly random legal play, or a pass when following"),
];

/// A house bot by name.
pub fn house_bot(name: &str) -> Option<Box<dyn PresidentPlayer + Send>> {
    match name {
        "lowest" => Some(Box::new(Lowest)),
        "random" => Some(Box::new(RandomPlayer {
            rng: ChaCha8Rng::seed_from_u64(0),
        })),
        _ => None,
    }
}

/// The weakest legal play.
pub struct Lowest;

impl PresidentPlayer for Lowest {
    fn start_game(&mut self, _: &GameInfo) -> Result<(), Failure> {
        Ok(())
    }
    fn play(&mut self, view: &View) -> Result<Option<Vec<Card>>, Failure> {
        Ok(view.simple_plays().into_iter().next())
    }
}

/// A random legal play, or a pass.
pub struct RandomPlayer {
    rng: ChaCha8Rng,
}

impl PresidentPlayer for RandomPlayer {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        self.rng = ChaCha8Rng::seed_from_u64(info.seed);
        Ok(())
    }
    fn play(&mut self, view: &View) -> Result<Option<Vec<Card>>, Failure> {
        let mut options: Vec<Option<Vec<Card>>> = view.simple_plays().into_iter().map(Some).collect();
        if !view.state.is_empty() {
            options.push(None);
        }
        if options.is_empty() {
            return Ok(None);
        }
        Ok(options.swap_remove(self.rng.random_range(0..options.len() as u32) as usize))
    }
}
