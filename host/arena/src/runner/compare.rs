//! Comparisons: several bots, each on the same deals, ranked by one measure.
//!
//! Solitaire games compare mean scores; two-player games compare win rates
//! against one reference bot, each deal played from both seats.

use super::{Entrant, GameSetup, MatchSpec, run_match};
use crate::runner::GameDef;
use crate::stats::{Estimate, estimate};
use serde::Serialize;
use std::collections::BTreeMap;

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
    /// A game with more than two seats.
    #[error("{0} seats more than two players: compare supports solitaire and two-player games")]
    TooManySeats(&'static str),
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
    /// The measure: mean score per game, or win rate per deal (a draw counts half).
    pub estimate: Estimate,
    /// Games won, drawn and lost against the reference (two-player games).
    pub record: Option<[u32; 3]>,
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
    /// `mean-score` or `win-rate`.
    pub measure: &'static str,
    /// The reference bot, for two-player games.
    pub against: Option<String>,
    /// The limits bots ran under.
    pub limits: crate::sandbox::Limits,
    /// One row per bot, in the order given.
    pub bots: Vec<CompareRow>,
}

/// Run a comparison.
pub fn run_compare(spec: CompareSpec<'_>) -> Result<CompareReport, CompareError> {
    let seats = *spec.game.seats().start();
    let name = spec.game.name();
    match (seats, &spec.against) {
        (1, Some(_)) => return Err(CompareError::NoOpponents(name)),
        (2, None) => return Err(CompareError::NeedsAgainst(name)),
        (1 | 2, _) => {}
        _ => return Err(CompareError::TooManySeats(name)),
    }
    // Every bot meets the same deals: deal `k` is derived from (seed, k)
    // whoever plays it, the same deals `arena match --seed` plays.
    let CompareSpec {
        game,
        setup,
        entrants,
        against,
        games,
        seed,
    } = spec;
    let mut rows = Vec::with_capacity(entrants.len());
    let mut variant = String::new();
    for entrant in entrants {
        let mut lineup = vec![entrant];
        lineup.extend(against.clone());
        let setup = GameSetup {
            sandbox: setup.sandbox,
            variant: setup.variant.clone(),
        };
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
        let me = &report.bots[0];
        let row = if seats == 1 {
            CompareRow {
                name: me.name.clone(),
                sha256: me.sha256.clone(),
                games: me.games,
                estimate: me.score,
                record: None,
                forfeits: me.forfeits.clone(),
            }
        } else {
            // The unit is a deal played from both seats: the two games of a
            // pair share their cards, so they are not independent samples.
            let per_deal: Vec<f64> = report
                .results
                .chunks(2)
                .map(|pair| {
                    pair.iter()
                        .map(|r| {
                            let my_seat = r.seats.iter().position(|&b| b == 0).unwrap_or(0);
                            match r.winner {
                                Some(w) if w == my_seat => 1.0,
                                Some(_) => 0.0,
                                None => 0.5,
                            }
                        })
                        .sum::<f64>()
                        / pair.len() as f64
                })
                .collect();
            CompareRow {
                name: me.name.clone(),
                sha256: me.sha256.clone(),
                games: me.games,
                estimate: estimate(&per_deal),
                record: Some([me.wins, me.draws, me.losses]),
                forfeits: me.forfeits.clone(),
            }
        };
        rows.push(row);
    }
    Ok(CompareReport {
        game: game.name().to_string(),
        variant,
        seed,
        games: super::whole_rotations(games, seats),
        measure: if seats == 1 { "mean-score" } else { "win-rate" },
        against: against.map(|a| a.name),
        limits: setup.sandbox.limits().clone(),
        bots: rows,
    })
}
