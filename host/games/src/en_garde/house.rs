//! House bots: trusted native players built into the host.
//!
//! Each has a wasm twin in `example-bots/rust/en-garde/` written against
//! the bot SDK; equal results on equal seeds show the sandbox changes
//! nothing but safety.

use super::rules::{Fencer, GameInfo, Move, RoundInfo, View};
use arena_core::Failure;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The house bots of En Garde: name and one-line description.
pub const HOUSE_BOTS: &[(&str, &str)] = &[
    ("aggressive", "plays the legal move that ends closest to the opponent"),
    ("cowardly", "plays the legal move that ends farthest from the opponent"),
    ("random", "plays a uniformly random legal move"),
];

/// A house bot by name.
pub fn house_bot(name: &str) -> Option<Box<dyn Fencer + Send>> {
    match name {
        "aggressive" => Some(Box::new(Aggressive)),
        "cowardly" => Some(Box::new(Cowardly)),
        "random" => Some(Box::new(RandomFencer {
            rng: ChaCha8Rng::seed_from_u64(0),
        })),
        _ => None,
    }
}

/// The first legal move whose resulting distance is best by `better`.
fn pick(view: &View, better: impl Fn(u8, u8) -> bool) -> Move {
    let moves = view.legal_moves();
    let mut best = moves[0];
    let mut best_distance = view.distance_after(best);
    for &mv in &moves[1..] {
        let d = view.distance_after(mv);
        if better(d, best_distance) {
            best = mv;
            best_distance = d;
        }
    }
    best
}

/// Plays the legal move that ends closest to the opponent (a hit when it can).
pub struct Aggressive;

impl Fencer for Aggressive {
    fn start_game(&mut self, _: &GameInfo) -> Result<(), Failure> {
        Ok(())
    }
    fn start_round(&mut self, _: &RoundInfo) -> Result<(), Failure> {
        Ok(())
    }
    fn choose_move(&mut self, view: &View) -> Result<Move, Failure> {
        Ok(pick(view, |d, best| d < best))
    }
}

/// Plays the legal move that ends farthest from the opponent.
pub struct Cowardly;

impl Fencer for Cowardly {
    fn start_game(&mut self, _: &GameInfo) -> Result<(), Failure> {
        Ok(())
    }
    fn start_round(&mut self, _: &RoundInfo) -> Result<(), Failure> {
        Ok(())
    }
    fn choose_move(&mut self, view: &View) -> Result<Move, Failure> {
        Ok(pick(view, |d, best| d > best))
    }
}

/// Plays a uniformly random legal move, seeded by the game.
pub struct RandomFencer {
    rng: ChaCha8Rng,
}

impl Fencer for RandomFencer {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        self.rng = ChaCha8Rng::seed_from_u64(info.seed);
        Ok(())
    }
    fn start_round(&mut self, _: &RoundInfo) -> Result<(), Failure> {
        Ok(())
    }
    fn choose_move(&mut self, view: &View) -> Result<Move, Failure> {
        let moves = view.legal_moves();
        // Sample a u32 so a 32-bit wasm twin draws exactly the same numbers.
        Ok(moves[self.rng.random_range(0..moves.len() as u32) as usize])
    }
}
