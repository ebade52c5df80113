//! The course server from an attacker's side (issue 48): a caller is known
//! before any body is read, a worker gets only the files its work needs,
//! what the server keeps on disk is private to its user, and hidden names
//! stay hidden from the first page after a restart. Each test failed on
//! the server before these were built.

use crate::server::{On, Server, logged_in, serve_with, submit};
use arena_tests::bot;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

/// The status line a server answers a request of only headers with: it
/// announces a 60 MB body and sends none of it. A server that read the
/// body before looking at the caller would wait for it (no answer in 20 s).
fn answer_without_body(server: &Server, path: &str, token: &str) -> String {
    let addr = server.url.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: 60000000\r\n\r\n"
    )
    .unwrap();
    let mut got = [0u8; 64];
    let n = s.read(&mut got).unwrap_or(0);
    String::from_utf8_lossy(&got[..n])
        .lines()
        .next()
        .unwrap_or("no answer within 20 s")
        .to_string()
}

/// Both APIs refuse a wrong token at once, before the body it announces.
fn the_apis_refuse_a_caller_before_reading_its_body(on: &On) {
    let (dir, _) = on.course("attack-body", &[]);
    let server = on.serve(&dir);
    for path in ["/api/submissions", "/api/worker/results", "/api/worker/jobs/result"] {
        assert_eq!(
            answer_without_body(&server, path, "not-a-token"),
            "HTTP/1.1 401 Unauthorized",
            "{path}"
        );
    }
}

/// Hostile bodies cost the server nothing: eight callers at once each
/// send 60 MB to every API route (a result batch, a grading verdict, an
/// upload) with a wrong token, and the server's peak memory grows by less
/// than 64 MiB (a server that read them first took 8 x 60 MB = 480 MB,
/// 770 MB in the run of issue 48).
fn hostile_bodies_leave_the_servers_memory_as_it_was(on: &On) {
    let (dir, _) = on.course("attack-bodies", &[]);
    let server = on.serve(&dir);
    let before = server.peak_mib();
    assert!(before > 0, "the server's memory is read from /proc");
    let addr = server.url.trim_start_matches("http://").to_string();
    let chunk = vec![b'['; 1 << 20];
    for path in ["/api/worker/results", "/api/worker/jobs/result", "/api/submissions"] {
        let senders: Vec<_> = (0..8)
            .map(|_| {
                let (addr, chunk) = (addr.clone(), chunk.clone());
                std::thread::spawn(move || {
                    let Ok(mut s) = TcpStream::connect(&addr) else { return };
                    let _ = s.set_write_timeout(Some(Duration::from_secs(20)));
                    let _ = write!(
                        s,
                        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer forged\r\n\
                         Content-Type: application/json\r\nContent-Length: 60000000\r\n\r\n"
                    );
                    // The server answers and closes: the writes then fail.
                    for _ in 0..60 {
                        if s.write_all(&chunk).is_err() {
                            break;
                        }
                    }
                })
            })
            .collect();
        for t in senders {
            let _ = t.join();
        }
    }
    let grew = server.peak_mib().saturating_sub(before);
    assert!(
        grew < 64,
        "the server's peak memory grew by {grew} MiB under 24 hostile bodies of 60 MB"
    );
}

