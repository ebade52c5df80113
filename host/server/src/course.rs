//! A course folder: `course.toml` (the game, its rules for submissions and
//! grading), the rubric, the database (SQLite in the folder unless
//! Postgres is named), the stored bot files, and the secrets a teacher
//! mails (`tokens.csv`, `teacher-link.txt`).

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// The course's settings file, in the course folder.
pub const COURSE_FILE: &str = "course.toml";
/// The rubric file `arena course init` writes (the game's default unless one is given).
pub const RUBRIC_FILE: &str = "rubric.toml";
/// The SQLite database, when no Postgres URL is given.
pub const DATABASE_FILE: &str = "course.db";
/// Where bot files are kept, by SHA-256.
pub const FILES_DIR: &str = "files";
/// Where `arena course init --database URL` keeps a URL with a password (mode 0600).
pub const DATABASE_URL_FILE: &str = "database-url";
/// The students' secrets and login links, for the teacher to mail.
pub const TOKENS_FILE: &str = "tokens.csv";
/// The teacher's login link.
pub const TEACHER_FILE: &str = "teacher-link.txt";

/// What `course.toml` holds.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CourseConfig {
    /// The course's name, shown on every page.
    pub name: String,
    /// The game (`arena games`).
    pub game: String,
    /// The world versions a bot may target; empty: every version the game has.
    #[serde(default)]
    pub worlds: Vec<String>,
    /// The rubric, relative to the course folder.
    pub rubric: String,
    /// The deadline (RFC 3339); none: no deadline.
    #[serde(default)]
    pub deadline: Option<String>,
    /// Days after the deadline a version is still accepted, marked late.
    #[serde(default)]
    pub late_days: u32,
    /// The address students reach the server at, for login links.
    pub url: String,
    /// Uploads a student may make per hour.
    #[serde(default = "default_uploads_per_hour")]
    pub uploads_per_hour: u32,
    /// The course's database when it is not the folder's `course.db`: a
    /// URL without a password, `env:VAR` (the URL is in that environment
    /// variable) or `file:NAME` (in that file of the folder, mode 0600),
    /// so a password never sits in `course.toml`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<String>,
    /// Changes to the game's default limits (`arena games`).
    #[serde(default)]
    pub limits: LimitChanges,
    /// How the ladder plays.
    #[serde(default)]
    pub ladder: LadderConfig,
    /// How many requests a client may make.
    #[serde(default)]
    pub rates: RateConfig,
}

/// Rate limits (`[rates]` in `course.toml`); past one a request is told
/// when to try again (429).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RateConfig {
    /// Logins and browser uploads per minute from one address (a class in
    /// one lab behind one address logs in at once: a minute's worth may
    /// come at once).
    pub logins_per_minute: u32,
    /// Calls of the students' API per minute by one student (`arena
    /// submit --wait` asks about once a second while it waits).
    pub api_per_minute: u32,
}

impl Default for RateConfig {
    fn default() -> RateConfig {
        RateConfig {
            logins_per_minute: 120,
            api_per_minute: 300,
        }
    }
}

/// The ladder's settings (`[ladder]` in `course.toml`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LadderConfig {
    /// Games per ladder match, rounded up to whole seat rotations of a deal
    /// (a duel: both seats of each deal).
    pub games: u32,
    /// Bots at a table, for games of more than two (President); at most the game's seats.
    pub table: u32,
    /// Most games of a new version's test against the version before it;
    /// 0 turns the test off.
    pub versus_games: u32,
    /// The test's Elo margin: "stronger" means by at least this, "weaker" by at least this.
    pub versus_elo: f64,
    /// Of every hundred matches an external worker returns, how many a server plays again to check it.
    pub verify_percent: u32,
    /// A new worker's first matches, all played again.
    pub verify_first: u32,
    /// Seconds an external worker's lease lasts without a heartbeat; then its matches go back to the queue.
    pub lease_seconds: u32,
    /// A version plays at least this many ladder matches.
    pub min_matches: u32,
    /// Then it plays on while its rating's 95% interval is wider than this
    /// many Elo points (0: it never rests); when every version rests, so
    /// does the ladder, until a version is added or replaced.
    pub rest_width: f64,
    /// And at most this many matches (0: no cap).
    pub max_matches: u32,
}

