//! Adapters: one thin module per game world, between the pure rules and the sandbox.
//!
//! Adding a game means adding its module here and one line in [`GAMES`].

pub mod connect_fwar;
pub mod en_garde;
pub mod president;
pub mod sugar;

use crate::runner::GameDef;

/// Every game the arena plays.
pub static GAMES: &[&dyn GameDef] = &[
    &en_garde::EnGarde,
    &connect_fwar::ConnectFwar,
    &sugar::Sugar,
    &president::President,
];

/// A game by its command-line name.
pub fn game(name: &str) -> Option<&'static dyn GameDef> {
    GAMES.iter().copied().find(|g| g.name() == name)
}
