//! A course's roster, read from what a teacher has at hand: the CSV export
//! of Canvas (gradebook), Moodle (participants or grades), Blackboard
//! (Grade Center), or a plain `name,email,id` file. Columns are found by
//! their headers in each system's own words; a roster is one student per
//! row with an id, a name and (where the export has one) an email.

use std::collections::BTreeSet;
use std::path::Path;

/// One student of a roster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Student {
    /// The id the school knows the student by (the LMS's student or SIS
    /// id, else the username or email): unique in a course.
    pub id: String,
    /// The name a teacher reads.
    pub name: String,
    /// The email, when the export has one.
    pub email: String,
    /// The Canvas user id, when the roster is Canvas's gradebook export
    /// (its `ID` column; Canvas matches a grade import by it first).
    pub canvas_id: Option<String>,
}

/// The column headers each field may have, in the LMS's own words (compared
/// lower case, without spaces, dashes and underscores).
const NAMES: &[&str] = &["name", "student", "fullname", "studentname", "displayname"];
const FIRST_NAMES: &[&str] = &["firstname", "givenname", "forename"];
const LAST_NAMES: &[&str] = &["lastname", "surname", "familyname"];
const EMAILS: &[&str] = &["email", "emailaddress", "mail"];
/// Ids in order of preference: the school's student id first.
const IDS: &[&str] = &[
    "id",
    "studentid",
    "sisuserid",
    "idnumber",
    "studentnumber",
    "userid",
    "username",
    "sisloginid",
    "loginid",
];

/// The most students a roster may hold (a course of a few hundred; a file
/// of millions of rows is not a roster).
pub const MAX_STUDENTS: usize = 20_000;

