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

/// The common vocabulary, re-exported so a game speaks it as its own.
pub use arena_core::*;
