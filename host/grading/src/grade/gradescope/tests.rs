//! The `[gradescope]` table as a rubric reads it, and `results.json`.

use super::*;
use crate::grade::rubric;
use crate::grade::{GradeReport, Rubric};
use arena_runner::adapters;
use serde_json::json;

const ITEMS: &str = "game = \"en-garde\"\n\
    [[item]]\nname = \"Random\"\nmeasure = \"win-rate\"\nagainst = [\"house:random\"]\nthresholds = [{ above = 0.5, points = 10 }]\n\
    [[item]]\nname = \"Rank\"\nmeasure = \"class-percentile\"\nthresholds = [{ at = 1.0, points = 10 }]\n";

fn parse(extra: &str) -> Result<Rubric, String> {
    rubric::parse(
        &format!("{ITEMS}{extra}"),
        "r.toml",
        adapters::game("en-garde").unwrap(),
    )
}

#[test]
fn the_table_sets_visibilities_and_a_leaderboard() {
    let r = parse(
        "[gradescope]\nvisibility = \"after_published\"\nstdout_visibility = \"visible\"\n\
         [[gradescope.leaderboard]]\nname = \"Rating\"\nfrom = \"class-rating\"\n",
    )
    .unwrap();
    assert_eq!(r.gradescope.visibility, Some(Visibility::AfterPublished));
    assert_eq!(r.gradescope.stdout_visibility, Some(Visibility::Visible));
    assert_eq!(r.gradescope.leaderboard[0].source, Source::ClassRating);
    let r = parse("[[gradescope.leaderboard]]\nname = \"Win rate\"\nitem = \"Random\"\n").unwrap();
    assert_eq!(r.gradescope.leaderboard[0].source, Source::Item(0));
    // Items inherit the rubric's visibility; their own field stays empty.
    assert!(r.items.iter().all(|i| i.visible && i.visibility.is_none()));
    assert!(parse("").unwrap().gradescope == Settings::default());
}

#[test]
fn items_take_visible_or_any_visibility_but_not_both() {
    let text = ITEMS.replacen("thresholds = [{ above", "visible = false\nthresholds = [{ above", 1);
    let r = rubric::parse(&text, "r", adapters::game("en-garde").unwrap()).unwrap();
    assert_eq!(r.items[0].visibility, Some(Visibility::Hidden));
    assert!(!r.items[0].visible);
    let text = ITEMS.replacen(
        "thresholds = [{ above",
        "visibility = \"after_due_date\"\nthresholds = [{ above",
        1,
    );
    let r = rubric::parse(&text, "r", adapters::game("en-garde").unwrap()).unwrap();
    assert_eq!(r.items[0].visibility, Some(Visibility::AfterDueDate));
    assert!(r.items[0].visible, "shown later is shown");
    let text = ITEMS.replacen(
        "thresholds = [{ above",
        "visible = true\nvisibility = \"hidden\"\nthresholds = [{ above",
        1,
    );
    let e = rubric::parse(&text, "r.toml", adapters::game("en-garde").unwrap()).unwrap_err();
    assert!(
        e.starts_with("r.toml line 6: give an item `visible` or `visibility`, not both"),
        "{e}"
    );
    // A rubric hidden as a whole hides every item that does not say otherwise.
    let r = parse("[gradescope]\nvisibility = \"hidden\"\n").unwrap();
    assert!(r.items.iter().all(|i| !i.visible));
}

#[test]
fn a_leaderboard_never_shows_an_item_students_may_not_see_yet() {
    let column = "[[gradescope.leaderboard]]\nname = \"Win rate\"\nitem = \"Random\"\n";
    let lines = ITEMS.lines().count();
    // Hidden by the whole result's visibility: the column is on the rubric's line 3 after the items.
    let e = parse(&format!("[gradescope]\nvisibility = \"after_due_date\"\n{column}")).unwrap_err();
    assert!(
        e.starts_with(&format!(
            "r.toml line {}: the leaderboard would show students item `Random`, whose visibility is `after_due_date`",
            lines + 5
        )),
        "{e}"
    );
    // Hidden by the item's own setting.
    let text = ITEMS.replacen(
        "thresholds = [{ above",
        "visibility = \"hidden\"\nthresholds = [{ above",
        1,
    );
    let e = rubric::parse(
        &format!("{text}{column}"),
        "r.toml",
        adapters::game("en-garde").unwrap(),
    )
    .unwrap_err();
    assert!(e.contains("whose visibility is `hidden`"), "{e}");
    // An item that says `visible` under a hidden whole may be a column.
    let text = ITEMS.replacen(
        "thresholds = [{ above",
        "visibility = \"visible\"\nthresholds = [{ above",
        1,
    );
    let r = rubric::parse(
        &format!("{text}[gradescope]\nvisibility = \"after_published\"\n{column}"),
        "r.toml",
        adapters::game("en-garde").unwrap(),
    )
    .unwrap();
    assert_eq!(r.gradescope.leaderboard[0].source, Source::Item(0));
}

