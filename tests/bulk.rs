//! Finished ladder matches written straight into a course's database, as
//! the server's own pool writes them, and what the server costs meanwhile:
//! shared by the million-match test (`compaction::`, issue 48) and the
//! semester benchmark (`semester`, issue 49). A million matches played, or
//! even taken through the worker API, would take hours in a debug build;
//! the rows are the same, and the fold and the deletion are the server's own.

use arena_server::db::Db;
use std::path::Path;

/// Rows per INSERT statement: one statement per thousand matches.
pub const ROWS: usize = 1_000;

/// Run a future to its end on a runtime of its own (the tests and benches are threads, not tasks).
pub fn block<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(f)
}

/// A small, fast, seeded generator (splitmix64): the results are the same every run.
pub struct Mix(pub u64);

impl Mix {
    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform number in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.bits() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A process's resident memory now and at its peak, in KiB (`VmRSS`, `VmHWM`).
pub fn memory(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// A course's SQLite database on disk: the file and its write-ahead log, in bytes.
pub fn db_bytes(dir: &Path) -> u64 {
    ["course.db", "course.db-wal"]
        .iter()
        .map(|f| std::fs::metadata(dir.join(f)).map_or(0, |m| m.len()))
        .sum()
}

/// One finished ladder match to insert.
pub struct Finished {
    /// Its entrants' keys, comma-separated in seat order (`s12,s40`).
    pub entrants: String,
    /// Games it played.
    pub games: u32,
    /// Its outcome as the server stores it (`{"games":[...],"fuel":[...]}`).
    pub outcome: String,
}

impl Finished {
    /// A duel of `games` (each a game's JSON) between `a` and `b`, with
    /// made-up fuel from `mix`.
    pub fn duel(mix: &mut Mix, a: &str, b: &str, games: &[String]) -> Finished {
        Finished {
            entrants: format!("{a},{b}"),
            games: games.len() as u32,
            outcome: format!(
                "{{\"games\":[{}],\"fuel\":[{},{}]}}",
                games.join(","),
                mix.bits() % 50_000_000,
                mix.bits() % 50_000_000
            ),
        }
    }
}

/// Insert `n` finished matches, each `next()`, [`ROWS`] to a statement, as
/// the server's pool writes a played match: done, unfolded, played by the
/// server (0), finished at `finished_at` (a time long past lets the server
/// delete the rows no page links as soon as it has folded them).
pub async fn insert_finished(db: &Db, n: usize, finished_at: &str, mut next: impl FnMut() -> Finished) {
    let mut left = n;
    while left > 0 {
        let rows = left.min(ROWS);
        let mut sql = String::from(
            "INSERT INTO ladder_matches (entrants, games, priority, state, attempts, created_at, finished_at, outcome, played_by, verified) VALUES ",
        );
        for r in 0..rows {
            let m = next();
            if r > 0 {
                sql.push(',');
            }
            // Keys and JSON the test made: no quote reaches the statement.
            sql.push_str(&format!(
                "('{}', {}, 0, 'done', 1, '{finished_at}', '{finished_at}', '{}', 0, 0)",
                m.entrants, m.games, m.outcome
            ));
        }
        // The server folds and prunes between the statements; on a busy
        // machine a fold can hold SQLite's write lock past the 10 s busy
        // timeout, and the rows then wait for the next try, as a worker's
        // result the server could not take is sent again (the million test
        // failed here once with every core busy).
        let mut tries = 0;
        loop {
            match sqlx::query(&sql).persistent(false).execute(&db.pool).await {
                Ok(_) => break,
                Err(e) if tries < 12 && e.to_string().contains("database is locked") => {
                    tries += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                }
                Err(e) => panic!("insert finished matches: {e}"),
            }
        }
        left -= rows;
    }
}
