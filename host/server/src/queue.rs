//! Submissions and the durable job queue behind them. A submission is
//! acknowledged only once its file (kept by SHA-256) is on disk and its row
//! and its job are committed; a job a killed server left running is queued
//! again when the server starts, and finishing a job is one transaction, so
//! every job finishes exactly once.

use crate::course::{Course, now, stamp};
use crate::db::{Backend, Db, hex};
use crate::ladder::Ladder;
use crate::work::{Grading, Verdict, Versus};
use sha2::{Digest, Sha256};
use sqlx::Row;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::{Notify, broadcast};

/// Tries of a job the arena itself failed (not the bot) before its submission is marked failed.
pub const MAX_ATTEMPTS: i64 = 3;

/// A submission finished: whose, and which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finished {
    /// The person's database id.
    pub person: i64,
    /// Their version number.
    pub version: i64,
}

/// One stored version of a student's bot.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Submission {
    /// The database id.
    pub id: i64,
    /// The person's database id.
    pub person: i64,
    /// Its number among the person's versions, from 1.
    pub version: i64,
    /// The file's SHA-256, hex.
    pub sha256: String,
    /// Its size in bytes.
    pub size: i64,
    /// The name it was uploaded under (shown, never used as a path).
    pub file_name: String,
    /// When it was received (RFC 3339, UTC).
    pub submitted_at: String,
    /// Days after the deadline.
    pub late_days: i64,
    /// `queued`, `running`, `accepted`, `rejected` or `failed`.
    pub state: String,
    /// The toolchain `arena check` read from it.
    pub toolchain: Option<String>,
    /// `arena check`'s report (JSON).
    pub check_json: Option<String>,
    /// `arena check`'s report as printed.
    pub check_text: Option<String>,
    /// The grade (JSON).
    pub grade_json: Option<String>,
    /// The grade as printed.
    pub grade_text: Option<String>,
    /// Points.
    pub score: Option<f64>,
    /// The most points there are.
    pub max_score: Option<f64>,
    /// Why it was rejected, or why the arena failed it.
    pub reason: Option<String>,
    /// Its test against the version before it ([`crate::work::Versus`], JSON).
    pub versus_json: Option<String>,
}

/// Why an upload was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Past the deadline and its late days.
    Frozen,
    /// Too many uploads in the last hour.
    TooMany(u32),
    /// Over the file size limit.
    TooBig(u64),
    /// Empty.
    Empty,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Frozen => write!(f, "the deadline and its late days are over: no more uploads are taken"),
            Refused::TooMany(n) => write!(
                f,
                "{n} uploads in the last hour is the most; wait a little and upload again"
            ),
            Refused::TooBig(max) => write!(
                f,
                "the file is larger than {max} bytes, the most a bot may be; build it in release mode (see `arena new`)"
            ),
            Refused::Empty => write!(f, "the file is empty: choose the bot.wasm your build made"),
        }
    }
}

/// The queue of one course.
#[derive(Clone)]
pub struct Queue {
    /// The database.
    pub db: Db,
    /// The course.
    pub course: Arc<Course>,
    wake: Arc<Notify>,
    finished: broadcast::Sender<Finished>,
}

const COLUMNS: &str = "id, person_id, version, sha256, size, file_name, submitted_at, late_days, state, toolchain, \
                       check_json, check_text, grade_json, grade_text, score, max_score, reason, versus_json";

fn submission(r: &sqlx::any::AnyRow) -> Submission {
    Submission {
        id: r.try_get(0).unwrap_or_default(),
        person: r.try_get(1).unwrap_or_default(),
        version: r.try_get(2).unwrap_or_default(),
        sha256: r.try_get(3).unwrap_or_default(),
        size: r.try_get(4).unwrap_or_default(),
        file_name: r.try_get(5).unwrap_or_default(),
        submitted_at: r.try_get(6).unwrap_or_default(),
        late_days: r.try_get(7).unwrap_or_default(),
        state: r.try_get(8).unwrap_or_default(),
        toolchain: r.try_get(9).ok().flatten(),
        check_json: r.try_get(10).ok().flatten(),
        check_text: r.try_get(11).ok().flatten(),
        grade_json: r.try_get(12).ok().flatten(),
        grade_text: r.try_get(13).ok().flatten(),
        score: r.try_get(14).ok().flatten(),
        max_score: r.try_get(15).ok().flatten(),
        reason: r.try_get(16).ok().flatten(),
        versus_json: r.try_get(17).ok().flatten(),
    }
}

