//! Grading a class: every submission against the rubric, an optional class
//! tournament for the ranking items, and everything a teacher takes away
//! (the gradebook, each student's reports, LMS grade files, `index.html`
//! with its replay pages). One library call, [`grade_class`], so the
//! command line and a course server grade a class the same way.

use anyhow::Context;
use arena_competition::tournament::{self, Engine, Format, Seeding, TournamentReport, TournamentSpec};
use arena_games::ForfeitReason;
use arena_grading::grade::lms::Lms;
use arena_grading::grade::submissions::{Class, Layout, Submission};
use arena_grading::grade::{self, GradeReport, Grader, Rubric};
use arena_report::report::{self, csv_field};
use arena_runner::runner::{Entrant, GameDef, GameSetup, SetupError};
use arena_sandbox::Sandbox;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// A class to grade and where to write the results.
pub struct ClassJob<'a> {
    /// The game.
    pub game: &'static dyn GameDef,
    /// The rubric (with the command line's `--illegal` applied).
    pub rubric: &'a Rubric,
    /// How the rubric is named in the report: its file, or the game's default.
    pub rubric_name: String,
    /// The submissions, as [`arena_grading::grade::submissions::find`] read them.
    pub class: &'a Class,
    /// The sandbox every bot runs in.
    pub sandbox: &'a Sandbox,
    /// Games per rubric item.
    pub games: usize,
    /// The class tournament's format, if one is run (round robin or double elimination).
    pub tournament: Option<Format>,
    /// Games per tournament match.
    pub tournament_games: usize,
    /// The folder the results are written to.
    pub out: &'a Path,
    /// LMS grade files to write besides the class folder's own LMS.
    pub export_for: Vec<Lms>,
    /// The assignment's name in LMS grade files.
    pub assignment: String,
    /// Whether to draw a progress bar for the tournament.
    pub progress: bool,
}

/// What a class run did: each student's report and what a teacher must read.
pub struct ClassOutcome {
    /// Every student's report, in the class's order.
    pub reports: Vec<GradeReport>,
    /// Lines for the teacher, in order: the files written, flags (identical
    /// files, plays like a house bot), a tournament that could not run.
    pub notes: Vec<String>,
    /// The gradebook's path.
    pub gradebook: PathBuf,
}

/// Grade every submission of `job.class`, run the class tournament if one
/// is asked for, and write the results into `job.out`. The caller picks
/// the thread pool (`pool.install(|| grade_class(..))`). An error is the
/// run's own (a folder it cannot write, an unknown house bot in the
/// rubric), never a student's.
pub fn grade_class(job: &ClassJob<'_>) -> anyhow::Result<ClassOutcome> {
    let graded = grade_each(&grader(job), &job.class.submissions)?;
    write_up(job, graded)
}

/// The grader a class job grades with.
pub fn grader<'a>(job: &ClassJob<'a>) -> Grader<'a> {
    Grader {
        game: job.game,
        sandbox: job.sandbox,
        rubric: job.rubric,
        games: job.games,
        progress: None,
    }
}

/// Everything after each student is graded, from their reports (and
/// their loaded bots, for the class tournament), in the class's order:
/// the tournament, every file written. Graded here or on other machines
/// (a sharded run), the same reports give the same files.
pub fn write_up(job: &ClassJob<'_>, graded: Vec<(GradeReport, Option<Entrant>)>) -> anyhow::Result<ClassOutcome> {
    std::fs::create_dir_all(job.out).with_context(|| format!("{}: cannot create", job.out.display()))?;
    let grader = grader(job);
    let mut notes = Vec::new();
    let mut graded = graded;
    let class_tournament = run_tournament(job, &mut graded, &mut notes)?;
    write_students(job, &grader, &graded, class_tournament.as_ref().map(|(_, t)| t))?;
    for (student, others) in grade::same_files(graded.iter().map(|(r, _)| r)) {
        notes.push(format!(
            "note: {student}'s file is byte-identical to {} (same SHA-256; flagged in the gradebook)",
            others.join(", ")
        ));
    }
    for (r, _) in &graded {
        if let Some(house) = &r.plays_like {
            notes.push(format!(
                "note: {} {} (flagged in the gradebook's plays_like column)",
                r.student,
                grade::plays_like_note(house)
            ));
        }
    }
    let gradebook_path = job.out.join(grade::GRADEBOOK_FILE);
    std::fs::write(&gradebook_path, gradebook(job.rubric, &graded))
        .with_context(|| format!("{}: cannot write", gradebook_path.display()))?;
    write_lms(job, &graded, &mut notes)?;
    write_index(job, &grader, &graded, class_tournament.as_ref(), &mut notes)?;
    Ok(ClassOutcome {
        reports: graded.into_iter().map(|(r, _)| r).collect(),
        notes,
        gradebook: gradebook_path,
    })
}

