//! The course server from outside, as its users meet it: a course made by
//! `arena course init`, `arena serve` as a real process on loopback (SQLite
//! in the course folder), students submitting with `arena submit` and
//! through the pages, and every authorisation rule tried from the wrong side.

use arena_tests::{arena, arena_bin, bot, temp, url_encode};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `arena serve`, killed when dropped.
pub(crate) struct Server {
    child: Child,
    pub(crate) url: String,
    dir: PathBuf,
    /// Every line it wrote to stderr so far.
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Server {
    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's peak resident memory so far, in MiB (`VmHWM`).
    pub(crate) fn peak_mib(&self) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmHWM:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            })
            .map_or(0, |kb| kb >> 10)
    }

    /// The course folder it serves.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// What it wrote to its log (stderr) so far.
    pub(crate) fn log(&self) -> String {
        self.log.lock().map(|l| l.join("\n")).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A class of four (one named like a formula, one like markup) and its course folder.
fn course(name: &str, extra: &[&str]) -> (PathBuf, Vec<BTreeMap<&'static str, String>>) {
    course_of(
        name,
        "name,email,id\nAnn Lee,ann@uni.edu,s1\nBo Wu,bo@uni.edu,s2\n\"=HYPERLINK(\"\"http://x\"\")\",eve@uni.edu,s3\n\
         \"<img src=x onerror=\"\"window.pwned=1\"\">\",mal@uni.edu,s4\n",
        extra,
    )
}

/// A course of the class `roster` (a CSV of name,email,id), in roster order.
pub(crate) fn course_of(
    name: &str,
    roster_csv: &str,
    extra: &[&str],
) -> (PathBuf, Vec<BTreeMap<&'static str, String>>) {
    let dir = temp(name).join("course");
    let roster = dir.with_file_name("roster.csv");
    std::fs::write(&roster, roster_csv).unwrap();
    let mut args = vec![
        "course".to_string(),
        "init".into(),
        dir.display().to_string(),
        "--roster".into(),
        roster.display().to_string(),
    ];
    // En Garde unless `extra` names the game.
    if !extra.contains(&"--game") {
        args.extend(["--game".into(), "en-garde".into()]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    let out = arena(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(dir.join("tokens.csv")).unwrap();
    let students = text
        .lines()
        .skip(1)
        .map(|l| {
            let cols: Vec<&str> = l.rsplitn(3, ',').collect();
            BTreeMap::from([("token", cols[1].to_string()), ("link", cols[0].to_string())])
        })
        .collect();
    (dir, students)
}

/// Start `arena serve` on a free loopback port with more arguments
/// (`--database URL`); returns once it listens.
pub(crate) fn serve_with(dir: &Path, extra: &[&str]) -> Server {
    serve_by(Command::new(arena_bin()), dir, extra)
}

/// `arena serve` as [`serve_with`], in a process that may open at most
/// `files` descriptors (soft and hard limit, set by util-linux's `prlimit`).
pub(crate) fn serve_with_files(dir: &Path, extra: &[&str], files: u64) -> Server {
    let mut limited = Command::new("prlimit");
    limited.arg(format!("--nofile={files}:{files}")).arg(arena_bin());
    serve_by(limited, dir, extra)
}

pub(crate) fn serve_by(mut command: Command, dir: &Path, extra: &[&str]) -> Server {
    // One worker of its own unless the test says otherwise.
    let workers: &[&str] = if extra.contains(&"--workers") {
        &[]
    } else {
        &["--workers", "1"]
    };
    // A free loopback port unless the test names where.
    let listen: &[&str] = if extra.contains(&"--listen") {
        &[]
    } else {
        &["--listen", "127.0.0.1:0"]
    };
    let mut child = command
        .args(["serve", &dir.display().to_string()])
        .args(listen)
        .args(workers)
        .args(extra)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("start arena serve");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    // Warnings (a descriptor limit) may come before the line that says where it listens.
    let mut said = Vec::new();
    let first = loop {
        match lines.next() {
            Some(Ok(line)) if line.starts_with("serving ") => break line,
            Some(Ok(line)) => said.push(line),
            _ => break said.join(" / "),
        }
    };
    for line in &said {
        eprintln!("arena serve: {line}");
    }
    let url = first
        .split(" at ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .unwrap_or_else(|| panic!("arena serve said: {first}"))
        .to_string();
    // Keep reading its messages so the pipe never fills; a failing test shows them.
    let log = std::sync::Arc::new(std::sync::Mutex::new(said));
    let kept = log.clone();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            eprintln!("arena serve: {line}");
            if let Ok(mut l) = kept.lock() {
                l.push(line);
            }
        }
    });
    Server {
        child,
        url,
        dir: dir.to_path_buf(),
        log,
    }
}

/// `arena submit` of `file` with `token`, as JSON: exit status and the object (or stderr).
pub(crate) fn submit(server: &Server, token: &str, file: &Path) -> (i32, serde_json::Value, String) {
    let out = arena(&[
        "submit",
        "--server",
        &server.url,
        "--token",
        token,
        &file.display().to_string(),
        "--json",
        "--wait",
        "600",
    ]);
    let json = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (
        out.status.code().unwrap_or(-1),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A browser's view of the server: cookies kept between requests.
pub(crate) struct Browser {
    agent: ureq::Agent,
    base: String,
    cookies: BTreeMap<String, String>,
}

impl Browser {
    pub(crate) fn new(server: &Server) -> Browser {
        Browser {
            agent: ureq::Agent::config_builder()
                .http_status_as_error(false)
                .max_redirects(0)
                .build()
                .into(),
            base: server.url.clone(),
            cookies: BTreeMap::new(),
        }
    }

    /// Take `other`'s cookies but the one named `except` (a cross-session replay).
    pub(crate) fn cookies_from(&mut self, other: &Browser, except: &str) {
        for (k, v) in &other.cookies {
            if k != except {
                self.cookies.insert(k.clone(), v.clone());
            }
        }
    }

    pub(crate) fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn keep(&mut self, r: &ureq::http::Response<ureq::Body>) {
        for c in r.headers().get_all("set-cookie") {
            let c = c.to_str().unwrap_or("");
            if let Some((k, v)) = c.split(';').next().and_then(|kv| kv.split_once('=')) {
                self.cookies.insert(k.to_string(), v.to_string());
            }
        }
    }

    /// A GET of `path` (or of a whole URL) with this browser's cookies, whose answer's cookies it keeps.
    fn call_get(&mut self, path: &str) -> ureq::http::Response<ureq::Body> {
        let url = if path.starts_with("http") {
            path.to_string()
        } else {
            format!("{}{path}", self.base)
        };
        let r = self
            .agent
            .get(&url)
            .header("Cookie", &self.cookie_header())
            .call()
            .expect("GET");
        self.keep(&r);
        r
    }

    pub(crate) fn get(&mut self, path: &str) -> (u16, String, ureq::http::HeaderMap) {
        let mut r = self.call_get(path);
        let headers = r.headers().clone();
        (
            r.status().as_u16(),
            r.body_mut().read_to_string().unwrap_or_default(),
            headers,
        )
    }

    pub(crate) fn get_bytes(&mut self, path: &str) -> (u16, Vec<u8>, ureq::http::HeaderMap) {
        let mut r = self.call_get(path);
        let headers = r.headers().clone();
        let bytes = r
            .body_mut()
            .with_config()
            .limit(1 << 30)
            .read_to_vec()
            .unwrap_or_default();
        (r.status().as_u16(), bytes, headers)
    }

    /// A GET's status and headers only: the body (an event stream never ends) is not read.
    pub(crate) fn get_head(&mut self, path: &str) -> (u16, ureq::http::HeaderMap) {
        let r = self.call_get(path);
        (r.status().as_u16(), r.headers().clone())
    }

    pub(crate) fn post_form(&mut self, path: &str, form: &[(&str, &str)]) -> (u16, String) {
        let (status, page, _) = self.post_form_with_headers(path, form);
        (status, page)
    }

    /// A form posted: the status, the page and the headers.
    pub(crate) fn post_form_with_headers(
        &mut self,
        path: &str,
        form: &[(&str, &str)],
    ) -> (u16, String, ureq::http::HeaderMap) {
        let body: String = form
            .iter()
            .map(|(k, v)| format!("{k}={}", url_encode(v)))
            .collect::<Vec<_>>()
            .join("&");
        let mut r = self
            .agent
            .post(&format!("{}{path}", self.base))
            .header("Cookie", &self.cookie_header())
            .header("Content-Type", "application/x-www-form-urlencoded")
            .send(body.as_bytes())
            .expect("POST");
        self.keep(&r);
        let headers = r.headers().clone();
        (
            r.status().as_u16(),
            r.body_mut().read_to_string().unwrap_or_default(),
            headers,
        )
    }

    fn upload(&mut self, csrf: &str, name: &str, bytes: &[u8]) -> (u16, String) {
        let boundary = "arenaBoundary7MA4YWxk";
        let mut body = Vec::new();
        body.extend(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"authenticity_token\"\r\n\r\n{csrf}\r\n")
                .bytes(),
        );
        body.extend(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"bot\"; filename=\"{name}\"\r\nContent-Type: application/wasm\r\n\r\n")
                .bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend(format!("\r\n--{boundary}--\r\n").bytes());
        let mut r = self
            .agent
            .post(&format!("{}/upload", self.base))
            .header("Cookie", &self.cookie_header())
            .header("Content-Type", &format!("multipart/form-data; boundary={boundary}"))
            .send(&body[..])
            .expect("POST /upload");
        self.keep(&r);
        (r.status().as_u16(), r.body_mut().read_to_string().unwrap_or_default())
    }
}

/// The CSRF token of the first form of a page.
pub(crate) fn csrf(page: &str) -> String {
    page.split("name=\"authenticity_token\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_else(|| panic!("no form token in {page}"))
        .to_string()
}

/// Log in with a link: the session cookie comes back with a redirect home.
pub(crate) fn logged_in(server: &Server, link: &str) -> Browser {
    let mut b = Browser::new(server);
    let path = link.split("/login/").nth(1).expect("a login link");
    let (status, page, headers) = b.get(&format!("/login/{path}"));
    assert_eq!(status, 200, "login answers a page that moves on home: {page}");
    assert!(page.contains(r#"http-equiv="refresh" content="0; url=/""#), "{page}");
    let cookie = headers
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    assert!(
        cookie.contains("httponly") && cookie.contains("samesite=strict"),
        "the session cookie: {cookie}"
    );
    b
}

fn a_student_submits_from_the_terminal_and_gets_the_grade_by_the_rubric(on: &On) {
    let (dir, students) = on.course("srv-submit", &[]);
    let server = on.serve(&dir);
    let (code, v, err) = submit(&server, &students[0]["token"], &bot("en-garde/aggressive"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["version"], 1);
    assert_eq!(v["accepted"], true);
    assert_eq!(v["sha256"].as_str().map(str::len), Some(64));
    assert!(v["url"].as_str().unwrap_or("").ends_with("/versions/1"), "{v}");
    // The same rubric items, points and check as `arena grade` and `arena check` give.
    let grade = arena(&[
        "grade",
        "--game",
        "en-garde",
        &bot("en-garde/aggressive").display().to_string(),
        "--json",
    ]);
    let offline: serde_json::Value = serde_json::from_slice(&grade.stdout).unwrap();
    assert_eq!(v["grade"]["total"], offline["total"]);
    assert_eq!(v["grade"]["max_total"], offline["max_total"]);
    let items = v["grade"]["items"].as_array().expect("one row per rubric line");
    assert_eq!(items.len(), offline["items"].as_array().unwrap().len());
    assert_eq!(v["check"]["ready"], true);
    // The student reads their file's name, never where the server keeps it.
    assert_eq!(v["check"]["file"], "aggressive.wasm");
    assert!(
        !v["check_text"]
            .as_str()
            .unwrap_or("")
            .contains(&dir.display().to_string())
    );
    // Any graded game replays on request: the same deal played again.
    let url = v["url"].as_str().unwrap_or("");
    let version = &url[url.find("/people/").expect("a version page")..];
    let mut ann = logged_in(&server, &students[0]["link"]);
    let (status, page, headers) = ann.get(&format!("{version}/items/1/games?game=7"));
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("game 7 of 200, played again on request"), "{page}");
    let csp = headers
        .get("content-security-policy")
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let scripts = csp
        .split(';')
        .find(|d| d.trim().starts_with("script-src"))
        .unwrap_or("");
    assert!(
        scripts.contains("sha256-") && !scripts.contains("unsafe-inline"),
        "{csp}"
    );
    let (status, page, _) = ann.get(&format!("{version}/items/1/games?game=201"));
    assert_eq!(status, 404);
    assert!(page.contains("give a number from 1 to 200"), "{page}");
    let mut bo = logged_in(&server, &students[1]["link"]);
    assert_eq!(bo.get(&format!("{version}/items/1/games?game=7")).0, 403);
    // A second submission is version 2.
    let (code, v, _) = submit(&server, &students[0]["token"], &bot("en-garde/random"));
    assert_eq!((code, v["version"].as_i64()), (0, Some(2)));
}

fn a_file_that_is_no_bot_is_rejected_and_a_bad_token_is_one_line(on: &On) {
    let (dir, students) = on.course("srv-reject", &[]);
    let server = on.serve(&dir);
    let notes = dir.with_file_name("notes.wasm");
    std::fs::write(&notes, "print('hello')\n").unwrap();
    let (code, v, _) = submit(&server, &students[1]["token"], &notes);
    assert_eq!(code, 1, "rejected: {v}");
    assert_eq!(v["accepted"], false);
    let reason = v["reason"].as_str().unwrap_or("");
    assert!(reason.starts_with("notes.wasm: not a WebAssembly file"), "{reason}");
    let (code, _, err) = submit(&server, "not-a-token", &notes);
    assert_eq!(code, 2);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("not (or no longer) a student's"), "{err}");
    let out = arena(&[
        "submit",
        "--server",
        "http://127.0.0.1:9",
        "--token",
        // Tokens are URL-safe base64: one in 32 begins with `-`.
        "-wx",
        &notes.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot reach the course server"));
}

fn pages_keep_each_student_to_their_own_and_the_teacher_to_the_class(on: &On) {
    let (dir, students) = on.course("srv-auth", &[]);
    let server = on.serve(&dir);
    let teacher_link = std::fs::read_to_string(dir.join("teacher-link.txt")).unwrap();
    // Nobody logged in sees nothing but the welcome.
    let mut nobody = Browser::new(&server);
    assert_eq!(nobody.get("/people/2/versions/1").0, 401);
    assert_eq!(nobody.get("/teacher/gradebook.csv").0, 401);
    let (status, page, headers) = nobody.get("/");
    assert_eq!(status, 200);
    assert!(page.contains("Log in with the link"));
    let csp = headers
        .get("content-security-policy")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    assert!(
        csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
        "{csp}"
    );
    assert_eq!(Browser::new(&server).get("/login/forged").0, 401);
    // Ann uploads through the page; Bo may not see it, nor the teacher's pages.
    let mut ann = logged_in(&server, &students[0]["link"]);
    let (_, home, _) = ann.get("/");
    let token = csrf(&home);
    let wasm = std::fs::read(bot("en-garde/aggressive")).unwrap();
    assert_eq!(ann.upload(&token, "../../etc/passwd.wasm", &wasm).0, 303);
    assert_eq!(ann.upload("forged", "bot.wasm", &wasm).0, 403, "a forged CSRF token");
    let mut bo = logged_in(&server, &students[1]["link"]);
    let ann_id = {
        let (_, home, _) = ann.get("/");
        home.split("/people/")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .unwrap()
            .to_string()
    };
    assert_eq!(
        bo.get(&format!("/people/{ann_id}/versions/1")).0,
        403,
        "another student's version"
    );
    assert_eq!(bo.get(&format!("/people/{ann_id}/versions/1/verdict")).0, 403);
    assert_eq!(bo.get("/teacher/gradebook.csv").0, 403);
    let (_, bo_home, _) = bo.get("/");
    assert_eq!(
        bo.post_form("/teacher/regrade", &[("authenticity_token", &csrf(&bo_home))])
            .0,
        403
    );
    // Bo's CSRF token is no good in Ann's session.
    assert_eq!(ann.upload(&csrf(&bo_home), "bot.wasm", &wasm).0, 403);
    // Ann sees her version, under the name she gave (never a path), once graded.
    let started = Instant::now();
    let page = loop {
        let (status, page, _) = ann.get(&format!("/people/{ann_id}/versions/1"));
        assert_eq!(status, 200);
        if page.contains("points</p>") || started.elapsed() > Duration::from_secs(300) {
            break page;
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    assert!(
        page.contains("passwd.wasm") && !page.contains("../"),
        "the file name shown"
    );
    assert!(page.contains("The rubric"), "{page}");
    // A replay page opens from the server, with the viewer's own CSP.
    let replay = page
        .split("href=\"")
        .filter_map(|r| r.split('"').next())
        .find(|h| h.contains("/replays/"))
        .expect("a replay link")
        .to_string();
    let (status, html, headers) = ann.get(&replay);
    assert_eq!(status, 200);
    assert!(html.contains("<html"));
    assert!(headers.get("content-security-policy").is_some());
    assert_eq!(
        ann.get(&format!("/people/{ann_id}/versions/1/replays/..%2Fcourse.toml"))
            .0,
        404
    );
    // The teacher sees the class and exports it; a formula is not a formula in the CSV.
    let mut teacher = logged_in(&server, teacher_link.trim());
    let (status, class, _) = teacher.get("/");
    assert_eq!(status, 200);
    assert!(
        class.contains("Ann Lee") && class.contains("1 of 4 students have submitted"),
        "{class}"
    );
    // A name that is markup is shown as text, never as markup.
    assert!(
        class.contains("&#60;img src=x onerror=&#34;window.pwned=1&#34;&#62;"),
        "{class}"
    );
    assert!(!class.contains("<img src=x"), "{class}");
    assert!(
        class.contains("&#61;HYPERLINK") || class.contains("=HYPERLINK"),
        "the name is shown, escaped"
    );
    let (status, csv, headers) = teacher.get("/teacher/gradebook.csv");
    assert_eq!(status, 200);
    assert!(
        headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .starts_with("text/csv")
    );
    assert!(csv.contains("'=HYPERLINK"), "{csv}");
    assert!(csv.lines().any(|l| l.starts_with("s1,Ann Lee,ann@uni.edu,1,")), "{csv}");
    assert_eq!(teacher.get(&format!("/people/{ann_id}/versions/1")).0, 200);
    let _ = server.dir.clone();
}

fn a_server_killed_while_grading_finishes_the_job_once_after_a_restart(on: &On) {
    let (dir, students) = on.course("srv-kill", &[]);
    let python = arena_tests::lang_bot("en-garde/aggressive-py");
    let mut server = on.serve(&dir);
    // A Python bot takes seconds to compile: kill the server while it grades.
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let bytes = std::fs::read(&python).unwrap();
    let mut r = agent
        .post(&format!("{}/api/submissions", server.url))
        .header("Authorization", &format!("Bearer {}", students[0]["token"]))
        .send(&bytes[..])
        .expect("upload");
    assert_eq!(r.status().as_u16(), 202, "acknowledged");
    let _: serde_json::Value = r.body_mut().read_json().unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    // SIGKILL: nothing the server could clean up.
    let _ = server.child.kill();
    let _ = server.child.wait();
    let server = on.serve(&dir);
    let (code, v, err) = {
        let started = Instant::now();
        loop {
            let mut r = agent
                .get(&format!("{}/api/submissions/1", server.url))
                .header("Authorization", &format!("Bearer {}", students[0]["token"]))
                .call()
                .expect("poll");
            let v: serde_json::Value = r.body_mut().read_json().unwrap();
            match v["state"].as_str() {
                Some("queued" | "running") if started.elapsed() < Duration::from_secs(600) => {
                    std::thread::sleep(Duration::from_millis(500))
                }
                _ => break (0, v, String::new()),
            }
        }
    };
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["state"], "accepted", "{v}");
    drop(server);
    // One job, done once; the upload acknowledged before the kill was kept.
    assert_eq!(on.scalar(&dir, "SELECT COUNT(*) FROM jobs"), "1");
    assert_eq!(on.scalar(&dir, "SELECT COUNT(*) FROM jobs WHERE state = 'done'"), "1");
    assert_eq!(on.scalar(&dir, "SELECT COUNT(*) FROM submissions"), "1");
}

/// A second server that joins a shared Postgres course while the first
/// grades leaves the first one's job alone: its start puts back only jobs
/// whose lease ran out, and the first keeps its lease while it grades.
#[test]
fn a_server_joining_a_postgres_course_leaves_the_job_another_grades() {
    let on = On::postgres("srv-join");
    let (dir, students) = on.course("srv-join", &[]);
    let python = arena_tests::lang_bot("en-garde/aggressive-py");
    let first = on.serve(&dir);
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let r = agent
        .post(&format!("{}/api/submissions", first.url))
        .header("Authorization", &format!("Bearer {}", students[0]["token"]))
        .send(&std::fs::read(&python).unwrap()[..])
        .expect("upload");
    assert_eq!(r.status().as_u16(), 202, "acknowledged");
    let started = Instant::now();
    while on.scalar(&dir, "SELECT state FROM jobs") != "running" {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the first server never took the job"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // A Python bot takes seconds to compile: the job is still being graded.
    let second = on.serve(&dir);
    assert_eq!(
        on.scalar(&dir, "SELECT state || ' ' || attempts FROM jobs"),
        "running 1",
        "the second server's start put back the job the first was grading"
    );
    let started = Instant::now();
    while on.scalar(&dir, "SELECT state FROM submissions") != "accepted" {
        assert!(started.elapsed() < Duration::from_secs(600), "never graded");
        std::thread::sleep(Duration::from_millis(500));
    }
    assert_eq!(
        on.scalar(&dir, "SELECT state || ' ' || attempts FROM jobs"),
        "done 1",
        "graded once, by one claim"
    );
    drop((first, second));
}

/// The limits on uploads, each from the side a student meets it: a file
/// over the size limit (and a 1 GB one, which the server refuses without
/// holding it), more uploads in an hour than the course allows, a version
/// after the deadline (kept, marked late) and one after the late days (refused).
fn uploads_over_the_limits_are_refused(on: &On) {
    let an_hour_ago = time_ago(3600);
    let (dir, students) = on.course("srv-limits", &["--deadline", &an_hour_ago, "--late-days", "1"]);
    let toml = std::fs::read_to_string(dir.join("course.toml")).unwrap();
    let toml = toml
        .replace("[limits]", "[limits]\nmax_file_bytes = 8000000")
        .replace("uploads_per_hour = 30", "uploads_per_hour = 2");
    std::fs::write(dir.join("course.toml"), toml).unwrap();
    let server = on.serve(&dir);
    let token = &students[0]["token"];
    let (code, _, err) = submit(&server, token, &arena_tests::lang_bot("en-garde/aggressive-py"));
    assert_eq!(code, 2);
    assert!(err.contains("larger than 8000000 bytes"), "{err}");
    // A gigabyte, streamed: refused as it arrives, never held.
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let mut gigabyte = std::io::Read::take(std::io::repeat(0), 1 << 30);
    let sent = agent
        .post(&format!("{}/api/submissions", server.url))
        .header("Authorization", &format!("Bearer {token}"))
        .send(ureq::SendBody::from_reader(&mut gigabyte));
    if let Ok(r) = sent {
        assert_eq!(r.status().as_u16(), 413);
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.child.id())).unwrap();
    let peak_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    assert!(peak_kb < 400 << 10, "the server held the upload: peak {peak_kb} kB");
    // Late but within the late days: kept and marked.
    let (code, v, err) = submit(&server, token, &bot("en-garde/aggressive"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["late_days"], 1, "{v}");
    // Said before the file is sent, as the page says it.
    assert!(
        err.contains("has passed: this version will be marked 1 day late (versions up to 1 late day are taken)"),
        "{err}"
    );
    let (code, _, _) = submit(&server, token, &bot("en-garde/random"));
    assert_eq!(code, 0);
    let (code, _, err) = submit(&server, token, &bot("en-garde/cowardly"));
    assert_eq!(code, 2);
    assert!(err.contains("2 uploads in the last hour is the most"), "{err}");
    // Another student is not held back by the first one's uploads.
    let (code, _, err) = submit(&server, &students[1]["token"], &bot("en-garde/cowardly"));
    assert_eq!(code, 0, "{err}");
    let late = std::fs::read_to_string(dir.join("course.toml"))
        .unwrap()
        .replace(&an_hour_ago, &time_ago(3 * 86400));
    std::fs::write(dir.join("course.toml"), late).unwrap();
    drop(server);
    let server = on.serve(&dir);
    let (code, _, err) = submit(&server, &students[2]["token"], &bot("en-garde/aggressive"));
    assert_eq!(code, 2);
    // Said before the file is sent (issue 47), in one line.
    assert!(
        err.contains("the course is closed: its deadline") && err.contains("and its 1 late day are over"),
        "{err}"
    );
}

/// Hostile files from a student: a compile bomb (no game's exports) is
/// refused in the upload's answer in one line (and the server grades the next upload as usual), and a bot
/// whose log is markup has it shown as text on its version page.
fn hostile_files_are_refused_or_shown_as_text(on: &On) {
    let (dir, students) = on.course("srv-hostile", &[]);
    let server = on.serve(&dir);
    let bomb = crate::compile::write_bomb(&dir.with_file_name(""), "bomb");
    let (code, v, err) = submit(&server, &students[0]["token"], &bomb);
    assert_eq!(code, 1, "{err}");
    let reason = v["reason"].as_str().unwrap_or("");
    // It exports no game's functions: refused in the upload's answer,
    // before its shape (which `arena check` measures) is looked at.
    assert!(
        reason.starts_with("bomb.wasm: a WebAssembly component, but not an arena bot"),
        "{reason}"
    );
    assert!(!reason.contains('\n'));
    let markup = "</script><img src=x onerror=\"window.pwned=1\"><b>bold</b>";
    let attack = arena_tests::loops::Attack::in_export(
        "markup log",
        "choose-move",
        "",
        format!(
            "(call $log (i32.const 100000) (i32.const {})) unreachable",
            markup.len()
        ),
    )
    .with_fields(format!("(data (i32.const 100000) \"{}\")", markup.replace('"', "\\\"")));
    let file = arena_tests::loops::en_garde_file(&dir.with_file_name(""), &attack);
    let (code, v, err) = submit(&server, &students[1]["token"], &file);
    assert!(code == 0 || code == 1, "{err}");
    let mut bo = logged_in(&server, &students[1]["link"]);
    let url = v["url"].as_str().unwrap_or("");
    let path = &url[url.find("/people/").expect("a version page")..];
    let (status, page, _) = bo.get(path);
    assert_eq!(status, 200);
    assert!(
        page.contains("&#60;/script&#62;&#60;img src=x onerror="),
        "the log is on the page, as text: {page}"
    );
    assert!(!page.contains(markup) && !page.contains("<img src=x"), "{page}");
    for link in crate::server::replay_links(&page) {
        let (status, replay, _) = bo.get(&link);
        assert_eq!(status, 200, "{link}");
        assert!(!replay.contains("<img src=x"), "{link}");
    }
    let (code, _, err) = submit(&server, &students[2]["token"], &bot("en-garde/aggressive"));
    assert_eq!(code, 0, "{err}");
}

/// The replay links of a version page.
fn replay_links(page: &str) -> Vec<String> {
    page.split("href=\"")
        .skip(1)
        .filter_map(|r| r.split('"').next())
        .filter(|h| h.contains("/replays/"))
        .map(str::to_string)
        .collect()
}

/// The time `seconds` ago, as RFC 3339.
fn time_ago(seconds: u64) -> String {
    let out = Command::new("date")
        .args([
            "-u",
            "-d",
            &format!("@{}", now_seconds() - seconds),
            "+%Y-%m-%dT%H:%M:%SZ",
        ])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn now_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A throwaway PostgreSQL cluster in a temporary folder (Debian's
/// `postgresql` package, which scripts/setup.sh installs), reached by its
/// socket only; stopped when dropped.
pub(crate) struct Postgres {
    dir: PathBuf,
    bin: PathBuf,
    url: String,
}

impl Postgres {
    fn start(name: &str) -> Postgres {
        let initdb = std::fs::read_dir("/usr/lib/postgresql")
            .ok()
            .and_then(|d| {
                d.filter_map(Result::ok)
                    .map(|e| e.path().join("bin/initdb"))
                    .find(|p| p.exists())
            })
            .expect("PostgreSQL's initdb (scripts/setup.sh installs the postgresql package)");
        let bin = initdb.parent().expect("bin").to_path_buf();
        // The server's socket is made in this folder, and a socket's path
        // has at most 107 bytes: a short name, numbered, with the start of
        // the test's for a look at a kept one.
        static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = temp(&format!("pg{n}-{}", name.chars().take(24).collect::<String>()));
        // initdb refuses root: as root, the cluster is the postgres user's.
        let root = Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|o| o.stdout.starts_with(b"0"));
        if root {
            let ok = Command::new("chown")
                .args(["-R", "postgres", &dir.display().to_string()])
                .status();
            assert!(ok.is_ok_and(|s| s.success()), "chown the cluster's folder to postgres");
        }
        let run = |program: &Path, args: &[&str]| {
            let mut c = if root {
                let mut c = Command::new("runuser");
                c.args(["-u", "postgres", "--"]).arg(program);
                c
            } else {
                Command::new(program)
            };
            let out = c.args(args).output().expect("run a PostgreSQL program");
            assert!(
                out.status.success(),
                "{}: {}",
                program.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        };
        let data = dir.join("data").display().to_string();
        let socket = dir.display().to_string();
        run(&initdb, &["-D", &data, "-U", "arena", "--auth=trust"]);
        let start = start_args(&dir);
        run(
            &bin.join("pg_ctl"),
            &start.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        run(
            &bin.join("createdb"),
            &["-h", &socket, "-p", "5432", "-U", "arena", "course"],
        );
        Postgres {
            url: format!("postgres://arena@localhost:5432/course?host={socket}"),
            dir,
            bin,
        }
    }
}

impl Postgres {
    /// Stop the cluster (fast: open connections are cut), wait `down`, start it again.
    pub(crate) fn restart(&self, down: Duration) {
        let data = self.dir.join("data").display().to_string();
        let ctl = |args: &[&str]| {
            let out = Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(self.bin.join("pg_ctl"))
                .args(args)
                .output()
                .or_else(|_| Command::new(self.bin.join("pg_ctl")).args(args).output())
                .expect("pg_ctl");
            assert!(
                out.status.success(),
                "pg_ctl {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        ctl(&["-D", &data, "stop", "-m", "fast", "-w"]);
        std::thread::sleep(down);
        ctl(&start_args(&self.dir).iter().map(String::as_str).collect::<Vec<_>>());
    }
}

/// `pg_ctl`'s arguments that start the cluster kept in `dir`, reached by
/// its socket there only.
fn start_args(dir: &Path) -> Vec<String> {
    let socket = dir.display().to_string();
    [
        "-D".into(),
        dir.join("data").display().to_string(),
        "-o".into(),
        format!("-k {socket} -p 5432 -c listen_addresses=''"),
        "-l".into(),
        format!("{socket}/log"),
        "-w".into(),
        "start".into(),
    ]
    .into()
}

/// The Postgres server restarts while the course runs (issue 49; stopped
/// fast, so the server's connections are cut): the server serves again
/// once the database is back without being restarted itself (a refusal
/// meanwhile is one line), and every acknowledged upload is graded exactly once.
#[test]
fn the_course_survives_a_postgres_restart() {
    let on = On::postgres("srv-pg-restart");
    let On::Postgres(pg) = &on else { unreachable!() };
    let (dir, students) = on.course("srv-pg-restart", &[]);
    let server = on.serve(&dir);
    let (code, _, err) = submit(&server, &students[0]["token"], &bot("en-garde/aggressive"));
    assert_eq!(code, 0, "{err}");
    pg.restart(Duration::from_secs(3));
    // Back: the server reconnects by itself; an upload may need a retry
    // while its pool finds its connections cut.
    let started = Instant::now();
    let (code, v, err) = loop {
        let got = submit(&server, &students[1]["token"], &bot("en-garde/random"));
        if got.0 == 0 || started.elapsed() > Duration::from_secs(120) {
            break got;
        }
        assert_eq!(
            got.2.trim().lines().count(),
            1,
            "one line while the database comes back: {}",
            got.2
        );
        std::thread::sleep(Duration::from_secs(1));
    };
    assert_eq!(code, 0, "an upload after the restart: {err} {v}");
    let (code, _, err) = submit(&server, &students[0]["token"], &bot("en-garde/cowardly"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        on.scalar(
            &dir,
            "SELECT COUNT(*) || ' ' || MAX(attempts) || ' ' || MIN(state) FROM jobs WHERE kind = 'grade'"
        ),
        "3 1 done",
        "every acknowledged upload graded once"
    );
    assert_eq!(
        on.scalar(&dir, "SELECT COUNT(*) FROM submissions WHERE state = 'accepted'"),
        "3"
    );
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let data = self.dir.join("data").display().to_string();
        let ctl = self.bin.join("pg_ctl");
        let _ = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(&ctl)
            .args(["-D", &data, "stop", "-m", "fast"])
            .output()
            .or_else(|_| Command::new(&ctl).args(["-D", &data, "stop", "-m", "fast"]).output());
    }
}

/// The roster changes while the server runs: a re-issued link replaces the
/// old one, a removed student can no longer submit, an added one can.
fn the_roster_changes_while_the_course_runs(on: &On) {
    let (dir, students) = on.course("srv-roster", &[]);
    let server = on.serve(&dir);
    let shown = dir.display().to_string();
    let out = arena(&[&["course", "roster", &shown, "--reissue", "s1"][..], &on.database()].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    let new_link = said.split(": ").last().unwrap_or("").trim().to_string();
    assert!(new_link.contains("/login/"), "{said}");
    let path = |link: &str| format!("/login/{}", link.split("/login/").nth(1).unwrap_or(""));
    assert_eq!(
        Browser::new(&server).get(&path(&students[0]["link"])).0,
        401,
        "the old link"
    );
    assert_eq!(Browser::new(&server).get(&path(&new_link)).0, 200, "the new link");
    let out = arena(&[&["course", "roster", &shown, "--remove", "s2"][..], &on.database()].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (code, _, err) = submit(&server, &students[1]["token"], &bot("en-garde/aggressive"));
    assert_eq!(code, 2, "{err}");
    let more = dir.with_file_name("more.csv");
    std::fs::write(&more, "name,email,id\nAnn Lee,ann@uni.edu,s1\nCy Ng,cy@uni.edu,s9\n").unwrap();
    let out = arena(
        &[
            &["course", "roster", &shown, "--add", &more.display().to_string()][..],
            &on.database(),
        ]
        .concat(),
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("added 1 students"),
        "{out:?}"
    );
    let tokens = std::fs::read_to_string(dir.join("tokens.csv")).unwrap();
    let cy = tokens.lines().find(|l| l.starts_with("s9,")).expect("Cy's row");
    let token = cy.rsplit(',').nth(1).unwrap();
    let (code, v, err) = submit(&server, token, &bot("en-garde/random"));
    assert_eq!((code, v["accepted"].as_bool()), (0, Some(true)), "{err}");
    let out = arena(&[&["course", "roster", &shown, "--remove", "nobody"][..], &on.database()].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no student `nobody`"));
}

/// The teacher leaves the server: the class zip, unzipped and graded by
/// the command it holds, gives every student the points the server gave,
/// and the same Canvas file byte for byte.
fn the_class_zip_grades_offline_as_the_server_graded(on: &On) {
    let (dir, students) = on.course("srv-zip", &[]);
    let server = on.serve(&dir);
    for (i, b) in [
        (0, "en-garde/aggressive"),
        (1, "en-garde/cowardly"),
        (3, "en-garde/random"),
    ] {
        let (code, _, err) = submit(&server, &students[i]["token"], &bot(b));
        assert_eq!(code, 0, "{err}");
    }
    // One more version that does not count: Ann chooses her first.
    let (code, _, _) = submit(&server, &students[0]["token"], &bot("en-garde/random"));
    assert_eq!(code, 0);
    let mut ann = logged_in(&server, &students[0]["link"]);
    let (_, home, _) = ann.get("/");
    assert_eq!(
        ann.post_form("/count", &[("authenticity_token", &csrf(&home)), ("version", "1")])
            .0,
        303
    );
    assert_eq!(ann.get("/teacher/class.zip").0, 403, "the class is the teacher's");
    let link = std::fs::read_to_string(dir.join("teacher-link.txt")).unwrap();
    let mut teacher = logged_in(&server, link.trim());
    let (status, bytes, headers) = teacher.get_bytes("/teacher/class.zip");
    assert_eq!(status, 200);
    assert_eq!(
        headers.get("content-type").and_then(|v| v.to_str().ok()),
        Some("application/zip")
    );
    let (_, canvas, _) = teacher.get("/teacher/grades-canvas.csv");
    let (_, gradebook, _) = teacher.get("/teacher/gradebook.csv");
    let out = dir.with_file_name("unzipped");
    zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .expect("a zip")
        .extract(&out)
        .expect("unzips");
    assert!(
        !std::fs::read_dir(dir.join("exports")).unwrap().any(|_| true),
        "nothing left behind on the server"
    );
    let how = std::fs::read_to_string(out.join("HOW-TO-GRADE.txt")).unwrap();
    let command = how
        .lines()
        .find_map(|l| l.trim().strip_prefix("arena "))
        .expect("the command");
    let run = Command::new("sh")
        .arg("-c")
        .arg(format!("'{}' {command}", arena_bin().display()))
        .current_dir(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(
        std::fs::read_to_string(out.join("graded/grades-canvas.csv")).unwrap(),
        canvas,
        "Canvas's file, offline and from the server"
    );
    let offline = std::fs::read_to_string(out.join("graded/gradebook.csv")).unwrap();
    let total_of = |csv: &str, id_col: &str, total_col: &str, id: &str| -> Option<String> {
        let mut r = csv::Reader::from_reader(csv.as_bytes());
        let h = r.headers().unwrap().clone();
        let (i, t) = (
            h.iter().position(|c| c == id_col).unwrap(),
            h.iter().position(|c| c == total_col).unwrap(),
        );
        r.records()
            .map(Result::unwrap)
            .find(|row| &row[i] == id)
            .map(|row| row[t].to_string())
    };
    for id in ["s1", "s2", "s3", "s4"] {
        let served = total_of(&gradebook, "id", "points", id).unwrap_or_default();
        let graded = total_of(&offline, "id", "total", id).expect("every student offline");
        let served: f64 = served.parse().unwrap_or(0.0);
        assert_eq!(served, graded.parse::<f64>().unwrap(), "{id}: {gradebook}\n{offline}");
    }
    // Ann's counted version is her first (aggressive), not her latest.
    let alone = arena(&[
        "grade",
        "--game",
        "en-garde",
        &bot("en-garde/aggressive").display().to_string(),
        "--json",
    ]);
    let alone: serde_json::Value = serde_json::from_slice(&alone.stdout).unwrap();
    assert_eq!(
        total_of(&offline, "id", "total", "s1").unwrap().parse::<f64>().unwrap(),
        alone["total"].as_f64().unwrap()
    );
    let results = std::fs::read_dir(out.join("gradescope")).unwrap().count();
    assert_eq!(results, 3, "a results.json per graded student");
}

/// The game's default rubric with `games` games per item (a class of
/// tests grades in seconds; the rubric's items and seed are the game's).
pub(crate) fn small_rubric(game: &str, games: u32, dir: &Path) -> PathBuf {
    let out = arena(&["grade", "--game", game, "--print-rubric"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let text: String = text
        .lines()
        .map(|l| {
            if l.starts_with("games = ") {
                format!("games = {games}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    assert!(text.contains(&format!("\ngames = {games}\n")), "{text}");
    let path = dir.join(format!("{game}-rubric.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// One row of a CSV by the value of its `key` column, as column name -> value.
pub(crate) fn csv_row(csv: &str, key: &str, value: &str) -> Option<BTreeMap<String, String>> {
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let h = r.headers().unwrap().clone();
    let k = h.iter().position(|c| c == key)?;
    r.records().map(Result::unwrap).find(|row| &row[k] == value).map(|row| {
        h.iter()
            .zip(row.iter())
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    })
}

/// One verdict, the same on the server and offline (issue 47 item 1): a
/// class with every kind of failure (a crash, an illegal move, a loop, a
/// memory bomb, a file that is no wasm, a bot for another game), an
/// unchanged template and a good bot, each submitted with `arena submit`
/// (the text file and the President bot are refused by the upload's own
/// answer, exit 1, and never become a version: the gradebook says `none`).
/// The teacher's gradebook gives every student the state, points and flag
/// `arena grade-class` gives the same files offline, graded by the command
/// of the class zip: accepted where offline says graded, rejected where it
/// gives a reason, with the same points and `plays_like`.
fn every_kind_of_failure_has_the_same_verdict_on_the_server_and_offline(on: &On) {
    let roster = "name,email,id\nCrash Ada,c@uni.edu,s1\nIllegal Ben,i@uni.edu,s2\nLoop Cy,l@uni.edu,s3\n\
                  Memory Di,m@uni.edu,s4\nText Ed,t@uni.edu,s5\nPresident Flo,p@uni.edu,s6\n\
                  Template Gus,g@uni.edu,s7\nGood Hal,h@uni.edu,s8\n";
    let scratch = temp(&format!("srv-verdicts-files-{}", on.database().len()));
    let rubric = small_rubric("en-garde", 20, &scratch);
    let (dir, students) = on.course_of(
        "srv-verdicts",
        Some(roster),
        &["--rubric", &rubric.display().to_string()],
    );
    let server = on.serve(&dir);
    let text = scratch.join("bot.wasm");
    std::fs::write(&text, "def choose_move(view):\n    return view.legal_moves[0]\n").unwrap();
    let files: [(PathBuf, bool); 8] = [
        (bot("hostile/panic"), false),
        (bot("hostile/illegal"), true),
        (bot("hostile/infinite-loop"), false),
        (bot("hostile/memory-bomb"), false),
        (text, false),
        (bot("president/random"), false),
        (bot("en-garde/aggressive"), true),
        (bot("hostile/en-garde-move-notes"), true),
    ];
    for (i, (file, accepted)) in files.iter().enumerate() {
        let (code, v, err) = submit(&server, &students[i]["token"], file);
        // The exit status docs/server.md promises: 0 accepted, 1 rejected.
        assert_eq!(code, if *accepted { 0 } else { 1 }, "s{}: {err} {v:#}", i + 1);
        assert_eq!(v["accepted"].as_bool(), Some(*accepted), "s{}: {v:#}", i + 1);
    }
    let link = std::fs::read_to_string(dir.join("teacher-link.txt")).unwrap();
    let mut teacher = logged_in(&server, link.trim());
    let (_, gradebook, _) = teacher.get("/teacher/gradebook.csv");
    let (status, bytes, _) = teacher.get_bytes("/teacher/class.zip");
    assert_eq!(status, 200);
    let out = scratch.join("unzipped");
    zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .expect("a zip")
        .extract(&out)
        .expect("unzips");
    // The zip holds the versions that count; a student whose every version
    // was rejected has an empty folder: put in the file they sent, so the
    // offline grading sees the same files as the server.
    let metadata = std::fs::read_to_string(out.join("class/submission_metadata.yml")).unwrap();
    for (i, (file, _)) in files.iter().enumerate() {
        let sid = format!(":sid: \"s{}\"", i + 1);
        let at = metadata.find(&sid).unwrap_or_else(|| panic!("{sid} in {metadata}"));
        let folder = metadata[..at]
            .rsplit("submission_")
            .next()
            .and_then(|r| r.split(':').next())
            .unwrap();
        let bot_file = out.join(format!("class/submission_{folder}/bot.wasm"));
        if !bot_file.exists() {
            std::fs::copy(file, &bot_file).unwrap();
        }
    }
    let how = std::fs::read_to_string(out.join("HOW-TO-GRADE.txt")).unwrap();
    let command = how
        .lines()
        .find_map(|l| l.trim().strip_prefix("arena "))
        .expect("the command");
    let run = Command::new("sh")
        .arg("-c")
        .arg(format!("'{}' {command}", arena_bin().display()))
        .current_dir(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let offline = std::fs::read_to_string(out.join("graded/gradebook.csv")).unwrap();
    for (i, (_, accepted)) in files.iter().enumerate() {
        let id = format!("s{}", i + 1);
        let served = csv_row(&gradebook, "id", &id).unwrap_or_else(|| panic!("{id}: {gradebook}"));
        let graded = csv_row(&offline, "id", &id).unwrap_or_else(|| panic!("{id}: {offline}"));
        let offline_state = if graded["status"] == "graded" {
            "accepted"
        } else {
            "rejected"
        };
        assert_eq!(
            offline_state,
            if *accepted { "accepted" } else { "rejected" },
            "{id} offline: {offline}"
        );
        // A file that is no bot for the course (text, another game's bot)
        // is refused by the upload's own answer and never becomes a
        // version: the server has no file of that student, and says so.
        let refused_at_upload = i == 4 || i == 5;
        if refused_at_upload {
            assert_eq!(served["state"], "none", "{id}: {gradebook}");
            assert!(["", "0"].contains(&served["points"].as_str()), "{id}: {gradebook}");
            assert_eq!(graded["total"].parse::<f64>().unwrap(), 0.0, "{id}: {offline}");
            continue;
        }
        assert_eq!(served["state"], offline_state, "{id}: {gradebook}\n{offline}");
        let points: f64 = served["points"].parse().unwrap_or(f64::NAN);
        assert_eq!(
            points,
            graded["total"].parse::<f64>().unwrap(),
            "{id}: {gradebook}\n{offline}"
        );
        assert_eq!(
            served["plays_like"], graded["plays_like"],
            "{id}: {gradebook}\n{offline}"
        );
    }
    assert_eq!(
        csv_row(&gradebook, "id", "s7").unwrap()["plays_like"],
        "house:aggressive",
        "the unchanged template: {gradebook}"
    );
}

/// One verdict (issue 47): a bot that forfeits its smoke game is rejected
/// everywhere (the API, `arena submit`'s exit status, the version's state)
/// and never becomes the version that counts: the gradebook keeps the
/// accepted version before it.
fn a_bot_that_forfeits_its_smoke_game_is_rejected_and_never_counts(on: &On) {
    let (dir, students) = on.course("srv-forfeit", &[]);
    let server = on.serve(&dir);
    let (code, good, err) = submit(&server, &students[0]["token"], &bot("en-garde/aggressive"));
    assert_eq!(code, 0, "{err}");
    let panics = arena_tests::root().join("tests/fixtures/v0.1.0/hostile-panic.wasm");
    let (code, v, err) = submit(&server, &students[0]["token"], &panics);
    assert_eq!(code, 1, "rejected, exit 1: {err} {v:#}");
    assert_eq!(
        (v["state"].as_str(), v["accepted"].as_bool()),
        (Some("rejected"), Some(false)),
        "{v:#}"
    );
    assert!(v["reason"].as_str().is_some_and(|r| r.contains("smoke game")), "{v:#}");
    let link = std::fs::read_to_string(dir.join("teacher-link.txt")).unwrap();
    let mut teacher = logged_in(&server, link.trim());
    let (_, gradebook, _) = teacher.get("/teacher/gradebook.csv");
    let mut r = csv::Reader::from_reader(gradebook.as_bytes());
    let h = r.headers().unwrap().clone();
    let (id, points) = (
        h.iter().position(|c| c == "id").unwrap(),
        h.iter().position(|c| c == "points").unwrap(),
    );
    let row = r
        .records()
        .map(Result::unwrap)
        .find(|row| &row[id] == "s1")
        .expect("s1's row");
    assert_eq!(
        row[points].parse::<f64>().unwrap(),
        good["score"].as_f64().unwrap(),
        "the accepted v1 counts, not the rejected v2: {gradebook}"
    );
}

/// The flags a teacher must not miss travel (issue 47): a copy of the
/// house bot `aggressive` (the unchanged template) is flagged "plays like
/// house:aggressive" in `arena submit --json`, on its version page, on the
/// teacher's class table and in the gradebook, and two students with the
/// same file are flagged as identical, as `arena grade-class` flags them.
fn flags_travel_to_every_table_and_file(on: &On) {
    let (dir, students) = on.course("srv-flags", &[]);
    let server = on.serve(&dir);
    let copy = bot("en-garde/aggressive");
    let (code, ann, err) = submit(&server, &students[0]["token"], &copy);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        ann["flags"],
        serde_json::json!(["plays like house:aggressive"]),
        "{ann:#}"
    );
    let (code, _, err) = submit(&server, &students[1]["token"], &copy);
    assert_eq!(code, 0, "{err}");
    let mut student = logged_in(&server, &students[0]["link"]);
    let url = ann["url"].as_str().unwrap();
    let (_, page, _) = student.get(&url[url.find("/people/").expect("a version page")..]);
    assert!(
        page.contains("id=\"plays-like\"") && page.contains("plays like house:aggressive"),
        "{page}"
    );
    let link = std::fs::read_to_string(dir.join("teacher-link.txt")).unwrap();
    let mut teacher = logged_in(&server, link.trim());
    let (_, class, _) = teacher.get("/fragment/class");
    assert!(
        class.contains("plays like house:aggressive; identical file to Bo Wu"),
        "{class}"
    );
    let (_, gradebook, _) = teacher.get("/teacher/gradebook.csv");
    let mut r = csv::Reader::from_reader(gradebook.as_bytes());
    let h = r.headers().unwrap().clone();
    let col = |name: &str| {
        h.iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("no {name}: {gradebook}"))
    };
    let (id, same, like) = (col("id"), col("same_file_as"), col("plays_like"));
    let ann_row = r
        .records()
        .map(Result::unwrap)
        .find(|row| &row[id] == "s1")
        .expect("s1");
    assert_eq!(
        (&ann_row[same], &ann_row[like]),
        ("Bo Wu", "house:aggressive"),
        "{gradebook}"
    );
}

/// After the deadline and its late days the student's page says uploads
/// are closed and shows no upload box; before, it shows the command to
/// submit from a terminal, and the login link works as the token.
fn a_closed_course_says_so_and_the_login_link_works_as_a_token(on: &On) {
    let (dir, students) = on.course("srv-closed", &[]);
    let server = on.serve(&dir);
    let mut ann = logged_in(&server, &students[0]["link"]);
    let (_, open, _) = ann.get("/");
    assert!(open.contains("action=\"/upload\""), "the upload box while open");
    assert!(open.contains("arena submit --server"), "the terminal's command: {open}");
    // The whole login link pasted as the token.
    let (code, v, err) = submit(&server, &students[0]["link"], &bot("en-garde/random"));
    assert_eq!(code, 0, "{err} {v:#}");
    drop(server);
    let toml = dir.join("course.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    let text: String = text
        .lines()
        .filter(|l| !l.starts_with("deadline") && !l.starts_with("late_days"))
        .map(|l| format!("{l}\n"))
        .collect();
    let at = text.find("\n[").unwrap_or(text.len());
    let text = format!(
        "{}\ndeadline = \"2020-01-01T00:00:00Z\"\nlate_days = 2\n{}",
        &text[..at],
        &text[at..]
    );
    std::fs::write(&toml, text).unwrap();
    let server = on.serve(&dir);
    let mut ann = logged_in(&server, &students[0]["link"]);
    let (_, closed, _) = ann.get("/");
    assert!(
        !closed.contains("action=\"/upload\""),
        "no upload box once closed: {closed}"
    );
    assert!(closed.contains("Uploads are closed"), "{closed}");
    // Nothing promised that can no longer happen: a classmate who sent
    // nothing is told none will count and none is on the ladder.
    let mut bo = logged_in(&server, &students[1]["link"]);
    let (_, bo_page, _) = bo.get("/");
    assert!(
        bo_page.contains("No version counts: none of your versions was accepted before uploads closed.")
            && bo_page.contains("None of your versions is on the ladder: none counts.")
            && !bo_page.contains("the one that counts stays as it is")
            && !bo_page.contains("latest accepted version before the deadline will"),
        "{bo_page}"
    );
    assert!(
        !closed.contains("late are taken"),
        "no promise of late uploads: {closed}"
    );
    // The terminal says so before sending the file, in one line.
    let (code, _, err) = submit(&server, &students[0]["token"], &bot("en-garde/random"));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the course is closed: its deadline, 2020-01-01T00:00:00Z, and its 2 late days are over"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
}

/// Files that are no bot for the course are refused by the upload's own
/// answer (issue 47 item 7), never queued behind other work: a text file
/// renamed `.wasm`, and another game's bot, named by its game. Nothing is
/// kept: no version, no job.
fn a_file_that_is_no_bot_for_the_game_is_refused_in_the_uploads_answer(on: &On) {
    let (dir, students) = on.course("srv-refuse", &[]);
    let server = on.serve(&dir);
    let notes = dir.with_file_name("notes.wasm");
    std::fs::write(&notes, "my strategy: attack when ahead\n").unwrap();
    let (code, v, err) = submit(&server, &students[0]["token"], &notes);
    assert_eq!(code, 1, "rejected, exit 1: {err} {v:#}");
    assert_eq!(
        (v["accepted"].as_bool(), v["state"].as_str(), v["version"].is_null()),
        (Some(false), Some("rejected"), true),
        "{v:#}"
    );
    assert!(
        v["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("notes.wasm: not a WebAssembly file (found text)")),
        "{v:#}"
    );
    let other_game = bot("connect-fwar/basic");
    let (code, v, err) = submit(&server, &students[0]["token"], &other_game);
    assert_eq!(code, 1, "{err} {v:#}");
    let reason = v["reason"].as_str().unwrap_or("");
    assert!(
        reason.starts_with("basic.wasm: a bot for ConnectFwar, not En Garde; this course plays En Garde"),
        "{reason}"
    );
    assert!(
        !reason.contains("choose-column"),
        "names the game, not its exports: {reason}"
    );
    // The same words on the web form, and no version made by either.
    let mut ann = logged_in(&server, &students[0]["link"]);
    let (_, home, _) = ann.get("/");
    let (status, _) = ann.upload(&csrf(&home), "notes.wasm", b"my strategy\n");
    assert_eq!(status, 303);
    let (_, home, _) = ann.get("/");
    assert!(
        home.contains("Rejected, not kept: notes.wasm: not a WebAssembly file (found text)"),
        "{home}"
    );
    assert!(home.contains("No versions yet"), "{home}");
    assert_eq!(on.scalar(&dir, "SELECT COUNT(*) FROM submissions"), "0");
    assert_eq!(on.scalar(&dir, "SELECT COUNT(*) FROM jobs"), "0");
}

/// What the pages say is being done goes when it is done (issue 47 item
/// 8): "Version 1 received: it is being checked and graded" while it is
/// (here, on a server with no grading thread), and not on the page opened
/// once it is graded; the teacher's "1 counted version is being graded
/// again" likewise.
fn the_pages_say_work_is_being_done_only_while_it_is(on: &On) {
    let (dir, students) = on.course("srv-banners", &[]);
    let mut args = on.database();
    args.extend(["--workers", "0"]);
    let idle = serve_with(&dir, &args);
    let mut ann = logged_in(&idle, &students[0]["link"]);
    let (_, home, _) = ann.get("/");
    let bytes = std::fs::read(bot("en-garde/aggressive")).unwrap();
    assert_eq!(ann.upload(&csrf(&home), "aggressive.wasm", &bytes).0, 303);
    let (_, fragment, _) = ann.get("/fragment/versions");
    assert!(
        fragment.contains("Version 1 received: it is being checked and graded."),
        "while nothing grades it: {fragment}"
    );
    drop(idle);
    let server = on.serve(&dir);
    let mut ann = logged_in(&server, &students[0]["link"]);
    let graded = |b: &mut Browser| {
        let started = Instant::now();
        loop {
            let (_, fragment, _) = b.get("/fragment/versions");
            if fragment.contains("class=\"ok\">accepted") {
                return fragment;
            }
            assert!(started.elapsed() < Duration::from_secs(600), "{fragment}");
            std::thread::sleep(Duration::from_millis(300));
        }
    };
    graded(&mut ann);
    let (_, home, _) = ann.get("/");
    assert!(!home.contains("being checked"), "the work is done: {home}");
    let link = std::fs::read_to_string(dir.join("teacher-link.txt")).unwrap();
    let mut teacher = logged_in(&server, link.trim());
    let (_, page, _) = teacher.get("/");
    assert_eq!(
        teacher
            .post_form("/teacher/regrade", &[("authenticity_token", &csrf(&page))])
            .0,
        303
    );
    let started = Instant::now();
    loop {
        let (_, class, _) = teacher.get("/fragment/class");
        if class.contains("nothing waiting to be graded") {
            assert!(!class.contains("graded again"), "{class}");
            break;
        }
        assert!(class.contains("1 counted version is being graded again."), "{class}");
        assert!(started.elapsed() < Duration::from_secs(600), "{class}");
        std::thread::sleep(Duration::from_millis(300));
    }
    let (_, page, _) = teacher.get("/");
    assert!(!page.contains("graded again"), "the re-grade is done: {page}");
}

/// The version test and the choice of the version that counts (issue 47
/// items 7 and 8): a new version is tested against the version that
/// counts, not the upload before it (a rejected one, such as a bot that
/// forfeits, is never tested against); an identical file is not played;
/// `arena submit` reports the test and links on the address it reached;
/// a chosen version is said to be chosen, to the student and the teacher,
/// and the student can let the latest accepted version count again.
fn versus_the_version_that_counts_and_choosing(on: &On) {
    let (dir, students) = on.course("srv-versus", &[]);
    let server = on.serve(&dir);
    let token = &students[0]["token"];
    let (code, _, err) = submit(&server, token, &bot("en-garde/aggressive"));
    assert_eq!(code, 0, "{err}");
    let panics = arena_tests::root().join("tests/fixtures/v0.1.0/hostile-panic.wasm");
    let (code, v, err) = submit(&server, token, &panics);
    assert_eq!(code, 1, "{err}");
    assert!(v["versus"].is_null(), "a rejected version is not tested: {v:#}");
    // v3, in words: tested against v1 (which counts), not v2 (rejected).
    let out = arena(&[
        "submit",
        "--server",
        &server.url,
        "--token",
        token,
        &bot("en-garde/random").display().to_string(),
        "--wait",
        "600",
    ]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{said} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("v3 is weaker than v1"), "{said}");
    assert!(!said.contains("3600"), "no clamped Elo: {said}");
    assert!(
        said.contains(&format!("See it with its replays: {}/people/", server.url)),
        "the link on the address the server answered on: {said}"
    );
    // v4 is v3's file again: nothing is played.
    let (code, v, err) = submit(&server, token, &bot("en-garde/random"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        (v["versus"]["verdict"].as_str(), v["versus"]["games"].as_u64()),
        (Some("identical"), Some(0)),
        "{v:#}"
    );
    assert_eq!(
        v["versus"]["sentence"],
        "v4 is the same file as v3, the version that counts: nothing to test, they play alike."
    );
    // Choosing v1, then back to the latest.
    let mut ann = logged_in(&server, &students[0]["link"]);
    let (_, home, _) = ann.get("/");
    assert!(
        home.contains("Version 4 counts as your latest accepted version before the deadline (you chose none)"),
        "{home}"
    );
    // Sizes in the check's unit (binary: KiB, MiB), not KB.
    assert!(home.contains(" KiB</td>") && !home.contains(" KB</td>"), "{home}");
    assert_eq!(
        ann.post_form("/count", &[("authenticity_token", &csrf(&home)), ("version", "1")])
            .0,
        303
    );
    let (_, home, _) = ann.get("/");
    assert!(home.contains("Version 1 counts because you chose it"), "{home}");
    assert!(home.contains("let my latest accepted version count"), "{home}");
    // A version uploaded now is tested against v1, the chosen one.
    let (code, v, err) = submit(&server, token, &bot("en-garde/aggressive"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["versus"]["against"], 1, "{v:#}");
    assert_eq!(v["versus"]["verdict"], "identical", "{v:#}");
    let link = std::fs::read_to_string(dir.join("teacher-link.txt")).unwrap();
    let mut teacher = logged_in(&server, link.trim());
    let (_, class, _) = teacher.get("/fragment/class");
    assert!(class.contains("v1 (accepted, chosen by the student)"), "{class}");
    let ann_id = home
        .split("/people/")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap()
        .to_string();
    let (_, history, _) = teacher.get(&format!("/people/{ann_id}"));
    assert!(
        history.contains("Version 1 counts because the student chose it"),
        "{history}"
    );
    let (_, home, _) = ann.get("/");
    assert_eq!(
        ann.post_form("/count", &[("authenticity_token", &csrf(&home)), ("version", "0")])
            .0,
        303
    );
    let (_, home, _) = ann.get("/");
    assert!(home.contains("Your latest accepted version counts again."), "{home}");
    assert!(
        home.contains("Version 5 counts as your latest accepted version before the deadline"),
        "{home}"
    );
    let (_, history, _) = teacher.get(&format!("/people/{ann_id}"));
    assert!(history.contains("(the student chose none)"), "{history}");
}

/// A course made from Canvas's gradebook export (issue 47 item 8): no
/// emails there, so `course init` does not tell the teacher to mail the
/// links, and Canvas's own test student is not enrolled, whichever way
/// round its name is written.
#[test]
fn a_course_from_a_canvas_export_is_not_told_to_mail_and_has_no_test_student() {
    let dir = temp("srv-canvas-init").join("course");
    let roster = dir.with_file_name("gradebook.csv");
    std::fs::write(
        &roster,
        "Student,ID,SIS User ID,SIS Login ID,Section,Bot (123)\n    Points Possible,,,,,10\n\
         \"Lee, Ann\",1001,S-17,alee,Sec 1,\nTest Student,1002,,,Sec 1,\n\"Student, Test\",1003,,,Sec 1,\n",
    )
    .unwrap();
    let out = arena(&[
        "course",
        "init",
        &dir.display().to_string(),
        "--game",
        "en-garde",
        "--roster",
        &roster.display().to_string(),
    ]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said} {}", String::from_utf8_lossy(&out.stderr));
    assert!(said.contains("with 1 student."), "{said}");
    assert!(!said.contains("Mail each student"), "{said}");
    assert!(said.contains("the roster has no email addresses"), "{said}");
    let tokens = std::fs::read_to_string(dir.join("tokens.csv")).unwrap();
    assert!(!tokens.contains("Test"), "{tokens}");
}

/// Where a test's course keeps its data: SQLite in the course folder, or
/// a throwaway Postgres cluster. Every server test runs on both.
pub(crate) enum On {
    Sqlite,
    Postgres(Postgres),
}

impl On {
    pub(crate) fn postgres(name: &str) -> On {
        On::Postgres(Postgres::start(&format!("{name}-pg")))
    }

    pub(crate) fn database(&self) -> Vec<&str> {
        match self {
            On::Sqlite => vec![],
            On::Postgres(pg) => vec!["--database", &pg.url],
        }
    }

    pub(crate) fn course(&self, name: &str, extra: &[&str]) -> (PathBuf, Vec<BTreeMap<&'static str, String>>) {
        self.course_of(name, None, extra)
    }

    /// [`On::course`] for `game`.
    pub(crate) fn course_for(
        &self,
        game: &str,
        name: &str,
        extra: &[&str],
    ) -> (PathBuf, Vec<BTreeMap<&'static str, String>>) {
        self.course_of(name, None, &[&["--game", game][..], extra].concat())
    }

    /// [`On::course`] of the class `roster` (name,email,id), or the four of [`course`].
    pub(crate) fn course_of(
        &self,
        name: &str,
        roster: Option<&str>,
        extra: &[&str],
    ) -> (PathBuf, Vec<BTreeMap<&'static str, String>>) {
        let mut args = extra.to_vec();
        args.extend(self.database());
        // Both variants of a test run at once: each its own folder.
        let name = match self {
            On::Sqlite => name.to_string(),
            On::Postgres(_) => format!("{name}-on-pg"),
        };
        let made = match roster {
            Some(roster) => course_of(&name, roster, &args),
            None => course(&name, &args),
        };
        assert_eq!(
            made.0.join("course.db").exists(),
            matches!(self, On::Sqlite),
            "an SQLite file only for an SQLite course"
        );
        made
    }

    pub(crate) fn serve(&self, dir: &Path) -> Server {
        serve_with(dir, &self.database())
    }

    /// Another, empty database beside the course's (Postgres: a new
    /// database in the same cluster), by its URL; `None` on SQLite, whose
    /// database is a file of the course folder.
    pub(crate) fn another_database(&self, name: &str) -> Option<String> {
        let On::Postgres(pg) = self else { return None };
        let socket = pg.dir.display().to_string();
        let out = Command::new(pg.bin.join("createdb"))
            .args(["-h", &socket, "-p", "5432", "-U", "arena", name])
            .output()
            .expect("createdb");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        Some(pg.url.replace("/course?", &format!("/{name}?")))
    }

    /// One number the course's database answers `sql` with.
    pub(crate) fn scalar(&self, dir: &Path, sql: &str) -> String {
        let out = match self {
            On::Sqlite => Command::new("python3")
                .args([
                    "-c",
                    "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])",
                    &dir.join("course.db").display().to_string(),
                    sql,
                ])
                .output(),
            On::Postgres(pg) => Command::new(pg.bin.join("psql"))
                .args([
                    "-h",
                    &pg.dir.display().to_string(),
                    "-p",
                    "5432",
                    "-U",
                    "arena",
                    "-d",
                    "course",
                    "-At",
                    "-c",
                    sql,
                ])
                .output(),
        }
        .expect("ask the database");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}

/// Each test twice: `NAME::sqlite` and `NAME::postgres`.
/// A course whose limits and grading budget are set for these tests: each
/// move may use `fuel` (with a bank of 10G a game, so the fuel-burner, which
/// spends 1.5 times its allowance on every move, never forfeits), and one
/// submission's grading `minutes` of the reference machine's fuel.
fn budget_course(on: &On, name: &str, fuel: &str, minutes: &str) -> (PathBuf, Vec<BTreeMap<&'static str, String>>) {
    let (dir, students) = on.course(name, &[]);
    let toml = std::fs::read_to_string(dir.join("course.toml")).unwrap();
    let toml = toml.replace("[limits]", &format!("[limits]\nfuel = {fuel}\nbank = 10000000000"));
    std::fs::write(dir.join("course.toml"), toml).unwrap();
    let rubric = std::fs::read_to_string(dir.join("rubric.toml")).unwrap();
    std::fs::write(
        dir.join("rubric.toml"),
        format!("grading_minutes = {minutes}\n{rubric}"),
    )
    .unwrap();
    (dir, students)
}

/// `POST /api/submissions` of `file` with `token`: the version as received.
fn upload_api(server: &Server, token: &str, file: &Path) -> serde_json::Value {
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let mut r = agent
        .post(&format!("{}/api/submissions", server.url))
        .header("Authorization", &format!("Bearer {token}"))
        .send(&std::fs::read(file).unwrap()[..])
        .expect("upload");
    assert_eq!(r.status().as_u16(), 202, "acknowledged");
    r.body_mut().read_json().unwrap()
}

/// `GET /api/submissions/N` with `token`.
fn version_api(server: &Server, token: &str, n: i64) -> serde_json::Value {
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let mut r = agent
        .get(&format!("{}/api/submissions/{n}", server.url))
        .header("Authorization", &format!("Bearer {token}"))
        .call()
        .expect("poll");
    r.body_mut().read_json().unwrap()
}

/// Grading time is bounded and shown (issue 47 item 10). The estimate is
/// given when the upload is received (the check's 60 smoke games, the
/// smoke game and the rubric's 600: 662 games, at most the course's
/// budget); while a long grading runs its page says how many games it has
/// played, and a classmate's upload meanwhile is checked and graded in the
/// upload lane instead of waiting behind it (the default: one grading
/// thread). The long grading is long by fuel, not by the clock: the
/// fuel-burner spends 15M on each of its moves, about 450G over the 662
/// games, half a minute of the reference machine, against a few seconds
/// for the aggressive bot. Restarted with a budget of 0.1 minutes
/// (88.2G), the course rejects the fuel-burner as over its grading budget
/// in one line, by the API, `arena submit` and the version page alike, at
/// the game and in the words of `arena grade` with the course's rubric.
fn grading_time_is_bounded_and_shown(on: &On) {
    let (dir, students) = budget_course(on, "srv-grading-time", "10000000", "2");
    let server = on.serve(&dir);
    let burner = bot("hostile/fuel-burner");
    let (ann, bo) = (&students[0]["token"], &students[1]["token"]);
    // `arena submit` says how the grading goes while it waits (5 s here:
    // the fuel-burner's grading takes half a minute of fuel at least).
    let out = arena(&[
        "submit",
        "--server",
        &server.url,
        "--token",
        ann,
        &burner.display().to_string(),
        "--wait",
        "5",
    ]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "received, not graded yet: {said}");
    assert!(
        said.lines()
            .any(|l| l.starts_with("grading: ") && l.contains("662 games")),
        "{said}"
    );
    let long = version_api(&server, ann, 1);
    let quick = upload_api(&server, bo, &bot("en-garde/aggressive"));
    assert_eq!(quick["state"], "queued", "{quick}");
    assert_eq!(
        quick["progress"], "up to 662 games, at most 4 minutes (the course's grading budget)",
        "the estimate before grading starts: {quick}"
    );
    // Bo's version is graded while Ann's long one still runs.
    let started = Instant::now();
    let graded = loop {
        let v = version_api(&server, bo, 1);
        if !matches!(v["state"].as_str(), Some("queued" | "running")) {
            break v;
        }
        assert!(started.elapsed() < Duration::from_secs(900), "{v}");
        std::thread::sleep(Duration::from_millis(300));
    };
    assert_eq!(graded["state"], "accepted", "{graded}");
    let running = version_api(&server, ann, 1);
    assert_eq!(
        running["state"], "running",
        "the long grading still runs when the quick one is done: {running}"
    );
    // Ann's page says how far her grading is, without a reload (the
    // verdict part and the versions banner are fetched again on "progress").
    let mut browser = logged_in(&server, &students[0]["link"]);
    let url = long["url"].as_str().unwrap_or_default();
    let page = &url[url.find("/people/").expect("a version page")..];
    let started = Instant::now();
    loop {
        let (_, part, _) = browser.get(&format!("{page}/verdict"));
        let (_, banner, _) = browser.get("/fragment/versions");
        if part.contains("games played (") {
            assert!(
                part.contains("Grading: ") && part.contains(" of 662 games played ("),
                "{part}"
            );
            assert!(part.contains("left (at most 4 minutes in all)"), "{part}");
            assert!(
                banner.contains("Version 1 received: it is being checked and graded. Grading: ")
                    && banner.contains(" of 662 games played ("),
                "{banner}"
            );
            break;
        }
        assert!(part.contains("Checking and grading"), "{part}");
        assert!(started.elapsed() < Duration::from_secs(900), "{part}");
        std::thread::sleep(Duration::from_millis(300));
    }
    let app = std::fs::read_to_string(arena_tests::root().join("host/server/assets/app.js")).unwrap();
    assert!(
        app.contains("addEventListener(\"progress\""),
        "the page listens for progress"
    );
    drop(server);

    // The same course with a budget of 0.1 minutes (88.2G), after a
    // restart: the check's 60 games (41G) pass under a budget of their
    // own, the rubric's stop past theirs, at the game `arena grade` stops
    // at with the same rubric and limits, in the same words.
    let rubric = std::fs::read_to_string(dir.join("rubric.toml")).unwrap();
    std::fs::write(
        dir.join("rubric.toml"),
        rubric.replace("grading_minutes = 2\n", "grading_minutes = 0.1\n"),
    )
    .unwrap();
    let server = on.serve(&dir);
    let (code, v, err) = submit(&server, &students[2]["token"], &burner);
    assert_eq!(code, 1, "rejected: {err} {v}");
    assert_eq!(v["accepted"], false, "{v}");
    let reason = v["reason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with("over the grading budget: grading stopped after ")
            && reason.contains(" of 602 games, when the bot had used ")
            && reason.contains("the 88.2G (about 6 seconds) the course gives one submission's grading")
            && reason.contains("make most moves cheaper")
            && !reason.contains('\n'),
        "{reason}"
    );
    let offline = arena(&[
        "grade",
        "--game",
        "en-garde",
        &burner.display().to_string(),
        "--rubric",
        &dir.join("rubric.toml").display().to_string(),
        "--fuel",
        "10000000",
        "--bank",
        "10000000000",
        "--json",
    ]);
    let offline: serde_json::Value = serde_json::from_slice(&offline.stdout).expect("JSON");
    assert_eq!(offline["reason"], v["reason"], "the same verdict offline");
    assert_eq!(offline["over_budget"], v["grade"]["over_budget"]);
    let mut browser = logged_in(&server, &students[2]["link"]);
    let url = v["url"].as_str().unwrap_or_default();
    let (_, page, _) = browser.get(&url[url.find("/people/").expect("a version page")..]);
    assert!(
        page.contains("Rejected: over the grading budget: grading stopped after "),
        "{page}"
    );
}

macro_rules! on_both {
    ($($test:ident),* $(,)?) => {$(
        mod $test {
            #[test]
            fn sqlite() {
                super::$test(&super::On::Sqlite)
            }

            #[test]
            fn postgres() {
                super::$test(&super::On::postgres(stringify!($test)))
            }
        }
    )*};
}
// Other areas' server tests (`ladder`) use it too.
pub(crate) use on_both;

/// A student's own way in (issue 47 item 6): the page links the game's
/// rules, served by the server as a page of their own (the rules document's
/// own words), names the `arena new` command for the course's game and the
/// exact `arena submit` one, and every page a student opens has a log-out
/// button that logs them out.
fn a_student_finds_the_rules_arena_new_and_log_out_on_every_page(on: &On) {
    let (dir, students) = on.course("srv-way-in", &[]);
    let server = on.serve(&dir);
    let (code, json, err) = submit(&server, &students[0]["token"], &bot("en-garde/aggressive"));
    assert_eq!(code, 0, "{err} {json}");
    let mut ann = logged_in(&server, &students[0]["link"]);
    let (_, home, _) = ann.get("/");
    assert!(home.contains("href=\"/rules\""), "{home}");
    assert!(
        home.contains("arena new --game en-garde --lang python my-bot"),
        "{home}"
    );
    assert!(home.contains("arena submit --server"), "{home}");
    // The icon every browser asks for is there (no 404 in the log).
    let (status, icon, headers) = Browser::new(&server).get("/favicon.ico");
    assert_eq!(status, 200);
    assert_eq!(
        headers.get("content-type").and_then(|v| v.to_str().ok()),
        Some("image/svg+xml")
    );
    assert!(icon.starts_with("<svg"), "{icon}");
    let rules_doc = std::fs::read_to_string(arena_tests::root().join("docs/rules/en-garde.md")).unwrap();
    for (who, browser) in [("a student", &mut ann), ("anyone", &mut Browser::new(&server))] {
        let (status, rules, _) = browser.get("/rules");
        assert_eq!(status, 200, "{who}: {rules}");
        // Each numbered rule on a line of its own, as in the document.
        assert!(
            rules.contains("<br />\n2.2 The deck") && rules_doc.contains("\n2.2 The deck"),
            "{who}: {rules}"
        );
        assert!(
            rules.contains("<h2>9. What a bot sees</h2>") && rules_doc.contains("## 9. What a bot sees"),
            "{who}: {rules}"
        );
    }
    let ann_id = home
        .split("/people/")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap()
        .to_string();
    for path in [
        "/".to_string(),
        "/rules".into(),
        "/ladder".into(),
        format!("/ladder/people/{ann_id}"),
        format!("/people/{ann_id}/versions/1"),
    ] {
        let (status, page, _) = ann.get(&path);
        assert_eq!(status, 200, "{path}: {page}");
        assert!(page.contains("action=\"/logout\""), "no log-out on {path}: {page}");
    }
    let (_, version, _) = ann.get(&format!("/people/{ann_id}/versions/1"));
    assert_eq!(
        ann.post_form("/logout", &[("authenticity_token", &csrf(&version))]).0,
        303
    );
    let (_, after, _) = ann.get("/");
    assert!(after.contains("Log in with the link"), "still logged in: {after}");
}

on_both!(
    a_student_finds_the_rules_arena_new_and_log_out_on_every_page,
    a_student_submits_from_the_terminal_and_gets_the_grade_by_the_rubric,
    a_file_that_is_no_bot_is_rejected_and_a_bad_token_is_one_line,
    pages_keep_each_student_to_their_own_and_the_teacher_to_the_class,
    a_server_killed_while_grading_finishes_the_job_once_after_a_restart,
    uploads_over_the_limits_are_refused,
    the_roster_changes_while_the_course_runs,
    the_class_zip_grades_offline_as_the_server_graded,
    hostile_files_are_refused_or_shown_as_text,
    a_bot_that_forfeits_its_smoke_game_is_rejected_and_never_counts,
    a_closed_course_says_so_and_the_login_link_works_as_a_token,
    flags_travel_to_every_table_and_file,
    every_kind_of_failure_has_the_same_verdict_on_the_server_and_offline,
    a_file_that_is_no_bot_for_the_game_is_refused_in_the_uploads_answer,
    the_pages_say_work_is_being_done_only_while_it_is,
    grading_time_is_bounded_and_shown,
    versus_the_version_that_counts_and_choosing,
);

/// One course, one database (issue 49 item 8): a course made with
/// `--database` names its database in `course.toml` (a password kept in a
/// 0600 file beside it, never in `course.toml`), so `arena serve DIR`, the
/// command `init` prints, serves the class without `--database`; a backup
/// and a restore into another database follow the course's naming; a
/// database that cannot be found is refused in one line, and no empty
/// SQLite file ever stands in for it.
#[test]
fn a_course_names_its_database_and_serve_never_makes_an_empty_one() {
    use std::os::unix::fs::PermissionsExt;
    let on = On::postgres("one-database");
    let On::Postgres(pg) = &on else { unreachable!() };
    // The cluster trusts local users, so the password is only carried.
    let url = pg.url.replacen("postgres://arena@", "postgres://arena:s3cret-pw@", 1);
    let (dir, students) = course("one-db-course", &["--database", &url]);
    let toml = std::fs::read_to_string(dir.join("course.toml")).unwrap();
    assert!(
        toml.contains("database = \"file:database-url\"") && !toml.contains("s3cret"),
        "{toml}"
    );
    let kept = dir.join("database-url");
    assert_eq!(std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(std::fs::read_to_string(&kept).unwrap().trim(), url);
    // The command `init` prints, as printed: the class is there.
    {
        let server = serve_with(&dir, &[]);
        let mut ann = logged_in(&server, &students[0]["link"]);
        let (status, page, _) = ann.get("/");
        assert!(status == 200 && page.contains("Ann Lee"), "{status} {page}");
    }
    assert!(
        !dir.join("course.db").exists(),
        "no SQLite file beside a Postgres course"
    );
    // A backup without --database takes the course's own database.
    let backup = dir.with_file_name("nightly");
    let out = arena(&[
        "course",
        "backup",
        &dir.display().to_string(),
        &backup.display().to_string(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(backup.join("course.pgdump").is_file());
    // A backup may leave the machine: it holds no password, and says none.
    assert!(
        !backup.join("database-url").exists(),
        "the password file is not backed up"
    );
    for said in [&out.stdout, &out.stderr] {
        assert!(!String::from_utf8_lossy(said).contains("s3cret"), "a password printed");
    }
    // Restored into another database, the folder names that one.
    let other = on.another_database("restored").unwrap();
    let restored = dir.with_file_name("restored");
    let out = arena(&[
        "course",
        "restore",
        &backup.display().to_string(),
        &restored.display().to_string(),
        "--database",
        &other,
    ]);
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        said.contains(&format!("arena serve {}", restored.display())) && !said.contains("--database"),
        "{said}"
    );
    let toml = std::fs::read_to_string(restored.join("course.toml")).unwrap();
    assert!(toml.contains(&format!("database = \"{other}\"")), "{toml}");
    {
        let server = serve_with(&restored, &[]);
        let mut ann = logged_in(&server, &students[0]["link"]);
        let (status, page, _) = ann.get("/");
        assert!(status == 200 && page.contains("Ann Lee"), "{status} {page}");
    }
    // Where the URL is not: one line each, and nothing made.
    let refused = |dir: &Path, env: Option<(&str, &str)>| {
        let mut c = Command::new(arena_bin());
        c.args(["serve", &dir.display().to_string(), "--listen", "127.0.0.1:0"]);
        if let Some((k, v)) = env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
        assert_eq!(err.lines().count(), 1, "{err}");
        err
    };
    std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o644)).unwrap();
    let err = refused(&dir, None);
    assert!(
        err.contains("database-url: others may read it (mode 644)") && err.contains("chmod 600"),
        "{err}"
    );
    let text = std::fs::read_to_string(dir.join("course.toml")).unwrap();
    std::fs::write(
        dir.join("course.toml"),
        text.replace(
            "database = \"file:database-url\"",
            "database = \"env:ONE_DATABASE_URL\"",
        ),
    )
    .unwrap();
    let err = refused(&dir, None);
    assert!(
        err.contains("environment variable ONE_DATABASE_URL") && err.contains("which is not set here"),
        "{err}"
    );
    {
        let mut c = Command::new(arena_bin());
        c.env("ONE_DATABASE_URL", &url);
        let server = serve_by(c, &dir, &[]);
        let mut bo = logged_in(&server, &students[1]["link"]);
        let (status, page, _) = bo.get("/");
        assert!(status == 200 && page.contains("Bo Wu"), "{status} {page}");
    }
    // An SQLite course whose file went: refused, never served empty.
    let (lite, _) = course("one-db-lite", &[]);
    std::fs::remove_file(lite.join("course.db")).unwrap();
    let err = refused(&lite, None);
    assert!(
        err.contains("course.db: not there") && err.contains("--database"),
        "{err}"
    );
    assert!(!lite.join("course.db").exists(), "no empty database made");
}