fn key(header: &str) -> String {
    header
        .trim_start_matches('\u{feff}')
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Where each field is in a header row.
struct Columns {
    name: Option<usize>,
    first_last: Option<(usize, usize)>,
    email: Option<usize>,
    ids: Vec<usize>,
    /// Canvas's `ID` column, in a Canvas gradebook export (it has `SIS User ID` too).
    canvas: Option<usize>,
}

fn columns(header: &csv::StringRecord) -> Columns {
    let keys: Vec<String> = header.iter().map(key).collect();
    let find = |wanted: &[&str]| wanted.iter().find_map(|w| keys.iter().position(|k| k == w));
    Columns {
        name: find(NAMES),
        first_last: find(FIRST_NAMES).zip(find(LAST_NAMES)),
        email: find(EMAILS),
        ids: IDS.iter().filter_map(|w| keys.iter().position(|k| k == w)).collect(),
        canvas: find(&["sisuserid"]).and(find(&["id"])),
    }
}

/// Read the roster at `path`. An error is one line naming the file, what
/// is wrong and what to give instead.
pub fn read(path: &Path) -> Result<Vec<Student>, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: cannot read the roster ({e})"))?;
    // A roster of 20,000 students is well under 8 MiB.
    if meta.len() > 8 << 20 {
        return Err(format!(
            "{shown}: {} bytes is not a roster (at most 8 MiB); give the CSV export of the class list",
            meta.len()
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: cannot read the roster ({e})"))?;
    parse(&bytes).map_err(|e| format!("{shown}: {e}"))
}

/// Read a roster from the bytes of a CSV file (see [`read`]).
pub fn parse(bytes: &[u8]) -> Result<Vec<Student>, String> {
    let text = String::from_utf8_lossy(bytes);
    // Excel saves "CSV" with semicolons in much of Europe.
    let first = text.lines().next().unwrap_or("");
    let delimiter = if first.matches(';').count() > first.matches(',').count() {
        b';'
    } else {
        b','
    };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .from_reader(text.as_bytes());
    let header = reader
        .headers()
        .map_err(|e| format!("not a CSV file ({e}); give the CSV export of the class list"))?
        .clone();
    let cols = columns(&header);
    if cols.name.is_none() && cols.first_last.is_none() {
        return Err(format!(
            "no column of student names (the header is: {}); give a CSV with the columns name,email,id, or the \
             class list exported from Canvas, Moodle or Blackboard",
            header.iter().collect::<Vec<_>>().join(", ")
        ));
    }
    if cols.ids.is_empty() && cols.email.is_none() {
        return Err(format!(
            "no column of student ids or emails (the header is: {}); add an `id` column",
            header.iter().collect::<Vec<_>>().join(", ")
        ));
    }
    let mut students = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, row) in reader.records().enumerate() {
        let line = i + 2;
        let row = row.map_err(|e| format!("line {line}: {e}"))?;
        let Some(student) = student(&row, &cols) else { continue };
        if !seen.insert(student.id.clone()) {
            return Err(format!(
                "line {line}: the id `{}` is on an earlier line too; each student needs their own id",
                student.id
            ));
        }
        students.push(student);
        if students.len() > MAX_STUDENTS {
            return Err(format!("more than {MAX_STUDENTS} students; split the course"));
        }
    }
    if students.is_empty() {
        return Err("no students in it (only a header)".into());
    }
    Ok(students)
}

/// A row's student, or `None` for a row that is none: empty, Canvas's
/// "Points Possible" row, its "Test Student".
fn student(row: &csv::StringRecord, cols: &Columns) -> Option<Student> {
    let get = |i: usize| row.get(i).map(str::trim).unwrap_or("").to_string();
    let name = match (cols.name, cols.first_last) {
        (Some(n), _) => get(n),
        (None, Some((f, l))) => format!("{} {}", get(f), get(l)).trim().to_string(),
        (None, None) => String::new(),
    };
    // Canvas's own test student ("Student View"), named either way round.
    let test_student = name.eq_ignore_ascii_case("Student, Test") || name.eq_ignore_ascii_case("Test Student");
    if name.is_empty() || name == "Points Possible" || test_student {
        return None;
    }
    let email = cols.email.map(get).unwrap_or_default();
    let id = cols
        .ids
        .iter()
        .map(|&i| get(i))
        .find(|v| !v.is_empty())
        .unwrap_or_else(|| email.clone());
    if id.is_empty() {
        return None;
    }
    let canvas_id = cols.canvas.map(get).filter(|c| !c.is_empty());
    Some(Student {
        id,
        name,
        email,
        canvas_id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_roster_reads_name_email_id() {
        let s = parse(b"name,email,id\nAnn Lee,ann@uni.edu,s1\nBo Wu,bo@uni.edu,s2\n").unwrap();
        assert_eq!(
            s[0],
            Student {
                id: "s1".into(),
                name: "Ann Lee".into(),
                email: "ann@uni.edu".into(),
                canvas_id: None
            }
        );
        assert_eq!(s.len(), 2);
    }

    /// Canvas's gradebook export: "Student", "ID", "SIS User ID", a
    /// "Points Possible" row, and the test student.
    #[test]
    fn a_canvas_gradebook_export_reads_without_its_extra_rows() {
        let csv = "Student,ID,SIS User ID,SIS Login ID,Section,Bot (123)\n    Points Possible,,,,,10\n\
                   \"Lee, Ann\",1001,S-17,alee,Sec 1,\n\"Student, Test\",1002,,,Sec 1,\nTest Student,1003,,,Sec 1,\n";
        let s = parse(csv.as_bytes()).unwrap();
        assert_eq!(s.len(), 1, "neither way of naming Canvas's test student is enrolled");
        assert_eq!(s[0].name, "Lee, Ann");
        assert_eq!(s[0].id, "1001");
        assert_eq!(s[0].canvas_id.as_deref(), Some("1001"));
    }

    /// Moodle's participants export: first and last name, "ID number" (may
    /// be empty), "Email address"; the email stands in for a missing id.
    #[test]
    fn a_moodle_export_joins_first_and_last_names() {
        let csv = "First name,Last name,ID number,Email address\nAnn,Lee,,ann@uni.edu\nBo,Wu,77,bo@uni.edu\n";
        let s = parse(csv.as_bytes()).unwrap();
        assert_eq!(s[0].name, "Ann Lee");
        assert_eq!(s[0].id, "ann@uni.edu");
        assert_eq!(s[1].id, "77");
    }

    /// Blackboard's Grade Center export, saved by Excel with semicolons.
    #[test]
    fn a_blackboard_export_with_semicolons_reads() {
        let csv = "\u{feff}Last Name;First Name;Username;Student ID;Last Access\nLee;Ann;alee;900;2026-11-01\n";
        let s = parse(csv.as_bytes()).unwrap();
        assert_eq!(s[0].name, "Ann Lee");
        assert_eq!(s[0].id, "900");
    }

    #[test]
    fn a_roster_without_names_or_with_a_repeated_id_is_one_line() {
        let e = parse(b"email,score\na@x,1\n").unwrap_err();
        assert!(
            e.starts_with("no column of student names (the header is: email, score)"),
            "{e}"
        );
        let e = parse(b"name,id\nA,1\nB,1\n").unwrap_err();
        assert!(e.starts_with("line 3: the id `1` is on an earlier line too"), "{e}");
        assert!(!e.contains('\n'));
    }
}
