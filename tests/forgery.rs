//! Workers that forge (issue 48): from the attacker's side, a worker that
//! speaks the real workers' API and returns forged results only where it
//! would guess it is not checked. Which results are played again is drawn
//! under the course's secret once each result is in, so the forger's guess
//! is worth nothing; a worker in doubt is checked as a new one again; a
//! grading verdict that would change a student's points is always graded
//! again before it counts; and the statistics compare every worker's
//! ladder results with the server's own.

use crate::ladder::{
    accepted, accepted_at, board, kind_course, ladder_course, ladder_course_with, post, row, students_with, wait_board,
    worker, worker_token,
};
use crate::server::{On, Server, on_both, serve_with};
use arena_server::ladder::audit::{self, DISABLE_Z, MIN_OWN, MIN_RESULTS};
use arena_server::ladder::types::Done;
use arena_server::play::Outcome;
use arena_tests::{arena, bot};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// A small deterministic generator (splitmix64): the synthetic matches
/// below are the same at every run.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The true strengths of the synthetic ladder: a strong, a middling and a weak bot.
const TRUE: [(&str, f64); 3] = [("s1", 1700.0), ("s2", 1500.0), ("s3", 1300.0)];

/// A 10-game duel between entrants `a` and `b` (indices into [`TRUE`]),
/// played honestly from `mix`, or forged so that `s3` (the weak bot) wins
/// every game; by `by` (0: the server), played again when `verified`.
fn duel(id: i64, a: usize, b: usize, mix: &mut Mix, forged: bool, by: i64, verified: bool) -> Done {
    let p = 1.0 / (1.0 + 10f64.powf((TRUE[b].1 - TRUE[a].1) / 400.0));
    let games: Vec<Value> = (0..10)
        .map(|g| {
            let first_wins = if forged { TRUE[a].0 == "s3" } else { mix.next() < p };
            // Seats alternate; the winner is a seat.
            let seats = if g % 2 == 0 { [0, 1] } else { [1, 0] };
            let winner = seats.iter().position(|&e| (e == 0) == first_wins);
            json!({"seats": seats, "scores": [0, 0], "winner": winner})
        })
        .collect();
    let outcome: Outcome = serde_json::from_value(json!({"games": games, "fuel": [1, 1]})).expect("an outcome");
    Done {
        id,
        keys: vec![TRUE[a].0.to_string(), TRUE[b].0.to_string()],
        outcome,
        finished_at: String::new(),
        by,
        verified,
    }
}

/// The pairings in turn, each way round.
fn pairing(i: usize) -> (usize, usize) {
    [(0, 1), (1, 2), (0, 2), (1, 0), (2, 1), (2, 0)][i % 6]
}

/// The statistical check alone (no match played again finds the forger):
/// ratings that are off by 150 Elo (as a fit polluted by forged results
/// would be) flag no honest worker, even one with 600 results; a worker
/// that forges a win for the weakest bot is disabled once its forged
/// results are a few among many, and the fewest that do it are measured.
#[test]
fn the_statistics_catch_a_forger_no_replay_found_and_spare_honest_workers() {
    let mut mix = Mix(48);
    // The server's own: 24 matches it played or played again.
    let mut done: Vec<Done> = (0..24)
        .map(|i| {
            let (a, b) = pairing(i);
            duel(
                i as i64,
                a,
                b,
                &mut mix,
                false,
                if i % 2 == 0 { 0 } else { 7 },
                i % 2 == 1,
            )
        })
        .collect();
    // Honest worker 7, with 600 results not played again.
    for i in 0..600 {
        let (a, b) = pairing(i);
        done.push(duel(1000 + i as i64, a, b, &mut mix, false, 7, false));
    }
    // Ratings off by 150 Elo for the weak bot: the check compares
    // residuals with the server's own, so a wrong fit accuses no one.
    let ratings: HashMap<String, f64> = [("s1", 1700.0), ("s2", 1500.0), ("s3", 1450.0)]
        .into_iter()
        .map(|(k, r)| (k.to_string(), r))
        .collect();
    let found = audit::audit(done.iter(), &ratings);
    assert!(found.is_empty(), "an honest worker is suspected: {found:#?}");
    // 1,000 honest courses, each with as little of the server's own as the
    // check accepts: none is disabled, and few are in doubt.
    let (mut doubted, mut disabled) = (0, 0);
    for course in 0..1000u64 {
        let mut mix = Mix(1_000_000 + course);
        let mut done: Vec<Done> = (0..9)
            .map(|i| {
                let (a, b) = pairing(i);
                duel(i as i64, a, b, &mut mix, false, 0, false)
            })
            .collect();
        for i in 0..(MIN_RESULTS + course as usize % 200) {
            let (a, b) = pairing(i + course as usize);
            done.push(duel(100 + i as i64, a, b, &mut mix, false, 7, false));
        }
        for s in audit::audit(done.iter(), &ratings) {
            doubted += 1;
            disabled += usize::from(s.z > DISABLE_Z);
        }
    }
    eprintln!("in 1,000 honest courses: {doubted} workers in doubt, {disabled} disabled");
    assert_eq!(disabled, 0, "an honest worker was disabled");
    assert!(doubted <= 50, "{doubted} honest workers in doubt");

    // Forger 9: honest for 40 results, then forging `forged` more.
    let forger = |forged: usize, mix: &mut Mix| -> Vec<Done> {
        (0..40 + forged)
            .map(|i| {
                let (a, b) = pairing(i);
                duel(5000 + i as i64, a, b, mix, i >= 40, 9, false)
            })
            .collect()
    };
    let fewest = (1..=200)
        .find(|&forged| {
            let mut all = done.clone();
            all.extend(forger(forged, &mut Mix(9)));
            audit::audit(all.iter(), &ratings)
                .iter()
                .any(|s| s.worker == 9 && s.z > DISABLE_Z)
        })
        .expect("the forger is found within 200 forged results");
    // Before it is disabled it is in doubt (checked as a new worker again).
    let doubted = (1..=fewest)
        .find(|&forged| {
            let mut all = done.clone();
            all.extend(forger(forged, &mut Mix(9)));
            audit::audit(all.iter(), &ratings).iter().any(|s| s.worker == 9)
        })
        .unwrap_or(fewest);
    eprintln!(
        "the statistics alone put a forger in doubt after {doubted} and disable it after {fewest} forged results among its 40 honest ones"
    );
    assert!(
        doubted < fewest,
        "in doubt ({doubted}) before it is disabled ({fewest})"
    );
    assert!(
        fewest <= 40,
        "a forger that makes the weakest bot win is found within 40 forged results ({fewest})"
    );
    let mut all = done.clone();
    all.extend(forger(fewest, &mut Mix(9)));
    let found = audit::audit(all.iter(), &ratings);
    let first = found.first().expect("the forger");
    assert_eq!((first.worker, first.key.as_str()), (9, "s3"), "{found:#?}");
    assert!(
        first.why().contains("too unlikely") && first.why().contains("s3"),
        "{}",
        first.why()
    );
    assert!(
        found.iter().all(|s| s.worker == 9),
        "only the forger is suspected: {found:#?}"
    );
    // Too few results to judge (all forged, but fewer than MIN_RESULTS): no verdict either way.
    let mut few = done[..24].to_vec();
    few.extend((0..MIN_RESULTS - 1).map(|i| {
        let (a, b) = pairing(i);
        duel(9000 + i as i64, a, b, &mut Mix(1), true, 9, false)
    }));
    assert!(audit::audit(few.iter(), &ratings).is_empty());
}

