//! A semester on one server (issue 49 item 5), compressed in time: a class
//! uploads its versions through the real upload and grading path, and the
//! ladder's work of each week reaches the server as finished matches among
//! the versions then current, inserted as its pool writes them
//! ([`crate::bulk`]; the ladder is frozen so every match is the run's);
//! the server folds them into counts and deletes the rows no page links.
//! At the end of each week: the database's size, the server's resident
//! memory, the latency of the pages a class opens (loaded from outside all
//! along) and the matches absorbed per second. `cargo bench -p arena-tests
//! --bench semester` runs it and prints the table docs/performance.md quotes.

use crate::bulk::{Finished, Mix, block, db_bytes, insert_finished, memory};
use crate::load::{Class, agent, class, graded, login, num, quantile, serve, upload};
use crate::root;
use arena_server::db::Db;
use arena_server::ladder::store::KEEP_NEWEST;
use sqlx::Row as _;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How big a semester.
#[derive(Debug, Clone)]
pub struct Semester {
    /// Students in the class.
    pub students: usize,
    /// Uploads in all, every student's first version included (made before the first week).
    pub uploads: usize,
    /// Ladder matches in all, spread evenly over the weeks.
    pub matches: usize,
    /// Weeks.
    pub weeks: usize,
    /// Matches inserted at once before the server is left to fold them.
    pub wave: usize,
    /// Stop inserting after this long (the week in course still ends and is measured).
    pub max_seconds: u64,
}

/// The server at one moment.
#[derive(Debug, Clone, Copy, Default)]
pub struct Snapshot {
    /// `course.db` and its `-wal`, bytes.
    pub db_bytes: u64,
    /// Resident memory now and at its peak, KiB.
    pub rss_kib: u64,
    /// Peak resident memory so far, KiB.
    pub hwm_kib: u64,
    /// Rows in `ladder_matches` (kept in full).
    pub kept: u64,
    /// Rows in `ladder_counts`.
    pub counts: u64,
    /// The uploaded files (`files/`), bytes.
    pub files_bytes: u64,
}

/// One week of the run (week 0: the first versions uploaded and graded).
#[derive(Debug, Clone, Default)]
pub struct Week {
    /// Its number.
    pub week: usize,
    /// Uploads made in it.
    pub uploads: usize,
    /// Matches inserted in it.
    pub matches: u64,
    /// Matches inserted up to its end.
    pub total: u64,
    /// Seconds its uploads took to be graded.
    pub grading_s: f64,
    /// Matches inserted and folded per second, its waits for the server included.
    pub matches_per_s: f64,
    /// Page latency while its matches arrived and were folded: p50, p99, max (ms).
    pub page_ms: [f64; 3],
    /// Pages loaded then.
    pub pages: usize,
    /// The page of the highest p99 then, and that p99 (ms).
    pub slowest: (String, f64),
    /// Page latency at its end, the server at rest: p50, p99, max (ms),
    /// [`QUIET_ROUNDS`] loads of each page.
    pub quiet_ms: [f64; 3],
    /// Page loads that failed (not 200), all along and at rest.
    pub errors: usize,
    /// The server at its end.
    pub end: Snapshot,
}

/// Loads of each page at a week's end, the server at rest.
pub const QUIET_ROUNDS: usize = 40;

/// Load `path` with `cookie`: the milliseconds it took, or `None` if it failed.
fn load(a: &ureq::Agent, base: &str, cookie: &str, path: &str) -> Option<f64> {
    let t = Instant::now();
    let mut r = a.get(&format!("{base}{path}")).header("Cookie", cookie).call().ok()?;
    let ok = r.status().as_u16() == 200 && r.body_mut().read_to_string().is_ok();
    ok.then(|| t.elapsed().as_secs_f64() * 1e3)
}

/// p50, p99 and max of samples.
fn spread(mut ms: Vec<f64>) -> [f64; 3] {
    ms.sort_by(f64::total_cmp);
    [
        quantile(&ms, 0.5),
        quantile(&ms, 0.99),
        ms.last().copied().unwrap_or(0.0),
    ]
}

/// The server's state now.
fn snapshot(class: &Class, pid: u32) -> Snapshot {
    let (rss_kib, hwm_kib) = memory(pid);
    Snapshot {
        db_bytes: db_bytes(&class.dir),
        rss_kib,
        hwm_kib,
        kept: num(&class.dir, "SELECT COUNT(*) FROM ladder_matches"),
        counts: num(&class.dir, "SELECT COUNT(*) FROM ladder_counts"),
        files_bytes: dir_bytes(&class.dir.join("files")),
    }
}

fn dir_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .map(|e| match e.metadata() {
                Ok(m) if m.is_dir() => dir_bytes(&e.path()),
                Ok(m) => m.len(),
                Err(_) => 0,
            })
            .sum()
    })
}

