//! The `arena` binary: reproducible output, replays, and one clear line for bad input.

use arena_tests::{arena_bin, bot, root};
use std::process::{Command, Output};

fn arena(args: &[&str]) -> Output {
    Command::new(arena_bin())
        .args(args)
        .current_dir(root())
        .output()
        .expect("run arena")
}

fn path(name: &str) -> String {
    bot(name).display().to_string()
}

#[test]
fn the_same_seed_gives_byte_identical_json_whatever_the_thread_count() {
    let agg = path("en-garde/aggressive");
    let args = [
        "match",
        "--game",
        "en-garde",
        &agg,
        "house:random",
        "--games",
        "40",
        "--seed",
        "99",
        "--json",
    ];
    let first = arena(&args);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let second = arena(&[&args[..], &["--jobs", "1"]].concat());
    let third = arena(&[&args[..], &["--jobs", "2"]].concat());
    assert_eq!(first.stdout, second.stdout);
    assert_eq!(first.stdout, third.stdout);
    let other_seed = arena(&[
        "match",
        "--game",
        "en-garde",
        &agg,
        "house:random",
        "--games",
        "40",
        "--seed",
        "100",
        "--json",
    ]);
    assert_ne!(first.stdout, other_seed.stdout);
}

#[test]
fn json_output_has_the_documented_shape() {
    let agg = path("en-garde/aggressive");
    let out = arena(&[
        "match",
        "--game",
        "en-garde",
        &agg,
        "house:random",
        "--games",
        "3",
        "--seed",
        "5",
        "--json",
    ]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["game"], "en-garde");
    assert_eq!(v["seed"], 5);
    assert_eq!(v["games"], 4, "rounded up so each deal is played from both seats");
    let bots = v["bots"].as_array().unwrap();
    assert_eq!(bots.len(), 2);
    for b in bots {
        for key in ["name", "wins", "losses", "draws", "forfeits"] {
            assert!(b.get(key).is_some(), "bots[].{key}");
        }
        assert!(b["forfeits"].is_object());
    }
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    assert_eq!(results[0]["seats"], serde_json::json!([0, 1]));
    assert_eq!(results[1]["seats"], serde_json::json!([1, 0]));
    assert_eq!(results[0]["seed"], results[1]["seed"], "a pair shares its deal");
    for r in results {
        for key in ["seed", "seats", "scores", "winner", "forfeit"] {
            assert!(r.get(key).is_some(), "results[].{key}");
        }
    }
}

#[test]
fn the_table_names_each_bot_with_its_totals() {
    let agg = path("en-garde/aggressive");
    let out = arena(&["match", "--game", "en-garde", &agg, "house:cowardly", "--games", "10"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("aggressive"), "{text}");
    assert!(text.contains("house:cowardly"), "{text}");
    assert!(text.contains("wins"), "{text}");
}

#[test]
fn a_replay_holds_every_event_of_every_game() {
    let dir = std::env::temp_dir().join(format!("arena-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("m.jsonl");
    let flood = path("hostile/log-flood");
    let out = arena(&[
        "match",
        "--game",
        "en-garde",
        &flood,
        "house:random",
        "--games",
        "2",
        "--variant",
        "standard",
        "--replay",
        file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&file).unwrap();
    let events: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(events[0]["type"], "match");
    assert_eq!(events[0]["variant"], "standard");
    let count = |t: &str| events.iter().filter(|e| e["type"] == t).count();
    assert_eq!(count("game"), 2);
    assert_eq!(count("result"), 2);
    assert_eq!(count("game-start"), 2);
    assert_eq!(count("game-end"), 2);
    assert!(count("round-start") >= 10, "at least five rounds per game");
    assert_eq!(count("round-start"), count("round-end"));
    assert!(count("move") > count("round-start"));
    assert_eq!(count("log"), 2);
    // Every round starts with the full deal: both hands and the deck order.
    for e in events.iter().filter(|e| e["type"] == "round-start") {
        assert_eq!(e["hands"][0].as_array().unwrap().len(), 5);
        assert_eq!(e["deck"].as_array().unwrap().len(), 15);
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Bad input: exactly one line on stderr, a non-zero exit, no panic.
fn assert_one_line_error(args: &[&str], expect: &str) {
    let out = arena(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} should fail");
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "{args:?}: one line, got:\n{stderr}"
    );
    assert!(stderr.contains(expect), "{args:?}: expected `{expect}` in: {stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("backtrace"),
        "{stderr}"
    );
}

#[test]
fn bad_input_is_one_clear_line() {
    let dir = std::env::temp_dir().join(format!("arena-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = dir.join("notes.wasm");
    std::fs::write(&text, "these are my notes\n").unwrap();
    let core = dir.join("core.wasm");
    std::fs::write(&core, b"\0asm\x01\0\0\0").unwrap();
    let (text, core) = (text.display().to_string(), core.display().to_string());
    let agg = path("en-garde/aggressive");
    let wrong = path("hostile/wrong-world");
    let m = |rest: &[&str]| {
        [&["match", "--game", "en-garde"][..], rest]
            .concat()
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
    };
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "match".into(),
                "--game".into(),
                "chess".into(),
                agg.clone(),
                "house:random".into(),
            ],
            "unknown game `chess`",
        ),
        (
            m(&["missing.wasm", "house:random"]),
            "missing.wasm: cannot read the bot file",
        ),
        (m(&[&text, "house:random"]), "not a WebAssembly file (found text)"),
        (
            m(&[&core, "house:random"]),
            "a core WebAssembly module, not a component",
        ),
        (
            m(&[&wrong, "house:random"]),
            "a component for another world; expected world arena:bots/en-garde@0.1.0",
        ),
        (m(&[&agg, "house:nobody"]), "no house bot `nobody`"),
        (m(&[&agg, "house:random", "--fuel", "0"]), "greater than zero"),
        (m(&[&agg, "house:random", "--fuel", "-1"]), "--fuel"),
        (m(&[&agg, "house:random", "--memory", "0"]), "greater than zero"),
        (m(&[&agg, "house:random", "--memory", "-64M"]), "--memory"),
        (m(&[&agg, "house:random", "--timeout", "0"]), "greater than zero"),
        (m(&[&agg, "house:random", "--timeout", "-2"]), "--timeout"),
        (m(&[&agg, "house:random", "--games", "0"]), "greater than zero"),
        (
            m(&[&agg, "house:random", "--variant", "epee"]),
            "unknown variant `epee`",
        ),
        (m(&[&agg]), "en-garde takes 2 bots, got 1"),
    ];
    for (args, expect) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_one_line_error(&args, expect);
    }
    std::fs::remove_dir_all(&dir).ok();
}