/// The true strengths of the synthetic President ladder: five bots 100 Elo apart.
const TABLE_TRUE: [(&str, f64); 5] = [
    ("t1", 1700.0),
    ("t2", 1600.0),
    ("t3", 1500.0),
    ("t4", 1400.0),
    ("t5", 1300.0),
];

/// The tables of four in turn: each leaves one of the five out.
fn table(i: usize) -> Vec<usize> {
    (0..5).filter(|&b| b != i % 5).collect()
}

/// A 12-game match at the table `at` (indices into [`TABLE_TRUE`]): each
/// game's finishing order drawn as Plackett-Luce draws it (ascending
/// exponential times of rates `10^(elo/400)`), the seats rotating; or
/// forged, `t5` (the weakest) first in every game and the others as seated.
fn table_match(id: i64, at: &[usize], mix: &mut Mix, forged: bool, by: i64, verified: bool) -> Done {
    let k = at.len();
    let games: Vec<Value> = (0..12)
        .map(|g| {
            let seats: Vec<usize> = (0..k).map(|s| (s + g) % k).collect();
            let mut order: Vec<(f64, usize)> = seats
                .iter()
                .enumerate()
                .map(|(seat, &e)| {
                    let w = 10f64.powf(TABLE_TRUE[at[e]].1 / 400.0);
                    let time = if forged {
                        if TABLE_TRUE[at[e]].0 == "t5" {
                            0.0
                        } else {
                            1.0 + seat as f64
                        }
                    } else {
                        -(1.0 - mix.next()).ln() / w
                    };
                    (time, seat)
                })
                .collect();
            order.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut positions = vec![0u32; k];
            for (place, &(_, seat)) in order.iter().enumerate() {
                positions[seat] = place as u32 + 1;
            }
            json!({"seats": seats, "scores": vec![0; k], "winner": order[0].1, "positions": positions})
        })
        .collect();
    let outcome: Outcome = serde_json::from_value(json!({"games": games, "fuel": vec![1; k]})).expect("an outcome");
    Done {
        id,
        keys: at.iter().map(|&b| TABLE_TRUE[b].0.to_string()).collect(),
        outcome,
        finished_at: String::new(),
        by,
        verified,
    }
}

