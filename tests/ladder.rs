//! The ladder from outside: a course served by `arena serve` on loopback
//! plays its students' versions against each other and the house bots by
//! itself, rates them, tests each new version against the one before it,
//! takes games from external `arena worker` processes and checks them by
//! playing a sample again. Every test runs on SQLite and on Postgres.

use crate::server::{On, Server, logged_in, on_both, serve_with, submit};
use arena_tests::{arena, arena_bin, bot};
use serde_json::Value;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Short matches, short tests and leases, and every result of a new worker checked.
/// The ladder these tests watch: it never rests (`rest_width = 0`, no
/// `max_matches`), so workers always find matches; `the_ladder_rests_...`
/// sets its own stopping rule.
const LADDER: &str = "\n[ladder]\ngames = 10\nversus_games = 300\nversus_elo = 20.0\nverify_first = 3\nverify_percent = 2\nlease_seconds = 4\nmin_matches = 20\nrest_width = 0.0\nmax_matches = 0\n";

pub(crate) fn ladder_course(
    on: &On,
    name: &str,
) -> (
    std::path::PathBuf,
    Vec<std::collections::BTreeMap<&'static str, String>>,
) {
    ladder_course_with(on, name, LADDER)
}

/// A course whose `[ladder]` table is `ladder`.
pub(crate) fn ladder_course_with(
    on: &On,
    name: &str,
    ladder: &str,
) -> (
    std::path::PathBuf,
    Vec<std::collections::BTreeMap<&'static str, String>>,
) {
    let (dir, students) = on.course(name, &[]);
    let toml = dir.join("course.toml");
    // `arena course init` writes the defaults: this test's settings replace them.
    let text = std::fs::read_to_string(&toml).unwrap();
    let start = text.find("\n[ladder]\n").expect("a [ladder] table");
    let end = text[start + 1..].find("\n[").map_or(text.len(), |e| start + 1 + e);
    std::fs::write(&toml, format!("{}{ladder}{}", &text[..start], &text[end..])).unwrap();
    (dir, students)
}

/// `GET /api/leaderboard` with a student's token.
pub(crate) fn board(server: &Server, token: &str) -> Value {
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let mut r = agent
        .get(&format!("{}/api/leaderboard", server.url))
        .header("Authorization", &format!("Bearer {token}"))
        .call()
        .expect("GET /api/leaderboard");
    assert_eq!(r.status().as_u16(), 200);
    r.body_mut().read_json().expect("JSON")
}

