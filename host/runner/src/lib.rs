//! arena-runner: plays matches between sandboxed bots, for any game.
//!
//! - [`adapters`]: one thin module per game between its rules and the sandbox.
//! - [`runner`]: matches over seeds and seats, the registry of games.
//! - [`replay`]: the replay file format; [`verify`] re-plays one.
//! - [`stats`]: intervals, likelihood of superiority and SPRT.
//! - [`text`]: number and name formats every command shares.

pub mod adapters;
pub mod replay;
pub mod runner;
pub mod stats;
pub mod text;
pub mod verify;

pub use arena_games as games;
pub use arena_sandbox as sandbox;

/// The version of this host, recorded in reports and replays.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
