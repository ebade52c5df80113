//! The engine that plays a tournament's games: in parallel, journaled and
//! stoppable, each match seeded from the tournament seed and its id.

use super::journal::Journal;
use super::tally::MatchTally;
use super::types::{MatchRecord, Plan, TournamentError, TournamentSpec};
use arena_core::derive_seed;
use arena_runner::runner::{MatchSpec, SetupError, play_unit, unit, unit_count};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Runs the games of a tournament: in parallel, journaled, stoppable.
pub struct Engine<'a> {
    spec: &'a TournamentSpec<'a>,
    journal: Option<Journal>,
    stop: Arc<AtomicBool>,
    progress: ProgressBar,
    played: std::sync::atomic::AtomicUsize,
    /// The run's own mistake, if one stopped it: reported as an error, never as a result.
    pub(super) error: std::sync::Mutex<Option<SetupError>>,
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
    pub(super) fn play(&self, label: &str, plans: Vec<Plan>) -> Option<Vec<MatchRecord>> {
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
