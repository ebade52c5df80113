//! Matches under leases: claimed by the server's own pool or an external
//! worker, their results taken only from the lease's holder, a sample of
//! every worker's played again here ([`Ladder::check_one`]).

use super::types::Untaken;
use super::{FROZEN, Ladder, OWN_BATCH, OWN_LEASE_SECONDS, turn};
use crate::api::Lease;
use crate::course::{now, stamp};
use crate::lease::{Finish, Holder, MATCHES};
use crate::play::{Bot, Job, Outcome};
use arena_core::derive_seed;
use sqlx::Row as _;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

impl Ladder {
    /// Lease up to `max` waiting matches to `holder` for `seconds`.
    /// Leases that ran out are given back first.
    pub async fn claim(&self, holder: Holder, max: usize, seconds: i64) -> Result<Lease, String> {
        // A frozen ladder plays no more: what is leased finishes, what waits stays.
        if self.setting(FROZEN).await {
            return Ok(Lease {
                lease: String::new(),
                matches: Vec::new(),
            });
        }
        // Leases last many seconds: looking for lapsed ones once a second is
        // soon enough, and spares a write (a commit) at every claim.
        if turn(&self.expired, Duration::from_secs(1)) {
            self.leases.lapse().await?;
        }
        let Some(claim) = self.leases.claim(holder, max, seconds, "id, entrants, games").await? else {
            return Ok(Lease {
                lease: String::new(),
                matches: Vec::new(),
            });
        };
        let mut matches = self.jobs(&claim.rows).await?;
        matches.sort_by_key(|j| j.id);
        Ok(Lease {
            lease: claim.token,
            matches,
        })
    }

    pub(super) async fn job(&self, id: i64, entrants: &str, games: i64) -> Result<Job, String> {
        let mut bots = Vec::new();
        for key in entrants.split(',') {
            let sha256 = match key.strip_prefix('s').and_then(|n| n.parse::<i64>().ok()) {
                Some(sub) => self.sha_of(sub).await?,
                None => None,
            };
            bots.push(Bot {
                key: key.to_string(),
                sha256,
            });
        }
        Ok(Job {
            id,
            bots,
            games: usize::try_from(games).unwrap_or(0),
            seed: derive_seed(self.seed, id as u64),
        })
    }

