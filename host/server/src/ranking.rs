//! The class ranking paid: the final tournament's places become the
//! class-percentile items of every student's grade, on the version pages,
//! in the gradebook, Canvas's import and the class zip, whose command
//! (`arena grade-class --tournament`) plays the same tournament again.
//!
//! The tournament enters what `arena grade-class` enters on the class zip:
//! each student's accepted version that counts, in the order grade-class
//! reads the class (by name, then school id), seeded by the rubric's seed.
//! Its results decide the points, so the server and the offline command
//! agree however the entrants are labelled (pseudonyms on the server).

use crate::export::Entry;
use crate::queue::{Queue, Submission};
use arena_competition::tournament::{Format, TournamentReport, rank_beyond_noise};
use arena_grading::grade::{GradeReport, Rubric, apply_ranking};

/// The setting that keeps the last paid ranking (JSON of [`Paid`]).
pub const PAID: &str = "class_ranking";

// What was paid lives with the exports that print it (one direction: ranking -> export).
pub use crate::export::{Paid, Place};

/// The format's name on `arena grade-class`'s command line; none for a
/// format grade-class cannot play (its points could not be reproduced).
pub fn format_flag(format: Format) -> Option<&'static str> {
    match format {
        Format::RoundRobin => Some("round-robin"),
        Format::DoubleElimination => Some("double-elimination"),
        Format::Swiss => None,
    }
}

/// The entrants of the class tournament: each student's version that
/// counts, if accepted, in the order `arena grade-class` reads the class
/// zip (by name, then school id).
pub fn entrants(class: &[Entry]) -> Vec<(&Entry, &Submission)> {
    let mut out: Vec<(&Entry, &Submission)> = class
        .iter()
        .filter_map(|e| e.counted.as_ref().filter(|c| c.state == "accepted").map(|c| (e, c)))
        .collect();
    out.sort_by(|a, b| (&a.0.person.name, &a.0.person.school_id).cmp(&(&b.0.person.name, &b.0.person.school_id)));
    out
}

/// The places of a finished tournament whose entrants were `played` (the
/// submission each entrant stands for, by the name it played under).
pub fn places(report: &TournamentReport, played: &[(String, i64)]) -> Vec<Place> {
    report
        .standings
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let (_, submission) = played.iter().find(|(name, _)| *name == s.name)?;
            Some(Place {
                submission: *submission,
                rank: rank_beyond_noise(&report.standings, i),
                place: i + 1,
                // A solitaire has no rating: its mean score ranks it instead.
                rating: s.rating.as_ref().map(|r| r.value).or(s.score.map(|e| e.mean)),
            })
        })
        .collect()
}

/// A version's grade with the class ranking paid: its place if it played,
/// else no points with why (a version that does not count, or one that
/// could not enter). None when it has no grade.
pub fn paid_grade(v: &Submission, counted: Option<i64>, paid: &Paid, rubric: &Rubric) -> Option<GradeReport> {
    let mut report: GradeReport = serde_json::from_str(v.grade_json.as_deref()?).ok()?;
    // Start again from the grading's own: a ranking paid before is replaced
    // (a rejected version's items stay as its check left them).
    let rejected = report.status == "rejected";
    for (item, result) in rubric.items.iter().zip(report.items.iter_mut()) {
        if item.measure == arena_grading::grade::Measure::ClassPercentile && !rejected {
            result.status = "pending";
            result.points = 0.0;
            result.value = None;
        }
    }
    if let Some(p) = paid.places.iter().find(|p| p.submission == v.id) {
        apply_ranking(&mut report, rubric, p.rank, p.place, paid.ranked);
        return Some(report);
    }
    let why = match counted {
        Some(c) if c != v.version => format!("the class tournament played v{c}, the version that counts"),
        _ => match &v.reason {
            Some(r) => format!("not in the class tournament ({r})"),
            None => "not in the class tournament (it could not enter)".to_string(),
        },
    };
    for result in report.items.iter_mut().filter(|i| i.status == "pending") {
        result.status = "rejected";
        result.points = 0.0;
        result.note = format!("no points: {why}");
    }
    report.recount();
    Some(report)
}

