//! The arena's games as pure rules: state, legal moves, views, outcomes and
//! house bots, one module per game, each reading like its rules document in
//! `docs/rules/`.
//!
//! No wasmtime, no I/O, no clock: the same code judges games in the host,
//! plays the house bots, and gives the bot SDK its helpers inside wasm.

pub mod connect_fwar;
pub mod en_garde;
pub mod president;
pub mod sugar;

// The games speak the common vocabulary by its own name, `arena_core`.
// Kept until the adapters, the SDK, `arena`, `arena-batch` and the tests
// move to the real name (`arena_core::Seat`, not `arena_games::Seat`).
#[doc(hidden)]
pub use arena_core::*;