/// Each student's newest accepted version, as the ladder keys it (`s{id}`).
fn current_keys(url: &str) -> Vec<String> {
    block(async {
        let db = Db::connect(url).await.expect("the course's database");
        let keys = sqlx::query(
            "SELECT MAX(s.id) FROM submissions s JOIN people p ON p.id = s.person_id \
             WHERE s.state = 'accepted' AND p.is_teacher = FALSE GROUP BY s.person_id ORDER BY 1",
        )
        .fetch_all(&db.pool)
        .await
        .expect("the versions")
        .iter()
        .map(|r| format!("s{}", r.get::<i64, _>(0)))
        .collect();
        db.pool.close().await;
        keys
    })
}

/// A match of two games between two of `keys`, one deal from both seats,
/// won by the stronger more often (its strength from its key).
fn a_match(mix: &mut Mix, keys: &[String]) -> Finished {
    let n = keys.len() as u64;
    let a = (mix.bits() % n) as usize;
    let b = (a + 1 + (mix.bits() % (n - 1)) as usize) % keys.len();
    let elo = |k: &str| 1200.0 + (k.len() as f64 * 37.0 + k.bytes().map(f64::from).sum::<f64>()) % 600.0;
    let p = 1.0 / (1.0 + 10f64.powf((elo(&keys[b]) - elo(&keys[a])) / 400.0));
    let games: Vec<String> = [(0, 1, true), (1, 0, false)]
        .iter()
        .map(|&(seat0, seat1, first)| {
            let u = mix.unit();
            // a's result: a draw one game in ten.
            let a_won = u >= 0.1 && u < 0.1 + 0.9 * p;
            let winner = match (u < 0.1, a_won == first) {
                (true, _) => "null",
                (false, true) => "0",
                (false, false) => "1",
            };
            format!(
                "{{\"seats\":[{seat0},{seat1}],\"scores\":[{},{}],\"winner\":{winner}}}",
                mix.bits() % 12,
                mix.bits() % 12
            )
        })
        .collect();
    Finished::duel(mix, &keys[a], &keys[b], &games)
}

