//! A tournament run whole: its checks, the round robin's plans, Swiss
//! rounds, and the report with its standings and reading.

use super::bracket::Bracket;
use super::engine::Engine;
use super::standings::Standing;
use super::types::{Disqualified, Format, MatchRecord, Plan, TournamentError, TournamentSpec};
use super::{bracket, standings};
use arena_core::{Kind, derive_seed};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::BTreeMap;

/// A finished (or stopped) tournament.
#[derive(Debug, Clone, Serialize)]
pub struct TournamentReport {
    /// The game.
    pub game: String,
    /// The format.
    pub format: Format,
    /// The seed.
    pub seed: u64,
    /// Games per match as played (rounded up to whole sets of seat orders;
    /// with tables of different sizes, the largest).
    pub games_per_match: usize,
    /// Whether every planned game was played (false after Ctrl-C).
    pub complete: bool,
    /// Games played.
    pub games_played: usize,
    /// The bots' names, by the index the matches use.
    pub entrants: Vec<String>,
    /// The ranking.
    pub standings: Vec<Standing>,
    /// Bots rejected at load, with the reason.
    pub disqualified: Vec<Disqualified>,
    /// Who is clearly ahead of whom, and where the differences are within noise.
    pub reading: Vec<String>,
    /// The bracket, for double elimination.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bracket: Option<Bracket>,
    /// Every match.
    pub matches: Vec<MatchRecord>,
}

/// For Swiss and double elimination, where a pairing decides places: for
/// each pair of neighbours in the standings that met, the games between
/// them and whether that result is beyond noise (LOS of 95% or more).
fn neighbour_matches(spec: &TournamentSpec<'_>, rows: &[Standing], matches: &[MatchRecord]) -> Vec<String> {
    let index = |name: &str| spec.entrants.iter().position(|e| e.name == name);
    let mut out = Vec::new();
    for pair in rows.windows(2) {
        let (Some(a), Some(b)) = (index(&pair[0].name), index(&pair[1].name)) else {
            continue;
        };
        let (mut wa, mut wb, mut games, mut ids) = (0u32, 0u32, 0usize, Vec::new());
        for m in matches.iter().filter(|m| m.bots.contains(&a) && m.bots.contains(&b)) {
            ids.push(m.id.clone());
            games += m.tally.played;
            for (local, t) in m.bots.iter().zip(&m.tally.totals) {
                if *local == a {
                    wa += t.wins;
                } else if *local == b {
                    wb += t.wins;
                }
            }
        }
        if games == 0 {
            continue;
        }
        let los = arena_runner::stats::los(wa, wb);
        let verdict = if los >= 0.95 {
            "beyond noise"
        } else if los <= 0.05 {
            "though the games favour the one below"
        } else {
            "a place decided on noise: more games per match would tell"
        };
        out.push(format!(
            "{} is above {}: they met in {} ({games} games, {wa}-{wb}; LOS {:.0}%): {verdict}.",
            pair[0].name,
            pair[1].name,
            ids.join(", "),
            100.0 * los
        ));
    }
    out
}

/// Run a tournament. Stopping (Ctrl-C) returns the report so far with `complete: false`.
pub fn run(spec: &TournamentSpec<'_>, engine: &Engine<'_>) -> Result<TournamentReport, TournamentError> {
    check(spec)?;
    let (matches, bracket, complete) = match spec.format {
        Format::RoundRobin => {
            let plans = round_robin_plans(spec);
            match engine.play("round robin", plans) {
                Some(m) => (m, None, true),
                None => (Vec::new(), None, false),
            }
        }
        Format::Swiss => swiss(spec, engine),
        Format::DoubleElimination => {
            let (m, b, c) = bracket::double_elimination(spec, engine);
            (m, Some(b), c)
        }
    };
    if let Some(e) = engine.error.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(e.into());
    }
    let standings = standings::standings(spec, &matches, bracket.as_ref());
    let mut reading = standings::reading(&standings);
    if matches!(spec.format, Format::Swiss | Format::DoubleElimination) {
        reading.extend(neighbour_matches(spec, &standings, &matches));
    }
    let games_played = matches.iter().map(|m| m.tally.played).sum();
    Ok(TournamentReport {
        game: spec.game.name().to_string(),
        format: spec.format,
        seed: spec.seed,
        // What a match really played: its games rounded up to whole sets of
        // seat orders (24 at a table of four), the most at any table size.
        games_per_match: matches
            .iter()
            .map(|m| arena_runner::runner::whole_rotations(m.games, m.bots.len()))
            .max()
            .unwrap_or(spec.games),
        complete,
        games_played,
        entrants: spec.entrants.iter().map(|e| e.name.clone()).collect(),
        standings,
        disqualified: spec
            .disqualified
            .iter()
            .map(|(n, r)| Disqualified {
                name: n.clone(),
                reason: r.clone(),
            })
            .collect(),
        reading,
        bracket,
        matches,
    })
}

