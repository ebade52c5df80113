//! Tournaments: round robin, double elimination and Swiss, on top of matches.
//!
//! A tournament is a list of matches, each a set of bots playing a number
//! of games on shared deals with the seats rotated. Every game is a job:
//! jobs run in parallel, each finished game goes to a journal (so a stopped
//! tournament resumes without playing a game twice), and results are
//! assembled in a fixed order so the outcome never depends on `--jobs`.

mod bracket;
pub mod fit;
mod journal;
mod ratings;
mod standings;
mod tally;

pub use bracket::{Bracket, BracketMatch};
pub use journal::Journal;
pub use ratings::Rating;
pub use standings::{Standing, measure_name, rank_beyond_noise, rank_text};
pub use tally::{BotTally, FORFEITS_KEPT, MatchTally};

use arena_core::{Kind, derive_seed};
use arena_runner::runner::{Entrant, GameDef, GameSetup, MatchSpec, SetupError, play_unit, unit, unit_count};
use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The tournament formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every pairing (or balanced tables, or a shared-deck leaderboard).
    RoundRobin,
    /// A winners' and a losers' bracket; two match losses and you are out.
    DoubleElimination,
    /// Rounds pairing bots with similar scores who have not met.
    Swiss,
}

impl Format {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::RoundRobin => "round-robin",
            Format::DoubleElimination => "double-elimination",
            Format::Swiss => "swiss",
        }
    }
}

/// How double elimination seeds its bracket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Seeding {
    /// In the order the bots were given.
    Order,
    /// By a short round robin first.
    RoundRobin,
}

/// Why a tournament cannot run.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    /// Fewer than two bots.
    #[error("a tournament needs at least two bots, got {0}")]
    TooFew(usize),
    /// A format that needs two-player games.
    #[error("{format} needs a two-player game, and {game} {why}; use --format round-robin")]
    FormatNeedsTwoPlayers {
        /// The format.
        format: &'static str,
        /// The game.
        game: &'static str,
        /// What the game is instead.
        why: &'static str,
    },
    /// `--rounds` where every bot sits at one table.
    #[error(
        "--rounds deals rounds of tables when there are more bots than seats; all {bots} bots sit at one table of {game} (up to {seats}), so drop --rounds and use --games to play more"
    )]
    RoundsAtOneTable {
        /// The bots.
        bots: usize,
        /// The game.
        game: &'static str,
        /// Most seats at a table.
        seats: usize,
    },
    /// A format whose rounds depend on earlier results, asked to be planned whole.
    #[error(
        "{0} pairs each round on the results of the round before, so its matches cannot be planned ahead and cut into shards; run it on one machine with `arena tournament --format {0}`, or shard a round robin"
    )]
    NotPlannable(&'static str),
    /// The journal in --out belongs to another tournament.
    #[error("{0}")]
    Journal(String),
    /// The run itself is wrong (an unknown house bot reached a game).
    #[error("{0}")]
    Setup(#[from] SetupError),
}

/// What to run.
pub struct TournamentSpec<'a> {
    /// The game.
    pub game: &'static dyn GameDef,
    /// Its settings.
    pub setup: GameSetup<'a>,
    /// The bots that loaded.
    pub entrants: Vec<Entrant>,
    /// Bots rejected at load: name and reason.
    pub disqualified: Vec<(String, String)>,
    /// The format.
    pub format: Format,
    /// Games per match (per pairing, table or bracket match).
    pub games: usize,
    /// Rounds (Swiss; tables of many-player round robins).
    pub rounds: Option<usize>,
    /// Double elimination's seeding.
    pub seeding: Seeding,
    /// The tournament seed.
    pub seed: u64,
}

/// One match of a tournament: its bots and what its games came to.
#[derive(Debug, Clone, Serialize)]
pub struct MatchRecord {
    /// A stable id, e.g. `rr:0:3`, `W1:2`, `swiss:2:1`.
    pub id: String,
    /// The bots, by index, in the order of the match's entrants.
    pub bots: Vec<usize>,
    /// Its games' totals and the games its replay page shows: never every
    /// game, so a tournament of a million games holds no more than one of a thousand.
    #[serde(flatten)]
    pub tally: MatchTally,
    /// Games planned (before rounding up to whole seat rotations): with
    /// the id, what [`match_spec`] needs to play the match's games again.
    #[serde(skip)]
    pub games: usize,
}

impl MatchRecord {
    /// Game points of each bot in this match (win 1, draw ½).
    pub fn points(&self) -> Vec<f64> {
        self.tally.totals.iter().map(BotTally::points).collect()
    }
}

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

/// A bot that could not take part.
#[derive(Debug, Clone, Serialize)]
pub struct Disqualified {
    /// Its name.
    pub name: String,
    /// Why.
    pub reason: String,
}

/// A planned match: its id (which seeds its deals), its bots by entrant
/// index, and the games asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The match id, e.g. `rr:0:3`.
    pub id: String,
    /// The bots, by entrant index.
    pub bots: Vec<usize>,
    /// Games asked for (before rounding up to whole seat rotations).
    pub games: usize,
}

/// Runs the games of a tournament: in parallel, journaled, stoppable.
pub struct Engine<'a> {
    spec: &'a TournamentSpec<'a>,
    journal: Option<Journal>,
    stop: Arc<AtomicBool>,
    progress: ProgressBar,
    played: std::sync::atomic::AtomicUsize,
    /// The run's own mistake, if one stopped it: reported as an error, never as a result.
    error: std::sync::Mutex<Option<SetupError>>,
}

