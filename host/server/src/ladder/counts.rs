//! Finished matches folded into counts (issue 48): the rating fit, the
//! records and the workers' statistical check need only how often each
//! game's result happened per group of entrants and per source, so that
//! is what the server keeps in memory and in `ladder_counts`, whatever the
//! number of matches ever played. A match's row is folded once finished
//! ([`crate::ladder::Ladder::compact`]) and deleted once no page can link it.

use super::types::Done;
use crate::play::Game;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One game's result as the fit and the records read it: who sat where
/// (the match's entrant indices), the winning seat, finishing positions.
/// Scores, fuel and forfeits count for nothing in a rating.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct GameKind {
    /// For each seat, the entrant sitting there.
    pub seats: Vec<usize>,
    /// The winning seat; none for a draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<usize>,
    /// Finishing positions by seat (1 = first), for table games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positions: Option<Vec<u32>>,
}

impl GameKind {
    /// The result of `game`.
    pub fn of(game: &Game) -> GameKind {
        GameKind {
            seats: game.seats.clone(),
            winner: game.winner,
            positions: game.positions.clone(),
        }
    }

    /// What the game was for the entrant in `seat`: 0 won, 1 drawn, 2 lost
    /// (at a table: first, between, last), as [`crate::play::Outcome::records`] counts it.
    pub fn record(&self, seat: usize) -> usize {
        match (self.winner, &self.positions) {
            (_, Some(p)) if self.seats.len() > 2 => {
                let last = self.seats.len() as u32;
                let place = p.get(seat).copied().unwrap_or(last);
                if place == 1 {
                    0
                } else if place == last {
                    2
                } else {
                    1
                }
            }
            (Some(w), _) if w == seat => 0,
            (Some(_), _) => 2,
            (None, _) => 1,
        }
    }

    /// As the `game` column keeps it.
    pub fn text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Where a group of matches came from: who played them (0: a server) and
/// whether a server played them again and got the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Source {
    /// A worker's id, or 0 for a server.
    pub by: i64,
    /// Played again on a server and found the same.
    pub verified: bool,
}

/// The matches of one group of entrants from one source, folded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bucket {
    /// Matches.
    pub matches: u64,
    /// Games, by result.
    pub games: BTreeMap<GameKind, u64>,
    /// Matches whose games are all duels (the statistical check's).
    pub scored: u64,
    /// The sum of their first entrant's mean scores...
    pub score: f64,
    /// ... and of their squares.
    pub squares: f64,
    /// Each entrant's (by its index in the group) games and the sum of its
    /// scores in them: a solitaire's board shows the mean score.
    pub sums: BTreeMap<usize, (u64, f64)>,
    /// At a table (the statistical check's): each entrant's matches, the
    /// sum of its place score in them ([`place_scores`]) and of its squares.
    pub places: BTreeMap<usize, (u64, f64, f64)>,
}

impl Bucket {
    /// Add `other`'s matches.
    pub fn add(&mut self, other: &Bucket) {
        self.matches += other.matches;
        self.scored += other.scored;
        self.score += other.score;
        self.squares += other.squares;
        for (k, n) in &other.games {
            *self.games.entry(k.clone()).or_default() += n;
        }
        for (e, (n, sum)) in &other.sums {
            let mine = self.sums.entry(*e).or_default();
            mine.0 += n;
            mine.1 += sum;
        }
        for (e, (n, sum, squares)) in &other.places {
            let mine = self.places.entry(*e).or_default();
            mine.0 += n;
            mine.1 += sum;
            mine.2 += squares;
        }
    }
}

/// The `game` of a `ladder_counts` row holding entrant `e`'s games and
/// score sum (`n`, `score`): `#e`, which no game's JSON starts with.
pub fn sums_row(e: usize) -> String {
    format!("#{e}")
}

/// The `game` of a `ladder_counts` row holding entrant `e`'s matches at a
/// table and the sums of its place scores (`n`, `score`, `squares`): `%e`.
pub fn places_row(e: usize) -> String {
    format!("%{e}")
}

/// Folded matches by entrants (as `ladder_matches.entrants`: comma-separated keys) and source.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counts {
    /// The groups.
    pub buckets: BTreeMap<(String, Source), Bucket>,
}