/// A worker may fetch an accepted version (the ladder plays it) but not a
/// rejected file: a file that is no bot is never handed out.
fn a_worker_fetches_accepted_files_only(on: &On) {
    let (dir, students) = on.course("attack-fetch", &[]);
    let server = on.serve(&dir);
    let junk = dir.with_file_name("junk.wasm");
    std::fs::write(&junk, b"\0asm this is no bot at all").unwrap();
    let (code, rejected, err) = submit(&server, &students[0]["token"], &junk);
    assert_eq!(code, 1, "rejected: {err}");
    let (code, accepted, err) = submit(&server, &students[1]["token"], &bot("en-garde/random"));
    assert_eq!(code, 0, "{err}");
    let token = crate::ladder::worker_token(on, &dir, "lab-pc");
    let get = |sha: &str| -> u16 {
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        agent
            .get(&format!("{}/api/worker/bots/{sha}", server.url))
            .header("Authorization", &format!("Bearer {token}"))
            .call()
            .expect("GET")
            .status()
            .as_u16()
    };
    assert_eq!(get(accepted["sha256"].as_str().unwrap()), 200, "an accepted version");
    assert_eq!(get(rejected["sha256"].as_str().unwrap()), 404, "a rejected file");
    // A worker that goes away mid-download (its connection closed with the
    // file unread, so reset) must not end the server. A write to a reset
    // connection raises SIGPIPE, which ends a process that has not ignored
    // it: the GET above once found the server gone, 4 runs in 13 under load.
    // The mask decides on any machine; the downloads given up below end the
    // server only when it is still writing (a loaded machine: the file, 49
    // KB, fits in the socket's buffers otherwise).
    assert!(
        ignores_sigpipe(server.pid()),
        "arena serve must ignore SIGPIPE (SigIgn in /proc/{}/status)",
        server.pid()
    );
    let addr = server.url.trim_start_matches("http://").to_string();
    let sha = accepted["sha256"].as_str().unwrap();
    for _ in 0..20 {
        let mut s = TcpStream::connect(&addr).expect("connect");
        write!(
            s,
            "GET /api/worker/bots/{sha} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\r\n"
        )
        .expect("send the request");
        let mut first = [0u8; 12];
        s.read_exact(&mut first).expect("the status line");
        assert_eq!(&first, b"HTTP/1.1 200", "a download of an accepted version");
    }
    assert_eq!(get(sha), 200, "the server serves on after 20 downloads given up");
}

/// Whether the process `pid` ignores SIGPIPE (bit 13 of `SigIgn` in its status).
fn ignores_sigpipe(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("SigIgn:"))
                .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
        })
        .is_some_and(|mask| mask & (1 << (13 - 1)) != 0)
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

