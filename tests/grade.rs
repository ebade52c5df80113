//! Grading end to end through the binary: one submission, a class, rubrics and Gradescope.

use arena_tests::{arena, arena_json, bot, bot_arg, html_escape, html_links, replay_index, temp};
use serde_json::Value;

#[test]
fn a_good_bot_earns_the_points_and_the_report_records_how_to_reproduce_it() {
    let dir = temp("one");
    let gs = dir.join("results.json");
    let agg = bot_arg("en-garde/aggressive");
    let args = [
        "grade",
        "--game",
        "en-garde",
        &agg,
        "--games",
        "100",
        "--json",
        "--gradescope",
        gs.to_str().unwrap(),
    ];
    let v = arena_json(&args);
    assert_eq!(v["status"], "graded");
    assert_eq!(v["seed"], 2026);
    assert_eq!(v["games"], 100);
    let defaults = arena::adapters::game("en-garde").unwrap().default_limits();
    assert_eq!(v["limits"]["fuel"], defaults.fuel);
    assert_eq!(v["limits"]["bank"], defaults.bank);
    assert!(v["arena_version"].is_string() && v["wasmtime_version"] == "48");
    let sha = arena::grade::sha256_of(&bot("en-garde/aggressive")).unwrap();
    assert_eq!(v["sha256"], sha);
    let items = v["items"].as_array().unwrap();
    assert_eq!(
        items[0]["points"], 10.0,
        "aggressive beats random in well over 75% of deals"
    );
    assert_eq!(items[1]["points"], 10.0);
    assert_eq!(
        items[3]["status"], "pending",
        "the class ranking needs grade-class --tournament"
    );
    for item in &items[..3] {
        let ci = item["ci95"].as_array().unwrap();
        assert!(ci[0].as_f64() <= item["value"].as_f64() && item["value"].as_f64() <= ci[1].as_f64());
    }
    // The same submission, rubric and seed: the same grade, whatever the thread count.
    let again: Value = serde_json::from_slice(&arena(&[&args[..], &["--jobs", "1"]].concat()).stdout).unwrap();
    assert_eq!(v, again);
    let g: Value = serde_json::from_str(&std::fs::read_to_string(&gs).unwrap()).unwrap();
    assert_eq!(g["score"], v["total"]);
    assert_eq!(g["max_score"], v["max_total"]);
    assert!(g["output"].as_str().unwrap().contains(&sha));
    for t in g["tests"].as_array().unwrap() {
        for key in ["name", "score", "max_score", "output", "visibility"] {
            assert!(t.get(key).is_some(), "tests[].{key}");
        }
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_weak_bot_loses_points_and_close_calls_are_flagged() {
    let out = arena(&[
        "grade",
        "--game",
        "en-garde",
        &bot_arg("en-garde/random"),
        "--games",
        "40",
        "--json",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let items = v["items"].as_array().unwrap();
    assert_eq!(items[2]["points"], 0.0, "random does not beat aggressive");
    assert!(v["total"].as_f64().unwrap() < v["max_total"].as_f64().unwrap());
    // random against house:random is a mirror of luck: 50% exactly, not a noisy call.
    assert!(items[0]["note"].as_str().unwrap().contains("over 40 games"));
}

#[test]
fn a_broken_or_hostile_submission_gets_zero_with_the_reason() {
    for (file, reason) in [
        ("hostile/infinite-loop", "smoke game was forfeited (fuel"),
        ("hostile/wrong-world", "a component for another world"),
    ] {
        let v = arena_json(&[
            "grade",
            "--game",
            "en-garde",
            &bot_arg(file),
            "--fuel",
            "5000000",
            "--json",
        ]);
        assert_eq!(v["status"], "rejected");
        assert_eq!(v["total"], 0.0);
        assert!(v["reason"].as_str().unwrap().contains(reason), "{}", v["reason"]);
    }
}

#[test]
fn a_class_is_graded_fairly_with_a_gradebook_and_reports_per_student() {
    let class = temp("class");
    let out_dir = temp("class-out");
    std::fs::copy(bot("en-garde/aggressive"), class.join("alice.wasm")).unwrap();
    std::fs::copy(bot("en-garde/random"), class.join("bob.wasm")).unwrap();
    std::fs::copy(bot("en-garde/cowardly"), class.join("carol.wasm")).unwrap();
    std::fs::copy(bot("hostile/memory-bomb"), class.join("mallory.wasm")).unwrap();
    std::fs::write(class.join("dave.wasm"), "not wasm at all").unwrap();
    std::fs::write(class.join("notes.txt"), "skip me").unwrap();
    let (c, o) = (class.display().to_string(), out_dir.display().to_string());
    let out = arena(&[
        "grade-class",
        "--game",
        "en-garde",
        &c,
        "--out",
        &o,
        "--games",
        "40",
        "--tournament",
        "round-robin",
        "--tournament-games",
        "4",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("skipped")
            && String::from_utf8_lossy(&out.stderr).contains("notes.txt")
    );
    let book = std::fs::read_to_string(out_dir.join("gradebook.csv")).unwrap();
    let rows: Vec<&str> = book.lines().collect();
    assert_eq!(rows.len(), 1 + 5, "a header and one row per .wasm:\n{book}");
    assert!(rows[0].starts_with("student,sha256,same_file_as,Beats house:random,"));
    let row = |name: &str| {
        rows.iter()
            .find(|r| r.starts_with(&format!("{name},")))
            .copied()
            .unwrap()
    };
    assert!(row("mallory").contains(",0,40,") && row("mallory").contains("memory"));
    assert!(row("dave").contains(",0,40,") && row("dave").contains("not a WebAssembly file"));
    // A broken classmate changes nothing: alice's items equal her own grade (the ranking aside).
    let alone: Value = serde_json::from_slice(
        &arena(&[
            "grade",
            "--game",
            "en-garde",
            &bot_arg("en-garde/aggressive"),
            "--games",
            "40",
            "--json",
        ])
        .stdout,
    )
    .unwrap();
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("alice/report.json")).unwrap()).unwrap();
    for i in 0..3 {
        assert_eq!(report["items"][i], alone["items"][i]);
    }
    assert_eq!(report["items"][3]["status"], "graded", "the class ranking was graded");
    assert_eq!(report["items"][3]["points"], 10.0, "alice wins the class tournament");
    for student in ["alice", "bob", "carol", "mallory", "dave"] {
        let gs: Value =
            serde_json::from_str(&std::fs::read_to_string(out_dir.join(student).join("results.json")).unwrap())
                .unwrap();
        assert!(gs["score"].is_number() && gs["tests"].is_array(), "{student}");
    }
    // index.html: the gradebook, each student's items, the rejected with
    // their reasons, links that resolve, and nothing loaded from elsewhere.
    let html = std::fs::read_to_string(out_dir.join("index.html")).unwrap();
    for bad in ["http://", "https://", "src=", "<link"] {
        assert!(!html.contains(bad), "index.html holds `{bad}`");
    }
    for student in ["alice", "bob", "carol", "mallory", "dave"] {
        let r: Value =
            serde_json::from_str(&std::fs::read_to_string(out_dir.join(student).join("report.json")).unwrap()).unwrap();
        // As the text report and gradebook.csv print them: 40, 7.5.
        let (total, max) = (r["total"].as_f64().unwrap(), r["max_total"].as_f64().unwrap());
        assert!(
            html.contains(&format!(
                ">{student}</a></td><td class=\"num\"><b>{total}</b> / {max}</td>"
            )),
            "{student}: {} / {}",
            r["total"],
            r["max_total"]
        );
        let section = &html[html.find(&format!("id=\"student-{student}\"")).unwrap()..];
        let section = &section[..section.find("</table>").unwrap()];
        for item in r["items"].as_array().unwrap() {
            let name = html_escape(item["name"].as_str().unwrap());
            let note = html_escape(item["note"].as_str().unwrap());
            assert!(section.contains(&name) && section.contains(&note), "{student}: {item}");
        }
        if let Some(reason) = r["reason"].as_str() {
            assert!(html.contains(&html_escape(reason)), "{student}: {reason}");
        }
    }
    let mut pages = Vec::new();
    for href in html_links(&html) {
        let path = out_dir.join(&href);
        assert!(path.is_file(), "index.html links {href}, which does not exist");
        if href.starts_with("replays/") && !pages.contains(&href) {
            pages.push(href);
        }
    }
    // Every graded student has a replay per item played; the tournament a page per match.
    for student in ["alice", "bob", "carol"] {
        for item in 1..=3 {
            assert!(
                pages.contains(&format!("replays/{student}-item{item}.html")),
                "{student} item {item}"
            );
        }
    }
    assert!(pages.iter().any(|p| p.starts_with("replays/tournament-")));
    // mallory's forfeit (of the smoke game) is linked, and its page says so.
    let smoke = replay_index(&out_dir.join("replays/mallory-smoke-game.html"));
    let game = &smoke["games"][0];
    assert_eq!(game["forfeit"]["reason"], "memory", "{smoke}");
    assert_eq!(
        game["names"][game["forfeit"]["seat"].as_u64().unwrap() as usize],
        "mallory"
    );
    assert!(
        smoke["note"].as_str().unwrap().contains("forfeit of mallory (memory"),
        "{smoke}"
    );
    assert!(pages.contains(&"replays/mallory-smoke-game.html".to_string()));
    // bob's worst game of an item is the game that was graded: a loss.
    let worst = replay_index(&out_dir.join("replays/bob-item3.html"));
    assert!(
        worst["games"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| !g["winner"].is_null())
    );
    let replay = std::fs::read_to_string(out_dir.join("bob/worst-game.jsonl")).unwrap();
    let events: Vec<Value> = replay.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(events[0]["type"], "match");
    let result = events.iter().find(|e| e["type"] == "result").unwrap();
    assert!(!result["winner"].is_null(), "bob's worst game is a loss");
    std::fs::remove_dir_all(class).ok();
    std::fs::remove_dir_all(out_dir).ok();
}

#[test]
fn rubric_errors_name_the_file_and_line() {
    let dir = temp("rubric");
    let cases = [
        ("game = \"en-garde\"\n[[item]\n", "line 2"),
        (
            "game = \"en-garde\"\n\n[[item]]\nname = \"x\"\nmeasure = \"winrate\"\nthresholds = [{ at = 0.5, points = 1 }]\n",
            "line 5: unknown measure `winrate`",
        ),
        (
            "game = \"en-garde\"\n[[item]]\nname = \"x\"\nmeasure = \"win-rate\"\nagainst = [\"house:zorro\"]\nthresholds = [{ at = 0.5, points = 1 }]\n",
            "line 5: unknown bot `house:zorro`",
        ),
        // A win rate meant as a percentage can never be reached: refused, with the fix.
        (
            "game = \"en-garde\"\n[[item]]\nname = \"x\"\nmeasure = \"win-rate\"\nagainst = [\"house:random\"]\nthresholds = [{ at = 60, points = 1 }]\n",
            "line 6: `at 60` can never be reached: a win rate is a share from 0 to 1 (60% is 0.6)",
        ),
        (
            "game = \"en-garde\"\n[[item]]\nname = \"x\"\nmeasure = \"win-rate\"\nagainst = [\"house:random\"]\nthresholds = [{ above = 1.0, points = 1 }]\n",
            "line 6: `above 1` can never be reached",
        ),
        (
            "game = \"en-garde\"\n[[item]]\nname = \"x\"\nmeasure = \"win-rate\"\nagainst = [\"house:random\"]\nthresholds = [{ below = 0.5, points = 1 }]\n",
            "line 6: `win-rate` is better when higher: write `above = X`",
        ),
        (
            "game = \"en-garde\"\n[[item]]\nname = \"x\"\nmeasure = \"win-rate\"\nagainst = [\"house:random\"]\nthresholds = [{ at = 0.5, above = 0.5, points = 1 }]\n",
            "line 6: each threshold has exactly one of `at = X`",
        ),
    ];
    for (i, (text, expect)) in cases.iter().enumerate() {
        let file = dir.join(format!("r{i}.toml"));
        std::fs::write(&file, text).unwrap();
        let out = arena(&[
            "grade",
            "--game",
            "en-garde",
            &bot_arg("en-garde/aggressive"),
            "--rubric",
            file.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(&format!("r{i}.toml")) && err.contains(expect), "{err}");
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_rubric_can_make_illegal_moves_forfeit_and_the_command_line_overrides_it() {
    let dir = temp("illegal-rubric");
    let rubric = dir.join("strict.toml");
    let text = include_str!("../host/arena/src/adapters/en_garde/rubric.toml").replacen(
        "games = 200",
        "games = 20\nillegal = \"forfeit\"",
        1,
    );
    std::fs::write(&rubric, text).unwrap();
    let grade = |extra: &[&str]| {
        let mut args = vec![
            "grade".to_string(),
            "--game".into(),
            "en-garde".into(),
            bot_arg("hostile/illegal"),
            "--rubric".into(),
            rubric.display().to_string(),
            "--json".into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        arena_json(&args)
    };
    // Under the rubric's rule the always-illegal mover forfeits its smoke game.
    let strict = grade(&[]);
    assert_eq!(strict["status"], "rejected");
    assert_eq!(strict["illegal"], "forfeit");
    assert!(
        strict["reason"].as_str().unwrap().contains("illegal-move"),
        "{}",
        strict["reason"]
    );
    // `--illegal course` wins: rounds are lost, the game is played and graded.
    let course = grade(&["--illegal", "course"]);
    assert_eq!(course["status"], "graded");
    assert_eq!(course["illegal"], "course");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_copy_of_a_house_bot_ties_it_and_earns_nothing_for_beating_it() {
    // The case: a byte-identical copy of house:aggressive scored 50.0%
    // (CI 50.0% to 50.0%) and got 10/10 for "Beats house:aggressive".
    let v: Value = serde_json::from_slice(
        &arena(&[
            "grade",
            "--game",
            "en-garde",
            &bot_arg("en-garde/aggressive"),
            "--games",
            "100",
            "--json",
        ])
        .stdout,
    )
    .unwrap();
    let item = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "Beats house:aggressive")
        .unwrap();
    assert_eq!(item["value"], 0.5);
    assert_eq!(item["points"], 0.0, "a tie is not a win: {item}");
    let note = item["note"].as_str().unwrap();
    assert!(
        note.starts_with("a tie: 50.0%") && note.contains("must be beaten"),
        "{note}"
    );
    let (lo, hi) = (item["ci95"][0].as_f64().unwrap(), item["ci95"][1].as_f64().unwrap());
    assert!(
        lo < 0.45 && hi > 0.55,
        "a Wilson interval keeps its width at a tie: {lo} {hi}"
    );
    assert!(note.contains("too close to call"), "{note}");
    // Beating the weaker house bots still earns their points, with an interval below 100%.
    let random = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "Beats house:random")
        .unwrap();
    assert_eq!(random["points"], 10.0);
    let cowardly = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "Beats house:cowardly")
        .unwrap();
    if cowardly["value"] == 1.0 {
        assert!(
            cowardly["ci95"][0].as_f64().unwrap() < 1.0,
            "no zero-width interval at 100%"
        );
    }
}