impl Counts {
    /// Fold one finished match in.
    pub fn fold(&mut self, d: &Done) {
        let b = self
            .buckets
            .entry((
                d.keys.join(","),
                Source {
                    by: d.by,
                    verified: d.verified,
                },
            ))
            .or_default();
        b.matches += 1;
        for g in &d.outcome.games {
            *b.games.entry(GameKind::of(g)).or_default() += 1;
            for (seat, &e) in g.seats.iter().enumerate() {
                let sum = b.sums.entry(e).or_default();
                sum.0 += 1;
                sum.1 += g.scores.get(seat).copied().unwrap_or(0) as f64;
            }
        }
        if let Some(s) = first_score(d) {
            b.scored += 1;
            b.score += s;
            b.squares += s * s;
        }
        for (e, m) in place_scores(d).into_iter().enumerate() {
            if let Some(m) = m {
                let p = b.places.entry(e).or_default();
                p.0 += 1;
                p.1 += m;
                p.2 += m * m;
            }
        }
    }

    /// The matches `done`, folded.
    pub fn of<'a>(done: impl IntoIterator<Item = &'a Done>) -> Counts {
        let mut c = Counts::default();
        for d in done {
            c.fold(d);
        }
        c
    }

    /// Add `other`'s groups whose entrants all pass `keep`.
    pub fn add(&mut self, other: &Counts, keep: impl Fn(&str) -> bool) {
        for ((entrants, source), b) in &other.buckets {
            if entrants.split(',').all(&keep) {
                self.buckets.entry((entrants.clone(), *source)).or_default().add(b);
            }
        }
    }

    /// Each opponent's record against `key`, from `key`'s side: won, drawn, lost
    /// (at a table: against everyone at it), as a ladder page shows it.
    pub fn heads(&self, key: &str) -> BTreeMap<String, [u32; 3]> {
        let mut out: BTreeMap<String, [u32; 3]> = BTreeMap::new();
        for ((entrants, _), b) in &self.buckets {
            let keys: Vec<&str> = entrants.split(',').collect();
            let Some(me) = keys.iter().position(|k| *k == key) else {
                continue;
            };
            let mut mine = [0u32; 3];
            for (kind, &n) in &b.games {
                for (seat, &e) in kind.seats.iter().enumerate() {
                    if e == me {
                        mine[kind.record(seat)] += u32::try_from(n).unwrap_or(u32::MAX);
                    }
                }
            }
            for (i, other) in keys.iter().enumerate() {
                if i != me {
                    let h = out.entry((*other).to_string()).or_default();
                    for k in 0..3 {
                        h[k] += mine[k];
                    }
                }
            }
        }
        out
    }
}

/// A duel's mean score of its first entrant, if every game is a duel
/// (En Garde, and a solitaire's deals compared two by two); none at a table.
pub fn first_score(d: &Done) -> Option<f64> {
    if d.keys.len() != 2 || d.outcome.games.is_empty() {
        return None;
    }
    let mut total = 0.0;
    for g in &d.outcome.games {
        if g.seats.len() != 2 {
            return None;
        }
        total += match g.winner {
            None => 0.5,
            Some(w) => match g.seats.get(w) {
                Some(0) => 1.0,
                Some(_) => 0.0,
                None => return None,
            },
        };
    }
    Some(total / d.outcome.games.len() as f64)
}

/// A table match's place score of each entrant: the mean over the games it
/// sat in of the share of the others it finished ahead of, `(k - place) /
/// (k - 1)` at a table of `k` (1 first, 0 last, 1/2 the middle of the
/// table; at two seats this is a duel's score). Empty unless the match is
/// at a table (more than two entrants) and every game gives places; none
/// for an entrant that sat in no game. A place outside `1..=k` counts as
/// the nearest one.
pub fn place_scores(d: &Done) -> Vec<Option<f64>> {
    if d.keys.len() <= 2 || d.outcome.games.is_empty() {
        return Vec::new();
    }
    let mut sums = vec![(0.0f64, 0u32); d.keys.len()];
    for g in &d.outcome.games {
        let k = g.seats.len();
        let Some(positions) = g.positions.as_ref().filter(|p| k > 2 && p.len() == k) else {
            return Vec::new();
        };
        for (seat, &e) in g.seats.iter().enumerate() {
            let Some(s) = sums.get_mut(e) else {
                return Vec::new();
            };
            let place = positions[seat].clamp(1, k as u32);
            s.0 += f64::from(k as u32 - place) / (k - 1) as f64;
            s.1 += 1;
        }
    }
    sums.into_iter()
        .map(|(sum, n)| (n > 0).then(|| sum / f64::from(n)))
        .collect()
}