/// Grade each student on its own: one broken submission cannot touch another's grade.
pub fn grade_each(
    grader: &Grader<'_>,
    submissions: &[Submission],
) -> Result<Vec<(GradeReport, Option<Entrant>)>, SetupError> {
    submissions.par_iter().map(|s| grade_one(grader, s)).collect()
}

/// Grade one student: their report (with who they are in the class) and
/// their bot, loaded, when it loads.
pub fn grade_one(grader: &Grader<'_>, s: &Submission) -> Result<(GradeReport, Option<Entrant>), SetupError> {
    let started = std::time::Instant::now();
    let (mut report, entrant) = match &s.bot {
        Ok(c) => {
            let (mut r, e) = grader.grade(&s.student, &c.path)?;
            r.chosen_because = c.why.clone();
            (r, e)
        }
        Err(reason) => (grader.unusable(&s.student, &s.source, reason.clone()), None),
    };
    report.id = s.id.clone();
    report.email = s.email.clone();
    report.members = s.members.clone();
    report.folder = s.folder.clone();
    report.elapsed = started.elapsed();
    Ok((report, entrant))
}

/// The class tournament, if asked for and two submissions passed; the
/// class-ranking items are graded from its standings.
fn run_tournament<'a>(
    job: &ClassJob<'a>,
    graded: &mut [(GradeReport, Option<Entrant>)],
    notes: &mut Vec<String>,
) -> anyhow::Result<Option<(TournamentSpec<'a>, TournamentReport)>> {
    let Some(format) = job.tournament else {
        return Ok(None);
    };
    let entrants: Vec<Entrant> = graded
        .iter()
        .filter(|(r, _)| r.status == "graded")
        .filter_map(|(_, e)| e.clone())
        .collect();
    if entrants.len() < 2 {
        notes.push(format!(
            "no class tournament: {} submission{} passed the checks, and a tournament needs two; \
             the class ranking stays pending (not counted)",
            entrants.len(),
            if entrants.len() == 1 { "" } else { "s" }
        ));
        return Ok(None);
    }
    let spec = TournamentSpec {
        game: job.game,
        setup: GameSetup {
            illegal: job.rubric.illegal,
            ..GameSetup::new(job.sandbox)
        },
        entrants,
        disqualified: Vec::new(),
        format,
        games: job.tournament_games,
        rounds: None,
        seeding: Seeding::RoundRobin,
        seed: job.rubric.seed,
    };
    let engine = Engine::new(&spec, None, Arc::new(AtomicBool::new(false)), job.progress);
    let report = tournament::run(&spec, &engine)?;
    let n = report.standings.len();
    // Class points follow the rank beyond noise: bots the games
    // cannot tell apart (byte-identical ones among them) get the same.
    for (i, standing) in report.standings.iter().enumerate() {
        if let Some((r, _)) = graded.iter_mut().find(|(r, _)| r.student == standing.name) {
            let rank = tournament::rank_beyond_noise(&report.standings, i);
            grade::apply_ranking(r, job.rubric, rank, i + 1, n);
        }
    }
    // The tournament ran: whoever could not enter it gets 0 of its items.
    for (r, _) in graded.iter_mut() {
        grade::missed_ranking(r);
    }
    let path = job.out.join(grade::TOURNAMENT_FILE);
    let text = report::standings::table(job.game.title(), &report) + &ranks_for_points(&report);
    std::fs::write(&path, text).with_context(|| format!("{}: cannot write", path.display()))?;
    Ok(Some((spec, report)))
}

