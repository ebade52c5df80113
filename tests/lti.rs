//! LTI 1.3 from outside: a real platform (the `lti1p3platform` package
//! behind a small HTTP app, tests/lti/lti_platform.py, on `localhost`, a
//! site other than the course's `127.0.0.1`) launches a course served by
//! `arena serve`. Every check of the launch is failed once from the wrong
//! side (a forged signature, an unknown key, another tool's token, an
//! expired one, a replay, another browser, an unregistered deployment),
//! and each must log no one in and say why in one line.

use crate::browser::{browser_with, eval, wait_long};
use crate::server::{On, Server, course_of, on_both, serve_with};
use crate::walkthrough::{full_page, shots_in};
use arena_tests::{arena, root};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The LTI 1.3 membership role of a learner.
const LEARNER: &str = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner";
/// ... and of an instructor.
const INSTRUCTOR: &str = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor";

/// The test LMS, killed when dropped.
pub(crate) struct Lms {
    child: Child,
    pub(crate) url: String,
    agent: ureq::Agent,
    /// Where it keeps what it holds, so it can stop and start again as the same LMS.
    state: Option<PathBuf>,
}

impl Drop for Lms {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Lms {
    /// Start the platform (its Python packages are in `target/lti-platform`, made by scripts/setup.sh).
    pub(crate) fn start() -> Lms {
        Lms::spawn(0, None)
    }

    /// An LMS that keeps what it holds (keys, tool, roster, gradebook) in `state`: it may be stopped and resumed.
    fn durable(state: PathBuf) -> Lms {
        Lms::spawn(0, Some(state))
    }

    /// The LMS goes down (killed: no goodbye).
    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The same LMS comes back, at the same address, holding what it held.
    fn resume(&mut self) {
        let port: u16 = self
            .url
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("the LMS's port");
        // The port was free while the LMS was down: another process may
        // hold it for a moment (a client's own port), so try for a while.
        let started = Instant::now();
        let (child, url) = loop {
            match Lms::try_child(port, self.state.as_ref()) {
                Ok(up) => break up,
                Err(e) if started.elapsed() < Duration::from_secs(60) => {
                    eprintln!("the test LMS did not come back at port {port} ({e}); trying again");
                    std::thread::sleep(Duration::from_millis(500));
                }
                Err(e) => panic!("the test LMS never came back at port {port}: {e}"),
            }
        };
        assert_eq!(url, self.url);
        self.child = child;
    }

    fn spawn(port: u16, state: Option<PathBuf>) -> Lms {
        let (child, url) = Lms::child(port, state.as_ref());
        Lms {
            child,
            url,
            agent: agent(),
            state,
        }
    }

