//! `arena check`: what a student runs before submitting a bot.

use arena_tests::{arena, assert_one_line_error, bot_arg, temp};

fn check(args: &[&str]) -> (i32, String) {
    let out = arena(&[&["check"], args].concat());
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code().expect("exit status"), stdout)
}

#[test]
fn an_example_bot_is_ready_to_submit() {
    let bot = bot_arg("en-garde/aggressive");
    let (code, out) = check(&[&bot, "--game", "en-garde"]);
    assert_eq!(code, 0, "{out}");
    for expect in [
        "Rust",
        "arena:bots/en-garde@0.2.0",
        "house:aggressive",
        "house:cowardly",
        "house:random",
        "fuel per move: mean",
        "compile",
        "ready to submit",
    ] {
        assert!(out.contains(expect), "expected `{expect}` in:\n{out}");
    }
    assert!(out.lines().count() <= 24, "one screen:\n{out}");
}

#[test]
fn without_a_game_it_finds_the_game() {
    let (code, out) = check(&[&bot_arg("en-garde/aggressive")]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("arena:bots/en-garde@0.2.0 (en-garde, found"), "{out}");
    let (code, out) = check(&[&bot_arg("president/random")]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("arena:bots/president@0.2.0 (president, found"), "{out}");
    assert!(out.contains("table with house:lowest, house:random"), "{out}");
}

#[test]
fn a_bot_that_forfeits_exits_1_with_the_reason() {
    let (code, out) = check(&[&bot_arg("hostile/infinite-loop"), "--game", "en-garde"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("not ready"), "{out}");
    assert!(out.contains("fuel (30): vs house:aggressive"), "{out}");
    assert!(out.contains("ran out of fuel"), "{out}");
}

#[test]
fn a_text_file_is_rejected_in_one_line_with_status_2() {
    let dir = temp("check-text");
    let file = dir.join("bot.wasm");
    std::fs::write(&file, "fn main() {}\n").expect("write");
    let path = file.display().to_string();
    assert_one_line_error(&["check", path.as_str()], "not a WebAssembly file");
    assert_one_line_error(&["check", path.as_str(), "--game", "sugar"], "not a WebAssembly file");
    let (code, out) = check(&[&path]);
    assert_eq!(code, 2);
    assert!(out.is_empty(), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_second_check_of_the_same_file_loads_it_from_the_compile_cache() {
    let cache = temp("check-cache");
    let bot = bot_arg("en-garde/aggressive");
    let dir = cache.display().to_string();
    let (code, first) = check(&[&bot, "--game", "en-garde", "--cache-dir", &dir]);
    assert_eq!(code, 0, "{first}");
    assert!(!first.contains("compile cache"), "the first check compiles:\n{first}");
    let (code, second) = check(&[&bot, "--game", "en-garde", "--cache-dir", &dir]);
    assert_eq!(code, 0, "{second}");
    assert!(
        second.contains("(compiled before: loaded from the compile cache)"),
        "the second check reuses the first's compile:\n{second}"
    );
}
