//! Head to head: is my new version better than the old? Two bots of a
//! duel on paired deals (each deal from both seats), with the score, the
//! Elo difference, the likelihood of superiority, and optionally a
//! sequential probability ratio test that stops as soon as it can decide.

use super::{CompareError, Entrant, GameSetup, MatchSpec, Played, play_unit, whole_rotations};
use crate::runner::GameDef;
use crate::stats::{Estimate, Sprt, SprtDecision, elo_of_score, estimate, los};
use arena_core::Kind;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

/// What to play.
pub struct HeadSpec<'a> {
    /// The game (a duel).
    pub game: &'static dyn GameDef,
    /// Its settings.
    pub setup: GameSetup<'a>,
    /// The new bot, then the old.
    pub bots: [Entrant; 2],
    /// Games to play, or with a test the most to play.
    pub games: usize,
    /// The seed of the deals.
    pub seed: u64,
    /// The sequential test, if any.
    pub sprt: Option<Sprt>,
}

/// How a sequential test ended.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct SprtOutcome {
    /// The test.
    #[serde(flatten)]
    pub test: Sprt,
    /// The final log-likelihood ratio.
    pub llr: f64,
    /// Accept H0 at or below, H1 at or above.
    pub bounds: (f64, f64),
    /// `accept-h1`, `accept-h0`, or `continue` when the game cap came first.
    pub decision: SprtDecision,
}

/// The result, as `arena compare --json` prints it for two bots.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct HeadReport {
    /// The game.
    pub game: String,
    /// The variant.
    pub variant: String,
    /// The seed of the deals.
    pub seed: u64,
    /// Games played.
    pub games: usize,
    /// The new bot's name.
    pub new: String,
    /// The old bot's name.
    pub old: String,
    /// The new bot's games won, drawn and lost.
    pub record: [u32; 3],
    /// The new bot's score per paired deal (a win 1, a draw ½), with its interval.
    pub score: Estimate,
    /// The Elo difference the score means, with the score interval's ends.
    pub elo: [f64; 3],
    /// Likelihood that the new bot is the stronger (cutechess-cli's LOS).
    pub los: f64,
    /// The sequential test, if one ran.
    pub sprt: Option<SprtOutcome>,
    /// Forfeits by bot and reason.
    pub forfeits: [BTreeMap<String, u32>; 2],
    /// The limits bots ran under.
    pub limits: arena_sandbox::Limits,
}

/// What a head to head has counted so far.
#[derive(Default)]
struct Tally {
    /// The new bot's games won, drawn and lost.
    record: [u32; 3],
    /// The new bot's score per paired deal.
    pairs: Vec<f64>,
    /// The sum of the pair scores and of their squares (for the SPRT).
    sum: f64,
    sq: f64,
    /// Forfeits per bot, by reason.
    forfeits: [BTreeMap<String, u32>; 2],
    games: usize,
}

impl Tally {
    /// Count one deal played from both seats (its games, in order).
    fn add_pair(&mut self, pair: &[Played]) {
        let mut pair_score = 0.0;
        for p in pair {
            let r = &p.result;
            let new_seat = r.seats.iter().position(|&b| b == 0).unwrap_or(0);
            let (s, slot) = match r.winner {
                Some(w) if w == new_seat => (1.0, 0),
                Some(_) => (0.0, 2),
                None => (0.5, 1),
            };
            self.record[slot] += 1;
            pair_score += s / pair.len() as f64;
            for f in &r.forfeits {
                let bot = r.seats.get(f.seat).copied().unwrap_or(0).min(1);
                *self.forfeits[bot].entry(f.reason.to_string()).or_default() += 1;
            }
        }
        self.games += pair.len();
        self.pairs.push(pair_score);
        self.sum += pair_score;
        self.sq += pair_score * pair_score;
    }
}

/// Play head to head; `progress` sees the games played and, with a test, its ratio so far.
pub fn run_head_to_head(
    spec: HeadSpec<'_>,
    progress: &mut dyn FnMut(usize, Option<f64>),
) -> Result<HeadReport, CompareError> {
    if spec.game.kind() != Kind::Duel {
        return Err(CompareError::NotADuel(spec.game.name()));
    }
    let games = whole_rotations(spec.games.max(2), 2);
    let match_spec = MatchSpec {
        game: spec.game,
        setup: spec.setup.clone(),
        entrants: spec.bots.to_vec(),
        games,
        seed: spec.seed,
        record: false,
    };
    let threads = rayon::current_num_threads().max(1);
    // Pairs per batch: enough to keep every thread busy; the test is then
    // read pair by pair in deal order, so where it stops never depends on
    // the number of threads.
    let batch = 8 * threads;
    let mut tally = Tally::default();
    let mut decision = SprtDecision::Continue;
    let mut llr = 0.0;
    'deals: for first in (0..games / 2).step_by(batch) {
        let last = (first + batch).min(games / 2);
        let units: Vec<Vec<usize>> = (2 * first..2 * last).map(|i| vec![i]).collect();
        let mut played: Vec<Played> = units
            .par_iter()
            .map(|u| play_unit(&match_spec, u))
            .collect::<Result<Vec<_>, _>>()?
            .concat();
        played.sort_by_key(|p| p.result.index);
        for pair in played.chunks(2) {
            tally.add_pair(pair);
            if let Some(test) = &spec.sprt {
                llr = test.llr(tally.pairs.len() as f64, tally.sum, tally.sq);
                decision = test.decide(llr);
                if decision != SprtDecision::Continue {
                    progress(tally.games, Some(llr));
                    break 'deals;
                }
            }
        }
        progress(tally.games, spec.sprt.map(|_| llr));
    }
    let sprt = spec.sprt.map(|test| SprtOutcome {
        test,
        llr,
        bounds: test.bounds(),
        decision,
    });
    Ok(head_report(&spec, tally, sprt))
}

/// The report of a head to head from what it counted.
fn head_report(spec: &HeadSpec<'_>, tally: Tally, sprt: Option<SprtOutcome>) -> HeadReport {
    let mut score = estimate(&tally.pairs);
    score.ci95 = crate::stats::wilson(score.mean, tally.pairs.len());
    let clamp = |s: f64| s.clamp(1e-9, 1.0 - 1e-9);
    HeadReport {
        game: spec.game.name().to_string(),
        variant: spec
            .setup
            .variant
            .clone()
            .unwrap_or_else(|| spec.game.variants().first().copied().unwrap_or("standard").to_string()),
        seed: spec.seed,
        games: tally.games,
        new: spec.bots[0].name.clone(),
        old: spec.bots[1].name.clone(),
        record: tally.record,
        score,
        elo: [
            elo_of_score(clamp(score.mean)),
            elo_of_score(clamp(score.ci95[0])),
            elo_of_score(clamp(score.ci95[1])),
        ],
        los: los(tally.record[0], tally.record[2]),
        sprt,
        forfeits: tally.forfeits,
        limits: spec.setup.sandbox.limits().clone(),
    }
}