/// Who finishes a job, and so who must still hold it for the result to count.
#[derive(Clone, Copy)]
enum By<'a> {
    /// Whoever holds it: a job just claimed that turned out to need nothing.
    Anyone,
    /// This server, under the lease it claimed the job with.
    Here(&'a str),
    /// An external worker, under its lease.
    Worker(i64, &'a str),
    /// A worker whose held result this server checked (`true`: played again and equal).
    Checked(i64, bool),
}

/// Aborts the renewals of a lease when the job's run ends, however it ends.
struct KeptLease(tokio::task::JoinHandle<()>);

impl Drop for KeptLease {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// How long a job this server grades stays its own without a renewal
/// (renewed every third of it while it runs): how long a job of a server
/// that died waits before another server, or this one restarted, grades it
/// again on a shared Postgres course.
pub const OWN_JOB_LEASE_SECONDS: i64 = 60;

impl Queue {
    /// The queue of `course` on `db`; jobs a previous server left running are queued again.
    pub async fn new(db: Db, course: Arc<Course>) -> Result<Queue, String> {
        // One server owns a SQLite course, so whatever was running was its
        // own, and it is dead. A Postgres course may be shared by other live
        // servers: only jobs whose lease ran out (or that never had one) go
        // back, and this server's own jobs from before a crash go back when
        // theirs does (`OWN_JOB_LEASE_SECONDS`).
        let requeue = "UPDATE jobs SET state = 'queued', worker_id = NULL, lease = NULL, lease_until = NULL \
                       WHERE state = 'running'";
        let lapsed = format!("{requeue} AND (lease_until IS NULL OR lease_until < $1)");
        match db.backend {
            Backend::Sqlite => sqlx::query(requeue),
            Backend::Postgres => sqlx::query(&lapsed).bind(stamp(now())),
        }
        .execute(&db.pool)
        .await
        .map_err(|e| e.to_string())?;
        sqlx::query(
            "UPDATE submissions SET state = 'queued' \
             WHERE id IN (SELECT submission_id FROM jobs WHERE state = 'queued' AND kind = 'grade')",
        )
        .execute(&db.pool)
        .await
        .map_err(|e| e.to_string())?;
        let (finished, _) = broadcast::channel(256);
        Ok(Queue {
            db,
            course,
            wake: Arc::new(Notify::new()),
            finished,
        })
    }

    /// Told of every submission that finishes.
    pub fn subscribe(&self) -> broadcast::Receiver<Finished> {
        self.finished.subscribe()
    }

    /// Keep `bytes` as a new version of `person`'s bot and queue its check
    /// and grade. Returns once the file and the rows are durable.
    pub async fn submit(
        &self,
        person: i64,
        file_name: &str,
        bytes: &[u8],
        max_bytes: u64,
    ) -> Result<Result<Submission, Refused>, String> {
        let at = now();
        let config = &self.course.config;
        if bytes.is_empty() {
            return Ok(Err(Refused::Empty));
        }
        if bytes.len() as u64 > max_bytes {
            return Ok(Err(Refused::TooBig(max_bytes)));
        }
        if config.frozen_at(at) {
            return Ok(Err(Refused::Frozen));
        }
        let hour_ago = stamp(at - time::Duration::hours(1));
        let recent: i64 = sqlx::query("SELECT COUNT(*) FROM submissions WHERE person_id = $1 AND submitted_at > $2")
            .bind(person)
            .bind(&hour_ago)
            .fetch_one(&self.db.pool)
            .await
            .and_then(|r| r.try_get(0))
            .map_err(|e| e.to_string())?;
        if recent >= i64::from(config.uploads_per_hour) {
            return Ok(Err(Refused::TooMany(config.uploads_per_hour)));
        }
        let sha256 = hex(&Sha256::digest(bytes));
        let path = self.course.file_path(&sha256);
        store_file(&path, bytes).await?;
        // A name is only ever shown: keep what a person can read, short.
        let shown: String = Path::new(file_name)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
            .chars()
            .filter(|c| !c.is_control())
            .take(100)
            .collect();
        let late = i64::from(config.late_days_at(at));
        let mut tx = self.db.pool.begin().await.map_err(|e| e.to_string())?;
        let row = sqlx::query(&format!(
            "INSERT INTO submissions (person_id, version, sha256, size, file_name, submitted_at, late_days, state) \
             SELECT $1, COALESCE(MAX(version), 0) + 1, $2, $3, $4, $5, $6, 'queued' FROM submissions WHERE person_id = $1 \
             RETURNING {COLUMNS}"
        ))
        .bind(person)
        .bind(&sha256)
        .bind(bytes.len() as i64)
        .bind(if shown.is_empty() { "bot.wasm".to_string() } else { shown })
        .bind(stamp(at))
        .bind(late)
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| e.to_string())?;
        let sub = submission(&row);
        sqlx::query(
            "INSERT INTO jobs (kind, submission_id, state, priority, created_at) VALUES ('grade', $1, 'queued', 1, $2)",
        )
        .bind(sub.id)
        .bind(stamp(at))
        .execute(&mut *tx)
        .await
        .map_err(|e| e.to_string())?;
        tx.commit().await.map_err(|e| e.to_string())?;
        self.wake.notify_waiters();
        Ok(Ok(sub))
    }

    /// Queue every counted version again (after the rubric or the house
    /// bots changed), behind the students' own uploads. Returns how many.
    pub async fn regrade(&self, ids: &[i64]) -> Result<usize, String> {
        let at = stamp(now());
        let mut tx = self.db.pool.begin().await.map_err(|e| e.to_string())?;
        for id in ids {
            sqlx::query("UPDATE submissions SET state = 'queued' WHERE id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(|e| e.to_string())?;
            sqlx::query("INSERT INTO jobs (kind, submission_id, state, priority, created_at) VALUES ('grade', $1, 'queued', 0, $2)")
                .bind(id)
                .bind(&at)
                .execute(&mut *tx)
                .await
                .map_err(|e| e.to_string())?;
        }
        tx.commit().await.map_err(|e| e.to_string())?;
        self.wake.notify_waiters();
        Ok(ids.len())
    }

    /// Jobs waiting or running.
    pub async fn pending(&self) -> Result<i64, String> {
        sqlx::query("SELECT COUNT(*) FROM jobs WHERE state <> 'done' AND kind = 'grade'")
            .fetch_one(&self.db.pool)
            .await
            .and_then(|r| r.try_get(0))
            .map_err(|e| e.to_string())
    }

    /// A person's versions, newest first.
    pub async fn versions(&self, person: i64) -> Result<Vec<Submission>, String> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM submissions WHERE person_id = $1 ORDER BY version DESC"
        ))
        .bind(person)
        .fetch_all(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        Ok(rows.iter().map(submission).collect())
    }

    /// One version of a person's bot.
    pub async fn version(&self, person: i64, version: i64) -> Result<Option<Submission>, String> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM submissions WHERE person_id = $1 AND version = $2"
        ))
        .bind(person)
        .bind(version)
        .fetch_optional(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        Ok(row.as_ref().map(submission))
    }

    /// Every version of every student.
    pub async fn all_versions(&self) -> Result<Vec<Submission>, String> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM submissions ORDER BY person_id, version"
        ))
        .fetch_all(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        Ok(rows.iter().map(submission).collect())
    }

    /// Where the replay pages of a submission are written.
    pub fn pages_dir(&self, submission: i64) -> PathBuf {
        self.course.pages_dir(submission)
    }

    /// Start `workers` workers that run the queue's jobs with `grading`,
    /// each in a blocking thread of its own, so the web server's threads
    /// stay free however long grading takes.
    pub fn start(&self, workers: usize, grading: Arc<Grading>, ladder: Option<Arc<Ladder>>) {
        for _ in 0..workers {
            let queue = self.clone();
            let grading = grading.clone();
            let ladder = ladder.clone();
            tokio::spawn(async move {
                loop {
                    match queue.claim().await {
                        Ok(Some(job)) => {
                            let _kept = queue.keep_lease(job.0, &job.4);
                            queue.run(job, &grading).await;
                        }
                        // Nothing to grade: a worker's verdict to check, or a ladder match, if one waits.
                        Ok(None) if ladder.is_some() => {
                            let Some(ladder) = &ladder else { continue };
                            // Listening before looking: matches queued while
                            // this thread looks wake it, instead of being missed
                            // until the 2 s timeout.
                            let (woken, queued) = (queue.wake.notified(), ladder.wake.notified());
                            if !queue.check_one(&grading, ladder).await && !ladder.play_own().await {
                                tokio::select! {
                                    _ = woken => {}
                                    _ = queued => {}
                                    _ = tokio::time::sleep(std::time::Duration::from_secs(2)) => {}
                                }
                            }
                        }
                        // A database that failed: try again shortly, never spin.
                        Ok(None) | Err(_) => {
                            let _ =
                                tokio::time::timeout(std::time::Duration::from_secs(2), queue.wake.notified()).await;
                        }
                    }
                }
            });
        }
    }

    /// With no pool of its own, a server still does again the sample of
    /// external workers' jobs and matches it checks them with, on one thread.
    pub fn start_checker(&self, grading: Arc<Grading>, ladder: Arc<Ladder>) {
        let queue = self.clone();
        tokio::spawn(async move {
            loop {
                if !queue.check_one(&grading, &ladder).await && !ladder.check_one().await {
                    tokio::select! {
                        _ = ladder.wake.notified() => {}
                        _ = queue.wake.notified() => {}
                        _ = tokio::time::sleep(std::time::Duration::from_secs(2)) => {}
                    }
                }
            }
        });
    }

    /// Renew the lease of this server's job `job` while it runs, so that
    /// neither another server nor this one after a restart takes it meanwhile.
    fn keep_lease(&self, job: i64, lease: &str) -> KeptLease {
        let (db, lease) = (self.db.clone(), lease.to_string());
        KeptLease(tokio::spawn(async move {
            loop {
                tokio::time::sleep(std::time::Duration::from_secs(OWN_JOB_LEASE_SECONDS as u64 / 3)).await;
                let until = stamp(now() + time::Duration::seconds(OWN_JOB_LEASE_SECONDS));
                let renewed = sqlx::query("UPDATE jobs SET lease_until = $1 WHERE id = $2 AND lease = $3")
                    .bind(until)
                    .bind(job)
                    .bind(&lease)
                    .execute(&db.pool)
                    .await;
                match renewed {
                    Ok(r) if r.rows_affected() == 0 => return,
                    Ok(_) => {}
                    Err(e) => eprintln!("arena serve: cannot renew the lease of grading job {job} ({e})"),
                }
            }
        }))
    }

    /// Put back the jobs whose lease ran out (a worker or a server that died
    /// or lost the database): the next claim, here or elsewhere, takes them.
    async fn expire_leases(&self) -> Result<(), String> {
        sqlx::query(
            "UPDATE jobs SET state = 'queued', worker_id = NULL, lease = NULL, lease_until = NULL \
             WHERE state = 'running' AND lease_until < $1",
        )
        .bind(stamp(now()))
        .execute(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        Ok(())
    }

    /// Take the next waiting job: students' uploads first, oldest first.
    async fn claim(&self) -> Result<Option<(i64, i64, i64, String, String)>, String> {
        self.expire_leases().await?;
        let lease = crate::db::new_token()?;
        let pick = match self.db.backend {
            Backend::Sqlite => "SELECT id FROM jobs WHERE state = 'queued' ORDER BY priority DESC, id LIMIT 1",
            Backend::Postgres => {
                "SELECT id FROM jobs WHERE state = 'queued' ORDER BY priority DESC, id LIMIT 1 FOR UPDATE SKIP LOCKED"
            }
        };
        let at = now();
        let row = sqlx::query(&format!(
            "UPDATE jobs SET state = 'running', attempts = attempts + 1, started_at = $1, lease_until = $2, \
             lease = $3, worker_id = NULL WHERE id = ({pick}) RETURNING id, submission_id, attempts, kind"
        ))
        .bind(stamp(at))
        .bind(stamp(at + time::Duration::seconds(OWN_JOB_LEASE_SECONDS)))
        .bind(&lease)
        .fetch_optional(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        Ok(row.map(|r| {
            (
                r.try_get(0).unwrap_or_default(),
                r.try_get(1).unwrap_or_default(),
                r.try_get(2).unwrap_or_default(),
                r.try_get(3).unwrap_or_default(),
                lease,
            )
        }))
    }

    /// Put this server's job `job`, held under `lease`, back in the queue.
    async fn put_back(&self, job: i64, lease: &str) {
        let _ = sqlx::query(
            "UPDATE jobs SET state = 'queued', lease = NULL, lease_until = NULL \
             WHERE id = $1 AND state = 'running' AND lease = $2",
        )
        .bind(job)
        .bind(lease)
        .execute(&self.db.pool)
        .await;
    }

    async fn run(&self, (job, id, attempts, kind, lease): (i64, i64, i64, String, String), grading: &Arc<Grading>) {
        if kind == "versus" {
            return self.versus(job, id, attempts, &lease, grading).await;
        }
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS}, (SELECT name FROM people WHERE people.id = submissions.person_id) FROM submissions WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.db.pool)
        .await;
        let row = match row {
            Ok(Some(row)) => row,
            // No such version: the job is done, not claimed again and again.
            Ok(None) => return drop(self.versus_done(job, id, None, By::Here(&lease)).await),
            Err(_) => return self.put_back(job, &lease).await,
        };
        let sub = submission(&row);
        let student: String = row.try_get(18).unwrap_or_default();
        let _ = sqlx::query("UPDATE submissions SET state = 'running' WHERE id = $1")
            .bind(id)
            .execute(&self.db.pool)
            .await;
        let file = self.course.file_path(&sub.sha256);
        let pages = self.pages_dir(id);
        let versus = grading.has_versus(&self.course);
        let grading = grading.clone();
        let shown = sub.file_name.clone();
        let verdict = tokio::task::spawn_blocking(move || grading.run(&file, &shown, &student, &pages))
            .await
            .unwrap_or_else(|e| Verdict::arena_failed(format!("the grading thread ended: {e}")));
        if verdict.failed && attempts < MAX_ATTEMPTS {
            // The arena failed, not the bot: run it again later.
            return self.put_back(job, &lease).await;
        }
        let recorded = match self.finish(job, id, &verdict, versus, &lease).await {
            Ok(taken) => taken,
            Err(e) => self.unrecorded(job, id, attempts, &lease, &e).await,
        };
        if recorded {
            let _ = self.finished.send(Finished {
                person: sub.person,
                version: sub.version,
            });
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
        self.finish(job, id, &failed, false, lease).await.unwrap_or(false)
    }

    /// Record the verdict of this server's job (held under `lease`) and mark
    /// it done, in one transaction; whether it still held the job.
    async fn finish(&self, job: i64, id: i64, v: &Verdict, versus: bool, lease: &str) -> Result<bool, String> {
        self.finish_by(job, id, v, versus, By::Here(lease)).await
    }

    /// [`Queue::finish`] of a verdict `by` a worker (its id, the lease it
    /// holds or `None` once a server checked it, and whether it was
    /// checked); whether it was taken (the worker still held the job).
    async fn finish_by(&self, job: i64, id: i64, v: &Verdict, versus: bool, by: By<'_>) -> Result<bool, String> {
        let state = if v.failed {
            "failed"
        } else if v.accepted {
            "accepted"
        } else {
            "rejected"
        };
        let at = stamp(now());
        let json = |v: &Option<serde_json::Value>| v.as_ref().map(|j| j.to_string());
        let mut tx = self.db.pool.begin().await.map_err(|e| e.to_string())?;
        if !self.take(&mut tx, job, by).await? {
            return Ok(false);
        }
        // Not a cached statement: sqlx 0.8's Any driver declares a NULL
        // double as float4, and Postgres would keep that type for the
        // statement, refusing the next version's score (a float8).
        sqlx::query(
            "UPDATE submissions SET state = $1, toolchain = $2, check_json = $3, check_text = $4, grade_json = $5, \
             grade_text = $6, score = $7, max_score = $8, reason = $9, finished_at = $10 WHERE id = $11",
        )
        .persistent(false)
        .bind(state)
        .bind(&v.toolchain)
        .bind(json(&v.check))
        .bind(&v.check_text)
        .bind(json(&v.grade))
        .bind(&v.grade_text)
        .bind(v.score)
        .bind(v.max_score)
        .bind(&v.reason)
        .bind(&at)
        .bind(id)
        .execute(&mut *tx)
        .await
        .map_err(|e| e.to_string())?;
        if versus && v.accepted && !v.failed {
            // "Is my new version better?": tested against the accepted one before it, if any.
            sqlx::query(
                "INSERT INTO jobs (kind, submission_id, state, priority, created_at) \
                 SELECT 'versus', s.id, 'queued', 1, $1 FROM submissions s WHERE s.id = $2 AND EXISTS \
                 (SELECT 1 FROM submissions o WHERE o.person_id = s.person_id AND o.version < s.version AND o.state = 'accepted')",
            )
            .bind(&at)
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(|e| e.to_string())?;
        }
        tx.commit().await.map_err(|e| e.to_string())?;
        Ok(true)
    }

    /// Mark `job` done in `tx`, done `by` a worker or here; whether it was
    /// (the lease it was done under must still be the job's).
    async fn take(&self, tx: &mut sqlx::Transaction<'_, sqlx::Any>, job: i64, by: By<'_>) -> Result<bool, String> {
        let at = stamp(now());
        let done = match by {
            By::Anyone => sqlx::query(
                "UPDATE jobs SET state = 'done', finished_at = $1, done_by = NULL, result = NULL, lease = NULL, \
                 lease_until = NULL WHERE id = $2",
            )
            .bind(&at)
            .bind(job),
            By::Here(lease) => sqlx::query(
                "UPDATE jobs SET state = 'done', finished_at = $1, done_by = NULL, result = NULL, lease = NULL, \
                 lease_until = NULL WHERE id = $2 AND state = 'running' AND lease = $3",
            )
            .bind(&at)
            .bind(job)
            .bind(lease),
            By::Worker(worker, lease) => sqlx::query(
                "UPDATE jobs SET state = 'done', finished_at = $1, done_by = $3, lease = NULL, lease_until = NULL \
                 WHERE id = $2 AND state = 'running' AND worker_id = $3 AND lease = $4",
            )
            .bind(&at)
            .bind(job)
            .bind(worker)
            .bind(lease),
            By::Checked(worker, checked) => sqlx::query(
                "UPDATE jobs SET state = 'done', finished_at = $1, done_by = $3, verified = $4, result = NULL, \
                 lease = NULL, lease_until = NULL WHERE id = $2 AND state = 'checking' AND worker_id = $3",
            )
            .bind(&at)
            .bind(job)
            .bind(worker)
            .bind(i64::from(checked)),
        }
        .execute(&mut **tx)
        .await
        .map_err(|e| e.to_string())?;
        Ok(done.rows_affected() == 1)
    }

    /// The two versions a `versus` job of submission `id` tests: the new
    /// one's (SHA-256, version), the one before it, and the person.
    async fn versus_pair(&self, id: i64) -> Result<Option<VersusPair>, String> {
        let row = sqlx::query(
            "SELECT s.sha256, s.version, o.sha256, o.version, s.person_id FROM submissions s \
             JOIN submissions o ON o.person_id = s.person_id AND o.version < s.version AND o.state = 'accepted' \
             WHERE s.id = $1 ORDER BY o.version DESC LIMIT 1",
        )
        .bind(id)
        .fetch_optional(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        Ok(row.map(|row| VersusPair {
            new: (row.try_get(0).unwrap_or_default(), row.try_get(1).unwrap_or_default()),
            old: (row.try_get(2).unwrap_or_default(), row.try_get(3).unwrap_or_default()),
            person: row.try_get(4).unwrap_or_default(),
        }))
    }

    /// Keep a test's verdict (JSON) on its version and mark its job done `by` a worker or here.
    async fn versus_done(&self, job: i64, id: i64, json: Option<String>, by: By<'_>) -> Result<bool, String> {
        let mut tx = self.db.pool.begin().await.map_err(|e| e.to_string())?;
        if !self.take(&mut tx, job, by).await? {
            return Ok(false);
        }
        if let Some(json) = json {
            sqlx::query("UPDATE submissions SET versus_json = $1 WHERE id = $2")
                .bind(json)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(|e| e.to_string())?;
        }
        tx.commit().await.map_err(|e| e.to_string())?;
        Ok(true)
    }

    /// Run the test of `pair` here.
    async fn run_versus(&self, pair: &VersusPair, grading: &Arc<Grading>) -> Result<Versus, String> {
        let (new, old) = (self.course.file_path(&pair.new.0), self.course.file_path(&pair.old.0));
        let (version, against) = (pair.new.1, pair.old.1);
        let ladder = self.course.config.ladder.clone();
        let grading = grading.clone();
        tokio::task::spawn_blocking(move || {
            grading.versus(
                (&new, version),
                (&old, against),
                ladder.versus_elo,
                ladder.versus_games as usize,
            )
        })
        .await
        .unwrap_or_else(|e| Err(format!("the test's thread ended: {e}")))
    }

    /// Test a version against the accepted one before it and keep the verdict on the version.
    async fn versus(&self, job: i64, id: i64, attempts: i64, lease: &str, grading: &Arc<Grading>) {
        let Ok(Some(pair)) = self.versus_pair(id).await else {
            let _ = self.versus_done(job, id, None, By::Here(lease)).await;
            return;
        };
        let (person, version) = (pair.person, pair.new.1);
        let result = self.run_versus(&pair, grading).await;
        let json = match result {
            Ok(v) => serde_json::to_string(&v).ok(),
            Err(e) if attempts < MAX_ATTEMPTS => {
                eprintln!("arena serve: the test of submission {id} failed ({e}); it runs again");
                return self.put_back(job, lease).await;
            }
            Err(e) => serde_json::to_string(&serde_json::json!({ "error": e })).ok(),
        };
        if self.versus_done(job, id, json, By::Here(lease)).await == Ok(true) {
            let _ = self.finished.send(Finished { person, version });
        }
    }
}

/// A grading job or version test handed to an external worker.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct RemoteJob {
    /// The job's id.
    pub job: i64,
    /// The lease's secret: only its holder's result is taken.
    pub lease: String,
    /// `grade` (check and grade the file) or `versus` (test it against `against`).
    pub kind: String,
    /// The version's file, by SHA-256.
    pub sha256: String,
    /// The name it was uploaded under, as its report names it.
    pub file_name: String,
    /// The student, as the grade report names them.
    pub student: String,
    /// The version's number.
    pub version: i64,
    /// For a test: the version before it (SHA-256 and number).
    pub against: Option<(String, i64)>,
}

