//! Gradescope's `results.json`, field for field as its autograder spec
//! defines it (<https://gradescope-autograders.readthedocs.io/en/latest/specs/>),
//! and the rubric's `[gradescope]` table that sets its visibility and leaderboard.
//!
//! Only the spec's fields are written: Gradescope ignores or rejects others,
//! so what an audit needs beyond them (the maximum, the seed, the versions,
//! the SHA-256) goes in `extra_data`, which the spec stores as given.

use super::{GradeReport, Item, Rubric};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::ops::Range;
use toml::Spanned;

/// When students see a test, the whole result, or the autograder's stdout
/// (the spec's four values; Gradescope's default is `visible`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Never shown to students.
    Hidden,
    /// Shown after the due date (after the late due date when late submission is allowed).
    AfterDueDate,
    /// Shown once the assignment is published from "Review Grades".
    AfterPublished,
    /// Always shown.
    Visible,
}

impl Visibility {
    const NAMES: [(&'static str, Visibility); 4] = [
        ("hidden", Visibility::Hidden),
        ("after_due_date", Visibility::AfterDueDate),
        ("after_published", Visibility::AfterPublished),
        ("visible", Visibility::Visible),
    ];

    /// The spec's name of it.
    pub fn as_str(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(_, v)| *v == self)
            .map_or("visible", |(n, _)| n)
    }

    /// The value a rubric names; an error lists the allowed ones.
    fn parse(name: &str) -> Result<Visibility, String> {
        Self::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::NAMES.iter().map(|(n, _)| *n).collect();
                format!("unknown visibility `{name}`; use one of: {}", names.join(", "))
            })
    }
}

/// What a leaderboard column shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// The measured value of the rubric item at this index.
    Item(usize),
    /// The class tournament's fitted rating (its mean score for a solitaire), only in `grade-class --tournament`.
    ClassRating,
}

/// One leaderboard column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Column {
    /// The column's name on Gradescope.
    pub name: String,
    /// Where its value comes from.
    pub source: Source,
}

/// The rubric's `[gradescope]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Settings {
    /// The whole result's visibility (an item's own `visibility` overrides it).
    pub visibility: Option<Visibility>,
    /// When students see the autograder's stdout (by default only instructors do).
    pub stdout_visibility: Option<Visibility>,
    /// The leaderboard's columns; none: no leaderboard.
    pub leaderboard: Vec<Column>,
}

/// The `[gradescope]` table as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSettings {
    #[serde(default)]
    visibility: Option<Spanned<String>>,
    #[serde(default)]
    stdout_visibility: Option<Spanned<String>>,
    #[serde(default)]
    leaderboard: Vec<Spanned<RawColumn>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawColumn {
    name: Spanned<String>,
    #[serde(default)]
    item: Option<Spanned<String>>,
    #[serde(default)]
    from: Option<Spanned<String>>,
}

/// An error message naming the line of a span.
pub(crate) type ErrAt<'a> = &'a dyn Fn(Range<usize>, String) -> String;

/// A visibility as a rubric writes it.
pub(crate) fn visibility(raw: &Spanned<String>, err: ErrAt<'_>) -> Result<Visibility, String> {
    Visibility::parse(raw.get_ref()).map_err(|e| err(raw.span(), e))
}

/// The table's visibilities (needed before the items, which inherit them).
pub(crate) fn visibilities(raw: Option<&RawSettings>, err: ErrAt<'_>) -> Result<Settings, String> {
    let Some(raw) = raw else {
        return Ok(Settings::default());
    };
    Ok(Settings {
        visibility: raw.visibility.as_ref().map(|v| visibility(v, err)).transpose()?,
        stdout_visibility: raw.stdout_visibility.as_ref().map(|v| visibility(v, err)).transpose()?,
        leaderboard: Vec::new(),
    })
}