/// The statistical check at a table (President): each entrant's place
/// score a match (the share of the others it finished ahead of) against
/// what Plackett-Luce expects of the fitted ratings, the worker's against
/// the server's own. As for duels: ratings 150 Elo off for the weakest
/// bot flag no honest worker, even one with 600 results, nor any of 1,000
/// with as few of the server's matches as the check accepts; a worker
/// that forges the weakest bot first at every table is in doubt, then
/// disabled, once its forged results are a few among its honest ones.
#[test]
fn the_statistics_catch_a_table_forger_and_spare_honest_workers() {
    let mut mix = Mix(4848);
    let ratings: HashMap<String, f64> = TABLE_TRUE
        .iter()
        .map(|&(k, r)| (k.to_string(), if k == "t5" { r + 150.0 } else { r }))
        .collect();
    // The server's own: 20 matches it played or played again (16 of each bot).
    let mut done: Vec<Done> = (0..20)
        .map(|i| {
            table_match(
                i as i64,
                &table(i),
                &mut mix,
                false,
                if i % 2 == 0 { 0 } else { 7 },
                i % 2 == 1,
            )
        })
        .collect();
    for i in 0..600 {
        done.push(table_match(1000 + i as i64, &table(i), &mut mix, false, 7, false));
    }
    let found = audit::audit(done.iter(), &ratings);
    assert!(found.is_empty(), "an honest worker is suspected: {found:#?}");
    let (mut doubted, mut disabled) = (0, 0);
    for course in 0..1000u64 {
        let mut mix = Mix(2_000_000 + course);
        // As few of the server's own as the check accepts: 7 tables, so
        // every bot sits at 5 or 6 of them (at least MIN_OWN).
        let mut done: Vec<Done> = (0..7)
            .map(|i| table_match(i as i64, &table(i), &mut mix, false, 0, false))
            .collect();
        for i in 0..(MIN_RESULTS + course as usize % 200) {
            done.push(table_match(
                100 + i as i64,
                &table(i + course as usize),
                &mut mix,
                false,
                7,
                false,
            ));
        }
        for s in audit::audit(done.iter(), &ratings) {
            doubted += 1;
            disabled += usize::from(s.z > DISABLE_Z);
        }
    }
    eprintln!("in 1,000 honest table courses: {doubted} workers in doubt, {disabled} disabled");
    assert_eq!(disabled, 0, "an honest worker was disabled");
    assert!(doubted <= 50, "{doubted} honest workers in doubt");

    // Forger 9: honest for 40 results, then forging `forged` more.
    let forger = |forged: usize, mix: &mut Mix| -> Vec<Done> {
        (0..40 + forged)
            .map(|i| table_match(5000 + i as i64, &table(i), mix, i >= 40, 9, false))
            .collect()
    };
    let caught = |forged: usize, z: f64| {
        let mut all = done.clone();
        all.extend(forger(forged, &mut Mix(9)));
        audit::audit(all.iter(), &ratings)
            .iter()
            .any(|s| s.worker == 9 && s.z > z)
    };
    let fewest = (1..=200)
        .find(|&forged| caught(forged, DISABLE_Z))
        .expect("the table forger is found within 200 forged results");
    let doubted = (1..=fewest).find(|&forged| caught(forged, 0.0)).unwrap_or(fewest);
    eprintln!(
        "the statistics alone put a table forger in doubt after {doubted} and disable it after {fewest} forged results among its 40 honest ones"
    );
    assert!(
        doubted < fewest,
        "in doubt ({doubted}) before it is disabled ({fewest})"
    );
    assert!(
        fewest <= 40,
        "a forger that seats the weakest bot first is found within 40 forged results ({fewest})"
    );
    let mut all = done.clone();
    all.extend(forger(fewest, &mut Mix(9)));
    let found = audit::audit(all.iter(), &ratings);
    let first = found.first().expect("the forger");
    assert_eq!((first.worker, first.key.as_str()), (9, "t5"), "{found:#?}");
    assert!(first.table, "{first:?}");
    assert!(
        first.why().contains("too unlikely")
            && first.why().contains("t5 placed")
            && first.why().contains("table results"),
        "{}",
        first.why()
    );
    assert!(
        found.iter().all(|s| s.worker == 9),
        "only the forger is suspected: {found:#?}"
    );
    // Too few results to judge: no verdict either way.
    let mut few = done[..20].to_vec();
    few.extend((0..MIN_RESULTS - 1).map(|i| table_match(9000 + i as i64, &table(i), &mut Mix(1), true, 9, false)));
    assert!(audit::audit(few.iter(), &ratings).is_empty());
}