/// How the standings become the class-ranking points, when a place and
/// the rank that earns points differ: a teacher reading `tournament.txt`
/// sees why a student 4th in the table is ranked 2nd.
fn ranks_for_points(report: &TournamentReport) -> String {
    let rows = &report.standings;
    let differ: Vec<String> = (0..rows.len())
        .filter_map(|i| {
            let rank = tournament::rank_beyond_noise(rows, i);
            (rank != i + 1).then(|| {
                format!(
                    "  {}: {} in the standings, ranked {} for points ({} clearly ahead of it)",
                    rows[i].name,
                    arena_runner::text::ordinal(u32::try_from(i + 1).unwrap_or(u32::MAX)),
                    arena_runner::text::ordinal(u32::try_from(rank).unwrap_or(u32::MAX)),
                    match rank - 1 {
                        0 => "no bot is".to_string(),
                        1 => "only 1 bot is".to_string(),
                        k => format!("only {k} bots are"),
                    }
                )
            })
        })
        .collect();
    if differ.is_empty() {
        return String::new();
    }
    format!(
        "\nClass-ranking points follow each bot's rank beyond noise: 1 + the bots clearly ahead of \
         it (their rating minus its own more than 2.77 standard errors of that difference above 0). \
         Where that differs from the place above:\n{}\n",
        differ.join("\n")
    )
}

/// Each student's folder: report.json, Gradescope's results.json and the worst game's replay.
fn write_students(
    job: &ClassJob<'_>,
    grader: &Grader<'_>,
    graded: &[(GradeReport, Option<Entrant>)],
    tournament: Option<&TournamentReport>,
) -> anyhow::Result<()> {
    for (report, entrant) in graded {
        let dir = job.out.join(&report.folder);
        std::fs::create_dir_all(&dir).with_context(|| format!("{}: cannot create", dir.display()))?;
        std::fs::write(dir.join("report.json"), serde_json::to_string_pretty(report)? + "\n")?;
        let class_rating = tournament.and_then(|t| {
            let s = t.standings.iter().find(|s| s.name == report.student)?;
            // A solitaire has no rating: its mean score ranks it instead.
            s.rating.as_ref().map(|r| r.value).or(s.score.map(|e| e.mean))
        });
        std::fs::write(
            dir.join("results.json"),
            serde_json::to_string_pretty(&grade::gradescope::results(report, job.rubric, class_rating))? + "\n",
        )?;
        if let (Some((item, game_index)), Some(me)) = (report.worst, entrant) {
            std::fs::write(dir.join("worst-game.jsonl"), grader.replay(item, game_index, me)?)?;
        }
    }
    Ok(())
}

/// The grade files of every LMS asked for, and of the class folder's own.
fn write_lms(
    job: &ClassJob<'_>,
    graded: &[(GradeReport, Option<Entrant>)],
    notes: &mut Vec<String>,
) -> anyhow::Result<()> {
    let mut lms = job.export_for.clone();
    let own = match job.class.layout {
        Layout::Canvas => Some(Lms::Canvas),
        Layout::Moodle => Some(Lms::Moodle),
        _ => None,
    };
    lms.extend(own.filter(|l| !lms.contains(l)));
    let reports: Vec<&GradeReport> = graded.iter().map(|(r, _)| r).collect();
    for l in lms {
        let (csv, missing) = grade::lms::export(l, &reports, &job.assignment, job.class.layout);
        let file = job.out.join(l.file_name());
        std::fs::write(&file, csv).with_context(|| format!("{}: cannot write", file.display()))?;
        if !missing.is_empty() {
            notes.push(format!(
                "{}: {} of {} students have no {} (the class folder is not that LMS's export): fill in their rows before importing",
                file.display(),
                missing.len(),
                reports.iter().map(|r| r.members.len().max(1)).sum::<usize>(),
                l.id_name()
            ));
        }
        notes.push(format!("wrote {}: import it {}", file.display(), l.how_to_import()));
    }
    Ok(())
}

