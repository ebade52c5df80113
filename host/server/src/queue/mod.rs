//! Submissions and the durable job queue behind them. A submission is
//! acknowledged only once its file (kept by SHA-256) is on disk and its row
//! and its job are committed; a job a killed server left running is queued
//! again when the server starts, and finishing a job is one transaction, so
//! every job finishes exactly once.

use crate::course::{Course, now, stamp};
use crate::db::{Db, hex};
use crate::lease::{JOBS, Leases};
use crate::workers::Workers;
use arena_grading::grade::budget::Progress;
use sha2::{Digest, Sha256};
use sqlx::Row;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::{Notify, broadcast};

mod own;
mod record;
mod remote;

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

impl Submission {
    /// The house bot its grade found it plays exactly like (an unchanged
    /// template), if any: the flag a teacher must not miss.
    pub fn plays_like(&self) -> Option<String> {
        let grade: serde_json::Value = serde_json::from_str(self.grade_json.as_deref()?).ok()?;
        grade["plays_like"].as_str().map(String::from)
    }
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
    /// The server's disk (or the course folder's quota) has no room for the file.
    DiskFull,
    /// Not a bot for the course's game, as its first bytes and its exports
    /// show (the one-line reason names the file, the cause and the fix).
    NotABot(String),
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
            Refused::DiskFull => write!(
                f,
                "the server's disk is full, so your file was not kept: tell your teacher (the course folder needs free space), then upload it again"
            ),
            Refused::NotABot(why) => f.write_str(why),
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
    /// The life cycle of its jobs' leases.
    leases: Leases,
    /// The external workers, who may do its jobs.
    workers: Arc<Workers>,
    /// Jobs were queued or results arrived.
    pub wake: Arc<Notify>,
    /// Jobs added from outside (uploads, re-grades), counted: a ladder
    /// batch stops between two matches when it moves (`Ladder::play_own`).
    pub added: Arc<std::sync::atomic::AtomicU64>,
    /// Bumped whenever a grade may have changed (a verdict, a version chosen,
    /// a tournament's points, a roster from an LMS): the LMS passback reads
    /// the class only then, not every few seconds (`lti::ags::start`).
    pub grade_changes: Arc<std::sync::atomic::AtomicU64>,
    finished: broadcast::Sender<Finished>,
    /// Where this server's gradings are, by submission id: told by the
    /// grading's progress hook, read by the pages, dropped when it ends.
    progress: Arc<std::sync::Mutex<std::collections::BTreeMap<i64, Progress>>>,
    /// A grading of this server moved on (at most once a percent).
    progressed: broadcast::Sender<Finished>,
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

/// How long a job this server grades stays its own without a renewal
/// (renewed every third of it while it runs): how long a job of a server
/// that died waits before another server, or this one restarted, grades it
/// again on a shared Postgres course.
pub const OWN_JOB_LEASE_SECONDS: i64 = 60;

impl Queue {
    /// The queue of `course` on `db`, whose workers `workers` are; jobs a
    /// previous server left running are queued again ([`Leases::recover`]).
    pub async fn new(db: Db, course: Arc<Course>, workers: Arc<Workers>) -> Result<Queue, String> {
        let leases = Leases::new(db.clone(), &JOBS);
        leases.recover().await?;
        sqlx::query(
            "UPDATE submissions SET state = 'queued' \
             WHERE id IN (SELECT submission_id FROM jobs WHERE state = 'queued' AND kind = 'grade')",
        )
        .execute(&db.pool)
        .await
        .map_err(|e| e.to_string())?;
        let (finished, _) = broadcast::channel(256);
        let (progressed, _) = broadcast::channel(256);
        Ok(Queue {
            db,
            course,
            leases,
            workers,
            wake: Arc::new(Notify::new()),
            added: Arc::new(std::sync::atomic::AtomicU64::new(0)),
            grade_changes: Arc::new(std::sync::atomic::AtomicU64::new(0)),
            finished,
            progress: Arc::default(),
            progressed,
        })
    }

    /// Told of every submission that finishes.
    pub fn subscribe(&self) -> broadcast::Receiver<Finished> {
        self.finished.subscribe()
    }

