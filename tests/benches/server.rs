//! The course server under a class's load, on loopback: not a test, it
//! prints the numbers docs/performance.md ("The course server") quotes.
//!
//! - upload to verdict for a Rust and a Python bot (the first upload of a
//!   file compiles it; the same file from another student is compiled once);
//! - a class uploading at once (`ARENA_BENCH_STUDENTS`, default 200): time to
//!   the acknowledgement and to the verdict, p50 and p99, and any error;
//! - a student's page while the whole class is re-graded: p50, p99, max;
//! - the server's resident memory (peak and at the end).
//!
//! ```text
//! bash example-bots/build.sh en-garde/aggressive en-garde/cowardly en-garde/random en-garde/aggressive-py
//! cargo bench -p arena-tests --bench server
//! ```
//! The server runs with its default workers (half the cores) and SQLite.

use arena_tests::{arena, arena_bin, bot, temp, url_encode};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(600)))
        .build()
        .into()
}

/// A course of `n` students; their tokens, and the teacher's.
fn course(n: usize) -> (PathBuf, Vec<String>, String) {
    let dir = temp("bench-server").join("course");
    let roster = dir.with_file_name("roster.csv");
    let mut csv = String::from("name,email,id\n");
    for i in 0..n {
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
    // A class uploading at once is the load measured, not the hourly limit.
    let toml = std::fs::read_to_string(dir.join("course.toml")).unwrap();
    std::fs::write(
        dir.join("course.toml"),
        toml.replace("uploads_per_hour = 30", "uploads_per_hour = 1000")
            .replace("logins_per_minute = 120", "logins_per_minute = 1000000"),
    )
    .unwrap();
    let tokens = std::fs::read_to_string(dir.join("tokens.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').nth(1).unwrap().to_string())
        .collect();
    let teacher = std::fs::read_to_string(dir.join("teacher-link.txt")).unwrap();
    let teacher = teacher.trim().rsplit('/').next().unwrap().to_string();
    (dir, tokens, teacher)
}

fn serve(dir: &Path) -> Server {
    let mut child = Command::new(arena_bin())
        .args(["serve", &dir.display().to_string(), "--listen", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("start arena serve");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next().and_then(Result::ok).unwrap_or_default();
    let url = first
        .split(" at ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .unwrap()
        .to_string();
    std::thread::spawn(move || for _ in lines.by_ref() {});
    Server { child, url }
}

/// Upload `file` as the student of `token`: the time to the acknowledgement, and the version.
fn upload(agent: &ureq::Agent, url: &str, token: &str, file: &[u8]) -> Result<(Duration, i64), String> {
    let started = Instant::now();
    let mut r = agent
        .post(&format!("{url}/api/submissions"))
        .header("Authorization", &format!("Bearer {token}"))
        .header("X-File-Name", "bot.wasm")
        .send(file)
        .map_err(|e| e.to_string())?;
    let took = started.elapsed();
    let v: serde_json::Value = r.body_mut().read_json().map_err(|e| e.to_string())?;
    if r.status().as_u16() != 202 {
        return Err(format!("{}: {v}", r.status()));
    }
    Ok((took, v["version"].as_i64().unwrap_or(0)))
}

/// Wait for the verdict of `version`, polling every `every`.
fn verdict(agent: &ureq::Agent, url: &str, token: &str, version: i64, every: Duration) -> Result<String, String> {
    loop {
        let mut r = agent
            .get(&format!("{url}/api/submissions/{version}"))
            .header("Authorization", &format!("Bearer {token}"))
            .call()
            .map_err(|e| e.to_string())?;
        let v: serde_json::Value = r.body_mut().read_json().map_err(|e| e.to_string())?;
        match v["state"].as_str() {
            Some("queued" | "running") => std::thread::sleep(every),
            Some(s) => return Ok(s.to_string()),
            None => return Err(v.to_string()),
        }
    }
}

fn one(agent: &ureq::Agent, url: &str, token: &str, file: &[u8]) -> (Duration, String) {
    let started = Instant::now();
    let (_, version) = upload(agent, url, token, file).expect("upload");
    let state = verdict(agent, url, token, version, Duration::from_millis(20)).expect("verdict");
    (started.elapsed(), state)
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// `VmHWM` and `VmRSS` of a process, in MiB.
fn memory(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1024.0
    };
    (field("VmHWM:"), field("VmRSS:"))
}

/// A logged-in browser's cookie for `token`'s login link.
fn session(agent: &ureq::Agent, url: &str, token: &str) -> String {
    let r = agent.get(&format!("{url}/login/{token}")).call().expect("login");
    r.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|c| c.to_str().ok()?.split(';').next().map(str::to_string))
        .collect::<Vec<_>>()
        .join("; ")
}

fn main() {
    let n: usize = std::env::var("ARENA_BENCH_STUDENTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let (dir, tokens, teacher) = course(n.max(8));
    let server = serve(&dir);
    let url = server.url.clone();
    let agent = agent();
    let rust = std::fs::read(bot("en-garde/aggressive")).expect("build the example bots first");
    let python = std::fs::read(arena_tests::lang_bot("en-garde/aggressive-py")).expect("build the example bots first");
    println!("course server, {n} students, SQLite, default workers; en-garde, the default rubric");
    for (what, file, a, b) in [("Rust", &rust, 0, 1), ("Python", &python, 2, 3)] {
        let (first, s1) = one(&agent, &url, &tokens[a], file);
        let (again, s2) = one(&agent, &url, &tokens[b], file);
        println!(
            "upload to verdict, {what} bot ({} KiB): first upload {} ({s1}), the same file from another student {} ({s2})",
            file.len() / 1024,
            ms(first),
            ms(again)
        );
    }

    // The class at once: every student uploads one of three Rust bots.
    let files: Arc<Vec<Vec<u8>>> = Arc::new(
        ["en-garde/aggressive", "en-garde/cowardly", "en-garde/random"]
            .iter()
            .map(|b| std::fs::read(bot(b)).unwrap())
            .collect(),
    );
    let started = Instant::now();
    let threads: Vec<_> = (0..n)
        .map(|i| {
            let (url, token, files, agent) = (url.clone(), tokens[i].clone(), files.clone(), agent.clone());
            std::thread::spawn(move || -> Result<(Duration, Duration), String> {
                let (ack, version) = upload(&agent, &url, &token, &files[i % 3])?;
                verdict(&agent, &url, &token, version, Duration::from_millis(500))?;
                Ok((ack, started.elapsed()))
            })
        })
        .collect();
    let (mut acks, mut done, mut errors) = (Vec::new(), Vec::new(), Vec::new());
    for t in threads {
        match t.join().expect("a thread") {
            Ok((a, d)) => {
                acks.push(a);
                done.push(d);
            }
            Err(e) => errors.push(e),
        }
    }
    acks.sort();
    done.sort();
    println!(
        "{n} uploads at once: acknowledged p50 {} p99 {} max {}; verdict p50 {:.1} s p99 {:.1} s (all {:.1} s, {:.2} verdicts/s); errors {}",
        ms(quantile(&acks, 0.5)),
        ms(quantile(&acks, 0.99)),
        ms(*acks.last().unwrap()),
        quantile(&done, 0.5).as_secs_f64(),
        quantile(&done, 0.99).as_secs_f64(),
        done.last().unwrap().as_secs_f64(),
        done.len() as f64 / done.last().unwrap().as_secs_f64(),
        errors.len()
    );
    for e in errors.iter().take(3) {
        println!("  error: {e}");
    }

    // A student's page while the teacher re-grades the class.
    let teacher_cookie = session(&agent, &url, &teacher);
    let mut home = agent
        .get(&format!("{url}/"))
        .header("Cookie", &teacher_cookie)
        .call()
        .unwrap();
    let page = home.body_mut().read_to_string().unwrap();
    let csrf = page
        .split("name=\"authenticity_token\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap()
        .to_string();
    let cookie = home
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|c| c.to_str().ok()?.split(';').next().map(str::to_string))
        .chain([teacher_cookie])
        .collect::<Vec<_>>()
        .join("; ");
    let r = agent
        .post(&format!("{url}/teacher/regrade"))
        .header("Cookie", &cookie)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .send(format!("authenticity_token={}", url_encode(&csrf)).as_bytes())
        .unwrap();
    assert_eq!(r.status().as_u16(), 303, "the re-grade was taken");
    let regrade = Instant::now();
    let student = session(&agent, &url, &tokens[4]);
    let mut pages = Vec::new();
    loop {
        let t = Instant::now();
        let mut r = agent.get(&format!("{url}/")).header("Cookie", &student).call().unwrap();
        let _ = r.body_mut().read_to_string();
        pages.push(t.elapsed());
        if pages.len() % 20 == 0 {
            let mut c = agent
                .get(&format!("{url}/fragment/class"))
                .header("Cookie", &cookie)
                .call()
                .unwrap();
            if c.body_mut()
                .read_to_string()
                .unwrap_or_default()
                .contains("nothing waiting")
            {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    pages.sort();
    println!(
        "a student's page during the re-grade of {n} versions ({:.1} s): {} requests, p50 {} p99 {} max {}",
        regrade.elapsed().as_secs_f64(),
        pages.len(),
        ms(quantile(&pages, 0.5)),
        ms(quantile(&pages, 0.99)),
        ms(*pages.last().unwrap())
    );
    let (peak, now) = memory(server.child.id());
    println!(
        "server memory: peak {peak:.0} MiB, at the end {now:.0} MiB (compiles run in a child process of their own)"
    );
}