/// index.html and the replay pages: the class's first, then the tournament's, under one cap.
fn write_index(
    job: &ClassJob<'_>,
    grader: &Grader<'_>,
    graded: &[(GradeReport, Option<Entrant>)],
    tournament: Option<&(TournamentSpec<'_>, TournamentReport)>,
    notes: &mut Vec<String>,
) -> anyhow::Result<()> {
    let (keys, mut jobs): (Vec<report::ClassPage>, Vec<report::PageJob<'_>>) =
        report::class_pages(grader, graded).into_iter().unzip();
    let class_jobs = jobs.len();
    if let Some((spec, t)) = tournament {
        jobs.extend(report::tournament_pages(spec, t, "tournament-"));
    }
    let replays = report::write_replays(job.out, &jobs)?;
    let index = job.out.join(report::INDEX);
    let html = report::class_index(&report::ClassReport {
        game: job.game,
        rubric: job.rubric,
        rubric_name: job.rubric_name.clone(),
        games: grader.games,
        graded,
        pages: keys.into_iter().zip(replays.pages.iter().cloned()).collect(),
        tournament: tournament.map(|(spec, t)| (spec, t, replays.pages[class_jobs..].to_vec())),
        replays: &replays,
    });
    std::fs::write(&index, html).with_context(|| format!("{}: cannot write", index.display()))?;
    notes.push(format!("wrote {}: {}", index.display(), replays.summary()));
    Ok(())
}

/// The flags of a report a teacher must not miss, for the line of its grade:
/// `  plays like house:aggressive  identical file to bob`.
pub fn flags(report: &GradeReport, same: &std::collections::BTreeMap<String, Vec<String>>) -> String {
    let mut status = report
        .reason
        .as_deref()
        .map_or(String::new(), |r| format!("  rejected: {r}"));
    if let Some(house) = &report.plays_like {
        status.push_str(&format!("  plays like {house}"));
    }
    if let Some(others) = same.get(&report.student) {
        status.push_str(&format!("  identical file to {}", others.join(", ")));
    }
    status
}

/// One row per student, one column per rubric item, and the total.
fn gradebook(rubric: &Rubric, graded: &[(GradeReport, Option<Entrant>)]) -> String {
    let same = grade::same_files(graded.iter().map(|(r, _)| r));
    let mut s = String::from("student,sha256,same_file_as");
    for item in &rubric.items {
        s.push(',');
        s.push_str(&csv_field(&item.name));
    }
    s.push_str(",total,max,status,id,email,file,chosen_because,forfeits");
    for reason in ForfeitReason::ALL {
        s.push_str(&format!(",forfeits_{}", reason.as_str().replace('-', "_")));
    }
    s.push_str(",illegal_moves,calls,mean_fuel_per_call,max_fuel_per_call,worst_share_of_budget,plays_like\n");
    for (r, _) in graded {
        s.push_str(&csv_field(&r.student));
        s.push(',');
        s.push_str(r.sha256.as_deref().unwrap_or(""));
        s.push(',');
        s.push_str(&csv_field(
            &same.get(&r.student).map_or(String::new(), |o| o.join("; ")),
        ));
        for i in &r.items {
            if i.status == "pending" {
                s.push_str(",pending");
            } else {
                s.push_str(&format!(",{}", i.points));
            }
        }
        s.push_str(&format!(
            ",{},{},{}",
            r.total,
            r.max_total,
            csv_field(r.reason.as_deref().unwrap_or(r.status))
        ));
        let c = &r.conduct;
        // A submission that never played has no conduct to report: empty, not 0.
        let played = c.games > 0;
        let num = |x: String| if played { x } else { String::new() };
        s.push_str(&format!(
            ",{},{},{},{},{}",
            csv_field(r.id.as_deref().unwrap_or("")),
            csv_field(r.email.as_deref().unwrap_or("")),
            csv_field(&r.file),
            csv_field(r.chosen_because.as_deref().unwrap_or("")),
            num(c.total_forfeits().to_string())
        ));
        for reason in ForfeitReason::ALL {
            let n = c.forfeits.get(reason.as_str()).copied().unwrap_or(0);
            s.push_str(&format!(",{}", num(n.to_string())));
        }
        s.push_str(&format!(
            ",{},{},{},{},{},{}\n",
            num(c.illegal_moves.to_string()),
            num(c.calls.to_string()),
            num(format!("{:.0}", c.mean_fuel_per_call)),
            num(c.max_fuel_per_call.to_string()),
            num(c.worst_share_of_budget.to_string()),
            r.plays_like.as_deref().unwrap_or("")
        ));
    }
    s
}
