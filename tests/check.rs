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
    assert_eq!(
        out.lines().next(),
        Some(bot.as_str()),
        "the path as typed heads the report"
    );
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

/// Issue 47 item 8: a bot checked for the wrong game is named by the game
/// it was built for (never by its exports), with the fix, in one line; a
/// component of no game's world says it is no arena bot. The course
/// server's refusal at upload says the same (`Grading::refuse_at_upload`,
/// one code path: `arena_grading::check::not_for_game`).
#[test]
fn a_bot_for_another_game_is_named_by_its_game_in_one_line() {
    let garde = bot_arg("en-garde/aggressive");
    let name = std::path::Path::new(&garde).display().to_string();
    let said = format!(
        "{name}: a bot for En Garde, not Sugargame; check it for its game with `arena check --game en-garde {name}`, \
         or start a bot for Sugargame with `arena new --game sugar`"
    );
    assert_one_line_error(&["check", "--game", "sugar", &garde], &said);
    let out = arena(&["check", "--game", "sugar", &garde]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("exports") && !err.contains("choose-move"), "{err}");
    assert_eq!(out.status.code(), Some(2));
    // A WASI command: a component, but of no game's world.
    let other = bot_arg("hostile/wrong-world");
    assert_one_line_error(
        &["check", &other],
        "wrong-world.wasm: a WebAssembly component, but not an arena bot (it exports no game's functions); \
         start a bot with `arena new --game GAME`",
    );
    assert_one_line_error(
        &["check", "--game", "en-garde", &other],
        "wrong-world.wasm: a WebAssembly component, but not an arena bot (it exports no game's functions); \
         start a bot for En Garde with `arena new --game en-garde`",
    );
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

/// A bot whose every move is illegal never forfeits (the course's rule
/// costs it the round) and cannot win: it is not ready, and the report says
/// how many illegal moves and how to see them.
#[test]
fn a_bot_that_only_plays_illegal_moves_is_not_ready() {
    let bot = bot_arg("hostile/illegal");
    let (code, out) = check(&[&bot, "--game", "en-garde"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("not ready: played ")
            && out.contains(
                " illegal moves in 30 of 30 games (under the course's rule, each loses the round (rule 5.1)); won none of 30 games"
            ),
        "{out}"
    );
    assert!(
        out.contains("illegal moves: first in vs house:aggressive, game 0; to see them: arena match --game en-garde"),
        "{out}"
    );
    assert!(!out.contains("ready to submit"), "{out}");
}

/// `arena match` says what went wrong: illegal moves, and why a bot crashed
/// in the language's own words, without `arena check`.
#[test]
fn a_match_says_illegal_moves_and_the_crash_in_the_bots_words() {
    let illegal = bot_arg("hostile/illegal");
    let out = arena(&["match", "--game", "en-garde", &illegal, "house:random", "--games", "4"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("illegal played ")
            && stdout
                .contains("illegal moves in 4 of 4 games: under the course's rule, each loses the round (rule 5.1)"),
        "{stdout}"
    );
    let crash = arena_tests::lang_bot("en-garde/crashes-py").display().to_string();
    let out = arena(&["match", "--game", "en-garde", &crash, "house:random", "--games", "2"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        stdout.contains("crashes-py forfeited 2 games (trap); the first, game 0: uncaught exception: "),
        "{stdout}"
    );
    assert!(
        stdout.contains("(--replay FILE, then arena view FILE, shows them, with crashes-py's whole log"),
        "{stdout}"
    );
}

/// A crash in `check` shows the end of the bot's log in that game: the
/// traceback a student knows from running Python, without the runtime's
/// own panic lines after it.
#[test]
fn a_crash_in_check_shows_the_end_of_the_traceback() {
    let crash = arena_tests::lang_bot("en-garde/crashes-py").display().to_string();
    let (code, out) = check(&[&crash, "--game", "en-garde"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("    the bot's log in that game ended with:"), "{out}");
    assert!(out.contains("    | Traceback (most recent call last):"), "{out}");
    assert!(out.contains("    | KeyError: 'no such key'"), "{out}");
    assert!(!out.contains("Python function threw"), "runtime noise:\n{out}");
    assert!(!out.contains("RUST_BACKTRACE"), "runtime noise:\n{out}");
    assert!(!out.contains("whole report"), "{out}");
}

/// The library call behind `arena check`, as a course server makes it: no
/// process, the same verdicts and the same text.
#[test]
fn the_check_library_call_gives_the_verdicts_the_command_prints() {
    use arena::check::{CheckError, CheckSpec, check as check_bot};
    let sandbox = |g: &'static dyn arena::runner::GameDef| arena::adapters::sandbox(g.default_limits());
    fn spec<'a>(bot: &'a std::path::Path, sandbox: &'a arena::check::SandboxFor<'a>) -> CheckSpec<'a> {
        CheckSpec {
            bot,
            game: None,
            games: 10,
            seed: 1,
            illegal: None,
            sandbox,
            meter: None,
        }
    }
    let good = arena_tests::bot("en-garde/aggressive");
    let report = check_bot(&spec(&good, &sandbox)).expect("a verdict");
    assert!(report.ready, "{}", report.text());
    assert_eq!(report.game, "en-garde");
    assert_eq!(report.world, "arena:bots/en-garde@0.2.0");
    assert_eq!(report.games, 30);
    assert!(report.text().contains("ready to submit"));
    // The command prints exactly the library's text (but the compile line's time).
    let (code, printed) = check(&[&good.display().to_string()]);
    assert_eq!(code, 0);
    let without_time = |t: &str| {
        t.lines()
            .filter(|l| !l.contains("compile "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(without_time(&printed), without_time(&report.text()));
    let illegal = arena_tests::bot("hostile/illegal");
    let report = check_bot(&spec(&illegal, &sandbox)).expect("a verdict");
    assert!(!report.ready);
    assert!(report.illegal_moves > 0 && report.wins == 0, "{}", report.text());
    let text = temp("check-lib").join("bot.wasm");
    std::fs::write(&text, "print('hi')\n").expect("write");
    match check_bot(&spec(&text, &sandbox)) {
        Err(CheckError::Rejected(why)) => assert!(why.contains("not a WebAssembly file"), "{why}"),
        other => panic!("a text file is rejected, not {other:?}"),
    }
}

/// `arena check --json` prints the report as one object, for scripts and the server.
#[test]
fn check_json_is_one_object_with_the_verdict() {
    let (code, out) = check(&[&bot_arg("hostile/illegal"), "--game", "en-garde", "--json"]);
    assert_eq!(code, 1, "{out}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(json["ready"], false);
    assert_eq!(json["game"], "en-garde");
    assert!(json["illegal_moves"].as_u64().unwrap() > 0);
    assert!(
        json["not_ready"][0].as_str().unwrap().contains("illegal moves"),
        "{json}"
    );
}

/// ConnectFwar's basic bot discards a card that fits nowhere, a legal
/// choice (rule 3.3): it is ready, and a solitaire claims no wins.
#[test]
fn a_connect_fwar_bot_that_discards_is_ready() {
    let (code, out) = check(&[&bot_arg("connect-fwar/basic"), "--game", "connect-fwar"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("ready to submit: it loads, forfeited none of 10 games, played no illegal move\n"),
        "{out}"
    );
}
