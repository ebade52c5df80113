//! Ratings from every game, fitted at once (see `fit.rs`): Bradley-Terry
//! for two-player games, Plackett-Luce on finishing orders for tables.

use super::MatchRecord;
use super::fit::{FitGame, PRIOR_DRAWS, fit_counted};
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

/// Every game of `matches` as the fit sees it, with how often it came out:
/// a duel's score for the bot in seat 0, or a table's finishing order.
fn games(matches: &[MatchRecord]) -> Vec<(FitGame, u32)> {
    let mut out = Vec::new();
    for m in matches {
        let bot = |local: usize| m.bots[local];
        for (order, &count) in &m.tally.orders {
            out.push((FitGame::Order(order.iter().map(|&l| bot(l)).collect()), count));
        }
        for &((s0, s1), ref counts) in &m.tally.duels {
            for (score, &count) in [1.0, 0.5, 0.0].into_iter().zip(counts) {
                if count > 0 {
                    out.push((
                        FitGame::Duel {
                            a: bot(s0),
                            b: bot(s1),
                            score,
                        },
                        count,
                    ));
                }
            }
        }
    }
    out
}

/// Ratings of `n` bots fitted to every game of `matches`, with 95% intervals
/// (the mean is 1500); tables of more than two use Plackett-Luce.
pub fn fitted(n: usize, matches: &[MatchRecord]) -> Vec<Rating> {
    let games = games(matches);
    let system = if games.iter().any(|(g, _)| matches!(g, FitGame::Order(_))) {
        "plackett-luce"
    } else {
        "bradley-terry"
    };
    let counted: Vec<(&FitGame, u32)> = games.iter().map(|(g, c)| (g, *c)).collect();
    fit_counted(n, &counted, PRIOR_DRAWS)
        .into_iter()
        .map(|f| Rating {
            value: f.elo,
            low: f.low,
            high: f.high,
            system,
        })
        .collect()
}
