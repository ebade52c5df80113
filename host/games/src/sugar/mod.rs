//! Sugargame: two players, five agents each, a 5x5 grid of sugar.
//!
//! This module reads like `docs/rules/sugar.md`; each rule there names the
//! test that pins it down. Nothing here knows about WebAssembly.

mod events;
mod house;
mod play;
mod rules;
#[cfg(test)]
mod tests;

pub use events::{Event, hide};
pub use house::{HOUSE_BOTS, house_bot};
pub use play::play_game;
pub use rules::*;