    /// Keep `bytes` as a new version of `person`'s bot and queue its check
    /// and grade, unless `refuse` (given the name shown and the bytes) says
    /// at once why it is no bot for the course. Returns once the file and
    /// the rows are durable.
    pub async fn submit(
        &self,
        person: i64,
        file_name: &str,
        bytes: &[u8],
        max_bytes: u64,
        refuse: &(dyn Fn(&str, &[u8]) -> Option<String> + Sync),
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
        // A name is only ever shown: keep what a person can read, short.
        let shown: String = Path::new(file_name)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
            .chars()
            .filter(|c| !c.is_control())
            .take(100)
            .collect();
        let shown = if shown.is_empty() {
            "bot.wasm".to_string()
        } else {
            shown
        };
        // Refused in the upload's own answer: nothing kept, nothing queued.
        if let Some(why) = refuse(&shown, bytes) {
            return Ok(Err(Refused::NotABot(why)));
        }
        let sha256 = hex(&Sha256::digest(bytes));
        let path = self.course.file_path(&sha256);
        match store_file(&path, bytes).await {
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::StorageFull | ErrorKind::QuotaExceeded | ErrorKind::FileTooLarge
                ) =>
            {
                eprintln!(
                    "arena serve: {}: the disk is full, an upload was refused ({e})",
                    path.display()
                );
                return Ok(Err(Refused::DiskFull));
            }
            Err(e) => return Err(format!("{}: cannot keep the file ({e})", path.display())),
            Ok(()) => {}
        }
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
        .bind(shown)
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
        self.added.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
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
        self.added.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
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

    /// Re-grades (the teacher's "Re-grade everyone") waiting or running.
    pub async fn regrading(&self) -> Result<i64, String> {
        sqlx::query("SELECT COUNT(*) FROM jobs WHERE state <> 'done' AND kind = 'grade' AND priority = 0")
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

    /// Submission `id`.
    async fn submission_by_id(&self, id: i64) -> Result<Submission, String> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM submissions WHERE id = $1"))
            .bind(id)
            .fetch_one(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
        Ok(submission(&row))
    }

    /// Submission `id` with its student's name, if it exists.
    async fn submission_and_student(&self, id: i64) -> Result<Option<(Submission, String)>, String> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS}, (SELECT name FROM people WHERE people.id = submissions.person_id) FROM submissions WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        Ok(row.map(|r| (submission(&r), r.try_get(18).unwrap_or_default())))
    }

    /// Tell whoever listens that version `version` of `person` finished.
    fn announce(&self, person: i64, version: i64) {
        self.grade_may_have_changed();
        let _ = self.finished.send(Finished { person, version });
    }

    /// Say that someone's grade may have changed, for the LMS passback.
    pub fn grade_may_have_changed(&self) {
        self.grade_changes.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    /// Told whenever one of this server's gradings moves on.
    pub fn subscribe_progress(&self) -> broadcast::Receiver<Finished> {
        self.progressed.subscribe()
    }

    /// Where the grading of submission `id` is, if this server grades it now.
    pub fn progress_of(&self, id: i64) -> Option<Progress> {
        self.progress
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&id)
            .copied()
    }

    /// The grading of submission `id` (`person`'s `version`) is at `p`:
    /// kept for the pages, and said to open pages when its whole percent
    /// changes (or it starts), not after every game.
    pub fn progressed(&self, id: i64, person: i64, version: i64, p: Progress) {
        let percent = |p: &Progress| 100 * p.played / p.games.max(1);
        let before = self.progress.lock().unwrap_or_else(|e| e.into_inner()).insert(id, p);
        if before.is_none_or(|b| percent(&b) != percent(&p)) {
            let _ = self.progressed.send(Finished { person, version });
        }
    }

    /// The grading of submission `id` ended here.
    pub fn progress_done(&self, id: i64) {
        self.progress.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
    }
}

/// Write a bot file where its SHA-256 says, durably: a temporary file
/// synced and renamed into place, then the folder synced. A file already
/// there is the same bytes. A write that fails (a full disk) leaves no
/// temporary file behind.
async fn store_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if tokio::fs::try_exists(path).await.unwrap_or(false) {
        return Ok(());
    }
    let dir = path.parent().ok_or(ErrorKind::InvalidInput)?.to_path_buf();
    let bytes = bytes.to_vec();
    let path = path.to_path_buf();
    tokio::task::spawn_blocking(move || -> std::io::Result<()> {
        use std::io::Write;
        std::fs::create_dir_all(&dir)?;
        // Unique per upload: another upload of the same file may be writing too.
        let tmp = dir.join(format!(".upload-{}", unique_suffix()));
        let written = (|| {
            // Readable by this user only, as the course folder is.
            let mut f = {
                use std::os::unix::fs::OpenOptionsExt;
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(&tmp)?
            };
            f.write_all(&bytes)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written?;
        std::fs::File::open(&dir)?.sync_all()
    })
    .await
    .map_err(std::io::Error::other)?
}

/// A name part no other temporary file of this server (or of another
/// process on the folder) has: the process id and a counter.
pub fn unique_suffix() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{}-{n}", std::process::id())
}