impl LadderConfig {
    /// How many more matches a version with `matches` so far and a 95%
    /// interval `width` Elo points wide should be picked for now: its
    /// missing minimum, else a few while its interval is too wide (the
    /// next fit tells again), none once it rests.
    pub fn wanted(&self, matches: u64, width: f64) -> u64 {
        let (min, max) = (u64::from(self.min_matches), u64::from(self.max_matches));
        let room = if max == 0 {
            u64::MAX
        } else {
            max.saturating_sub(matches)
        };
        if matches < min {
            min - matches
        } else if self.rest_width <= 0.0 || width > self.rest_width {
            room.min(4)
        } else {
            0
        }
    }
}

impl Default for LadderConfig {
    fn default() -> LadderConfig {
        LadderConfig {
            games: 10,
            table: 4,
            versus_games: 2000,
            versus_elo: 20.0,
            verify_percent: 2,
            verify_first: 5,
            lease_seconds: 60,
            min_matches: 20,
            rest_width: 100.0,
            max_matches: 200,
        }
    }
}

/// Changes to a game's default limits, as `arena match` takes them.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LimitChanges {
    /// Fuel per move.
    pub fuel: Option<u64>,
    /// Fuel bank per game.
    pub bank: Option<u64>,
    /// Memory per bot, in bytes.
    pub memory: Option<u64>,
    /// The largest bot file, in bytes.
    pub max_file_bytes: Option<u64>,
}

fn default_uploads_per_hour() -> u32 {
    30
}

impl CourseConfig {
    /// The deadline, if any.
    pub fn deadline(&self) -> Result<Option<OffsetDateTime>, String> {
        self.deadline
            .as_deref()
            .map(|d| {
                OffsetDateTime::parse(d, &Rfc3339).map_err(|e| {
                    format!("deadline `{d}`: {e}; write it as 2026-12-15T23:59:00Z (RFC 3339, with its time zone)")
                })
            })
            .transpose()
    }

    /// Whole days `at` is after the deadline (0 on time or without one).
    pub fn late_days_at(&self, at: OffsetDateTime) -> u32 {
        match self.deadline() {
            Ok(Some(deadline)) if at > deadline => {
                let late = at - deadline;
                u32::try_from(late.whole_days() + i64::from(late.whole_seconds() % 86_400 != 0)).unwrap_or(u32::MAX)
            }
            _ => 0,
        }
    }

    /// Whether an upload at `at` is past the last day a late version is accepted.
    pub fn frozen_at(&self, at: OffsetDateTime) -> bool {
        matches!(self.deadline(), Ok(Some(_))) && self.late_days_at(at) > self.late_days
    }
}

/// A course folder and its settings.
#[derive(Debug, Clone)]
pub struct Course {
    /// The folder.
    pub dir: PathBuf,
    /// `course.toml`.
    pub config: CourseConfig,
}

impl Course {
    /// Open the course in `dir`: its `course.toml`, checked.
    pub fn open(dir: &Path) -> Result<Course, String> {
        let file = dir.join(COURSE_FILE);
        let text = std::fs::read_to_string(&file).map_err(|e| {
            format!(
                "{}: cannot read it ({e}); give a folder made by `arena course init`",
                file.display()
            )
        })?;
        let config: CourseConfig = toml::from_str(&text).map_err(|e| format!("{}: {}", file.display(), e.message()))?;
        config.deadline().map_err(|e| format!("{}: {e}", file.display()))?;
        Ok(Course {
            dir: dir.to_path_buf(),
            config,
        })
    }

