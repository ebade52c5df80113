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
    drop(server);
    let mut extra = vec!["--workers", "0"];
    extra.extend(on.database());
    let server = serve_with(&dir, &extra);
    let mut student = logged_in(&server, &students[1]["link"]);
    let (status, page, _) = student.get("/ladder/people/2");
    assert_eq!(status, 200, "{page}");
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

crate::server::on_both!(
    the_apis_refuse_a_caller_before_reading_its_body,
    a_worker_fetches_accepted_files_only,
    what_the_server_keeps_is_private_to_its_user,
    hidden_names_stay_hidden_from_the_first_page_after_a_restart,
);