/// Wait up to `seconds` for `done` to hold of the leaderboard; the last board.
pub(crate) fn wait_board(
    server: &Server,
    token: &str,
    seconds: u64,
    what: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let started = Instant::now();
    loop {
        let b = board(server, token);
        if done(&b) {
            return b;
        }
        assert!(
            started.elapsed() < Duration::from_secs(seconds),
            "after {seconds} s the leaderboard never showed {what}: {b:#}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

pub(crate) fn row(b: &Value, matches: impl Fn(&Value) -> bool) -> Option<&Value> {
    b["rows"].as_array()?.iter().find(|r| matches(r))
}

/// The students' rows whose version has at least `games` games.
pub(crate) fn students_with(b: &Value, games: u64) -> usize {
    b["rows"].as_array().map_or(0, |rows| {
        rows.iter()
            .filter(|r| !r["house"].as_bool().unwrap_or(true) && r["games"].as_u64().unwrap_or(0) >= games)
            .count()
    })
}

pub(crate) fn accepted(server: &Server, token: &str, file: &Path) -> Value {
    let (code, json, err) = submit(server, token, file);
    assert_eq!(code, 0, "{err} {json:#}");
    json
}

/// [`accepted`] for a server at `url`, from another thread.
pub(crate) fn accepted_at(url: &str, token: &str, file: &Path) -> Value {
    let out = arena(&[
        "submit",
        "--server",
        url,
        "--token",
        token,
        &file.display().to_string(),
        "--json",
        "--wait",
        "600",
    ]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{} {json:#}",
        String::from_utf8_lossy(&out.stderr)
    );
    json
}

/// `GET /api/submissions/N` for a student, until its test against the
/// version that counted before it has a verdict (not while it waits or runs).
fn versus(server: &Server, token: &str, version: i64) -> Value {
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let started = Instant::now();
    loop {
        let mut r = agent
            .get(&format!("{}/api/submissions/{version}", server.url))
            .header("Authorization", &format!("Bearer {token}"))
            .call()
            .expect("GET the version");
        let v: Value = r.body_mut().read_json().expect("JSON");
        if !v["versus"].is_null() && v["versus"].get("state").is_none() {
            return v["versus"].clone();
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "no test verdict for v{version}: {v:#}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// The ladder plays by itself with the server's own pool: every student's
/// version gets games, the aggressive bot is rated above the random one
/// (they are the house bots' twins, and aggressive beats random by a wide
/// margin), every finished match counts once, a new version replaces the
/// old at once and is tested against the version that counted (stronger,
/// weaker, and an identical copy not played at all), and a server killed
/// with SIGKILL resumes the ladder without losing a match.
fn the_ladder_plays_by_itself_rates_and_tests_new_versions(on: &On) {
    let (dir, students) = ladder_course(on, "ladder-own");
    let mut server = on.serve(&dir);
    let token = |i: usize| students[i]["token"].clone();
    // Nobody outside the course reads the board.
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let status = agent
        .get(&format!("{}/api/leaderboard", server.url))
        .call()
        .expect("GET")
        .status()
        .as_u16();
    assert_eq!(status, 401, "the leaderboard is for the course's people");

    accepted(&server, &token(0), &bot("en-garde/aggressive"));
    accepted(&server, &token(1), &bot("en-garde/random"));
    accepted(&server, &token(2), &bot("en-garde/cowardly"));
    let b = wait_board(&server, &token(0), 300, "30 games for each student", |b| {
        students_with(b, 30) == 3
    });
    let rating = |b: &Value, name: &str| {
        row(b, |r| r["name"] == name).unwrap_or_else(|| panic!("{name} on the board: {b:#}"))["rating"]
            .as_f64()
            .unwrap()
    };
    assert!(
        rating(&b, "Ann Lee") > rating(&b, "Bo Wu"),
        "aggressive (Ann) above random (Bo): {b:#}"
    );
    for r in b["rows"].as_array().unwrap() {
        let (x, lo, hi) = (
            r["rating"].as_f64().unwrap(),
            r["interval"][0].as_f64().unwrap(),
            r["interval"][1].as_f64().unwrap(),
        );
        assert!(lo < x && x < hi, "a rating inside its interval: {r}");
        let ranks = (r["ranks"][0].as_u64().unwrap(), r["ranks"][1].as_u64().unwrap());
        let rank = r["rank"].as_u64().unwrap();
        assert!(ranks.0 <= rank && rank <= ranks.1, "the rank within its tie range: {r}");
    }
    assert!(
        row(&b, |r| r["key"].as_str().is_some_and(|k| k.starts_with("house:"))).is_some(),
        "the rubric's house bots are anchors on the board"
    );

    // Bo's new version replaces the old one at once, is tested against it, and plays within a minute.
    let v2 = accepted(&server, &token(1), &bot("en-garde/aggressive"));
    assert_eq!(v2["version"], 2);
    let b = wait_board(&server, &token(0), 60, "Bo's v2 with games", |b| {
        row(b, |r| r["name"] == "Bo Wu").is_some_and(|r| r["version"] == 2 && r["games"].as_u64().unwrap_or(0) > 0)
    });
    assert_eq!(
        b["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["name"] == "Bo Wu")
            .count(),
        1,
        "one row per student: the new version replaced the old"
    );
    let t = versus(&server, &token(1), 2);
    assert_eq!(t["verdict"], "stronger", "{t:#}");
    let sentence = t["sentence"].as_str().unwrap();
    assert!(sentence.starts_with("v2 is stronger than v1: +"), "{sentence}");
    assert!(
        sentence.contains("95% interval") && sentence.contains("decided after"),
        "{sentence}"
    );

    accepted(&server, &token(1), &bot("en-garde/random"));
    let t = versus(&server, &token(1), 3);
    assert_eq!(t["verdict"], "weaker", "random after aggressive: {t:#}");
    accepted(&server, &token(1), &bot("en-garde/random"));
    let t = versus(&server, &token(1), 4);
    assert_eq!(t["verdict"], "identical", "an identical copy is not played: {t:#}");
    assert_eq!(t["games"], 0, "{t:#}");

    // Every finished match counts once: the board's matches are the database's.
    let done = |on: &On| on.scalar(&dir, "SELECT COUNT(*) FROM ladder_matches WHERE state = 'done'");
    let before: u64 = done(on).parse().unwrap();
    assert!(before > 0);

    // SIGKILL, then a restart: the ladder goes on and nothing finished is lost.
    drop(server);
    server = on.serve(&dir);
    let b = wait_board(&server, &token(0), 120, "more matches after the restart", |b| {
        b["matches"].as_u64().unwrap_or(0) > 0
    });
    let after: u64 = done(on).parse().unwrap();
    assert!(after >= before, "{after} matches after the restart, {before} before");
    // The board counts only matches among the current versions; the database has them all.
    assert!(b["matches"].as_u64().unwrap() <= after);
}

/// A running `arena worker`, killed when dropped.
pub(crate) struct Worker(Child);

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub(crate) fn worker(server: &Server, token: &str, cache: &Path) -> Worker {
    Worker(
        Command::new(arena_bin())
            .args([
                "worker",
                "--server",
                &server.url,
                "--token",
                token,
                "--jobs",
                "1",
                "--cache",
            ])
            .arg(cache)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start arena worker"),
    )
}

pub(crate) fn worker_token(on: &On, dir: &Path, name: &str) -> String {
    let mut args = vec!["course", "worker-token", dir.to_str().unwrap(), "--name", name];
    args.extend(on.database());
    let out = arena(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap()
        .trim()
        .to_string()
}

pub(crate) fn post(server: &Server, token: &str, path: &str, body: &Value) -> (u16, Value) {
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let mut r = agent
        .post(&format!("{}{path}", server.url))
        .header("Authorization", &format!("Bearer {token}"))
        .send_json(body)
        .expect("POST");
    let status = r.status().as_u16();
    (status, r.body_mut().read_json().unwrap_or(Value::Null))
}

/// With `--workers 0` the server plays no match: an external `arena
/// worker` does, its first matches are played again on the server and
/// agree; one killed with SIGKILL mid-batch leaves its matches to come
/// back when the lease runs out, each counted once; a worker that returns
/// a tampered result is found by the replay, disabled, and every result it
/// gave is put back to be played again; a worker of another wasmtime
/// version or engine is refused at its first call.
fn external_workers_play_and_a_tampering_one_is_disabled(on: &On) {
    let (dir, students) = ladder_course(on, "ladder-workers");
    let mut extra = vec!["--workers", "0"];
    extra.extend(on.database());
    let server = serve_with(&dir, &extra);
    let token = |i: usize| students[i]["token"].clone();
    // Uploads are taken, and wait for a worker to grade them.
    let uploads: Vec<_> = [(0, "en-garde/aggressive"), (1, "en-garde/random")]
        .into_iter()
        .map(|(i, b)| {
            let (url, token) = (server.url.clone(), token(i));
            std::thread::spawn(move || accepted_at(&url, &token, &bot(b)))
        })
        .collect();
    let started = Instant::now();
    while on.scalar(&dir, "SELECT COUNT(*) FROM submissions") != "2" {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the uploads never arrived"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(
        on.scalar(
            &dir,
            "SELECT COUNT(*) FROM jobs WHERE state = 'queued' AND kind = 'grade'"
        ),
        "2",
        "--workers 0: the server grades nothing itself"
    );

    // Another version, or another engine: refused at the first call, in words.
    let stranger = worker_token(on, &dir, "stranger");
    let (status, v) = post(
        &server,
        &stranger,
        "/api/worker/hello",
        &serde_json::json!({"arena": "0.0.1", "wasmtime": "47", "jobs": 1, "host": "old-pc"}),
    );
    assert_eq!(status, 409, "{v}");
    assert!(v["error"].as_str().unwrap().contains("wasmtime 47"), "{v}");
    let (status, v) = post(
        &server,
        &stranger,
        "/api/worker/claim",
        &serde_json::json!({"engine": "00ff", "max": 1}),
    );
    assert_eq!(status, 409, "{v}");
    assert!(v["error"].as_str().unwrap().contains("engine settings"), "{v}");
    let (status, _) = post(
        &server,
        "not-a-token",
        "/api/worker/claim",
        &serde_json::json!({"engine": "x", "max": 1}),
    );
    assert_eq!(status, 401);

    // A real worker plays; kill it mid-run, start another: each match counts once.
    let cache = dir.with_file_name("worker-cache");
    let honest = worker_token(on, &dir, "lab-pc");
    let first = worker(&server, &honest, &cache);
    let firsts: Vec<Value> = uploads.into_iter().map(|u| u.join().expect("the upload")).collect();
    for v in &firsts {
        assert_eq!(v["accepted"], true, "{v:#}");
    }
    assert_eq!(
        on.scalar(
            &dir,
            "SELECT COUNT(*) FROM jobs WHERE done_by IS NOT NULL AND verified = 1 AND kind = 'grade'"
        ),
        "2",
        "the worker graded both, and its first verdicts were done again on the server and agreed"
    );
    assert_eq!(
        on.scalar(
            &dir,
            "SELECT COUNT(*) FROM ladder_matches WHERE state = 'done' AND played_by IS NULL"
        ),
        "0",
        "--workers 0: the server plays no ladder match itself"
    );
    wait_board(&server, &token(0), 300, "games from the worker", |b| {
        students_with(b, 10) == 2
    });
    drop(first);
    let second = worker(&server, &honest, &cache);
    let b = wait_board(&server, &token(0), 300, "40 games each", |b| students_with(b, 40) == 2);
    let verified: u64 = on
        .scalar(&dir, "SELECT COUNT(*) FROM ladder_matches WHERE verified = 1")
        .parse()
        .unwrap();
    assert!(
        verified >= 3,
        "a new worker's first 3 matches are played again and agree ({verified})"
    );
    let played: u64 = on
        .scalar(
            &dir,
            "SELECT COUNT(*) FROM ladder_matches WHERE state = 'done' AND played_by > 0",
        )
        .parse()
        .unwrap();
    assert!(
        played as usize >= b["matches"].as_u64().unwrap() as usize,
        "every counted match came from the worker"
    );

    // A worker that lies: its first result is played again, differs, and everything it gave goes.
    let liar = worker_token(on, &dir, "liar");
    let (status, welcome) = post(
        &server,
        &liar,
        "/api/worker/hello",
        &serde_json::json!({"arena": env!("CARGO_PKG_VERSION"), "wasmtime": "48", "jobs": 1, "host": "liar"}),
    );
    assert_eq!(status, 200, "{welcome}");
    let engine = welcome["engine"].as_str().unwrap().to_string();
    let liar_id = welcome["worker"].as_i64().unwrap();
    let lease = loop {
        let (status, lease) = post(
            &server,
            &liar,
            "/api/worker/claim",
            &serde_json::json!({"engine": engine, "max": 1}),
        );
        if status == 200 {
            break lease;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let job = &lease["matches"][0];
    let games = job["games"].as_u64().unwrap() as usize;
    // Every game won by whoever sat first: a result the bots did not play.
    let outcome = serde_json::json!({
        "games": (0..games).map(|g| serde_json::json!({"seats": if g % 2 == 0 { [0, 1] } else { [1, 0] }, "scores": [5, 0], "winner": 0})).collect::<Vec<_>>(),
        "fuel": [1, 1],
    });
    let (status, taken) = post(
        &server,
        &liar,
        "/api/worker/results",
        &serde_json::json!({"lease": lease["lease"], "results": [{"id": job["id"], "outcome": outcome}]}),
    );
    assert_eq!(status, 200, "{taken}");
    assert_eq!(taken["taken"][0], job["id"]);
    // The same result again counts once: the lease is spent.
    let (_, again) = post(
        &server,
        &liar,
        "/api/worker/results",
        &serde_json::json!({"lease": lease["lease"], "results": [{"id": job["id"], "outcome": outcome}]}),
    );
    assert_eq!(again["untaken"][0], job["id"], "{again}");
    let started = Instant::now();
    loop {
        let (status, v) = post(
            &server,
            &liar,
            "/api/worker/claim",
            &serde_json::json!({"engine": engine, "max": 1}),
        );
        if status == 403 {
            assert!(
                v["error"].as_str().unwrap().contains("played again on the server"),
                "{v}"
            );
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the liar is still taken: {status} {v}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    assert_eq!(
        on.scalar(
            &dir,
            &format!("SELECT COUNT(*) FROM ladder_matches WHERE played_by = {liar_id}")
        ),
        "0",
        "every result of the disabled worker is gone"
    );
    let mut args = vec!["course", "worker-token", dir.to_str().unwrap(), "--list"];
    args.extend(on.database());
    let out = arena(&args);
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(list.contains("(liar)") && list.contains("disabled: match"), "{list}");
    assert!(list.contains("(lab-pc)") && list.contains("active"), "{list}");

    // A worker that lies about a grade: done again on the server, found, disabled; the upload is graded again.
    drop(second);
    let upload = {
        let (url, token) = (server.url.clone(), token(1));
        std::thread::spawn(move || accepted_at(&url, &token, &bot("en-garde/random")))
    };
    let grader = worker_token(on, &dir, "grade-liar");
    let (_, welcome) = post(
        &server,
        &grader,
        "/api/worker/hello",
        &serde_json::json!({"arena": env!("CARGO_PKG_VERSION"), "wasmtime": "48", "jobs": 1, "host": "grade-liar"}),
    );
    let engine = welcome["engine"].as_str().unwrap().to_string();
    let job = loop {
        let (status, job) = post(
            &server,
            &grader,
            "/api/worker/jobs/claim",
            &serde_json::json!({"engine": engine, "max": 1}),
        );
        if status == 200 && job["kind"] == "grade" {
            break job;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let full_marks = serde_json::json!({
        "accepted": true, "reason": null, "toolchain": "rustc", "check": null, "check_text": "fine",
        "grade": {"total": 100.0}, "grade_text": "100 points", "score": 100.0, "max_score": 100.0, "failed": false,
    });
    let (status, taken) = post(
        &server,
        &grader,
        "/api/worker/jobs/result",
        &serde_json::json!({"job": job["job"], "lease": job["lease"], "verdict": full_marks}),
    );
    assert_eq!((status, &taken["taken"]), (200, &Value::Bool(true)), "{taken}");
    let started = Instant::now();
    loop {
        let (status, v) = post(
            &server,
            &grader,
            "/api/worker/jobs/claim",
            &serde_json::json!({"engine": engine, "max": 1}),
        );
        if status == 403 {
            assert!(
                v["error"]
                    .as_str()
                    .unwrap()
                    .contains("differed when done again on the server"),
                "{v}"
            );
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the grade liar is still taken: {status} {v}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    let _third = worker(&server, &honest, &cache);
    let v2 = upload.join().expect("the upload");
    assert_eq!(v2["version"], 2);
    assert_eq!(
        v2["score"], firsts[1]["score"],
        "the same file as Bo's v1 gets its grade from the honest worker, not the lie's 100: {v2:#}"
    );
    assert_ne!(v2["score"], 100.0);
}

/// The stopping rule (issue 48): every version plays `min_matches`, then
/// on while its interval is wider than `rest_width`, at most `max_matches`;
/// then the ladder rests (no match queued or played, the page says so)
/// until a new version wakes it, which then plays its own matches.
fn the_ladder_rests_when_every_version_has_its_matches(on: &On) {
    let rule = "\n[ladder]\ngames = 10\nversus_games = 0\nlease_seconds = 4\nmin_matches = 6\nrest_width = 1000.0\nmax_matches = 12\n";
    let (dir, students) = ladder_course_with(on, "ladder-rests", rule);
    let server = on.serve(&dir);
    let token = |i: usize| students[i]["token"].clone();
    accepted(&server, &token(0), &bot("en-garde/aggressive"));
    accepted(&server, &token(1), &bot("en-garde/random"));
    let mut ann = logged_in(&server, &students[0]["link"]);
    // Hang guard: a busy machine plays the 12-odd matches in seconds.
    let started = Instant::now();
    let resting = loop {
        let (_, page, _) = ann.get("/ladder");
        if page.contains("id=\"resting\"") {
            break page;
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "the ladder never rested: {page}"
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    assert!(resting.contains("The ladder rests"), "{resting}");
    let queued = || on.scalar(&dir, "SELECT COUNT(*) FROM ladder_matches WHERE state <> 'done'");
    let all = || on.scalar(&dir, "SELECT COUNT(*) FROM ladder_matches");
    // What was queued before it rested is played; then nothing more.
    let started = Instant::now();
    while queued() != "0" {
        assert!(started.elapsed() < Duration::from_secs(600), "matches left unplayed");
        std::thread::sleep(Duration::from_millis(500));
    }
    let rested = all();
    std::thread::sleep(Duration::from_secs(6));
    assert_eq!(all(), rested, "a resting ladder queues no match");
    let b = board(&server, &token(0));
    for name in ["Ann Lee", "Bo Wu"] {
        let games = row(&b, |r| r["name"] == name).unwrap()["games"].as_u64().unwrap();
        assert!(
            (60..=240).contains(&games),
            "{name}: {games} games, not 6 to 12 matches (and what was queued): {b:#}"
        );
    }
    // A new version wakes it: it plays its own matches, then rests again.
    // From its verdict on, the page says the ladder rests only once the new
    // version has its matches too (it once said so until the scheduler's
    // next round, and the test read "rests" and then saw the new version's
    // matches queued). An idle machine plays and fits the new version's
    // six matches between two polls of its verdict, and may rest again:
    // then the board that let it rest already counts them.
    accepted(&server, &token(2), &bot("en-garde/cowardly"));
    let (_, page, _) = ann.get("/ladder");
    if page.contains("id=\"resting\"") {
        let b = board(&server, &token(0));
        assert_eq!(
            students_with(&b, 60),
            3,
            "rests with a version it has not weighed: {b:#}"
        );
    }
    let b = wait_board(&server, &token(0), 600, "the new version's matches", |b| {
        students_with(b, 60) == 3
    });
    assert!(all().parse::<u64>().unwrap() > rested.parse::<u64>().unwrap(), "{b:#}");
}

on_both!(
    the_ladder_rests_when_every_version_has_its_matches,
    the_ladder_plays_by_itself_rates_and_tests_new_versions,
    external_workers_play_and_a_tampering_one_is_disabled,
    the_teacher_hides_names_freezes_and_publishes_the_final_tournament,
    a_student_watches_only_matches_of_their_own_versions,
);

/// A ladder game replays both bots' logs and hidden cards: a student may
/// watch only matches one of their own versions played (issue 47), and
/// another student's ladder page links none of that student's games.
fn a_student_watches_only_matches_of_their_own_versions(on: &On) {
    let (dir, students) = ladder_course(on, "ladder-private");
    let server = on.serve(&dir);
    let token = |i: usize| students[i]["token"].clone();
    accepted(&server, &token(0), &bot("en-garde/aggressive"));
    accepted(&server, &token(1), &bot("en-garde/random"));
    let b = wait_board(&server, &token(0), 300, "10 games each", |b| students_with(b, 10) == 2);
    let bo = row(&b, |r| r["name"] == "Bo Wu").unwrap()["person"].as_i64().unwrap();
    let link = std::fs::read_to_string(dir.join("teacher-link.txt")).unwrap();
    let mut teacher = logged_in(&server, link.trim());
    let (_, page, _) = teacher.get(&format!("/ladder/people/{bo}"));
    // One of Bo's matches against a house bot: not Ann's to watch.
    let theirs = page
        .split("<tr>")
        .find(|row| row.contains("/ladder/matches/") && !row.contains("Ann Lee"))
        .and_then(|row| row.split("href=\"/ladder/matches/").nth(1))
        .and_then(|r| r.split('"').next())
        .expect("a match of Bo's without Ann")
        .replace("&amp;", "&");
    let (status, _, _) = teacher.get(&format!("/ladder/matches/{theirs}"));
    assert_eq!(status, 200, "the teacher watches any match");
    let mut bo_browser = logged_in(&server, &students[1]["link"]);
    let (status, _, _) = bo_browser.get(&format!("/ladder/matches/{theirs}"));
    assert_eq!(status, 200, "Bo watches his own");
    let mut ann = logged_in(&server, &students[0]["link"]);
    let (status, page, _) = ann.get(&format!("/ladder/matches/{theirs}"));
    assert_eq!(status, 403, "Ann may not watch Bo's match: {page}");
    let (status, _, _) = ann.get(&format!("/ladder/people/{bo}"));
    assert_eq!(status, 404, "a classmate's ladder page by database id");
    let bo_page = row(&b, |r| r["name"] == "Bo Wu").unwrap()["page"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, page, _) = ann.get(&bo_page);
    assert_eq!(status, 200);
    assert!(
        !page.contains("/ladder/matches/"),
        "no links to Bo's games on his page for Ann: {page}"
    );
}

/// A student's ladder page (ratings over versions, head to head, recent
/// games that replay), then the teacher's switches: pseudonyms hide names
/// from students (not from the teacher), a frozen ladder plays no new
/// match, and the final tournament of the frozen versions is published as
/// a report page every logged-in person can open.
fn the_teacher_hides_names_freezes_and_publishes_the_final_tournament(on: &On) {
    let (dir, students) = ladder_course(on, "ladder-final");
    let server = on.serve(&dir);
    let token = |i: usize| students[i]["token"].clone();
    accepted(&server, &token(0), &bot("en-garde/aggressive"));
    accepted(&server, &token(1), &bot("en-garde/random"));
    accepted(&server, &token(2), &bot("en-garde/cowardly"));
    let b = wait_board(&server, &token(0), 300, "20 games each", |b| students_with(b, 20) == 3);
    let ann = row(&b, |r| r["name"] == "Ann Lee").unwrap()["person"].as_i64().unwrap();

    let mut student = logged_in(&server, &students[0]["link"]);
    // Ann's first matches may all be against house bots: the ladder pairs
    // her with Bo soon after, not by a given game.
    let started = std::time::Instant::now();
    let (status, page) = loop {
        let (status, page, _) = student.get(&format!("/ladder/people/{ann}"));
        if status != 200 || page.contains("Bo Wu") || started.elapsed().as_secs() > 120 {
            break (status, page);
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    };
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("<svg id=\"plot\"") && page.contains("v1 "),
        "a plot of v1's rating: {page}"
    );
    assert!(
        page.contains("id=\"heads\"") && page.contains("Bo Wu"),
        "head to head against Bo: {page}"
    );
    let game = page
        .split("href=\"/ladder/matches/")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("a recent game to watch")
        .replace("&amp;", "&");
    let (status, viewer, _) = student.get(&format!("/ladder/matches/{game}"));
    assert_eq!(status, 200, "{viewer}");
    assert!(
        viewer.contains("played again on request"),
        "the viewer says what it shows"
    );
    let (status, _, _) = student.get("/ladder/matches/1/games/999");
    assert_eq!(status, 404, "a game the match did not play");

    let mut teacher = logged_in(
        &server,
        std::fs::read_to_string(dir.join("teacher-link.txt")).unwrap().trim(),
    );
    let (_, ladder, _) = teacher.get("/ladder");
    let form = crate::server::csrf(&ladder);
    // A student cannot flip the switches.
    let (_, mine, _) = student.get("/");
    let (status, _) = student.post_form(
        "/teacher/ladder",
        &[
            ("authenticity_token", &crate::server::csrf(&mine)),
            ("switch", "frozen"),
            ("on", "on"),
        ],
    );
    assert_eq!(status, 403);

    let (status, _) = teacher.post_form(
        "/teacher/ladder",
        &[("authenticity_token", &form), ("switch", "pseudonyms"), ("on", "on")],
    );
    assert_eq!(status, 303);
    let b = board(&server, &token(1));
    assert!(b["pseudonyms"].as_bool().unwrap());
    let names: Vec<&str> = b["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["house"] == false)
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert!(
        names.iter().all(|n| !n.contains("Ann") && !n.contains("Bo Wu")),
        "students see pseudonyms: {names:?}"
    );
    let (_, seen, _) = teacher.get("/fragment/ladder");
    assert!(seen.contains("Ann Lee"), "the teacher still sees names: {seen}");

    let (status, _) = teacher.post_form(
        "/teacher/ladder",
        &[("authenticity_token", &form), ("switch", "frozen"), ("on", "on")],
    );
    assert_eq!(status, 303);
    let frozen_at: u64 = on.scalar(&dir, "SELECT COUNT(*) FROM ladder_matches").parse().unwrap();
    std::thread::sleep(Duration::from_secs(4));
    let later: u64 = on.scalar(&dir, "SELECT COUNT(*) FROM ladder_matches").parse().unwrap();
    assert_eq!(frozen_at, later, "a frozen ladder schedules no new match");

    let (status, body) = teacher.post_form(
        "/teacher/tournament",
        &[
            ("authenticity_token", &form),
            ("format", "round-robin"),
            ("games", "20"),
        ],
    );
    assert_eq!(status, 303, "{body}");
    let started = Instant::now();
    let report = loop {
        let (status, html, _) = student.get("/tournament/index.html");
        if status == 200 {
            break html;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "no tournament report");
        std::thread::sleep(Duration::from_millis(500));
    };
    assert!(!report.contains("Ann Lee"), "the report keeps the pseudonyms");
    assert!(
        report.contains(&names[0][..names[0].len().min(8)]),
        "the report names the students as the board did"
    );
    let (status, _, _) = student.get("/tournament/../course.toml");
    assert_eq!(status, 404);
    // Its replay pages carry every bot's own log: the teacher's only.
    let replay = report
        .split("href=\"replays/")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("a replay page in the report");
    let (status, page, _) = student.get(&format!("/tournament/replays/{replay}"));
    assert_eq!(status, 403, "a classmate's log in a student's hands: {page}");
    assert!(page.contains("only the teacher opens them"), "{page}");
    let (status, _, _) = teacher.get(&format!("/tournament/replays/{replay}"));
    assert_eq!(status, 200);
}

#[test]
fn the_ladder_page_needs_a_login_and_shows_the_board() {
    let on = On::Sqlite;
    let (dir, students) = ladder_course(&on, "ladder-page");
    let server = on.serve(&dir);
    let mut b = logged_in(&server, &students[0]["link"]);
    let (status, html, _) = b.get("/ladder");
    assert_eq!(status, 200);
    assert!(
        html.contains("id=\"board\"") && html.contains("data-on=\"ladder\""),
        "{html}"
    );
    let mut anonymous = crate::server::Browser::new(&server);
    assert_eq!(anonymous.get("/ladder").0, 401);
}

/// The load test of docs/performance.md, small: 12 students with two
/// versions each, the server's own pool and 2 external workers, 40 open
/// leaderboards following the events. What must hold at any size: every
/// match that was leased has its one stored result, no worker's result is
/// counted twice, the workers' first results were checked, every open
/// leaderboard was told of new ratings and fetched them, no request failed.
/// (The timings it also measures are the benchmark's, not asserted here.)
#[test]
fn the_ladder_under_load_loses_and_doubles_no_result() {
    let load = arena_tests::load::Load {
        students: 12,
        matches: 150,
        clients: 40,
        workers: 2,
        tournament_games: 0,
        tournament_runs: 0,
        steady_seconds: 0,
        max_seconds: 600,
    };
    let r = arena_tests::load::run(&load, "ladder-load");
    assert!(r.matches >= 150, "{r:?}");
    assert_eq!(r.lost, 0, "leased matches without a stored result: {r:?}");
    assert_eq!(r.doubled, 0, "worker results counted twice: {r:?}");
    assert!(r.by_workers > 0, "the external workers played: {r:?}");
    assert!(
        r.verified >= r.by_workers.min(5),
        "a worker's first results are played again and agree: {r:?}"
    );
    assert!(
        r.fewest_events > 0 && r.fragments >= load.clients,
        "every open leaderboard followed: {r:?}"
    );
    assert_eq!(r.errors, 0, "{r:?}");
    eprintln!("{r:?}");
}

/// Two `arena serve` processes on one Postgres course: each takes the
/// other's uploads onto the ladder, no match or grading job is claimed
/// twice (claims skip the rows another holds, `FOR UPDATE SKIP LOCKED`),
/// and with one killed by SIGKILL the other plays on.
#[test]
fn two_servers_share_one_postgres_course() {
    let on = On::postgres("ladder-shared");
    let (dir, students) = ladder_course(&on, "ladder-shared");
    let (a, b) = (on.serve(&dir), on.serve(&dir));
    let token = |i: usize| students[i]["token"].clone();
    accepted(&a, &token(0), &bot("en-garde/aggressive"));
    accepted(&b, &token(1), &bot("en-garde/random"));
    for server in [&a, &b] {
        wait_board(server, &token(0), 300, "both students with 20 games", |board| {
            students_with(board, 20) == 2
        });
    }
    let twice = |table: &str| {
        on.scalar(
            &dir,
            &format!("SELECT COUNT(*) FROM {table} WHERE state = 'done' AND attempts > 1"),
        )
    };
    assert_eq!(twice("ladder_matches"), "0", "a match claimed by both servers");
    assert_eq!(twice("jobs"), "0", "a grading job claimed by both servers");
    let done = || -> u64 {
        on.scalar(&dir, "SELECT COUNT(*) FROM ladder_matches WHERE state = 'done'")
            .parse()
            .unwrap()
    };
    drop(a);
    let before = done();
    let started = Instant::now();
    while done() < before + 10 {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the other server stopped playing"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    wait_board(&b, &token(1), 60, "the board still served", |board| {
        students_with(board, 20) == 2
    });
}

/// The replay a viewer page carries (its header, then every line), read back.
pub(crate) fn replay_in(page: &str) -> Vec<Value> {
    use base64::Engine;
    use std::io::Read;
    let data = page
        .split("id=\"replay-data\">")
        .nth(1)
        .and_then(|r| r.split("</script>").next())
        .unwrap_or_else(|| panic!("not a viewer page: {page}"));
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .expect("base64");
    let mut text = String::new();
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_string(&mut text)
        .expect("gzip");
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// For each event of an En Garde replay that lists the hands: how many
/// seats' cards it shows (a card left out is `null`); and whether any
/// deck's order is shown.
fn cards_shown(lines: &[Value]) -> (Vec<usize>, bool) {
    let shown = |hand: &Value| {
        hand.as_array()
            .is_some_and(|h| !h.is_empty() && h.iter().all(|c| !c.is_null()))
    };
    let hands = lines
        .iter()
        .filter_map(|l| l["hands"].as_array())
        .map(|h| h.iter().filter(|hand| shown(hand)).count())
        .collect();
    let deck = lines
        .iter()
        .any(|l| l["deck"].as_array().is_some_and(|d| d.iter().any(|c| !c.is_null())));
    (hands, deck)
}

/// The one privacy rule (docs/server.md, "Privacy"), walked route by
/// route: Ann, a student, asks every route that takes a person, a version,
/// a match or a file for Bo's data (and ladder matches by number); each
/// refuses, or shows only what the leaderboard shows (pseudonyms, and no
/// ids beside them); a game she played shows her hand and neither Bo's nor
/// the deck's order, where the teacher's shows every card. A route added
/// to the server without a place in this walk fails the test.
fn a_student_walks_every_route_and_sees_only_their_own(on: &On) {
    let (dir, students) = ladder_course(on, "privacy");
    let server = on.serve(&dir);
    let token = |i: usize| students[i]["token"].clone();
    accepted(&server, &token(0), &bot("en-garde/aggressive"));
    accepted(&server, &token(1), &bot("en-garde/random"));
    wait_board(&server, &token(0), 300, "10 games each", |b| students_with(b, 10) == 2);
    let link = std::fs::read_to_string(dir.join("teacher-link.txt")).unwrap();
    let mut teacher = logged_in(&server, link.trim());
    let (_, ladder, _) = teacher.get("/ladder");
    let (status, _) = teacher.post_form(
        "/teacher/ladder",
        &[
            ("authenticity_token", &crate::server::csrf(&ladder)),
            ("switch", "pseudonyms"),
            ("on", "on"),
        ],
    );
    assert_eq!(status, 303);
    let (_, json, _) = teacher.get("/api/leaderboard");
    let all: Value = serde_json::from_str(&json).unwrap();
    let id = |name: &str| {
        row(&all, |r| r["real_name"] == name).expect("a row")["person"]
            .as_i64()
            .unwrap()
    };
    let (ann, bo) = (id("Ann Lee"), id("Bo Wu"));
    // A match of Ann's with Bo, and one of Bo's without her, from the teacher's page of Bo.
    let started = Instant::now();
    let (together, apart) = loop {
        let (_, page, _) = teacher.get(&format!("/ladder/people/{bo}"));
        let game = |with_ann: bool| {
            page.split("<tr>")
                .find(|row| row.contains("/ladder/matches/") && row.contains("Ann Lee") == with_ann)
                .and_then(|row| row.split("href=\"/ladder/matches/").nth(1))
                .and_then(|r| r.split('"').next())
                .map(|r| format!("/ladder/matches/{}", r.replace("&amp;", "&")))
        };
        if let (Some(t), Some(a)) = (game(true), game(false)) {
            break (t, a);
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "no match of Ann's with Bo and one of Bo's without her: {page}"
        );
        std::thread::sleep(Duration::from_millis(500));
    };

    let mut student = logged_in(&server, &students[0]["link"]);
    let v = format!("/people/{bo}/versions/1");
    // Every route with a parameter, what Ann asks of it, and the answer the rule gives.
    let walk: Vec<(&str, String, u16)> = vec![
        ("/people/{pid}", format!("/people/{bo}"), 403),
        ("/people/{pid}/versions/{n}", v.clone(), 403),
        ("/people/{pid}/versions/{n}/verdict", format!("{v}/verdict"), 403),
        // Only a redirect to the version's page (the report's "back" link), which refuses.
        ("/people/{pid}/versions/{n}/index.html", format!("{v}/index.html"), 303),
        (
            "/people/{pid}/versions/{n}/replays/{file}",
            format!("{v}/replays/bot-item1.html"),
            403,
        ),
        (
            "/people/{pid}/versions/{n}/items/{i}/games",
            format!("{v}/items/1/games?game=1"),
            403,
        ),
        (
            "/people/{pid}/versions/{n}/results.json",
            format!("{v}/results.json"),
            403,
        ),
        ("/ladder/people/{pid}", format!("/ladder/people/{bo}"), 404),
        ("/ladder/matches/{id}/games/{g}", apart.clone(), 403),
        ("/tournament/{*file}", "/tournament/replays/game-1.html".into(), 403),
        (
            "/api/worker/bots/{sha}",
            format!("/api/worker/bots/{}", "0".repeat(64)),
            401,
        ),
        // A student's own versions by their own token: a session is no token.
        ("/api/submissions/{n}", "/api/submissions/1".into(), 401),
    ];
    // Routes whose parameter is the credential itself, not anyone's data.
    let credentials = ["/login/{token}", "/lti/enter/{code}"];
    let routes = std::fs::read_to_string(arena_tests::root().join("host/server/src/web/routes.rs")).unwrap();
    for path in routes.split(".route(\"").skip(1).filter_map(|r| r.split('"').next()) {
        if path.contains('{') {
            assert!(
                walk.iter().any(|(route, _, _)| *route == path) || credentials.contains(&path),
                "the route {path} is not walked by this test: add what a student may see of it"
            );
        }
    }
    for (route, path, status) in &walk {
        let (got, page, _) = student.get(path);
        assert_eq!(got, *status, "{route} as {path}: {page}");
        assert!(!page.contains("Bo Wu"), "{route} as {path} names Bo: {page}");
    }

    // The board: pseudonyms, and neither ids nor keys beside a classmate's.
    let b = board(&server, &token(0));
    let theirs = b["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["house"] == false && r["person"] != ann)
        .expect("Bo's row");
    assert!(
        theirs.get("person").is_none() && theirs.get("key").is_none(),
        "{theirs}"
    );
    assert!(theirs["name"] != "Bo Wu");
    let page_of_bo = theirs["page"].as_str().expect("a page").to_string();
    assert!(!page_of_bo.ends_with(&format!("/{bo}")), "{page_of_bo}");
    assert!(
        row(&b, |r| r["person"] == ann).is_some(),
        "her own row keeps her id: {b}"
    );
    let (_, table, _) = student.get("/fragment/ladder");
    assert!(!table.contains("Bo Wu") && table.contains(&page_of_bo), "{table}");
    assert!(!table.contains(&format!("/ladder/people/{bo}\"")), "{table}");
    let (status, page, _) = student.get(&page_of_bo);
    assert_eq!(status, 200, "{page}");
    assert!(!page.contains("Bo Wu") && !page.contains("/ladder/matches/"), "{page}");

    // A game of Ann's with Bo: her hand, not his, and no deck order; the teacher's: every card.
    let (status, page, _) = student.get(&together);
    assert_eq!(status, 200, "{page}");
    assert!(!page.contains("Bo Wu"), "{page}");
    let (hands, deck) = cards_shown(&replay_in(&page));
    assert!(!hands.is_empty() && hands.iter().all(|&n| n == 1), "{hands:?}");
    assert!(!deck, "the deck's order shown to a student");
    let (_, page, _) = teacher.get(&together);
    let (hands, deck) = cards_shown(&replay_in(&page));
    assert!(
        hands.iter().all(|&n| n == 2) && deck,
        "the teacher sees every card: {hands:?}"
    );
    // A graded game against a house bot: the same rule.
    let graded = format!("/people/{ann}/versions/1/items/1/games?game=1");
    let (status, page, _) = student.get(&graded);
    assert_eq!(status, 200, "{page}");
    let (hands, deck) = cards_shown(&replay_in(&page));
    assert!(!hands.is_empty() && hands.iter().all(|&n| n == 1) && !deck, "{hands:?}");
    let (_, page, _) = teacher.get(&graded);
    let (hands, _) = cards_shown(&replay_in(&page));
    assert!(hands.iter().all(|&n| n == 2), "{hands:?}");
    // The replay pages grading stored (each item's worst game), linked from her version page: the same rule.
    let (_, version_page, _) = student.get(&format!("/people/{ann}/versions/1"));
    let stored: Vec<&str> = version_page
        .split("href=\"")
        .skip(1)
        .filter_map(|r| r.split('"').next())
        .filter(|h| h.contains("/replays/"))
        .collect();
    assert!(
        !stored.is_empty(),
        "her version page links its graded games: {version_page}"
    );
    for link in stored {
        let (status, page, _) = student.get(link);
        assert_eq!(status, 200, "{link}");
        let (hands, deck) = cards_shown(&replay_in(&page));
        assert!(
            !hands.is_empty() && hands.iter().all(|&n| n == 1) && !deck,
            "{link}: a house bot's hand or the deck shown: {hands:?} {deck}"
        );
    }
    // Ladder games asked for by number: only her own open, each with her hand alone.
    let mut opened = 0;
    for id in 1..=40 {
        let (status, page, _) = student.get(&format!("/ladder/matches/{id}/games/1"));
        assert!([200, 403, 404].contains(&status), "match {id}: {status} {page}");
        if status == 200 {
            let (hands, deck) = cards_shown(&replay_in(&page));
            assert!(hands.iter().all(|&n| n == 1) && !deck, "match {id}: {hands:?}");
            opened += 1;
        }
    }
    assert!(opened > 0, "none of the first 40 matches is Ann's");
}

on_both!(a_student_walks_every_route_and_sees_only_their_own);

/// Grading first (issue 47 item 7): an upload made while the server's own
/// thread plays a batch of ladder matches does not wait for the batch. The
/// batch stops between two matches and gives back those it had not
/// started: once the upload is graded, some of the batch's matches are
/// waiting again or were claimed a second time. (Without it, every match
/// of the batch is played, once, before the upload's turn.)
fn an_upload_does_not_wait_for_a_ladder_batch(on: &On) {
    // Long matches (400 games each), so a batch lasts many seconds.
    let (dir, students) = ladder_course_with(on, "grading-first", &LADDER.replace("games = 10\n", "games = 400\n"));
    let server = on.serve(&dir);
    let token = |i: usize| students[i]["token"].clone();
    accepted(&server, &token(0), &bot("en-garde/aggressive"));
    accepted(&server, &token(1), &bot("en-garde/random"));
    // A batch the server's own thread has just claimed, most of it still to play.
    let started = Instant::now();
    let (first, last) = loop {
        let leased: u64 = on
            .scalar(&dir, "SELECT COUNT(*) FROM ladder_matches WHERE state = 'leased'")
            .parse()
            .unwrap();
        if leased >= 3 {
            let first = on.scalar(&dir, "SELECT MIN(id) FROM ladder_matches WHERE state = 'leased'");
            let last = on.scalar(&dir, "SELECT MAX(id) FROM ladder_matches WHERE state = 'leased'");
            break (first, last);
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the ladder never leased a batch of 3 matches"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    accepted(&server, &token(2), &bot("en-garde/cowardly"));
    let given_back: u64 = on
        .scalar(
            &dir,
            &format!(
                "SELECT COUNT(*) FROM ladder_matches WHERE id BETWEEN {first} AND {last} \
                 AND (state = 'queued' OR attempts >= 2)"
            ),
        )
        .parse()
        .unwrap();
    assert!(
        given_back > 0,
        "every match of the batch running at the upload was played before it was graded"
    );
}

on_both!(an_upload_does_not_wait_for_a_ladder_batch);

/// The class ranking is paid (issue 47 item 3): before the final tournament
/// a version page says the teacher's final tournament ranks the version
/// that counts; after it, every version page shows the ranking's points
/// and place, the gradebook and Canvas's file count them, and the class
/// zip's command plays the same tournament again: offline, every student
/// gets the points the server gave and the same Canvas file byte for byte.
fn the_final_tournament_pays_the_class_ranking_everywhere(on: &On) {
    use crate::server::csrf;
    // Frozen at once below: no ladder match is needed for the tournament.
    let (dir, students) = ladder_course_with(on, "ladder-rank", "\n[ladder]\ngames = 2\nversus_games = 0\n");
    let server = on.serve(&dir);
    let mut teacher = logged_in(
        &server,
        std::fs::read_to_string(dir.join("teacher-link.txt")).unwrap().trim(),
    );
    let (_, ladder, _) = teacher.get("/ladder");
    let form = csrf(&ladder);
    let (status, _) = teacher.post_form(
        "/teacher/ladder",
        &[("authenticity_token", &form), ("switch", "frozen"), ("on", "on")],
    );
    assert_eq!(status, 303);
    for (i, b) in [
        (0, "en-garde/aggressive"),
        (1, "en-garde/random"),
        (2, "en-garde/cowardly"),
    ] {
        let (code, v, err) = submit(&server, &students[i]["token"], &bot(b));
        assert_eq!(code, 0, "{err} {v}");
    }
    // Bo's second version does not count: he chooses his first.
    let (code, _, _) = submit(&server, &students[1]["token"], &bot("en-garde/aggressive"));
    assert_eq!(code, 0);
    let mut bo = logged_in(&server, &students[1]["link"]);
    let (_, home, _) = bo.get("/");
    assert_eq!(
        bo.post_form("/count", &[("authenticity_token", &csrf(&home)), ("version", "1")])
            .0,
        303
    );
    let bo_id = home
        .split("/people/")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap()
        .to_string();
    let (_, before, _) = bo.get(&format!("/people/{bo_id}/versions/1"));
    assert!(
        before.contains("pending / 10") && before.contains("the final tournament"),
        "the ranking is pending, and the page says what will rank it: {before}"
    );
    assert!(!before.contains("at the end of the course"), "{before}");
    let (_, unranked, _) = teacher.get("/teacher/gradebook.csv");
    let (_, frozen, _) = bo.get("/ladder");
    assert!(
        frozen.contains("The ladder is frozen: no matches are played") && !frozen.contains("without end"),
        "{frozen}"
    );

    let (status, body) = teacher.post_form(
        "/teacher/tournament",
        &[("authenticity_token", &form), ("format", "swiss"), ("games", "2")],
    );
    assert_eq!(status, 400, "grade-class cannot play Swiss again: {body}");
    let (status, body) = teacher.post_form(
        "/teacher/tournament",
        &[("authenticity_token", &form), ("format", "round-robin"), ("games", "2")],
    );
    assert_eq!(status, 303, "{body}");
    let started = Instant::now();
    loop {
        let (_, page, _) = teacher.get("/ladder");
        if page.contains("is published") {
            assert!(page.contains("class-ranking points"), "{page}");
            break;
        }
        assert!(!page.contains("could not"), "{page}");
        assert!(started.elapsed() < Duration::from_secs(300), "no tournament: {page}");
        std::thread::sleep(Duration::from_millis(500));
    }
    let (_, counted, _) = bo.get(&format!("/people/{bo_id}/versions/1"));
    assert!(
        !counted.contains("pending / 10"),
        "paid on the version that counts: {counted}"
    );
    assert!(counted.contains("in the class tournament"), "{counted}");
    assert!(
        ["ranked 1 of 3", "ranked 2 of 3", "ranked 3 of 3"]
            .iter()
            .any(|r| counted.contains(r)),
        "{counted}"
    );
    let (_, other, _) = bo.get(&format!("/people/{bo_id}/versions/2"));
    assert!(
        !other.contains("pending / 10") && other.contains("the class tournament played v1, the version that counts"),
        "{other}"
    );

    let (_, gradebook, _) = teacher.get("/teacher/gradebook.csv");
    let (_, canvas, _) = teacher.get("/teacher/grades-canvas.csv");
    let (status, bytes, _) = teacher.get_bytes("/teacher/class.zip");
    assert_eq!(status, 200);
    let out = dir.with_file_name("ladder-rank-unzipped");
    let _ = std::fs::remove_dir_all(&out);
    zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .expect("a zip")
        .extract(&out)
        .expect("unzips");
    let how = std::fs::read_to_string(out.join("HOW-TO-GRADE.txt")).unwrap();
    let command = how
        .lines()
        .find_map(|l| l.trim().strip_prefix("arena "))
        .expect("the command");
    assert!(
        command.contains("--tournament round-robin --tournament-games 2"),
        "{how}"
    );
    let run = Command::new("sh")
        .arg("-c")
        .arg(format!("'{}' {command}", arena_bin().display()))
        .current_dir(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let offline = std::fs::read_to_string(out.join("graded/gradebook.csv")).unwrap();
    fn column(csv: &str, id_col: &str, col: &str, id: &str) -> Option<String> {
        let mut r = csv::Reader::from_reader(csv.as_bytes());
        let h = r.headers().unwrap().clone();
        let (i, t) = (h.iter().position(|c| c == id_col)?, h.iter().position(|c| c == col)?);
        r.records()
            .map(Result::unwrap)
            .find(|row| &row[i] == id)
            .map(|row| row[t].to_string())
    }
    for id in ["s1", "s2", "s3"] {
        let served: f64 = column(&gradebook, "id", "points", id).unwrap().parse().unwrap();
        let graded: f64 = column(&offline, "id", "total", id).unwrap().parse().unwrap();
        assert_eq!(served, graded, "{id}: {gradebook}\n{offline}");
        let max = |csv: &str| column(csv, "id", "max_points", id).unwrap().parse::<f64>().unwrap();
        assert_eq!(
            max(&gradebook),
            max(&unranked) + 10.0,
            "the ranking's 10 points count in the total's maximum: {unranked}\n{gradebook}"
        );
        assert_eq!(
            column(&offline, "id", "max", id).unwrap().parse::<f64>().unwrap(),
            max(&gradebook),
            "{offline}"
        );
        let ranking = column(&offline, "id", "Class ranking", id).expect("the ranking's column offline");
        assert_ne!(ranking, "pending", "{offline}");
    }
    assert_eq!(
        std::fs::read_to_string(out.join("graded/grades-canvas.csv")).unwrap(),
        canvas,
        "Canvas's file, offline and from the server"
    );
}

on_both!(the_final_tournament_pays_the_class_ranking_everywhere);

/// A server with no grading thread (`--workers 0`) and no worker connected
/// says so (issue 47 item 10): the teacher's page and the student's page
/// say nothing is graded until a worker connects; `arena submit --wait`
/// then exits 3, "received, not graded yet", not 2 ("not submitted"); once
/// a worker connects the pages stop saying it and the version is graded.
/// `arena serve --help` says what the grading threads do.
fn nothing_is_graded_until_a_worker_connects_and_submit_says_received(on: &On) {
    let help = arena(&["serve", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout).replace('\n', " ");
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains("Grading threads of the server's own")
            && help.contains("grades the next waiting upload first")
            && help.contains("0: nothing is graded here"),
        "{help}"
    );
    let (dir, students) = ladder_course(on, "ladder-no-workers");
    let server = serve_with(&dir, &[&["--workers", "0"][..], &on.database()].concat());
    let words = "Nothing is graded until a worker connects";
    let mut teacher = logged_in(
        &server,
        std::fs::read_to_string(dir.join("teacher-link.txt")).unwrap().trim(),
    );
    let (_, page, _) = teacher.get("/");
    assert!(page.contains(words), "the teacher is told: {page}");
    let mut ann = logged_in(&server, &students[0]["link"]);
    let (_, page, _) = ann.get("/");
    assert!(page.contains(words), "the student is told: {page}");

    let out = arena(&[
        "submit",
        "--server",
        &server.url,
        "--token",
        &students[0]["token"],
        &bot("en-garde/aggressive").display().to_string(),
        "--wait",
        "2",
    ]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "received, not graded yet: {said}");
    assert!(said.contains("received as version 1, not graded yet"), "{said}");
    let out = arena(&[
        "submit",
        "--server",
        &server.url,
        "--token",
        "not-a-token",
        &bot("en-garde/aggressive").display().to_string(),
        "--wait",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(2), "not submitted");

    let cache = dir.with_file_name("ladder-no-workers-cache");
    let _w = worker(&server, &worker_token(on, &dir, "lab-1"), &cache);
    let started = Instant::now();
    loop {
        let (_, page, _) = ann.get("/");
        if !page.contains(words) && page.contains("class=\"ok\">accepted") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "a worker connected and grades: {page}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    let (_, page, _) = teacher.get("/");
    assert!(!page.contains(words), "{page}");
}

on_both!(nothing_is_graded_until_a_worker_connects_and_submit_says_received);

/// A course of `game` whose ladder plays a few short matches and rests,
/// and whose rubric plays `rubric_games` games an item (fast grading).
pub(crate) fn kind_course(
    on: &On,
    game: &str,
    name: &str,
    ladder: &str,
    rubric_games: usize,
) -> (
    std::path::PathBuf,
    Vec<std::collections::BTreeMap<&'static str, String>>,
) {
    let (dir, students) = on.course_for(game, name, &[]);
    let toml = dir.join("course.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    let start = text.find("\n[ladder]\n").expect("a [ladder] table");
    let end = text[start + 1..].find("\n[").map_or(text.len(), |e| start + 1 + e);
    std::fs::write(&toml, format!("{}{ladder}{}", &text[..start], &text[end..])).unwrap();
    let rubric = dir.join("rubric.toml");
    let text = std::fs::read_to_string(&rubric).unwrap();
    let text: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with("games = ") {
                format!("games = {rubric_games}")
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&rubric, text.join("\n") + "\n").unwrap();
    (dir, students)
}

/// The first link of the student's recent matches to game `g` of a match.
fn game_link(page: &str, g: usize) -> Option<String> {
    page.split("href=\"/ladder/matches/")
        .skip(1)
        .filter_map(|r| r.split('"').next())
        .map(|l| l.replace("&amp;", "&"))
        .find(|l| l.contains(&format!("/games/{g}?")))
}

/// A table game's ladder speaks of places (issue 47 item 10): President's
/// board heads its record "first / between / last" and shows each
/// version's mean place, the page says a match seats 4 bots for 24 games
/// (`[ladder] games = 10` rounded up to whole seat rotations), and every
/// one of the 24 games opens from the match's row, "game 24 of 24".
fn a_table_ladder_shows_places_and_every_game_of_a_match(on: &On) {
    let ladder =
        "\n[ladder]\ngames = 10\ntable = 4\nversus_games = 0\nmin_matches = 2\nrest_width = 1000.0\nmax_matches = 2\n";
    let (dir, students) = kind_course(on, "president", "ladder-table", ladder, 8);
    let server = on.serve(&dir);
    for (i, b) in [(0, "president/lowest"), (1, "president/random")] {
        let (code, v, err) = submit(&server, &students[i]["token"], &bot(b));
        assert_eq!(code, 0, "{err} {v}");
    }
    let b = wait_board(&server, &students[0]["token"], 300, "games for both", |b| {
        students_with(b, 1) == 2
    });
    for r in b["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["games"].as_u64() > Some(0))
    {
        let place = r["mean_position"].as_f64().expect("a mean place at a table");
        assert!((1.0..=4.0).contains(&place), "{r}");
        let (w, d, l, g) = (
            r["wins"].as_u64().unwrap(),
            r["draws"].as_u64().unwrap(),
            r["losses"].as_u64().unwrap(),
            r["games"].as_u64().unwrap(),
        );
        assert_eq!(w + d + l, g, "every game is a place: {r}");
        // First counts 1, last 4, between 2 or 3: the mean place lies between.
        let (lo, hi) = (
            (w as f64 + 2.0 * d as f64 + 4.0 * l as f64) / g as f64,
            (w as f64 + 3.0 * d as f64 + 4.0 * l as f64) / g as f64,
        );
        assert!(
            place >= lo - 1e-9 && place <= hi + 1e-9,
            "{place} not in [{lo}, {hi}]: {r}"
        );
    }
    let mut ann = logged_in(&server, &students[0]["link"]);
    let (_, page, _) = ann.get("/ladder");
    assert!(page.contains(">first / between / last</th>"), "{page}");
    assert!(page.contains(">mean place</th>"), "{page}");
    assert!(!page.contains("won / drawn / lost"), "{page}");
    assert!(
        page.contains("seats 4 bots at a table for 24 games") && page.contains("rounded up to whole seat rotations"),
        "{page}"
    );
    let (_, home, _) = ann.get("/");
    let ann_id = home
        .split("/ladder/people/")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap()
        .to_string();
    let (_, mine, _) = ann.get(&format!("/ladder/people/{ann_id}"));
    assert!(mine.contains(">first / between / last</th>"), "{mine}");
    // The plot shows the version on the ladder as the sentence above it does.
    let rating = mine
        .split(": rating ")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .unwrap_or_else(|| panic!("v1 is ranked, with its rating: {mine}"));
    assert!(
        mine.contains(&format!(">v1 {rating}</text>")),
        "plot and sentence agree on {rating}: {mine}"
    );
    let last = game_link(&mine, 24).unwrap_or_else(|| panic!("game 24 of the match links from its row: {mine}"));
    let (status, viewer, _) = ann.get(&format!("/ladder/matches/{last}"));
    assert_eq!(status, 200, "{viewer}");
    assert!(viewer.contains("game 24 of 24"), "{viewer}");
}

/// A solitaire's ladder shows the measure it is graded on (issue 47 item
/// 10): ConnectFwar's board has the rubric's baselines as house bots, a
/// mean score column and deals ahead / level / behind; a match of
/// `[ladder] games = 4` plays 4 deals, "game 4 of 4", each opened from its
/// row; the replay names every seat it shows (never "Ann Lee vs :").
fn a_solitaire_ladder_shows_mean_scores_beside_the_baselines(on: &On) {
    let ladder = "\n[ladder]\ngames = 4\nversus_games = 0\nmin_matches = 2\nrest_width = 1000.0\nmax_matches = 2\n";
    let (dir, students) = kind_course(on, "connect-fwar", "ladder-solitaire", ladder, 8);
    let server = on.serve(&dir);
    let (code, v, err) = submit(&server, &students[0]["token"], &bot("connect-fwar/basic"));
    assert_eq!(code, 0, "{err} {v}");
    let b = wait_board(&server, &students[0]["token"], 300, "Ann's games", |b| {
        students_with(b, 1) == 1
    });
    let houses: Vec<&str> = b["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["house"] == true)
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    for baseline in ["house:random", "house:suits", "house:ranks", "house:basic"] {
        assert!(
            houses.iter().any(|h| h.contains(baseline)),
            "{baseline} anchors the board: {houses:?}"
        );
    }
    let ann_row = b["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["house"] == false)
        .unwrap()
        .clone();
    assert!(ann_row["mean_score"].as_f64().is_some(), "{ann_row}");
    let mut ann = logged_in(&server, &students[0]["link"]);
    let (_, page, _) = ann.get("/ladder");
    assert!(page.contains(">mean score</th>"), "{page}");
    assert!(page.contains(">deals ahead / level / behind</th>"), "{page}");
    assert!(page.contains("on the same 4 deals"), "{page}");
    let (_, home, _) = ann.get("/");
    let ann_id = home
        .split("/ladder/people/")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap()
        .to_string();
    let (_, mine, _) = ann.get(&format!("/ladder/people/{ann_id}"));
    let last = game_link(&mine, 4).unwrap_or_else(|| panic!("deal 4 links from the row: {mine}"));
    assert!(game_link(&mine, 5).is_none(), "a match of 4 deals: {mine}");
    let (status, viewer, _) = ann.get(&format!("/ladder/matches/{last}"));
    assert_eq!(status, 200, "{viewer}");
    assert!(viewer.contains("game 4 of 4"), "{viewer}");
    assert!(!viewer.contains(" vs :") && !viewer.contains(" vs ,"), "{viewer}");
    // The graded items' replays name the baseline the bot is measured against.
    let pid = home
        .split("/people/")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap()
        .to_string();
    let (status, replay, _) = ann.get(&format!("/people/{pid}/versions/1/replays/bot-item1.html"));
    assert_eq!(status, 200, "{replay}");
    assert!(
        replay.contains("Ann Lee alone, against house:random"),
        "{}",
        &replay[..replay.len().min(3000)]
    );
    assert!(!replay.contains(" vs :"), "every seat named");
}

on_both!(
    a_table_ladder_shows_places_and_every_game_of_a_match,
    a_solitaire_ladder_shows_mean_scores_beside_the_baselines,
);