    /// Make what the server keeps private to the user it runs as: the
    /// course folder and its bot files' folder 0700, the SQLite database
    /// and its journal files 0600 (they hold live sessions). A course made
    /// by an older arena is tightened when it is served.
    pub fn keep_private(&self) -> Result<(), String> {
        use std::os::unix::fs::PermissionsExt;
        let set = |path: &Path, mode: u32| -> Result<(), String> {
            match std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)) {
                Err(e) if e.kind() == std::io::ErrorKind::ReadOnlyFilesystem => Err(format!(
                    "{}: the course folder is on a read-only file system, and the server writes its uploads there: remount it read-write (or copy the course to a writable disk) and start again",
                    self.dir.display()
                )),
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(format!("{}: cannot make it private to this user ({e})", path.display()))
                }
                _ => Ok(()),
            }
        };
        set(&self.dir, 0o700)?;
        set(&self.dir.join(FILES_DIR), 0o700)?;
        for db in ["course.db", "course.db-wal", "course.db-shm"] {
            set(&self.dir.join(db), 0o600)?;
        }
        Ok(())
    }

    /// The rubric's path.
    pub fn rubric_path(&self) -> PathBuf {
        self.dir.join(&self.config.rubric)
    }

    /// Where a bot file of this SHA-256 (hex) is kept.
    pub fn file_path(&self, sha256: &str) -> PathBuf {
        self.dir
            .join(FILES_DIR)
            .join(&sha256[..2])
            .join(format!("{sha256}.wasm"))
    }

    /// Where the replay pages and Gradescope file of a submission (by database id) are written.
    pub fn pages_dir(&self, submission: i64) -> PathBuf {
        self.dir.join("pages").join(submission.to_string())
    }

    /// The SQLite database URL of this folder.
    pub fn sqlite_url(&self) -> String {
        format!("sqlite://{}?mode=rwc", self.dir.join(DATABASE_FILE).display())
    }

    /// The database `course.toml` names (`database`), read from where it
    /// says; `None` when it names none (the folder's `course.db`).
    pub fn named_database(&self) -> Result<Option<String>, String> {
        let Some(named) = &self.config.database else {
            return Ok(None);
        };
        let toml = self.dir.join(COURSE_FILE);
        if let Some(var) = named.strip_prefix("env:") {
            return match std::env::var(var) {
                Ok(url) if !url.trim().is_empty() => Ok(Some(url.trim().to_string())),
                _ => Err(format!(
                    "{}: the course's database is in the environment variable {var} (database = \"{named}\"), which is not set here: set it to the database's URL and start again",
                    toml.display()
                )),
            };
        }
        if let Some(name) = named.strip_prefix("file:") {
            use std::os::unix::fs::PermissionsExt;
            let file = self.dir.join(name);
            let meta = std::fs::metadata(&file).map_err(|e| {
                format!(
                    "{}: cannot read it ({e}); course.toml names it as the file holding the course's database URL: put the URL there (mode 0600)",
                    file.display()
                )
            })?;
            if meta.permissions().mode() & 0o077 != 0 {
                return Err(format!(
                    "{}: others may read it (mode {:o}), and it holds the database's password: run chmod 600 on it and start again",
                    file.display(),
                    meta.permissions().mode() & 0o777
                ));
            }
            let url =
                std::fs::read_to_string(&file).map_err(|e| format!("{}: cannot read it ({e})", file.display()))?;
            return match url.trim() {
                "" => Err(format!(
                    "{}: empty; it should hold the course's database URL",
                    file.display()
                )),
                url => Ok(Some(url.to_string())),
            };
        }
        Ok(Some(named.clone()))
    }

    /// The course's database: `given` (`--database`), else the one
    /// `course.toml` names, else the folder's `course.db`, which must be
    /// there: a course whose database is elsewhere is never served from a
    /// new empty file (its students' links would all fail).
    pub fn database_url(&self, given: Option<&str>) -> Result<String, String> {
        if let Some(url) = given {
            return Ok(url.to_string());
        }
        if let Some(url) = self.named_database()? {
            return Ok(url);
        }
        let file = self.dir.join(DATABASE_FILE);
        if !file.is_file() {
            return Err(format!(
                "{}: not there, and {} names no other database: give the course's database with --database URL (or add database = \"...\" to course.toml), or restore the folder from a backup (arena course restore)",
                file.display(),
                COURSE_FILE
            ));
        }
        Ok(self.sqlite_url())
    }
}

