//! What a teacher takes away from the server: the gradebook, Canvas's
//! grade import, and the class as a zip that `arena grade-class` reads (a
//! Gradescope-style export: `submission_metadata.yml` and a
//! `submission_<id>` folder per student with the version that counts), so a
//! course can always leave the server and be graded offline, identically.

use crate::course::Course;
use crate::db::Person;
use crate::queue::{Queue, Submission};
use arena_runner::text::{csv_field, points};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;
use zip::write::SimpleFileOptions;

/// The folder of submissions inside the class zip.
pub const CLASS_FOLDER: &str = "class";
/// The instructions inside the class zip.
pub const HOW_TO: &str = "HOW-TO-GRADE.txt";

/// One student of the class, with their versions (newest first) and the one that counts.
pub struct Entry {
    /// The student.
    pub person: Person,
    /// Every version, newest first.
    pub versions: Vec<Submission>,
    /// The version that counts, if any.
    pub counted: Option<Submission>,
}

/// Every student on the roster, by name.
pub async fn class(queue: &Queue) -> Result<Vec<Entry>, String> {
    let students = queue.db.students().await?;
    let all = queue.all_versions().await?;
    Ok(students
        .into_iter()
        .map(|person| {
            let mut versions: Vec<Submission> = all.iter().filter(|v| v.person == person.id).cloned().collect();
            versions.sort_by_key(|v| std::cmp::Reverse(v.version));
            let counted = counted(&person, &versions).and_then(|c| versions.iter().find(|v| v.version == c).cloned());
            Entry {
                person,
                versions,
                counted,
            }
        })
        .collect())
}

/// The version that counts: the one chosen, else the latest on time, else the latest.
pub fn counted(person: &Person, versions: &[Submission]) -> Option<i64> {
    let accepted =
        |v: &&Submission| v.state == "accepted" || v.state == "queued" || v.state == "running" || v.state == "checking";
    person
        .counted
        .filter(|c| versions.iter().any(|v| v.version == *c))
        .or_else(|| {
            versions
                .iter()
                .filter(accepted)
                .filter(|v| v.late_days == 0)
                .map(|v| v.version)
                .max()
        })
        .or_else(|| versions.iter().filter(accepted).map(|v| v.version).max())
}

/// The gradebook: one row per student with the version that counts.
pub fn gradebook_csv(class: &[Entry]) -> String {
    let mut csv =
        String::from("id,name,email,version,points,max_points,late_days,state,sha256,same_file_as,plays_like\n");
    for (
        Entry {
            person: p,
            counted: c,
            versions,
        },
        same,
    ) in class.iter().zip(same_files(class))
    {
        let num = |x: Option<f64>| x.map_or(String::new(), points);
        // No version counts though the student sent some (every one was
        // rejected): the state of the newest and the 0 points that
        // `arena grade-class` gives the same file, and Canvas's file too.
        let newest = versions.first().filter(|_| c.is_none());
        let (score, max) = match (c, newest) {
            (Some(c), _) => (c.score, c.max_score),
            (None, Some(n)) if n.state != "failed" => (Some(0.0), n.max_score),
            _ => (None, None),
        };
        let state = c.as_ref().or(newest).map_or("none", |v| v.state.as_str());
        // The flags' columns as `arena grade-class` names them.
        csv.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{}\n",
            csv_field(&p.school_id),
            csv_field(&p.name),
            csv_field(&p.email),
            c.as_ref().map_or(String::new(), |c| c.version.to_string()),
            num(score),
            num(max),
            c.as_ref().map_or(String::new(), |c| c.late_days.to_string()),
            state,
            c.as_ref().map_or("", |c| c.sha256.as_str()),
            csv_field(&same.join("; ")),
            csv_field(&c.as_ref().and_then(Submission::plays_like).unwrap_or_default()),
        ));
    }
    csv
}

/// For each student of `class`, the classmates whose version that counts
/// is the very same file (same SHA-256), by name.
pub fn same_files(class: &[Entry]) -> Vec<Vec<&str>> {
    let mut by_sha: std::collections::BTreeMap<&str, Vec<&str>> = std::collections::BTreeMap::new();
    for e in class {
        if let Some(c) = &e.counted {
            by_sha
                .entry(c.sha256.as_str())
                .or_default()
                .push(e.person.name.as_str());
        }
    }
    class
        .iter()
        .map(|e| {
            e.counted
                .as_ref()
                .and_then(|c| by_sha.get(c.sha256.as_str()))
                .map(|names| names.iter().copied().filter(|n| *n != e.person.name).collect())
                .unwrap_or_default()
        })
        .collect()
}

/// Canvas's grade import for `assignment`: a student whose roster came
/// from Canvas is matched by their Canvas id, any other by the school's id
/// as `SIS User ID`. A student without a version that counts gets 0, as
/// `arena grade-class` gives them; one whose version is still being graded
/// an empty cell (Canvas keeps what it had).
pub fn canvas_csv(class: &[Entry], assignment: &str) -> String {
    use arena_grading::grade::lms::{CanvasRow, canvas_csv};
    let rows: Vec<CanvasRow> = class
        .iter()
        .map(|e| CanvasRow {
            student: e.person.name.clone(),
            canvas_id: e.person.canvas_id.clone(),
            sis_id: e.person.canvas_id.is_none().then(|| e.person.school_id.clone()),
            total: e.counted.as_ref().map_or(Some(0.0), |c| c.score),
        })
        .collect();
    canvas_csv(&rows, assignment)
}

