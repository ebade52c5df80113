//! Ratings from every game, fitted at once (see `fit.rs`): Bradley-Terry
//! for two-player games, Plackett-Luce on finishing orders for tables.

use super::MatchRecord;
use super::fit::{Fit, FitGame, PRIOR_DRAWS, fit_counted};
use serde::Serialize;
use std::sync::Arc;

/// A rating with its 95% interval, and the fit it came from, which
/// compares it with the other bots' ratings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rating {
    /// The rating.
    pub value: f64,
    /// Low end of the 95% interval.
    pub low: f64,
    /// High end of the 95% interval.
    pub high: f64,
    /// `bradley-terry` (two players) or `plackett-luce` (tables).
    pub system: &'static str,
    /// This bot's index in `fit`.
    #[serde(skip)]
    pub index: usize,
    /// The fit of every bot of the tournament.
    #[serde(skip)]
    pub fit: Arc<Fit>,
}

impl Rating {
    /// This rating is clearly ahead of `other` (see [`Fit::clearly_ahead`]);
    /// `None` when they come from different fits.
    pub fn clearly_ahead(&self, other: &Rating) -> Option<bool> {
        Arc::ptr_eq(&self.fit, &other.fit).then(|| self.fit.clearly_ahead(self.index, other.index))
    }

    /// This rating minus `other`'s and that difference's standard error,
    /// in Elo points; `None` when they come from different fits.
    pub fn difference(&self, other: &Rating) -> Option<(f64, f64)> {
        Arc::ptr_eq(&self.fit, &other.fit).then(|| self.fit.difference(self.index, other.index))
    }
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
/// (the anchor bots' mean is 1500); tables of more than two use
/// Plackett-Luce. A bot without games has none: nothing but the prior
/// would place it.
pub fn fitted(n: usize, matches: &[MatchRecord]) -> Vec<Option<Rating>> {
    let games = games(matches);
    let system = if games.iter().any(|(g, _)| matches!(g, FitGame::Order(_))) {
        "plackett-luce"
    } else {
        "bradley-terry"
    };
    let counted: Vec<(&FitGame, u32)> = games.iter().map(|(g, c)| (g, *c)).collect();
    let fit = Arc::new(fit_counted(n, &counted, PRIOR_DRAWS));
    fit.ratings
        .iter()
        .enumerate()
        .map(|(index, f)| {
            f.played.then(|| Rating {
                value: f.elo,
                low: f.low,
                high: f.high,
                system,
                index,
                fit: fit.clone(),
            })
        })
        .collect()
}
