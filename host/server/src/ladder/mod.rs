//! The ladder: the version that counts of every student, with the house
//! bots as anchors, matched until every pairing has had its games
//! (`arena_competition::ladder` picks who plays whom), each match a
//! duplicate match played by the server's own pool or by an external
//! worker under a lease ([`crate::lease`]); ratings are fitted to every
//! game among the current versions at once, and a sample of every worker's
//! matches is played again here and compared, and every worker's results
//! are compared with the server's own ([`audit`]).
//!
//! By concern: [`schedule`] (which matches to queue), [`results`] (leasing
//! matches, taking and checking their results, the server's own play),
//! [`store`] (finished matches folded into [`counts`], the rows a page may
//! link kept, the rest deleted), [`standings`] (the rating
//! fit, the leaderboard and each version's history), [`tournament`] (the
//! final tournament); the types they share in [`types`].

use crate::course::Course;
use crate::db::{Db, Secret};
use crate::lease::{Leases, MATCHES};
use crate::play::Player;
use crate::work::Grading;
use crate::workers::Workers;
use arena_core::{Kind, derive_seed};
use counts::Counts;
use sqlx::Row as _;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, broadcast};
use types::{Counted, Current};

pub mod audit;
pub mod counts;
pub mod results;
pub mod schedule;
pub mod standings;
pub mod store;
pub mod tournament;
pub mod types;

pub use types::{Board, Row, Untaken};

/// How long the server's own pool holds a match (it plays at once; a
/// server killed mid-match gives it back when it starts again).
pub const OWN_LEASE_SECONDS: i64 = 600;

/// Matches the server's own pool claims at once (their results are
/// committed together): a commit of SQLite's (`synchronous = FULL`) costs
/// about as much as a batch of short matches.
pub const OWN_BATCH: usize = 48;

/// The worker id the server's own pool leases under.
pub const OWN: i64 = 0;

/// A course-wide switch.
pub const PSEUDONYMS: &str = "pseudonyms";

/// A course-wide switch: no new ladder matches.
pub const FROZEN: &str = "frozen";

/// How long counts read row by row are trusted before a full read.
const RECOUNT: std::time::Duration = std::time::Duration::from_secs(60);

/// How often the fitted standings are written to each version's history.
const KEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

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
    /// The finished matches among the entrants [`Ladder::on`] the ladder,
    /// folded: all the fit, the records and the statistics read, whatever
    /// the number of matches ever played.
    counts: Mutex<Counts>,
    /// The entrants whose counts are in memory.
    on: Mutex<std::collections::HashSet<String>>,
    /// One fit at a time on this server, held from its fold to the board
    /// it publishes (another server sharing the database folds other rows:
    /// a row is folded once), so the scheduler never reads rows folded
    /// into a board not yet published.
    folding: tokio::sync::Mutex<()>,
    /// Matches this server has folded: a board fitted after every fold
    /// has [`Board::through`] equal to it.
    folded: std::sync::atomic::AtomicU64,
    /// When the counts were last read in full from the database (what this
    /// server folds is added as it folds; another server's every [`RECOUNT`]).
    reread: Mutex<Option<std::time::Instant>>,
    /// When the rows no page can link were last deleted.
    pruned: Mutex<Option<std::time::Instant>>,
    /// When the standings were last written to the database.
    kept: Mutex<Option<std::time::Instant>>,
    /// When lapsed leases were last given back.
    expired: Mutex<Option<std::time::Instant>>,
    /// The course's secret (pseudonyms are drawn from it).
    secret: Secret,
    /// The external workers (a disabled one's results are sent back).
    workers: Arc<Workers>,
    /// The life cycle of the matches' leases.
    leases: Leases,
    /// The workers' generation the finished matches in memory reflect
    /// ([`Workers::generation`]): when it moves on, they are read again.
    seen: std::sync::atomic::AtomicU64,
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
    /// Every version has its matches: the scheduler queues none until one
    /// changes. Kept as the entrants it rested with, so a version accepted
    /// since is never told a rest the scheduler has not yet weighed it in.
    resting: Mutex<Option<Vec<String>>>,
    /// Workers the statistical check put in doubt, until it finds them unremarkable again.
    doubted: Mutex<std::collections::HashSet<i64>>,
    /// The versions replaced for good whose counts were deleted
    /// ([`Ladder::retire`]), and when the counts were last swept for all of them.
    retired: Mutex<(std::collections::HashSet<String>, Option<Instant>)>,
}

