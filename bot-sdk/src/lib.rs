//! Write bots for the arena in Rust.
//!
//! Implement one trait, export it with one macro, and build with
//! `cargo build --release --target wasm32-wasip2`: the `.wasm` file in
//! `target/wasm32-wasip2/release/` is your bot.
//!
//! ```no_run
//! use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, View};
//!
//! struct Lunge;
//! impl Bot for Lunge {
//!     fn new(_info: &GameInfo) -> Self { Lunge }
//!     fn choose_move(&mut self, view: &View) -> Move {
//!         let moves = view.legal_moves();
//!         *moves.iter().min_by_key(|m| view.distance_after(m)).unwrap_or(&moves[0])
//!     }
//! }
//! arena_bot_sdk::export_en_garde!(Lunge);
//! ```
//!
//! Each game gets a fresh instance of your bot, so state kept in the bot
//! struct lasts exactly one game. Randomness: seed [`Rng`] from the
//! `seed` the game gives you and your bot plays reproducibly.

// Lets generated code name this crate the same way from inside and outside.
extern crate self as arena_bot_sdk;

pub mod connect_fwar;
pub mod en_garde;
pub mod president;
pub mod sugar;

/// A fast, portable, seedable random generator (ChaCha8).
pub type Rng = rand_chacha::ChaCha8Rng;
pub use rand::{Rng as RngExt, SeedableRng};

/// Write one line to your bot's log, kept in the replay (capped per game).
pub fn log(message: &str) {
    en_garde::bindings::arena::bots::host::log(message);
}

/// Used by the export macros; not part of the API.
#[doc(hidden)]
pub mod __private {
    pub use wit_bindgen;
}