/// What a worker did with a [`RemoteJob`].
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct RemoteResult {
    /// The job.
    pub job: i64,
    /// Its lease.
    pub lease: String,
    /// A grading job's verdict.
    pub verdict: Option<Verdict>,
    /// A test's verdict.
    pub versus: Option<Versus>,
    /// Why the job could not be done there (it is done again).
    pub error: Option<String>,
}

impl Queue {
    /// Hand the next waiting job to worker `worker` under a lease of
    /// `seconds`; jobs whose worker's lease ran out are waiting again.
    pub async fn claim_remote(&self, worker: i64, seconds: i64) -> Result<Option<RemoteJob>, String> {
        let at = now();
        self.expire_leases().await?;
        let lease = crate::db::new_token()?;
        let pick = match self.db.backend {
            Backend::Sqlite => "SELECT id FROM jobs WHERE state = 'queued' ORDER BY priority DESC, id LIMIT 1",
            Backend::Postgres => {
                "SELECT id FROM jobs WHERE state = 'queued' ORDER BY priority DESC, id LIMIT 1 FOR UPDATE SKIP LOCKED"
            }
        };
        loop {
            let row = sqlx::query(&format!(
                "UPDATE jobs SET state = 'running', attempts = attempts + 1, started_at = $1, worker_id = $2, \
                 lease = $3, lease_until = $4 WHERE id = ({pick}) RETURNING id, submission_id, kind"
            ))
            .bind(stamp(at))
            .bind(worker)
            .bind(&lease)
            .bind(stamp(at + time::Duration::seconds(seconds)))
            .fetch_optional(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
            let Some(row) = row else { return Ok(None) };
            let (job, id, kind): (i64, i64, String) = (
                row.try_get(0).unwrap_or_default(),
                row.try_get(1).unwrap_or_default(),
                row.try_get(2).unwrap_or_default(),
            );
            let sub = sqlx::query(&format!(
                "SELECT {COLUMNS}, (SELECT name FROM people WHERE people.id = submissions.person_id) FROM submissions WHERE id = $1"
            ))
            .bind(id)
            .fetch_optional(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
            let Some(sub_row) = sub else {
                let _ = self.versus_done(job, id, None, By::Anyone).await;
                continue;
            };
            let sub = submission(&sub_row);
            let mut out = RemoteJob {
                job,
                lease: lease.clone(),
                kind: kind.clone(),
                sha256: sub.sha256.clone(),
                file_name: sub.file_name.clone(),
                student: sub_row.try_get(18).unwrap_or_default(),
                version: sub.version,
                against: None,
            };
            if kind == "versus" {
                // Nothing to test against any more: the job is done.
                let Some(pair) = self.versus_pair(id).await? else {
                    self.versus_done(job, id, None, By::Anyone).await?;
                    continue;
                };
                out.against = Some(pair.old);
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
        let done =
            sqlx::query("UPDATE jobs SET lease_until = $1 WHERE state = 'running' AND worker_id = $2 AND lease = $3")
                .bind(stamp(now() + time::Duration::seconds(seconds)))
                .bind(worker)
                .bind(lease)
                .execute(&self.db.pool)
                .await
                .map_err(|e| e.to_string())?;
        Ok(done.rows_affected())
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
            sqlx::query(
                "UPDATE jobs SET state = 'queued', worker_id = NULL, lease = NULL WHERE id = $1 AND lease = $2",
            )
            .bind(r.job)
            .bind(&r.lease)
            .execute(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
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
        let before: i64 =
            sqlx::query("SELECT COUNT(*) FROM jobs WHERE done_by = $1 OR (worker_id = $1 AND state = 'checking')")
                .bind(worker)
                .fetch_one(&self.db.pool)
                .await
                .and_then(|r| r.try_get(0))
                .map_err(|e| e.to_string())?;
        let checked = before < i64::from(config.verify_first)
            || arena_core::derive_seed(0x6a6f_6273, r.job as u64) % 100 < u64::from(config.verify_percent);
        if checked {
            let held = sqlx::query(
                "UPDATE jobs SET state = 'checking', result = $1, lease = NULL, lease_until = NULL \
                 WHERE id = $2 AND state = 'running' AND worker_id = $3 AND lease = $4",
            )
            .bind(&json)
            .bind(r.job)
            .bind(worker)
            .bind(&r.lease)
            .execute(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
            self.wake.notify_waiters();
            return Ok(held.rows_affected() == 1);
        }
        self.record_remote(r.job, id, &kind, &json, By::Worker(worker, &r.lease), grading)
            .await
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
        let sub = sqlx::query(&format!(
            "SELECT {COLUMNS}, (SELECT name FROM people WHERE people.id = submissions.person_id) FROM submissions WHERE id = $1"
        ))
        .bind(id)
        .fetch_one(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        let student: String = sub.try_get(18).unwrap_or_default();
        let sub = submission(&sub);
        let taken = if kind == "versus" {
            self.versus_done(job, id, Some(json.to_string()), by).await?
        } else {
            let verdict: Verdict = serde_json::from_str(json).map_err(|e| e.to_string())?;
            if verdict.accepted && !verdict.failed {
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
            let _ = self.finished.send(Finished {
                person: sub.person,
                version: sub.version,
            });
        }
        Ok(taken)
    }

    /// Do one worker's job that waits to be checked again here; whether
    /// there was one. A verdict that differs disables its worker (see
    /// [`Ladder::disable`]), and every job it did is done again.
    pub async fn check_one(&self, grading: &Arc<Grading>, ladder: &Ladder) -> bool {
        let at = now();
        let Ok(lease) = crate::db::new_token() else {
            return false;
        };
        let pick = match self.db.backend {
            Backend::Sqlite => {
                "SELECT id FROM jobs WHERE state = 'checking' AND (lease_until IS NULL OR lease_until < $2) ORDER BY id LIMIT 1"
            }
            Backend::Postgres => {
                "SELECT id FROM jobs WHERE state = 'checking' AND (lease_until IS NULL OR lease_until < $2) \
                 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"
            }
        };
        // Held for an hour: another server sharing the database leaves it alone meanwhile.
        let Ok(Some(row)) = sqlx::query(&format!(
            "UPDATE jobs SET lease = $1, lease_until = $3 WHERE id = ({pick}) RETURNING id, submission_id, kind, result, worker_id"
        ))
        .bind(&lease)
        .bind(stamp(at))
        .bind(stamp(at + time::Duration::hours(1)))
        .fetch_optional(&self.db.pool)
        .await
        else {
            return false;
        };
        let job: i64 = row.try_get(0).unwrap_or_default();
        let id: i64 = row.try_get(1).unwrap_or_default();
        let kind: String = row.try_get(2).unwrap_or_default();
        let theirs: String = row.try_get::<Option<String>, _>(3).ok().flatten().unwrap_or_default();
        let worker: i64 = row.try_get::<Option<i64>, _>(4).ok().flatten().unwrap_or_default();
        let (differs, mine) = if kind == "versus" {
            let Ok(Some(pair)) = self.versus_pair(id).await else {
                let _ = self.versus_done(job, id, None, By::Checked(worker, true)).await;
                return true;
            };
            let Ok(mine) = self.run_versus(&pair, grading).await else {
                return true;
            };
            let differs = match serde_json::from_str::<Versus>(&theirs) {
                Ok(t) => crate::work::first_difference(&serde_json::json!(t), &serde_json::json!(mine), "test"),
                Err(e) => Some(format!("its test did not read ({e})")),
            };
            (differs, serde_json::to_string(&mine).unwrap_or_default())
        } else {
            let Ok(Some(sub)) = sqlx::query(&format!(
                "SELECT {COLUMNS}, (SELECT name FROM people WHERE people.id = submissions.person_id) FROM submissions WHERE id = $1"
            ))
            .bind(id)
            .fetch_optional(&self.db.pool)
            .await
            else {
                return true;
            };
            let student: String = sub.try_get(18).unwrap_or_default();
            let sub = submission(&sub);
            let (file, pages) = (self.course.file_path(&sub.sha256), self.pages_dir(id));
            let g = grading.clone();
            let shown = sub.file_name.clone();
            let mine = tokio::task::spawn_blocking(move || g.run(&file, &shown, &student, &pages))
                .await
                .unwrap_or_else(|e| Verdict::arena_failed(format!("the grading thread ended: {e}")));
            if mine.failed {
                // The server failed, not the worker: try again later.
                return true;
            }
            let differs = match serde_json::from_str::<Verdict>(&theirs) {
                Ok(t) => t.difference(&mine),
                Err(e) => Some(format!("its verdict did not read ({e})")),
            };
            (differs, serde_json::to_string(&mine).unwrap_or_default())
        };
        if let Some(what) = differs {
            let why = format!("its verdict of job {job} differed when done again on the server ({what}, the server's)");
            eprintln!("arena serve: worker {worker} disabled: {why}");
            let _ = ladder.disable(worker, &why).await;
        } else {
            // The server's own verdict counts: its pages are already made.
            let _ = self.record_checked(job, id, &kind, &mine, worker, grading).await;
        }
        true
    }

    async fn record_checked(
        &self,
        job: i64,
        id: i64,
        kind: &str,
        mine: &str,
        worker: i64,
        grading: &Arc<Grading>,
    ) -> Result<bool, String> {
        if kind == "versus" {
            return self
                .record_remote(job, id, kind, mine, By::Checked(worker, true), grading)
                .await;
        }
        let verdict: Verdict = serde_json::from_str(mine).map_err(|e| e.to_string())?;
        let versus = grading.has_versus(&self.course);
        let taken = self
            .finish_by(job, id, &verdict, versus, By::Checked(worker, true))
            .await?;
        if taken {
            let sub = self.submission_by_id(id).await?;
            self.wake.notify_waiters();
            let _ = self.finished.send(Finished {
                person: sub.person,
                version: sub.version,
            });
        }
        Ok(taken)
    }

    async fn submission_by_id(&self, id: i64) -> Result<Submission, String> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM submissions WHERE id = $1"))
            .bind(id)
            .fetch_one(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
        Ok(submission(&row))
    }
}

/// The versions a `versus` job tests.
struct VersusPair {
    /// The new version's SHA-256 and number.
    new: (String, i64),
    /// The accepted version before it.
    old: (String, i64),
    /// Whose.
    person: i64,
}

/// Write a bot file where its SHA-256 says, durably: a temporary file
/// synced and renamed into place, then the folder synced. A file already
/// there is the same bytes.
async fn store_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if tokio::fs::try_exists(path).await.unwrap_or(false) {
        return Ok(());
    }
    let dir = path.parent().ok_or("a file path has a folder")?.to_path_buf();
    let bytes = bytes.to_vec();
    let path = path.to_path_buf();
    tokio::task::spawn_blocking(move || -> std::io::Result<()> {
        use std::io::Write;
        std::fs::create_dir_all(&dir)?;
        // Unique per upload: another upload of the same file may be writing too.
        let tmp = dir.join(format!(".upload-{}", unique_suffix()));
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        std::fs::File::open(&dir)?.sync_all()
    })
    .await
    .map_err(|e| e.to_string())?
    .map_err(|e| format!("cannot keep the file: {e}"))
}

/// A name part no other temporary file of this server (or of another
/// process on the folder) has: the process id and a counter.
pub fn unique_suffix() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{}-{n}", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::course::{CourseConfig, LadderConfig, LimitChanges, RUBRIC_FILE};

    fn verdict() -> Verdict {
        Verdict::rejected("graded here".into())
    }

    async fn job_row(q: &Queue, job: i64) -> (String, Option<String>) {
        let row = sqlx::query("SELECT state, lease FROM jobs WHERE id = $1")
            .bind(job)
            .fetch_one(&q.db.pool)
            .await
            .unwrap();
        (row.try_get(0).unwrap(), row.try_get(1).unwrap())
    }

    /// A server that stalled past its lease while another claimed the job
    /// can neither record its verdict nor put the job back: the lease's
    /// token, not the job's id, says who holds it.
    #[tokio::test]
    async fn a_lapsed_lease_can_neither_finish_nor_put_back_the_job_another_claim_holds() {
        let dir = std::env::temp_dir().join(format!("arena-queue-lease-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let db = Db::open(&format!("sqlite://{}?mode=rwc", dir.join("course.db").display()))
            .await
            .unwrap();
        let config = CourseConfig {
            name: "c".into(),
            game: "en-garde".into(),
            worlds: Vec::new(),
            rubric: RUBRIC_FILE.into(),
            deadline: None,
            late_days: 0,
            url: "http://127.0.0.1:8080".into(),
            uploads_per_hour: 30,
            limits: LimitChanges::default(),
            ladder: LadderConfig::default(),
        };
        let q = Queue::new(
            db,
            Arc::new(Course {
                dir: dir.clone(),
                config,
            }),
        )
        .await
        .unwrap();
        let person: i64 = sqlx::query(
            "INSERT INTO people (school_id, name, token_hash, created_at) VALUES ('s1', 'S', 'h', $1) RETURNING id",
        )
        .bind(stamp(now()))
        .fetch_one(&q.db.pool)
        .await
        .and_then(|r| r.try_get(0))
        .unwrap();
        let sub = q
            .submit(person, "bot.wasm", b"not a bot", 1 << 20)
            .await
            .unwrap()
            .unwrap();

        let (job, id, attempts, _, stalled) = q.claim().await.unwrap().expect("the upload's job");
        assert_eq!((id, attempts), (sub.id, 1));
        // Its server stalls: the lease runs out, and the next claim takes the job.
        sqlx::query("UPDATE jobs SET lease_until = $1 WHERE id = $2")
            .bind(stamp(now() - time::Duration::seconds(1)))
            .bind(job)
            .execute(&q.db.pool)
            .await
            .unwrap();
        let (again, _, attempts, _, holder) = q.claim().await.unwrap().expect("the lapsed job, claimed again");
        assert_eq!((again, attempts), (job, 2));
        assert_ne!(stalled, holder, "each claim has its own token");

        assert!(
            !q.finish(job, id, &verdict(), false, &stalled).await.unwrap(),
            "the stalled server records nothing"
        );
        q.put_back(job, &stalled).await;
        assert_eq!(
            job_row(&q, job).await,
            ("running".into(), Some(holder.clone())),
            "nor puts the job back"
        );

        assert!(q.finish(job, id, &verdict(), false, &holder).await.unwrap());
        assert_eq!(job_row(&q, job).await, ("done".into(), None));
        assert!(
            !q.finish(job, id, &verdict(), false, &holder).await.unwrap(),
            "a job is finished once"
        );
        let state: String = sqlx::query("SELECT state FROM submissions WHERE id = $1")
            .bind(id)
            .fetch_one(&q.db.pool)
            .await
            .and_then(|r| r.try_get(0))
            .unwrap();
        assert_eq!(state, "rejected");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