/// The leaderboard's columns, checked against the rubric's items. `overall`
/// is the whole result's visibility, which items without their own inherit.
pub(crate) fn leaderboard(
    raw: Option<RawSettings>,
    items: &[Item],
    overall: Option<Visibility>,
    err: ErrAt<'_>,
) -> Result<Vec<Column>, String> {
    let mut columns: Vec<Column> = Vec::new();
    for spanned in raw.map(|r| r.leaderboard).unwrap_or_default() {
        let span = spanned.span();
        let column = spanned.into_inner();
        let name = column.name.get_ref().trim().to_string();
        if name.is_empty() {
            return Err(err(column.name.span(), "a leaderboard column needs a `name`".into()));
        }
        if columns.iter().any(|c| c.name == name) {
            return Err(err(
                column.name.span(),
                format!("the leaderboard has two columns named `{name}`; give each its own name"),
            ));
        }
        let source = match (&column.item, &column.from) {
            (Some(item), None) => {
                let wanted = item.get_ref();
                let index = items.iter().position(|i| &i.name == wanted).ok_or_else(|| {
                    let names: Vec<String> = items.iter().map(|i| format!("`{}`", i.name)).collect();
                    err(
                        item.span(),
                        format!(
                            "unknown item `{wanted}` in the leaderboard; items are: {}",
                            names.join(", ")
                        ),
                    )
                })?;
                // Gradescope shows the leaderboard to students at once: a
                // column would tell them what the item's visibility keeps back.
                let shown = items[index].visibility.or(overall).unwrap_or(Visibility::Visible);
                if shown != Visibility::Visible {
                    return Err(err(
                        item.span(),
                        format!(
                            "the leaderboard would show students item `{wanted}`, whose visibility is `{}`; \
                             use an item they see (`visibility = \"visible\"`), or drop this column",
                            shown.as_str()
                        ),
                    ));
                }
                Source::Item(index)
            }
            (None, Some(from)) if from.get_ref() == "class-rating" => Source::ClassRating,
            (None, Some(from)) => {
                return Err(err(
                    from.span(),
                    format!(
                        "unknown leaderboard source `from = \"{}\"`; use `from = \"class-rating\"` or `item = \"<item name>\"`",
                        from.get_ref()
                    ),
                ));
            }
            _ => {
                return Err(err(
                    span,
                    "a leaderboard column takes exactly one of `item = \"<item name>\"` or `from = \"class-rating\"`"
                        .into(),
                ));
            }
        };
        columns.push(Column { name, source });
    }
    Ok(columns)
}

/// A test's status: `passed` only with the item's full points, as Gradescope
/// itself would judge it from `score` and `max_score`.
fn status(points: f64, max: f64) -> &'static str {
    if points >= max { "passed" } else { "failed" }
}

/// The report as Gradescope's `results.json`. `class_rating` is the
/// student's fitted rating in the class tournament, when one ran.
///
/// Pending items (a class ranking without a tournament) are left out of the
/// tests: the spec knows a test only as scored or as a pass/fail check, and
/// "failed" would tell a student they lost what was never played. The
/// output names them instead.
pub fn results(report: &GradeReport, rubric: &Rubric, class_rating: Option<f64>) -> Value {
    let tests: Vec<Value> = report
        .items
        .iter()
        .enumerate()
        .filter(|(_, i)| i.status != "pending")
        .map(|(index, i)| test(index, i))
        .collect();
    let pending: Vec<&str> = report
        .items
        .iter()
        .filter(|i| i.status == "pending")
        .map(|i| i.name.as_str())
        .collect();
    let output = summary(report, rubric);
    let leaderboard = leaderboard_values(report, rubric, class_rating);
    let mut out = Map::new();
    out.insert("score".into(), json!(report.total));
    // Whole seconds, as the spec's example; grading always takes some.
    out.insert(
        "execution_time".into(),
        json!(report.elapsed.as_secs_f64().round() as u64),
    );
    out.insert("output".into(), json!(output));
    // Plain text: a reason may quote a file name, which HTML or Markdown would render.
    out.insert("output_format".into(), json!("text"));
    out.insert("test_output_format".into(), json!("text"));
    out.insert("test_name_format".into(), json!("text"));
    if let Some(v) = rubric.gradescope.visibility {
        out.insert("visibility".into(), json!(v.as_str()));
    }
    if let Some(v) = rubric.gradescope.stdout_visibility {
        out.insert("stdout_visibility".into(), json!(v.as_str()));
    }
    out.insert(
        "extra_data".into(),
        json!({
            "student": report.student,
            "game": report.game,
            "status": report.status,
            "reason": report.reason,
            "file": report.file,
            "chosen_because": report.chosen_because,
            "sha256": report.sha256,
            "max_score": report.max_total,
            "pending": pending,
            "seed": report.seed,
            "games_per_item": report.games,
            "illegal": report.illegal,
            "limits": report.limits,
            "arena_version": report.arena_version,
            "wasmtime_version": report.wasmtime_version,
            "conduct": report.conduct,
        }),
    );
    out.insert("tests".into(), Value::Array(tests));
    if !leaderboard.is_empty() {
        out.insert("leaderboard".into(), Value::Array(leaderboard));
    }
    Value::Object(out)
}

