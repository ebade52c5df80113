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
    // The spec has no top-level maximum: it is kept in `extra_data` (tests/gradescope.rs checks the rest).
    assert_eq!(g["extra_data"]["max_score"], v["max_total"]);
    assert!(g["output"].as_str().unwrap().contains(&sha));
    for t in g["tests"].as_array().unwrap() {
        for key in ["name", "score", "max_score", "status", "number", "output"] {
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
        (
            "hostile/wrong-world",
            "not an arena bot (it exports no game's functions)",
        ),
        // The rubric's game is not the student's to change: no `--game` advice.
        (
            "connect-fwar/basic",
            "basic.wasm: a bot for ConnectFwar, not En Garde; this assignment plays En Garde: build the bot for it",
        ),
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
    let page = std::fs::read_to_string(out_dir.join("index.html")).unwrap();
    assert_eq!(
        page.matches("plays like house:aggressive").count(),
        1,
        "ann's row, not bo's"
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
    let text = include_str!("../host/runner/src/adapters/en_garde/rubric.toml").replacen(
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
    // A copy splits every deal: more games would only repeat that.
    assert!(
        note.contains("every deal was split evenly, as a bot that plays exactly like its opponent always does"),
        "{note}"
    );
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

#[test]
fn a_class_rank_within_noise_says_why_it_differs_from_the_standings() {
    let dir = temp("rank-noise");
    let class = dir.join("class");
    std::fs::create_dir(&class).unwrap();
    for (student, file) in [
        ("ann", "en-garde/aggressive"),
        ("bo", "en-garde/cowardly"),
        ("cy", "en-garde/random"),
        ("dee", "en-garde/random"),
    ] {
        std::fs::copy(bot(file), class.join(format!("{student}.wasm"))).unwrap();
    }
    let grade = |class: &std::path::Path, out: &std::path::Path| {
        let (c, o) = (class.display().to_string(), out.display().to_string());
        let args = [
            "grade-class",
            "--game",
            "en-garde",
            &c,
            "--out",
            &o,
            "--games",
            "10",
            "--tournament",
            "round-robin",
            "--tournament-games",
            "4",
        ];
        let run = arena(&args);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        String::from_utf8_lossy(&run.stderr).into_owned()
    };
    // Four games a match: bo loses them all and is last in the standings,
    // but only ann's whole interval lies above his.
    let out = dir.join("out");
    grade(&class, &out);
    let table = std::fs::read_to_string(out.join("tournament.txt")).unwrap();
    assert!(table.lines().any(|l| l.trim_start().starts_with("4  bo ")), "{table}");
    // The table says why bo's place and the rank that earns his points differ.
    assert!(
        table.contains("  bo: 4th in the standings, ranked 2nd for points (only 1 bot is clearly ahead of it)"),
        "{table}"
    );
    let bo: Value = serde_json::from_slice(&std::fs::read(out.join("bo/report.json")).unwrap()).unwrap();
    let ranking = bo["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["measure"] == "class-percentile")
        .unwrap();
    let note = ranking["note"].as_str().unwrap();
    assert!(
        note.starts_with("ranked 2 of 4 in the class tournament (percentile 67%); 4th in the standings, but only 1 bot is clearly ahead of it"),
        "{note}"
    );
    // One bot that passes the checks is no tournament: said, and the ranking stays pending.
    let alone = dir.join("alone");
    std::fs::create_dir(&alone).unwrap();
    std::fs::copy(bot("en-garde/aggressive"), alone.join("ann.wasm")).unwrap();
    std::fs::write(alone.join("bo.wasm"), "not a bot").unwrap();
    let stderr = grade(&alone, &dir.join("alone-out"));
    assert!(
        stderr.contains("no class tournament: 1 submission passed the checks, and a tournament needs two"),
        "{stderr}"
    );
    std::fs::remove_dir_all(dir).ok();
}

/// Processes that keep the CPUs busy for as long as this lives: killed and
/// reaped on drop, so a failing assertion does not leave them spinning.
struct CpuLoad(Vec<std::process::Child>);

impl CpuLoad {
    fn start(processes: usize) -> CpuLoad {
        CpuLoad(
            (0..processes)
                .map(|_| {
                    std::process::Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .stdin(std::process::Stdio::null())
                        .stdout(std::process::Stdio::null())
                        .spawn()
                        .expect("start a busy loop")
                })
                .collect(),
        )
    }

    fn all_running(&mut self) -> bool {
        self.0.iter_mut().all(|child| matches!(child.try_wait(), Ok(None)))
    }
}

impl Drop for CpuLoad {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Every file under `dir`, relative to it, sorted.
fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                files.push(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    files.sort();
    files
}

/// The first place two JSON values differ, as a path such as `/items/0/points`.
fn json_difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (key, value) in x {
                match y.get(key) {
                    Some(other) => {
                        if let Some(d) = json_difference(value, other, &format!("{at}/{key}")) {
                            return Some(d);
                        }
                    }
                    None => return Some(format!("{at}/{key}: only in the first run")),
                }
            }
            y.keys()
                .find(|key| !x.contains_key(*key))
                .map(|key| format!("{at}/{key}: only in the second run"))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| json_difference(p, q, &format!("{at}/{i}"))),
        _ if a == b => None,
        _ => Some(format!("{at}: {a} vs {b}")),
    }
}

/// The fields of one CSV line (quoted fields may hold commas and `""`).
fn csv_fields(line: &str) -> Vec<String> {
    let (mut fields, mut field, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    fields.push(field);
    fields
}

/// Where two runs' copies of the output file `name` first differ, or `None`
/// when they are the same. Gradescope's results.json is compared without its
/// top-level `execution_time` (seconds, which legitimately vary); everything
/// else byte for byte, the difference named by JSON field, CSV row and
/// column, or line and column.
fn output_difference(name: &str, a: &[u8], b: &[u8]) -> Option<String> {
    let results_json = name == "results.json" || name.ends_with("/results.json");
    if results_json {
        let parse = |bytes: &[u8]| {
            let mut v: Value = serde_json::from_slice(bytes).expect("results.json is JSON");
            v.as_object_mut()
                .expect("results.json is an object")
                .remove("execution_time");
            v
        };
        return json_difference(&parse(a), &parse(b), "");
    }
    if a == b {
        return None;
    }
    if name.ends_with(".json")
        && let (Ok(x), Ok(y)) = (serde_json::from_slice::<Value>(a), serde_json::from_slice::<Value>(b))
    {
        return Some(json_difference(&x, &y, "").unwrap_or_else(|| "the same JSON, written differently".into()));
    }
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    let line = a.lines().zip(b.lines()).position(|(x, y)| x != y);
    let Some(line) = line else {
        return Some(format!(
            "one run has {} lines, the other {}",
            a.lines().count(),
            b.lines().count()
        ));
    };
    let (x, y) = (a.lines().nth(line).unwrap(), b.lines().nth(line).unwrap());
    if name.ends_with(".csv") {
        let header = csv_fields(a.lines().next().unwrap_or(""));
        let (xs, ys) = (csv_fields(x), csv_fields(y));
        let column = (0..xs.len().max(ys.len()))
            .find(|&i| xs.get(i) != ys.get(i))
            .unwrap_or(0);
        return Some(format!(
            "row {} ({}), column `{}`: {:?} vs {:?}",
            line + 1,
            xs.first().map_or("", String::as_str),
            header.get(column).map_or("?", String::as_str),
            xs.get(column),
            ys.get(column)
        ));
    }
    let at = x.chars().zip(y.chars()).take_while(|(p, q)| p == q).count();
    let near = |s: &str| s.chars().skip(at.saturating_sub(40)).take(100).collect::<String>();
    Some(format!(
        "line {}, column {}: …{}… vs …{}…",
        line + 1,
        at + 1,
        near(x),
        near(y)
    ))
}

#[test]
fn grades_are_identical_across_runs_jobs_and_cpu_load() {
    // Whoever a bot is, the grade is the same on every run. Fuel decides,
    // not the clock, so neither --jobs nor other processes competing for
    // the CPUs may change a byte of what a teacher gets.

    // The comparison lets Gradescope's execution_time vary, and nothing else
    // (report.json, index.html and the replays hold no timing).
    let timed = |secs: &str| format!("{{\"score\": 5.0, \"execution_time\": {secs}}}").into_bytes();
    assert_eq!(
        output_difference("bob/results.json", &timed("1.5"), &timed("2.25")),
        None
    );
    let book = |total: &str| format!("student,total,status\nbob,{total},\"graded, late\"\n").into_bytes();
    assert_eq!(
        output_difference("gradebook.csv", &book("5"), &book("6")).as_deref(),
        Some("row 2 (bob), column `total`: Some(\"5\") vs Some(\"6\")")
    );
    let dir = temp("same-grade");
    let class = dir.join("class");
    std::fs::create_dir(&class).unwrap();
    // A bot that wins, one that loses, one that overdraws its per-move fuel
    // every move and forfeits the longer games when its bank runs dry, and
    // one whose smoke game runs out of fuel.
    for (student, file) in [
        ("alice", "en-garde/aggressive"),
        ("bob", "en-garde/random"),
        ("carol", "hostile/fuel-burner"),
        ("mallory", "hostile/infinite-loop"),
    ] {
        std::fs::copy(bot(file), class.join(format!("{student}.wasm"))).unwrap();
    }
    // A small per-move budget and a bank that pays carol's overdrafts for some games, not all.
    let limits = [
        "--game", "en-garde", "--games", "20", "--fuel", "2000000", "--bank", "50000000",
    ];
    let mut load = CpuLoad::start(2);

    let mut class_runs = Vec::new();
    for (run, jobs) in [("j1-a", "1"), ("j2-a", "2"), ("j1-b", "1"), ("j2-b", "2")] {
        let out_dir = dir.join(format!("out-{run}"));
        let (c, o) = (class.display().to_string(), out_dir.display().to_string());
        let rest = [
            "--out",
            &o,
            "--tournament",
            "round-robin",
            "--tournament-games",
            "4",
            "--jobs",
            jobs,
        ];
        let out = arena(&[&["grade-class", &c][..], &limits, &rest].concat());
        assert!(out.status.success(), "{run}: {}", String::from_utf8_lossy(&out.stderr));
        // What it prints, the output folder aside.
        let printed = String::from_utf8_lossy(&out.stdout).replace(&o, "OUT");
        class_runs.push((run, out_dir, printed));
    }
    let mut single_runs = Vec::new();
    for (run, jobs) in [("grade-j1", "1"), ("grade-j2", "2")] {
        let gs = dir.join(format!("{run}-results.json"));
        let carol = class.join("carol.wasm").display().to_string();
        let rest = ["--json", "--gradescope", gs.to_str().unwrap(), "--jobs", jobs];
        let out = arena(&[&["grade", &carol][..], &limits, &rest].concat());
        assert!(out.status.success(), "{run}: {}", String::from_utf8_lossy(&out.stderr));
        single_runs.push((run, out.stdout, std::fs::read(&gs).unwrap()));
    }
    assert!(load.all_running(), "the CPU load ran for every grading run");
    drop(load);

    // The comparison covers what it should: carol forfeits some of her graded
    // games for fuel, mallory's smoke game runs out of fuel.
    let (_, reference, printed) = &class_runs[0];
    let report = |student: &str| -> Value {
        serde_json::from_slice(&std::fs::read(reference.join(student).join("report.json")).unwrap()).unwrap()
    };
    let carol = report("carol");
    assert_eq!(carol["status"], "graded");
    let fuel_forfeits = carol["conduct"]["forfeits"]["fuel"].as_u64().unwrap();
    assert!(
        fuel_forfeits > 0 && fuel_forfeits < carol["conduct"]["games"].as_u64().unwrap(),
        "carol forfeits some games for fuel, not all: {}",
        carol["conduct"]
    );
    let mallory = report("mallory");
    assert_eq!(mallory["status"], "rejected");
    assert!(
        mallory["reason"].as_str().unwrap().contains("fuel"),
        "{}",
        mallory["reason"]
    );

    let files = files_under(reference);
    for name in ["gradebook.csv", "index.html", "alice/report.json", "carol/results.json"] {
        assert!(
            files.iter().any(|f| f.as_path() == std::path::Path::new(name)),
            "{name}"
        );
    }
    for (run, out_dir, other_printed) in &class_runs[1..] {
        assert_eq!(
            files,
            files_under(out_dir),
            "{run}: the same files as {}",
            class_runs[0].0
        );
        for file in &files {
            let name = file.to_string_lossy().replace('\\', "/");
            let (a, b) = (
                std::fs::read(reference.join(file)).unwrap(),
                std::fs::read(out_dir.join(file)).unwrap(),
            );
            if let Some(difference) = output_difference(&name, &a, &b) {
                panic!("{run} differs from {} in {name}: {difference}", class_runs[0].0);
            }
        }
        assert_eq!(printed, other_printed, "{run}: what grade-class prints");
    }
    let (first, stdout, results) = &single_runs[0];
    for (run, other_stdout, other_results) in &single_runs[1..] {
        if let Some(difference) = output_difference("report.json", stdout, other_stdout) {
            panic!("{run} differs from {first} in `grade --json`: {difference}");
        }
        if let Some(difference) = output_difference("results.json", results, other_results) {
            panic!("{run} differs from {first} in results.json: {difference}");
        }
    }
    std::fs::remove_dir_all(dir).ok();
}

/// A submission that plays exactly like a house bot (an unchanged template,
/// a twin in another language) is flagged as such, in the report, the text
/// and the gradebook; one that plays otherwise is not.
#[test]
fn a_submission_that_plays_like_a_house_bot_is_flagged() {
    let grade = |bot: &str| -> Value {
        serde_json::from_slice(
            &arena(&["grade", "--game", "en-garde", &bot_arg(bot), "--games", "20", "--json"]).stdout,
        )
        .unwrap()
    };
    // A twin in another language plays like its house bot too.
    let python = arena_tests::lang_bot("en-garde/aggressive-py").display().to_string();
    let v: Value =
        serde_json::from_slice(&arena(&["grade", "--game", "en-garde", &python, "--games", "20", "--json"]).stdout)
            .unwrap();
    assert_eq!(v["plays_like"], "house:aggressive");
    assert_eq!(grade("en-garde/cowardly")["plays_like"], "house:cowardly");
    assert!(grade("hostile/illegal").get("plays_like").is_none());
    let class = arena_tests::temp("plays-like");
    std::fs::copy(arena_tests::bot("en-garde/aggressive"), class.join("ann.wasm")).unwrap();
    std::fs::copy(arena_tests::bot("hostile/illegal"), class.join("bo.wasm")).unwrap();
    let out_dir = class.join("out");
    let out = arena(&[
        "grade-class",
        "--game",
        "en-garde",
        &class.display().to_string(),
        "--out",
        &out_dir.display().to_string(),
        "--games",
        "10",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("note: ann plays like house:aggressive: every game of every item ended exactly as"),
        "{stderr}"
    );
    let page = std::fs::read_to_string(out_dir.join("index.html")).unwrap();
    assert_eq!(
        page.matches("plays like house:aggressive").count(),
        1,
        "ann's row, not bo's"
    );
    let book = std::fs::read_to_string(out_dir.join("gradebook.csv")).unwrap();
    let mut lines = book.lines();
    assert!(lines.next().unwrap().ends_with(",plays_like"));
    for row in lines {
        let flagged = row.ends_with(",house:aggressive");
        assert_eq!(flagged, row.starts_with("ann,"), "{row}");
    }
}

/// `--print-rubric` prints the game's default rubric, which grades exactly
/// like no rubric at all when given back with `--rubric`.
#[test]
fn the_default_rubric_is_printed_and_grades_as_the_default() {
    let out = arena(&["grade", "--game", "sugar", "--print-rubric"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("game = \"sugar\"") && text.contains("[[item]]"), "{text}");
    let file = arena_tests::temp("printed-rubric").join("rubric.toml");
    std::fs::write(&file, &text).unwrap();
    let grade = |extra: &[&str]| -> Value {
        let bot = bot_arg("sugar/greedy");
        let mut args = vec!["grade", "--game", "sugar", bot.as_str(), "--games", "4", "--json"];
        args.extend(extra);
        serde_json::from_slice(&arena(&args).stdout).unwrap()
    };
    let file = file.display().to_string();
    assert_eq!(grade(&[])["items"], grade(&["--rubric", &file])["items"]);
}

/// A mean position lies between 1 and the table's size, and so does its
/// interval, however few deals it rests on.
#[test]
fn a_mean_positions_interval_stays_within_the_table() {
    let bot = bot_arg("president/lowest");
    let out = arena(&["grade", "--game", "president", &bot, "--games", "48", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let mut seen = 0;
    for item in report["items"].as_array().expect("items") {
        if item["measure"] != "mean-position" {
            continue;
        }
        let seats = 1.0 + item["against"].as_array().expect("against").len() as f64;
        let ci = item["ci95"].as_array().expect("an interval");
        let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
        assert!(1.0 <= lo && lo <= hi && hi <= seats, "{item}");
        seen += 1;
    }
    assert!(seen > 0, "{report}");
}

/// The library call behind `arena grade-class`, as a course server makes
/// it (no process): the same gradebook, byte for byte, as the command's.
#[test]
fn the_class_library_call_writes_the_gradebook_the_command_writes() {
    use arena::class::{ClassJob, grade_class};
    let class = temp("class-lib");
    std::fs::copy(bot("en-garde/aggressive"), class.join("ann.wasm")).unwrap();
    std::fs::copy(bot("en-garde/random"), class.join("bob.wasm")).unwrap();
    std::fs::write(class.join("cy.wasm"), "not a bot").unwrap();
    let game = arena::adapters::game("en-garde").unwrap();
    let rubric = arena::grade::rubric::parse(game.default_rubric(), "default", game).unwrap();
    let sandbox = arena::adapters::sandbox(game.default_limits()).unwrap();
    let read = arena::grade::submissions::find(&class).unwrap();
    let out = temp("class-lib-out");
    let job = ClassJob {
        game,
        rubric: &rubric,
        rubric_name: "the default rubric of en-garde".into(),
        class: &read,
        sandbox: &sandbox,
        games: 20,
        tournament: None,
        tournament_games: 10,
        out: &out,
        export_for: Vec::new(),
        assignment: "Bot grade".into(),
        progress: false,
    };
    let outcome = grade_class(&job).expect("graded");
    let names: Vec<&str> = outcome.reports.iter().map(|r| r.student.as_str()).collect();
    assert_eq!(names, ["ann", "bob", "cy"]);
    assert_eq!(outcome.reports[2].status, "rejected");
    assert!(
        outcome.notes.iter().any(|n| n.contains("index.html")),
        "{:?}",
        outcome.notes
    );
    let cli_out = temp("class-cli-out");
    let run = arena(&[
        "grade-class",
        "--game",
        "en-garde",
        &class.display().to_string(),
        "--out",
        &cli_out.display().to_string(),
        "--games",
        "20",
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let library = std::fs::read_to_string(out.join("gradebook.csv")).unwrap();
    let command = std::fs::read_to_string(cli_out.join("gradebook.csv")).unwrap();
    assert_eq!(library, command);
}

/// Issue 47 item 10: one submission's grading is bounded by fuel. A bot
/// that spends more than its per-move allowance on every move (the
/// fuel-burner, 1.5 times it, from a bank large enough never to forfeit)
/// under a rubric whose `grading_minutes` allows 8.82G fuel stops at the
/// same game whatever the threads, rejected in one line that says what
/// happened and what to do, with the numbers in `over_budget`.
#[test]
fn a_grading_past_its_fuel_budget_stops_at_the_same_game_and_says_what_to_do() {
    let dir = temp("grading-budget");
    let rubric = dir.join("rubric.toml");
    std::fs::write(
        &rubric,
        "game = \"en-garde\"\ngrading_minutes = 0.01\ngames = 200\n\n\
         [[item]]\nname = \"Beats house:random\"\nmeasure = \"win-rate\"\nagainst = [\"house:random\"]\n\
         thresholds = [{ above = 0.5, points = 10 }]\n\n\
         [[item]]\nname = \"Beats house:aggressive\"\nmeasure = \"win-rate\"\nagainst = [\"house:aggressive\"]\n\
         thresholds = [{ above = 0.5, points = 10 }]\n",
    )
    .unwrap();
    let burner = bot_arg("hostile/fuel-burner");
    let rubric = rubric.display().to_string();
    let grade = |jobs: &str, json: bool| {
        let mut args = vec![
            "grade",
            "--game",
            "en-garde",
            &burner,
            "--rubric",
            &rubric,
            "--fuel",
            "10000000",
            "--bank",
            "10000000000",
            "--jobs",
            jobs,
        ];
        if json {
            args.push("--json");
        }
        let out = arena(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let one: Value = serde_json::from_str(&grade("1", true)).unwrap();
    let two: Value = serde_json::from_str(&grade("2", true)).unwrap();
    assert_eq!(one["status"], "rejected", "{one}");
    assert_eq!(one["total"], 0.0);
    let over = &one["over_budget"];
    // 8.82G fuel: 0.01 minutes of the reference machine at 14.7G fuel a second.
    assert_eq!(over["budget"], 8_820_000_000u64, "{over}");
    assert!(over["used"].as_u64().unwrap() > 8_820_000_000, "{over}");
    // The smoke game (2) and 200 games per item, for two items.
    assert_eq!(over["games"], 402, "{over}");
    let played = over["played"].as_u64().unwrap();
    assert!(2 < played && played < 402, "stopped within the first item: {over}");
    // Fuel decides, so the threads do not: the same game, the same fuel.
    assert_eq!(one["over_budget"], two["over_budget"]);
    assert_eq!(one["reason"], two["reason"]);
    let text = grade("2", false);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("rejected:"))
        .expect(&text);
    assert!(
        line.contains(&format!(
            "over the grading budget: grading stopped after {played} of 402 games"
        )) && line.contains("make most moves cheaper")
            && line.contains("upload again"),
        "{text}"
    );
}

/// A rubric's `grading_minutes` must be a positive number of minutes: a
/// zero is refused in one line naming the file and the line.
#[test]
fn a_rubric_with_no_grading_minutes_is_refused_in_one_line() {
    let dir = temp("grading-minutes-zero");
    let rubric = dir.join("rubric.toml");
    std::fs::write(
        &rubric,
        "game = \"en-garde\"\ngrading_minutes = 0\n\n[[item]]\nname = \"Beats house:random\"\n\
         measure = \"win-rate\"\nagainst = [\"house:random\"]\nthresholds = [{ above = 0.5, points = 10 }]\n",
    )
    .unwrap();
    let agg = bot_arg("en-garde/aggressive");
    let out = arena(&[
        "grade",
        "--game",
        "en-garde",
        &agg,
        "--rubric",
        rubric.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("rubric.toml line 2: `grading_minutes = 0` must be more than 0"),
        "{err}"
    );
}
