//! Faults a semester meets (issue 49 item 4), made real rather than
//! mocked: the server runs in a mount namespace of its own (util-linux's
//! `unshare --user --map-root-user --mount`, which needs no privilege
//! where user namespaces are on, as on Debian), where its `files/` folder
//! is a tmpfs too small for the next upload, or its whole course folder is
//! mounted read-only. What the server sees there is what it would see on
//! a full disk or a remounted file system; the test reads the server's
//! own view through `/proc/PID/root`.

use crate::server::{On, Server, serve_by, submit};
use arena_tests::{arena_bin, bot};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `unshare` running `script` (a shell line) in a user and mount namespace
/// of its own, then `arena` with the arguments `serve_by` adds.
fn in_namespace(script: &str, folder: &Path) -> Command {
    let mut c = Command::new("unshare");
    c.args(["--user", "--map-root-user", "--mount", "sh", "-c"])
        .arg(format!("{script} && exec \"$@\""))
        .arg(folder)
        .arg(arena_bin());
    c
}

/// The bot files and leftovers in the server's `files/`, as the server sees it.
fn files_seen_by(server: &Server) -> Vec<PathBuf> {
    let root = PathBuf::from(format!("/proc/{}/root", server.pid()));
    let files = root.join(server.dir().strip_prefix("/").unwrap()).join("files");
    let mut seen = Vec::new();
    let mut dirs = vec![files.clone()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("the server's files folder").flatten() {
            if e.path().is_dir() {
                dirs.push(e.path());
            } else {
                seen.push(e.path().strip_prefix(&files).unwrap().to_path_buf());
            }
        }
    }
    seen.sort();
    seen
}

/// The disk fills during an upload: a 1.6 MB bot does not fit in the 256
/// KiB left for files. The upload is refused in one line that says the
/// server's disk is full and who can fix it, no half-written file stays,
/// no version is recorded, the student's earlier version stays the one
/// that counts, and the server keeps serving: pages, and a bot that fits.
#[test]
fn a_full_disk_refuses_the_upload_in_one_line_and_the_server_keeps_serving() {
    let on = On::Sqlite;
    let (dir, students) = on.course("faults-disk", &[]);
    let files = dir.join("files");
    let server = serve_by(
        in_namespace("mount -t tmpfs -o size=256k tmpfs \"$0\"", &files),
        &dir,
        &[],
    );
    let ann = &students[0]["token"];
    let (code, first, err) = submit(&server, ann, &bot("en-garde/aggressive"));
    assert_eq!(code, 0, "a 44 KB bot fits: {err}");
    assert_eq!(files_seen_by(&server).len(), 1, "{:?}", files_seen_by(&server));

    let big = arena_tests::root().join("example-bots/wasm/en-garde/aggressive-qjs.wasm");
    assert!(std::fs::metadata(&big).expect("the QuickJS bot is built").len() > 1 << 20);
    let (code, v, err) = submit(&server, ann, &big);
    assert_ne!(code, 0, "a file the disk cannot keep is not taken: {v:#}");
    let said = err.trim();
    assert_eq!(said.lines().count(), 1, "one line: {said}");
    assert!(
        said.contains("disk") && said.contains("full"),
        "says the disk is full: {said}"
    );
    assert!(said.contains("teacher"), "says who can fix it: {said}");
    assert!(!said.contains("os error"), "in the student's words: {said}");
    assert_eq!(
        files_seen_by(&server).len(),
        1,
        "nothing half-written stays: {:?}",
        files_seen_by(&server)
    );
    assert_eq!(
        on.scalar(&dir, "SELECT COUNT(*) FROM submissions"),
        "1",
        "no version recorded"
    );

    // Still serving: Ann's first version is there and counts, and a small bot is taken.
    let (code, again, err) = submit(&server, &students[1]["token"], &bot("en-garde/cowardly"));
    assert_eq!(code, 0, "a bot that fits is still taken: {err}");
    assert_eq!(again["version"], 1);
    assert_eq!(first["version"], 1);
    assert_eq!(on.scalar(&dir, "SELECT COUNT(*) FROM submissions"), "2");
}

/// A course folder mounted read-only (a disk remounted after an error, a
/// backup copy on read-only media): `arena serve` refuses it in one line
/// that names the folder and the fix, exits 2, and changes nothing.
#[test]
fn a_read_only_course_folder_is_refused_in_one_line() {
    let on = On::Sqlite;
    let (dir, _) = on.course("faults-readonly", &[]);
    let before = std::fs::read(dir.join("course.db")).unwrap();
    let out = in_namespace("mount --bind \"$0\" \"$0\" && mount -o remount,bind,ro \"$0\"", &dir)
        .args(["serve", &dir.display().to_string(), "--listen", "127.0.0.1:0"])
        .output()
        .expect("run arena serve");
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "refused: {said}");
    assert_eq!(said.trim().lines().count(), 1, "one line: {said}");
    assert!(said.contains(&dir.display().to_string()), "names the folder: {said}");
    assert!(said.contains("read-only"), "says why: {said}");
    assert_eq!(std::fs::read(dir.join("course.db")).unwrap(), before, "nothing changed");
}
