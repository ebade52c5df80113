//! The `arena` binary: reproducible output, replays, and one clear line for bad input.

use arena_tests::{arena, arena_json, assert_one_line_error, bot, bot_arg, temp};

/// `arena match --game en-garde` between the wasm aggressive bot and house:random, then `rest`.
fn aggressive_vs_random(rest: &[&str]) -> Vec<String> {
    let agg = bot_arg("en-garde/aggressive");
    let args = ["match", "--game", "en-garde", &agg, "house:random"];
    args.iter().chain(rest).map(|a| a.to_string()).collect()
}

#[test]
fn the_same_seed_gives_byte_identical_json_whatever_the_thread_count() {
    let run = |seed: &str, jobs: &[&str]| {
        arena(&aggressive_vs_random(
            &[&["--games", "40", "--json", "--seed", seed], jobs].concat(),
        ))
    };
    let first = run("99", &[]);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let second = run("99", &["--jobs", "1"]);
    let third = run("99", &["--jobs", "2"]);
    assert_eq!(first.stdout, second.stdout);
    assert_eq!(first.stdout, third.stdout);
    let other_seed = run("100", &[]);
    assert_ne!(first.stdout, other_seed.stdout);
}

#[test]
fn json_output_has_the_documented_shape() {
    let v = arena_json(&aggressive_vs_random(&["--games", "3", "--seed", "5", "--json"]));
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
    let agg = bot_arg("en-garde/aggressive");
    let out = arena(&["match", "--game", "en-garde", &agg, "house:cowardly", "--games", "10"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("aggressive"), "{text}");
    assert!(text.contains("house:cowardly"), "{text}");
    assert!(text.contains("wins"), "{text}");
}

#[test]
fn a_replay_holds_every_event_of_every_game() {
    let dir = temp("replay");
    let file = dir.join("m.jsonl");
    let flood = bot_arg("hostile/log-flood");
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

#[test]
fn bad_input_is_one_clear_line() {
    let dir = temp("bad");
    let text = dir.join("notes.wasm");
    std::fs::write(&text, "these are my notes\n").unwrap();
    let core = dir.join("core.wasm");
    std::fs::write(&core, b"\0asm\x01\0\0\0").unwrap();
    let (text, core) = (text.display().to_string(), core.display().to_string());
    let agg = bot_arg("en-garde/aggressive");
    let wrong = bot_arg("hostile/wrong-world");
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
            "wrong-world.wasm: a WebAssembly component, but not an arena bot (it exports no game's functions); \
             start a bot for En Garde with `arena new --game en-garde`",
        ),
        (m(&[&agg, "house:nobody"]), "no house bot `nobody`"),
        (aggressive_vs_random(&["--fuel", "0"]), "greater than zero"),
        (aggressive_vs_random(&["--fuel", "-1"]), "--fuel"),
        (aggressive_vs_random(&["--memory", "0"]), "greater than zero"),
        (aggressive_vs_random(&["--memory", "-64M"]), "--memory"),
        (aggressive_vs_random(&["--timeout", "0"]), "greater than zero"),
        (aggressive_vs_random(&["--timeout", "-2"]), "--timeout"),
        (aggressive_vs_random(&["--games", "0"]), "greater than zero"),
        (aggressive_vs_random(&["--variant", "epee"]), "unknown variant `epee`"),
        (m(&[&agg]), "en-garde takes 2 bots, got 1"),
    ];
    for (args, expect) in &cases {
        assert_one_line_error(args, expect);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn memory_beyond_what_a_wasm32_bot_addresses_is_refused_in_one_line() {
    for too_much in ["5G", "4097M", "1000G"] {
        assert_one_line_error(
            &aggressive_vs_random(&["--memory", too_much]),
            "a wasm32 bot addresses at most 4G of memory, so give at most 4G",
        );
    }
    let at_most = arena(&aggressive_vs_random(&["--memory", "4G", "--games", "2"]));
    assert!(at_most.status.success(), "{}", String::from_utf8_lossy(&at_most.stderr));
}

#[test]
fn max_file_bytes_sets_the_largest_bot_file_accepted() {
    let size = std::fs::metadata(bot("en-garde/aggressive")).unwrap().len();
    let limit = (size - 1).to_string();
    assert_one_line_error(
        &aggressive_vs_random(&["--max-file-bytes", &limit]),
        &format!("the file is {size} bytes, over the limit of {limit} bytes"),
    );
    assert_one_line_error(&aggressive_vs_random(&["--max-file-bytes", "0"]), "--max-file-bytes");
    let exactly = arena(&aggressive_vs_random(&[
        "--max-file-bytes",
        &size.to_string(),
        "--games",
        "2",
        "--json",
    ]));
    assert!(exactly.status.success(), "{}", String::from_utf8_lossy(&exactly.stderr));
    let report: serde_json::Value = serde_json::from_slice(&exactly.stdout).unwrap();
    assert_eq!(report["limits"]["max_file_bytes"], size, "the report records the limit");
}

#[test]
fn a_bot_starting_with_more_memory_than_the_cap_is_told_the_numbers_and_the_flag() {
    // The example bot's memory starts at 17 pages (1,114,112 bytes).
    arena_tests::assert_one_line_error(
        &[
            "match",
            "--game",
            "en-garde",
            &arena_tests::bot_arg("en-garde/aggressive"),
            "house:random",
            "--memory",
            "1M",
        ],
        "the bot starts with 1114112 bytes of memory, more than the cap of 1048576 bytes per bot; raise --memory",
    );
}

/// Every `arena new` project builds `bot.wasm`: in a match such a bot is
/// named after its project's folder, so two projects are told apart.
#[test]
fn a_projects_bot_wasm_is_named_after_its_project() {
    let dir = arena_tests::temp("two-projects");
    for (project, kind) in [("ann-bot", "aggressive"), ("bo-bot", "cowardly")] {
        std::fs::create_dir_all(dir.join(project)).unwrap();
        std::fs::write(dir.join(project).join("build.sh"), "#!/bin/sh\n").unwrap();
        std::fs::copy(
            arena_tests::bot(&format!("en-garde/{kind}")),
            dir.join(project).join("bot.wasm"),
        )
        .unwrap();
    }
    let bot = |p: &str| dir.join(p).join("bot.wasm").display().to_string();
    let v = arena_tests::arena_json(&[
        "match",
        "--game",
        "en-garde",
        &bot("ann-bot"),
        &bot("bo-bot"),
        "--games",
        "2",
        "--json",
    ]);
    let names: Vec<&str> = v["bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ann-bot", "bo-bot"]);
}

/// A `--timeout` shorter than what lets fuel decide first is taken, with a
/// warning that names the floor; a larger `--fuel` raises the default
/// backstop with it (`arena games` shows the defaults).
#[test]
fn a_timeout_under_the_fuel_floor_is_warned_about() {
    let out = arena(&aggressive_vs_random(&[
        "--games",
        "2",
        "--timeout",
        "1",
        "--fuel",
        "4000000000",
    ]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: --timeout 1 s is less than the 11 s after which fuel decides first"),
        "{stderr}"
    );
    let out = arena(&aggressive_vs_random(&[
        "--games",
        "2",
        "--fuel",
        "4000000000",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        v["limits"]["timeout"], 11.0,
        "4.2G in one call at 0.65 ns a unit, four times over"
    );
}

/// A newcomer's first mistake, a missing argument, names the argument and
/// the help of the command typed, in one line.
#[test]
fn a_missing_argument_is_named_with_the_commands_own_help() {
    assert_one_line_error(
        &["new", "--lang", "python", "x"],
        "the following required arguments were not provided: --game <GAME> (see `arena new --help`)",
    );
    assert_one_line_error(
        &["check"],
        "the following required arguments were not provided: <BOT.wasm> (see `arena check --help`)",
    );
    assert_one_line_error(
        &["match", "--gmae", "x"],
        "unexpected argument '--gmae' found (see `arena match --help`)",
    );
    assert_one_line_error(&["frob"], "unrecognized subcommand 'frob' (see `arena --help`)");
}

/// Every file of a folder, by its path inside it, with its bytes.
fn tree(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(root: &std::path::Path, dir: &std::path::Path, out: &mut std::collections::BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).expect("a folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path.strip_prefix(root).expect("inside").display().to_string();
                out.insert(rel, std::fs::read(&path).expect("readable"));
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// `arena new` is the library's `scaffold::create` plus printing: the same
/// files, byte for byte, and the same next steps, for every game and language.
#[test]
fn the_new_project_library_call_writes_what_the_command_writes() {
    use arena::scaffold::{Lang, create};
    for game in arena::adapters::GAMES {
        for (lang, flag) in [
            (Lang::Rust, "rust"),
            (Lang::Python, "python"),
            (Lang::Js, "js"),
            (Lang::C, "c"),
        ] {
            let base = temp(&format!("new-lib-{}-{flag}", game.name()));
            // The same folder name: a project's package is named after its folder.
            let by_lib = base.join("lib").join("my-bot");
            let by_cli = base.join("cli").join("my-bot");
            let project = create(game.name(), lang, &by_lib).expect("created");
            let out = arena(&[
                "new",
                "--game",
                game.name(),
                "--lang",
                flag,
                by_cli.to_str().expect("utf-8"),
            ]);
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let lib_files = tree(&by_lib);
            assert!(lib_files.contains_key("build.sh") && lib_files.contains_key("README.md"));
            assert_eq!(lib_files, tree(&by_cli), "{} {flag}", game.name());
            let printed = String::from_utf8_lossy(&out.stdout).replace(by_cli.to_str().expect("utf-8"), "DIR");
            assert_eq!(printed, project.text().replace(by_lib.to_str().expect("utf-8"), "DIR"));
            assert!(
                printed.contains(&format!("arena check --game {} DIR/bot.wasm", game.name())),
                "{printed}"
            );
        }
    }
}