/// The `arena grade-class` command that grades the unzipped class as the
/// server did: the course's game, rubric and limits, and the final
/// tournament whose places were `paid` as the class ranking.
pub fn offline_command(course: &Course, paid: Option<&Paid>) -> String {
    let c = &course.config;
    let mut cmd = format!(
        "arena grade-class {CLASS_FOLDER} --game {} --rubric rubric.toml --export-for canvas --assignment {} --out graded",
        c.game,
        shell_word(&c.name)
    );
    let l = &c.limits;
    for (flag, value) in [
        ("--fuel", l.fuel),
        ("--bank", l.bank),
        ("--memory", l.memory),
        ("--max-file-bytes", l.max_file_bytes),
    ] {
        if let Some(v) = value {
            cmd.push_str(&format!(" {flag} {v}"));
        }
    }
    if let Some(p) = paid {
        cmd.push_str(&format!(" --tournament {} --tournament-games {}", p.format, p.games));
    }
    cmd
}

/// `s` as one word for a POSIX shell.
fn shell_word(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// A string as a YAML double-quoted scalar (JSON's escaping is YAML's).
fn yaml(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Write the class zip to `out`: the counted versions in the layout
/// `arena grade-class` reads, the rubric, the command, the gradebook,
/// Canvas's import and each graded student's Gradescope `results.json`;
/// with the final tournament's places `paid`, its command plays it again.
pub fn write_zip(course: &Course, class: &[Entry], paid: Option<&Paid>, out: &Path) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| format!("{}: cannot write the class zip ({e})", out.display());
    let file = std::fs::File::create(out).map_err(|e| fail(&e))?;
    let mut zip = zip::ZipWriter::new(std::io::BufWriter::new(file));
    let text = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    // Bot files are already dense; storing them keeps a class of Python bots quick to zip.
    let stored = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(true);
    let put = |zip: &mut zip::ZipWriter<_>, name: &str, bytes: &[u8]| -> Result<(), String> {
        zip.start_file(name, text).map_err(|e| fail(&e))?;
        zip.write_all(bytes).map_err(|e| fail(&e))
    };
    let mut metadata = String::new();
    for e in class {
        let folder = format!("submission_{}", e.person.id);
        let p = &e.person;
        metadata.push_str(&format!(
            "{folder}:\n  :submitters:\n  - :name: {}\n    :sid: {}\n    :email: {}\n",
            yaml(&p.name),
            yaml(&p.school_id),
            yaml(&p.email)
        ));
        zip.add_directory(format!("{CLASS_FOLDER}/{folder}/"), text)
            .map_err(|e| fail(&e))?;
        let Some(v) = &e.counted else { continue };
        zip.start_file(format!("{CLASS_FOLDER}/{folder}/bot.wasm"), stored)
            .map_err(|e| fail(&e))?;
        let path = course.file_path(&v.sha256);
        let mut bot = std::fs::File::open(&path).map_err(|e| format!("{}: cannot read ({e})", path.display()))?;
        std::io::copy(&mut bot, &mut zip).map_err(|e| fail(&e))?;
        if let Ok(results) = std::fs::read(course.pages_dir(v.id).join(crate::work::RESULTS_FILE)) {
            put(&mut zip, &format!("gradescope/{folder}/results.json"), &results)?;
        }
    }
    put(
        &mut zip,
        &format!("{CLASS_FOLDER}/submission_metadata.yml"),
        metadata.as_bytes(),
    )?;
    let rubric = std::fs::read(course.rubric_path())
        .map_err(|e| format!("{}: cannot read ({e})", course.rubric_path().display()))?;
    put(&mut zip, "rubric.toml", &rubric)?;
    put(&mut zip, "gradebook.csv", gradebook_csv(class).as_bytes())?;
    put(
        &mut zip,
        arena_grading::files::CANVAS_GRADES,
        canvas_csv(class, &course.config.name).as_bytes(),
    )?;
    let how = format!(
        "The class of {name}, as the course server graded it: in {CLASS_FOLDER}/, each student's version that\n\
         counts (submission_metadata.yml names them); gradebook.csv and {canvas}, the server's grades;\n\
         gradescope/, each graded student's results.json.{ranking}\n\n\
         To grade it again without the server (the same rubric, seed and limits give the same grades):\n\n    {cmd}\n",
        ranking = paid.map_or(String::new(), |p| format!(
            "\nThe class ranking is the final tournament's ({}, {} games a match, the rubric's seed), which\n\
             the command plays again.",
            p.format, p.games
        )),
        name = course.config.name,
        canvas = arena_grading::files::CANVAS_GRADES,
        cmd = offline_command(course, paid)
    );
    put(&mut zip, HOW_TO, how.as_bytes())?;
    let mut inner = zip.finish().map_err(|e| fail(&e))?;
    inner.flush().map_err(|e| fail(&e))
}

/// A final tournament's ranking, as paid into the grades.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Paid {
    /// The format, as `arena grade-class --tournament` names it.
    pub format: String,
    /// Games per match.
    pub games: usize,
    /// Each entrant's place: the submission, its rank that earns points,
    /// its place in the standings, and its rating (or mean score).
    pub places: Vec<Place>,
    /// How many were ranked.
    pub ranked: usize,
}

/// One entrant's result in the final tournament.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Place {
    /// The submission that played.
    pub submission: i64,
    /// The rank that earns points (1 + the entrants clearly ahead).
    pub rank: usize,
    /// Its place in the standings.
    pub place: usize,
    /// Its rating, or a solitaire's mean score (Gradescope's leaderboard).
    pub rating: Option<f64>,
}
