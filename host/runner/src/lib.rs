//! arena-runner: plays matches between sandboxed bots, for any game.
//!
//! - [`adapters`]: one thin module per game between its rules and the sandbox.
//! - [`runner`]: matches over seeds and seats, the registry of games.
//! - [`replay`]: the replay file format; [`verify`] re-plays one.
//! - [`stats`]: intervals, likelihood of superiority and SPRT.
//! - [`text`]: number and name formats every command shares.

pub mod adapters;
pub mod hidden;
pub mod replay;
pub mod runner;
pub mod stats;
pub mod text;
pub mod verify;

// The games and the sandbox are used by their own names (`arena_games`,
// `arena_sandbox`); these two aliases are kept until the adapters, `arena`
// and the server move to the real names.
#[doc(hidden)]
pub use arena_games as games; // kept until the adapters move to the real name
#[doc(hidden)]
pub use arena_sandbox as sandbox; // kept until the adapters, arena and arena-server move to the real name

/// The version of this host, recorded in reports and replays.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