    /// The platform's process, listening at `port` (0: any), and its URL.
    fn child(port: u16, state: Option<&PathBuf>) -> (Child, String) {
        Lms::try_child(port, state).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Lms::child`], or what the platform said when it did not start.
    fn try_child(port: u16, state: Option<&PathBuf>) -> Result<(Child, String), String> {
        let python = root().join("target/lti-platform/bin/python");
        assert!(
            python.exists(),
            "{} is missing: run scripts/setup.sh (it makes the test LMS's Python environment)",
            python.display()
        );
        let mut command = Command::new(python);
        command
            .arg(root().join("tests/lti/lti_platform.py"))
            .arg(port.to_string());
        if let Some(state) = state {
            command.arg(state);
        }
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the test LMS");
        let mut first = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut first)
            .expect("the LMS's first line");
        match serde_json::from_str::<Value>(&first) {
            Ok(said) => Ok((child, said["url"].as_str().expect("url").to_string())),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(format!("the LMS said: {first:?}"))
            }
        }
    }

    fn control(&self, path: &str, body: Value) {
        let r = self
            .agent
            .post(&format!("{}{path}", self.url))
            .send_json(&body)
            .expect("the LMS's test route");
        assert_eq!(r.status().as_u16(), 200, "{path}");
    }

    /// What the LMS received (scores, line items) and its error log.
    fn state(&self) -> Value {
        let mut r = self
            .agent
            .get(&format!("{}/_test/state", self.url))
            .call()
            .expect("state");
        r.body_mut().read_json().expect("json")
    }

    /// Make the next id_token bad on purpose.
    fn tamper(&self, mode: &str) {
        self.control("/_test/tamper", json!({ "mode": mode }));
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .into()
}

/// A course of two students on the roster (Ann by email), served at a
/// port chosen first, so `course.toml`'s address is the one it listens
/// at; registered in a fresh LMS, whose roster has Ann, a teacher, and a
/// student who is on no CSV.
fn course_in_lms(name: &str) -> (Server, Lms) {
    let (server, lms, _) = course_in_lms_on(&On::Sqlite, name, Lms::start());
    (server, lms)
}

/// [`course_in_lms`] on either database, in `lms`, with the roster's students' tokens and links.
fn course_in_lms_on(on: &On, name: &str, lms: Lms) -> (Server, Lms, Vec<BTreeMap<&'static str, String>>) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let (dir, students) = on.course_of(
        name,
        Some("name,email,id\nAnn Lee,ann@uni.edu,s1\nBo Wu,bo@uni.edu,s2\n"),
        &["--url", &url],
    );
    let dir_arg = dir.display().to_string();
    if matches!(on, On::Postgres(_)) {
        // The course names its database: the command finds it without --database, and makes no SQLite file.
        let out = arena(&["course", "lti", dir_arg.as_str()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(!dir.join("course.db").exists());
    }
    let mut args = vec!["course", "lti", dir_arg.as_str()];
    // The course's database (Postgres is named on every command, as for `arena serve`).
    args.extend(on.database());
    let (auth, token, jwks) = (
        format!("{}/auth", lms.url),
        format!("{}/token", lms.url),
        format!("{}/jwks", lms.url),
    );
    args.extend([
        "--add-platform",
        "--issuer",
        &lms.url,
        "--client-id",
        "c1",
        "--deployment-id",
        "d1",
        "--auth-url",
        &auth,
        "--token-url",
        &token,
        "--jwks-url",
        &jwks,
    ]);
    let out = arena(&args);
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{said}{}", String::from_utf8_lossy(&out.stderr));
    // What the teacher copies into the LMS is what the command prints.
    for line in [
        format!("OpenID Connect login URL (initiate login): {url}/lti/login"),
        format!("Redirect URI(s):                           {url}/lti/launch"),
        format!("Public keyset URL (JWKS):                  {url}/lti/jwks"),
    ] {
        assert!(said.contains(&line), "{said}");
    }
    lms.control(
        "/_test/tool",
        json!({
            "client_id": "c1",
            "deployment_id": "d1",
            "oidc_login_url": format!("{url}/lti/login"),
            "launch_url": format!("{url}/lti/launch"),
            "jwks_url": format!("{url}/lti/jwks"),
        }),
    );
    lms.control(
        "/_test/roster",
        json!([
            {"user_id": "u-ann", "name": "Ann Lee", "email": "ann@uni.edu", "roles": [LEARNER], "status": "Active"},
            {"user_id": "u-teach", "name": "Prof Ada", "email": "ada@uni.edu", "roles": [INSTRUCTOR], "status": "Active"},
            {"user_id": "u-late", "name": "Cy Late", "email": "cy@uni.edu", "roles": [LEARNER], "status": "Active"},
        ]),
    );
    let server = serve_again(on, &dir, port);
    (server, lms, students)
}

/// `arena serve` of the course folder `dir` at `port`, on its database.
fn serve_again(on: &On, dir: &std::path::Path, port: u16) -> Server {
    let listen = format!("127.0.0.1:{port}");
    let mut args = vec!["--listen", listen.as_str()];
    args.extend(on.database());
    serve_with(dir, &args)
}

/// A browser by hand: cookies of the course's site kept between requests.
struct Visitor {
    agent: ureq::Agent,
    tool: String,
    cookies: BTreeMap<String, String>,
}

/// One response: status, body, headers.
type Answer = (u16, String, ureq::http::HeaderMap);

impl Visitor {
    fn new(server: &Server) -> Visitor {
        Visitor {
            agent: agent(),
            tool: server.url.clone(),
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

    fn keep(&mut self, url: &str, r: &ureq::http::Response<ureq::Body>) {
        if !url.starts_with(&self.tool) {
            return;
        }
        for c in r.headers().get_all("set-cookie") {
            let c = c.to_str().unwrap_or("");
            if let Some((k, v)) = c.split(';').next().and_then(|kv| kv.split_once('=')) {
                self.cookies.insert(k.to_string(), v.to_string());
            }
        }
    }

    fn get(&mut self, url: &str) -> Answer {
        let url = if url.starts_with("http") {
            url.to_string()
        } else {
            format!("{}{url}", self.tool)
        };
        let mut req = self.agent.get(&url);
        if url.starts_with(&self.tool) {
            req = req.header("Cookie", &self.cookie_header());
        }
        let mut r = req.call().expect("GET");
        self.keep(&url, &r);
        let headers = r.headers().clone();
        (
            r.status().as_u16(),
            r.body_mut().read_to_string().unwrap_or_default(),
            headers,
        )
    }

    fn post_form(&mut self, url: &str, form: &[(&str, &str)]) -> Answer {
        let body: String = form
            .iter()
            .map(|(k, v)| format!("{k}={}", arena_tests::url_encode(v)))
            .collect::<Vec<_>>()
            .join("&");
        let mut r = self
            .agent
            .post(url)
            .header("Cookie", &self.cookie_header())
            .header("Content-Type", "application/x-www-form-urlencoded")
            .send(body.as_bytes())
            .expect("POST");
        self.keep(url, &r);
        let headers = r.headers().clone();
        (
            r.status().as_u16(),
            r.body_mut().read_to_string().unwrap_or_default(),
            headers,
        )
    }
}

/// The platform's form: where it posts, the id_token and the state.
struct Posted {
    action: String,
    id_token: String,
    state: String,
}

fn attribute<'a>(html: &'a str, before: &str) -> &'a str {
    html.split(before)
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or("")
}

/// A student (or teacher) clicks the assignment in the LMS: the login
/// starts at the course, goes to the platform, and the platform's form
/// comes back (not posted yet).
fn start_launch(v: &mut Visitor, lms: &Lms, user: &str) -> Posted {
    let (status, page, _) = v.get(&format!("{}/course/{user}/rl1", lms.url));
    assert_eq!(status, 200, "{page}");
    let login = page
        .split("location=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("the login URL");
    let (status, body, headers) = v.get(login);
    assert_eq!(status, 303, "the course's login: {body}");
    assert!(v.cookies.contains_key("arena_lti"), "{headers:?}");
    let cookie = headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|c| c.to_str().ok())
        .find(|c| c.starts_with("arena_lti="))
        .unwrap_or_default()
        .to_string();
    for part in ["HttpOnly", "Secure", "SameSite=None", "Partitioned", "Path=/lti"] {
        assert!(cookie.contains(part), "{cookie}");
    }
    let auth = headers
        .get("location")
        .and_then(|l| l.to_str().ok())
        .expect("to the platform");
    assert!(auth.starts_with(&format!("{}/auth?", lms.url)), "{auth}");
    let (status, form, _) = v.get(auth);
    assert_eq!(status, 200, "the platform's auth: {form}");
    Posted {
        action: attribute(&form, "action=\"").to_string(),
        id_token: attribute(&form, "name=\"id_token\" value=\"").to_string(),
        state: attribute(&form, "name=\"state\" value=\"").to_string(),
    }
}

/// Post the platform's form; then follow the page's link into the course.
fn finish_launch(v: &mut Visitor, posted: &Posted) -> Answer {
    v.post_form(
        &posted.action,
        &[("id_token", &posted.id_token), ("state", &posted.state)],
    )
}

fn enter(v: &mut Visitor, launched: &str) -> String {
    let href = attribute(launched, "id=\"lti-enter\" class=\"button\" href=\"");
    assert!(href.starts_with("/lti/enter/"), "{launched}");
    let (status, body, _) = v.get(href);
    assert_eq!(status, 200, "{body}");
    let (status, home, _) = v.get("/");
    assert_eq!(status, 200);
    home
}

fn logged_out(home: &str) -> bool {
    !home.contains("type=\"file\"") && !home.contains("gradebook")
}

/// Ann (on the CSV roster by email) launches from the LMS and lands on her
/// own page as the roster's Ann; the instructor lands on the teacher's
/// page; a student the CSV never had appears in the class; a student's
/// session from the LMS opens no teacher route; a used link works once.
fn a_launch_logs_in_the_roster_student_the_teacher_and_a_late_student(on: &On) {
    let (server, lms, _) = course_in_lms_on(on, "lti-launch", Lms::start());
    let mut ann = Visitor::new(&server);
    let posted = start_launch(&mut ann, &lms, "u-ann");
    let (status, launched, headers) = finish_launch(&mut ann, &posted);
    assert_eq!(status, 200, "{launched}");
    assert!(launched.contains("Welcome, Ann Lee"), "{launched}");
    // The launch page may show in the LMS's frame, and holds no token.
    let csp = headers
        .get("content-security-policy")
        .and_then(|c| c.to_str().ok())
        .unwrap_or("");
    assert!(!csp.contains("frame-ancestors"), "{csp}");
    assert!(!launched.contains(&posted.id_token) && !launched.contains(&posted.state));
    let href = attribute(&launched, "id=\"lti-enter\" class=\"button\" href=\"").to_string();
    let home = enter(&mut ann, &launched);
    assert!(home.contains("Ann Lee") && home.contains("type=\"file\""), "{home}");
    // Her session is a student's: the teacher's routes refuse it.
    let (status, _, _) = ann.get("/teacher/gradebook.csv");
    assert_eq!(status, 403);
    // The link into the course works once.
    let mut thief = Visitor::new(&server);
    let (status, again, _) = thief.get(&href);
    assert_eq!(status, 403, "{again}");
    assert!(again.contains("used already"), "{again}");
    assert!(logged_out(&thief.get("/").1));

    let mut teacher = Visitor::new(&server);
    let posted = start_launch(&mut teacher, &lms, "u-teach");
    let (status, launched, _) = finish_launch(&mut teacher, &posted);
    assert_eq!(status, 200, "{launched}");
    assert!(launched.contains("as the course's teacher"), "{launched}");
    enter(&mut teacher, &launched);

    let mut late = Visitor::new(&server);
    let posted = start_launch(&mut late, &lms, "u-late");
    let (_, launched, _) = finish_launch(&mut late, &posted);
    let home = enter(&mut late, &launched);
    assert!(home.contains("Cy Late"), "{home}");
    let (status, gradebook, _) = teacher.get("/teacher/gradebook.csv");
    assert_eq!(status, 200);
    let ann_rows = gradebook.lines().filter(|l| l.contains("Ann Lee")).count();
    assert_eq!(ann_rows, 1, "Ann is one student, not two: {gradebook}");
    assert!(
        gradebook.contains("Cy Late") && gradebook.contains("cy@uni.edu"),
        "{gradebook}"
    );
    // Ann's second launch is the same Ann.
    let mut ann2 = Visitor::new(&server);
    let posted = start_launch(&mut ann2, &lms, "u-ann");
    let (_, launched, _) = finish_launch(&mut ann2, &posted);
    enter(&mut ann2, &launched);
    let (_, gradebook, _) = teacher.get("/teacher/gradebook.csv");
    assert_eq!(
        gradebook.lines().filter(|l| l.contains("Ann Lee")).count(),
        1,
        "{gradebook}"
    );
    // The tool's keys are public ones only.
    let (status, jwks, _) = ann.get("/lti/jwks");
    assert_eq!(status, 200);
    let jwks: Value = serde_json::from_str(&jwks).expect("a JWKS");
    let key = &jwks["keys"][0];
    assert_eq!(key["kty"], "RSA");
    assert!(
        key["n"].is_string() && key["d"].is_null() && key["p"].is_null(),
        "{jwks}"
    );
}

/// Each check of the launch, failed from the wrong side: the launch is
/// refused with its own reason on the page and one line in the server's
/// log, and no one is logged in.
#[test]
fn every_check_of_the_launch_refuses_from_the_wrong_side() {
    let (server, lms) = course_in_lms("lti-refused");
    let refused = |v: &mut Visitor, (status, page, _): Answer, why: &str| {
        assert_eq!(status, 403, "{page}");
        let line = page
            .split("id=\"refused\">")
            .nth(1)
            .and_then(|r| r.split("</p>").next())
            .unwrap_or_else(|| panic!("no refusal line: {page}"));
        assert!(line.contains(why), "{why}: {line}");
        assert!(!page.contains("lti-enter"), "{page}");
        assert!(logged_out(&v.get("/").1));
    };
    for (mode, why) in [
        ("bad_signature", "signature does not verify"),
        ("unknown_kid", "which http://localhost"),
        ("wrong_aud", "for another tool"),
        ("expired", "has expired"),
        ("wrong_deployment", "deployment `not-registered`"),
    ] {
        let mut v = Visitor::new(&server);
        lms.tamper(mode);
        let posted = start_launch(&mut v, &lms, "u-ann");
        let answer = finish_launch(&mut v, &posted);
        refused(&mut v, answer, why);
    }
    // A replayed id_token: its state is spent, and with a new login's state its nonce is not that login's.
    let mut v = Visitor::new(&server);
    let posted = start_launch(&mut v, &lms, "u-ann");
    let (status, ok, _) = finish_launch(&mut v, &posted);
    assert_eq!(status, 200, "{ok}");
    let mut replay = Visitor::new(&server);
    replay.cookies = v.cookies.clone();
    let again = finish_launch(&mut replay, &posted);
    refused(&mut replay, again, "unknown or was used already");
    let mut replay = Visitor::new(&server);
    let fresh = start_launch(&mut replay, &lms, "u-ann");
    let again = finish_launch(
        &mut replay,
        &Posted {
            action: fresh.action,
            id_token: posted.id_token.clone(),
            state: fresh.state,
        },
    );
    refused(&mut replay, again, "nonce is not the one this login sent");
    // The state from another browser: the platform's form posted by a browser that did not start the login.
    let mut started = Visitor::new(&server);
    let posted = start_launch(&mut started, &lms, "u-ann");
    let mut other = Visitor::new(&server);
    let answer = finish_launch(&mut other, &posted);
    refused(&mut other, answer, "did not start it");
    // A platform that is not registered, and a target that is not this course.
    let mut v = Visitor::new(&server);
    let answer = v.get(&format!(
        "{}/lti/login?iss=https://evil.example&login_hint=x&target_link_uri={}/",
        server.url,
        arena_tests::url_encode(&server.url)
    ));
    refused(&mut v, answer, "is not registered for this course");
    let answer = v.get(&format!(
        "{}/lti/login?iss={}&client_id=c1&login_hint=x&target_link_uri=https://elsewhere.example/",
        server.url,
        arena_tests::url_encode(&lms.url)
    ));
    refused(&mut v, answer, "is not this course");
    // The log has one line per refusal and never a token.
    let log = server.log();
    assert!(log.matches("LTI launch refused: ").count() >= 8, "{log}");
    assert!(log.contains("LTI login refused: "), "{log}");
    assert!(!log.contains(&posted.id_token) && !log.contains(&posted.state), "{log}");
    assert!(!log.contains("PRIVATE KEY"), "{log}");
}

/// In Chromium, from an LMS page on another site: the launch in the LMS's
/// frame gets as far as the button (its cookie is `SameSite=None; Secure;
/// Partitioned`, the only kind Chromium sends to a frame of another
/// site), and the button's link opens the student's own page; a launch in
/// a window of its own goes on to the student's page by itself.
#[test]
fn a_launch_in_the_lms_frame_and_in_a_window_reaches_the_students_page_in_chromium() {
    let (server, lms) = course_in_lms("lti-chromium");
    let browser = browser_with("--proxy-bypass-list=127.0.0.1;localhost");
    let tab = crate::browser::new_tab(&browser);
    crate::browser::goto(&tab, &format!("{}/course/u-ann/rl1?frame=1", lms.url));
    // The frame is of another site: its text is out of the page's reach, so ask the frame itself.
    let frame_src = || {
        eval(
            &tab,
            "const f = document.querySelector('iframe'); try { return f.contentWindow.location.href; } catch (e) { return 'cross-site'; }",
        )
    };
    let started = std::time::Instant::now();
    while frame_src() != Value::String("cross-site".into()) {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "the LMS's frame never opened the course"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // The frame's launch page is answered only to the browser that
    // started the login, by its cookie: the server's log says which it was.
    let started = std::time::Instant::now();
    while !server.log().contains("LTI launch") {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(120),
            "the frame never reached the launch; log: {}",
            server.log()
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let log = server.log();
    assert!(
        log.contains("LTI launch: person"),
        "the launch in the frame was refused: {log}"
    );
    assert!(!log.contains("LTI launch refused"), "{log}");
    // The window of its own: the launch goes on into the course by itself.
    let tab = launched_in_a_window(
        &browser,
        &lms,
        "u-ann",
        "location.pathname === '/' && document.readyState === 'complete' && !!document.querySelector('input[type=file]')",
    );
    let shown = eval(&tab, "return document.body.innerText");
    assert!(shown.as_str().unwrap_or("").contains("Ann Lee"), "{shown}");
    // Kept to be looked at (target/screenshots/lti/), as the walkthrough's are.
    let shots = shots_in("lti");
    full_page(&tab, &shots, "01-student-after-launch");
    // A launch that fails says why in one line, on the page.
    lms.tamper("expired");
    let tab = launched_in_a_window(&browser, &lms, "u-ann", "!!document.getElementById('refused')");
    let line = eval(&tab, "return document.getElementById('refused').innerText");
    assert!(line.as_str().unwrap_or("").contains("has expired"), "{line}");
    full_page(&tab, &shots, "02-refused-launch");
    // The teacher's launch: the class table with the LMS's gradebook column.
    let tab = launched_in_a_window(
        &browser,
        &lms,
        "u-teach",
        "location.pathname === '/' && document.readyState === 'complete' && document.body.innerText.includes('LMS')",
    );
    full_page(&tab, &shots, "03-teacher-after-launch");
}

/// A tab where `user` opened the course from the LMS in a window of its
/// own, once the course's page there is as `done` (JavaScript) says.
fn launched_in_a_window(
    browser: &headless_chrome::Browser,
    lms: &Lms,
    user: &str,
    done: &str,
) -> std::sync::Arc<headless_chrome::Tab> {
    let tab = crate::browser::new_tab(browser);
    crate::browser::goto(&tab, &format!("{}/course/{user}/rl1", lms.url));
    wait_long(
        &tab,
        &format!("return location.host.startsWith('127.0.0.1') && {done}"),
        120,
    );
    tab
}

/// Points as a page writes them: `20`, `7.5`.
fn shown(p: f64) -> String {
    if p.fract() == 0.0 {
        format!("{p:.0}")
    } else {
        format!("{p}")
    }
}

/// The row of `id` in the gradebook CSV: its points and maximum.
fn gradebook_points(gradebook: &str, id: &str) -> (f64, f64) {
    let mut lines = gradebook.lines();
    let head: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).expect("a gradebook column");
    let row: Vec<&str> = lines
        .find(|l| l.starts_with(&format!("{id},")))
        .unwrap_or_else(|| panic!("{id} in {gradebook}"))
        .split(',')
        .collect();
    (
        row[col("points")].parse().unwrap_or(f64::NAN),
        row[col("max_points")].parse().unwrap_or(f64::NAN),
    )
}

/// Grades go back to the LMS (Assignment and Grade Services): once Ann
/// launched from the LMS, her graded version's points reach the LMS's
/// gradebook, in a column the tool made, with the time it changed and a
/// link to the version; her next version's points follow with a later
/// timestamp; the teacher's table says the LMS has the current score.
fn grades_reach_the_lms_gradebook_and_follow_each_change(on: &On) {
    let (server, lms, students) = course_in_lms_on(on, "lti-grades", Lms::start());
    let mut ann = Visitor::new(&server);
    let posted = start_launch(&mut ann, &lms, "u-ann");
    let (status, launched, _) = finish_launch(&mut ann, &posted);
    assert_eq!(status, 200, "{launched}");
    let mut teacher = Visitor::new(&server);
    let posted = start_launch(&mut teacher, &lms, "u-teach");
    let (_, launched, _) = finish_launch(&mut teacher, &posted);
    enter(&mut teacher, &launched);

    let scores_of_ann = |want: usize| {
        let started = std::time::Instant::now();
        loop {
            let state = lms.state();
            let scores: Vec<Value> = state["scores"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .filter(|s| s["userId"] == "u-ann")
                .collect();
            if scores.len() >= want {
                return (scores, state);
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(300),
                "the LMS got {} of Ann's scores, not {want}: {state:#}\nlog: {}",
                scores.len(),
                server.log()
            );
            std::thread::sleep(std::time::Duration::from_millis(500));
        }
    };
    let (code, v, err) =
        crate::server::submit(&server, &students[0]["token"], &arena_tests::bot("en-garde/aggressive"));
    assert_eq!(code, 0, "{v:#} {err}");
    let (_, gradebook, _) = teacher.get("/teacher/gradebook.csv");
    let (points, max) = gradebook_points(&gradebook, "s1");
    let (scores, state) = scores_of_ann(1);
    let first = &scores[0];
    assert_eq!(first["scoreGiven"].as_f64(), Some(points), "{first:#}");
    assert_eq!(first["scoreMaximum"].as_f64(), Some(max), "{first:#}");
    assert_eq!(first["activityProgress"], "Completed");
    assert_eq!(first["gradingProgress"], "FullyGraded");
    let comment = first["comment"].as_str().unwrap_or("");
    assert!(
        comment.contains("Version 1 counts") && comment.contains(&format!("{}/people/", server.url)),
        "{comment}"
    );
    // The column the tool made in the LMS's gradebook, named for the course.
    let items = state["lineitems"].as_object().cloned().unwrap_or_default();
    assert_eq!(items.len(), 1, "{state:#}");
    let item = items.values().next().unwrap();
    assert_eq!(item["tag"], "arena");
    assert_eq!(item["resourceLinkId"], "rl1");
    assert_eq!(item["scoreMaximum"].as_f64(), Some(max));
    // Her next version counts: its points follow, later.
    let (code, v, err) = crate::server::submit(&server, &students[0]["token"], &arena_tests::bot("en-garde/random"));
    assert_eq!(code, 0, "{v:#} {err}");
    let (_, gradebook, _) = teacher.get("/teacher/gradebook.csv");
    let (points2, _) = gradebook_points(&gradebook, "s1");
    let (scores, state) = scores_of_ann(2);
    let last = scores.last().unwrap();
    assert_eq!(last["scoreGiven"].as_f64(), Some(points2), "{scores:#?}");
    assert!(
        last["comment"].as_str().unwrap_or("").contains("Version 2 counts"),
        "{last:#}"
    );
    let stamps: Vec<&str> = scores.iter().map(|s| s["timestamp"].as_str().unwrap_or("")).collect();
    assert!(stamps.windows(2).all(|w| w[0] < w[1]), "timestamps grow: {stamps:?}");
    assert!(
        state["log"].as_array().is_none_or(|l| l.is_empty()),
        "the LMS's errors: {state:#}"
    );
    // The teacher's table: the LMS has Ann's current score.
    let started = std::time::Instant::now();
    loop {
        let (_, home, _) = teacher.get("/");
        let want = format!("has {} / {}", shown(points2), shown(max));
        if home.contains("LMS gradebook") && home.contains(&want) {
            break;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "{want}: {home}");
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    assert!(!server.log().contains("Bearer "), "{}", server.log());
}

/// What the LMS received of `user`'s scores, in order.
fn scores_of(lms: &Lms, user: &str) -> Vec<Value> {
    lms.state()["scores"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|s| s["userId"] == user)
        .collect()
}

/// Wait (a generous hang guard, the machine is shared) until `done` gives something.
fn until<T>(what: &str, mut done: impl FnMut() -> Option<T>, log: impl Fn() -> String) -> T {
    let started = Instant::now();
    loop {
        if let Some(t) = done() {
            return t;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "{what}\n{}", log());
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Wait until Ann's row of the teacher's class table says `want`.
fn table_says(teacher: &mut Visitor, want: &str, server: &Server) {
    let started = Instant::now();
    loop {
        let row = row_of_ann(teacher);
        if row.contains(want) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the teacher's table never said `{want}`: {row}\n{}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Ann's row of the teacher's class table.
fn row_of_ann(teacher: &mut Visitor) -> String {
    let (_, home, _) = teacher.get("/");
    home.split("<tr>")
        .find(|r| r.contains("Ann Lee"))
        .unwrap_or_default()
        .to_string()
}

/// Passback is a durable job (issue 50 item 3). While the LMS is down,
/// Ann's grade changes twice and the course server is killed and started
/// again; the teacher's table says meanwhile that the LMS does not have
/// her score and why. When the same LMS is back and Ann opens the
/// assignment from it, her newest score reaches it, once, and the older
/// one never. Then the LMS holds a newer result of its own (a grade typed
/// into its gradebook): it answers the next score 409, which ends that
/// score (tried once, never again) and the teacher's table says the LMS
/// keeps its own; once the LMS's result is gone, the next grade goes.
fn grades_wait_for_an_lms_that_is_down_across_a_restart_and_a_409_ends_one(on: &On) {
    let name = match on {
        On::Sqlite => "lti-durable",
        On::Postgres(_) => "lti-durable-pg",
    };
    let kept = arena_tests::temp(&format!("{name}-lms")).join("lms.json");
    let (server, mut lms, students) = course_in_lms_on(on, name, Lms::durable(kept));
    let port: u16 = server
        .url
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("the server's port");
    let dir = server.dir().to_path_buf();
    let launch = |server: &Server, lms: &Lms, user: &str| {
        let mut v = Visitor::new(server);
        let posted = start_launch(&mut v, lms, user);
        let (status, launched, _) = finish_launch(&mut v, &posted);
        assert_eq!(status, 200, "{launched}");
        (v, launched)
    };
    launch(&server, &lms, "u-ann");
    let (mut teacher, launched) = launch(&server, &lms, "u-teach");
    enter(&mut teacher, &launched);
    let submit = |server: &Server, bot: &str| {
        let (code, v, err) = crate::server::submit(server, &students[0]["token"], &arena_tests::bot(bot));
        assert_eq!(code, 0, "{v:#} {err}");
    };
    let points_of_ann = |teacher: &mut Visitor| gradebook_points(&teacher.get("/teacher/gradebook.csv").1, "s1");
    let counted = |scores: &[Value], version: i64| {
        scores
            .iter()
            .filter(|s| {
                s["comment"]
                    .as_str()
                    .unwrap_or("")
                    .contains(&format!("Version {version} counts"))
            })
            .count()
    };
    submit(&server, "en-garde/aggressive");
    until(
        "the LMS never got Ann's first score",
        || (scores_of(&lms, "u-ann").len() == 1).then_some(()),
        || server.log(),
    );

    // The LMS goes down; Ann's grade changes twice.
    lms.stop();
    submit(&server, "en-garde/random");
    submit(&server, "en-garde/cowardly");
    let (points3, max) = points_of_ann(&mut teacher);
    let waiting = format!("{} / {} not sent yet (", shown(points3), shown(max));
    table_says(&mut teacher, &waiting, &server);
    // The course server is killed while the score waits, and served again.
    drop(server);
    let server = serve_again(on, &dir, port);
    table_says(&mut teacher, &waiting, &server);
    // The same LMS is back; Ann opens the assignment from it.
    lms.resume();
    launch(&server, &lms, "u-ann");
    let has = format!("has {} / {}", shown(points3), shown(max));
    table_says(&mut teacher, &has, &server);
    let scores = scores_of(&lms, "u-ann");
    assert_eq!(scores.len(), 2, "the first score and the newest, once: {scores:#?}");
    assert_eq!(counted(&scores, 2), 0, "{scores:#?}");
    assert_eq!(counted(&scores, 3), 1, "{scores:#?}");
    assert_eq!(scores[1]["scoreGiven"].as_f64(), Some(points3), "{scores:#?}");
    assert!(
        scores[0]["timestamp"].as_str() < scores[1]["timestamp"].as_str(),
        "{scores:#?}"
    );

    // The LMS holds a result newer than any the tool will send: a 409.
    lms.control(
        "/_test/result",
        json!({"user": "u-ann", "timestamp": "2999-01-01T00:00:00.000Z"}),
    );
    submit(&server, "en-garde/random");
    let (points4, _) = points_of_ann(&mut teacher);
    let kept_own = format!(
        "keeps a newer score of its own, not {} / {} (409)",
        shown(points4),
        shown(max)
    );
    table_says(&mut teacher, &kept_own, &server);
    // The LMS's own result goes (the teacher cleared it there); the next grade goes through.
    lms.control("/_test/result", json!({"user": "u-ann", "timestamp": null}));
    submit(&server, "en-garde/aggressive");
    let (points5, _) = points_of_ann(&mut teacher);
    let has = format!("has {} / {}", shown(points5), shown(max));
    table_says(&mut teacher, &has, &server);
    let scores = scores_of(&lms, "u-ann");
    assert_eq!(counted(&scores, 4), 1, "a 409 is tried once: {scores:#?}");
    assert_eq!(counted(&scores, 5), 1, "{scores:#?}");
    let stamps: Vec<&str> = scores.iter().map(|s| s["timestamp"].as_str().unwrap_or("")).collect();
    assert!(stamps.windows(2).all(|w| w[0] < w[1]), "timestamps grow: {stamps:?}");
}

/// The roster comes from the LMS (Names and Role Provisioning Services): a
/// teacher's launch reads it, so learners who never launched are in the
/// class (one on the CSV roster matched by email, not twice), and the
/// teacher's "Sync the roster from the LMS" marks who left the LMS course
/// or is inactive there; a student may not sync.
fn the_roster_comes_from_the_lms_with_late_joiners_and_leavers(on: &On) {
    let (server, lms, _) = course_in_lms_on(on, "lti-roster", Lms::start());
    let learner = |id: &str, name: &str, email: &str, status: &str| json!({"user_id": id, "name": name, "email": email, "roles": [LEARNER], "status": status});
    let teacher_member = json!({"user_id": "u-teach", "name": "Prof Ada", "email": "ada@uni.edu", "roles": [INSTRUCTOR], "status": "Active"});
    lms.control(
        "/_test/roster",
        json!([
            learner("u-ann", "Ann Lee", "ann@uni.edu", "Active"),
            learner("u-bo", "Bo Wu", "bo@uni.edu", "Active"),
            learner("u-cy", "Cy Late", "cy@uni.edu", "Active"),
            learner("u-di", "Di New", "di@uni.edu", "Active"),
            teacher_member.clone(),
        ]),
    );
    let mut teacher = Visitor::new(&server);
    let posted = start_launch(&mut teacher, &lms, "u-teach");
    let (_, launched, _) = finish_launch(&mut teacher, &posted);
    enter(&mut teacher, &launched);
    let started = std::time::Instant::now();
    let home = loop {
        let (_, home, _) = teacher.get("/");
        if home.contains("Di New") && home.contains("Cy Late") {
            break home;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "the LMS's roster never came: {home}\nlog: {}\nthe LMS's: {}",
            server.log(),
            lms.state()["log"]
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
    };
    assert!(home.contains("id=\"sync-roster\""), "{home}");
    let (_, gradebook, _) = teacher.get("/teacher/gradebook.csv");
    assert_eq!(
        gradebook.lines().filter(|l| l.contains("Bo Wu")).count(),
        1,
        "{gradebook}"
    );
    assert!(
        gradebook.lines().any(|l| l.starts_with("s2,Bo Wu")),
        "Bo is the CSV's s2: {gradebook}"
    );
    assert_eq!(gradebook.lines().count(), 1 + 4, "Ann, Bo, Cy, Di: {gradebook}");

    // Cy leaves the LMS course and Ann is made inactive; the teacher syncs.
    lms.control(
        "/_test/roster",
        json!([
            learner("u-ann", "Ann Lee", "ann@uni.edu", "Inactive"),
            learner("u-bo", "Bo Wu", "bo@uni.edu", "Active"),
            learner("u-di", "Di New", "di@uni.edu", "Active"),
            teacher_member,
        ]),
    );
    let csrf = attribute(&home, "name=\"authenticity_token\" value=\"").to_string();
    let (status, body, _) = teacher.post_form(
        &format!("{}/teacher/lti/sync", server.url),
        &[("authenticity_token", &csrf)],
    );
    assert_eq!(status, 303, "{body}");
    let (_, home, _) = teacher.get("/");
    assert!(
        home.contains(&format!(
            "The roster of {}: 3 learners, 0 new in the course, 2 left or inactive in the LMS.",
            lms.url
        )),
        "{home}"
    );
    let row = |name: &str| {
        home.split("<tr>")
            .find(|r| r.contains(name))
            .unwrap_or_else(|| panic!("{name}: {home}"))
            .to_string()
    };
    assert!(row("Cy Late").contains("left the LMS course"), "{}", row("Cy Late"));
    assert!(row("Ann Lee").contains("inactive in the LMS"), "{}", row("Ann Lee"));
    assert!(
        !row("Di New").contains("left") && !row("Bo Wu").contains("inactive"),
        "{home}"
    );
    // A student may not sync the roster.
    let mut di = Visitor::new(&server);
    let posted = start_launch(&mut di, &lms, "u-di");
    let (_, launched, _) = finish_launch(&mut di, &posted);
    let di_home = enter(&mut di, &launched);
    assert!(di_home.contains("Di New"), "{di_home}");
    let csrf = attribute(&di_home, "name=\"authenticity_token\" value=\"").to_string();
    let (status, _, _) = di.post_form(
        &format!("{}/teacher/lti/sync", server.url),
        &[("authenticity_token", &csrf)],
    );
    assert_eq!(status, 403);
}

/// LTI Dynamic Registration: the teacher pastes one URL into the LMS and
/// the course registers itself (client id and deployment from the LMS's
/// answer), after which a launch works; the URL works once, and a
/// configuration whose issuer is not on its own host is refused.
#[test]
fn the_lms_registers_the_course_from_one_url() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let (dir, _) = course_of(
        "lti-register",
        "name,email,id\nAnn Lee,ann@uni.edu,s1\n",
        &["--url", &url],
    );
    let registration_url = |dir: &std::path::Path| {
        let out = arena(&["course", "lti", &dir.display().to_string(), "--registration-url"]);
        let said = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{said}");
        said.lines()
            .find_map(|l| {
                l.split(": ")
                    .last()
                    .filter(|u| u.starts_with(&format!("{url}/lti/register?k=")))
            })
            .unwrap_or_else(|| panic!("no registration URL: {said}"))
            .to_string()
    };
    let first = registration_url(&dir);
    let second = registration_url(&dir);
    let lms = Lms::start();
    let server = serve_with(&dir, &["--listen", &format!("127.0.0.1:{port}")]);
    let mut r = lms
        .agent
        .get(&format!("{}/_test/register-url", lms.url))
        .call()
        .expect("register-url");
    let offered: Value = r.body_mut().read_json().expect("json");
    let opened = |base: &str, config: &str| {
        format!(
            "{base}&openid_configuration={}&registration_token={}",
            arena_tests::url_encode(config),
            offered["registration_token"].as_str().unwrap_or("")
        )
    };
    let config = offered["openid_configuration"].as_str().unwrap_or("").to_string();
    let mut teacher = Visitor::new(&server);
    let (status, page, headers) = teacher.get(&opened(&first, &config));
    assert_eq!(status, 200, "{page}\n{}", server.log());
    assert!(page.contains(&format!("registered with {}", lms.url)), "{page}");
    assert!(page.contains("id=\"lti-registered\""), "{page}");
    let csp = headers
        .get("content-security-policy")
        .and_then(|c| c.to_str().ok())
        .unwrap_or("");
    assert!(!csp.contains("frame-ancestors"), "the LMS shows it in a frame: {csp}");
    // Once only.
    let (status, page, _) = teacher.get(&opened(&first, &config));
    assert_eq!(status, 403, "{page}");
    assert!(page.contains("not (or no longer) the course"), "{page}");
    // A configuration speaking for another host than its own.
    let elsewhere = config.replace("localhost", "127.0.0.1");
    let (status, page, _) = teacher.get(&opened(&second, &elsewhere));
    assert_eq!(status, 403, "{page}");
    assert!(page.contains("not on its own host"), "{page}");
    // The LMS has the course as a tool now, and a launch logs Ann in.
    let tool = lms.state()["tool"].clone();
    assert!(tool["client_id"].as_str().is_some_and(|c| !c.is_empty()), "{tool:#}");
    assert_eq!(tool["jwks_url"], format!("{url}/lti/jwks"));
    let out = arena(&["course", "lti", &dir.display().to_string()]);
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        said.contains(&format!(
            "{} client id {}, deployments d1",
            lms.url,
            tool["client_id"].as_str().unwrap_or("")
        )),
        "{said}"
    );
    lms.control(
        "/_test/roster",
        json!([{"user_id": "u-ann", "name": "Ann Lee", "email": "ann@uni.edu", "roles": [LEARNER], "status": "Active"}]),
    );
    let mut ann = Visitor::new(&server);
    let posted = start_launch(&mut ann, &lms, "u-ann");
    let (status, launched, _) = finish_launch(&mut ann, &posted);
    assert_eq!(status, 200, "{launched}");
    let home = enter(&mut ann, &launched);
    assert!(home.contains("Ann Lee") && home.contains("type=\"file\""), "{home}");
}

on_both!(
    a_launch_logs_in_the_roster_student_the_teacher_and_a_late_student,
    grades_reach_the_lms_gradebook_and_follow_each_change,
    the_roster_comes_from_the_lms_with_late_joiners_and_leavers,
    grades_wait_for_an_lms_that_is_down_across_a_restart_and_a_409_ends_one,
);
