//! Jobs external workers do: handed out under a lease, renewed by the
//! worker's heartbeat, and taken only from the lease's holder; a worker's
//! first results, a sample after them and every grading verdict that
//! would change a student's points wait in `checking` until a server has
//! done the job again ([`Queue::check_one`]).

use super::Queue;
use super::record::By;
use crate::api::{RemoteJob, RemoteResult};
use crate::lease::{Finish, Holder, JOBS};
use crate::work::{Grading, Verdict, Versus};
use sqlx::Row;
use std::sync::Arc;

impl Queue {
    /// Hand the next waiting job to worker `worker` under a lease of
    /// `seconds`; jobs whose worker's lease ran out are waiting again.
    pub async fn claim_remote(&self, worker: i64, seconds: i64) -> Result<Option<RemoteJob>, String> {
        self.leases.lapse().await?;
        loop {
            let claim = self
                .leases
                .claim(Holder::Worker(worker), 1, seconds, "id, submission_id, kind")
                .await?;
            let Some(claim) = claim else { return Ok(None) };
            let Some(row) = claim.rows.first() else { return Ok(None) };
            let (job, id, kind): (i64, i64, String) = (
                row.try_get(0).unwrap_or_default(),
                row.try_get(1).unwrap_or_default(),
                row.try_get(2).unwrap_or_default(),
            );
            let by = By::Lease(Holder::Worker(worker), &claim.token);
            let Some((sub, student)) = self.submission_and_student(id).await? else {
                let _ = self.versus_done(job, id, None, by).await;
                continue;
            };
            let mut out = RemoteJob {
                job,
                lease: claim.token.clone(),
                kind: kind.clone(),
                sha256: sub.sha256.clone(),
                file_name: sub.file_name.clone(),
                student,
                version: sub.version,
                against: None,
            };
            if kind == "versus" {
                // Nothing to test against any more: the job is done.
                let Some(pair) = self.versus_pair(id).await? else {
                    self.versus_done(job, id, None, by).await?;
                    continue;
                };
                out.against = Some(pair.old);
                self.versus_running(id).await;
            } else {
                let _ = sqlx::query("UPDATE submissions SET state = 'running' WHERE id = $1")
                    .bind(id)
                    .execute(&self.db.pool)
                    .await;
            }
            return Ok(Some(out));
        }
    }

    /// Keep worker `worker`'s leases on jobs alive.
    pub async fn heartbeat_remote(&self, worker: i64, lease: &str, seconds: i64) -> Result<u64, String> {
        self.leases.renew(Holder::Worker(worker), lease, seconds).await
    }

