//! Ratings from every game, fitted at once (see `fit.rs`): Bradley-Terry
//! for two-player games, Plackett-Luce on finishing orders for tables.

use super::MatchRecord;
use super::fit::{FitGame, PRIOR_DRAWS, fit};
use serde::Serialize;

/// A rating with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rating {
    /// The rating.
    pub value: f64,
    /// Low end of the 95% interval.
    pub low: f64,
    /// High end of the 95% interval.
    pub high: f64,
    /// `bradley-terry` (two players) or `plackett-luce` (tables).
    pub system: &'static str,
}

/// Every game of `matches` as the fit sees it: a duel's score for the bot
/// in seat 0, or a table's finishing order.
fn games(matches: &[MatchRecord]) -> Vec<FitGame> {
    let mut out = Vec::new();
    for m in matches {
        for g in &m.results {
            let bot = |seat: usize| m.bots[g.seats[seat]];
            match &g.positions {
                Some(positions) if g.seats.len() > 2 => {
                    let mut order: Vec<usize> = (0..g.seats.len()).collect();
                    order.sort_by_key(|&s| positions.get(s).copied().unwrap_or(u32::MAX));
                    out.push(FitGame::Order(order.into_iter().map(bot).collect()));
                }
                _ if g.seats.len() == 2 => {
                    let score = match g.winner {
                        Some(0) => 1.0,
                        Some(_) => 0.0,
                        None => 0.5,
                    };
                    out.push(FitGame::Duel {
                        a: bot(0),
                        b: bot(1),
                        score,
                    });
                }
                _ => {}
            }
        }
    }
    out
}

/// Ratings of `n` bots fitted to every game of `matches`, with 95% intervals
/// (the mean is 1500); tables of more than two use Plackett-Luce.
pub fn fitted(n: usize, matches: &[MatchRecord]) -> Vec<Rating> {
    let games = games(matches);
    let system = if games.iter().any(|g| matches!(g, FitGame::Order(_))) {
        "plackett-luce"
    } else {
        "bradley-terry"
    };
    fit(n, &games, PRIOR_DRAWS)
        .into_iter()
        .map(|f| Rating {
            value: f.elo,
            low: f.low,
            high: f.high,
            system,
        })
        .collect()
}
