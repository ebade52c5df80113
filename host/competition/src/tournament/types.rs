//! What a tournament is asked to run and what its matches came to: the
//! formats, the spec, the plans and records of matches, and why one cannot run.

use super::tally::{BotTally, MatchTally};
use arena_runner::runner::{Entrant, GameDef, GameSetup, SetupError};
use serde::Serialize;

/// The tournament formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every pairing (or balanced tables, or a shared-deck leaderboard).
    RoundRobin,
    /// A winners' and a losers' bracket; two match losses and you are out.
    DoubleElimination,
    /// Rounds pairing bots with similar scores who have not met.
    Swiss,
}

impl Format {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::RoundRobin => "round-robin",
            Format::DoubleElimination => "double-elimination",
            Format::Swiss => "swiss",
        }
    }
}

/// How double elimination seeds its bracket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Seeding {
    /// In the order the bots were given.
    Order,
    /// By a short round robin first.
    RoundRobin,
}

/// Why a tournament cannot run.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    /// Fewer than two bots.
    #[error("a tournament needs at least two bots, got {0}")]
    TooFew(usize),
    /// A format that needs two-player games.
    #[error("{format} needs a two-player game, and {game} {why}; use --format round-robin")]
    FormatNeedsTwoPlayers {
        /// The format.
        format: &'static str,
        /// The game.
        game: &'static str,
        /// What the game is instead.
        why: &'static str,
    },
    /// `--rounds` where every bot sits at one table.
    #[error(
        "--rounds deals rounds of tables when there are more bots than seats; all {bots} bots sit at one table of {game} (up to {seats}), so drop --rounds and use --games to play more"
    )]
    RoundsAtOneTable {
        /// The bots.
        bots: usize,
        /// The game.
        game: &'static str,
        /// Most seats at a table.
        seats: usize,
    },
    /// A format whose rounds depend on earlier results, asked to be planned whole.
    #[error(
        "{0} pairs each round on the results of the round before, so its matches cannot be planned ahead and cut into shards; run it on one machine with `arena tournament --format {0}`, or shard a round robin"
    )]
    NotPlannable(&'static str),
    /// The journal in --out belongs to another tournament.
    #[error("{0}")]
    Journal(String),
    /// The run itself is wrong (an unknown house bot reached a game).
    #[error("{0}")]
    Setup(#[from] SetupError),
}

/// What to run.
pub struct TournamentSpec<'a> {
    /// The game.
    pub game: &'static dyn GameDef,
    /// Its settings.
    pub setup: GameSetup<'a>,
    /// The bots that loaded.
    pub entrants: Vec<Entrant>,
    /// Bots rejected at load: name and reason.
    pub disqualified: Vec<(String, String)>,
    /// The format.
    pub format: Format,
    /// Games per match (per pairing, table or bracket match).
    pub games: usize,
    /// Rounds (Swiss; tables of many-player round robins).
    pub rounds: Option<usize>,
    /// Double elimination's seeding.
    pub seeding: Seeding,
    /// The tournament seed.
    pub seed: u64,
}

/// One match of a tournament: its bots and what its games came to.
#[derive(Debug, Clone, Serialize)]
pub struct MatchRecord {
    /// A stable id, e.g. `rr:0:3`, `W1:2`, `swiss:2:1`.
    pub id: String,
    /// The bots, by index, in the order of the match's entrants.
    pub bots: Vec<usize>,
    /// Its games' totals and the games its replay page shows: never every
    /// game, so a tournament of a million games holds no more than one of a thousand.
    #[serde(flatten)]
    pub tally: MatchTally,
    /// Games planned (before rounding up to whole seat rotations): with
    /// the id, what [`match_spec`] needs to play the match's games again.
    #[serde(skip)]
    pub games: usize,
}

impl MatchRecord {
    /// Game points of each bot in this match (win 1, draw ½).
    pub fn points(&self) -> Vec<f64> {
        self.tally.totals.iter().map(BotTally::points).collect()
    }
}

/// A bot that could not take part.
#[derive(Debug, Clone, Serialize)]
pub struct Disqualified {
    /// Its name.
    pub name: String,
    /// Why.
    pub reason: String,
}

/// A planned match: its id (which seeds its deals), its bots by entrant
/// index, and the games asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The match id, e.g. `rr:0:3`.
    pub id: String,
    /// The bots, by entrant index.
    pub bots: Vec<usize>,
    /// Games asked for (before rounding up to whole seat rotations).
    pub games: usize,
}
