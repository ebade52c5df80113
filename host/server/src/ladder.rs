//! The ladder: the version that counts of every student, with the house
//! bots as anchors, matched without end (`arena_competition::ladder`
//! picks who plays whom), each match a duplicate match played by the
//! server's own pool or by an external worker under a lease; ratings are
//! fitted to every game among the current versions at once, and a sample
//! of every worker's matches is played again here and compared.

use crate::course::{Course, now, stamp};
use crate::db::{Backend, Db};
use crate::play::{Bot, Job, Outcome, Player};
use crate::work::Grading;
use arena_competition::ladder::{Entrant as Seeded, next};
use arena_competition::tournament::fit::{FitGame, Fitted, PRIOR_DRAWS, fit_counted};
use arena_core::{Kind, derive_seed};
use serde::Serialize;
use sqlx::Row as _;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, broadcast};

/// How long the server's own pool holds a match (it plays at once; a
/// server killed mid-match gives it back when it starts again).
pub const OWN_LEASE_SECONDS: i64 = 600;
/// Matches the server's own pool claims at once (their results are
/// committed together): a commit of SQLite's (`synchronous = FULL`) costs
/// about as much as a batch of short matches.
pub const OWN_BATCH: usize = 48;
/// The worker id the server's own pool leases under.
pub const OWN: i64 = 0;
/// Past matches the scheduler reads to avoid rematches.
const RECENT: i64 = 200;

/// A course-wide switch.
pub const PSEUDONYMS: &str = "pseudonyms";
/// A course-wide switch: no new ladder matches.
pub const FROZEN: &str = "frozen";

/// One row of the leaderboard.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Row {
    /// The rank (1 = best).
    pub rank: usize,
    /// The ranks its interval allows: best and worst (equal when no one is within noise).
    pub ranks: [usize; 2],
    /// `s<submission id>` or `house:<name>`.
    pub key: String,
    /// The student's database id; none for a house bot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub person: Option<i64>,
    /// The name shown (a pseudonym when the teacher hides names).
    pub name: String,
    /// The student's own name (the teacher always sees it).
    #[serde(skip)]
    pub real_name: String,
    /// The rating (Elo scale, the ladder's mean 1500).
    pub rating: f64,
    /// Its 95% interval.
    pub interval: [f64; 2],
    /// Games played by this version on the ladder.
    pub games: u32,
    /// Games won, drawn and lost (at a table: first, between, last).
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
    /// The version on the ladder; none for a house bot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
    /// When that version was submitted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submitted: Option<String>,
    /// A house bot.
    pub house: bool,
}

/// The leaderboard as last fitted.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Board {
    /// Best first.
    pub rows: Vec<Row>,
    /// Ladder matches whose games count (among the current versions).
    pub matches: usize,
    /// Their games.
    pub games: usize,
    /// When it was fitted.
    pub fitted_at: String,
    /// Names are hidden.
    pub pseudonyms: bool,
    /// No new matches.
    pub frozen: bool,
    /// Counts the fits: a page rendered from one board is rendered once.
    pub serial: u64,
}

/// An entrant now on the ladder.
#[derive(Debug, Clone)]
struct Current {
    key: String,
    person: Option<i64>,
    name: String,
    version: Option<i64>,
    submitted: Option<String>,
    id: i64,
}

/// A finished match, as the ladder keeps it in memory.
#[derive(Debug, Clone)]
pub struct Done {
    /// The match's id.
    pub id: i64,
    /// Its entrants' keys.
    pub keys: Vec<String>,
    /// What it gave.
    pub outcome: Outcome,
    /// When it finished.
    pub finished_at: String,
}

/// One course's ladder.
pub struct Ladder {
    db: Db,
    course: Arc<Course>,
    /// The server's own player (also used to check workers).
    pub player: Arc<Player>,
    table: usize,
    anchors: Vec<String>,
    seed: u64,
    games: usize,
    board: RwLock<Arc<Board>>,
    done: Mutex<BTreeMap<i64, Arc<Done>>>,
    /// When the finished matches were last read in full from the database
    /// (results taken here are added as they come; others' every [`RECOUNT`]).
    reread: Mutex<Option<std::time::Instant>>,
    /// When the standings were last written to the database.
    kept: Mutex<Option<std::time::Instant>>,
    /// When lapsed leases were last given back.
    expired: Mutex<Option<std::time::Instant>>,
    /// Counts the workers disabled: a result taken before one was disabled
    /// is not counted after its matches were sent back.
    generation: std::sync::atomic::AtomicU64,
    /// When the scheduler last read the versions and topped the queue up.
    scheduled: Mutex<Option<std::time::Instant>>,
    changed: broadcast::Sender<()>,
    /// Matches were queued or results arrived.
    pub wake: Arc<Notify>,
    refit: Arc<Notify>,
    /// A result was taken: the scheduler tops the queue up.
    taken: Arc<Notify>,
    /// External workers' threads, by worker id, with when each was last heard of.
    remote: Mutex<HashMap<i64, (usize, std::time::Instant)>>,
    /// Games of each version when its standing was last written to the database.
    written: Mutex<HashMap<String, u32>>,
    /// The leaderboard's HTML for students and for the teacher, with the serial of the board it shows.
    pub rendered: Mutex<[(u64, Arc<str>); 2]>,
    /// The final tournament: running, and what its last run said.
    pub tournament: Mutex<(bool, Option<String>)>,
    /// Each submission's SHA-256, which never changes once accepted: read
    /// from the database once, not twice for every match handed out.
    shas: Mutex<HashMap<i64, String>>,
    /// Matches of each entrant, counted from the rows read so far.
    counted: Mutex<Counted>,
}

/// The scheduler's count of matches per entrant, kept up to date by reading
/// only the rows added since (every server's); read in full again now and
/// then, which also takes in rows another server dropped or committed late.
#[derive(Default)]
struct Counted {
    /// The highest row id read.
    last: i64,
    /// Matches per entrant key.
    counts: HashMap<String, u64>,
    /// When the counts were last read in full.
    full: Option<std::time::Instant>,
}

