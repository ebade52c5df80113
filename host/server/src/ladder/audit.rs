//! The statistical check of external workers, as fishtest checks its
//! workers with residuals: a worker's ladder results are compared with the
//! server's own (the matches a server played, and the workers' results a
//! server played again and found the same), which no worker controls.
//!
//! A match's residual for one of its two entrants is its mean score in the
//! match (a win 1, a draw 1/2) minus the score the fitted ratings expect
//! of it against the other. At a table (President) it is the entrant's
//! place score, the mean over the match's games of the share of the others
//! it finished ahead of (`(k - place) / (k - 1)`: 1 first, 0 last; see
//! [`crate::ladder::counts::place_scores`]), minus the share the ratings
//! expect: under Plackett-Luce, the model the ladder fits a table with,
//! entrant `i` finishes ahead of `j` with the chance `w_i / (w_i + w_j)`
//! (the finishing order is that of independent exponential times of rates
//! `w`), so the expectation is the mean of Elo's duel expectation against
//! each other entrant at the table, exactly, and at two seats both
//! measures are a duel's score. Matches are independent (each has its own
//! seed), so for each entrant the mean residual over a worker's matches
//! (not played again) and over the server's own estimate the same number,
//! whatever the ratings get wrong: matchmaking does not look at who plays
//! a match, and a worker's results that are played again are drawn under
//! the course's secret. A two-sample z-test (Welch's, each side with its
//! own variance) tells how unlikely the difference is; the worst entrant names the worker's z. A worker past
//! [`DISABLE_Z`] is disabled (its results go back, see
//! [`crate::workers::Workers::disable`]); past [`DOUBT_Z`] it is in doubt
//! (checked as a new worker again, [`crate::workers::Workers::doubt`]).
//! A forger that makes one bot win its matches (or finish first at its
//! tables) moves that bot's residual by about how much the bot loses
//! honestly, which a few dozen matches show.

use super::counts::Counts;
use super::types::Done;
use std::collections::HashMap;

/// A worker's results are judged once it has this many not played again.
pub const MIN_RESULTS: usize = 30;

/// An entrant is compared once the worker has this many matches of it...
pub const MIN_ENTRANT: usize = 10;

/// ... and the server has this many of its own.
pub const MIN_OWN: usize = 5;

/// A z beyond which a worker is disabled: under honest play a normal z
/// passes 6 about twice in a billion tests, so even a test after every fit,
/// for every entrant and worker, of a whole semester stays far from a false
/// alarm (the residuals are bounded, and the variance floor keeps the tails
/// of a small sample near the normal's).
pub const DISABLE_Z: f64 = 6.0;

/// A z beyond which a worker is in doubt (about 3 in a thousand tests of
/// honest results): more of its results are played again, which settles
/// the doubt either way.
pub const DOUBT_Z: f64 = 3.0;

/// The least variance assumed of a match's residual (a standard deviation
/// of 0.14): a pairing that always ends alike has none, and a z must not
/// grow without bound from a difference of a few games there. At a table
/// the same floor is a little above the variance of a 24-game President
/// match between equals (a place score is uniform on 0, 1/3, 2/3, 1 at a
/// table of 4, a variance of 0.14 a game, about 0.006 a match), so it
/// only makes the test more careful there.
const FLOOR: f64 = 0.02;

/// The residuals of one worker (or the server) for one entrant.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    n: usize,
    sum: f64,
    squares: f64,
}

impl Sums {
    fn mean(&self) -> f64 {
        self.sum / self.n.max(1) as f64
    }

    /// The sum of squared deviations from the mean.
    fn deviations(&self) -> f64 {
        (self.squares - self.sum * self.mean()).max(0.0)
    }
}

/// A worker whose results differ from the server's own more than chance
/// lets them often.
#[derive(Debug, Clone, PartialEq)]
pub struct Suspect {
    /// The worker.
    pub worker: i64,
    /// The entrant whose results differ most.
    pub key: String,
    /// How unlikely (the two-sample z).
    pub z: f64,
    /// The worker's matches of the entrant and their mean residual.
    pub theirs: (usize, f64),
    /// The server's own matches of the entrant and their mean residual.
    pub own: (usize, f64),
    /// The worker's results judged (not played again).
    pub results: usize,
    /// The entrant's matches were at a table (its residual is a place score's).
    pub table: bool,
}

impl Suspect {
    /// Why, in the teacher's words.
    pub fn why(&self) -> String {
        let (scored, results) = if self.table {
            ("placed", "table results")
        } else {
            ("scored", "results")
        };
        format!(
            "its ladder results are too unlikely against the server's own: {} {scored} {:+.2} a match against the \
             ratings in its {} matches and {:+.2} in the server's {} (z = {:.1} over {} {results}; the limit is {})",
            self.key, self.theirs.1, self.theirs.0, self.own.1, self.own.0, self.z, self.results, DISABLE_Z
        )
    }
}