#[test]
fn errors_name_the_line_and_the_allowed_values() {
    let lines = ITEMS.lines().count();
    for (extra, line, expect) in [
        (
            "[gradescope]\nvisibility = \"after-due-date\"\n",
            2,
            "unknown visibility `after-due-date`; use one of: hidden, after_due_date, after_published, visible",
        ),
        (
            "[gradescope]\nstdout_visibility = \"shown\"\n",
            2,
            "unknown visibility `shown`",
        ),
        (
            "[[gradescope.leaderboard]]\nname = \"x\"\nitem = \"Randomm\"\n",
            3,
            "unknown item `Randomm` in the leaderboard; items are: `Random`, `Rank`",
        ),
        (
            "[[gradescope.leaderboard]]\nname = \"x\"\nfrom = \"rating\"\n",
            3,
            "unknown leaderboard source `from = \"rating\"`; use `from = \"class-rating\"`",
        ),
        ("[[gradescope.leaderboard]]\nname = \"x\"\n", 1, "exactly one of `item"),
        ("[gradescope]\nleaderbord = []\n", 2, "unknown field `leaderbord`"),
    ] {
        let e = parse(extra).unwrap_err();
        let want = format!("r.toml line {}: ", lines + line);
        assert!(
            e.starts_with(&want) && e.contains(expect),
            "{e} (wanted {want}{expect})"
        );
    }
}

#[test]
fn tests_have_status_number_and_tags_and_pending_items_are_left_out() {
    let r = parse("[[gradescope.leaderboard]]\nname = \"Rank\"\nfrom = \"class-rating\"\n").unwrap();
    let item = |name: &str, points: f64, status: &'static str| super::super::ItemResult {
        name: name.into(),
        measure: crate::grade::Measure::WinRate,
        against: Vec::new(),
        value: Some(0.6),
        ci95: None,
        games: 10,
        points,
        max_points: 10.0,
        visible: true,
        visibility: None,
        status,
        note: String::new(),
        forfeit_games: Vec::new(),
        sample_game: None,
        conduct: None,
    };
    let sandbox_limits = adapters::game("en-garde").unwrap().default_limits();
    let report = GradeReport {
        student: "s".into(),
        id: None,
        email: None,
        members: Vec::new(),
        file: "s.wasm".into(),
        chosen_because: None,
        folder: "s".into(),
        sha256: None,
        game: "en-garde".into(),
        status: "graded",
        reason: None,
        seed: 1,
        games: 10,
        limits: sandbox_limits,
        illegal: r.illegal,
        arena_version: arena_runner::VERSION,
        wasmtime_version: "48",
        fuel_prices: arena_sandbox::PRICES_VERSION,
        plays_like: None,
        items: vec![item("Random", 10.0, "graded"), item("Rank", 0.0, "pending")],
        total: 10.0,
        max_total: 10.0,
        conduct: Default::default(),
        worst: None,
        smoke_forfeited: false,
        over_budget: None,
        elapsed: std::time::Duration::from_millis(2600),
    };
    let v = results(&report, &r, Some(1512.5));
    assert_eq!(v["execution_time"], 3);
    let tests = v["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 1, "the pending ranking is no test: {v}");
    assert_eq!(
        (&tests[0]["status"], &tests[0]["number"]),
        (&json!("passed"), &json!("1"))
    );
    assert_eq!(tests[0]["tags"], json!(["win-rate"]));
    assert!(tests[0].get("visibility").is_none());
    assert!(v["output"].as_str().unwrap().contains("Not counted yet: Rank"));
    assert_eq!(
        v["leaderboard"],
        json!([{"name": "Rank", "value": 1512.5, "order": "desc"}])
    );
    // Without a tournament the class-rating column is left out, and so is the leaderboard.
    assert!(results(&report, &r, None).get("leaderboard").is_none());
}