/// Whether `at` was never marked or was marked more than `every` ago.
fn elapsed(at: &Mutex<Option<Instant>>, every: Duration) -> bool {
    at.lock().map_or(true, |t| t.is_none_or(|t| t.elapsed() > every))
}

/// Mark `at` now.
fn mark(at: &Mutex<Option<Instant>>) {
    if let Ok(mut t) = at.lock() {
        *t = Some(Instant::now());
    }
}

/// A throttle's turn: whether `every` has passed since `at` was marked, and if so mark it.
fn turn(at: &Mutex<Option<Instant>>, every: Duration) -> bool {
    let Ok(mut t) = at.lock() else { return true };
    let due = t.is_none_or(|t| t.elapsed() > every);
    if due {
        *t = Some(Instant::now());
    }
    due
}

/// How long counts read row by row are trusted before a full read.
const RECOUNT: std::time::Duration = std::time::Duration::from_secs(60);
/// How often the fitted standings are written to each version's history.
const KEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

/// A lease on some matches.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Lease {
    /// Its secret: only its holder's results are taken.
    pub lease: String,
    /// The matches.
    pub matches: Vec<Job>,
}

/// Why a result was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Untaken {
    /// The lease expired or its result already came.
    NotLeased,
    /// It does not fit the match.
    Malformed(String),
}

impl Ladder {
    /// The ladder of `course`, graded with `grading`, on `db`.
    pub async fn new(db: Db, course: Arc<Course>, grading: &Grading) -> Result<Ladder, String> {
        let game = grading.game;
        let player = Player::new(game, &grading.settings, grading.rubric.illegal)?;
        let table = match game.kind() {
            Kind::Table => (course.config.ladder.table as usize).clamp(*game.seats().start(), *game.seats().end()),
            _ => 2,
        };
        let mut anchors: Vec<String> = Vec::new();
        for item in &grading.rubric.items {
            for a in &item.against {
                let key = if a.starts_with("house:") {
                    a.clone()
                } else {
                    format!("house:{a}")
                };
                if !anchors.contains(&key) {
                    anchors.push(key);
                }
            }
        }
        let per = arena_runner::runner::seat_orders(if game.kind() == Kind::Solitaire { 2 } else { table });
        let games = arena_runner::runner::whole_rotations((course.config.ladder.games as usize).max(1), table).max(per);
        // A server killed mid-match gives its own leases back.
        sqlx::query(
            "UPDATE ladder_matches SET state = 'queued', lease = NULL WHERE state = 'leased' AND worker_id = $1",
        )
        .bind(OWN)
        .execute(&db.pool)
        .await
        .map_err(|e| e.to_string())?;
        let (changed, _) = broadcast::channel(16);
        Ok(Ladder {
            db,
            seed: derive_seed(grading.rubric.seed, 0x6c61_6464_6572),
            course,
            player: Arc::new(player),
            table,
            anchors,
            games,
            board: RwLock::new(Arc::new(Board::default())),
            done: Mutex::new(BTreeMap::new()),
            reread: Mutex::new(None),
            kept: Mutex::new(None),
            expired: Mutex::new(None),
            generation: std::sync::atomic::AtomicU64::new(0),
            scheduled: Mutex::new(None),
            changed,
            wake: Arc::new(Notify::new()),
            refit: Arc::new(Notify::new()),
            taken: Arc::new(Notify::new()),
            remote: Mutex::new(HashMap::new()),
            written: Mutex::new(HashMap::new()),
            rendered: Mutex::new([(0, Arc::from("")), (0, Arc::from(""))]),
            tournament: Mutex::new((false, None)),
            shas: Mutex::new(HashMap::new()),
            counted: Mutex::new(Counted::default()),
        })
    }

    /// The leaderboard as last fitted.
    pub fn board(&self) -> Arc<Board> {
        self.board.read().map(|b| b.clone()).unwrap_or_default()
    }

    /// Told each time the leaderboard is fitted again.
    pub fn subscribe(&self) -> broadcast::Receiver<()> {
        self.changed.subscribe()
    }

    /// The finished matches of the current versions and house bots that involve `key`, newest first.
    pub fn matches_of(&self, key: &str, limit: usize) -> Vec<Arc<Done>> {
        let done = self.done.lock().map(|d| {
            d.values()
                .rev()
                .filter(|m| m.keys.iter().any(|k| k == key))
                .take(limit)
                .cloned()
                .collect()
        });
        done.unwrap_or_default()
    }

    /// A finished match by id.
    pub fn finished(&self, id: i64) -> Option<Arc<Done>> {
        self.done.lock().ok()?.get(&id).cloned()
    }

    /// Where a version's file is kept.
    pub fn file(&self, sha256: &str) -> Option<PathBuf> {
        if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let path = self.course.file_path(sha256);
        path.is_file().then_some(path)
    }

