//! Comparisons: several bots, each on the same deals, ranked by one measure.
//!
//! What is measured follows what the game is ([`GameDef::kind`]):
//! solitaire games compare mean scores; duels compare win rates against one
//! reference bot, each deal played from both seats; table games compare the
//! mean finishing position of the bot at a table where every other seat is
//! a copy of the reference, each deal played from every seat.

use super::{Entrant, GameResult, GameSetup, MatchSpec, PositionSummary, run_match};
use crate::runner::GameDef;
use crate::stats::{Estimate, estimate};
use arena_core::Kind;
use serde::Serialize;
use std::collections::BTreeMap;

/// Players at a compared table when `--players` is not given: the table of
/// four the default President rubric grades at.
pub const DEFAULT_TABLE: usize = 4;

/// What to compare.
pub struct CompareSpec<'a> {
    /// The game.
    pub game: &'static dyn GameDef,
    /// Its settings.
    pub setup: GameSetup<'a>,
    /// The bots compared.
    pub entrants: Vec<Entrant>,
    /// The reference opponent, for games with opponents.
    pub against: Option<Entrant>,
    /// For table games: players at each table (the bot and copies of the
    /// reference); [`DEFAULT_TABLE`] when `None`.
    pub players: Option<usize>,
    /// Games per bot.
    pub games: usize,
    /// The seed all bots share.
    pub seed: u64,
}

