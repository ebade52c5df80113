//! Gradescope's results.json checked against the autograder spec's fields,
//! allowed values and types, and the autograder scripts in `gradescope/`
//! run as Gradescope runs them.

use arena_tests::{arena, arena_bin, arena_json, assert_one_line_error, bot, bot_arg, root, temp};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// A field's type in the spec.
#[derive(Clone, Copy)]
enum Type {
    Number,
    String,
    Object,
    /// An output format: "text", "html", "simple_format", "md", "ansi".
    Format,
    /// "hidden", "after_due_date", "after_published", "visible".
    Visibility,
    /// A test's status: "passed" or "failed".
    Status,
    /// A leaderboard order: "asc" or "desc".
    Order,
    /// A leaderboard value: a number or a string.
    NumberOrString,
    Strings,
    Tests,
    Leaderboard,
}

// The spec's tables, written from
// https://gradescope-autograders.readthedocs.io/en/latest/specs/ ("Output
// format", "Controlling Test Case Visibility", "Test case status", "Output
// String Formatting") and .../leaderboards/, not from the arena's code.
const TOP: &[(&str, Type)] = &[
    ("score", Type::Number),
    ("execution_time", Type::Number),
    ("output", Type::String),
    ("output_format", Type::Format),
    ("test_output_format", Type::Format),
    ("test_name_format", Type::Format),
    ("visibility", Type::Visibility),
    ("stdout_visibility", Type::Visibility),
    ("extra_data", Type::Object),
    ("tests", Type::Tests),
    ("leaderboard", Type::Leaderboard),
];
const TEST: &[(&str, Type)] = &[
    ("score", Type::Number),
    ("max_score", Type::Number),
    ("status", Type::Status),
    ("name", Type::String),
    ("name_format", Type::Format),
    ("number", Type::String),
    ("output", Type::String),
    ("output_format", Type::Format),
    ("tags", Type::Strings),
    ("visibility", Type::Visibility),
    ("extra_data", Type::Object),
];
const LEADERBOARD: &[(&str, Type)] = &[
    ("name", Type::String),
    ("value", Type::NumberOrString),
    ("order", Type::Order),
];
const FORMATS: &[&str] = &["text", "html", "simple_format", "md", "ansi"];
const VISIBILITIES: &[&str] = &["hidden", "after_due_date", "after_published", "visible"];

/// Every field of `v` is one of `fields`, of its type; `at` names `v` in messages.
fn check_fields(v: &Value, fields: &[(&str, Type)], at: &str) {
    let object = v.as_object().unwrap_or_else(|| panic!("{at} is not an object: {v}"));
    for (key, value) in object {
        let Some((_, ty)) = fields.iter().find(|(k, _)| k == key) else {
            panic!("{at}.{key} is no field of the spec");
        };
        check_type(value, *ty, &format!("{at}.{key}"));
    }
}

fn check_type(v: &Value, ty: Type, at: &str) {
    let one_of = |allowed: &[&str]| {
        assert!(
            v.as_str().is_some_and(|s| allowed.contains(&s)),
            "{at} = {v}, not one of {allowed:?}"
        );
    };
    match ty {
        Type::Number => assert!(v.is_number(), "{at} = {v}, not a number"),
        Type::String => assert!(v.is_string(), "{at} = {v}, not a string"),
        Type::Object => assert!(v.is_object(), "{at} = {v}, not an object"),
        Type::Format => one_of(FORMATS),
        Type::Visibility => one_of(VISIBILITIES),
        Type::Status => one_of(&["passed", "failed"]),
        Type::Order => one_of(&["asc", "desc"]),
        Type::NumberOrString => assert!(v.is_number() || v.is_string(), "{at} = {v}"),
        Type::Strings => {
            let list = v.as_array().unwrap_or_else(|| panic!("{at} = {v}, not an array"));
            assert!(list.iter().all(Value::is_string), "{at} = {v}, not strings");
        }
        Type::Tests | Type::Leaderboard => {
            let list = v.as_array().unwrap_or_else(|| panic!("{at} = {v}, not an array"));
            let fields = if matches!(ty, Type::Tests) { TEST } else { LEADERBOARD };
            for (i, entry) in list.iter().enumerate() {
                check_fields(entry, fields, &format!("{at}[{i}]"));
            }
        }
    }
}

