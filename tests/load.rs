//! The ladder under a class's load, on loopback: a course of students with
//! two versions each, ladder matches played by the server's own pool and by
//! external `arena worker` processes, and many open leaderboards following
//! the server-sent events as the page's script does. The CI test
//! (`ladder::the_ladder_under_load_loses_and_doubles_no_result`) runs it
//! small and checks what must hold; `cargo bench -p arena-tests --bench
//! ladder` runs it at the size and prints the figures
//! docs/performance.md quotes.

use crate::{arena, arena_bin, bot, temp};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How big a run.
#[derive(Debug, Clone)]
pub struct Load {
    /// Students, each with two versions.
    pub students: usize,
    /// Finished ladder matches to wait for.
    pub matches: usize,
    /// Open leaderboards.
    pub clients: usize,
    /// External workers (one thread each); the server's own pool has one more.
    pub workers: usize,
    /// Games per pairing of the `arena tournament` the throughput is compared with.
    pub tournament_games: usize,
    /// How many times that tournament is run; its median rate is the one compared
    /// (on a shared machine one run's rate moves by a third from run to run).
    pub tournament_runs: usize,
    /// Play on at least this long once every leaderboard is open, so the
    /// ladder's rate is measured over a steady stretch, not its first seconds.
    pub steady_seconds: u64,
    /// Stop after this long even if fewer matches finished.
    pub max_seconds: u64,
}

/// What a run measured.
#[derive(Debug, Clone, Default)]
pub struct LoadReport {
    /// Ladder matches finished when the run stopped.
    pub matches: u64,
    /// Their games.
    pub games: u64,
    /// Matches leased at least once that have no stored result after the drain.
    pub lost: u64,
    /// Results taken from workers beyond the matches they are stored for.
    pub doubled: i64,
    /// Matches played by external workers.
    pub by_workers: u64,
    /// Worker results played again on the server and found equal.
    pub verified: u64,
    /// Ladder games per second after grading finished.
    pub ladder_games_per_s: f64,
    /// `arena tournament` games per second on the same bots and cores: the median run.
    pub tournament_games_per_s: f64,
    /// Each run's games per second, in the order run.
    pub tournament_runs_per_s: Vec<f64>,
    /// The leaderboard page's latency: p50, p99, max (ms), and how many were fetched.
    pub page_ms: [f64; 3],
    /// Pages fetched.
    pub pages: usize,
    /// Events that brought the open leaderboards their new table.
    pub fragments: usize,
    /// The largest table an event brought (bytes).
    pub fragment_bytes: usize,
    /// Fewest "ladder" events any open leaderboard saw.
    pub fewest_events: usize,
    /// Failed requests (any status but 200, or no answer).
    pub errors: usize,
    /// The server's peak and final resident memory, MiB.
    pub rss_mib: [f64; 2],
    /// Seconds the whole run took.
    pub seconds: f64,
}

struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An HTTP client that returns every status and follows no redirect.
pub(crate) fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(600)))
        .build()
        .into()
}

fn sql(dir: &Path, query: &str) -> String {
    let out = Command::new(python())
        .args([
            "-c",
            "import sqlite3,sys; print(sqlite3.connect(sys.argv[1], timeout=30).execute(sys.argv[2]).fetchone()[0])",
            &dir.join("course.db").display().to_string(),
            query,
        ])
        .output()
        .expect("python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The Python interpreter itself, found once: a shim (pyenv's is a bash
/// script) run every couple of seconds costs the ladder measurably.
fn python() -> &'static str {
    static PYTHON: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PYTHON.get_or_init(|| {
        Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| "python3".into())
    })
}

/// A number the course's SQLite database answers to `query` (0 if none).
pub(crate) fn num(dir: &Path, query: &str) -> u64 {
    sql(dir, query).parse().unwrap_or(0)
}

/// A session cookie from a login link.
pub(crate) fn login(url: &str, token: &str) -> String {
    let r = agent().get(&format!("{url}/login/{token}")).call().expect("login");
    r.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|c| c.to_str().ok()?.split(';').next().map(String::from))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The `q` quantile of sorted samples (0 if none).
pub(crate) fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn memory(pid: u32) -> [f64; 2] {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kb = |key: &str| {
        status
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1024.0
    };
    [kb("VmHWM:"), kb("VmRSS:")]
}

/// A course made by `arena course init` with a roster of `students`
/// (`s0` to `s{n-1}`), set for load: uploads not limited, grading short
/// (20 games), no new-version tests, logins unlimited from one address.
pub struct Class {
    /// The course folder.
    pub dir: PathBuf,
    /// Each student's login token, in roster order.
    pub tokens: Vec<String>,
    /// The teacher's login token.
    pub teacher: String,
}