impl<'a> Engine<'a> {
    /// An engine for `spec`, journaling to `journal`, stopping when `stop` is set.
    pub fn new(
        spec: &'a TournamentSpec<'a>,
        journal: Option<Journal>,
        stop: Arc<AtomicBool>,
        show_progress: bool,
    ) -> Self {
        let progress = if show_progress {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len} games, {per_sec}, ETA {eta}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar
        } else {
            ProgressBar::hidden()
        };
        Engine {
            spec,
            journal,
            stop,
            progress,
            played: std::sync::atomic::AtomicUsize::new(0),
            error: std::sync::Mutex::new(None),
        }
    }

    /// Play the planned matches; `None` if the tournament was stopped.
    fn play(&self, label: &str, plans: Vec<Plan>) -> Option<Vec<MatchRecord>> {
        let specs: Vec<MatchSpec<'_>> = plans
            .iter()
            .map(|p| plan_spec(self.spec, &p.id, &p.bots, p.games))
            .collect();
        // A job is one unit of a match: one game, or a seat rotation's
        // series for games that chain; a unit is replayed whole on resume
        // unless every one of its games is in the journal. Jobs are numbered
        // through the matches and made one at a time as they run, so the
        // list of a million games is never held.
        let mut starts = vec![0];
        for spec in &specs {
            starts.push(starts[starts.len() - 1] + unit_count(spec));
        }
        let sizes: Vec<usize> = specs
            .iter()
            .map(|s| arena_runner::runner::whole_rotations(s.games, s.entrants.len().max(1)))
            .collect();
        self.progress.set_message(label.to_string());
        self.progress.inc_length(sizes.iter().sum::<usize>() as u64);
        // What an earlier run (or the shards) finished counts as played.
        let tallies: Vec<std::sync::Mutex<MatchTally>> = plans
            .iter()
            .zip(&sizes)
            .map(|(p, &size)| {
                let earlier = self.journal.as_ref().and_then(|j| j.take(&p.id, p.bots.len(), size));
                std::sync::Mutex::new(earlier.unwrap_or_else(|| MatchTally::new(p.bots.len())))
            })
            .collect();
        let stopped = AtomicBool::new(false);
        (0..starts[starts.len() - 1]).into_par_iter().for_each(|job| {
            let m = starts.partition_point(|&s| s <= job) - 1;
            let unit = unit(&specs[m], job - starts[m]);
            self.play_job(&specs[m], &unit, &plans[m].id, &tallies[m], &stopped);
        });
        if stopped.load(Ordering::Relaxed) {
            return None;
        }
        Some(
            plans
                .into_iter()
                .zip(tallies)
                .map(|(p, t)| MatchRecord {
                    id: p.id,
                    bots: p.bots,
                    tally: t.into_inner().unwrap_or_else(|e| e.into_inner()),
                    games: p.games,
                })
                .collect(),
        )
    }

    /// Play one job, `unit` of match `id`, unless every one of its games is
    /// in the journal already: each game to the journal and the match's
    /// `tally`. An error of the run stops the tournament (and sets `stopped`).
    fn play_job(
        &self,
        spec: &MatchSpec<'_>,
        unit: &[usize],
        id: &str,
        tally: &std::sync::Mutex<MatchTally>,
        stopped: &AtomicBool,
    ) {
        let lock = || tally.lock().unwrap_or_else(|e| e.into_inner());
        if unit.iter().all(|&g| lock().has(g)) {
            self.progress.inc(unit.len() as u64);
            return;
        }
        if self.stop.load(Ordering::Relaxed) {
            stopped.store(true, Ordering::Relaxed);
            return;
        }
        let played = match play_unit(spec, unit) {
            Ok(p) => p,
            Err(e) => {
                self.error.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
                self.stop.store(true, Ordering::Relaxed);
                stopped.store(true, Ordering::Relaxed);
                return;
            }
        };
        if let Some(j) = &self.journal {
            for p in &played {
                j.record(id, p.result.index, &p.result);
            }
        }
        let mut tally = lock();
        for p in &played {
            tally.add(&p.result);
        }
        drop(tally);
        self.played.fetch_add(played.len(), Ordering::Relaxed);
        self.progress.inc(played.len() as u64);
    }

    /// Play some of a tournament's planned matches (a shard of it), each
    /// finished game going to the journal; `Ok(None)` if it was stopped.
    pub fn play_planned(&self, label: &str, plans: Vec<Plan>) -> Result<Option<Vec<MatchRecord>>, TournamentError> {
        let records = self.play(label, plans);
        if let Some(e) = self.error.lock().unwrap_or_else(|e| e.into_inner()).take() {
            return Err(e.into());
        }
        Ok(records)
    }

    /// Games played (not read back from the journal) so far.
    pub fn games_played(&self) -> usize {
        self.played.load(Ordering::Relaxed)
    }
}

/// The seed of the tournament's match `id`: from the tournament seed and the id alone.
fn match_seed(tournament_seed: u64, id: &str) -> u64 {
    let h = Sha256::digest(id.as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&h[..8]);
    derive_seed(tournament_seed, u64::from_le_bytes(b))
}

fn plan_spec<'a>(spec: &TournamentSpec<'a>, id: &str, bots: &[usize], games: usize) -> MatchSpec<'a> {
    MatchSpec {
        game: spec.game,
        setup: spec.setup.clone(),
        entrants: bots.iter().map(|&b| spec.entrants[b].clone()).collect(),
        games,
        seed: match_seed(spec.seed, id),
        record: false,
    }
}

/// The match a tournament played as `record` (unrecorded): play one of its
/// units again with `record: true` and the replay is the game that was scored.
pub fn match_spec<'a>(spec: &TournamentSpec<'a>, record: &MatchRecord) -> MatchSpec<'a> {
    plan_spec(spec, &record.id, &record.bots, record.games)
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