/// A results.json as the spec allows it, and as the arena promises: a
/// top-level score that is the sum of the tests' scores, each test with a
/// score and maximum, `passed` exactly when it got its maximum, numbered,
/// and leaderboard values that are numbers.
fn check_results(v: &Value, at: &str) {
    check_fields(v, TOP, at);
    let score = v["score"].as_f64().unwrap_or_else(|| panic!("{at}: no score: {v}"));
    assert!(
        v["execution_time"].is_u64(),
        "{at}: whole seconds: {}",
        v["execution_time"]
    );
    let tests = v["tests"].as_array().unwrap();
    let sum: f64 = tests.iter().map(|t| t["score"].as_f64().unwrap()).sum();
    assert!((score - sum).abs() < 1e-9, "{at}: score {score}, the tests' sum {sum}");
    for t in tests {
        let (s, max) = (t["score"].as_f64().unwrap(), t["max_score"].as_f64().unwrap());
        assert!(0.0 <= s && s <= max, "{at}: {t}");
        let status = if s == max { "passed" } else { "failed" };
        assert_eq!(t["status"], status, "{at}: {t}");
        assert!(t["name"].is_string() && t["number"].is_string(), "{at}: {t}");
    }
    for entry in v["leaderboard"].as_array().into_iter().flatten() {
        assert!(entry["value"].is_number(), "{at}: {entry}");
    }
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()))
}

fn test_names(v: &Value) -> Vec<&str> {
    v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect()
}

/// `arena grade --json --gradescope`: the report and the results.json.
fn grade(dir: &Path, file: &str, extra: &[&str]) -> (Value, Value) {
    let gs = dir.join("results.json");
    let mut args = vec![
        "grade",
        "--game",
        "en-garde",
        file,
        "--json",
        "--gradescope",
        gs.to_str().unwrap(),
    ];
    args.extend(extra);
    let report = arena_json(&args);
    let results = read_json(&gs);
    check_results(&results, file);
    (report, results)
}

