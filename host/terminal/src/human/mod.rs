//! Human play in the terminal: the person's terminal (`terminal.rs`), whatever the game.
//! Each game's terminal player, narrator and `play` live in `human/<game>.rs`
//! (a layer above the adapters, which know no terminal), listed in `PLAYABLE`,
//! so students can learn a game by hand before they code it.
//!
//! Input and output are abstract (`BufRead`/`Write`) so tests can script a
//! whole game through stdin.

pub mod connect_fwar;
pub mod en_garde;
pub mod president;
pub mod sugar;
mod terminal;

pub use terminal::{Terminal, asks_for_help, asks_to_leave, locale_is_utf8};

use arena_core::{Outcome, Seat};
use arena_runner::runner::{BotRef, GameDef, GameSetup, SetupError};

/// How a person plays one game: the game's setup, the seed, the person's
/// terminal and seat, and the opponents (name, bot).
type PlayFn = fn(&GameSetup<'_>, u64, Terminal, Seat, &[(String, BotRef)]) -> Result<Outcome, SetupError>;

/// The games a person can play in the terminal, by name: the terminal
/// layer's own registry, above the adapters (which know no terminal).
const PLAYABLE: &[(&str, PlayFn)] = &[
    ("en-garde", en_garde::play),
    ("connect-fwar", connect_fwar::play),
    ("sugar", sugar::play),
    ("president", president::play),
];

/// Whether a person can play `game` in the terminal.
pub fn can_play(game: &dyn GameDef) -> bool {
    PLAYABLE.iter().any(|(name, _)| *name == game.name())
}

/// Play one game of `game` with a person at `term` in seat `seat` against `opponents`.
pub fn play(
    game: &dyn GameDef,
    setup: &GameSetup<'_>,
    seed: u64,
    term: Terminal,
    seat: Seat,
    opponents: &[(String, BotRef)],
) -> Result<Outcome, SetupError> {
    match PLAYABLE.iter().find(|(name, _)| *name == game.name()) {
        Some((_, play)) => play(setup, seed, term, seat, opponents),
        None => Err(SetupError::NoHumanPlay(game.name())),
    }
}