/// The course folder, its bots and its database (sessions, tokens) are
/// the server's user's alone: folders 0700, files 0600.
fn what_the_server_keeps_is_private_to_its_user(on: &On) {
    let (dir, students) = on.course("attack-modes", &[]);
    assert_eq!(mode(&dir), 0o700, "the course folder, from init");
    let server = on.serve(&dir);
    let (code, v, err) = submit(&server, &students[0]["token"], &bot("en-garde/random"));
    assert_eq!(code, 0, "{err}");
    // A student logged in: a live session is in the database now.
    let _student = logged_in(&server, &students[0]["link"]);
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join("files")), 0o700);
    let sha = v["sha256"].as_str().unwrap();
    let file = walk(&dir.join("files"))
        .into_iter()
        .find(|p| p.to_string_lossy().contains(sha))
        .expect("the uploaded file");
    assert_eq!(mode(&file), 0o600, "{}", file.display());
    if matches!(on, On::Sqlite) {
        for db in ["course.db", "course.db-wal"] {
            assert_eq!(mode(&dir.join(db)), 0o600, "{db}");
        }
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Hidden names stay hidden across a restart, from the first answer (not
/// only after the first rating fit), and a pseudonym does not carry the
/// student's id.
fn hidden_names_stay_hidden_from_the_first_page_after_a_restart(on: &On) {
    let (dir, students) = on.course("attack-names", &[]);
    let server = on.serve(&dir);
    for (i, b) in [(0, "en-garde/random"), (1, "en-garde/aggressive")] {
        let (code, _, err) = submit(&server, &students[i]["token"], &bot(b));
        assert_eq!(code, 0, "{err}");
    }
    let mut teacher = logged_in(
        &server,
        std::fs::read_to_string(dir.join("teacher-link.txt")).unwrap().trim(),
    );
    let (_, ladder, _) = teacher.get("/ladder");
    let form = crate::server::csrf(&ladder);
    let (status, _) = teacher.post_form(
        "/teacher/ladder",
        &[("authenticity_token", &form), ("switch", "pseudonyms"), ("on", "on")],
    );
    assert_eq!(status, 303);
    // Ann's ladder page, as the teacher's board links it (an opaque handle,
    // the same after a restart).
    let started = std::time::Instant::now();
    let ann_page = loop {
        let (_, json, _) = teacher.get("/api/leaderboard");
        let board: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        let page = board["rows"].as_array().and_then(|rows| {
            rows.iter()
                .find(|r| r["real_name"] == "Ann Lee")
                .and_then(|r| r["page"].as_str().map(String::from))
        });
        if let Some(page) = page {
            break page;
        }
        assert!(
            started.elapsed().as_secs() < 300,
            "Ann never reached the board: {board}"
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
    };
    drop(server);
    let mut extra = vec!["--workers", "0"];
    extra.extend(on.database());
    let server = serve_with(&dir, &extra);
    let mut student = logged_in(&server, &students[1]["link"]);
    let (status, page, _) = student.get(&ann_page);
    assert_eq!(status, 200, "{page}");
    assert!(
        !ann_page.ends_with("/2"),
        "the page's address carries no id: {ann_page}"
    );
    let (status, page, _) = student.get("/ladder/people/2");
    assert_eq!(status, 404, "a classmate's page by database id: {page}");
    assert!(
        !page.contains("Ann Lee"),
        "a classmate's name, at once after a restart: {page}"
    );
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let board: serde_json::Value = agent
        .get(&format!("{}/api/leaderboard", server.url))
        .header("Authorization", &format!("Bearer {}", students[1]["token"]))
        .call()
        .expect("GET")
        .body_mut()
        .read_json()
        .expect("JSON");
    assert_eq!(board["pseudonyms"], true, "{board}");
}

/// A form is taken only with its own session's token: Ann's session with
/// Bo's form token and every other cookie of Bo's is refused (a signed
/// double-submit cookie took that pair), her own token is taken, and the
/// token changes at each login.
fn a_form_token_is_bound_to_its_session(on: &On) {
    let (dir, students) = on.course("attack-csrf", &[]);
    let server = on.serve(&dir);
    let (code, _, err) = submit(&server, &students[0]["token"], &bot("en-garde/random"));
    assert_eq!(code, 0, "{err}");
    let mut ann = logged_in(&server, &students[0]["link"]);
    let mut bo = logged_in(&server, &students[1]["link"]);
    let (_, bo_home, _) = bo.get("/");
    let bos = crate::server::csrf(&bo_home);
    ann.cookies_from(&bo, "arena_session");
    let (status, page) = ann.post_form("/count", &[("authenticity_token", &bos), ("version", "1")]);
    assert_eq!(status, 403, "another session's token and cookies: {page}");
    assert!(page.contains("stale or forged"), "{page}");
    let (_, ann_home, _) = ann.get("/");
    let anns = crate::server::csrf(&ann_home);
    assert_ne!(anns, bos, "each session its own token");
    let (status, page) = ann.post_form("/count", &[("authenticity_token", &anns), ("version", "1")]);
    assert_eq!(status, 303, "her own token: {page}");
    let mut again = logged_in(&server, &students[0]["link"]);
    let (_, home, _) = again.get("/");
    assert_ne!(crate::server::csrf(&home), anns, "a new token at each login");
    let (status, _) = again.post_form("/count", &[("authenticity_token", &anns), ("version", "1")]);
    assert_eq!(status, 403, "the token of another login of hers");
}

/// A login leaves the new session cookie in place when a request the old
/// page sent (a poll, an event stream) comes back after it: that request's
/// session is gone, and its answer once cleared the cookie the login had
/// just set, so the student landed logged out (the class walkthrough's tab
/// did, in CI). A logout still clears it.
fn a_request_from_before_a_login_leaves_the_new_cookie(on: &On) {
    let (dir, students) = on.course("attack-stale-cookie", &[]);
    let server = on.serve(&dir);
    let mut ann = logged_in(&server, &students[0]["link"]);
    let mut before = crate::server::Browser::new(&server);
    before.cookies_from(&ann, "");
    let path = students[0]["link"]
        .split("/login/")
        .nth(1)
        .expect("a login link")
        .to_string();
    let (status, _, _) = ann.get(&format!("/login/{path}"));
    assert_eq!(status, 200);
    assert_ne!(ann.cookie_header(), before.cookie_header(), "a new session id at login");
    let clears = |headers: &ureq::http::HeaderMap| {
        headers
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find(|c| c.starts_with("arena_session="))
            .map(str::to_string)
    };
    for path in ["/", "/fragment/versions", "/events"] {
        let (_, headers) = before.get_head(path);
        assert_eq!(
            clears(&headers),
            None,
            "{path} with the session the login replaced must not touch the cookie"
        );
    }
    let (status, page, _) = ann.get("/");
    assert!(status == 200 && page.contains("Ann Lee"), "{status} {page}");
    let token = crate::server::csrf(&page);
    let (status, _, headers) = ann.post_form_with_headers("/logout", &[("authenticity_token", &token)]);
    assert_eq!(status, 303);
    let cleared = clears(&headers).unwrap_or_default();
    assert!(
        cleared.starts_with("arena_session=;") || cleared.to_ascii_lowercase().contains("max-age=0"),
        "a logout clears the cookie: {cleared}"
    );
    let (_, page, _) = ann.get("/");
    assert!(page.contains("Log in with the link"), "{page}");
}

/// A GET of `path` on a fresh connection: its status, or `None` when no
/// answer came within 5 s.
fn status_of(server: &Server, path: &str, cookie: &str) -> Option<u16> {
    let addr = server.url.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut got = [0u8; 12];
    s.read_exact(&mut got).ok()?;
    String::from_utf8_lossy(&got[9..12]).parse().ok()
}

/// A flood of connections leaves a page: in a server that may open 1,024
/// files (the common limit), one student's cookie opens 2,000 event
/// streams and anyone 2,000 half-sent requests. Streams past a person's
/// few are refused at once with 429, connections past the cap are told
/// 503 or closed, and the half-sent requests are closed after the header
/// timeout (10 s), so a page loads again well within a minute. A server
/// without these bounds answered no one for as long as the flood stayed.
fn a_flood_of_connections_still_leaves_a_page(on: &On) {
    let (dir, students) = on.course("attack-flood", &[]);
    let server = crate::server::serve_with_files(&dir, &on.database(), 1024);
    let mut ann = logged_in(&server, &students[0]["link"]);
    let (status, _, _) = ann.get("/");
    assert_eq!(status, 200);
    let cookie = ann.cookie_header();
    let addr = server.url.trim_start_matches("http://").to_string();
    // The test's own descriptors: 4,000 sockets and a margin.
    let limit = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|l| {
            l.lines()
                .find(|l| l.starts_with("Max open files"))
                .and_then(|l| l.split_whitespace().nth(3).and_then(|n| n.parse::<usize>().ok()))
        })
        .unwrap_or(1024);
    let each = 2000.min(limit.saturating_sub(300) / 2);
    assert!(
        each > 1100,
        "the test may open only {limit} files: too few to flood a 1,024-file server"
    );
    let mut held = Vec::new();
    let mut refused_streams = 0;
    for i in 0..each {
        let Ok(mut s) = TcpStream::connect(&addr) else { continue };
        let _ = write!(s, "GET /events HTTP/1.1\r\nHost: {addr}\r\nCookie: {cookie}\r\n\r\n");
        // A few of them are read: past the first streams, a 429 comes at once.
        if i % 100 == 50 && i < 600 {
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut got = [0u8; 12];
            if s.read_exact(&mut got).is_ok() && &got[9..12] == b"429" {
                refused_streams += 1;
            }
        }
        held.push(s);
    }
    // A refused stream's connection is closed once answered (the rerun of
    // issue 48's attacks found them kept alive 10 s, the server full
    // meanwhile): a page loads well within the 10 s keep-alive (5 s: a
    // loaded machine's debug server may take seconds to accept them all).
    let start = std::time::Instant::now();
    while status_of(&server, "/", &cookie) != Some(200) {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "no page within 5 s of {each} event streams of one cookie"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    for _ in 0..each {
        let Ok(mut s) = TcpStream::connect(&addr) else { continue };
        let _ = write!(s, "GET / HTTP/1.1\r\nHost: {addr}\r\nX-Slow: ");
        held.push(s);
    }
    assert!(
        refused_streams >= 5,
        "streams past a person's few are refused at once ({refused_streams} of 6 read)"
    );
    // Hang guard: the header timeout is 10 s; a busy machine gets a minute more.
    let start = std::time::Instant::now();
    let mut page = None;
    while start.elapsed() < Duration::from_secs(70) {
        page = status_of(&server, "/", &cookie);
        if page == Some(200) {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    assert_eq!(
        page,
        Some(200),
        "no page within 70 s of a flood of {} connections",
        held.len()
    );
    drop(held);
}

/// Half-sent requests opened again as fast as they are closed (the
/// rerun of issue 48's attacks: 1,100 of them kept up from one address
/// left 11 of 29 page loads answered in 30 s, since each held its room for
/// the whole header timeout). In a server that may open 1,024 files, a
/// full server now closes the connection that has waited longest without
/// sending a whole request and hands its room to the newest, so a client
/// that sends its request at once is served: at least 90% of the page
/// loads during 15 s of the flood answer 200.
fn half_sent_requests_opened_again_and_again_still_leave_pages(on: &On) {
    let (dir, _) = on.course("attack-slow", &[]);
    let server = crate::server::serve_with_files(&dir, &on.database(), 1024);
    let addr = server.url.trim_start_matches("http://").to_string();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flood = {
        let (addr, stop) = (addr.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut held: Vec<TcpStream> = Vec::new();
            let mut opened = 0usize;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                while held.len() < 1100 {
                    let Ok(mut s) = TcpStream::connect(&addr) else { break };
                    let _ = write!(s, "GET / HTTP/1.1\r\nHost: {addr}\r\nX-Slow: ");
                    let _ = s.set_nonblocking(true);
                    held.push(s);
                    opened += 1;
                }
                // The ones the server closed are opened again.
                let mut byte = [0u8; 64];
                held.retain_mut(|s| match s.read(&mut byte) {
                    Ok(0) => false,
                    Ok(_) => true,
                    Err(e) => e.kind() == std::io::ErrorKind::WouldBlock,
                });
                std::thread::sleep(Duration::from_millis(20));
            }
            opened
        })
    };
    std::thread::sleep(Duration::from_secs(3));
    let (mut tries, mut served) = (0, 0);
    let start = std::time::Instant::now();
    while start.elapsed() < Duration::from_secs(15) {
        tries += 1;
        served += usize::from(status_of(&server, "/rules", "") == Some(200));
        std::thread::sleep(Duration::from_millis(500));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let opened = flood.join().expect("the flood");
    eprintln!("{served} of {tries} page loads answered 200 while {opened} half-sent requests were opened");
    assert!(opened > 1100, "the flood opened {opened}");
    assert!(
        served * 10 >= tries * 9,
        "{served} of {tries} page loads answered 200 during the flood"
    );
}

/// Rate limits (issue 48): past `logins_per_minute` from one address a
/// login is refused with 429, `Retry-After` and a page saying when to try
/// again, while another client behind the same proxy (`X-Forwarded-For`
/// from a loopback peer) logs in; past `api_per_minute` one student's API
/// calls are refused and a classmate's are not.
fn floods_of_logins_and_api_calls_are_told_when_to_try_again(on: &On) {
    let (dir, students) = on.course("attack-rates", &[]);
    let toml = dir.join("course.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    let text = text
        .replace("logins_per_minute = 120", "logins_per_minute = 2")
        .replace("api_per_minute = 300", "api_per_minute = 2");
    std::fs::write(&toml, text).unwrap();
    let server = on.serve(&dir);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .into();
    let login = |from: Option<&str>| {
        let mut req = agent.get(&format!("{}/login/not-a-link", server.url));
        if let Some(ip) = from {
            req = req.header("X-Forwarded-For", ip);
        }
        req.call().expect("GET /login")
    };
    // Two a minute: one comes back every 30 s, far longer than these
    // requests take on a loaded machine.
    let statuses: Vec<u16> = (0..2).map(|_| login(None).status().as_u16()).collect();
    assert_eq!(statuses, vec![401; 2], "a minute's worth of logins is taken");
    let mut r = login(None);
    assert_eq!(r.status().as_u16(), 429);
    let wait: u64 = r
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok()?.parse().ok())
        .expect("Retry-After");
    assert!((1..=30).contains(&wait), "{wait}");
    let page = r.body_mut().read_to_string().unwrap();
    assert!(page.contains("try again in"), "{page}");
    assert_eq!(
        login(Some("203.0.113.7")).status().as_u16(),
        401,
        "another client behind the proxy"
    );
    let api = |token: &str| {
        agent
            .get(&format!("{}/api/course", server.url))
            .header("Authorization", &format!("Bearer {token}"))
            .call()
            .expect("GET /api/course")
            .status()
            .as_u16()
    };
    let ann: Vec<u16> = (0..3).map(|_| api(&students[0]["token"])).collect();
    assert_eq!(ann, vec![200, 200, 429], "Ann's third call in a minute");
    assert_eq!(api(&students[1]["token"]), 200, "Bo's first");
    assert_eq!(api("not-a-token"), 401, "a wrong token is refused before it is counted");
    // Wrong tokens count against their address as logins do (the rerun of
    // issue 48's attacks: bad bearer tokens were answered 401 without end).
    assert_eq!(api("not-a-token-either"), 401, "a minute's worth of wrong tokens");
    let mut r = agent
        .get(&format!("{}/api/course", server.url))
        .header("Authorization", "Bearer a-third-guess")
        .call()
        .expect("GET /api/course");
    assert_eq!(r.status().as_u16(), 429, "the third wrong token in a minute");
    assert!(
        r.headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
            .is_some_and(|w| (1..=30).contains(&w)),
        "Retry-After"
    );
    let said = r.body_mut().read_to_string().unwrap();
    assert!(
        said.contains("too many wrong tokens from your address: try again in"),
        "{said}"
    );
    // Meanwhile that address is refused before any token is looked up,
    // a right one too, and on the workers' API as well.
    assert_eq!(
        api(&students[2]["token"]),
        429,
        "Cy's right token from the guessing address"
    );
    let worker = agent
        .post(&format!("{}/api/worker/hello", server.url))
        .header("Authorization", "Bearer not-a-worker")
        .send_json(serde_json::json!({}))
        .expect("POST /api/worker/hello")
        .status()
        .as_u16();
    assert_eq!(worker, 429, "the workers' API from the guessing address");
    // Another client behind the proxy is not held back.
    let bo = agent
        .get(&format!("{}/api/course", server.url))
        .header("Authorization", &format!("Bearer {}", students[1]["token"]))
        .header("X-Forwarded-For", "203.0.113.8")
        .call()
        .expect("GET /api/course")
        .status()
        .as_u16();
    assert_eq!(bo, 200, "Bo's second call in a minute, from another address");
}

/// A self-signed certificate for 127.0.0.1 named `name` (openssl), as
/// (certificate, key).
fn certificate(dir: &Path, name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let (cert, key) = (dir.join(format!("{name}.pem")), dir.join(format!("{name}-key.pem")));
    let out = std::process::Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "2",
        ])
        .args([
            "-subj",
            &format!("/CN={name}"),
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl (scripts/setup.sh installs it)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (cert, key)
}

/// `curl` of `url` trusting only `ca`: its status line and headers, or
/// `None` when the TLS handshake or the request failed.
fn curl_head(url: &str, ca: &Path) -> Option<String> {
    let out = std::process::Command::new("curl")
        .args(["-s", "-i", "-o", "-", "--max-time", "10", "--cacert"])
        .arg(ca)
        .arg(url)
        .output()
        .expect("curl (scripts/setup.sh installs it)");
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .split("\r\n\r\n")
            .next()
            .unwrap_or("")
            .to_string()
    })
}

/// TLS without a proxy (issue 49): `arena serve --tls-cert --tls-key`
/// serves https with that certificate and marks the session cookie
/// `Secure`; a renewed certificate written over the files is served
/// within seconds, without a restart; a key that does not go with the
/// certificate is refused at start in one line naming the file.
fn the_server_speaks_tls_and_takes_a_renewed_certificate(on: &On) {
    let (dir, students) = on.course("attack-tls", &[]);
    let certs = dir.with_file_name("certs");
    std::fs::create_dir_all(&certs).unwrap();
    let (first, first_key) = certificate(&certs, "first");
    let (renewed, renewed_key) = certificate(&certs, "renewed");
    let (cert, key) = (certs.join("fullchain.pem"), certs.join("privkey.pem"));
    std::fs::copy(&first, &cert).unwrap();
    std::fs::copy(&first_key, &key).unwrap();
    let mut args = vec!["--tls-cert", cert.to_str().unwrap(), "--tls-key", key.to_str().unwrap()];
    args.extend(on.database());
    let server = serve_with(&dir, &args);
    assert!(server.url.starts_with("https://"), "{}", server.url);
    let head = curl_head(&format!("{}/", server.url), &first).expect("https with the first certificate");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        curl_head(&format!("{}/", server.url), &renewed).is_none(),
        "not yet the renewed one"
    );
    let token = students[0]["link"].split("/login/").nth(1).unwrap();
    let login = curl_head(&format!("{}/login/{token}", server.url), &first).expect("a login over https");
    let cookie = login
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("set-cookie: arena_session="))
        .unwrap_or_else(|| panic!("a session cookie: {login}"));
    assert!(cookie.contains("Secure") && cookie.contains("HttpOnly"), "{cookie}");
    std::fs::copy(&renewed, &cert).unwrap();
    std::fs::copy(&renewed_key, &key).unwrap();
    // Hang guard: the files are looked at every 5 s.
    let started = std::time::Instant::now();
    while curl_head(&format!("{}/", server.url), &renewed).is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the renewed certificate was never served"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    drop(server);
    // A key of another certificate: refused at start, one line.
    std::fs::copy(&first_key, &key).unwrap();
    let out = std::process::Command::new(arena_tests::arena_bin())
        .args(["serve", dir.to_str().unwrap(), "--listen", "127.0.0.1:0"])
        .args(&args)
        .output()
        .expect("arena serve");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("privkey.pem: the key does not serve the certificate"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

/// The database keeps no live session's id (issue 48): what it stores
/// under is a hash of the cookie's id, so a copy of the database logs no
/// one in; the session still works, and still after a restart.
fn sessions_are_stored_under_a_hash_of_their_id(on: &On) {
    let (dir, students) = on.course("attack-sessions", &[]);
    let server = on.serve(&dir);
    let mut ann = logged_in(&server, &students[0]["link"]);
    let cookie = ann.cookie_header();
    let id = cookie
        .split("; ")
        .find_map(|c| c.strip_prefix("arena_session="))
        .expect("a session cookie")
        .to_string();
    let table = match on {
        On::Sqlite => "tower_sessions",
        On::Postgres(_) => "tower_sessions.session",
    };
    assert_ne!(
        on.scalar(&dir, &format!("SELECT COUNT(*) FROM {table}")),
        "0",
        "the session is kept"
    );
    assert_eq!(
        on.scalar(&dir, &format!("SELECT COUNT(*) FROM {table} WHERE id = '{id}'")),
        "0",
        "the cookie's id is not in the database"
    );
    let (status, page, _) = ann.get("/");
    assert!(status == 200 && page.contains("Ann Lee"), "{status} {page}");
    drop(server);
    let server = on.serve(&dir);
    let mut again = crate::server::Browser::new(&server);
    again.cookies_from(&ann, "");
    let (status, page, _) = again.get("/");
    assert!(
        status == 200 && page.contains("Ann Lee"),
        "after a restart: {status} {page}"
    );
}

crate::server::on_both!(
    sessions_are_stored_under_a_hash_of_their_id,
    the_server_speaks_tls_and_takes_a_renewed_certificate,
    hostile_bodies_leave_the_servers_memory_as_it_was,
    floods_of_logins_and_api_calls_are_told_when_to_try_again,
    a_flood_of_connections_still_leaves_a_page,
    half_sent_requests_opened_again_and_again_still_leave_pages,
    a_form_token_is_bound_to_its_session,
    a_request_from_before_a_login_leaves_the_new_cookie,
    the_apis_refuse_a_caller_before_reading_its_body,
    a_worker_fetches_accepted_files_only,
    what_the_server_keeps_is_private_to_its_user,
    hidden_names_stay_hidden_from_the_first_page_after_a_restart,
);
