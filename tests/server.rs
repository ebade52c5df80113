//! The course server from outside, as its users meet it: a course made by
//! `arena course init`, `arena serve` as a real process on loopback (SQLite
//! in the course folder), students submitting with `arena submit` and
//! through the pages, and every authorisation rule tried from the wrong side.

use arena_tests::{arena, arena_bin, bot, temp};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `arena serve`, killed when dropped.
struct Server {
    child: Child,
    url: String,
    dir: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A class of four (one named like a formula, one like markup) and its course folder.
fn course(name: &str, extra: &[&str]) -> (PathBuf, Vec<BTreeMap<&'static str, String>>) {
    let dir = temp(name).join("course");
    let roster = dir.with_file_name("roster.csv");
    std::fs::write(
        &roster,
        "name,email,id\nAnn Lee,ann@uni.edu,s1\nBo Wu,bo@uni.edu,s2\n\"=HYPERLINK(\"\"http://x\"\")\",eve@uni.edu,s3\n\
         \"<img src=x onerror=\"\"window.pwned=1\"\">\",mal@uni.edu,s4\n",
    )
    .unwrap();
    let mut args = vec![
        "course".to_string(),
        "init".into(),
        dir.display().to_string(),
        "--game".into(),
        "en-garde".into(),
        "--roster".into(),
        roster.display().to_string(),
    ];
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

/// Start `arena serve` on a free loopback port; returns once it listens.
fn serve(dir: &Path) -> Server {
    serve_with(dir, &[])
}

/// [`serve`] with more arguments (`--database URL`).
fn serve_with(dir: &Path, extra: &[&str]) -> Server {
    let mut child = Command::new(arena_bin())
        .args([
            "serve",
            &dir.display().to_string(),
            "--listen",
            "127.0.0.1:0",
            "--workers",
            "1",
        ])
        .args(extra)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("start arena serve");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let first = lines.next().and_then(Result::ok).unwrap_or_default();
    let url = first
        .split(" at ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .unwrap_or_else(|| panic!("arena serve said: {first}"))
        .to_string();
    // Keep reading its messages so the pipe never fills.
    std::thread::spawn(move || for _ in lines.by_ref() {});
    Server {
        child,
        url,
        dir: dir.to_path_buf(),
    }
}

/// `arena submit` of `file` with `token`, as JSON: exit status and the object (or stderr).
fn submit(server: &Server, token: &str, file: &Path) -> (i32, serde_json::Value, String) {
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
struct Browser {
    agent: ureq::Agent,
    base: String,
    cookies: BTreeMap<String, String>,
}

impl Browser {
    fn new(server: &Server) -> Browser {
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

    fn cookie_header(&self) -> String {
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

    fn get(&mut self, path: &str) -> (u16, String, ureq::http::HeaderMap) {
        let url = if path.starts_with("http") {
            path.to_string()
        } else {
            format!("{}{path}", self.base)
        };
        let mut r = self
            .agent
            .get(&url)
            .header("Cookie", &self.cookie_header())
            .call()
            .expect("GET");
        self.keep(&r);
        let headers = r.headers().clone();
        (
            r.status().as_u16(),
            r.body_mut().read_to_string().unwrap_or_default(),
            headers,
        )
    }

    fn post_form(&mut self, path: &str, form: &[(&str, &str)]) -> (u16, String) {
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
        (r.status().as_u16(), r.body_mut().read_to_string().unwrap_or_default())
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

fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The CSRF token of the first form of a page.
fn csrf(page: &str) -> String {
    page.split("name=\"authenticity_token\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_else(|| panic!("no form token in {page}"))
        .to_string()
}

/// Log in with a link: the session cookie comes back with a redirect home.
fn logged_in(server: &Server, link: &str) -> Browser {
    let mut b = Browser::new(server);
    let path = link.split("/login/").nth(1).expect("a login link");
    let (status, _, headers) = b.get(&format!("/login/{path}"));
    assert_eq!(status, 303, "login redirects home");
    assert_eq!(headers.get("location").and_then(|v| v.to_str().ok()), Some("/"));
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

#[test]
fn a_student_submits_from_the_terminal_and_gets_the_grade_by_the_rubric() {
    let (dir, students) = course("srv-submit", &[]);
    let server = serve(&dir);
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
    // A second submission is version 2.
    let (code, v, _) = submit(&server, &students[0]["token"], &bot("en-garde/random"));
    assert_eq!((code, v["version"].as_i64()), (0, Some(2)));
}

#[test]
fn a_file_that_is_no_bot_is_rejected_and_a_bad_token_is_one_line() {
    let (dir, students) = course("srv-reject", &[]);
    let server = serve(&dir);
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
        "x",
        &notes.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot reach the course server"));
}

#[test]
fn pages_keep_each_student_to_their_own_and_the_teacher_to_the_class() {
    let (dir, students) = course("srv-auth", &[]);
    let server = serve(&dir);
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

#[test]
fn a_server_killed_while_grading_finishes_the_job_once_after_a_restart() {
    let (dir, students) = course("srv-kill", &[]);
    let python = bot("en-garde/aggressive-py");
    let mut server = serve(&dir);
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
    let server = serve(&dir);
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
    let db = dir.join("course.db");
    let out = Command::new("python3")
        .args([
            "-c",
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute(\"select count(*), sum(state='done') from jobs\").fetchone(), c.execute('select count(*) from submissions').fetchone())",
            &db.display().to_string(),
        ])
        .output()
        .expect("python3 reads the database");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "(1, 1) (1,)");
}

#[test]
fn uploads_over_the_size_limit_and_past_the_deadline_are_refused() {
    let (dir, students) = course(
        "srv-limits",
        &["--deadline", "2020-01-01T00:00:00Z", "--late-days", "1"],
    );
    let server = serve(&dir);
    let (code, _, err) = submit(&server, &students[0]["token"], &bot("en-garde/aggressive"));
    assert_eq!(code, 2);
    assert!(err.contains("the deadline and its late days are over"), "{err}");
    let (dir, students) = course("srv-size", &[]);
    let toml = std::fs::read_to_string(dir.join("course.toml")).unwrap();
    std::fs::write(
        dir.join("course.toml"),
        toml.replace("[limits]", "[limits]\nmax_file_bytes = 20000"),
    )
    .unwrap();
    let server = serve(&dir);
    let (code, _, err) = submit(&server, &students[0]["token"], &bot("en-garde/aggressive"));
    assert_eq!(code, 2);
    assert!(err.contains("larger than 20000 bytes"), "{err}");
}

/// A throwaway PostgreSQL cluster in a temporary folder (Debian's
/// `postgresql` package, which scripts/setup.sh installs), reached by its
/// socket only; stopped when dropped.
struct Postgres {
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
        let dir = temp(name);
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
        let options = format!("-k {socket} -p 5432 -c listen_addresses=''");
        run(
            &bin.join("pg_ctl"),
            &[
                "-D",
                &data,
                "-o",
                &options,
                "-l",
                &format!("{socket}/log"),
                "-w",
                "start",
            ],
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

/// The same server, the same code, on Postgres: a submission from the
/// terminal is graded, another student's version stays theirs, the
/// teacher's gradebook lists it, and a restarted server finds it all.
#[test]
fn the_same_server_runs_on_postgres() {
    let pg = Postgres::start("srv-pg");
    let (dir, students) = course("srv-pg-course", &["--database", &pg.url]);
    assert!(
        !dir.join("course.db").exists(),
        "no SQLite file beside a Postgres course"
    );
    let server = serve_with(&dir, &["--database", &pg.url]);
    let (code, v, err) = submit(&server, &students[0]["token"], &bot("en-garde/aggressive"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["accepted"], true);
    assert_eq!(v["check"]["file"], "aggressive.wasm");
    let mut bo = logged_in(&server, &students[1]["link"]);
    let ann = v["url"]
        .as_str()
        .unwrap_or("")
        .split("/people/")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or("0")
        .to_string();
    assert_eq!(bo.get(&format!("/people/{ann}/versions/1")).0, 403);
    assert_eq!(bo.get("/teacher/gradebook.csv").0, 403);
    drop(server);
    let server = serve_with(&dir, &["--database", &pg.url]);
    let teacher_link = std::fs::read_to_string(dir.join("teacher-link.txt")).unwrap();
    let mut teacher = logged_in(&server, teacher_link.trim());
    let (status, csv, _) = teacher.get("/teacher/gradebook.csv");
    assert_eq!(status, 200);
    assert!(csv.lines().any(|l| l.starts_with("s1,Ann Lee,ann@uni.edu,1,")), "{csv}");
    let (code, v, _) = submit(&server, &students[0]["token"], &bot("en-garde/random"));
    assert_eq!((code, v["version"].as_i64()), (0, Some(2)));
}

/// The roster changes while the server runs: a re-issued link replaces the
/// old one, a removed student can no longer submit, an added one can.
#[test]
fn the_roster_changes_while_the_course_runs() {
    let (dir, students) = course("srv-roster", &[]);
    let server = serve(&dir);
    let shown = dir.display().to_string();
    let out = arena(&["course", "roster", &shown, "--reissue", "s1"]);
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
    assert_eq!(Browser::new(&server).get(&path(&new_link)).0, 303, "the new link");
    let out = arena(&["course", "roster", &shown, "--remove", "s2"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (code, _, err) = submit(&server, &students[1]["token"], &bot("en-garde/aggressive"));
    assert_eq!(code, 2, "{err}");
    let more = dir.with_file_name("more.csv");
    std::fs::write(&more, "name,email,id\nAnn Lee,ann@uni.edu,s1\nCy Ng,cy@uni.edu,s9\n").unwrap();
    let out = arena(&["course", "roster", &shown, "--add", &more.display().to_string()]);
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("added 1 students"),
        "{out:?}"
    );
    let tokens = std::fs::read_to_string(dir.join("tokens.csv")).unwrap();
    let cy = tokens.lines().find(|l| l.starts_with("s9,")).expect("Cy's row");
    let token = cy.rsplit(',').nth(1).unwrap();
    let (code, v, err) = submit(&server, token, &bot("en-garde/random"));
    assert_eq!((code, v["accepted"].as_bool()), (0, Some(true)), "{err}");
    let out = arena(&["course", "roster", &shown, "--remove", "nobody"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no student `nobody`"));
}
