//! The server's API as both sides see it: the requests and responses of
//! the workers' API (`/api/worker/...`), shared by the server's handlers
//! ([`crate::web::remote`]) and the client ([`crate::worker`]), so the two
//! cannot drift apart.

use crate::course::LimitChanges;
use crate::play::{Job, Outcome};
use crate::work::{Verdict, Versus};
use arena_core::IllegalMoves;
use serde::{Deserialize, Serialize};

/// A lease on some matches.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Lease {
    /// Its secret: only its holder's results are taken.
    pub lease: String,
    /// The matches.
    pub matches: Vec<Job>,
}

/// A grading job or version test handed to an external worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Serialize, Deserialize)]
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

/// What a worker says first.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Hello {
    /// The arena's version.
    pub arena: String,
    /// wasmtime's version.
    pub wasmtime: String,
    /// Threads it plays on.
    pub jobs: usize,
    /// The machine's name, for the teacher.
    pub host: String,
}

/// What the server answers: what to play and how.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Welcome {
    /// The worker's id.
    pub worker: i64,
    /// The game.
    pub game: String,
    /// The course's changes to the game's limits.
    pub limits: LimitChanges,
    /// What an illegal move costs.
    pub illegal: IllegalMoves,
    /// The server's engine fingerprint: the worker's must be the same.
    pub engine: String,
    /// Seconds a lease lasts without a heartbeat.
    pub lease_seconds: i64,
    /// The course's rubric (the text of its file), for grading jobs.
    pub rubric: String,
    /// The world versions the course accepts (none: all).
    pub worlds: Vec<String>,
    /// A version test's margin in Elo, and its most games.
    pub versus: (f64, u64),
}

/// A claim.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claim {
    /// The worker's engine fingerprint.
    pub engine: String,
    /// Most matches wanted.
    pub max: usize,
}

/// A heartbeat.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Beat {
    /// The lease kept alive.
    pub lease: String,
}

/// One match's result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Result1 {
    /// The match.
    pub id: i64,
    /// What it gave.
    pub outcome: Outcome,
}

/// Results under a lease.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Results {
    /// The lease.
    pub lease: String,
    /// The results.
    pub results: Vec<Result1>,
}

/// What became of results.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Taken {
    /// Matches whose results were taken.
    pub taken: Vec<i64>,
    /// Matches whose results were not (the lease ran out or they came twice).
    pub untaken: Vec<i64>,
}

/// What a student's client checks before it uploads (`GET /api/course`):
/// the course, its game and its limits. Fields in alphabetical order, the
/// order the API has always written them in.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CourseInfo {
    /// The course's name.
    pub course: String,
    /// The deadline (RFC 3339), if there is one.
    pub deadline: Option<String>,
    /// The game's name.
    pub game: String,
    /// Days after the deadline versions are still taken (marked late).
    pub late_days: u32,
    /// The largest bot file taken, in bytes.
    pub max_file_bytes: u64,
    /// Whether uploads are taken now.
    pub open: bool,
    /// Uploads a student may make in an hour.
    pub uploads_per_hour: u32,
}

impl CourseInfo {
    /// [`CourseInfo::late_days_at`] now: how late a version sent now is marked.
    pub fn late_days_now(&self) -> u32 {
        self.late_days_at(time::OffsetDateTime::now_utc())
    }

    /// The whole days after the deadline a version uploaded at `at` comes
    /// (a minute late is one day), as the server marks it; 0 before the
    /// deadline, without one, or when it does not read.
    pub fn late_days_at(&self, at: time::OffsetDateTime) -> u32 {
        let parsed = self
            .deadline
            .as_deref()
            .and_then(|d| time::OffsetDateTime::parse(d, &time::format_description::well_known::Rfc3339).ok());
        match parsed {
            Some(deadline) if at > deadline => {
                let late = at - deadline;
                u32::try_from(late.whole_days() + i64::from(late.whole_seconds() % 86_400 != 0)).unwrap_or(u32::MAX)
            }
            _ => 0,
        }
    }
}

/// A version of a student's bot as the API gives it (`POST
/// /api/submissions`, `GET /api/submissions/N`). Fields in alphabetical
/// order, the order the API has always written them in.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VersionView {
    /// Whether it was accepted: none while it is checked and graded, or when the arena failed.
    pub accepted: Option<bool>,
    /// `arena check`'s report (JSON), once checked.
    pub check: serde_json::Value,
    /// `arena check`'s report as printed.
    pub check_text: Option<String>,
    /// What its grade flags: `plays like house:aggressive` (every game
    /// ended as that house bot's did: an unchanged template).
    #[serde(default)]
    pub flags: Vec<String>,
    /// The grade (JSON), once graded.
    pub grade: serde_json::Value,
    /// The grade as printed.
    pub grade_text: Option<String>,
    /// Days after the deadline it came.
    pub late_days: i64,
    /// The most points there are.
    pub max_score: Option<f64>,
    /// While it waits or is graded, how far it is, in words: the estimate
    /// ("up to 362 games, at most 15 minutes (the course's grading
    /// budget)"), then "120 of 362 games played (33%), about 2 minutes left ...".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<String>,
    /// Why it was rejected, or why the arena failed it.
    pub reason: Option<String>,
    /// Its points.
    pub score: Option<f64>,
    /// The file's SHA-256, hex.
    pub sha256: String,
    /// Its size in bytes.
    pub size: i64,
    /// `queued`, `running`, `checking` (a worker graded it; the server
    /// grades it again before it counts), `accepted`, `rejected` or `failed`.
    pub state: String,
    /// When it was received (RFC 3339, UTC).
    pub submitted: String,
    /// The toolchain that built it, as `arena check` read it.
    pub toolchain: Option<String>,
    /// Its page on the server.
    pub url: String,
    /// Its number among the student's versions, from 1.
    pub version: i64,
    /// Its test against the version before it (JSON), once tested.
    pub versus: serde_json::Value,
}
