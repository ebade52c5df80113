//! Human play in the terminal, driven by scripted stdin.

use arena::adapters;
use arena::human::Terminal;
use arena::runner::{BotRef, GameSetup};
use arena::sandbox::Limits;
use arena_tests::{arena_bin, bot, root};
use std::io::{Cursor, Write};
use std::process::{Command, Stdio};

fn play(args: &[&str], lang: &str, script: &str) -> (bool, String, String) {
    let mut child = Command::new(arena_bin())
        .env("ARENA_NO_CACHE", "1")
        .args(args)
        .current_dir(root())
        .env("LANG", lang)
        .env_remove("LC_ALL")
        .env_remove("LC_CTYPE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start arena play");
    // The child may finish before reading everything; a broken pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(script.as_bytes());
    let out = child.wait_with_output().expect("arena play finishes");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn connect_fwar_reprompts_on_bad_columns_and_reports_the_score() {
    let mut script = String::from("x\n7\n-1\n");
    for _ in 0..60 {
        script.push_str("0\n1\n2\n3\nd\n");
    }
    let (ok, out, err) = play(&["play", "--game", "connect-fwar", "--seed", "3"], "C", &script);
    assert!(ok, "{err}");
    assert!(out.contains("seed 3"), "the seed is shown so the deal can be replayed");
    assert!(
        out.contains("Type a column number 0-3"),
        "non-numeric re-prompts:\n{out}"
    );
    assert_eq!(out.matches("There are four columns").count(), 2, "7 and -1 re-prompt");
    assert!(out.contains("You drew 6S"), "letters for suits without UTF-8:\n{out}");
    assert!(!out.contains('♠'));
    assert!(out.contains("You score ") || out.contains("The deck ran out"), "{out}");
}

#[test]
fn connect_fwar_draws_suit_symbols_on_a_utf8_terminal_and_scores_an_all_discard_game_zero() {
    let script = "d\n".repeat(52);
    let (ok, out, _) = play(
        &["play", "--game", "connect-fwar", "--seed", "3"],
        "en_US.UTF-8",
        &script,
    );
    assert!(ok);
    assert!(out.contains("You drew 6♠"), "{out}");
    assert_eq!(out.matches("Discarded.").count(), 52);
    assert!(
        out.contains("The deck ran out before a connected four: score 0"),
        "{out}"
    );
}

#[test]
fn connect_fwar_a_card_that_does_not_fit_reprompts() {
    // Seed 3 draws 6S, 8S, 3H: the 3 cannot go on the 6 in column 0.
    let (_, out, _) = play(&["play", "--game", "connect-fwar", "--seed", "3"], "C", "0\n1\n0\n2\n");
    assert!(
        out.contains("It does not fit there: 3H is lower than the top card 6S"),
        "{out}"
    );
}

#[test]
fn en_garde_reprompts_on_typos_and_illegal_moves() {
    let mut script = String::from("?\nzz\n9f\n1b\n");
    for _ in 0..400 {
        script.push_str("1f\n2f\n3f\n4f\n5f\n1b\n2b\n3b\n4b\n5b\n");
    }
    let (ok, out, err) = play(
        &["play", "--game", "en-garde", "--vs", "house:cowardly", "--seed", "5"],
        "C",
        &script,
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("Legal moves: 1f 2f 3f 5f"),
        "? lists the legal moves:\n{out}"
    );
    assert!(out.contains("Type a card value and a direction"), "a typo re-prompts");
    assert!(out.contains("you hold no 9"));
    assert!(out.contains("that would leave the strip"));
    assert!(out.contains("Your hand: 1 2 3 5 5"));
    assert!(out.contains("Cards left in the deck: 15"));
    assert!(out.contains("house:cowardly plays"), "the opponent's moves are told");
    assert!(out.contains("Score: you 0, opponent 0"));
    assert!(out.contains("You win") || out.contains("house:cowardly wins"), "{out}");
}

#[test]
fn en_garde_congratulates_a_winning_person() {
    // The always-illegal wasm bot loses every round: the person wins 5-0.
    let illegal = bot("hostile/illegal").display().to_string();
    let script = "1f\n2f\n3f\n4f\n5f\n".repeat(100);
    let (ok, out, err) = play(
        &[
            "play",
            "--game",
            "en-garde",
            "--vs",
            &illegal,
            "--seed",
            "2",
            "--variant",
            "standard",
        ],
        "C",
        &script,
    );
    assert!(ok, "{err}");
    assert!(out.contains("standard variant"));
    assert!(out.contains("You win 5-0! Congratulations"), "{out}");
}

#[test]
fn play_bad_input_is_one_line() {
    for (args, expect) in [
        (vec!["play", "--game", "en-garde"], "--vs BOT"),
        (
            vec!["play", "--game", "connect-fwar", "--vs", "house:basic"],
            "played alone",
        ),
        (
            vec!["play", "--game", "en-garde", "--vs", "house:nobody"],
            "no house bot",
        ),
        (
            vec!["play", "--game", "sugar"],
            "sugar cannot be played by a person yet; games you can play: en-garde, connect-fwar",
        ),
    ] {
        let (ok, _, err) = play(&args, "C", "");
        assert!(!ok, "{args:?}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(expect), "{args:?}: {err}");
    }
}

#[test]
fn a_person_who_quits_or_closes_the_input_is_told_they_left() {
    let cases = [
        (
            vec!["play", "--game", "en-garde", "--vs", "house:random", "--seed", "3"],
            "q\n",
        ),
        (
            vec!["play", "--game", "en-garde", "--vs", "house:random", "--seat", "1"],
            "",
        ),
        (vec!["play", "--game", "connect-fwar", "--seed", "3"], "quit\n"),
        (vec!["play", "--game", "connect-fwar", "--seed", "3"], "0\n"),
    ];
    for (args, script) in cases {
        let (ok, out, err) = play(&args, "C", script);
        assert!(ok, "{err}");
        assert!(
            out.trim_end().ends_with("You left the game."),
            "{args:?} {script:?}:\n{out}"
        );
    }
    // Played to the end: nobody left.
    let (ok, out, _) = play(
        &["play", "--game", "connect-fwar", "--seed", "3"],
        "C",
        &"d\n".repeat(52),
    );
    assert!(ok);
    assert!(!out.contains("You left"), "{out}");
}

/// A terminal that reads `script` and throws away what it prints.
fn scripted(script: &str) -> Terminal {
    Terminal::new(
        Box::new(Cursor::new(script.to_string())),
        Box::new(std::io::sink()),
        false,
    )
}

#[test]
fn leaving_is_recorded_by_the_terminal_not_read_from_a_message() {
    let sandbox = adapters::sandbox(Limits::default()).unwrap();
    let setup = GameSetup::new(&sandbox);
    let random = [("house:random".to_string(), BotRef::House("random".into()))];
    for (game, opponents, seat, script) in [
        ("en-garde", &random[..], 0, "q\n"),
        ("en-garde", &random[..], 1, ""),
        ("connect-fwar", &[][..], 0, "1\nq\n"),
    ] {
        let term = scripted(script);
        let outcome = adapters::game(game)
            .unwrap()
            .play_human(&setup, 7, term.clone(), seat, opponents)
            .unwrap();
        assert!(term.has_left(), "{game} {script:?}");
        assert_eq!(
            outcome.forfeit.map(|f| f.seat),
            Some(seat),
            "{game}: the person's seat forfeits"
        );
    }
    let stayed = scripted(&"d\n".repeat(52));
    let outcome = adapters::game("connect-fwar")
        .unwrap()
        .play_human(&setup, 7, stayed.clone(), 0, &[])
        .unwrap();
    assert!(!stayed.has_left());
    assert!(outcome.forfeit.is_none());
}
