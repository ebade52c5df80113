//! External workers: who they are (by token), what they say they run,
//! doubting one (its results are checked as a new worker's again), and
//! disabling one whose result differed when a server did the work again or
//! whose results the statistics find too unlikely, which sends back
//! everything it did, of every kind of work.

use crate::course::{now, stamp};
use crate::db::{Db, Secret, token_hash};
use crate::lease::{JOBS, Leases, MATCHES, Work, sampled};
use sqlx::Row;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::Notify;

/// The course's external workers.
#[derive(Debug)]
pub struct Workers {
    db: Db,
    /// The course's secret: which results are checked is derived from it.
    secret: Secret,
    /// Counts the workers disabled: a result taken before one was disabled
    /// is not counted after its work was sent back.
    generation: AtomicU64,
    /// Told when a worker is disabled (whatever counted its results counts again).
    pub disabled: Notify,
}

impl Workers {
    /// The workers of the course on `db`, checked under the course's `secret`.
    pub fn new(db: Db, secret: Secret) -> Workers {
        Workers {
            db,
            secret,
            generation: AtomicU64::new(0),
            disabled: Notify::new(),
        }
    }

    /// Whether a worker's result of row `id` of `work` is done again here
    /// (see [`sampled`]): all of its first `first`, then `percent` in a hundred.
    pub fn checks(&self, work: &Work, id: i64, earlier: i64, first: u32, percent: u32) -> bool {
        sampled(&self.secret, work, id, earlier, first, percent)
    }

    /// How many workers this server has disabled so far.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// The worker whose token this is, if it is not disabled; or why not.
    pub async fn worker(&self, token: &str) -> Result<Option<(i64, Option<String>)>, String> {
        let row = sqlx::query("SELECT id, reason, disabled_at FROM workers WHERE token_hash = $1")
            .bind(token_hash(token))
            .fetch_optional(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
        Ok(row.map(|r| {
            let disabled: Option<String> = r.try_get(2).ok().flatten();
            let reason: Option<String> = r.try_get(1).ok().flatten();
            (
                r.try_get(0).unwrap_or_default(),
                disabled.map(|_| reason.unwrap_or_else(|| "revoked by the teacher".into())),
            )
        }))
    }

    /// Whether `worker` may fetch the bot file `sha256`: a version that was
    /// accepted (the ladder's entrants), or one whose grading job it holds
    /// now. A rejected file (a compile bomb, a file that is no bot) is never
    /// handed out.
    pub async fn may_fetch(&self, worker: i64, sha256: &str) -> Result<bool, String> {
        let row = sqlx::query(
            "SELECT 1 FROM submissions s WHERE s.sha256 = $1 AND (s.state = 'accepted' OR EXISTS \
             (SELECT 1 FROM jobs j WHERE j.submission_id = s.id AND j.state = 'running' AND j.worker_id = $2)) LIMIT 1",
        )
        .bind(sha256)
        .bind(worker)
        .fetch_optional(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        Ok(row.is_some())
    }

    /// Record what a worker says it runs; a worker that says it runs
    /// something else than at its last hello (another build, another
    /// machine behind the same token) is in doubt.
    pub async fn hello(&self, worker: i64, engine: &str) -> Result<(), String> {
        let before: Option<String> = sqlx::query("SELECT engine FROM workers WHERE id = $1")
            .bind(worker)
            .fetch_optional(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?
            .and_then(|r| r.try_get(0).ok().flatten());
        if let Some(before) = before
            && before != engine
        {
            self.doubt(worker, &format!("it ran {before}, it now says it runs {engine}"))
                .await?;
        }
        sqlx::query("UPDATE workers SET engine = $1, last_seen = $2 WHERE id = $3")
            .bind(engine)
            .bind(stamp(now()))
            .bind(worker)
            .execute(&self.db.pool)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// Put `worker` in doubt: its results are checked again as a new
    /// worker's are (the falling share of [`sampled`] starts over from its
    /// counts now), and the teacher's health panel says why.
    pub async fn doubt(&self, worker: i64, why: &str) -> Result<(), String> {
        sqlx::query(
            "UPDATE workers SET matches_at_doubt = matches, jobs_at_doubt = (SELECT COUNT(*) FROM jobs \
             WHERE done_by = $1 OR (worker_id = $1 AND state = 'checking')), doubt = $2 WHERE id = $1",
        )
        .bind(worker)
        .bind(why)
        .execute(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        eprintln!("arena serve: worker {worker} is in doubt, its results are checked as a new worker's: {why}");
        Ok(())
    }

    /// Disable `worker` and send every match it played and every job it
    /// did back to the queue, in one transaction: each version it graded is
    /// graded again; its matches already folded into the ladder's counts
    /// leave them (the ladder queues others in their place).
    pub async fn disable(&self, worker: i64, why: &str) -> Result<(), String> {
        let mut tx = self.db.pool.begin().await.map_err(|e| e.to_string())?;
        sqlx::query("UPDATE workers SET disabled_at = $1, reason = $2 WHERE id = $3")
            .bind(stamp(now()))
            .bind(why)
            .bind(worker)
            .execute(&mut *tx)
            .await
            .map_err(|e| e.to_string())?;
        // Its folded matches leave the counts (their rows that are still
        // kept go back to the queue below with the rest).
        sqlx::query("UPDATE ladder_matches SET folded = 0 WHERE played_by = $1")
            .bind(worker)
            .execute(&mut *tx)
            .await
            .map_err(|e| e.to_string())?;
        sqlx::query("DELETE FROM ladder_counts WHERE played_by = $1")
            .bind(worker)
            .execute(&mut *tx)
            .await
            .map_err(|e| e.to_string())?;
        for work in [&MATCHES, &JOBS] {
            Leases::new(self.db.clone(), work).send_back(&mut tx, worker).await?;
        }
        sqlx::query(
            "UPDATE submissions SET state = 'queued' WHERE id IN (SELECT submission_id FROM jobs WHERE kind = 'grade' AND state = 'queued')",
        )
        .execute(&mut *tx)
        .await
        .map_err(|e| e.to_string())?;
        tx.commit().await.map_err(|e| e.to_string())?;
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.disabled.notify_waiters();
        Ok(())
    }
}
