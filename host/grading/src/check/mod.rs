//! What `arena check` finds out about a bot file before it is submitted:
//! the toolchain that built it, the world it targets, its size, compile time
//! and initial memory, then short games against every house bot with the
//! fuel it used, its log size, any forfeit and illegal move, and whether it
//! is ready. A library call ([`check`]) returning data ([`CheckReport`]),
//! so the command line and a course server report the same thing.
//!
//! By concern: this file holds what is asked and what is found, and the
//! loading; `smoke.rs` plays the smoke games and tallies them, `text.rs`
//! writes the report for people, `inspect.rs` reads what a file says
//! about itself (its producers, names and initial memory).

pub mod inspect;
mod smoke;
mod text;

pub use inspect::{Scan, scan, toolchain};

use crate::loaded::LoadedBot;
use arena_core::IllegalMoves;
use arena_runner::adapters;
use arena_runner::runner::GameDef;
use arena_sandbox::{LoadError, Sandbox};
use serde::Serialize;
use std::path::Path;

/// How a caller makes the sandbox of a game: its limits and compile cache.
pub type SandboxFor<'a> = dyn Fn(&'static dyn GameDef) -> anyhow::Result<Sandbox> + Sync + 'a;

/// What to check: a bot file, and how to load and play it.
pub struct CheckSpec<'a> {
    /// The bot file.
    pub bot: &'a Path,
    /// The game, or `None` to find the one the bot loads for.
    pub game: Option<&'static dyn GameDef>,
    /// Games against each house bot (whole deals: every deal from every seat).
    pub games: usize,
    /// The match seed.
    pub seed: u64,
    /// What an illegal move costs (`None`: the game's course rule).
    pub illegal: Option<IllegalMoves>,
    /// The sandbox a game's bots run in (limits, compile cache), as the caller configures it.
    pub sandbox: &'a SandboxFor<'a>,
}

/// Why a check could not give a verdict.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The file is no bot for any game checked (one line: the file, the cause, the fix).
    #[error("{0}")]
    Rejected(String),
    /// The arena could not finish the check (the machine failed, not the bot).
    #[error("{0:#}")]
    Failed(anyhow::Error),
}

impl From<anyhow::Error> for CheckError {
    fn from(e: anyhow::Error) -> Self {
        CheckError::Failed(e)
    }
}

/// Everything a check found, in the order its text reports it.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    /// The file as it was named.
    pub file: String,
    /// The game it was checked for.
    pub game: &'static str,
    /// Whether the game was found by loading the file for each game.
    pub found_game: bool,
    /// The world it targets, e.g. `arena:bots/en-garde@0.2.0`.
    pub world: String,
    /// The toolchain that built it, from its producers section.
    pub toolchain: String,
    /// Its size and the limit, in bytes.
    pub file_bytes: u64,
    /// The largest file accepted.
    pub max_file_bytes: u64,
    /// How long loading took, in seconds.
    pub compile_seconds: f64,
    /// Whether it was compiled (not loaded from the compile cache).
    pub compiled: bool,
    /// Its initial memory, in bytes, when the file says.
    pub initial_memory: Option<u64>,
    /// The memory cap, in bytes.
    pub memory_limit: u64,
    /// One line per smoke match: the opponents, then the results.
    pub matches: Vec<(String, String)>,
    /// Games played, and duel games played and won.
    pub games: usize,
    /// Duel games played (a bot that never wins one is not ready).
    pub duels: u32,
    /// Duel games won.
    pub wins: u32,
    /// Moves played, and their mean and largest fuel.
    pub moves: u64,
    /// Mean fuel per move.
    pub mean_move_fuel: u64,
    /// Most fuel one move used.
    pub max_move_fuel: u64,
    /// The budget per move.
    pub fuel_per_move: u64,
    /// Most fuel the start of a game used, and its allowance.
    pub max_start_fuel: u64,
    /// The start-of-game allowance.
    pub start_fuel: u64,
    /// Most of the bank drawn in one game, and the bank.
    pub max_bank_used: u64,
    /// The bank per game.
    pub bank: u64,
    /// The largest log of a game, in bytes, its limit, and the games whose log was cut.
    pub max_log_bytes: u64,
    /// The log limit per game.
    pub log_limit: u64,
    /// Games whose log was cut short.
    pub truncated_logs: usize,
    /// Forfeits by reason, each with its first one.
    pub forfeits: Vec<ForfeitSeen>,
    /// Illegal moves the games played on (the course's rule), and the games with any.
    pub illegal_moves: u32,
    /// Games with an illegal move.
    pub illegal_games: u32,
    /// The first game with an illegal move: its opponents and number.
    pub first_illegal: Option<(String, u64)>,
    /// The match seed.
    pub seed: u64,
    /// Whether the bot is ready to submit.
    pub ready: bool,
    /// Why not, in words, when it is not.
    pub not_ready: Vec<String>,
}