    /// Take worker `worker`'s result: a worker's first jobs and a sample
    /// after them wait in `checking` until a server has done them again
    /// ([`Queue::check_one`]); the rest count at once. Whether it was taken.
    pub async fn finish_remote(&self, worker: i64, r: &RemoteResult, grading: &Arc<Grading>) -> Result<bool, String> {
        let row = sqlx::query(
            "SELECT submission_id, kind FROM jobs WHERE id = $1 AND state = 'running' AND worker_id = $2 AND lease = $3",
        )
        .bind(r.job)
        .bind(worker)
        .bind(&r.lease)
        .fetch_optional(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        let Some(row) = row else { return Ok(false) };
        let id: i64 = row.try_get(0).unwrap_or_default();
        let kind: String = row.try_get(1).unwrap_or_default();
        if let Some(why) = &r.error {
            eprintln!(
                "arena serve: worker {worker} could not do job {} ({why}); it is done again",
                r.job
            );
            self.leases.put_back(r.job, &r.lease).await?;
            self.wake.notify_waiters();
            return Ok(true);
        }
        let json = match (&kind[..], &r.verdict, &r.versus) {
            ("grade", Some(v), _) => serde_json::to_string(v).map_err(|e| e.to_string())?,
            ("versus", _, Some(v)) => serde_json::to_string(v).map_err(|e| e.to_string())?,
            _ => {
                return Err(format!(
                    "job {}: a {kind} job's result must carry its {kind} verdict",
                    r.job
                ));
            }
        };
        let config = &self.course.config.ladder;
        // Counted from its last doubt: the share checked starts over then.
        let before: i64 = sqlx::query(
            "SELECT (SELECT COUNT(*) FROM jobs WHERE done_by = $1 OR (worker_id = $1 AND state = 'checking')) \
             - jobs_at_doubt FROM workers WHERE id = $1",
        )
        .bind(worker)
        .fetch_one(&self.db.pool)
        .await
        .and_then(|r| r.try_get(0))
        .map_err(|e| e.to_string())?;
        let changes_points = kind == "grade" && self.changes_points(id, r.verdict.as_ref()).await?;
        if changes_points
            || self
                .workers
                .checks(&JOBS, r.job, before, config.verify_first, config.verify_percent)
        {
            let mut conn = self.db.pool.acquire().await.map_err(|e| e.to_string())?;
            let held = self
                .leases
                .finish(
                    &mut conn,
                    r.job,
                    Holder::Worker(worker),
                    &r.lease,
                    Finish::Checking,
                    Some(&json),
                )
                .await?;
            if held && kind == "grade" {
                // Shown as being checked, not graded, until the server's own verdict counts.
                let _ = sqlx::query("UPDATE submissions SET state = 'checking' WHERE id = $1")
                    .bind(id)
                    .execute(&self.db.pool)
                    .await;
            }
            self.wake.notify_waiters();
            return Ok(held);
        }
        let by = By::Lease(Holder::Worker(worker), &r.lease);
        self.record_remote(r.job, id, &kind, &json, by, grading).await
    }

    /// Whether a worker's grading verdict `v` of submission `id` would
    /// change a student's points: the version has no verdict yet (its
    /// first could make it the version that counts), or another acceptance
    /// or score than it has now. Such a verdict is always done again here
    /// before it counts; one that changes nothing (a re-grade that agrees)
    /// is only sampled, which keeps re-grading a class cheap.
    async fn changes_points(&self, id: i64, v: Option<&Verdict>) -> Result<bool, String> {
        let Some(v) = v else { return Ok(true) };
        let row = sqlx::query("SELECT finished_at, state, score FROM submissions WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
        let Some(row) = row else { return Ok(true) };
        let graded: Option<String> = row.try_get(0).ok().flatten();
        let state: String = row.try_get(1).unwrap_or_default();
        let score: Option<f64> = row.try_get(2).ok().flatten();
        // A version being re-graded waits as `queued` or `running`, its
        // last score kept: then only a score tells what it had.
        let same_acceptance = match &state[..] {
            "accepted" => v.accepted,
            "rejected" => !v.accepted,
            _ => true,
        };
        let same_score = match (score, v.score) {
            (Some(a), Some(b)) => (a - b).abs() < 1e-9,
            _ => false,
        };
        Ok(graded.is_none() || v.failed || !same_acceptance || !same_score)
    }

    /// Record a worker's verdict `json` of job `job` (of submission `id`),
    /// making the version's pages here; whether it was taken.
    async fn record_remote(
        &self,
        job: i64,
        id: i64,
        kind: &str,
        json: &str,
        by: By<'_>,
        grading: &Arc<Grading>,
    ) -> Result<bool, String> {
        let (sub, student) = self
            .submission_and_student(id)
            .await?
            .ok_or_else(|| format!("submission {id} is gone"))?;
        let taken = if kind == "versus" {
            self.versus_done(job, id, Some(json.to_string()), by).await?
        } else {
            let verdict: Verdict = serde_json::from_str(json).map_err(|e| e.to_string())?;
            // A rejected version's forfeited smoke game has its page too.
            if verdict.grade.is_some() && !verdict.failed {
                let (file, pages) = (self.course.file_path(&sub.sha256), self.pages_dir(id));
                let back = format!("/people/{}/versions/{}", sub.person, sub.version);
                let (grading, made) = (grading.clone(), verdict.clone());
                tokio::task::spawn_blocking(move || grading.write_pages(&file, &student, &made, &pages, &back))
                    .await
                    .map_err(|e| e.to_string())??;
            }
            let versus = grading.has_versus(&self.course);
            self.finish_by(job, id, &verdict, versus, by).await?
        };
        if taken {
            self.wake.notify_waiters();
            // After the final tournament, a grade written again is paid its ranking.
            if let Err(e) = crate::ranking::repay_person(self, &grading.rubric, sub.person).await {
                eprintln!("arena serve: cannot pay the class ranking of submission {id} ({e})");
            }
            self.announce(sub.person, sub.version);
        }
        Ok(taken)
    }

    /// Do one worker's job that waits to be checked again here; whether
    /// there was one. A verdict that differs disables its worker (see
    /// [`crate::workers::Workers::disable`]), and every job it did is done again.
    pub async fn check_one(&self, grading: &Arc<Grading>) -> bool {
        // Held for an hour: another server sharing the database leaves it alone meanwhile.
        let Ok(Some((token, row))) = self
            .leases
            .claim_check(3600, "id, submission_id, kind, result, worker_id")
            .await
        else {
            return false;
        };
        let job: i64 = row.try_get(0).unwrap_or_default();
        let id: i64 = row.try_get(1).unwrap_or_default();
        let kind: String = row.try_get(2).unwrap_or_default();
        let theirs: String = row.try_get::<Option<String>, _>(3).ok().flatten().unwrap_or_default();
        let worker: i64 = row.try_get::<Option<i64>, _>(4).ok().flatten().unwrap_or_default();
        let Some((differs, mine)) = self.do_again(job, id, &kind, &theirs, &token, grading).await else {
            return true;
        };
        if let Some(what) = differs {
            let why = format!("its verdict of job {job} differed when done again on the server ({what}, the server's)");
            eprintln!("arena serve: worker {worker} disabled: {why}");
            let _ = self.workers.disable(worker, &why).await;
        } else {
            // The server's own verdict counts: its pages are already made.
            let _ = self.record_checked(job, id, &kind, &mine, &token, grading).await;
        }
        true
    }

    /// Do job `job` (of submission `id`) again here and compare with the
    /// worker's result `theirs`: how it differs, if it does, and this
    /// server's result (JSON). `None` when it cannot be compared now (the
    /// server failed: it is checked later; or nothing was left to test).
    async fn do_again(
        &self,
        job: i64,
        id: i64,
        kind: &str,
        theirs: &str,
        token: &str,
        grading: &Arc<Grading>,
    ) -> Option<(Option<String>, String)> {
        if kind == "versus" {
            let Ok(Some(pair)) = self.versus_pair(id).await else {
                let _ = self.versus_done(job, id, None, By::Checked(token)).await;
                return None;
            };
            let mine = self.run_versus(&pair, grading).await.ok()?;
            let differs = match serde_json::from_str::<Versus>(theirs) {
                Ok(t) => crate::work::first_difference(&serde_json::json!(t), &serde_json::json!(mine), "test"),
                Err(e) => Some(format!("its test did not read ({e})")),
            };
            return Some((differs, serde_json::to_string(&mine).unwrap_or_default()));
        }
        let (sub, student) = self.submission_and_student(id).await.ok()??;
        let (file, pages) = (self.course.file_path(&sub.sha256), self.pages_dir(id));
        let g = grading.clone();
        let shown = sub.file_name.clone();
        let mine = tokio::task::spawn_blocking(move || g.run(&file, &shown, &student, &pages))
            .await
            .unwrap_or_else(|e| Verdict::arena_failed(format!("the grading thread ended: {e}")));
        if mine.failed {
            // The server failed, not the worker: try again later.
            return None;
        }
        let differs = match serde_json::from_str::<Verdict>(theirs) {
            Ok(t) => t.difference(&mine),
            Err(e) => Some(format!("its verdict did not read ({e})")),
        };
        Some((differs, serde_json::to_string(&mine).unwrap_or_default()))
    }

    /// A worker's result was the same when done again: this server's
    /// `mine` counts, under the check's `token`.
    async fn record_checked(
        &self,
        job: i64,
        id: i64,
        kind: &str,
        mine: &str,
        token: &str,
        grading: &Arc<Grading>,
    ) -> Result<bool, String> {
        if kind == "versus" {
            return self
                .record_remote(job, id, kind, mine, By::Checked(token), grading)
                .await;
        }
        let verdict: Verdict = serde_json::from_str(mine).map_err(|e| e.to_string())?;
        let versus = grading.has_versus(&self.course);
        let taken = self.finish_by(job, id, &verdict, versus, By::Checked(token)).await?;
        if taken {
            let sub = self.submission_by_id(id).await?;
            self.wake.notify_waiters();
            // After the final tournament, a grade written again is paid its ranking.
            if let Err(e) = crate::ranking::repay_person(self, &grading.rubric, sub.person).await {
                eprintln!("arena serve: cannot pay the class ranking of submission {id} ({e})");
            }
            self.announce(sub.person, sub.version);
        }
        Ok(taken)
    }
}
