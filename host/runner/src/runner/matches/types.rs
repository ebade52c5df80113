//! What a match is and what it reports: the entrants, the spec and its
//! checks, each game's result and the totals per bot.

use super::{BotRef, GameDef, GameSetup, SetupError};
use arena_core::{Forfeit, ForfeitReason, Seat};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// A bot entered in a match, under the name results show.
#[derive(Debug, Clone)]
pub struct Entrant {
    /// The name shown: the file stem, or `house:NAME`.
    pub name: String,
    /// The bot.
    pub bot: BotRef,
}

/// One game of a match, as reported.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GameResult {
    /// Index of the game in the match, from 0.
    pub index: usize,
    /// The seed of the deal this game was played on.
    pub seed: u64,
    /// For each seat, the index of the bot sitting there.
    pub seats: Vec<usize>,
    /// For each seat, its score.
    pub scores: Vec<i64>,
    /// The winning seat, or null for a draw.
    pub winner: Option<Seat>,
    /// The forfeit that ended the game, if any (with more than two players: the first).
    pub forfeit: Option<Forfeit>,
    /// Every forfeit of the game (games of more than two players go on after one).
    pub forfeits: Vec<Forfeit>,
    /// Finishing positions by seat (1 = first), for games that rank players.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positions: Option<Vec<u32>>,
    /// Per seat, illegal answers the game played on under the course's rule
    /// (written only when there were some).
    #[serde(default, skip_serializing_if = "no_illegal")]
    pub illegal: Vec<u32>,
}

pub(super) fn no_illegal(counts: &[u32]) -> bool {
    counts.iter().all(|&c| c == 0)
}

/// How a bot placed, in games that rank players.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PositionSummary {
    /// Mean finishing position (1 = first).
    pub mean: f64,
    /// Games finished first (President).
    pub first: u32,
    /// Games finished last (Bum).
    pub last: u32,
}

/// One bot's totals over a match.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BotSummary {
    /// The bot's name.
    pub name: String,
    /// SHA-256 of the wasm file, for wasm bots.
    pub sha256: Option<String>,
    /// Games played.
    pub games: u32,
    /// Games won.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Games drawn.
    pub draws: u32,
    /// Sum of its scores over all games.
    pub points: i64,
    /// Its score per game: mean, spread and 95% confidence interval.
    pub score: crate::stats::Estimate,
    /// Forfeits by reason (every reason listed, zero or not).
    pub forfeits: BTreeMap<String, u32>,
    /// Illegal answers the games played on under the course's rule (under
    /// `--illegal forfeit` they are forfeits with reason `illegal-move`).
    pub illegal_moves: u32,
    /// Finishing positions, for games that rank players.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positions: Option<PositionSummary>,
    /// For wasm bots: fuel per move and how close to the limits it played.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fuel: Option<FuelSummary>,
    /// Games in which it gave an illegal answer (worded by `arena match`,
    /// not in the JSON, where every game's `illegal` says it).
    #[serde(skip)]
    pub illegal_games: u32,
    /// For each forfeit reason, the first game it forfeited that way, in
    /// the order they happened: what `arena match` tells a student.
    #[serde(skip)]
    pub first_forfeits: Vec<FirstForfeit>,
}

/// The first game a bot forfeited for one reason.
#[derive(Debug, Clone, PartialEq)]
pub struct FirstForfeit {
    /// Why.
    pub reason: ForfeitReason,
    /// The game's index in the match.
    pub game: usize,
    /// What happened, in the sandbox's words.
    pub detail: String,
}

/// A whole match, as reported by `arena match --json`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MatchReport {
    /// The game's name.
    pub game: String,
    /// The variant played.
    pub variant: String,
    /// What an illegal move cost: the course's rule or a forfeit.
    pub illegal: arena_core::IllegalMoves,
    /// The match seed.
    pub seed: u64,
    /// Games played.
    pub games: usize,
    /// The limits bots ran under.
    pub limits: arena_sandbox::Limits,
    /// Every game, in order (written before the totals, so `arena match
    /// --json` can stream them as they are played; empty from [`play_match`]).
    pub results: Vec<GameResult>,
    /// Per-bot totals, in the order the bots were given.
    pub bots: Vec<BotSummary>,
}

/// What to play.
pub struct MatchSpec<'a> {
    /// The game.
    pub game: &'static dyn GameDef,
    /// Its settings.
    pub setup: GameSetup<'a>,
    /// The bots; as many as the game seats.
    pub entrants: Vec<Entrant>,
    /// Games to play (rounded up to a whole number of seat rotations).
    pub games: usize,
    /// The match seed.
    pub seed: u64,
    /// Whether to keep every event for a replay.
    pub record: bool,
}

/// Most games one match may play: enough for any class, few enough to plan in memory.
pub const MAX_GAMES: usize = 10_000_000;

/// Whether `game` seats `n` bots, or the run's mistake in one line.
pub fn check_seats(game: &dyn GameDef, n: usize) -> Result<(), SetupError> {
    let seats = game.seats();
    if seats.contains(&n) {
        return Ok(());
    }
    let takes = match (*seats.start(), *seats.end()) {
        (1, 1) => "one bot".to_string(),
        (a, b) if a == b => format!("{a} bots"),
        (a, b) => format!("{a} to {b} bots"),
    };
    Err(SetupError::Seats(format!("{} takes {takes}, got {n}", game.name())))
}

impl MatchSpec<'_> {
    /// Whether the match can be played as asked: settings the game accepts,
    /// as many bots as it seats, at most [`MAX_GAMES`] games, and every wasm
    /// bot built for one of the game's worlds. Every way of playing games
    /// (a match, a tournament, a grade, a replay) checks this first, so a
    /// library caller gets the same refusal as the command line.
    pub fn check(&self) -> Result<(), SetupError> {
        self.game.check_setup(&self.setup)?;
        check_seats(self.game, self.entrants.len())?;
        if self.games > MAX_GAMES {
            return Err(SetupError::Games(format!(
                "{} games asked; a match plays at most {MAX_GAMES}",
                self.games
            )));
        }
        for e in &self.entrants {
            if let BotRef::Wasm(program) = &e.bot
                && !self.game.worlds().iter().any(|w| std::ptr::eq(*w, program.world))
            {
                return Err(SetupError::WrongWorld(
                    arena_sandbox::LoadError::WrongWorld {
                        path: program.path.display().to_string(),
                        world: self.game.world().name,
                        expected: self.game.world().exports.join(", "),
                        found: format!("a bot built for {}", program.world.name),
                    }
                    .to_string(),
                ));
            }
        }
        Ok(())
    }
}

/// Everything a match produced: the report and, if recorded, each game's events.
pub struct MatchOutcome {
    /// The report.
    pub report: MatchReport,
    /// Per game, its events (empty when not recorded).
    pub events: Vec<Vec<Value>>,
}

/// How close to its limits a wasm bot played over a match.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FuelSummary {
    /// Moves counted.
    pub moves: u64,
    /// Mean fuel per move.
    pub mean_per_move: f64,
    /// The most fuel one move used.
    pub max_per_move: u64,
    /// `max_per_move` as a share of the per-move budget (above 1: the bank paid).
    pub worst_share: f64,
    /// The most fuel start-up used in one game (instantiation and start calls).
    pub max_start: u64,
    /// The most fuel drawn from the bank in one game.
    pub max_bank_used: u64,
    /// Games in which the bank was drawn on.
    pub games_using_bank: u32,
}
