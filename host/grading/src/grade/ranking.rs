//! A class tournament's ranking in the grades: the class-percentile items
//! scored from a rank, or missed; and which students handed in the same file.

use super::{GradeReport, Measure, Rubric};

/// Score the class-percentile items of `report` for a bot ranked `rank` of `n` (1 = first).
pub fn apply_ranking(report: &mut GradeReport, rubric: &Rubric, rank: usize, place: usize, n: usize) {
    let percentile = if n <= 1 {
        1.0
    } else {
        (n - rank) as f64 / (n - 1) as f64
    };
    // The standings' place and the rank that earns points differ when the
    // games cannot tell bots apart: say why, so the two never look at odds.
    let why = if place == rank {
        String::new()
    } else {
        let ahead = rank - 1;
        format!(
            "; {} in the standings, but {} clearly ahead of it (a rating difference beyond noise): \
             the games cannot tell it from the rest; more --tournament-games would tell them apart",
            arena_runner::text::ordinal(u32::try_from(place).unwrap_or(u32::MAX)),
            match ahead {
                0 => "no bot is".to_string(),
                1 => "only 1 bot is".to_string(),
                k => format!("only {k} bots are"),
            }
        )
    };
    for (item, result) in rubric.items.iter().zip(report.items.iter_mut()) {
        if item.measure == Measure::ClassPercentile && result.status == "pending" {
            result.status = "graded";
            result.value = Some(percentile);
            result.points = item.points(percentile);
            result.note = format!(
                "ranked {rank} of {n} in the class tournament (percentile {:.0}%){why}",
                100.0 * percentile
            );
        }
    }
    report.recount();
}

/// After a class tournament, the class-percentile items of a submission
/// that took no part (a rejected one): 0 points, now counted.
pub fn missed_ranking(report: &mut GradeReport) {
    let why = report.reason.as_deref().unwrap_or("not in the class tournament");
    for result in report.items.iter_mut().filter(|i| i.status == "pending") {
        result.status = "rejected";
        result.points = 0.0;
        result.note = format!("no points: not in the class tournament ({why})");
    }
    report.recount();
}

/// For each student whose file is byte-identical (same SHA-256) to another
/// student's, the others' names, in class order. Only identical bytes: this
/// is not a plagiarism detector (a rebuilt or renamed copy differs).
pub fn same_files<'a>(
    reports: impl IntoIterator<Item = &'a GradeReport>,
) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut by_sha: std::collections::BTreeMap<&str, Vec<&str>> = std::collections::BTreeMap::new();
    for r in reports {
        if let Some(sha) = &r.sha256 {
            by_sha.entry(sha).or_default().push(&r.student);
        }
    }
    let mut out = std::collections::BTreeMap::new();
    for students in by_sha.values().filter(|s| s.len() > 1) {
        for me in students {
            let others = students.iter().filter(|s| *s != me).map(|s| s.to_string()).collect();
            out.insert(me.to_string(), others);
        }
    }
    out
}
