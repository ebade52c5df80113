//! President: 2-6 players shed their cards; wildcards, burns and a social ladder.
//!
//! This module reads like `docs/rules/president.md`; each rule there names
//! the test that pins it down. Nothing here knows about WebAssembly.

mod events;
mod house;
mod play;
mod rules;
#[cfg(test)]
mod tests;

pub use events::{Event, hide};
pub use house::{HOUSE_BOTS, house_bot};
pub use play::{GameRecord, play_game};
pub use rules::*;
