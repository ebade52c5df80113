//! Gradescope's `results.json` written from a grade report, field for field
//! as its autograder spec defines it.

use super::settings::{Source, Visibility};
use crate::grade::{GradeReport, Rubric};
use serde_json::{Map, Value, json};

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
fn test(index: usize, i: &crate::grade::ItemResult) -> Value {
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