/// Why a comparison cannot run.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// A two-player game without a reference.
    #[error("{0} has opponents: name the reference bot with --against BOT (for example --against house:random)")]
    NeedsAgainst(&'static str),
    /// A solitaire with a reference.
    #[error("{0} is played alone: --against makes no sense, drop it")]
    NoOpponents(&'static str),
    /// The run itself is wrong (an unknown house bot reached a game).
    #[error("{0}")]
    Setup(#[from] super::SetupError),
    /// A table size the game does not seat.
    #[error("{game} seats {min} to {max} players, not {players}: give --players between {min} and {max}")]
    TableSize {
        /// The game.
        game: &'static str,
        /// The table size asked for.
        players: usize,
        /// Fewest players the game seats.
        min: usize,
        /// Most players the game seats.
        max: usize,
    },
    /// Head to head (two bots, no reference) in a game that is not a duel.
    #[error("{0} is not a duel: head to head and --sprt compare two bots of a two-player game; give --against BOT")]
    NotADuel(&'static str),
    /// A table size for a game that is not played at a table.
    #[error("{0} is not a table game: --players is only for games like president, drop it")]
    NotATable(&'static str),
}

/// One bot's line in a comparison.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CompareRow {
    /// The bot's name.
    pub name: String,
    /// SHA-256 of the wasm file, for wasm bots.
    pub sha256: Option<String>,
    /// Games played.
    pub games: u32,
    /// The measure: mean score per game, win rate per deal (a draw counts
    /// half), or mean finishing position per deal (1 = first; lower is better).
    pub estimate: Estimate,
    /// Games won, drawn and lost against the reference (two-player games).
    pub record: Option<[u32; 3]>,
    /// Likelihood that the bot is stronger than the reference (two-player
    /// games; cutechess-cli's LOS from wins and losses).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub los: Option<f64>,
    /// Games finished first and last, and the mean position (table games).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positions: Option<PositionSummary>,
    /// Forfeits by reason.
    pub forfeits: BTreeMap<String, u32>,
}

/// A whole comparison, as `arena compare --json` prints it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CompareReport {
    /// The game.
    pub game: String,
    /// The variant.
    pub variant: String,
    /// The shared seed.
    pub seed: u64,
    /// Games per bot.
    pub games: usize,
    /// `mean-score`, `win-rate` or `mean-position`.
    pub measure: &'static str,
    /// The reference bot, for games with opponents.
    pub against: Option<String>,
    /// Players at each table, for table games (the bot and copies of the reference).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub players: Option<usize>,
    /// The limits bots ran under.
    pub limits: arena_sandbox::Limits,
    /// One row per bot, in the order given.
    pub bots: Vec<CompareRow>,
}

/// How many players sit at each table of the comparison, after checking
/// that the options suit what the game is.
fn table_size(spec: &CompareSpec<'_>) -> Result<usize, CompareError> {
    let name = spec.game.name();
    match (spec.game.kind(), &spec.against, spec.players) {
        (Kind::Solitaire, Some(_), _) => Err(CompareError::NoOpponents(name)),
        (Kind::Solitaire | Kind::Duel, _, Some(_)) => Err(CompareError::NotATable(name)),
        (Kind::Solitaire, None, None) => Ok(1),
        (Kind::Duel | Kind::Table, None, _) => Err(CompareError::NeedsAgainst(name)),
        (Kind::Duel, Some(_), None) => Ok(2),
        (Kind::Table, Some(_), players) => {
            let seats = spec.game.seats();
            let (min, max) = (*seats.start(), *seats.end());
            let players = players.unwrap_or_else(|| DEFAULT_TABLE.clamp(min, max));
            if seats.contains(&players) {
                Ok(players)
            } else {
                Err(CompareError::TableSize {
                    game: name,
                    players,
                    min,
                    max,
                })
            }
        }
    }
}

/// A bot's row of a comparison from its match against the reference: the
/// bot sits in seat 0 of the first game, and the unit is a deal played in
/// every seat order (the games of a deal share their cards).
fn compare_row(report: &super::MatchReport, kind: Kind, seats: usize) -> CompareRow {
    let me = &report.bots[0];
    // The bot's seat in a game: where bot 0 sits.
    let mine = |r: &GameResult| r.seats.iter().position(|&b| b == 0).unwrap_or(0);
    // The unit is a deal played in every seat order: the games of a
    // deal share their cards, so they are not independent samples.
    let per_deal = |value: &dyn Fn(&GameResult) -> f64| -> Vec<f64> {
        report
            .results
            .chunks(super::seat_orders(seats))
            .map(|deal| deal.iter().map(value).sum::<f64>() / deal.len() as f64)
            .collect()
    };
    let (estimate, record, positions) = match kind {
        Kind::Solitaire => (me.score, None, None),
        Kind::Duel => {
            let win = |r: &GameResult| match r.winner {
                Some(w) if w == mine(r) => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            };
            let deals = per_deal(&win);
            let mut e = estimate(&deals);
            // A rate: the Wilson interval over deals keeps its width at 0%, 100% and a tie.
            e.ci95 = crate::stats::wilson(e.mean, deals.len());
            (e, Some([me.wins, me.draws, me.losses]), None)
        }
        Kind::Table => {
            let position = |r: &GameResult| r.positions.as_ref().map_or(f64::NAN, |p| f64::from(p[mine(r)]));
            (estimate(&per_deal(&position)), None, me.positions.clone())
        }
    };
    CompareRow {
        name: me.name.clone(),
        sha256: me.sha256.clone(),
        games: me.games,
        estimate,
        los: record.map(|[w, _, l]| crate::stats::los(w, l)),
        record,
        positions,
        forfeits: me.forfeits.clone(),
    }
}

/// Run a comparison.
pub fn run_compare(spec: CompareSpec<'_>) -> Result<CompareReport, CompareError> {
    let seats = table_size(&spec)?;
    let kind = spec.game.kind();
    // Every bot meets the same deals: deal `k` is derived from (seed, k)
    // whoever plays it, the same deals `arena match --seed` plays.
    let CompareSpec {
        game,
        setup,
        entrants,
        against,
        players: _,
        games,
        seed,
    } = spec;
    let mut rows = Vec::with_capacity(entrants.len());
    let mut variant = String::new();
    for entrant in entrants {
        // The bot in seat 0 of the first game, every other seat a copy of
        // the reference; the runner rotates the seats over each deal.
        let mut lineup = vec![entrant];
        if let Some(reference) = &against {
            lineup.extend(std::iter::repeat_n(reference.clone(), seats - 1));
        }
        let setup = setup.clone();
        let match_spec = MatchSpec {
            game,
            setup,
            entrants: lineup,
            games,
            seed,
            record: false,
        };
        let outcome = run_match(&match_spec)?;
        let report = outcome.report;
        variant = report.variant.clone();
        rows.push(compare_row(&report, kind, seats));
    }
    Ok(CompareReport {
        game: game.name().to_string(),
        variant,
        seed,
        games: super::whole_rotations(games, seats),
        measure: match kind {
            Kind::Solitaire => "mean-score",
            Kind::Duel => "win-rate",
            Kind::Table => "mean-position",
        },
        against: against.map(|a| a.name),
        players: (kind == Kind::Table).then_some(seats),
        limits: setup.sandbox.limits().clone(),
        bots: rows,
    })
}
