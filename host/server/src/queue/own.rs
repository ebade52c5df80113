//! Jobs this server does itself: claimed under a lease it renews while the
//! job runs, graded (or tested) off the async threads, and recorded only
//! while the lease is still its own.

use super::record::{By, VersusPair};
use super::{MAX_ATTEMPTS, OWN_JOB_LEASE_SECONDS, Queue};
use crate::lease::Holder;
use crate::work::{Grading, Verdict};
use arena_grading::grade::budget::Progress;
use sqlx::Row;
use std::sync::Arc;

/// A job this server claimed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnJob {
    /// The job's id.
    pub job: i64,
    /// The submission it is for.
    pub submission: i64,
    /// Tries so far, this one included.
    pub attempts: i64,
    /// `grade` or `versus`.
    pub kind: String,
    /// The lease's token.
    pub lease: String,
}

impl Queue {
    /// Take the next waiting job: students' uploads first, oldest first.
    pub async fn claim(&self) -> Result<Option<OwnJob>, String> {
        self.claim_only("").await
    }

    /// Take the next waiting grading of a student's own upload (never a
    /// re-grade or a version test): what the upload lane does.
    pub async fn claim_upload(&self) -> Result<Option<OwnJob>, String> {
        self.claim_only(" AND kind = 'grade' AND priority > 0").await
    }

    async fn claim_only(&self, only: &'static str) -> Result<Option<OwnJob>, String> {
        self.leases.lapse().await?;
        let claim = self
            .leases
            .claim_only(
                Holder::Server,
                1,
                OWN_JOB_LEASE_SECONDS,
                "id, submission_id, attempts, kind",
                only,
            )
            .await?;
        Ok(claim.and_then(|c| {
            let r = c.rows.first()?;
            Some(OwnJob {
                job: r.try_get(0).unwrap_or_default(),
                submission: r.try_get(1).unwrap_or_default(),
                attempts: r.try_get(2).unwrap_or_default(),
                kind: r.try_get(3).unwrap_or_default(),
                lease: c.token,
            })
        }))
    }

    /// Put this server's job `job`, held under `lease`, back in the queue.
    pub async fn put_back(&self, job: i64, lease: &str) {
        let _ = self.leases.put_back(job, lease).await;
    }

    /// Do the claimed job `own`, its lease renewed meanwhile, and record what it gave.
    /// `lane`: the thread pool of the upload lane, whose games stay off the
    /// pool a long grading fills (`pool::start`); `None`: rayon's own.
    pub async fn run(&self, own: OwnJob, grading: &Arc<Grading>, lane: Option<Arc<rayon::ThreadPool>>) {
        let _kept = self.leases.keep(&own.lease, OWN_JOB_LEASE_SECONDS);
        let OwnJob {
            job,
            submission: id,
            attempts,
            kind,
            lease,
        } = own;
        if kind == "versus" {
            return self.versus(job, id, attempts, &lease, grading).await;
        }
        let (sub, student) = match self.submission_and_student(id).await {
            Ok(Some(found)) => found,
            // No such version: the job is done, not claimed again and again.
            Ok(None) => return drop(self.versus_done(job, id, None, By::Lease(Holder::Server, &lease)).await),
            Err(_) => return self.put_back(job, &lease).await,
        };
        let _ = sqlx::query("UPDATE submissions SET state = 'running' WHERE id = $1")
            .bind(id)
            .execute(&self.db.pool)
            .await;
        let file = self.course.file_path(&sub.sha256);
        let pages = self.pages_dir(id);
        let versus = grading.has_versus(&self.course);
        let run_by = grading.clone();
        let shown = sub.file_name.clone();
        // Each game it plays moves the version's banner (games played of
        // those planned, time left at the reference rate).
        let queue = self.clone();
        let (person, version) = (sub.person, sub.version);
        let verdict = tokio::task::spawn_blocking(move || {
            let hook = |p: Progress| queue.progressed(id, person, version, p);
            let grade = || run_by.run_with(&file, &shown, &student, &pages, Some(&hook));
            match lane {
                Some(pool) => pool.install(grade),
                None => grade(),
            }
        })
        .await
        .unwrap_or_else(|e| Verdict::arena_failed(format!("the grading thread ended: {e}")));
        self.progress_done(id);
        if verdict.failed && attempts < MAX_ATTEMPTS {
            // The arena failed, not the bot: run it again later.
            return self.put_back(job, &lease).await;
        }
        let by = By::Lease(Holder::Server, &lease);
        let recorded = match self.finish_by(job, id, &verdict, versus, by).await {
            Ok(taken) => taken,
            Err(e) => self.unrecorded(job, id, attempts, &lease, &e).await,
        };
        if recorded {
            // After the final tournament, a grade written again is paid its ranking.
            if let Err(e) = crate::ranking::repay_person(self, &grading.rubric, sub.person).await {
                eprintln!("arena serve: cannot pay the class ranking of submission {id} ({e})");
            }
            self.announce(sub.person, sub.version);
        }
    }

    /// A verdict the database would not take: the job runs again, or after
    /// its last try the version says why it has no verdict (never "grading"
    /// for ever). Whether the version now has its last state.
    async fn unrecorded(&self, job: i64, id: i64, attempts: i64, lease: &str, why: &str) -> bool {
        eprintln!("arena serve: cannot record the verdict of submission {id} ({why})");
        if attempts < MAX_ATTEMPTS {
            self.put_back(job, lease).await;
            self.wake.notify_waiters();
            return false;
        }
        let failed = Verdict::arena_failed(format!("the server could not record its verdict ({why})"));
        let done = self
            .finish_by(job, id, &failed, false, By::Lease(Holder::Server, lease))
            .await
            .unwrap_or(false);
        if done {
            // A version that had counted may count no more: the LMS is told at once.
            self.grade_may_have_changed();
        }
        done
    }

    /// Test a version against the accepted one before it and keep the verdict on the version.
    async fn versus(&self, job: i64, id: i64, attempts: i64, lease: &str, grading: &Arc<Grading>) {
        let by = By::Lease(Holder::Server, lease);
        let Ok(Some(pair)) = self.versus_pair(id).await else {
            let _ = self.versus_done(job, id, None, by).await;
            return;
        };
        let VersusPair {
            person,
            new: (_, version),
            ..
        } = pair;
        self.versus_running(id).await;
        self.announce(person, version);
        let json = match self.run_versus(&pair, grading).await {
            Ok(v) => serde_json::to_string(&v).ok(),
            Err(e) if attempts < MAX_ATTEMPTS => {
                eprintln!("arena serve: the test of submission {id} failed ({e}); it runs again");
                return self.put_back(job, lease).await;
            }
            Err(e) => serde_json::to_string(&serde_json::json!({ "error": e })).ok(),
        };
        if self.versus_done(job, id, json, by).await == Ok(true) {
            self.announce(person, version);
        }
    }
}