/// A course-wide switch, as the database has it (off unless set on).
async fn setting(db: &Db, name: &str) -> bool {
    sqlx::query("SELECT value FROM settings WHERE name = $1")
        .bind(name)
        .fetch_optional(&db.pool)
        .await
        .ok()
        .flatten()
        .and_then(|r| r.try_get::<String, _>(0).ok())
        .is_some_and(|v| v == "on")
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

impl Ladder {
    /// The ladder of `course`, graded with `grading`, on `db`, whose external workers are `workers`.
    pub async fn new(
        db: Db,
        course: Arc<Course>,
        grading: &Grading,
        workers: Arc<Workers>,
        secret: Secret,
    ) -> Result<Ladder, String> {
        let game = grading.game;
        let player = Player::new(game, &grading.settings, grading.rubric.illegal)?;
        let table = match game.kind() {
            Kind::Table => (course.config.ladder.table as usize).clamp(*game.seats().start(), *game.seats().end()),
            _ => 2,
        };
        let mut anchors: Vec<String> = Vec::new();
        // The rubric's house bots are the anchors: the opponents of a duel's
        // or a table's items, a solitaire's baselines.
        for item in &grading.rubric.items {
            for a in item.against.iter().chain(item.baseline.iter()) {
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
        // A server killed mid-match gives its leases back ([`Leases::recover`]).
        let leases = Leases::new(db.clone(), &MATCHES);
        leases.recover().await?;
        let (changed, _) = broadcast::channel(16);
        // The switches hold from the first page, before the first fit.
        let board = Board {
            pseudonyms: setting(&db, PSEUDONYMS).await,
            frozen: setting(&db, FROZEN).await,
            ..Board::default()
        };
        Ok(Ladder {
            secret,
            db,
            seed: derive_seed(grading.rubric.seed, 0x6c61_6464_6572),
            course,
            player: Arc::new(player),
            table,
            anchors,
            games,
            board: RwLock::new(Arc::new(board)),
            counts: Mutex::new(Counts::default()),
            on: Mutex::new(std::collections::HashSet::new()),
            folding: tokio::sync::Mutex::new(()),
            folded: std::sync::atomic::AtomicU64::new(0),
            reread: Mutex::new(None),
            pruned: Mutex::new(None),
            kept: Mutex::new(None),
            expired: Mutex::new(None),
            seen: std::sync::atomic::AtomicU64::new(workers.generation()),
            workers,
            leases,
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
            resting: Mutex::new(None),
            doubted: Mutex::new(std::collections::HashSet::new()),
            retired: Mutex::new((std::collections::HashSet::new(), None)),
        })
    }

    /// Games a match plays: `[ladder] games` rounded up to whole seat
    /// rotations (24 at a table of four: each deal from every seat order).
    pub fn games_per_match(&self) -> usize {
        self.games
    }

    /// Bots a match seats: 2, or `[ladder] table` at a table game.
    pub fn bots_per_match(&self) -> usize {
        self.table
    }

    /// Whether the ladder rests: every version on it has played its
    /// matches (`min_matches`, and an interval narrower than `rest_width`
    /// or `max_matches`), so no match is queued until a version changes.
    ///
    /// Only for the entrants it rested with: between a version's acceptance
    /// and the scheduler's next round the ladder has not rested for it (the
    /// page said "rests" there, and a moment later the new version's
    /// matches were queued).
    pub async fn resting(&self) -> bool {
        let Some(rested) = self.resting.lock().ok().and_then(|r| r.clone()) else {
            return false;
        };
        self.current()
            .await
            .is_ok_and(|now| now.iter().map(|c| c.key.as_str()).eq(rested.iter().map(String::as_str)))
    }

    /// The leaderboard as last fitted.
    pub fn board(&self) -> Arc<Board> {
        self.board.read().map(|b| b.clone()).unwrap_or_default()
    }

    /// Told each time the leaderboard is fitted again.
    pub fn subscribe(&self) -> broadcast::Receiver<()> {
        self.changed.subscribe()
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
        setting(&self.db, name).await
    }

    /// The name student `person` goes by on the ladder when names are hidden.
    pub fn pseudonym(&self, person: i64) -> String {
        types::pseudonym(&self.secret, person)
    }

    /// The address of student `person`'s ladder page, which tells no one who it is.
    pub fn page_of(&self, person: i64) -> String {
        format!("/ladder/people/{}", types::handle(&self.secret, person))
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

    /// Whether a finished match waits to be folded into the counts.
    async fn unfolded(&self) -> bool {
        sqlx::query("SELECT id FROM ladder_matches WHERE folded = 0 AND state = 'done' LIMIT 1")
            .fetch_optional(&self.db.pool)
            .await
            .is_ok_and(|r| r.is_some())
    }

    /// Seconds an external worker's lease lasts without a heartbeat.
    pub fn lease_seconds(&self) -> i64 {
        i64::from(self.course.config.ladder.lease_seconds.max(2))
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

    /// Note that `worker` plays with `jobs` threads (the scheduler keeps enough matches queued for it).
    pub fn heard_from(&self, worker: i64, jobs: usize) {
        if let Ok(mut r) = self.remote.lock() {
            r.insert(worker, (jobs, std::time::Instant::now()));
        }
    }

    /// Note that `worker` called the server just now (any call of the
    /// workers' API), so it counts as connected.
    pub fn seen(&self, worker: i64) {
        if let Ok(mut r) = self.remote.lock() {
            r.entry(worker).or_insert((0, std::time::Instant::now())).1 = std::time::Instant::now();
        }
    }

    /// External workers heard from in the last two minutes (an idle worker
    /// asks for work every few seconds).
    pub fn workers_connected(&self) -> usize {
        self.remote.lock().map_or(0, |r| {
            r.values()
                .filter(|(_, t)| t.elapsed() < std::time::Duration::from_secs(120))
                .count()
        })
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
                // A disabled worker's matches went back: fit without them at once.
                // Matches another server (or anyone) finished are folded
                // within seconds too: a look every 2 s costs one indexed read.
                let waited = Instant::now();
                loop {
                    tokio::select! {
                        _ = me.refit.notified() => break,
                        _ = me.workers.disabled.notified() => break,
                        _ = tokio::time::sleep(std::time::Duration::from_secs(2)) => {}
                    }
                    if waited.elapsed() > Duration::from_secs(30) || me.unfolded().await {
                        break;
                    }
                }
            }
        });
    }
}
