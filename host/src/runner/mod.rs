//! The runner: seats, seeds, duplicate deals and results, for any game.
//!
//! It speaks only the common vocabulary (seats, seeds, outcomes, forfeits,
//! events) and works for 1, 2 or N players without knowing the game.

mod compare;
mod matches;

pub use compare::*;
pub use matches::*;

use crate::games::{EventSink, Failure, Forfeit, Outcome, Seat, derive_seed};
use crate::sandbox::log::LogContents;
use crate::sandbox::{BotProgram, Sandbox, WorldSpec};
use serde_json::json;
use std::sync::Arc;

/// A bot as the runner knows it: built in, or a loaded wasm program.
#[derive(Debug, Clone)]
pub enum BotRef {
    /// A house bot by name.
    House(String),
    /// A checked and compiled wasm component.
    Wasm(Arc<BotProgram>),
}

/// What a game needs besides its seed and players.
pub struct GameSetup<'a> {
    /// The sandbox wasm bots run in.
    pub sandbox: &'a Sandbox,
    /// The rules variant, if the game has several.
    pub variant: Option<String>,
}

/// A setting a game cannot accept.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// No such variant.
    #[error("unknown variant `{0}`")]
    UnknownVariant(String),
    /// The game has no terminal play yet.
    #[error("{0} cannot be played by a person yet")]
    NoHumanPlay(&'static str),
    /// Wrong number of opponents for human play.
    #[error("{0}")]
    Opponents(String),
}

/// One game played: its outcome, and per seat the wasm bot's log and fuel.
#[derive(Debug, Clone)]
pub struct PlayedGame {
    /// How it ended.
    pub outcome: Outcome,
    /// Per seat: what a wasm bot logged (`None` for house bots).
    pub logs: Vec<Option<LogContents>>,
    /// Per seat: fuel a wasm bot used (`None` for house bots).
    pub fuel: Vec<Option<u64>>,
}

impl PlayedGame {
    /// A game played: per seat, the wasm bot's log and fuel (`None` for house bots).
    pub fn with_reports(outcome: Outcome, reports: Vec<Option<(LogContents, u64)>>) -> PlayedGame {
        let (logs, fuel) = reports
            .into_iter()
            .map(|r| r.map_or((None, None), |(l, f)| (Some(l), Some(f))))
            .unzip();
        PlayedGame { outcome, logs, fuel }
    }

    /// A game played by house bots only: no logs, no fuel.
    pub fn native(outcome: Outcome) -> PlayedGame {
        let seats = outcome.scores.len();
        PlayedGame {
            outcome,
            logs: vec![None; seats],
            fuel: vec![None; seats],
        }
    }

    /// A game lost before it began because `seat` could not start (its instantiation failed).
    pub fn forfeit_at_start(seats: usize, seat: Seat, failure: Failure, events: &mut dyn EventSink) -> PlayedGame {
        if events.enabled() {
            events.event(json!({"type": "forfeit", "seat": seat, "reason": failure.reason, "detail": failure.detail}));
        }
        let winner = (seats == 2).then_some(1 - seat);
        PlayedGame {
            outcome: Outcome {
                scores: vec![0; seats],
                winner,
                forfeit: Some(Forfeit {
                    seat,
                    reason: failure.reason,
                    detail: failure.detail,
                }),
                other_forfeits: Vec::new(),
                positions: None,
            },
            logs: vec![None; seats],
            fuel: vec![None; seats],
        }
    }
}

/// A game the arena can run: its rules behind the common vocabulary.
pub trait GameDef: Send + Sync {
    /// Command-line name, e.g. `en-garde`.
    fn name(&self) -> &'static str;
    /// Display name, e.g. `En Garde`.
    fn title(&self) -> &'static str;
    /// The world its bots must target.
    fn world(&self) -> &'static WorldSpec;
    /// How many players sit at one table.
    fn seats(&self) -> std::ops::RangeInclusive<usize>;
    /// Built-in bots: name and description.
    fn house_bots(&self) -> &'static [(&'static str, &'static str)];
    /// Rules variants; the first is the default.
    fn variants(&self) -> &'static [&'static str];
    /// Reject settings the game cannot use, before any game is played.
    fn check_setup(&self, setup: &GameSetup<'_>) -> Result<(), SetupError> {
        match setup.variant.as_deref() {
            Some(v) if !self.variants().contains(&v) => Err(SetupError::UnknownVariant(v.to_string())),
            _ => Ok(()),
        }
    }
    /// Play one game from `seed` with `seats[i]` in seat `i`.
    fn play(&self, setup: &GameSetup<'_>, seed: u64, seats: &[&BotRef], events: &mut dyn EventSink) -> PlayedGame;
    /// Play a series of games at one seating, in order, for games whose
    /// games depend on the previous one (President's exchanges). `None`
    /// means the games are independent and the runner plays them one by one.
    fn play_series(
        &self,
        _setup: &GameSetup<'_>,
        _seeds: &[u64],
        _seats: &[&BotRef],
        _record: bool,
    ) -> Option<Vec<(PlayedGame, Vec<serde_json::Value>)>> {
        None
    }
    /// Whether a person can play this game in the terminal.
    fn has_human_play(&self) -> bool {
        false
    }
    /// Play one game with a person at `term` in seat `seat` against `opponents` (name, bot).
    fn play_human(
        &self,
        _setup: &GameSetup<'_>,
        _seed: u64,
        _term: crate::human::Terminal,
        _seat: Seat,
        _opponents: &[(String, BotRef)],
    ) -> Result<Outcome, SetupError> {
        Err(SetupError::NoHumanPlay(self.name()))
    }
}

/// The seed a wasm instance's WASI randomness starts from, per game and seat.
pub fn instance_seed(game_seed: u64, seat: Seat) -> u64 {
    derive_seed(game_seed, 0x1A57_0000 + seat as u64)
}
