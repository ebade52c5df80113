//! arena: run untrusted game-playing bots, compiled to WebAssembly
//! components, safely, fairly and reproducibly.
//!
//! The layers below are crates of their own, so a dependency in the wrong
//! direction does not compile:
//! - [`arena_core`]: the common vocabulary (seats, seeds, outcomes, failures, events).
//! - [`games`] (`arena-games`): pure rules and house bots, no wasmtime.
//! - [`sandbox`] (`arena-sandbox`): wasmtime, limits and loading, no games.
//!
//! This crate holds what sits on top of them:
//! - [`adapters`]: one thin module per game world between the two.
//! - [`runner`]: matches over seeds and seats, for any game.
//! - [`check`]: what `arena check` finds out about a bot file.
//! - [`class`]: grading a whole class, with its tournament and reports.
//! - [`replay`]: the replay file format.
//! - [`report`]: the `index.html` and replay pages of tournaments and class grading.
//! - [`human`]: people playing in the terminal.
//! - [`cli`]: the `arena` command.

pub mod adapters;
pub mod check;
pub mod class;
pub mod cli;
pub mod files;
pub mod grade;
pub mod human;
pub mod replay;
pub mod report;
pub mod runner;
pub mod stats;
pub mod text;
pub mod tournament;
pub mod verify;
pub mod view;

pub use arena_games as games;
pub use arena_sandbox as sandbox;

/// The version of this host, recorded in reports and replays.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