/// Why `spec` cannot be played, if it cannot.
fn check(spec: &TournamentSpec<'_>) -> Result<(), TournamentError> {
    let n = spec.entrants.len();
    if n < 2 {
        return Err(TournamentError::TooFew(n));
    }
    if spec.format != Format::RoundRobin && spec.game.kind() != Kind::Duel {
        let why = if spec.game.kind() == Kind::Solitaire {
            "is played alone"
        } else {
            "seats more than two players"
        };
        return Err(TournamentError::FormatNeedsTwoPlayers {
            format: spec.format.name(),
            game: spec.game.name(),
            why,
        });
    }
    let max = *spec.game.seats().end();
    if spec.format == Format::RoundRobin && max > 2 && n <= max && spec.rounds.is_some() {
        return Err(TournamentError::RoundsAtOneTable {
            bots: n,
            game: spec.game.name(),
            seats: max,
        });
    }
    Ok(())
}

/// Every match of a tournament, decided before any game is played: a round
/// robin's, which can then be cut into shards and played anywhere. Swiss and
/// double elimination pair each round on the results of the last, so they
/// have no such list.
pub fn planned_matches(spec: &TournamentSpec<'_>) -> Result<Vec<Plan>, TournamentError> {
    check(spec)?;
    if spec.format != Format::RoundRobin {
        return Err(TournamentError::NotPlannable(spec.format.name()));
    }
    Ok(round_robin_plans(spec))
}

fn round_robin_plans(spec: &TournamentSpec<'_>) -> Vec<Plan> {
    let n = spec.entrants.len();
    let seats = spec.game.seats();
    let (min, max) = (*seats.start(), *seats.end());
    if max == 1 {
        return (0..n)
            .map(|b| Plan {
                id: format!("solo:{b}"),
                bots: vec![b],
                games: spec.games,
            })
            .collect();
    }
    if max == 2 {
        let mut plans = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                plans.push(Plan {
                    id: format!("rr:{a}:{b}"),
                    bots: vec![a, b],
                    games: spec.games,
                });
            }
        }
        return plans;
    }
    if n <= max {
        return vec![Plan {
            id: "table".into(),
            bots: (0..n).collect(),
            games: spec.games,
        }];
    }
    // More bots than seats: rounds of seeded random tables of near-equal size,
    // so every bot meets every other and every seat about equally often.
    let rounds = spec.rounds.unwrap_or(n);
    let tables = n.div_ceil(max);
    let mut plans = Vec::new();
    let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(spec.seed, 0x7AB1E));
    for round in 0..rounds {
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(&mut rng);
        let mut start = 0;
        for t in 0..tables {
            let size = n / tables + usize::from(t < n % tables);
            let bots = order[start..start + size].to_vec();
            start += size;
            if bots.len() >= min {
                plans.push(Plan {
                    id: format!("rr:{round}:{t}"),
                    bots,
                    games: spec.games,
                });
            }
        }
    }
    plans
}

