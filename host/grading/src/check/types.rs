//! What a check is asked ([`CheckSpec`]) and what it finds ([`CheckReport`]),
//! and why it could not run.

use arena_core::IllegalMoves;
use arena_runner::runner::GameDef;
use arena_sandbox::Sandbox;
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
    /// Counts the bot's games and fuel against a grading budget (the course
    /// server's check is part of one submission's grading); past it the
    /// smoke matches stop. `None`: unbounded (`arena check`).
    pub meter: Option<&'a crate::grade::budget::Meter<'a>>,
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
