//! The server's health as the teacher's page shows it (issue 49): what
//! waits to be graded and since when, the external workers and when each
//! was last heard from, the disk left to the course folder, and the last
//! backup; with a warning line for each thing a teacher must act on.

use crate::course::{Course, now, stamp};
use crate::db::Db;
use sqlx::Row as _;
use std::path::Path;

/// The name of the setting `arena course backup` keeps its last run in.
pub const LAST_BACKUP: &str = "last_backup";

/// Free space under this is a warning: a backup, or a class's uploads, would not fit.
const LOW_DISK: u64 = 2 << 30;

/// An upload waiting this long to be graded is a warning.
const SLOW_QUEUE_SECONDS: i64 = 600;

/// A course without a backup for this long is told so.
const BACKUP_DAYS: i64 = 2;

/// One external worker, as the health panel shows it.
#[derive(Debug, Clone)]
pub struct WorkerSeen {
    /// Its name (given at `arena course worker-token`).
    pub name: String,
    /// When it last said hello or sent a result.
    pub last_seen: Option<String>,
    /// Matches of it taken.
    pub matches: i64,
    /// Disabled or revoked, and why.
    pub disabled: Option<String>,
    /// Why it was last in doubt (its results were then checked as a new worker's).
    pub doubt: Option<String>,
}

/// The server's health.
#[derive(Debug, Clone)]
pub struct Health {
    /// Grading jobs waiting (queued or running).
    pub waiting: i64,
    /// When the oldest of them was queued.
    pub oldest: Option<String>,
    /// The server's own grading threads.
    pub own_threads: usize,
    /// The external workers.
    pub workers: Vec<WorkerSeen>,
    /// External workers heard from in the last two minutes (set by the
    /// server, which knows who calls it).
    pub connected: usize,
    /// Bytes free to the course folder's file system.
    pub disk_free: Option<u64>,
    /// When the last backup was taken, and where.
    pub last_backup: Option<String>,
}

impl Health {
    /// Read the health of `course` on `db`; `own_threads` is the server's own pool.
    pub async fn read(db: &Db, course: &Course, own_threads: usize) -> Result<Health, String> {
        let row = sqlx::query("SELECT COUNT(*), MIN(created_at) FROM jobs WHERE state <> 'done'")
            .fetch_one(&db.pool)
            .await
            .map_err(|e| e.to_string())?;
        let workers =
            sqlx::query("SELECT name, last_seen, matches, disabled_at, reason, doubt FROM workers ORDER BY id")
                .fetch_all(&db.pool)
                .await
                .map_err(|e| e.to_string())?
                .iter()
                .map(|r| WorkerSeen {
                    name: r.try_get(0).unwrap_or_default(),
                    last_seen: r.try_get(1).ok().flatten(),
                    matches: r.try_get(2).unwrap_or_default(),
                    disabled: r
                        .try_get::<Option<String>, _>(3)
                        .ok()
                        .flatten()
                        .map(|_| r.try_get::<Option<String>, _>(4).ok().flatten().unwrap_or_default()),
                    doubt: r.try_get::<Option<String>, _>(5).ok().flatten(),
                })
                .collect();
        let last_backup = sqlx::query("SELECT value FROM settings WHERE name = $1")
            .bind(LAST_BACKUP)
            .fetch_optional(&db.pool)
            .await
            .map_err(|e| e.to_string())?
            .and_then(|r| r.try_get::<String, _>(0).ok());
        Ok(Health {
            waiting: row.try_get(0).unwrap_or_default(),
            oldest: row.try_get(1).ok().flatten(),
            own_threads,
            workers,
            connected: 0,
            disk_free: disk_free(&course.dir),
            last_backup,
        })
    }

    /// What the teacher must act on, one line each, in their words.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.own_threads == 0 && self.connected == 0 {
            out.push(
                "Nothing is graded until a worker connects: the server was started with --workers 0 and no \
                 external worker has called it in the last two minutes; start one with arena worker, or serve \
                 with --workers 1 or more. Students are told their uploads wait."
                    .into(),
            );
        }
        if let Some(oldest) = &self.oldest
            && seconds_since(oldest).is_some_and(|s| s > SLOW_QUEUE_SECONDS)
        {
            out.push(format!(
                "An upload has waited since {} to be graded: add workers, or look at the server's log.",
                shown(oldest)
            ));
        }
        if let Some(free) = self.disk_free
            && free < LOW_DISK
        {
            out.push(format!(
                "Only {} free on the course's disk: uploads and backups will fail when it is full; free some space.",
                size(free)
            ));
        }
        let stale = match &self.last_backup {
            None => Some("No backup of this course has been taken".to_string()),
            Some(last) => {
                let at = last.split(' ').next().unwrap_or("");
                seconds_since(at)
                    .is_some_and(|s| s > BACKUP_DAYS * 86_400)
                    .then(|| format!("The last backup was taken {}", shown(at)))
            }
        };
        if let Some(s) = stale {
            out.push(format!(
                "{s}: run arena course backup (docs/server.md shows a nightly one)."
            ));
        }
        out
    }
}

/// A stamp as pages show it: `2026-11-25 14:03 UTC`.
pub fn shown(at: &str) -> String {
    at.get(..16)
        .map_or_else(|| at.to_string(), |t| format!("{} UTC", t.replace('T', " ")))
}

/// Bytes in the units a person reads.
pub fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / f64::from(1u32 << 30)),
        b if b >= 1 << 20 => format!("{:.0} MiB", b as f64 / f64::from(1u32 << 20)),
        b => format!("{b} bytes"),
    }
}

fn seconds_since(at: &str) -> Option<i64> {
    let t = time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339).ok()?;
    Some((now() - t).whole_seconds())
}

/// Bytes free to an unprivileged user on the file system of `dir`.
fn disk_free(dir: &Path) -> Option<u64> {
    let s = rustix::fs::statvfs(dir).ok()?;
    Some(s.f_bavail.saturating_mul(s.f_frsize))
}

/// Note a backup taken now into `out`, for the health panel.
pub async fn note_backup(db: &Db, out: &Path) -> Result<(), String> {
    sqlx::query(
        "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
    )
    .bind(LAST_BACKUP)
    .bind(format!("{} {}", stamp(now()), out.display()))
    .execute(&db.pool)
    .await
    .map(|_| ())
    .map_err(|e| e.to_string())
}