/// Swiss: each round pairs bots with similar match points who have not met.
fn swiss(spec: &TournamentSpec<'_>, engine: &Engine<'_>) -> (Vec<MatchRecord>, Option<Bracket>, bool) {
    let n = spec.entrants.len();
    let rounds = spec
        .rounds
        .unwrap_or_else(|| (usize::BITS - (n - 1).leading_zeros()) as usize + 1)
        .min(n - 1)
        .max(1);
    let mut points = vec![0.0f64; n];
    let mut met: BTreeMap<(usize, usize), bool> = BTreeMap::new();
    let mut byes = vec![false; n];
    let mut all = Vec::new();
    for round in 0..rounds {
        // Rank by match points, then by entry order (a stable, seed-free tiebreak).
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| points[b].total_cmp(&points[a]).then(a.cmp(&b)));
        if order.len() % 2 == 1 {
            if let Some(pos) = order.iter().rposition(|&b| !byes[b]) {
                let b = order.remove(pos);
                byes[b] = true;
                points[b] += 1.0;
            } else {
                order.pop();
            }
        }
        let pairs = pair_unmet(&order, &met);
        let plans: Vec<Plan> = pairs
            .iter()
            .enumerate()
            .map(|(i, &(a, b))| Plan {
                id: format!("swiss:{round}:{i}"),
                bots: vec![a, b],
                games: spec.games,
            })
            .collect();
        let Some(records) = engine.play(&format!("swiss round {}", round + 1), plans) else {
            return (all, None, false);
        };
        for m in &records {
            let p = m.points();
            let (a, b) = (m.bots[0], m.bots[1]);
            met.insert((a.min(b), a.max(b)), true);
            match p[0].total_cmp(&p[1]) {
                std::cmp::Ordering::Greater => points[a] += 1.0,
                std::cmp::Ordering::Less => points[b] += 1.0,
                std::cmp::Ordering::Equal => {
                    points[a] += 0.5;
                    points[b] += 0.5;
                }
            }
        }
        all.extend(records);
    }
    (all, None, true)
}

/// Pair `order` top-down, each with the best-ranked bot it has not met
/// (backtracking when a greedy choice strands someone; a rematch only when
/// no pairing avoids one).
fn pair_unmet(order: &[usize], met: &BTreeMap<(usize, usize), bool>) -> Vec<(usize, usize)> {
    fn go(rest: &[usize], met: &BTreeMap<(usize, usize), bool>, out: &mut Vec<(usize, usize)>, allow: bool) -> bool {
        let Some((&a, tail)) = rest.split_first() else {
            return true;
        };
        for i in 0..tail.len() {
            let b = tail[i];
            if !allow && met.contains_key(&(a.min(b), a.max(b))) {
                continue;
            }
            let mut next: Vec<usize> = tail.to_vec();
            next.remove(i);
            out.push((a, b));
            if go(&next, met, out, allow) {
                return true;
            }
            out.pop();
        }
        false
    }
    let mut out = Vec::new();
    if order.len() <= 16 && go(order, met, &mut out, false) {
        return out;
    }
    out.clear();
    // Large fields or no rematch-free pairing: greedy, rematches allowed.
    let mut rest = order.to_vec();
    while rest.len() >= 2 {
        let a = rest.remove(0);
        let i = rest
            .iter()
            .position(|&b| !met.contains_key(&(a.min(b), a.max(b))))
            .unwrap_or(0);
        out.push((a, rest.remove(i)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swiss_pairs_avoid_rematches_when_possible() {
        let mut met = BTreeMap::new();
        met.insert((0, 1), true);
        met.insert((2, 3), true);
        let pairs = pair_unmet(&[0, 1, 2, 3], &met);
        assert_eq!(pairs, vec![(0, 2), (1, 3)]);
        for &(a, b) in &pairs {
            assert!(!met.contains_key(&(a.min(b), a.max(b))));
        }
    }

    #[test]
    fn swiss_allows_a_rematch_only_when_unavoidable() {
        let mut met = BTreeMap::new();
        met.insert((0, 1), true);
        assert_eq!(pair_unmet(&[0, 1], &met), vec![(0, 1)]);
    }
}