/// The workers whose duel or table results are beyond [`DOUBT_Z`] against
/// the server's own, under `ratings` (Elo, by entrant key), each with its
/// worst entrant, worst first.
pub fn audit<'a>(done: impl IntoIterator<Item = &'a Done>, ratings: &HashMap<String, f64>) -> Vec<Suspect> {
    audit_counts(&Counts::of(done), ratings)
}

/// [`audit`] of matches folded into counts: a match's residual is its
/// first entrant's mean score `s` minus the expected `e`, so a group's `n`
/// matches add `sum s - n e` and `sum s^2 - 2 e sum s + n e^2` to the sums,
/// which is why the counts keep each group's sum and sum of squares. At a
/// table the same holds of each entrant's place scores (the counts'
/// `places`), the expectation `e` fixed by who sits at the table.
pub fn audit_counts(counts: &Counts, ratings: &HashMap<String, f64>) -> Vec<Suspect> {
    // Source 0: the server's own; any other: that worker's, not played again.
    let mut sums: HashMap<(i64, &str), Sums> = HashMap::new();
    let mut results: HashMap<i64, usize> = HashMap::new();
    // The entrants that played at tables (the teacher's sentence says places).
    let mut tables: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for ((entrants, from), b) in &counts.buckets {
        let source = if from.by == 0 || from.verified { 0 } else { from.by };
        let Some((first, second)) = entrants.split_once(',') else {
            continue;
        };
        let (Some(a), Some(b_rating)) = (ratings.get(first), ratings.get(second)) else {
            continue;
        };
        if b.scored == 0 || second.contains(',') {
            continue;
        }
        let n = b.scored as f64;
        let expected = 1.0 / (1.0 + 10f64.powf((b_rating - a) / 400.0));
        let sum = b.score - n * expected;
        let squares = b.squares - 2.0 * expected * b.score + n * expected * expected;
        for (key, sign) in [(first, 1.0), (second, -1.0)] {
            let s = sums.entry((source, key)).or_default();
            s.n += b.scored as usize;
            s.sum += sign * sum;
            s.squares += squares;
        }
        if source != 0 {
            *results.entry(source).or_default() += b.scored as usize;
        }
    }
    for ((entrants, from), b) in &counts.buckets {
        let source = if from.by == 0 || from.verified { 0 } else { from.by };
        let keys: Vec<&str> = entrants.split(',').collect();
        if keys.len() <= 2 || b.places.is_empty() {
            continue;
        }
        let Some(elo) = keys
            .iter()
            .map(|k| ratings.get(*k).copied())
            .collect::<Option<Vec<f64>>>()
        else {
            continue;
        };
        let mut matches = 0;
        for (&e, &(n, score, squares)) in &b.places {
            let (Some(key), Some(&mine)) = (keys.get(e), elo.get(e)) else {
                continue;
            };
            if n == 0 {
                continue;
            }
            // Plackett-Luce: ahead of each other entrant with Elo's duel chance.
            let expected = elo
                .iter()
                .enumerate()
                .filter(|&(o, _)| o != e)
                .map(|(_, r)| 1.0 / (1.0 + 10f64.powf((r - mine) / 400.0)))
                .sum::<f64>()
                / (keys.len() - 1) as f64;
            let nf = n as f64;
            let s = sums.entry((source, key)).or_default();
            s.n += n as usize;
            s.sum += score - nf * expected;
            s.squares += squares - 2.0 * expected * score + nf * expected * expected;
            tables.insert(key);
            matches = matches.max(n as usize);
        }
        if source != 0 {
            *results.entry(source).or_default() += matches;
        }
    }
    let mut out: Vec<Suspect> = Vec::new();
    for (&(worker, key), theirs) in &sums {
        let judged = results.get(&worker).copied().unwrap_or(0);
        if worker == 0 || judged < MIN_RESULTS || theirs.n < MIN_ENTRANT {
            continue;
        }
        let Some(own) = sums.get(&(0, key)).filter(|o| o.n >= MIN_OWN) else {
            continue;
        };
        // Each side's own variance (Welch): a forger's results mix honest
        // and forged ones, and pooling would lend that spread to the server's.
        let variance = |s: &Sums| (s.deviations() / (s.n - 1) as f64).max(FLOOR);
        let z =
            (theirs.mean() - own.mean()) / (variance(theirs) / theirs.n as f64 + variance(own) / own.n as f64).sqrt();
        if z.abs() <= DOUBT_Z {
            continue;
        }
        let suspect = Suspect {
            worker,
            key: key.to_string(),
            z: z.abs(),
            theirs: (theirs.n, theirs.mean()),
            own: (own.n, own.mean()),
            results: judged,
            table: tables.contains(key),
        };
        match out.iter_mut().find(|s| s.worker == worker) {
            Some(s) if s.z < suspect.z || (s.z == suspect.z && s.key > suspect.key) => *s = suspect,
            Some(_) => {}
            None => out.push(suspect),
        }
    }
    out.sort_by(|a, b| b.z.total_cmp(&a.z).then(a.worker.cmp(&b.worker)));
    out
}