    /// The SHA-256 of submission `id`, if it exists.
    pub(super) async fn sha_of(&self, id: i64) -> Result<Option<String>, String> {
        if let Some(sha) = self.shas.lock().ok().and_then(|m| m.get(&id).cloned()) {
            return Ok(Some(sha));
        }
        let sha: Option<String> = sqlx::query("SELECT sha256 FROM submissions WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?
            .and_then(|r| r.try_get(0).ok());
        if let (Some(sha), Ok(mut m)) = (&sha, self.shas.lock()) {
            m.insert(id, sha.clone());
        }
        Ok(sha)
    }

    /// The match `id` as a job (to play it again).
    pub async fn job_of(&self, id: i64) -> Result<Option<Job>, String> {
        let row = sqlx::query("SELECT entrants, games FROM ladder_matches WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
        match row {
            Some(r) => {
                let entrants: String = r.try_get(0).unwrap_or_default();
                let games: i64 = r.try_get(1).unwrap_or_default();
                Ok(Some(self.job(id, &entrants, games).await?))
            }
            None => Ok(None),
        }
    }

    /// The matches `worker` holds under `lease`, by id: one read for a
    /// batch's results, not one per match.
    pub async fn jobs_of_lease(&self, worker: i64, lease: &str) -> Result<HashMap<i64, Job>, String> {
        let rows = sqlx::query(
            "SELECT id, entrants, games FROM ladder_matches WHERE state = 'leased' AND worker_id = $1 AND lease = $2",
        )
        .bind(worker)
        .bind(lease)
        .fetch_all(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        Ok(self.jobs(&rows).await?.into_iter().map(|j| (j.id, j)).collect())
    }

    /// The jobs of rows `(id, entrants, games)`.
    async fn jobs(&self, rows: &[sqlx::any::AnyRow]) -> Result<Vec<Job>, String> {
        let mut jobs = Vec::with_capacity(rows.len());
        for r in rows {
            let id: i64 = r.try_get(0).unwrap_or_default();
            let entrants: String = r.try_get(1).unwrap_or_default();
            let games: i64 = r.try_get(2).unwrap_or_default();
            jobs.push(self.job(id, &entrants, games).await?);
        }
        Ok(jobs)
    }

    /// Keep `worker`'s lease alive for another [`Ladder::lease_seconds`]; how many of its matches are still leased.
    pub async fn heartbeat(&self, worker: i64, lease: &str) -> Result<u64, String> {
        self.leases
            .renew(Holder::Worker(worker), lease, self.lease_seconds())
            .await
    }

    /// Take the results of matches held by `holder` under `lease`, in one
    /// transaction (one commit, not one per match): what became of each, in
    /// order. A result that comes twice, late, or from someone else is not
    /// taken; a worker's waits in `checking` when a server plays it again
    /// (all of a new worker's first ones, then a share chosen under the
    /// course's secret, [`crate::lease::sampled`]), and counts once it matched.
    pub async fn finish_many(
        &self,
        holder: Holder,
        lease: &str,
        results: &[(&Job, &Outcome)],
    ) -> Result<Vec<Result<(), Untaken>>, String> {
        let before = match holder {
            Holder::Server => 0,
            // Counted from its last doubt: the share checked starts over then.
            Holder::Worker(w) => sqlx::query("SELECT matches - matches_at_doubt FROM workers WHERE id = $1")
                .bind(w)
                .fetch_optional(&self.db.pool)
                .await
                .map_err(|e| e.to_string())?
                .and_then(|r| r.try_get(0).ok())
                .unwrap_or(0),
        };
        let at = stamp(now());
        let mut tx = self.db.pool.begin().await.map_err(|e| e.to_string())?;
        let (mut out, mut taken, mut checking) = (Vec::with_capacity(results.len()), 0i64, false);
        for (job, outcome) in results {
            if let Err(why) = check_shape(job, outcome) {
                out.push(Err(Untaken::Malformed(why)));
                continue;
            }
            let checked = holder != Holder::Server && self.sampled(job.id, before + taken);
            let text = serde_json::to_string(outcome).map_err(|e| e.to_string())?;
            let to = if checked { Finish::Checking } else { Finish::Done };
            if self
                .leases
                .finish(&mut tx, job.id, holder, lease, to, Some(&text))
                .await?
            {
                taken += 1;
                checking |= checked;
                out.push(Ok(()));
            } else {
                out.push(Err(Untaken::NotLeased));
            }
        }
        if let (Holder::Worker(w), true) = (holder, taken > 0) {
            sqlx::query("UPDATE workers SET matches = matches + $1, last_seen = $2 WHERE id = $3")
                .bind(taken)
                .bind(&at)
                .bind(w)
                .execute(&mut *tx)
                .await
                .map_err(|e| e.to_string())?;
        }
        tx.commit().await.map_err(|e| e.to_string())?;
        // The next fit folds them in (`Ladder::compact`) before it counts.
        if taken > 0 {
            self.refit.notify_one();
            self.taken.notify_one();
        }
        if checking {
            self.wake.notify_waiters();
        }
        Ok(out)
    }

    /// Whether a worker's result of match `id` is played again here, when
    /// it has had `earlier` results taken.
    fn sampled(&self, id: i64, earlier: i64) -> bool {
        let config = &self.course.config.ladder;
        self.workers
            .checks(&MATCHES, id, earlier, config.verify_first, config.verify_percent)
    }

    /// Play one batch of matches with the server's own pool; whether there was one.
    ///
    /// A batch gives way to grading: between two matches it stops as soon
    /// as `grading` (the queue's count of jobs added, [`crate::queue::Queue::added`])
    /// moves, and gives back the matches it has not started, so an upload
    /// waits for one match, not a batch.
    pub async fn play_own(&self, grading: &Arc<AtomicU64>) -> bool {
        if self.check_one().await {
            return true;
        }
        let Ok(lease) = self.claim(Holder::Server, OWN_BATCH, OWN_LEASE_SECONDS).await else {
            return false;
        };
        if lease.matches.is_empty() {
            return false;
        }
        let mut played = Vec::new();
        let outcomes = self.play_all(&lease.matches, grading).await;
        for job in &lease.matches[outcomes.len()..] {
            let _ = self.leases.put_back(job.id, &lease.lease).await;
        }
        for (job, outcome) in lease.matches.iter().zip(outcomes) {
            match outcome {
                Ok(o) => played.push((job, o)),
                Err(e) => {
                    eprintln!("arena serve: ladder match {} failed: {e}", job.id);
                    // The arena failed, not a bot (a forfeit is a result): give it back.
                    let _ = self.leases.put_back(job.id, &lease.lease).await;
                    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
                }
            }
        }
        let batch: Vec<(&Job, &Outcome)> = played.iter().map(|(j, o)| (*j, o)).collect();
        match self.finish_many(Holder::Server, &lease.lease, &batch).await {
            Ok(results) => {
                for ((job, _), r) in batch.iter().zip(results) {
                    if let Err(Untaken::Malformed(why)) = r {
                        eprintln!("arena serve: ladder match {} not recorded: {why}", job.id);
                    }
                }
            }
            Err(e) => eprintln!("arena serve: ladder results not recorded ({e}); the matches will be played again"),
        }
        true
    }

    /// Play `jobs` here one after another, off the async threads, until
    /// `grading` moves: the outcomes of the first of them.
    async fn play_all(&self, jobs: &[Job], grading: &Arc<AtomicU64>) -> Vec<Result<Outcome, String>> {
        let player = self.player.clone();
        let batch = jobs.to_vec();
        let course = self.course.clone();
        let grading = grading.clone();
        let start = grading.load(Ordering::SeqCst);
        tokio::task::spawn_blocking(move || {
            let files = move |sha: &str| {
                let p = course.file_path(sha);
                p.is_file().then_some(p)
            };
            batch
                .iter()
                .take_while(|_| grading.load(Ordering::SeqCst) == start)
                .map(|job| player.play(job, &files))
                .collect()
        })
        .await
        .unwrap_or_else(|e| vec![Err(format!("the ladder thread ended: {e}")); jobs.len()])
    }

    /// Play `job` here, off the async threads.
    pub async fn play(&self, job: &Job) -> Result<Outcome, String> {
        let player = self.player.clone();
        let job = job.clone();
        let course = self.course.clone();
        tokio::task::spawn_blocking(move || {
            let files = move |sha: &str| {
                let p = course.file_path(sha);
                p.is_file().then_some(p)
            };
            player.play(&job, &files)
        })
        .await
        .map_err(|e| format!("the ladder thread ended: {e}"))?
    }

    /// Check one worker's result by playing its match again here; whether
    /// there was one to check. A result that differs disables its worker
    /// and sends every match it played back to the queue.
    pub async fn check_one(&self) -> bool {
        let Ok(Some((token, row))) = self
            .leases
            .claim_check(OWN_LEASE_SECONDS, "id, entrants, games, outcome, played_by")
            .await
        else {
            return false;
        };
        let id: i64 = row.try_get(0).unwrap_or_default();
        let entrants: String = row.try_get(1).unwrap_or_default();
        let games: i64 = row.try_get(2).unwrap_or_default();
        let claimed: Option<Outcome> = row
            .try_get::<String, _>(3)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        let worker: i64 = row.try_get(4).unwrap_or_default();
        let Ok(job) = self.job(id, &entrants, games).await else {
            return true;
        };
        let Ok(mine) = self.play(&job).await else {
            // The arena failed here: check it later.
            return true;
        };
        if claimed.as_ref() == Some(&mine) {
            if let Ok(mut conn) = self.db.pool.acquire().await {
                let _ = self.leases.confirm(&mut conn, id, &token).await;
            }
            self.refit.notify_one();
        } else {
            let why = format!(
                "match {id} played again on the server gave another result: every result of this worker is discarded"
            );
            eprintln!("arena serve: worker {worker} disabled: {why}");
            let _ = self.workers.disable(worker, &why).await;
        }
        true
    }
}

/// Whether `outcome` can be the result of `job`: its games and entrants.
fn check_shape(job: &Job, outcome: &Outcome) -> Result<(), String> {
    let n = job.bots.len();
    if outcome.fuel.len() != n {
        return Err(format!("fuel for {} entrants, the match has {n}", outcome.fuel.len()));
    }
    if outcome.games.is_empty() || outcome.games.len() > job.games.max(1) {
        return Err(format!("{} games, the match plays {}", outcome.games.len(), job.games));
    }
    for g in &outcome.games {
        if g.seats.iter().any(|&s| s >= n) || g.winner.is_some_and(|w| w >= g.seats.len()) {
            return Err("a game names an entrant the match does not have".into());
        }
    }
    Ok(())
}