/// Make a [`Class`] of `students` in a fresh folder named after `name`.
pub fn class(name: &str, students: usize) -> Class {
    let dir = temp(name).join("course");
    let roster = dir.with_file_name("roster.csv");
    let mut csv = String::from("name,email,id\n");
    for i in 0..students {
        csv.push_str(&format!("Student {i},s{i}@uni.edu,s{i}\n"));
    }
    std::fs::write(&roster, csv).unwrap();
    let out = arena(&[
        "course",
        "init",
        &dir.display().to_string(),
        "--game",
        "en-garde",
        "--roster",
        &roster.display().to_string(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The server's load is measured: uploads are not limited, grading is short, no new-version tests.
    let toml = std::fs::read_to_string(dir.join("course.toml")).unwrap();
    let toml = toml
        .replace("uploads_per_hour = 30", "uploads_per_hour = 1000")
        .replace("versus_games = 2000", "versus_games = 0")
        // A thousand leaderboards log in from this one address.
        .replace("logins_per_minute = 120", "logins_per_minute = 1000000");
    std::fs::write(dir.join("course.toml"), toml).unwrap();
    let rubric = std::fs::read_to_string(dir.join("rubric.toml")).unwrap();
    std::fs::write(dir.join("rubric.toml"), rubric.replace("games = 200", "games = 20")).unwrap();
    let tokens: Vec<String> = std::fs::read_to_string(dir.join("tokens.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').nth(1).unwrap().to_string())
        .collect();
    let teacher = std::fs::read_to_string(dir.join("teacher-link.txt")).unwrap();
    let teacher = teacher.trim().rsplit('/').next().unwrap().to_string();
    Class { dir, tokens, teacher }
}

/// A running `arena serve`, stopped when dropped.
pub struct Served {
    _proc: Proc,
    /// Its address (`http://127.0.0.1:PORT`).
    pub url: String,
    /// Its process id.
    pub pid: u32,
}

/// Start `arena serve` on the course in `dir` with one worker thread of its own.
pub fn serve(dir: &Path) -> Served {
    let mut child = Command::new(arena_bin())
        .args([
            "serve",
            &dir.display().to_string(),
            "--listen",
            "127.0.0.1:0",
            "--workers",
            "1",
        ])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("arena serve");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next().and_then(Result::ok).unwrap_or_default();
    std::thread::spawn(move || for _ in lines.map_while(Result::ok) {});
    let url = first
        .split(" at ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .unwrap_or_else(|| panic!("arena serve said: {first}"))
        .to_string();
    let pid = child.id();
    Served {
        _proc: Proc(child),
        url,
        pid,
    }
}

/// Upload `file` as a new version with a student's token; the status.
pub fn upload(url: &str, token: &str, file: &[u8]) -> u16 {
    agent()
        .post(&format!("{url}/api/submissions"))
        .header("Authorization", &format!("Bearer {token}"))
        .header("X-File-Name", "bot.wasm")
        .header("Content-Type", "application/wasm")
        .send(file)
        .map_or(0, |r| r.status().as_u16())
}

/// Whether every upload has been graded (none queued or running).
pub fn graded(dir: &Path) -> bool {
    num(
        dir,
        "SELECT COUNT(*) FROM submissions WHERE state IN ('queued', 'running')",
    ) == 0
}

/// Run the ladder under `load` in a fresh folder named after `name`.
pub fn run(load: &Load, name: &str) -> LoadReport {
    let started = Instant::now();
    let Class { dir, tokens, teacher } = class(name, load.students);
    // Throughput is measured: the ladder never rests.
    let toml = std::fs::read_to_string(dir.join("course.toml")).unwrap();
    let toml = toml
        .replace("rest_width = 100.0", "rest_width = 0.0")
        .replace("max_matches = 200", "max_matches = 0");
    std::fs::write(dir.join("course.toml"), toml).unwrap();
    let served = serve(&dir);
    let (url, pid) = (served.url.clone(), served.pid);

    // The workers join from the start, as a lab would.
    let mut workers = Vec::new();
    for w in 0..load.workers {
        let out = arena(&[
            "course",
            "worker-token",
            &dir.display().to_string(),
            "--name",
            &format!("w{w}"),
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let token = String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap()
            .trim()
            .to_string();
        workers.push(Proc(
            Command::new(arena_bin())
                .args(["worker", "--server", &url, "--token", &token, "--jobs", "1", "--cache"])
                .arg(dir.with_file_name(format!("worker-{w}")))
                .stdout(Stdio::null())
                .stderr(
                    std::fs::File::create(dir.with_file_name(format!("worker-{w}.log")))
                        .map_or_else(|_| Stdio::null(), Stdio::from),
                )
                .spawn()
                .expect("arena worker"),
        ));
    }

    // Two versions each: the later replaces the earlier on the ladder.
    let files: Vec<Vec<u8>> = ["en-garde/aggressive", "en-garde/random", "en-garde/cowardly"]
        .iter()
        .map(|b| std::fs::read(bot(b)).unwrap())
        .collect();
    let a = agent();
    for round in 0..2 {
        for (i, token) in tokens.iter().enumerate() {
            let status = upload(&url, token, &files[(i + round) % 3]);
            assert_eq!(status, 202, "upload {round} of student {i}");
        }
    }
    while !graded(&dir) {
        std::thread::sleep(Duration::from_millis(500));
    }

    // Open leaderboards: each follows the events and takes the table each brings, as app.js does.
    let fragment_ms: Arc<Mutex<Vec<usize>>> = Arc::new(Mutex::new(Vec::new()));
    let errors = Arc::new(AtomicUsize::new(0));
    let connected = Arc::new(AtomicUsize::new(0));
    let events: Arc<Vec<AtomicUsize>> = Arc::new((0..load.clients).map(|_| AtomicUsize::new(0)).collect());
    for c in 0..load.clients {
        let cookie = login(&url, &tokens[c % tokens.len()]);
        let (url, fragment_ms, errors, events, connected) = (
            url.clone(),
            fragment_ms.clone(),
            errors.clone(),
            events.clone(),
            connected.clone(),
        );
        std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || {
                let a = agent();
                let r = a.get(&format!("{url}/events")).header("Cookie", &cookie).call();
                connected.fetch_add(1, Ordering::Relaxed);
                let Ok(r) = r else {
                    errors.fetch_add(1, Ordering::Relaxed);
                    return;
                };
                let mut body = r.into_body();
                let (mut ladder, mut table) = (false, 0usize);
                for line in BufReader::new(body.as_reader()).lines().map_while(Result::ok) {
                    if line == "event: ladder" {
                        ladder = true;
                    } else if ladder && let Some(data) = line.strip_prefix("data:") {
                        table += data.len() + 1;
                    } else if line.is_empty() && ladder {
                        // The event's end: it brought the table, or told the page to fetch it.
                        events[c].fetch_add(1, Ordering::Relaxed);
                        if table > 100 {
                            fragment_ms.lock().unwrap().push(table);
                        } else {
                            errors.fetch_add(1, Ordering::Relaxed);
                        }
                        (ladder, table) = (false, 0);
                    }
                }
            })
            .expect("a client thread");
    }

    // The ladder's rate is measured once every leaderboard is open (their
    // logins are the set-up, not the load).
    let opened = Instant::now();
    while connected.load(Ordering::Relaxed) < load.clients && opened.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let (steady_at, steady_games) = (Instant::now(), games_done(&dir));

    // A student opening the leaderboard page, again and again, while all that runs.
    let cookie = login(&url, &tokens[0]);
    let mut page_ms = Vec::new();
    let mut peak = [0.0f64; 2];
    loop {
        let t = Instant::now();
        match a.get(&format!("{url}/ladder")).header("Cookie", &cookie).call() {
            Ok(mut r) if r.status().as_u16() == 200 => {
                let _ = r.body_mut().read_to_string();
                page_ms.push(t.elapsed().as_secs_f64() * 1e3);
            }
            _ => {
                errors.fetch_add(1, Ordering::Relaxed);
            }
        }
        let m = memory(pid);
        peak = [peak[0].max(m[0]), m[1]];
        let enough = || {
            steady_at.elapsed() >= Duration::from_secs(load.steady_seconds)
                && num(&dir, "SELECT COUNT(*) FROM ladder_matches WHERE state = 'done'") as usize >= load.matches
        };
        if page_ms.len() % 20 == 0 && (enough() || started.elapsed() >= Duration::from_secs(load.max_seconds)) {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let steady_s = steady_at.elapsed().as_secs_f64();
    let steady_games = games_done(&dir) - steady_games;

    // Freeze, let the leases in flight come back, then count.
    let teacher_cookie = login(&url, &teacher);
    let mut home = a
        .get(&format!("{url}/ladder"))
        .header("Cookie", &teacher_cookie)
        .call()
        .expect("ladder page");
    // The form's token is checked against a cookie the page sets.
    let csrf_cookie: Vec<String> = home
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|c| c.to_str().ok()?.split(';').next().map(String::from))
        .collect();
    let teacher_cookie = format!("{teacher_cookie}; {}", csrf_cookie.join("; "));
    let home = home.body_mut().read_to_string().unwrap_or_default();
    let csrf = home
        .split("name=\"authenticity_token\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_default()
        .to_string();
    let r = a
        .post(&format!("{url}/teacher/ladder"))
        .header("Cookie", &teacher_cookie)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .send(format!("authenticity_token={}&switch=frozen&on=on", crate::url_encode(&csrf)).as_bytes())
        .expect("freeze");
    assert_eq!(r.status().as_u16(), 303, "the teacher froze the ladder");
    let drained = Instant::now();
    while num(
        &dir,
        "SELECT COUNT(*) FROM ladder_matches WHERE state IN ('leased', 'checking')",
    ) > 0
        && drained.elapsed() < Duration::from_secs(120)
    {
        std::thread::sleep(Duration::from_millis(500));
    }
    drop(workers);
    let mut report = LoadReport {
        matches: num(&dir, "SELECT COUNT(*) FROM ladder_matches WHERE state = 'done'"),
        games: games_done(&dir),
        lost: num(
            &dir,
            "SELECT COUNT(*) FROM ladder_matches WHERE attempts > 0 AND (state <> 'done' OR outcome IS NULL)",
        ),
        doubled: sql(&dir, "SELECT COALESCE(SUM(matches), 0) FROM workers")
            .parse::<i64>()
            .unwrap_or(0)
            - sql(
                &dir,
                "SELECT COUNT(*) FROM ladder_matches WHERE played_by > 0 AND state = 'done'",
            )
            .parse::<i64>()
            .unwrap_or(0),
        by_workers: num(
            &dir,
            "SELECT COUNT(*) FROM ladder_matches WHERE played_by > 0 AND state = 'done'",
        ),
        verified: num(&dir, "SELECT COUNT(*) FROM ladder_matches WHERE verified = 1"),
        ladder_games_per_s: steady_games as f64 / steady_s,
        pages: page_ms.len(),
        errors: errors.load(Ordering::Relaxed),
        rss_mib: peak,
        fewest_events: events.iter().map(|e| e.load(Ordering::Relaxed)).min().unwrap_or(0),
        ..LoadReport::default()
    };
    page_ms.sort_by(f64::total_cmp);
    report.page_ms = [
        quantile(&page_ms, 0.5),
        quantile(&page_ms, 0.99),
        page_ms.last().copied().unwrap_or(0.0),
    ];
    let f = fragment_ms.lock().unwrap().clone();
    report.fragments = f.len();
    report.fragment_bytes = f.iter().copied().max().unwrap_or(0);
    drop(served);

    // The same bots in `arena tournament` on the same machine: every
    // student's version on the ladder (its second upload) and the house
    // anchors, `tournament_games` a pairing: games per second.
    if load.tournament_games > 0 {
        let folder = dir.with_file_name("tournament-bots");
        std::fs::create_dir_all(&folder).unwrap();
        for i in 0..load.students {
            std::fs::write(folder.join(format!("s{i}.wasm")), &files[(i + 1) % 3]).unwrap();
        }
        let mut args = vec![
            "tournament".to_string(),
            "--game".into(),
            "en-garde".into(),
            "--format".into(),
            "round-robin".into(),
            "--games".into(),
            load.tournament_games.to_string(),
            "--dir".into(),
            folder.display().to_string(),
            "--json".into(),
        ];
        args.extend(["house:aggressive", "house:random", "house:cowardly"].map(String::from));
        for _ in 0..load.tournament_runs.max(1) {
            let t = Instant::now();
            let out = arena(&args);
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
            let rate = v["games_played"].as_f64().unwrap_or(0.0) / t.elapsed().as_secs_f64();
            report.tournament_runs_per_s.push(rate);
        }
        let mut rates = report.tournament_runs_per_s.clone();
        rates.sort_by(f64::total_cmp);
        report.tournament_games_per_s = rates[rates.len() / 2];
    }
    report.seconds = started.elapsed().as_secs_f64();
    report
}

fn games_done(dir: &Path) -> u64 {
    num(
        dir,
        "SELECT COALESCE(SUM(games), 0) FROM ladder_matches WHERE state = 'done'",
    )
}
