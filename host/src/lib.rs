//! arena: run untrusted game-playing bots, compiled to WebAssembly
//! components, safely, fairly and reproducibly.
//!
//! - [`games`]: pure rules and house bots, no wasmtime.
//! - [`sandbox`]: wasmtime, limits and loading, no games.
//! - [`adapters`]: one thin module per game world between the two.
//! - [`runner`]: matches over seeds and seats, for any game.
//! - [`replay`]: the replay file format.
//! - [`human`]: people playing in the terminal.
//! - [`cli`]: the `arena` command.

pub mod adapters;
pub mod cli;
pub mod games;
pub mod grade;
pub mod human;
pub mod replay;
pub mod runner;
pub mod sandbox;
pub mod stats;
pub mod tournament;

/// The version of this host, recorded in reports and replays.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