/// Run a semester of `s` in a fresh folder named after `name`; each week's
/// figures, week 0 (the first versions) first.
pub fn run(s: &Semester, name: &str) -> Vec<Week> {
    let started = Instant::now();
    let class = class(name, s.students);
    let url = format!("sqlite://{}", class.dir.join("course.db").display());
    // Frozen: the ladder plays nothing itself, so every match is the run's.
    block(async {
        let db = Db::connect(&url).await.expect("the course's database");
        sqlx::query("INSERT INTO settings (name, value) VALUES ('frozen', 'on')")
            .execute(&db.pool)
            .await
            .expect("freeze the ladder");
        db.pool.close().await;
    });
    let served = serve(&class.dir);
    let files: Vec<Vec<u8>> = ["en-garde/aggressive", "en-garde/random", "en-garde/cowardly"]
        .iter()
        // Built by name, as the bench's doc says: not every example bot (`crate::bot` builds all).
        .map(|b| {
            std::fs::read(root().join(format!("example-bots/wasm/{b}.wasm")))
                .unwrap_or_else(|e| panic!("{b}: {e} (example-bots/build.sh {b})"))
        })
        .collect();
    // Uploads: the n-th goes to student n mod class, alternating bots so
    // no version repeats the one before it.
    let mut uploaded = 0usize;
    let mut upload_some = |count: usize| -> f64 {
        let t = Instant::now();
        for _ in 0..count {
            let i = uploaded % s.students;
            let version = uploaded / s.students;
            let status = upload(&served.url, &class.tokens[i], &files[(i + version) % files.len()]);
            assert_eq!(status, 202, "upload {uploaded} (student {i})");
            uploaded += 1;
        }
        while !graded(&class.dir) {
            std::thread::sleep(Duration::from_millis(200));
        }
        t.elapsed().as_secs_f64()
    };
    let first = s.students.min(s.uploads);
    let grading0 = upload_some(first);

    // The pages a class opens, loaded from outside all along, each sample
    // filed under the week it was taken in.
    let week_now = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let resting = Arc::new(AtomicBool::new(false));
    // Per week, per page: the latencies; per week: the failures.
    type Samples = Vec<Mutex<(Vec<Vec<f64>>, usize)>>;
    let pid = num(
        &class.dir,
        "SELECT id FROM people WHERE is_teacher = 0 ORDER BY id LIMIT 1",
    );
    let student = login(&served.url, &class.tokens[0]);
    let teacher = login(&served.url, &class.teacher);
    let pages: Arc<Vec<(String, String)>> = Arc::new(vec![
        (student.clone(), "/".into()),
        (student.clone(), "/ladder".into()),
        (student.clone(), format!("/people/{pid}/versions/1")),
        (student.clone(), format!("/ladder/people/{pid}")),
        (teacher, "/".into()),
    ]);
    let names = ["student /", "/ladder", "version page", "/ladder/people", "teacher /"];
    let samples: Arc<Samples> = Arc::new(
        (0..=s.weeks)
            .map(|_| Mutex::new((vec![Vec::new(); pages.len()], 0)))
            .collect(),
    );
    let loader = {
        let (week_now, stop, resting, samples, pages, base) = (
            week_now.clone(),
            stop.clone(),
            resting.clone(),
            samples.clone(),
            pages.clone(),
            served.url.clone(),
        );
        std::thread::spawn(move || {
            let a = agent();
            let mut n = 0usize;
            while !stop.load(Ordering::Relaxed) {
                if resting.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(50));
                    continue;
                }
                let at = n % pages.len();
                n += 1;
                let (cookie, path) = &pages[at];
                let ms = load(&a, &base, cookie, path);
                if let Ok(mut w) = samples[week_now.load(Ordering::Relaxed)].lock() {
                    match ms {
                        Some(ms) => w.0[at].push(ms),
                        None => w.1 += 1,
                    }
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    // At rest: the loader paused, each page in turn.
    let quiet = || -> ([f64; 3], usize) {
        resting.store(true, Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(200));
        let a = agent();
        let (mut ms, mut failed) = (Vec::new(), 0);
        for _ in 0..QUIET_ROUNDS {
            for (cookie, path) in pages.iter() {
                match load(&a, &served.url, cookie, path) {
                    Some(t) => ms.push(t),
                    None => failed += 1,
                }
            }
        }
        resting.store(false, Ordering::Relaxed);
        (spread(ms), failed)
    };
    // The first fit over the first versions, then the baseline.
    std::thread::sleep(Duration::from_secs(5));
    let (quiet_ms, failed) = quiet();
    let mut weeks = vec![Week {
        uploads: first,
        grading_s: grading0,
        end: snapshot(&class, served.pid),
        quiet_ms,
        errors: failed,
        ..Week::default()
    }];

    let mut mix = Mix(49);
    let mut ever: BTreeSet<String> = BTreeSet::new();
    let extra = s.uploads.saturating_sub(first);
    let mut total = 0u64;
    for w in 1..=s.weeks {
        week_now.store(w, Ordering::Relaxed);
        let ups = extra * w / s.weeks - extra * (w - 1) / s.weeks;
        let grading_s = upload_some(ups);
        let keys = current_keys(&url);
        assert!(keys.len() >= 2, "fewer than two accepted versions: {keys:?}");
        ever.extend(keys.iter().cloned());
        let due = s.matches * w / s.weeks - s.matches * (w - 1) / s.weeks;
        let t = Instant::now();
        let mut done = 0usize;
        while done < due && started.elapsed() < Duration::from_secs(s.max_seconds) {
            let wave = s.wave.min(due - done);
            block(async {
                let db = Db::connect(&url).await.expect("the course's database");
                // Finished a day ago: no page opened since links them.
                insert_finished(&db, wave, "2026-11-27T00:00:01Z", || a_match(&mut mix, &keys)).await;
                db.pool.close().await;
            });
            done += wave;
            // The server folds the wave and deletes what no page links: each
            // version keeps its newest matches.
            let bound = (KEEP_NEWEST * ever.len()) as u64;
            let waited = Instant::now();
            while (num(&class.dir, "SELECT COUNT(*) FROM ladder_matches WHERE folded = 0") > 0
                || num(&class.dir, "SELECT COUNT(*) FROM ladder_matches") > bound)
                && waited.elapsed() < Duration::from_secs(600)
            {
                std::thread::sleep(Duration::from_millis(200));
            }
        }
        let seconds = t.elapsed().as_secs_f64();
        total += done as u64;
        let end = snapshot(&class, served.pid);
        let (quiet_ms, failed) = quiet();
        weeks.push(Week {
            quiet_ms,
            errors: failed,
            week: w,
            uploads: ups,
            matches: done as u64,
            total,
            grading_s,
            matches_per_s: done as f64 / seconds.max(1e-9),
            end,
            ..Week::default()
        });
        eprintln!("{:?}", weeks.last());
        if started.elapsed() >= Duration::from_secs(s.max_seconds) {
            eprintln!("stopped after week {w} of {}: {} s", s.weeks, s.max_seconds);
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let _ = loader.join();
    for week in &mut weeks {
        if let Ok(w) = samples[week.week].lock() {
            week.page_ms = spread(w.0.concat());
            week.pages = w.0.iter().map(Vec::len).sum();
            week.errors += w.1;
            week.slowest =
                w.0.iter()
                    .zip(names)
                    .map(|(ms, name)| (name.to_string(), spread(ms.clone())[1]))
                    .max_by(|a, b| a.1.total_cmp(&b.1))
                    .unwrap_or_default();
        }
    }
    weeks
}