/// The ranking last paid, if a final tournament was.
pub async fn last(queue: &Queue) -> Option<Paid> {
    use sqlx::Row;
    let row = sqlx::query("SELECT value FROM settings WHERE name = $1")
        .bind(PAID)
        .fetch_optional(&queue.db.pool)
        .await
        .ok()??;
    serde_json::from_str(&row.try_get::<String, _>(0).ok()?).ok()
}

/// Pay `paid` into every graded version of the class: its grade, its
/// points and its Gradescope file; then keep it, so versions graded again
/// are paid the same ([`repay`]).
pub async fn pay(queue: &Queue, rubric: &Rubric, paid: &Paid) -> Result<(), String> {
    sqlx::query(
        "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
    )
    .bind(PAID)
    .bind(serde_json::to_string(paid).map_err(|e| e.to_string())?)
    .execute(&queue.db.pool)
    .await
    .map_err(|e| e.to_string())?;
    repay(queue, rubric).await
}

/// Pay the ranking last kept into every graded version (after a re-grade
/// wrote a version's grade again); nothing when no tournament was paid.
pub async fn repay(queue: &Queue, rubric: &Rubric) -> Result<(), String> {
    let Some(paid) = last(queue).await else { return Ok(()) };
    for e in &crate::export::class(queue).await? {
        repay_entry(queue, rubric, &paid, e).await?;
    }
    queue.grade_may_have_changed();
    Ok(())
}

/// Pay the ranking last kept into student `person`'s versions, once one
/// of them has a grade again (a re-grade after the final tournament
/// writes the grading's own grade, its ranking pending).
pub async fn repay_person(queue: &Queue, rubric: &Rubric, person: i64) -> Result<(), String> {
    let Some(paid) = last(queue).await else { return Ok(()) };
    let Some(person) = queue.db.person(person).await? else {
        return Ok(());
    };
    let mut versions = queue.versions(person.id).await?;
    versions.sort_by_key(|v| std::cmp::Reverse(v.version));
    let counted =
        crate::export::counted(&person, &versions).and_then(|c| versions.iter().find(|v| v.version == c).cloned());
    let entry = Entry {
        person,
        versions,
        counted,
    };
    repay_entry(queue, rubric, &paid, &entry).await
}

async fn repay_entry(queue: &Queue, rubric: &Rubric, paid: &Paid, e: &Entry) -> Result<(), String> {
    let counted = e.counted.as_ref().map(|c| c.version);
    for v in &e.versions {
        let Some(report) = paid_grade(v, counted, paid, rubric) else {
            continue;
        };
        // A grade the ranking does not change (a rejected version's) is left as written.
        let before: Option<serde_json::Value> = v.grade_json.as_deref().and_then(|g| serde_json::from_str(g).ok());
        if before.is_some() && before == serde_json::to_value(&report).ok() {
            continue;
        }
        store(queue, v, &report, rubric, paid).await?;
    }
    Ok(())
}

/// Store `report` as version `v`'s grade, and its Gradescope file.
async fn store(
    queue: &Queue,
    v: &Submission,
    report: &GradeReport,
    rubric: &Rubric,
    paid: &Paid,
) -> Result<(), String> {
    let json = serde_json::to_string(report).map_err(|e| e.to_string())?;
    // Not a cached statement: see `Queue::finish_by` (Postgres and a NULL double).
    sqlx::query("UPDATE submissions SET grade_json = $1, grade_text = $2, score = $3, max_score = $4 WHERE id = $5")
        .persistent(false)
        .bind(json)
        .bind(report.text())
        .bind(report.total)
        .bind(report.max_total)
        .bind(v.id)
        .execute(&queue.db.pool)
        .await
        .map_err(|e| e.to_string())?;
    let rating = paid.places.iter().find(|p| p.submission == v.id).and_then(|p| p.rating);
    let pages = queue.pages_dir(v.id);
    let path = pages.join(crate::work::RESULTS_FILE);
    // Only a graded version has a Gradescope file to bring up to date.
    if path.is_file() {
        let results = arena_grading::grade::gradescope::results(report, rubric, rating);
        std::fs::write(&path, format!("{results:#}\n"))
            .map_err(|e| format!("{}: cannot write ({e})", path.display()))?;
    }
    Ok(())
}