/// One rubric item as a Gradescope test; `index` is its place in the rubric.
fn test(index: usize, i: &super::ItemResult) -> Value {
    let mut t = Map::new();
    t.insert("score".into(), json!(i.points));
    t.insert("max_score".into(), json!(i.max_points));
    t.insert("status".into(), json!(status(i.points, i.max_points)));
    t.insert("name".into(), json!(i.name));
    t.insert("name_format".into(), json!("text"));
    // The rubric's position, so an item keeps its number when others are left out.
    t.insert("number".into(), json!((index + 1).to_string()));
    // How the bot behaved beside the verdict: a student sees the forfeits behind a low score.
    let output = match i.conduct.as_ref().and_then(|c| c.describe()) {
        Some(c) => format!("{}\nYour bot over {c}", i.note),
        None => i.note.clone(),
    };
    t.insert("output".into(), json!(output));
    t.insert("output_format".into(), json!("text"));
    t.insert("tags".into(), json!([i.measure]));
    // Only an item's own setting: writing `visible` everywhere would
    // override the rubric's top-level visibility.
    if let Some(v) = i.visibility {
        t.insert("visibility".into(), json!(v.as_str()));
    }
    t.insert(
        "extra_data".into(),
        json!({
            "measure": i.measure,
            "against": i.against,
            "value": i.value,
            "ci95": i.ci95,
            "games": i.games,
            "status": i.status,
            "conduct": i.conduct,
        }),
    );
    Value::Object(t)
}

/// The output a student reads above the tests: the total (when nothing is
/// hidden), the file graded, what is not counted yet, and how to reproduce it.
fn summary(report: &GradeReport, rubric: &Rubric) -> String {
    // Gradescope keeps the total from students while any test is hidden;
    // the output must not tell it either.
    let top = rubric.gradescope.visibility;
    let all_shown = report
        .items
        .iter()
        .filter(|i| i.status != "pending")
        .all(|i| i.visibility.or(top).unwrap_or(Visibility::Visible) == Visibility::Visible);
    let mut output = match report.reason_for_student(None) {
        Some(reason) => format!("Submission rejected, no points: {reason}"),
        None if all_shown => format!("{} / {} points.", report.total, report.max_total),
        None => "Graded. Some results are not shown (yet), so neither is the total.".to_string(),
    };
    if let Some(why) = &report.chosen_because {
        output.push_str(&format!("\nFile graded: {why}"));
    }
    if let Some(house) = &report.plays_like {
        output.push_str(&format!(
            "\nYour bot plays exactly like {house}: every game ended as {house}'s did. Change it to beat that bot."
        ));
    }
    // Over every item, hidden ones too: only when nothing is hidden (or the
    // smoke game, all there is of a rejected bot, is what it describes).
    if (all_shown || report.reason.is_some())
        && let Some(conduct) = report.conduct.describe()
    {
        output.push_str(&format!("\nYour bot over {conduct}."));
    }
    // A hidden item stays unnamed to students, pending or not.
    let pending_shown: Vec<&str> = report
        .items
        .iter()
        .filter(|i| i.status == "pending" && i.visible)
        .map(|i| i.name.as_str())
        .collect();
    if !pending_shown.is_empty() {
        let when = if report.reason.is_some() {
            "the class tournament, which a rejected submission cannot enter"
        } else {
            "the class tournament, after the deadline"
        };
        output.push_str(&format!("\nNot counted yet: {} ({when}).", pending_shown.join(", ")));
    }
    output.push_str(&format!(
        "\nSeed {}, {} games per item, arena {}, wasmtime {}, SHA-256 {}.",
        report.seed,
        report.games,
        report.arena_version,
        report.wasmtime_version,
        report.sha256.as_deref().unwrap_or("-")
    ));
    output
}

/// The leaderboard columns the rubric asks for, with this submission's values.
fn leaderboard_values(report: &GradeReport, rubric: &Rubric, class_rating: Option<f64>) -> Vec<Value> {
    rubric
        .gradescope
        .leaderboard
        .iter()
        .filter_map(|c| {
            let (value, lower_is_better) = match c.source {
                Source::Item(index) => {
                    let item = report.items.get(index)?;
                    (item.value?, item.measure.lower_is_better())
                }
                Source::ClassRating => (class_rating?, false),
            };
            Some(json!({
                "name": c.name,
                "value": value,
                "order": if lower_is_better { "asc" } else { "desc" },
            }))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::rubric;
    use arena_runner::adapters;

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
            e.starts_with(&format!("r.toml line {}: the leaderboard would show students item `Random`, whose visibility is `after_due_date`", lines + 5)),
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
}