/// Where a forger stops: it is refused (disabled), or a result of its is
/// being played again and it waits for that to end, as a worker that must
/// not be told anything would not; the tests wait for the check so that
/// how many results a forger got in depends on the secret alone, never on
/// how fast the server plays.
fn settled(on: &On, dir: &Path, id: i64) {
    let started = Instant::now();
    while on.scalar(dir, &format!("SELECT state FROM ladder_matches WHERE id = {id}")) == "checking" {
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "match {id} was never checked"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The hello a real `arena worker --jobs 1` on this machine sends: a
/// forger copies it so that nothing it says puts it in doubt.
fn hello_as_arena_worker(host: &str) -> Value {
    json!({"arena": env!("CARGO_PKG_VERSION"), "wasmtime": "48", "jobs": 1, "host": host})
}

fn this_host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

/// A forged result of ladder match `job` (as the claim gave it): every game
/// won by `favoured` when it plays, else by the second entrant.
fn forged(job: &Value, favoured: &str) -> Value {
    let games = job["games"].as_u64().unwrap_or(2) as usize;
    let keys: Vec<&str> = job["bots"]
        .as_array()
        .map(|b| b.iter().filter_map(|b| b["key"].as_str()).collect())
        .unwrap_or_default();
    let winner = keys.iter().position(|k| *k == favoured).unwrap_or(1);
    json!({
        "games": (0..games).map(|g| {
            let seats = if g % 2 == 0 { [0, 1] } else { [1, 0] };
            let seat = seats.iter().position(|&e| e == winner);
            json!({"seats": seats, "scores": [0, 0], "winner": seat})
        }).collect::<Vec<_>>(),
        "fuel": [1, 1],
    })
}

/// One claim of a match by a raw worker: the lease, or the refusal's status and text.
fn claim(server: &Server, token: &str, engine: &str) -> Result<Option<Value>, (u16, Value)> {
    claim_up_to(server, token, engine, 1)
}

/// One claim of up to `max` matches by a raw worker.
fn claim_up_to(server: &Server, token: &str, engine: &str, max: usize) -> Result<Option<Value>, (u16, Value)> {
    let (status, v) = post(
        server,
        token,
        "/api/worker/claim",
        &json!({"engine": engine, "max": max}),
    );
    match status {
        200 => Ok(Some(v)),
        204 => Ok(None),
        _ => Err((status, v)),
    }
}

/// The worker named `name`'s column `column`.
fn worker_column(on: &On, dir: &Path, name: &str, column: &str) -> String {
    on.scalar(dir, &format!("SELECT {column} FROM workers WHERE name = '{name}'"))
}

/// Wait until worker `name` has had `n` ladder results taken.
fn wait_matches(on: &On, dir: &Path, name: &str, n: u64) {
    let started = Instant::now();
    while worker_column(on, dir, name, "matches").parse::<u64>().unwrap_or(0) < n {
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "worker {name} never had {n} results taken"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A course whose two students' first versions (Ann's aggressive bot and
/// Bo's random one) were graded by the real `arena worker` `grader`, with
/// `--workers 0`: only workers play, the server checks them.
fn course_with_workers(on: &On, name: &str) -> (std::path::PathBuf, Vec<String>, Server, Vec<Value>, String) {
    let (dir, students) = ladder_course(on, name);
    let mut extra = vec!["--workers", "0"];
    extra.extend(on.database());
    let server = serve_with(&dir, &extra);
    let tokens: Vec<String> = students.iter().map(|s| s["token"].clone()).collect();
    let grader = worker_token(on, &dir, "grader");
    let honest = worker(&server, &grader, &dir.with_file_name("grader-cache"));
    let firsts: Vec<Value> = [(0, "en-garde/aggressive"), (1, "en-garde/random")]
        .into_iter()
        .map(|(i, b)| {
            let (url, token) = (server.url.clone(), tokens[i].clone());
            std::thread::spawn(move || accepted_at(&url, &token, &bot(b)))
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|u| u.join().expect("the upload"))
        .collect();
    wait_board(&server, &tokens[0], 300, "games from the grader", |b| {
        students_with(b, 10) == 2
    });
    drop(honest);
    (dir, tokens, server, firsts, grader)
}

/// A worker in doubt is checked as a new one again: a worker that played
/// 12 results honestly (a share of 3 in 13 is checked now) says hello from
/// another machine and returns a malformed result; both put it in doubt,
/// so its next result is certainly played again, and the forgery it
/// carries disables it at once, with every result it gave sent back.
fn a_worker_in_doubt_is_checked_as_a_new_worker_again(on: &On) {
    let (dir, _tokens, server, _firsts, _) = course_with_workers(on, "forgery-doubt");
    let token = worker_token(on, &dir, "doubted");
    let real = worker(&server, &token, &dir.with_file_name("doubted-cache"));
    wait_matches(on, &dir, "doubted", 12);
    drop(real);
    assert_eq!(worker_column(on, &dir, "doubted", "COALESCE(doubt, '')"), "");
    // Another machine behind the same token.
    let (status, welcome) = post(
        &server,
        &token,
        "/api/worker/hello",
        &hello_as_arena_worker("another-pc"),
    );
    assert_eq!(status, 200, "{welcome}");
    let engine = welcome["engine"].as_str().unwrap_or_default().to_string();
    assert!(
        worker_column(on, &dir, "doubted", "doubt").contains("another-pc"),
        "a worker on another machine is in doubt"
    );
    assert_eq!(
        worker_column(on, &dir, "doubted", "matches - matches_at_doubt"),
        "0",
        "its results are counted again from its doubt"
    );
    // A malformed result: refused, and in doubt again.
    let lease = loop {
        if let Some(l) = claim(&server, &token, &engine).expect("claimed") {
            break l;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let job = &lease["matches"][0];
    let (status, v) = post(
        &server,
        &token,
        "/api/worker/results",
        &json!({"lease": lease["lease"], "results": [{"id": job["id"], "outcome": {"games": [], "fuel": [1, 1, 1]}}]}),
    );
    assert_eq!(status, 422, "{v}");
    assert!(worker_column(on, &dir, "doubted", "doubt").contains("malformed"));
    // Its next result is the first since its doubt: played again for certain.
    let favoured = format!(
        "s{}",
        on.scalar(&dir, "SELECT s.id FROM submissions s JOIN people p ON p.id = s.person_id WHERE p.school_id = 's2' AND s.version = 1")
    );
    let (status, taken) = post(
        &server,
        &token,
        "/api/worker/results",
        &json!({"lease": lease["lease"], "results": [{"id": job["id"], "outcome": forged(job, &favoured)}]}),
    );
    assert_eq!(status, 200, "{taken}");
    assert_eq!(taken["taken"][0], job["id"], "{taken}");
    let id = job["id"].as_i64().unwrap_or_default();
    settled(on, &dir, id);
    let (status, v) = post(
        &server,
        &token,
        "/api/worker/claim",
        &json!({"engine": engine, "max": 1}),
    );
    assert_eq!(
        status, 403,
        "the first forged result after a doubt disables the worker: {v}"
    );
    assert!(
        v["error"]
            .as_str()
            .unwrap_or_default()
            .contains("played again on the server"),
        "{v}"
    );
    assert_eq!(
        on.scalar(
            &dir,
            "SELECT COUNT(*) FROM ladder_matches WHERE played_by = (SELECT id FROM workers WHERE name = 'doubted')"
        ),
        "0",
        "its 12 honest results went back with the forged one"
    );
}

/// The most forged ladder results a forger gets in before it is caught:
/// once its share has fallen to `verify_percent` (2% in this course), each
/// result is played again with a chance of at least 1 in 50, drawn under
/// the secret independently of the rest, so 700 forged results all pass
/// unchecked with a chance of 0.98^700 < 1e-6. The statistics usually find
/// it far sooner (see the measurement the test prints).
const CAUGHT_WITHIN: usize = 700;

/// A forging worker from the attacker's side: it plays its first 20
/// results honestly with the real `arena worker` (while the server checks
/// a new worker most), then, speaking the workers' API with the same hello,
/// returns a forged result (Bo's random bot wins every game) for every
/// match, guessing, as a worker could before issue 48, that its results
/// are no longer checked. It is caught (disabled, the reason named) within
/// [`CAUGHT_WITHIN`] forged results; everything it returned goes back and
/// an honest worker's games put the aggressive bot back above the random
/// one. Then a worker that graded 4 jobs honestly returns 30/30-style full
/// marks for Bo's random bot: the verdict waits in `checking` (the version
/// shows as being checked, no points), is graded again on the server,
/// disables the worker, and the gradebook only ever shows the honest score.
fn a_forging_worker_is_caught_within_a_bound_and_undone(on: &On) {
    let (dir, tokens, server, firsts, grader) = course_with_workers(on, "forgery");
    let bo_v1 = on.scalar(
        &dir,
        "SELECT s.id FROM submissions s JOIN people p ON p.id = s.person_id WHERE p.school_id = 's2' AND s.version = 1",
    );
    let (ann_key, bo_key) = (
        format!(
            "s{}",
            on.scalar(&dir, "SELECT s.id FROM submissions s JOIN people p ON p.id = s.person_id WHERE p.school_id = 's1' AND s.version = 1")
        ),
        format!("s{bo_v1}"),
    );
    // Its honest start, by the real worker.
    let token = worker_token(on, &dir, "forger");
    let real = worker(&server, &token, &dir.with_file_name("forger-cache"));
    wait_matches(on, &dir, "forger", 20);
    drop(real);
    let (status, welcome) = post(
        &server,
        &token,
        "/api/worker/hello",
        &hello_as_arena_worker(&this_host()),
    );
    assert_eq!(status, 200, "{welcome}");
    let engine = welcome["engine"].as_str().unwrap_or_default().to_string();
    assert_eq!(
        worker_column(on, &dir, "forger", "COALESCE(doubt, '')"),
        "",
        "the forger gave no cause for doubt"
    );
    let forger_id = welcome["worker"].as_i64().unwrap_or_default();
    // Forging, one match at a time, each result left to be checked or not.
    let mut sent: Vec<i64> = Vec::new();
    let started = Instant::now();
    let refusal = loop {
        assert!(
            sent.len() <= CAUGHT_WITHIN,
            "{} forged results and not caught",
            sent.len()
        );
        assert!(started.elapsed() < Duration::from_secs(1800), "forging for 30 minutes");
        let lease = match claim(&server, &token, &engine) {
            Ok(Some(l)) => l,
            Ok(None) => {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
            Err((status, v)) => {
                assert_eq!(status, 403, "{v}");
                break v;
            }
        };
        let job = &lease["matches"][0];
        let (status, taken) = post(
            &server,
            &token,
            "/api/worker/results",
            &json!({"lease": lease["lease"], "results": [{"id": job["id"], "outcome": forged(job, &bo_key)}]}),
        );
        if status == 403 {
            break taken;
        }
        assert_eq!(status, 200, "{taken}");
        if taken["taken"][0] == job["id"] {
            let id = job["id"].as_i64().unwrap_or_default();
            sent.push(id);
            settled(on, &dir, id);
        }
    };
    let why = refusal["error"].as_str().unwrap_or_default().to_string();
    eprintln!("the forger was caught after {} forged results: {why}", sent.len());
    assert!(
        why.contains("played again on the server") || why.contains("too unlikely"),
        "{why}"
    );
    assert!(!sent.is_empty() && sent.len() <= CAUGHT_WITHIN);
    // Undone: nothing it returned counts, its matches are to be played again.
    assert_eq!(
        on.scalar(
            &dir,
            &format!("SELECT COUNT(*) FROM ladder_matches WHERE played_by = {forger_id} OR worker_id = {forger_id}")
        ),
        "0"
    );
    let list: Vec<String> = sent.iter().map(i64::to_string).collect();
    assert_eq!(
        on.scalar(
            &dir,
            &format!(
                "SELECT COUNT(*) FROM ladder_matches WHERE state = 'done' AND id IN ({})",
                list.join(",")
            )
        ),
        "0",
        "no forged match counts until someone else plays it"
    );
    let mut args = vec!["course", "worker-token", dir.to_str().unwrap_or_default(), "--list"];
    args.extend(on.database());
    let listed = String::from_utf8_lossy(&arena(&args).stdout).to_string();
    assert!(listed.contains("(forger)") && listed.contains("disabled:"), "{listed}");
    // An honest worker plays on: the ratings are the honest ones again.
    let honest = worker(&server, &grader, &dir.with_file_name("grader-cache"));
    let b = wait_board(
        &server,
        &tokens[0],
        600,
        "the aggressive bot above the random one",
        |b| {
            let rating = |key: &str| row(b, |r| r["key"] == key).and_then(|r| r["rating"].as_f64());
            students_with(b, 20) == 2
                && rating(&ann_key)
                    .zip(rating(&bo_key))
                    .is_some_and(|(a, r)| a > r + 100.0)
        },
    );
    eprintln!("after the forger: {}", b["rows"]);

    // A grading forger: the grader grades Ann's second version and its test (4 jobs in all).
    accepted_at(&server.url, &tokens[0], &bot("en-garde/aggressive"));
    let started = Instant::now();
    while on.scalar(&dir, "SELECT COUNT(*) FROM jobs WHERE state <> 'done'") != "0" {
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "the grader never finished"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    drop(honest);
    let upload = {
        let (url, token) = (server.url.clone(), tokens[1].clone());
        std::thread::spawn(move || accepted_at(&url, &token, &bot("en-garde/random")))
    };
    let (status, welcome) = post(
        &server,
        &grader,
        "/api/worker/hello",
        &hello_as_arena_worker(&this_host()),
    );
    assert_eq!(status, 200, "{welcome}");
    assert_eq!(worker_column(on, &dir, "grader", "COALESCE(doubt, '')"), "");
    let engine = welcome["engine"].as_str().unwrap_or_default().to_string();
    let job = loop {
        let (status, job) = post(
            &server,
            &grader,
            "/api/worker/jobs/claim",
            &json!({"engine": engine, "max": 1}),
        );
        if status == 200 && job["kind"] == "grade" {
            break job;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let honest_score = firsts[1]["score"].as_f64().expect("Bo's first version has a score");
    let max = firsts[1]["max_score"].as_f64().expect("a maximum");
    assert!(honest_score < max, "the random bot does not get full marks honestly");
    let full_marks = json!({
        "accepted": true, "reason": null, "toolchain": "rustc", "check": null, "check_text": "fine",
        "grade": {"total": max}, "grade_text": format!("{max} points"), "score": max, "max_score": max, "failed": false,
    });
    let (status, taken) = post(
        &server,
        &grader,
        "/api/worker/jobs/result",
        &json!({"job": job["job"], "lease": job["lease"], "verdict": full_marks}),
    );
    assert_eq!((status, &taken["taken"]), (200, &Value::Bool(true)), "{taken}");
    // Taken, but as a verdict to check: no points until the server graded it too.
    let job_id = job["job"].as_i64().unwrap_or_default();
    assert_eq!(
        on.scalar(&dir, &format!("SELECT state FROM jobs WHERE id = {job_id}")),
        "checking"
    );
    let bo_v2 = "(SELECT s.id FROM submissions s JOIN people p ON p.id = s.person_id WHERE p.school_id = 's2' AND s.version = 2)";
    let shown = |column: &str| {
        on.scalar(
            &dir,
            &format!("SELECT COALESCE(CAST({column} AS TEXT), '') FROM submissions WHERE id = {bo_v2}"),
        )
    };
    assert_eq!(shown("state"), "checking");
    assert_eq!(shown("score"), "", "no points while the verdict is checked");
    let started = Instant::now();
    loop {
        let score = shown("score");
        assert!(
            score.is_empty() || score.parse::<f64>().is_ok_and(|s| (s - max).abs() > 1e-9),
            "the forged full marks reached the gradebook: {score}"
        );
        let (status, v) = post(
            &server,
            &grader,
            "/api/worker/jobs/claim",
            &json!({"engine": engine, "max": 1}),
        );
        if status == 403 {
            assert!(
                v["error"]
                    .as_str()
                    .unwrap_or_default()
                    .contains("differed when done again on the server"),
                "{v}"
            );
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "the grade forger is still taken"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    // An honest worker grades the version again: the honest score, never the forged one.
    let fresh = worker_token(on, &dir, "fresh");
    let _fresh = worker(&server, &fresh, &dir.with_file_name("fresh-cache"));
    let v2 = upload.join().expect("the upload");
    assert_eq!(v2["version"], 2, "{v2:#}");
    assert_eq!(v2["score"].as_f64(), Some(honest_score), "{v2:#}");
}

/// Forge every result as `forge` makes it, from the first, as worker
/// `forger` (its `token` said hello with `engine`): 29 at once, which is too
/// few to be judged (it is not disabled by the fit that counts them), then
/// one at a time, waiting after each for the fit whose board counts it
/// (read with the `student`'s token): that fit judged it, so the count
/// depends on the results, not on timing. Only the forger plays, so the
/// board's matches grow by exactly what it sent. (Waiting for two fits
/// instead cost about 30 s a result: with nothing new to fold, the second
/// fit comes only after the fitter's 30 s wait.)
/// How many were taken before it was refused, and why it was.
fn forge_until_disabled(
    on: &On,
    dir: &Path,
    server: &Server,
    student: &str,
    token: &str,
    engine: &str,
    forge: &dyn Fn(&Value) -> Value,
) -> (usize, String) {
    let fitted = || {
        let b = board(server, student);
        (b["serial"].as_u64().unwrap_or(0), b["matches"].as_u64().unwrap_or(0))
    };
    // The restarted server's first fit folds whatever its own thread
    // finished before: from there on, only the forger's results count.
    let waited = Instant::now();
    while fitted().0 == 0 {
        assert!(waited.elapsed() < Duration::from_secs(300), "no fit");
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut counted = fitted().1;
    let mut sent = 0;
    let started = Instant::now();
    let why = 'forging: loop {
        assert!(sent <= STATISTICS_WITHIN, "{sent} forged results and not caught");
        assert!(started.elapsed() < Duration::from_secs(1800), "forging for 30 minutes");
        // First all but one of the results it takes to be judged, at once: no verdict on so few.
        let want = if sent == 0 { MIN_RESULTS - 1 } else { 1 };
        let mut leases = Vec::new();
        let mut got = 0;
        while got < want {
            match claim_up_to(server, token, engine, want - got) {
                Ok(Some(l)) => {
                    got += l["matches"].as_array().map_or(0, Vec::len);
                    leases.push(l);
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(50)),
                Err((status, v)) => {
                    assert_eq!(status, 403, "{v}");
                    break 'forging v["error"].as_str().unwrap_or_default().to_string();
                }
            }
        }
        let before = sent;
        for lease in &leases {
            let results: Vec<Value> = lease["matches"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|job| json!({"id": job["id"], "outcome": forge(job)}))
                .collect();
            let (status, taken) = post(
                server,
                token,
                "/api/worker/results",
                &json!({"lease": lease["lease"], "results": results}),
            );
            if status == 403 {
                break 'forging taken["error"].as_str().unwrap_or_default().to_string();
            }
            assert_eq!(status, 200, "{taken}");
            for id in taken["taken"].as_array().into_iter().flatten() {
                // Not waiting to be played again: done, or (when a fit has
                // disabled the forger since) back in the queue and leased anew.
                assert_ne!(
                    on.scalar(dir, &format!("SELECT state FROM ladder_matches WHERE id = {id}")),
                    "checking",
                    "nothing is played again in this course"
                );
                sent += 1;
            }
        }
        // The fit whose board counts these results has judged them (a fit
        // folds, judges, then publishes); one that disabled the forger
        // takes its matches back at the next fit.
        let waited = Instant::now();
        loop {
            let (_, matches) = fitted();
            if matches >= counted + (sent - before) as u64 {
                counted = matches;
                break;
            }
            if !worker_column(on, dir, "forger", "COALESCE(disabled_at, '')").is_empty() {
                break;
            }
            assert!(waited.elapsed() < Duration::from_secs(300), "no fit counted them");
            std::thread::sleep(Duration::from_millis(100));
        }
        if sent < MIN_RESULTS {
            assert_eq!(
                worker_column(on, dir, "forger", "COALESCE(disabled_at, '')"),
                "",
                "a worker is not judged on fewer than {MIN_RESULTS} results ({sent})"
            );
        }
    };
    (sent, why)
}

/// The course in `dir` served again with no thread of its own: once the
/// server has its own results to compare with, every match is the
/// worker's to claim. With a thread of its own the server plays a small
/// class's few queued matches within milliseconds, and how many the
/// forger gets (so how many results it takes to judge it) would depend
/// on the machine's load.
fn only_workers_play(server: Server, dir: &Path, on: &On) -> Server {
    drop(server);
    let mut extra = vec!["--workers", "0"];
    extra.extend(on.database());
    serve_with(dir, &extra)
}

/// A ladder whose workers' results are never played again: only the
/// statistics can find a forger.
const UNCHECKED: &str = "\n[ladder]\ngames = 10\nversus_games = 0\nversus_elo = 20.0\nverify_first = 0\nverify_percent = 0\nlease_seconds = 4\nmin_matches = 20\nrest_width = 0.0\nmax_matches = 0\n";

/// The most forged results the statistics let in when nothing is played
/// again: a worker is judged from its 30th result ([`MIN_RESULTS`]), and a
/// forger that makes one bot win every match moves every entrant's residual
/// by far more than 6 standard errors at once (the unit test above needs 37
/// forged results diluted among 40 honest ones); twice that is room.
const STATISTICS_WITHIN: usize = 2 * MIN_RESULTS;

/// The statistics find a forger no replay checks: the course plays its own
/// matches (`--workers 1`) but never plays a worker's result again; a
/// worker forges every result from its first (Bo's random bot wins every
/// game, or the second entrant): 29 at once, which is too few to be
/// judged (it is not disabled after two fits), then one at a time, waiting
/// after each for two fits of the ratings, so the count depends on the
/// results, not on timing. It is
/// disabled by the statistics ("too unlikely against the server's own")
/// within [`STATISTICS_WITHIN`] forged results, nothing it returned counts,
/// and the aggressive bot stays rated above the random one.
fn the_statistics_catch_a_forger_that_no_replay_checks(on: &On) {
    let (dir, students) = ladder_course_with(on, "forgery-statistics", UNCHECKED);
    let mut extra = vec!["--workers", "1"];
    extra.extend(on.database());
    let server = serve_with(&dir, &extra);
    let tokens: Vec<String> = students.iter().map(|s| s["token"].clone()).collect();
    accepted(&server, &tokens[0], &bot("en-garde/aggressive"));
    accepted(&server, &tokens[1], &bot("en-garde/random"));
    // The statistics compare a worker with the server's own results, and
    // judge no entrant before the server has MIN_OWN matches of it (10
    // games each).
    wait_board(&server, &tokens[0], 300, "the server's own games", |b| {
        students_with(b, 10 * MIN_OWN as u64) == 2
    });
    let server = only_workers_play(server, &dir, on);
    let key = |school: &str| {
        format!(
            "s{}",
            on.scalar(
                &dir,
                &format!("SELECT s.id FROM submissions s JOIN people p ON p.id = s.person_id WHERE p.school_id = '{school}' AND s.version = 1")
            )
        )
    };
    let (ann_key, bo_key) = (key("s1"), key("s2"));
    let token = worker_token(on, &dir, "forger");
    let (status, welcome) = post(
        &server,
        &token,
        "/api/worker/hello",
        &hello_as_arena_worker(&this_host()),
    );
    assert_eq!(status, 200, "{welcome}");
    let engine = welcome["engine"].as_str().unwrap_or_default().to_string();
    let forger_id = welcome["worker"].as_i64().unwrap_or_default();
    let (sent, why) = forge_until_disabled(on, &dir, &server, &tokens[0], &token, &engine, &|job| {
        forged(job, &bo_key)
    });
    eprintln!("the statistics caught the forger after {sent} forged results: {why}");
    assert!(why.contains("too unlikely against the server's own"), "{why}");
    assert!((MIN_RESULTS..=STATISTICS_WITHIN).contains(&sent), "{sent}");
    assert_eq!(
        on.scalar(
            &dir,
            &format!("SELECT COUNT(*) FROM ladder_matches WHERE played_by = {forger_id} OR worker_id = {forger_id}")
        ),
        "0",
        "nothing the forger returned counts"
    );
    // The teacher reads why, in the list of workers and on the health panel (the same column).
    let mut args = vec!["course", "worker-token", dir.to_str().unwrap_or_default(), "--list"];
    args.extend(on.database());
    let listed = String::from_utf8_lossy(&arena(&args).stdout).to_string();
    assert!(
        listed.contains("(forger)") && listed.contains("too unlikely against the server's own"),
        "{listed}"
    );
    // The server's own thread plays again what the forger's matches were.
    let mut extra = vec!["--workers", "1"];
    extra.extend(on.database());
    drop(server);
    let server = serve_with(&dir, &extra);
    wait_board(
        &server,
        &tokens[0],
        300,
        "the aggressive bot above the random one",
        |b| {
            let rating = |key: &str| row(b, |r| r["key"] == key).and_then(|r| r["rating"].as_f64());
            rating(&ann_key)
                .zip(rating(&bo_key))
                .is_some_and(|(a, r)| a > r + 100.0)
        },
    );
}

/// A forged result of table match `job` (as the claim gave it): the seats
/// rotate as a real match's do, and `favoured` finishes first in every
/// game, the others in the order they sit.
fn forged_table(job: &Value, favoured: &str) -> Value {
    let games = job["games"].as_u64().unwrap_or(4) as usize;
    let keys: Vec<&str> = job["bots"]
        .as_array()
        .map(|b| b.iter().filter_map(|b| b["key"].as_str()).collect())
        .unwrap_or_default();
    let n = keys.len();
    let first = keys.iter().position(|k| *k == favoured);
    json!({
        "games": (0..games).map(|g| {
            let seats: Vec<usize> = (0..n).map(|s| (s + g) % n).collect();
            let mut positions = vec![0u32; n];
            let order = (0..n)
                .filter(|&s| Some(seats[s]) == first)
                .chain((0..n).filter(|&s| Some(seats[s]) != first));
            for (place, seat) in (1..).zip(order) {
                positions[seat] = place;
            }
            let winner = positions.iter().position(|&p| p == 1);
            json!({"seats": seats, "scores": vec![0; n], "winner": winner, "positions": positions})
        }).collect::<Vec<_>>(),
        "fuel": vec![1; n],
    })
}

/// [`UNCHECKED`] at President's tables of four.
const UNCHECKED_TABLE: &str = "\n[ladder]\ngames = 10\ntable = 4\nversus_games = 0\nversus_elo = 20.0\nverify_first = 0\nverify_percent = 0\nlease_seconds = 4\nmin_matches = 20\nrest_width = 0.0\nmax_matches = 0\n";

/// The statistics find a forger of President tables that no replay checks
/// (issue 48: tables were checked by replay only): the course plays its
/// own tables of four (`--workers 1`, Ann's lowest-card bot, Bo's random
/// one and house bots) and never plays a worker's result again, so a
/// forger that guesses its results unchecked guesses right, and forges
/// every one from its first: Bo's random bot first in every game, the
/// others in the order they sit. Judged as [`forge_until_disabled`] does
/// it, it is disabled by the place statistics ("... placed ... table
/// results") within [`STATISTICS_WITHIN`] forged results, nothing it
/// returned counts, and Bo's mean place on the board is an honest one again.
fn the_statistics_catch_a_table_forger_that_no_replay_checks(on: &On) {
    let (dir, students) = kind_course(on, "president", "forgery-table", UNCHECKED_TABLE, 4);
    let mut extra = vec!["--workers", "1"];
    extra.extend(on.database());
    let server = serve_with(&dir, &extra);
    let tokens: Vec<String> = students.iter().map(|s| s["token"].clone()).collect();
    accepted(&server, &tokens[0], &bot("president/lowest"));
    accepted(&server, &tokens[1], &bot("president/random"));
    // Five of the server's own tables of each (a match seats 4 for 24 games).
    wait_board(&server, &tokens[0], 600, "the server's own tables", |b| {
        students_with(b, 5 * 24) == 2
    });
    let server = only_workers_play(server, &dir, on);
    let bo_key = format!(
        "s{}",
        on.scalar(
            &dir,
            "SELECT s.id FROM submissions s JOIN people p ON p.id = s.person_id WHERE p.school_id = 's2' AND s.version = 1"
        )
    );
    let token = worker_token(on, &dir, "forger");
    let (status, welcome) = post(
        &server,
        &token,
        "/api/worker/hello",
        &hello_as_arena_worker(&this_host()),
    );
    assert_eq!(status, 200, "{welcome}");
    let engine = welcome["engine"].as_str().unwrap_or_default().to_string();
    let forger_id = welcome["worker"].as_i64().unwrap_or_default();
    let (sent, why) = forge_until_disabled(on, &dir, &server, &tokens[0], &token, &engine, &|job| {
        forged_table(job, &bo_key)
    });
    eprintln!("the statistics caught the table forger after {sent} forged results: {why}");
    assert!(
        why.contains("too unlikely against the server's own")
            && why.contains(" placed ")
            && why.contains("table results"),
        "{why}"
    );
    assert!((MIN_RESULTS..=STATISTICS_WITHIN).contains(&sent), "{sent}");
    assert_eq!(
        on.scalar(
            &dir,
            &format!("SELECT COUNT(*) FROM ladder_matches WHERE played_by = {forger_id} OR worker_id = {forger_id}")
        ),
        "0",
        "nothing the forger returned counts"
    );
    assert_eq!(
        on.scalar(
            &dir,
            &format!("SELECT COUNT(*) FROM ladder_counts WHERE played_by = {forger_id}")
        ),
        "0",
        "nor is any of it in the counts"
    );
    let mut args = vec!["course", "worker-token", dir.to_str().unwrap_or_default(), "--list"];
    args.extend(on.database());
    let listed = String::from_utf8_lossy(&arena(&args).stdout).to_string();
    assert!(
        listed.contains("(forger)") && listed.contains("too unlikely against the server's own"),
        "{listed}"
    );
    // Forged, Bo's bot was first in every game (a mean place of 1); the
    // server's own thread plays again what the forger's matches were.
    let mut extra = vec!["--workers", "1"];
    extra.extend(on.database());
    drop(server);
    let server = serve_with(&dir, &extra);
    wait_board(&server, &tokens[0], 300, "Bo's honest mean place", |b| {
        row(b, |r| r["key"] == bo_key.as_str())
            .and_then(|r| r["mean_position"].as_f64())
            .is_some_and(|p| p > 1.5)
    });
}

on_both!(
    a_worker_in_doubt_is_checked_as_a_new_worker_again,
    a_forging_worker_is_caught_within_a_bound_and_undone,
    the_statistics_catch_a_forger_that_no_replay_checks,
    the_statistics_catch_a_table_forger_that_no_replay_checks,
);