/// Make the course folder `dir` name `url` as its database: the
/// `database` line of `course.toml` (before its first table, replacing any
/// other), with the URL in a 0600 file when it holds a password; with no
/// URL, the folder's own `course.db` (no `database` line).
pub fn name_database(dir: &Path, url: Option<&str>) -> Result<(), String> {
    let toml = dir.join(COURSE_FILE);
    let text = std::fs::read_to_string(&toml).map_err(|e| format!("{}: cannot read it ({e})", toml.display()))?;
    let (entry, secret) = url.map_or((None, false), |url| {
        let (entry, secret) = database_entry(url);
        (Some(entry), secret)
    });
    if let (Some(url), true) = (url, secret) {
        use std::io::Write as _;
        use std::os::unix::fs::OpenOptionsExt;
        // Written beside and renamed: a restore cut off halfway leaves
        // the old file or the new one, never half of one.
        let file = dir.join(DATABASE_URL_FILE);
        let part = dir.join(format!("{DATABASE_URL_FILE}.part"));
        let _ = std::fs::remove_file(&part);
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&part)
            .and_then(|mut f| f.write_all(format!("{url}\n").as_bytes()).and_then(|()| f.sync_all()))
            .and_then(|()| std::fs::rename(&part, &file))
            .map_err(|e| format!("{}: cannot write it ({e})", file.display()))?;
    }
    let line = entry.map_or(String::new(), |entry| {
        format!("database = {}\n", toml::Value::String(entry))
    });
    let mut out = String::new();
    let mut placed = false;
    for l in text.lines() {
        let top = !placed && !l.trim_start().starts_with('[');
        if top && l.trim_start().starts_with("database") && l.contains('=') {
            continue;
        }
        if !placed && l.trim_start().starts_with('[') {
            out.push_str(&line);
            placed = true;
        }
        out.push_str(l);
        out.push('\n');
    }
    if !placed {
        out.push_str(&line);
    }
    let part = dir.join(format!("{COURSE_FILE}.part"));
    std::fs::write(&part, out)
        .and_then(|()| std::fs::set_permissions(&part, std::fs::metadata(&toml)?.permissions()))
        .and_then(|()| std::fs::rename(&part, &toml))
        .map_err(|e| format!("{}: cannot write it ({e})", toml.display()))?;
    Course::open(dir).map(|_| ())
}

/// `database = ...` for `course.toml` for a course on `url`: the URL
/// itself, or `file:database-url` when it holds a password (that file is
/// written by the caller, mode 0600).
pub fn database_entry(url: &str) -> (String, bool) {
    // Kept out of course.toml unless it surely holds no password: none in
    // its user part or its query, and a URL that parses (an unencoded `@`
    // or `/` in a password does not).
    let plain = url::Url::parse(url)
        .is_ok_and(|u| u.password().is_none() && !u.query_pairs().any(|(k, _)| k.ends_with("password")));
    let secret = !plain;
    if secret {
        (format!("file:{DATABASE_URL_FILE}"), true)
    } else {
        (url.to_string(), false)
    }
}

/// The current time, in UTC, to the second.
pub fn now() -> OffsetDateTime {
    let t = OffsetDateTime::now_utc();
    t.replace_nanosecond(0).unwrap_or(t)
}

/// A time as the database and pages write it: RFC 3339 in UTC.
pub fn stamp(t: OffsetDateTime) -> String {
    t.format(&Rfc3339).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(deadline: Option<&str>, late_days: u32) -> CourseConfig {
        CourseConfig {
            name: "c".into(),
            game: "en-garde".into(),
            worlds: Vec::new(),
            rubric: RUBRIC_FILE.into(),
            deadline: deadline.map(String::from),
            late_days,
            url: "http://127.0.0.1:8080".into(),
            uploads_per_hour: 30,
            limits: LimitChanges::default(),
            ladder: LadderConfig::default(),
            rates: RateConfig::default(),
            database: None,
        }
    }

    #[test]
    fn a_version_is_late_by_started_days_and_frozen_after_the_late_days() {
        let c = config(Some("2026-12-15T23:59:00Z"), 2);
        let at = |s: &str| OffsetDateTime::parse(s, &Rfc3339).unwrap();
        assert_eq!(c.late_days_at(at("2026-12-15T23:58:59Z")), 0);
        assert_eq!(c.late_days_at(at("2026-12-16T00:00:00Z")), 1);
        assert_eq!(c.late_days_at(at("2026-12-16T23:59:00Z")), 1);
        assert_eq!(c.late_days_at(at("2026-12-16T23:59:01Z")), 2);
        assert!(!c.frozen_at(at("2026-12-17T23:59:00Z")));
        assert!(c.frozen_at(at("2026-12-17T23:59:01Z")));
        assert!(!config(None, 0).frozen_at(at("2030-01-01T00:00:00Z")));
    }

    #[test]
    fn a_deadline_without_a_time_zone_is_refused_in_words() {
        let e = config(Some("2026-12-15 23:59"), 0).deadline().unwrap_err();
        assert!(e.contains("2026-12-15T23:59:00Z"), "{e}");
    }
}