    /// A course-wide switch.
    pub async fn setting(&self, name: &str) -> bool {
        sqlx::query("SELECT value FROM settings WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.db.pool)
            .await
            .ok()
            .flatten()
            .and_then(|r| r.try_get::<String, _>(0).ok())
            .is_some_and(|v| v == "on")
    }

    /// Set a course-wide switch, then fit again (names or the freeze show on the board).
    pub async fn set(&self, name: &str, on: bool) -> Result<(), String> {
        sqlx::query(
            "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        )
        .bind(name)
        .bind(if on { "on" } else { "off" })
        .execute(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        self.refit.notify_one();
        self.wake.notify_waiters();
        Ok(())
    }

    /// The entrants now on the ladder: each student's version that counts
    /// (the one chosen, else the newest accepted), then the anchors.
    async fn current(&self) -> Result<Vec<Current>, String> {
        let rows = sqlx::query(
            "SELECT p.id, p.name, p.counted, s.id, s.version, s.submitted_at, s.sha256 FROM submissions s \
             JOIN people p ON p.id = s.person_id \
             WHERE s.state = 'accepted' AND p.removed = FALSE AND p.is_teacher = FALSE ORDER BY p.id, s.version",
        )
        .fetch_all(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        let mut by_person: BTreeMap<i64, (Option<i64>, Vec<Current>)> = BTreeMap::new();
        for r in &rows {
            let person: i64 = r.try_get(0).unwrap_or_default();
            let id: i64 = r.try_get(3).unwrap_or_default();
            let entry = by_person
                .entry(person)
                .or_insert_with(|| (r.try_get(2).ok().flatten(), Vec::new()));
            entry.1.push(Current {
                key: format!("s{id}"),
                person: Some(person),
                name: r.try_get(1).unwrap_or_default(),
                version: r.try_get(4).ok(),
                submitted: r.try_get(5).ok(),
                id,
            });
        }
        // Versions come oldest first: the chosen one if it was accepted, else the newest.
        let by_person: BTreeMap<i64, Current> = by_person
            .into_iter()
            .filter_map(|(p, (chosen, mut versions))| {
                let at = chosen
                    .and_then(|c| versions.iter().position(|v| v.version == Some(c)))
                    .unwrap_or(versions.len().checked_sub(1)?);
                Some((p, versions.swap_remove(at)))
            })
            .collect();
        let mut out: Vec<Current> = by_person.into_values().collect();
        for (i, a) in self.anchors.iter().enumerate() {
            out.push(Current {
                key: a.clone(),
                person: None,
                name: a.clone(),
                version: None,
                submitted: None,
                id: -1 - i as i64,
            });
        }
        Ok(out)
    }

    /// Queue matches until `ahead` wait: each pairing as the matchmaker
    /// picks it, a new version's first matches before the rest. Queued
    /// matches of versions no longer on the ladder are dropped.
    pub async fn schedule(&self, ahead: usize) -> Result<usize, String> {
        if self.setting(FROZEN).await {
            return Ok(0);
        }
        // While half the queue still waits, a count is all a round reads
        // (the versions, counts and pairings are read when it tops up, and
        // every 2 s, which also drops matches of replaced versions).
        let waiting: i64 = sqlx::query("SELECT COUNT(*) FROM ladder_matches WHERE state = 'queued'")
            .fetch_one(&self.db.pool)
            .await
            .and_then(|r| r.try_get(0))
            .map_err(|e| e.to_string())?;
        if usize::try_from(waiting).unwrap_or(0) >= ahead / 2 && !elapsed(&self.scheduled, Duration::from_secs(2)) {
            return Ok(0);
        }
        mark(&self.scheduled);
        let current = self.current().await?;
        let keys: HashMap<&str, usize> = current.iter().enumerate().map(|(i, c)| (c.key.as_str(), i)).collect();
        let waiting = sqlx::query("SELECT id, entrants FROM ladder_matches WHERE state = 'queued'")
            .fetch_all(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
        let mut queued = 0usize;
        for r in &waiting {
            let entrants: String = r.try_get(1).unwrap_or_default();
            if entrants.split(',').all(|k| keys.contains_key(k)) {
                queued += 1;
            } else {
                let id: i64 = r.try_get(0).unwrap_or_default();
                let gone = sqlx::query("DELETE FROM ladder_matches WHERE id = $1 AND state = 'queued'")
                    .bind(id)
                    .execute(&self.db.pool)
                    .await
                    .is_ok_and(|d| d.rows_affected() == 1);
                // A dropped match no longer counts for its entrants.
                if let (true, Ok(mut c)) = (gone, self.counted.lock())
                    && id <= c.last
                {
                    for k in entrants.split(',') {
                        if let Some(n) = c.counts.get_mut(k) {
                            *n = n.saturating_sub(1);
                        }
                    }
                }
            }
        }
        if queued >= ahead || current.iter().filter(|c| c.person.is_some()).count() == 0 {
            return Ok(0);
        }
        // Matches so far of each current entrant, and the recent pairings.
        let counts = self.match_counts().await?;
        let count: Vec<u64> = current
            .iter()
            .map(|c| counts.get(&c.key).copied().unwrap_or(0))
            .collect();
        let recent_rows = sqlx::query("SELECT entrants FROM ladder_matches ORDER BY id DESC LIMIT $1")
            .bind(RECENT)
            .fetch_all(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
        let mut recent: Vec<Vec<i64>> = recent_rows
            .iter()
            .rev()
            .map(|r| {
                let e: String = r.try_get(0).unwrap_or_default();
                e.split(',')
                    .filter_map(|k| keys.get(k).map(|&i| current[i].id))
                    .collect()
            })
            .collect();
        let board = self.board();
        let rated: HashMap<&str, (f64, f64)> = board
            .rows
            .iter()
            .map(|r| (r.key.as_str(), (r.rating, (r.interval[1] - r.interval[0]) / 3.92)))
            .collect();
        let mut seeded: Vec<Seeded> = current
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let (rating, se) = rated.get(c.key.as_str()).copied().unwrap_or((1500.0, 350.0));
                Seeded {
                    id: c.id,
                    matches: count[i],
                    rating,
                    se,
                    since: c.id.max(0),
                    anchor: c.person.is_none(),
                }
            })
            .collect();
        let mut made = 0;
        let at = stamp(now());
        // One transaction for the batch: one commit, not one per match.
        let mut tx = self.db.pool.begin().await.map_err(|e| e.to_string())?;
        while queued + made < ahead {
            let Some(pick) = next(&seeded, &recent, self.table) else {
                break;
            };
            let priority = i64::from(seeded[pick[0]].matches == 0);
            let entrants: Vec<&str> = pick.iter().map(|&i| current[i].key.as_str()).collect();
            sqlx::query(
                "INSERT INTO ladder_matches (entrants, games, priority, state, created_at) VALUES ($1, $2, $3, 'queued', $4)",
            )
            .bind(entrants.join(","))
            .bind(self.games as i64)
            .bind(priority)
            .bind(&at)
            .execute(&mut *tx)
            .await
            .map_err(|e| e.to_string())?;
            for &i in &pick {
                seeded[i].matches += 1;
            }
            recent.push(pick.iter().map(|&i| seeded[i].id).collect());
            made += 1;
        }
        tx.commit().await.map_err(|e| e.to_string())?;
        if made > 0 {
            self.wake.notify_waiters();
        }
        Ok(made)
    }

    /// Lease up to `max` waiting matches to `worker` ([`OWN`] for this
    /// server's pool) for `seconds`. Leases that ran out are given back first.
    pub async fn claim(&self, worker: i64, max: usize, seconds: i64) -> Result<Lease, String> {
        let at = now();
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
            sqlx::query(
                "UPDATE ladder_matches SET state = 'queued', lease = NULL, worker_id = NULL \
                 WHERE state = 'leased' AND lease_until < $1",
            )
            .bind(stamp(at))
            .execute(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
        }
        let lease = crate::db::new_token()?;
        let pick = match self.db.backend {
            Backend::Sqlite => {
                "SELECT id FROM ladder_matches WHERE state = 'queued' ORDER BY priority DESC, id LIMIT $4"
            }
            Backend::Postgres => {
                "SELECT id FROM ladder_matches WHERE state = 'queued' ORDER BY priority DESC, id LIMIT $4 \
                 FOR UPDATE SKIP LOCKED"
            }
        };
        let rows = sqlx::query(&format!(
            "UPDATE ladder_matches SET state = 'leased', worker_id = $1, lease = $2, lease_until = $3, \
             attempts = attempts + 1 WHERE id IN ({pick}) RETURNING id, entrants, games"
        ))
        .bind(worker)
        .bind(&lease)
        .bind(stamp(at + time::Duration::seconds(seconds)))
        .bind(max.max(1) as i64)
        .fetch_all(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        let mut matches = self.jobs(&rows).await?;
        matches.sort_by_key(|j| j.id);
        Ok(Lease { lease, matches })
    }

    async fn job(&self, id: i64, entrants: &str, games: i64) -> Result<Job, String> {
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
    async fn sha_of(&self, id: i64) -> Result<Option<String>, String> {
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

    /// Matches per entrant key, every row counted once: only the rows added
    /// since the last call are read, all of them once a [`RECOUNT`].
    async fn match_counts(&self) -> Result<HashMap<String, u64>, String> {
        let last = {
            let mut c = self.counted.lock().map_err(|e| e.to_string())?;
            if c.full.is_none_or(|t| t.elapsed() > RECOUNT) {
                *c = Counted {
                    full: Some(std::time::Instant::now()),
                    ..Counted::default()
                };
            }
            c.last
        };
        let rows = sqlx::query("SELECT id, entrants FROM ladder_matches WHERE id > $1 ORDER BY id")
            .bind(last)
            .fetch_all(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
        let mut c = self.counted.lock().map_err(|e| e.to_string())?;
        // Another call may have read these rows meanwhile: count each once.
        for r in &rows {
            let id: i64 = r.try_get(0).unwrap_or_default();
            if id <= c.last {
                continue;
            }
            c.last = id;
            let entrants: String = r.try_get(1).unwrap_or_default();
            for k in entrants.split(',') {
                *c.counts.entry(k.to_string()).or_default() += 1;
            }
        }
        Ok(c.counts.clone())
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

    /// Seconds an external worker's lease lasts without a heartbeat.
    pub fn lease_seconds(&self) -> i64 {
        i64::from(self.course.config.ladder.lease_seconds.max(2))
    }

    /// Keep a lease alive for another [`Ladder::lease_seconds`]; how many of its matches are still leased.
    pub async fn heartbeat(&self, worker: i64, lease: &str) -> Result<u64, String> {
        let done = sqlx::query(
            "UPDATE ladder_matches SET lease_until = $1 WHERE state = 'leased' AND worker_id = $2 AND lease = $3",
        )
        .bind(stamp(now() + time::Duration::seconds(self.lease_seconds())))
        .bind(worker)
        .bind(lease)
        .execute(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        Ok(done.rows_affected())
    }

    /// Take the result of match `job` from `worker` under `lease`. A
    /// result that comes twice, late, or from someone else is not taken; a
    /// worker's result waits in `checking` when it is one a server plays
    /// again, and counts once it matched.
    pub async fn finish(&self, worker: i64, lease: &str, job: &Job, outcome: &Outcome) -> Result<bool, Untaken> {
        let mut one = self
            .finish_many(worker, lease, &[(job, outcome)])
            .await
            .map_err(Untaken::Malformed)?;
        one.pop().unwrap_or(Err(Untaken::NotLeased)).map(|()| true)
    }

    /// [`Ladder::finish`] for a batch, in one transaction (one commit, not
    /// one per match): what became of each result, in order. A worker's
    /// results wait in `checking` when a server plays them again: all of a
    /// new worker's first ones, then a fixed share chosen by the match's id.
    pub async fn finish_many(
        &self,
        worker: i64,
        lease: &str,
        results: &[(&Job, &Outcome)],
    ) -> Result<Vec<Result<(), Untaken>>, String> {
        let config = &self.course.config.ladder;
        let generation = self.generation.load(std::sync::atomic::Ordering::SeqCst);
        let before: i64 = if worker == OWN {
            0
        } else {
            sqlx::query("SELECT matches FROM workers WHERE id = $1")
                .bind(worker)
                .fetch_optional(&self.db.pool)
                .await
                .map_err(|e| e.to_string())?
                .and_then(|r| r.try_get(0).ok())
                .unwrap_or(0)
        };
        let at = stamp(now());
        let mut tx = self.db.pool.begin().await.map_err(|e| e.to_string())?;
        let (mut out, mut taken, mut checking) = (Vec::with_capacity(results.len()), 0i64, false);
        let mut counted = Vec::new();
        for (job, outcome) in results {
            if let Err(why) = check_shape(job, outcome) {
                out.push(Err(Untaken::Malformed(why)));
                continue;
            }
            let checked = worker != OWN
                && (before + taken < i64::from(config.verify_first)
                    || derive_seed(self.seed ^ 0x7665_7269_6679, job.id as u64) % 100
                        < u64::from(config.verify_percent));
            let text = serde_json::to_string(outcome).map_err(|e| e.to_string())?;
            let done = sqlx::query(
                "UPDATE ladder_matches SET state = $1, outcome = $2, finished_at = $3, played_by = $4, lease = NULL, \
                 lease_until = NULL WHERE id = $5 AND state = 'leased' AND worker_id = $4 AND lease = $6",
            )
            .bind(if checked { "checking" } else { "done" })
            .bind(&text)
            .bind(&at)
            .bind(worker)
            .bind(job.id)
            .bind(lease)
            .execute(&mut *tx)
            .await
            .map_err(|e| e.to_string())?;
            if done.rows_affected() == 1 {
                taken += 1;
                checking |= checked;
                if !checked {
                    counted.push((*job, *outcome));
                }
                out.push(Ok(()));
            } else {
                out.push(Err(Untaken::NotLeased));
            }
        }
        if worker != OWN && taken > 0 {
            sqlx::query("UPDATE workers SET matches = matches + $1, last_seen = $2 WHERE id = $3")
                .bind(taken)
                .bind(&at)
                .bind(worker)
                .execute(&mut *tx)
                .await
                .map_err(|e| e.to_string())?;
        }
        tx.commit().await.map_err(|e| e.to_string())?;
        for (job, outcome) in counted {
            self.count_done(job, outcome.clone(), &at, generation);
        }
        if taken > 0 {
            self.refit.notify_one();
            self.taken.notify_one();
        }
        if checking {
            self.wake.notify_waiters();
        }
        Ok(out)
    }

    /// Play one match with the server's own pool; whether there was one.
    pub async fn play_own(&self) -> bool {
        if self.check_one().await {
            return true;
        }
        let Ok(lease) = self.claim(OWN, OWN_BATCH, OWN_LEASE_SECONDS).await else {
            return false;
        };
        if lease.matches.is_empty() {
            return false;
        }
        let mut played = Vec::new();
        let outcomes = self.play_all(&lease.matches).await;
        for (job, outcome) in lease.matches.iter().zip(outcomes) {
            match outcome {
                Ok(o) => played.push((job, o)),
                Err(e) => {
                    eprintln!("arena serve: ladder match {} failed: {e}", job.id);
                    // The arena failed, not a bot (a forfeit is a result): give it back.
                    let _ = sqlx::query(
                        "UPDATE ladder_matches SET state = 'queued', lease = NULL WHERE id = $1 AND lease = $2",
                    )
                    .bind(job.id)
                    .bind(&lease.lease)
                    .execute(&self.db.pool)
                    .await;
                    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
                }
            }
        }
        let batch: Vec<(&Job, &Outcome)> = played.iter().map(|(j, o)| (*j, o)).collect();
        match self.finish_many(OWN, &lease.lease, &batch).await {
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

    /// Play `jobs` here one after another, off the async threads.
    async fn play_all(&self, jobs: &[Job]) -> Vec<Result<Outcome, String>> {
        let player = self.player.clone();
        let batch = jobs.to_vec();
        let course = self.course.clone();
        tokio::task::spawn_blocking(move || {
            let files = move |sha: &str| {
                let p = course.file_path(sha);
                p.is_file().then_some(p)
            };
            batch.iter().map(|job| player.play(job, &files)).collect()
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
        let at = now();
        let generation = self.generation.load(std::sync::atomic::Ordering::SeqCst);
        let lease = match crate::db::new_token() {
            Ok(l) => l,
            Err(_) => return false,
        };
        let pick = match self.db.backend {
            Backend::Sqlite => {
                "SELECT id FROM ladder_matches WHERE state = 'checking' AND (lease_until IS NULL OR lease_until < $2) \
                 ORDER BY id LIMIT 1"
            }
            Backend::Postgres => {
                "SELECT id FROM ladder_matches WHERE state = 'checking' AND (lease_until IS NULL OR lease_until < $2) \
                 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"
            }
        };
        let Ok(Some(row)) = sqlx::query(&format!(
            "UPDATE ladder_matches SET lease = $1, lease_until = $3 WHERE id = ({pick}) \
             RETURNING id, entrants, games, outcome, played_by"
        ))
        .bind(&lease)
        .bind(stamp(at))
        .bind(stamp(at + time::Duration::seconds(OWN_LEASE_SECONDS)))
        .fetch_optional(&self.db.pool)
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
            let confirmed = sqlx::query("UPDATE ladder_matches SET state = 'done', verified = 1, lease = NULL, lease_until = NULL WHERE id = $1 AND lease = $2")
                .bind(id)
                .bind(&lease)
                .execute(&self.db.pool)
                .await;
            if confirmed.is_ok_and(|d| d.rows_affected() == 1) {
                self.count_done(&job, mine, &stamp(now()), generation);
            }
            self.refit.notify_one();
        } else {
            let why = format!(
                "match {id} played again on the server gave another result: every result of this worker is discarded"
            );
            eprintln!("arena serve: worker {worker} disabled: {why}");
            let _ = self.disable(worker, &why).await;
        }
        true
    }

    /// Disable `worker` and send every match it played and every job it did back to the queue.
    pub async fn disable(&self, worker: i64, why: &str) -> Result<(), String> {
        let mut tx = self.db.pool.begin().await.map_err(|e| e.to_string())?;
        sqlx::query("UPDATE workers SET disabled_at = $1, reason = $2 WHERE id = $3")
            .bind(stamp(now()))
            .bind(why)
            .bind(worker)
            .execute(&mut *tx)
            .await
            .map_err(|e| e.to_string())?;
        sqlx::query(
            "UPDATE ladder_matches SET state = 'queued', outcome = NULL, finished_at = NULL, played_by = NULL, \
             verified = 0, lease = NULL, lease_until = NULL, worker_id = NULL WHERE played_by = $1 OR (worker_id = $1 AND state = 'leased')",
        )
        .bind(worker)
        .execute(&mut *tx)
        .await
        .map_err(|e| e.to_string())?;
        // Its verdicts too: every version it graded is graded again.
        sqlx::query(
            "UPDATE jobs SET state = 'queued', done_by = NULL, verified = 0, result = NULL, lease = NULL, \
             lease_until = NULL, worker_id = NULL WHERE done_by = $1 OR (worker_id = $1 AND state IN ('running', 'checking'))",
        )
        .bind(worker)
        .execute(&mut *tx)
        .await
        .map_err(|e| e.to_string())?;
        sqlx::query(
            "UPDATE submissions SET state = 'queued' WHERE id IN (SELECT submission_id FROM jobs WHERE kind = 'grade' AND state = 'queued')",
        )
        .execute(&mut *tx)
        .await
        .map_err(|e| e.to_string())?;
        tx.commit().await.map_err(|e| e.to_string())?;
        self.generation.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if let Ok(mut done) = self.done.lock() {
            done.clear();
        }
        if let Ok(mut r) = self.reread.lock() {
            *r = None;
        }
        self.refit.notify_one();
        self.wake.notify_waiters();
        Ok(())
    }

    /// Note that `worker` plays with `jobs` threads (the scheduler keeps enough matches queued for it).
    pub fn heard_from(&self, worker: i64, jobs: usize) {
        if let Ok(mut r) = self.remote.lock() {
            r.insert(worker, (jobs, std::time::Instant::now()));
        }
    }

    /// Matches to keep queued: about a second of play per thread that
    /// plays them (a 10-game match of compiled bots takes ~1 ms), so a
    /// thread finds matches waiting between two of the scheduler's rounds.
    fn ahead(&self, own: usize) -> usize {
        let remote: usize = self.remote.lock().map_or(0, |r| {
            r.values()
                .filter(|(_, t)| t.elapsed() < std::time::Duration::from_secs(120))
                .map(|(j, _)| *j)
                .sum()
        });
        128 * (own + remote).max(1)
    }

    /// A match whose result was just taken here counts at once, without
    /// reading it back from the database.
    fn count_done(&self, job: &Job, outcome: Outcome, at: &str, generation: u64) {
        let done = Done {
            id: job.id,
            keys: job.bots.iter().map(|b| b.key.clone()).collect(),
            outcome,
            finished_at: at.to_string(),
        };
        if let Ok(mut d) = self.done.lock()
            // A worker disabled meanwhile: its results were just sent back.
            && self.generation.load(std::sync::atomic::Ordering::SeqCst) == generation
        {
            d.insert(done.id, Arc::new(done));
        }
    }

    /// Read the finished matches from the database: the rows not read before
    /// are added and those no longer finished (a disabled worker's) dropped.
    /// Results taken by this server are counted as they come; this takes in
    /// those another server sharing the database took.
    async fn read_done(&self) -> Result<(), String> {
        let known: Vec<i64> = self
            .done
            .lock()
            .map(|d| d.keys().copied().collect())
            .unwrap_or_default();
        let ids = sqlx::query("SELECT id FROM ladder_matches WHERE state = 'done' ORDER BY id")
            .fetch_all(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
        let ids: Vec<i64> = ids.iter().filter_map(|r| r.try_get::<i64, _>(0).ok()).collect();
        let new: Vec<i64> = ids
            .iter()
            .copied()
            .filter(|id| known.binary_search(id).is_err())
            .collect();
        let mut fresh = Vec::new();
        for chunk in new.chunks(500) {
            let list: Vec<String> = chunk.iter().map(i64::to_string).collect();
            // Integers the database gave: no one's text reaches this statement.
            let rows = sqlx::query(&format!(
                "SELECT id, entrants, outcome, finished_at FROM ladder_matches WHERE state = 'done' AND id IN ({})",
                list.join(",")
            ))
            .fetch_all(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
            for r in &rows {
                let entrants: String = r.try_get(1).unwrap_or_default();
                let Some(outcome) = r
                    .try_get::<String, _>(2)
                    .ok()
                    .and_then(|t| serde_json::from_str::<Outcome>(&t).ok())
                else {
                    continue;
                };
                fresh.push(Done {
                    id: r.try_get(0).unwrap_or_default(),
                    keys: entrants.split(',').map(String::from).collect(),
                    outcome,
                    finished_at: r.try_get(3).unwrap_or_default(),
                });
            }
        }
        if let Ok(mut done) = self.done.lock() {
            // Only what was known before the read and is no longer finished
            // goes: a result counted while the ids were read stays.
            done.retain(|id, _| ids.binary_search(id).is_ok() || known.binary_search(id).is_err());
            for d in fresh {
                done.insert(d.id, Arc::new(d));
            }
        }
        Ok(())
    }

    /// Fit the ratings again from every finished match among the current versions.
    pub async fn fit_now(&self) -> Result<(), String> {
        if turn(&self.reread, RECOUNT)
            && let Err(e) = self.read_done().await
        {
            // Read in full again at the next fit, not a minute later.
            if let Ok(mut r) = self.reread.lock() {
                *r = None;
            }
            return Err(e);
        }
        let current = self.current().await?;
        let pseudonyms = self.setting(PSEUDONYMS).await;
        let frozen = self.setting(FROZEN).await;
        let table_game = self.table > 2;
        let done: Vec<Arc<Done>> = self
            .done
            .lock()
            .map(|d| d.values().cloned().collect())
            .unwrap_or_default();
        let mut board = tokio::task::spawn_blocking(move || standings(&current, &done, table_game, pseudonyms, frozen))
            .await
            .map_err(|e| e.to_string())?;
        board.serial = self.board().serial + 1;
        self.keep_standings(&board).await?;
        if let Ok(mut b) = self.board.write() {
            *b = Arc::new(board);
        }
        let _ = self.changed.send(());
        Ok(())
    }

    /// Write each student version's standing whose games changed, so it
    /// stays in the student's history after the version leaves the ladder.
    async fn keep_standings(&self, board: &Board) -> Result<(), String> {
        // Every 30 s is enough for a history of versions, and spares a
        // write per version at every fit while results pour in; a version's
        // first games are written at once.
        let due = board.frozen || elapsed(&self.kept, KEEP_EVERY);
        let changed: Vec<&Row> = {
            let Ok(written) = self.written.lock() else {
                return Ok(());
            };
            board
                .rows
                .iter()
                .filter(|r| r.person.is_some() && written.get(&r.key) != Some(&r.games))
                .filter(|r| due || written.get(&r.key).is_none_or(|&g| g == 0))
                .collect()
        };
        if due {
            mark(&self.kept);
        }
        if changed.is_empty() {
            return Ok(());
        }
        let mut tx = self.db.pool.begin().await.map_err(|e| e.to_string())?;
        for r in &changed {
            let Some(id) = r.key.strip_prefix('s').and_then(|n| n.parse::<i64>().ok()) else {
                continue;
            };
            let json = serde_json::json!({
                "rating": r.rating, "interval": r.interval, "games": r.games,
                "wins": r.wins, "draws": r.draws, "losses": r.losses,
            });
            sqlx::query("UPDATE submissions SET ladder_json = $1 WHERE id = $2")
                .bind(json.to_string())
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(|e| e.to_string())?;
        }
        tx.commit().await.map_err(|e| e.to_string())?;
        if let Ok(mut written) = self.written.lock() {
            for r in changed {
                written.insert(r.key.clone(), r.games);
            }
        }
        Ok(())
    }

    /// A student's versions on the ladder, oldest first: the version and its
    /// standing (rating, 95% interval, games) when last fitted.
    pub async fn history(&self, person: i64) -> Result<Vec<(i64, f64, [f64; 2], u64)>, String> {
        let rows = sqlx::query(
            "SELECT version, ladder_json FROM submissions WHERE person_id = $1 AND ladder_json IS NOT NULL ORDER BY version",
        )
        .bind(person)
        .fetch_all(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                let v: i64 = r.try_get(0).ok()?;
                let j: serde_json::Value = serde_json::from_str(&r.try_get::<String, _>(1).ok()?).ok()?;
                Some((
                    v,
                    j["rating"].as_f64()?,
                    [j["interval"][0].as_f64()?, j["interval"][1].as_f64()?],
                    j["games"].as_u64()?,
                ))
            })
            .collect())
    }

    /// Run the scheduler and the fitter for as long as the server runs;
    /// `own` is the server's own pool (its threads count for how many matches to keep queued).
    pub fn start(self: &Arc<Self>, own: usize) {
        let me = self.clone();
        tokio::spawn(async move {
            loop {
                if let Err(e) = me.schedule(me.ahead(own)).await {
                    eprintln!("arena serve: the ladder cannot queue matches ({e})");
                }
                // Results come in bursts: top up a few times a second, not once per result.
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                let _ = tokio::time::timeout(std::time::Duration::from_secs(1), me.taken.notified()).await;
            }
        });
        let me = self.clone();
        tokio::spawn(async move {
            loop {
                if let Err(e) = me.fit_now().await {
                    eprintln!("arena serve: the ladder cannot fit its ratings ({e})");
                }
                // At most one fit every 2 seconds, however fast results come:
                // each fit sends every open leaderboard to fetch the table again.
                tokio::time::sleep(std::time::Duration::from_secs(2)).await;
                let _ = tokio::time::timeout(std::time::Duration::from_secs(30), me.refit.notified()).await;
            }
        });
    }

    /// The name a student goes by on the ladder when names are hidden.
    pub fn pseudonym(person: i64) -> String {
        pseudonym(person)
    }

    /// The worker whose token this is, if it is not disabled; or why not.
    pub async fn worker(&self, token: &str) -> Result<Option<(i64, Option<String>)>, String> {
        let row = sqlx::query("SELECT id, reason, disabled_at FROM workers WHERE token_hash = $1")
            .bind(crate::db::token_hash(token))
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

    /// Record what a worker says it runs.
    pub async fn hello(&self, worker: i64, engine: &str) -> Result<(), String> {
        sqlx::query("UPDATE workers SET engine = $1, last_seen = $2 WHERE id = $3")
            .bind(engine)
            .bind(stamp(now()))
            .bind(worker)
            .execute(&self.db.pool)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// Matches by state, for the teacher and the tests.
    pub async fn counts(&self) -> Result<BTreeMap<String, i64>, String> {
        let rows = sqlx::query("SELECT state, COUNT(*) FROM ladder_matches GROUP BY state")
            .fetch_all(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
        Ok(rows
            .iter()
            .map(|r| (r.try_get(0).unwrap_or_default(), r.try_get(1).unwrap_or_default()))
            .collect())
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

/// The leaderboard of `current` from the finished matches `done`.
fn standings(current: &[Current], done: &[Arc<Done>], table_game: bool, pseudonyms: bool, frozen: bool) -> Board {
    let index: HashMap<&str, usize> = current.iter().enumerate().map(|(i, c)| (c.key.as_str(), i)).collect();
    // The fit needs only how often each outcome happened: a ladder's many
    // games collapse into a count per pairing and result (or finishing order).
    let mut counts: BTreeMap<(Vec<usize>, u8), u32> = BTreeMap::new();
    let mut records = vec![[0u32; 3]; current.len()];
    let mut played = vec![0u32; current.len()];
    let (mut matches, mut total) = (0, 0);
    for d in done {
        let Some(map) = d
            .keys
            .iter()
            .map(|k| index.get(k.as_str()).copied())
            .collect::<Option<Vec<usize>>>()
        else {
            continue;
        };
        matches += 1;
        total += d.outcome.games.len();
        for (e, r) in d.outcome.records(map.len()).iter().enumerate() {
            for k in 0..3 {
                records[map[e]][k] += r[k];
            }
        }
        for g in &d.outcome.games {
            for &e in &g.seats {
                played[map[e]] += 1;
            }
            match &g.positions {
                Some(p) if table_game => {
                    let mut order: Vec<usize> = (0..g.seats.len()).collect();
                    order.sort_by_key(|&s| p.get(s).copied().unwrap_or(u32::MAX));
                    *counts
                        .entry((order.iter().map(|&s| map[g.seats[s]]).collect(), 3))
                        .or_default() += 1;
                }
                _ if g.seats.len() == 2 => {
                    let halves = match g.winner {
                        Some(0) => 2,
                        Some(_) => 0,
                        None => 1,
                    };
                    *counts
                        .entry((vec![map[g.seats[0]], map[g.seats[1]]], halves))
                        .or_default() += 1;
                }
                _ => {}
            }
        }
    }
    let games: Vec<(FitGame, u32)> = counts
        .into_iter()
        .map(|((seats, halves), n)| {
            let g = match halves {
                3 => FitGame::Order(seats),
                h => FitGame::Duel {
                    a: seats[0],
                    b: seats[1],
                    score: f64::from(h) / 2.0,
                },
            };
            (g, n)
        })
        .collect();
    let counted: Vec<(&FitGame, u32)> = games.iter().map(|(g, n)| (g, *n)).collect();
    let fitted: Vec<Fitted> = fit_counted(current.len(), &counted, PRIOR_DRAWS);
    let mut order: Vec<usize> = (0..current.len()).collect();
    order.sort_by(|&a, &b| {
        fitted[b]
            .elo
            .partial_cmp(&fitted[a].elo)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(current[a].key.cmp(&current[b].key))
    });
    let rows = order
        .iter()
        .enumerate()
        .map(|(rank, &i)| {
            let f = fitted[i];
            // Certainly above: others whose whole interval is above this one's.
            let above = fitted.iter().filter(|o| o.low > f.high).count();
            let below = fitted.iter().filter(|o| o.high < f.low).count();
            let c = &current[i];
            Row {
                rank: rank + 1,
                ranks: [above + 1, current.len() - below],
                key: c.key.clone(),
                person: c.person,
                name: match c.person {
                    Some(p) if pseudonyms => pseudonym(p),
                    _ => c.name.clone(),
                },
                real_name: c.name.clone(),
                rating: f.elo,
                interval: [f.low, f.high],
                games: played[i],
                wins: records[i][0],
                draws: records[i][1],
                losses: records[i][2],
                version: c.version,
                submitted: c.submitted.clone(),
                house: c.person.is_none(),
            }
        })
        .collect();
    Board {
        rows,
        matches,
        games: total,
        fitted_at: stamp(now()),
        pseudonyms,
        frozen,
        serial: 0,
    }
}

/// A stable, friendly name for a student whose name is hidden.
pub fn pseudonym(person: i64) -> String {
    const ADJECTIVES: [&str; 16] = [
        "Amber", "Brisk", "Calm", "Daring", "Eager", "Fleet", "Gentle", "Hardy", "Keen", "Lucky", "Merry", "Nimble",
        "Quiet", "Rapid", "Steady", "Witty",
    ];
    const ANIMALS: [&str; 16] = [
        "Badger", "Crane", "Dolphin", "Falcon", "Gecko", "Heron", "Ibex", "Jackal", "Koala", "Lynx", "Marten", "Newt",
        "Otter", "Puffin", "Raven", "Stoat",
    ];
    let h = derive_seed(0x7073_6575_646f, person as u64);
    format!(
        "{} {} {}",
        ADJECTIVES[(h % 16) as usize],
        ANIMALS[((h >> 8) % 16) as usize],
        person
    )
}

/// Where the final tournament's report is written, in the course folder.
pub const TOURNAMENT_DIR: &str = "tournament";

impl Ladder {
    /// Where the final tournament's report is (its `index.html` and replays).
    pub fn tournament_dir(&self) -> PathBuf {
        self.course.dir.join("pages").join(TOURNAMENT_DIR)
    }

    /// Start the final tournament of the students' current versions in
    /// `format` with `games` per match, in the background: its report
    /// replaces the last one when it is done. An error when one is running
    /// or fewer than two students have a version on the ladder.
    pub async fn start_tournament(
        self: &Arc<Self>,
        grading: Arc<Grading>,
        format: arena_competition::tournament::Format,
        games: usize,
    ) -> Result<(), String> {
        let current: Vec<Current> = self
            .current()
            .await?
            .into_iter()
            .filter(|c| c.person.is_some())
            .collect();
        if current.len() < 2 {
            return Err(format!(
                "a tournament needs at least two students with an accepted version; the ladder has {}",
                current.len()
            ));
        }
        let pseudonyms = self.setting(PSEUDONYMS).await;
        let mut contestants = Vec::new();
        for c in &current {
            let Some(id) = c.key.strip_prefix('s').and_then(|n| n.parse::<i64>().ok()) else {
                continue;
            };
            let Some(sha) = self.sha_of(id).await? else { continue };
            let name = match c.person {
                Some(p) if pseudonyms => pseudonym(p),
                _ => c.name.clone(),
            };
            contestants.push(arena_batch::contest::Contestant {
                bot: self.course.file_path(&sha).display().to_string(),
                student: Some(name),
            });
        }
        {
            let mut t = self.tournament.lock().map_err(|_| "the server failed".to_string())?;
            if t.0 {
                return Err("the final tournament is already running: wait for its report".into());
            }
            *t = (
                true,
                Some(format!(
                    "The final tournament of {} students is running...",
                    contestants.len()
                )),
            );
        }
        let me = self.clone();
        let out = self.tournament_dir();
        let seed = derive_seed(self.seed, 0x746f_7572);
        tokio::task::spawn_blocking(move || {
            let said = run_tournament(&grading, contestants, format, games, seed, &out);
            if let Ok(mut t) = me.tournament.lock() {
                *t = (false, Some(said));
            }
        });
        Ok(())
    }
}

/// Play the final tournament into `out` (a fresh folder); what to tell the teacher.
fn run_tournament(
    grading: &Grading,
    contestants: Vec<arena_batch::contest::Contestant>,
    format: arena_competition::tournament::Format,
    games: usize,
    seed: u64,
    out: &std::path::Path,
) -> String {
    let run = || -> Result<String, String> {
        let _ = std::fs::remove_dir_all(out);
        std::fs::create_dir_all(out).map_err(|e| format!("{}: cannot create it ({e})", out.display()))?;
        let sandbox = grading.settings.sandbox(grading.game).map_err(|e| format!("{e:#}"))?;
        let job = arena_batch::contest::ContestJob {
            game: grading.game,
            setup: arena_runner::runner::GameSetup {
                illegal: grading.rubric.illegal,
                ..arena_runner::runner::GameSetup::new(&sandbox)
            },
            sandbox: &sandbox,
            contestants,
            without: Vec::new(),
            format,
            games,
            rounds: None,
            seeding: arena_competition::tournament::Seeding::RoundRobin,
            seed,
            out: Some(out),
            stop: Default::default(),
            progress: false,
            note: &|_| {},
            elsewhere: None,
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(grading.settings.jobs.unwrap_or(2).max(1) as usize)
            .build()
            .map_err(|e| e.to_string())?;
        let outcome = arena_batch::contest::run(&job, &pool).map_err(|e| format!("{e:#}"))?;
        Ok(format!(
            "The final tournament ({}, {} games) is published: its report is below.",
            format.name(),
            outcome.report.games_played
        ))
    };
    run().unwrap_or_else(|e| format!("The final tournament could not run: {e}"))
}