#[test]
fn a_good_bots_results_follow_the_spec_and_record_how_to_regrade() {
    let dir = temp("good");
    let (report, v) = grade(&dir, &bot_arg("en-garde/aggressive"), &["--games", "20"]);
    assert_eq!(v["score"], report["total"]);
    // The class ranking is pending: no test, not counted, named in the output.
    assert_eq!(
        test_names(&v),
        ["Beats house:random", "Beats house:cowardly", "Beats house:aggressive"]
    );
    let numbers: Vec<&Value> = v["tests"].as_array().unwrap().iter().map(|t| &t["number"]).collect();
    assert_eq!(numbers, ["1", "2", "3"]);
    for t in v["tests"].as_array().unwrap() {
        assert_eq!(t["tags"], serde_json::json!(["win-rate"]));
        assert!(
            t.get("visibility").is_none(),
            "the default rubric leaves visibility to Gradescope: {t}"
        );
    }
    let output = v["output"].as_str().unwrap();
    assert!(output.contains("Not counted yet: Class ranking"), "{output}");
    assert!(
        output.starts_with(&format!("{} / 30 points.", report["total"].as_f64().unwrap())),
        "{output}"
    );
    // What a regrade needs.
    let extra = &v["extra_data"];
    let sha = arena::grade::sha256_of(&bot("en-garde/aggressive")).unwrap();
    assert_eq!(extra["sha256"], sha);
    assert_eq!(extra["seed"], 2026);
    assert_eq!(extra["games_per_item"], 20);
    assert_eq!(extra["max_score"], 30.0);
    assert_eq!(extra["illegal"], "course");
    assert_eq!(extra["arena_version"], report["arena_version"]);
    assert_eq!(extra["wasmtime_version"], report["wasmtime_version"]);
    assert_eq!(extra["limits"], report["limits"]);
    assert!(v.get("leaderboard").is_none() && v.get("visibility").is_none());
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_rejected_file_gets_zero_and_the_pending_ranking_is_counted_for_nobody() {
    let dir = temp("broken");
    let broken = dir.join("broken.wasm");
    std::fs::write(&broken, "not wasm at all").unwrap();
    let (report, v) = grade(&dir, broken.to_str().unwrap(), &[]);
    assert_eq!(report["status"], "rejected");
    assert_eq!((&v["score"], &report["max_total"]), (&0.0.into(), &30.0.into()));
    let max: f64 = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["max_score"].as_f64().unwrap())
        .sum();
    assert_eq!(max, 30.0, "a graded student's maximum, not 40: {v}");
    assert!(!test_names(&v).contains(&"Class ranking"));
    assert!(
        v["output"].as_str().unwrap().contains("not a WebAssembly file"),
        "{}",
        v["output"]
    );
    // The text report says "pending", never "0 / 10", under the total.
    let out = arena(&["grade", "--game", "en-garde", broken.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().next().unwrap().ends_with("0 / 30 points"), "{text}");
    let rank = text.lines().find(|l| l.contains("Class ranking")).unwrap();
    assert!(rank.trim_start().starts_with("pending Class ranking"), "{text}");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn the_rubric_sets_visibilities_per_item_and_overall_and_a_leaderboard() {
    let dir = temp("visibility");
    let rubric = dir.join("rubric.toml");
    std::fs::write(
        &rubric,
        r#"game = "en-garde"
games = 20

[gradescope]
visibility = "after_due_date"
stdout_visibility = "hidden"

[[gradescope.leaderboard]]
name = "Win rate"
item = "Beats house:cowardly"

[[gradescope.leaderboard]]
name = "Class rating"
from = "class-rating"

[[item]]
name = "Beats house:random"
measure = "win-rate"
against = ["house:random"]
visible = false
thresholds = [{ above = 0.5, points = 10 }]

[[item]]
name = "Beats house:cowardly"
measure = "win-rate"
against = ["house:cowardly"]
visibility = "visible"
thresholds = [{ above = 0.5, points = 10 }]

[[item]]
name = "Beats house:aggressive"
measure = "win-rate"
against = ["house:aggressive"]
visibility = "after_published"
thresholds = [{ above = 0.5, points = 10 }]

[[item]]
name = "Also beats house:random"
measure = "win-rate"
against = ["house:random"]
thresholds = [{ above = 0.5, points = 10 }]
"#,
    )
    .unwrap();
    let (report, v) = grade(
        &dir,
        &bot_arg("en-garde/aggressive"),
        &["--rubric", rubric.to_str().unwrap()],
    );
    assert_eq!(v["visibility"], "after_due_date");
    assert_eq!(v["stdout_visibility"], "hidden");
    let vis: Vec<Option<&str>> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.get("visibility").map(|x| x.as_str().unwrap()))
        .collect();
    // The last item has none of its own: it follows the top level.
    assert_eq!(vis, [Some("hidden"), Some("visible"), Some("after_published"), None]);
    // Hidden results hide the total, in the output too.
    assert!(!v["output"].as_str().unwrap().contains("points"), "{}", v["output"]);
    // No class tournament in `arena grade`: its column is left out. The
    // column shows the one item students see at once.
    let value = &report["items"][1]["value"];
    assert_eq!(
        v["leaderboard"],
        serde_json::json!([{"name": "Win rate", "value": value, "order": "desc"}])
    );
    // A lower-is-better measure sorts its column ascending.
    std::fs::write(
        &rubric,
        r#"game = "president"
games = 8
[[gradescope.leaderboard]]
name = "Mean position"
item = "Position"
[[item]]
name = "Position"
measure = "mean-position"
against = ["house:random", "house:random", "house:random"]
thresholds = [{ below = 2.5, points = 10 }]
"#,
    )
    .unwrap();
    let gs = dir.join("president.json");
    let report = arena_json(&[
        "grade",
        "--game",
        "president",
        &bot_arg("president/lowest"),
        "--rubric",
        rubric.to_str().unwrap(),
        "--json",
        "--gradescope",
        gs.to_str().unwrap(),
    ]);
    let v = read_json(&gs);
    check_results(&v, "president");
    assert_eq!(
        v["leaderboard"],
        serde_json::json!([{"name": "Mean position", "value": report["items"][0]["value"], "order": "asc"}])
    );
    assert_eq!(v["tests"][0]["tags"], serde_json::json!(["mean-position"]));
    std::fs::remove_dir_all(dir).ok();
}

fn grade_class(class: &Path, out: &Path, rubric: &Path, tournament: bool) {
    let mut args = vec![
        "grade-class".to_string(),
        "--game".into(),
        "en-garde".into(),
        class.display().to_string(),
        "--out".into(),
        out.display().to_string(),
        "--rubric".into(),
        rubric.display().to_string(),
        "--games".into(),
        "10".into(),
    ];
    if tournament {
        args.extend(["--tournament", "round-robin", "--tournament-games", "4"].map(String::from));
    }
    let done = arena(&args);
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
}

#[test]
fn grade_class_writes_valid_results_with_the_class_rating_and_counts_the_ranking_only_with_a_tournament() {
    let class = temp("gradescope-class");
    let out = temp("gradescope-class-out");
    std::fs::copy(bot("en-garde/aggressive"), class.join("alice.wasm")).unwrap();
    std::fs::copy(bot("en-garde/random"), class.join("bob.wasm")).unwrap();
    std::fs::copy(bot("en-garde/cowardly"), class.join("carol.wasm")).unwrap();
    std::fs::write(class.join("dave.wasm"), "not wasm at all").unwrap();
    let rubric = class.join("rubric.txt");
    let text = include_str!("../host/runner/src/adapters/en_garde/rubric.toml").to_string()
        + "\n[[gradescope.leaderboard]]\nname = \"Rating\"\nfrom = \"class-rating\"\n\
           [[gradescope.leaderboard]]\nname = \"Percentile\"\nitem = \"Class ranking\"\n";
    std::fs::write(&rubric, text).unwrap();
    grade_class(&class, &out, &rubric, true);
    let mut ratings = Vec::new();
    for student in ["alice", "bob", "carol", "dave"] {
        let v = read_json(&out.join(student).join("results.json"));
        check_results(&v, student);
        let report = read_json(&out.join(student).join("report.json"));
        assert_eq!(v["score"], report["total"], "{student}");
        assert_eq!(
            v["extra_data"]["max_score"], 40.0,
            "{student}: the tournament ran, the ranking counts"
        );
        let rank = v["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "Class ranking")
            .unwrap_or_else(|| panic!("{student}: {v}"));
        assert_eq!(rank["number"], "4");
        if student == "dave" {
            // Rejected: no part in the tournament, 0 of the ranking, no leaderboard values.
            assert_eq!((&rank["score"], &rank["status"]), (&0.0.into(), &"failed".into()));
            assert!(v.get("leaderboard").is_none(), "{v}");
        } else {
            let board = v["leaderboard"].as_array().unwrap();
            assert_eq!(board[0]["name"], "Rating");
            assert_eq!(board[1]["value"], report["items"][3]["value"]);
            ratings.push(board[0]["value"].as_f64().unwrap());
        }
    }
    // The fitted ratings: the class's mean is 1500.
    let mean = ratings.iter().sum::<f64>() / ratings.len() as f64;
    assert!((mean - 1500.0).abs() < 1.0, "{ratings:?}");
    // Without a tournament the ranking is pending for everyone, the rejected too.
    std::fs::remove_dir_all(&out).ok();
    std::fs::remove_file(class.join("bob.wasm")).ok();
    std::fs::remove_file(class.join("carol.wasm")).ok();
    grade_class(&class, &out, &rubric, false);
    for student in ["alice", "dave"] {
        let v = read_json(&out.join(student).join("results.json"));
        check_results(&v, student);
        assert_eq!(v["extra_data"]["max_score"], 30.0, "{student}");
        assert!(!test_names(&v).contains(&"Class ranking"), "{student}");
    }
    let book = std::fs::read_to_string(out.join("gradebook.csv")).unwrap();
    let dave = book.lines().find(|r| r.starts_with("dave,")).unwrap();
    assert!(dave.contains(",0,30,"), "{dave}");
    std::fs::remove_dir_all(class).ok();
    std::fs::remove_dir_all(out).ok();
}

/// Run `gradescope/run_autograder` as Gradescope does, in `autograder`.
fn run_autograder(autograder: &Path) -> Value {
    let out = Command::new(root().join("gradescope/run_autograder"))
        .env("AUTOGRADER", autograder)
        .env("ARENA", arena_bin())
        .env("GAMES", "10")
        .current_dir(autograder)
        .output()
        .expect("run gradescope/run_autograder (is it executable?)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = read_json(&autograder.join("results/results.json"));
    check_results(&v, "run_autograder");
    v
}

#[test]
fn run_autograder_always_leaves_a_valid_results_json() {
    let ag = temp("autograder");
    std::fs::create_dir_all(ag.join("submission")).unwrap();
    std::fs::create_dir_all(ag.join("source")).unwrap();
    std::fs::copy(root().join("gradescope/rubric.toml"), ag.join("source/rubric.toml")).unwrap();
    // Nothing submitted: 0, and the output says what to upload.
    let v = run_autograder(&ag);
    assert_eq!(v["score"], 0.0);
    assert!(
        v["output"]
            .as_str()
            .unwrap()
            .starts_with("Submission rejected, no points: nothing was submitted (an empty folder)"),
        "{v}"
    );
    // Source instead of the bot.
    std::fs::write(ag.join("submission/lib.rs"), "fn main() {}").unwrap();
    let v = run_autograder(&ag);
    assert_eq!(v["score"], 0.0);
    assert!(
        v["output"]
            .as_str()
            .unwrap()
            .contains("no .wasm file (found lib.rs); submit the built bot"),
        "{v}"
    );
    // A broken .wasm: graded by the arena, 0 with its reason.
    std::fs::write(ag.join("submission/bot.wasm"), "garbage").unwrap();
    let v = run_autograder(&ag);
    assert_eq!(v["score"], 0.0);
    assert!(v["output"].as_str().unwrap().contains("not a WebAssembly file"), "{v}");
    // A good bot, graded with the sample rubric.
    std::fs::copy(bot("en-garde/aggressive"), ag.join("submission/bot.wasm")).unwrap();
    let v = run_autograder(&ag);
    assert!(v["score"].as_f64().unwrap() > 0.0, "{v}");
    assert_eq!(v["stdout_visibility"], "hidden");
    assert_eq!(v["extra_data"]["game"], "en-garde");
    assert_eq!(v["extra_data"]["games_per_item"], 10);
    assert_eq!(v["leaderboard"][0]["name"], "Win rate vs cowardly");
    std::fs::remove_dir_all(ag).ok();
}

#[test]
fn a_bad_visibility_names_its_line() {
    let dir = temp("bad-visibility");
    let rubric = dir.join("r.toml");
    std::fs::write(
        &rubric,
        "game = \"en-garde\"\n[gradescope]\nvisibility = \"after-due-date\"\n[[item]]\nname = \"x\"\nmeasure = \"win-rate\"\nagainst = [\"house:random\"]\nthresholds = [{ above = 0.5, points = 1 }]\n",
    )
    .unwrap();
    let file = rubric.display().to_string();
    assert_one_line_error(
        &[
            "grade",
            "--game",
            "en-garde",
            &bot_arg("en-garde/aggressive"),
            "--rubric",
            &file,
        ],
        &format!(
            "{file} line 3: unknown visibility `after-due-date`; use one of: hidden, after_due_date, after_published, visible"
        ),
    );
    std::fs::remove_dir_all(dir).ok();
}
