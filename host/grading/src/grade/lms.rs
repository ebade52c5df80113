//! Grade files a learning management system imports: Canvas's gradebook
//! CSV and Moodle's grading worksheet (see `docs/grading.md`, "Uploading
//! grades"). Each matches students by the identifier its own export gave
//! them, which `submissions` read from the class folder.

use super::GradeReport;
use super::submissions::Layout;
use arena_runner::text::csv_field;

/// A learning management system to write grades for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lms {
    /// Canvas: Grades > Import, matched by the `ID` column (the Canvas user id).
    Canvas,
    /// Moodle: the assignment's "Upload grading worksheet", matched by `Identifier` ("Participant N").
    Moodle,
}

impl Lms {
    /// The file written for it.
    pub const fn file_name(self) -> &'static str {
        match self {
            Lms::Canvas => crate::files::CANVAS_GRADES,
            Lms::Moodle => crate::files::MOODLE_GRADES,
        }
    }

    /// Where to import the file, for people.
    pub fn how_to_import(self) -> &'static str {
        match self {
            Lms::Canvas => "in Canvas: Grades > Import",
            Lms::Moodle => {
                "in Moodle: the assignment's View all submissions > Grading action > Upload grading worksheet"
            }
        }
    }

    /// What its identifier is called, for people.
    pub fn id_name(self) -> &'static str {
        match self {
            Lms::Canvas => "Canvas user ID",
            Lms::Moodle => "Moodle participant ID",
        }
    }
}

/// The grade as a number: at most two decimals, no trailing zeros.
fn number(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// One line of feedback: each item's points, and why a submission was rejected.
pub fn feedback(r: &GradeReport) -> String {
    let mut parts = Vec::new();
    if let Some(reason) = r.reason_for_student(Some(crate::files::REPLAYS)) {
        parts.push(format!("Rejected: {reason}"));
    }
    for i in r.items.iter().filter(|i| i.visible) {
        if i.status == "pending" {
            parts.push(format!("{}: pending", i.name));
        } else {
            parts.push(format!("{}: {} / {}", i.name, number(i.points), number(i.max_points)));
        }
    }
    let c = &r.conduct;
    if c.illegal_moves > 0 {
        parts.push(format!(
            "Played {} illegal move{} in its games: under the course's rule, {}",
            arena_runner::text::thousands(u64::from(c.illegal_moves)),
            if c.illegal_moves == 1 { "" } else { "s" },
            arena_runner::adapters::game(&r.game).map_or("each is judged", |g| g.illegal_rule())
        ));
    }
    let forfeits = c.total_forfeits();
    if forfeits > 0 && r.reason.is_none() {
        parts.push(format!(
            "Forfeited {} game{} ({})",
            arena_runner::text::thousands(u64::from(forfeits)),
            if forfeits == 1 { "" } else { "s" },
            c.forfeits_by_reason()
        ));
    }
    if let Some(house) = &r.plays_like {
        parts.push(format!("Plays like {house}: every game ended exactly as {house}'s did"));
    }
    parts.push(format!("Total {} / {}", number(r.total), number(r.max_total)));
    parts.join("; ")
}

/// One student's row of Canvas's grade import.
pub struct CanvasRow {
    /// The name (Canvas reads it only when no id matches).
    pub student: String,
    /// The Canvas user id (the `ID` column), matched first.
    pub canvas_id: Option<String>,
    /// The institution's id (`SIS User ID`), matched when `ID` is empty.
    pub sis_id: Option<String>,
    /// The grade; none leaves the student's cell empty (Canvas keeps what it had).
    pub total: Option<f64>,
}

/// Canvas's gradebook import file: the first five columns are the
/// student's; every further column is an assignment, created if its name
/// is new.
pub fn canvas_csv(rows: &[CanvasRow], assignment: &str) -> String {
    let mut s = format!(
        "Student,ID,SIS User ID,SIS Login ID,Section,{}\r\n",
        csv_field(assignment)
    );
    for r in rows {
        s.push_str(&format!(
            "{},{},{},,,{}\r\n",
            csv_field(&r.student),
            csv_field(r.canvas_id.as_deref().unwrap_or("")),
            csv_field(r.sis_id.as_deref().unwrap_or("")),
            r.total.map(number).unwrap_or_default()
        ));
    }
    s
}

/// The file for `lms`, and the students it cannot match. The identifiers
/// come from the class folder's `layout`: a Canvas export gives Canvas user
/// ids, a Moodle export participant ids, a Gradescope export SIDs (the
/// institution's student numbers, Canvas's "SIS User ID").
pub fn export(lms: Lms, reports: &[&GradeReport], assignment: &str, layout: Layout) -> (String, Vec<String>) {
    // A group's members each get the group's grade, on a row of their own.
    let rows: Vec<GradeReport> = reports
        .iter()
        .flat_map(|r| {
            if r.members.is_empty() {
                vec![(*r).clone()]
            } else {
                r.members
                    .iter()
                    .map(|m| GradeReport {
                        student: m.name.clone(),
                        id: m.id.clone(),
                        email: m.email.clone(),
                        members: Vec::new(),
                        ..(*r).clone()
                    })
                    .collect()
            }
        })
        .collect();
    let reports: Vec<&GradeReport> = rows.iter().collect();
    let id = |r: &GradeReport| -> [Option<String>; 2] {
        match (lms, layout) {
            (Lms::Canvas, Layout::Canvas) | (Lms::Moodle, Layout::Moodle) => [r.id.clone(), None],
            (Lms::Canvas, Layout::Gradescope) => [None, r.id.clone()],
            _ => [None, None],
        }
    };
    let missing = reports
        .iter()
        .filter(|r| id(r) == [None, None])
        .map(|r| r.student.clone())
        .collect();
    let mut s = String::new();
    match lms {
        Lms::Canvas => {
            let rows: Vec<CanvasRow> = reports
                .iter()
                .map(|r| {
                    let [canvas, sis] = id(r);
                    CanvasRow {
                        student: r.student.clone(),
                        canvas_id: canvas,
                        sis_id: sis,
                        total: Some(r.total),
                    }
                })
                .collect();
            s = canvas_csv(&rows, assignment);
        }
        Lms::Moodle => {
            s.push_str(
                "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,\
                 Last modified (submission),Last modified (grade),Feedback comments\r\n",
            );
            for r in reports {
                let [participant, _] = id(r);
                let id = participant.map_or(String::new(), |id| format!("Participant {id}"));
                s.push_str(&format!(
                    "{},{},{},,{},{},Yes,,,{}\r\n",
                    csv_field(&id),
                    csv_field(&r.student),
                    csv_field(r.email.as_deref().unwrap_or("")),
                    number(r.total),
                    number(r.max_total),
                    csv_field(&feedback(r))
                ));
            }
        }
    }
    (s, missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_as_rfc_4180_says() {
        assert_eq!(csv_field("Lee, Ann"), "\"Lee, Ann\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("José Núñez"), "José Núñez");
        assert_eq!(csv_field("line\nbreak"), "\"line\nbreak\"");
        // A name that a spreadsheet would take for a formula is shown, not run.
        assert_eq!(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(csv_field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_field("-2+3"), "'-2+3");
        assert_eq!(csv_field("Ann-Lee"), "Ann-Lee");
        assert_eq!(number(20.0), "20");
        assert_eq!(number(7.5), "7.5");
        assert_eq!(number(2.0 / 3.0), "0.67");
    }
}