/// The forfeits of one reason in a check.
#[derive(Debug, Clone, Serialize)]
pub struct ForfeitSeen {
    /// The reason: `trap`, `fuel`, ...
    pub reason: String,
    /// How many games it forfeited for it.
    pub count: u32,
    /// The first: opponents, game and detail.
    pub first: String,
    /// The last lines the bot logged in that game (a traceback's end).
    pub log_tail: Vec<String>,
}

/// Check a bot: load it (for `spec.game`, or for the first game it loads
/// for) and play the smoke matches. The caller picks the thread pool
/// (`pool.install(|| check(..))`).
pub fn check(spec: &CheckSpec<'_>) -> Result<CheckReport, CheckError> {
    let (sandbox, bot) = load(spec)?;
    check_loaded(spec, &sandbox, &bot)
}

/// The check of a bot already loaded (by [`load`], or by
/// [`LoadedBot::load`] in `sandbox`): the smoke matches and the report, so
/// a caller that goes on to grade the same file loads it once. The report
/// says the game was found by trying when `spec.game` is `None`.
pub fn check_loaded(spec: &CheckSpec<'_>, sandbox: &Sandbox, bot: &LoadedBot) -> Result<CheckReport, CheckError> {
    smoke::smoke(spec, sandbox, bot)
}

/// Load the bot for the game asked, or for the first game it loads for:
/// the sandbox of that game (made by `spec.sandbox`) and the bot loaded in it.
pub fn load(spec: &CheckSpec<'_>) -> Result<(Sandbox, LoadedBot), CheckError> {
    let mut first_error: Option<LoadError> = None;
    for game in candidates(spec) {
        // The compile cache too: a second check of the same file (a student
        // fixing a warning) takes a fraction of a second, not another compile.
        let sandbox = (spec.sandbox)(game)?;
        match LoadedBot::load(&sandbox, game, spec.bot) {
            Ok(bot) => return Ok((sandbox, bot)),
            Err(e) => {
                // Only the world differs from game to game; any other
                // reason rejects the file for every game.
                let per_game = matches!(
                    e,
                    LoadError::WrongWorld { .. }
                        | LoadError::UnknownVersion { .. }
                        | LoadError::MixedVersions { .. }
                        | LoadError::ForbiddenImport { .. }
                );
                let stop = !per_game;
                first_error.get_or_insert(e);
                if stop {
                    break;
                }
            }
        }
    }
    match first_error {
        Some(e) if spec.game.is_none() && matches!(e, LoadError::WrongWorld { .. }) => {
            let games: Vec<&str> = adapters::GAMES.iter().map(|g| g.name()).collect();
            Err(CheckError::Rejected(format!(
                "{e} (it loads for none of the games: {})",
                games.join(", ")
            )))
        }
        Some(e) => Err(CheckError::Rejected(e.to_string())),
        None => Err(CheckError::Failed(anyhow::anyhow!("no game to check the bot against"))),
    }
}

/// The games to load the bot for, in turn: the one asked, or every game,
/// those the file names first.
fn candidates(spec: &CheckSpec<'_>) -> Vec<&'static dyn GameDef> {
    match spec.game {
        Some(game) => vec![game],
        None => {
            // Games the file names first, so the usual case compiles once
            // (a hint only, read within the default size limit: loading decides).
            // Only a regular file is read here: a device or a pipe is refused by the load below.
            let limit = arena_sandbox::Limits::default().max_file_bytes;
            let names = std::fs::metadata(spec.bot)
                .is_ok_and(|m| m.is_file())
                .then(|| arena_sandbox::read_at_most(spec.bot, limit).ok())
                .flatten()
                .map(|b| scan(&b).names)
                .unwrap_or_default();
            let (mut named, rest): (Vec<_>, Vec<_>) =
                adapters::GAMES.iter().copied().partition(|g| names_game(&names, *g));
            named.extend(rest);
            named
        }
    }
}

/// Whether the file exports every function of one of the game's worlds
/// (a hint only: loading decides).
fn names_game(names: &[String], game: &dyn GameDef) -> bool {
    game.worlds()
        .iter()
        .any(|w| w.exports.iter().all(|e| names.iter().any(|n| n == e)))
}
