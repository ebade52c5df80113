//! `arena grade` and `arena grade-class`: submissions against the house bots, scored by a rubric.

use super::common::RunArgs;
use crate::games::{ForfeitReason, Kind};
use crate::grade::{self, GradeReport, Grader, Rubric, rubric};
use crate::report;
use crate::report::csv_field;
use crate::runner::entrants::find_game;
use crate::runner::{Entrant, GameDef, GameSetup};
use crate::tournament::{self, Engine, Format, Seeding, TournamentSpec};
use anyhow::{Context, bail};
use clap::Args;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Options of `arena grade`.
#[derive(Debug, Args)]
pub struct GradeArgs {
    /// The game (see `arena games`).
    #[arg(long)]
    pub game: String,
    /// The submission: a .wasm component, or a folder holding one (its only .wasm, or the one nearest the top).
    #[arg(value_name = "SUBMISSION", required_unless_present = "print_rubric")]
    pub submission: Option<PathBuf>,
    /// Print the rubric (the game's default, or --rubric's once checked) and grade nothing: a start for your own.
    #[arg(long)]
    pub print_rubric: bool,
    /// The rubric (TOML); the game's default rubric otherwise (see docs/grading.md).
    #[arg(long, value_name = "FILE")]
    pub rubric: Option<PathBuf>,
    /// Games per rubric item [default: the rubric's, else 200].
    #[arg(long, allow_hyphen_values = true, value_parser = super::parse_games)]
    pub games: Option<u64>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write Gradescope's results.json to FILE.
    #[arg(long, value_name = "FILE")]
    pub gradescope: Option<PathBuf>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Options of `arena grade-class`.
#[derive(Debug, Args)]
pub struct GradeClassArgs {
    /// The game (see `arena games`).
    #[arg(long)]
    pub game: String,
    /// The class folder: .wasm files named by student, a folder per student, or a Gradescope, Canvas or Moodle export (docs/grading.md).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The rubric (TOML); the game's default rubric otherwise.
    #[arg(long, value_name = "FILE")]
    pub rubric: Option<PathBuf>,
    /// Games per rubric item [default: the rubric's, else 200].
    #[arg(long, allow_hyphen_values = true, value_parser = super::parse_games)]
    pub games: Option<u64>,
    /// Where to write the gradebook and each student's reports.
    #[arg(long, value_name = "DIR", default_value = "grades")]
    pub out: PathBuf,
    /// Also run a class tournament and grade the class-ranking items.
    #[arg(long, value_name = "FORMAT")]
    pub tournament: Option<ClassTournament>,
    /// Games per tournament match.
    #[arg(long, default_value = "10", allow_hyphen_values = true, value_parser = super::parse_games)]
    pub tournament_games: u64,
    /// Also write grades for this LMS to import (written anyway when the folder is its export).
    #[arg(long, value_name = "LMS")]
    pub export_for: Vec<grade::lms::Lms>,
    /// The assignment's name in the LMS grade file (Canvas's column).
    #[arg(long, value_name = "NAME", default_value = "Bot grade")]
    pub assignment: String,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Tournament formats for a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ClassTournament {
    /// Every pairing.
    RoundRobin,
    /// Two brackets, seeded by a short round robin.
    DoubleElimination,
}

fn load_rubric(game: &dyn GameDef, path: Option<&Path>) -> anyhow::Result<Rubric> {
    match path {
        Some(p) => {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("{}: cannot read the rubric", p.display()))?;
            rubric::parse(&text, &p.display().to_string(), game).map_err(anyhow::Error::msg)
        }
        None => rubric::parse(
            game.default_rubric(),
            &format!("default rubric of {}", game.name()),
            game,
        )
        .map_err(anyhow::Error::msg),
    }
}

fn student_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// The report for people.
pub fn text(report: &GradeReport) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} ({}): {} / {} points",
        report.student, report.game, report.total, report.max_total
    );
    if let Some(reason) = &report.reason {
        let _ = writeln!(s, "  rejected: {reason}");
    }
    for i in &report.items {
        // A pending item is not counted: "0 / 10" would read as points lost.
        let points = if i.status == "pending" {
            format!("{:>13}", "pending")
        } else {
            format!("{:>5} / {:<5}", i.points, i.max_points)
        };
        let _ = writeln!(
            s,
            "  {points} {}{}: {}",
            i.name,
            if i.visible { "" } else { " (hidden)" },
            i.note
        );
    }
    if let Some(conduct) = report.conduct.describe() {
        let _ = writeln!(s, "  conduct over {conduct}");
    }
    if let Some(house) = &report.plays_like {
        let _ = writeln!(s, "  {}", grade::plays_like_note(house));
    }
    if let Some(why) = &report.chosen_because {
        let _ = writeln!(s, "  file: {why}");
    }
    let _ = writeln!(
        s,
        "  seed {}, {} games per item, fuel {} per move, arena {}, wasmtime {}, fuel prices {}, sha256 {}",
        report.seed,
        report.games,
        crate::sandbox::fuel_amount(report.limits.fuel),
        report.arena_version,
        report.wasmtime_version,
        report.fuel_prices,
        report.sha256.as_deref().unwrap_or("-")
    );
    s
}

/// Run `arena grade`.
pub fn run(args: GradeArgs) -> anyhow::Result<()> {
    let game = find_game(&args.game)?;
    let mut rubric = load_rubric(game, args.rubric.as_deref())?;
    // `--illegal` on the command line wins over the rubric's `illegal`.
    if let Some(illegal) = args.run.illegal {
        rubric.illegal = illegal;
    }
    let Some(submission) = args.submission.clone().filter(|_| !args.print_rubric) else {
        match &args.rubric {
            Some(p) => print!("{}", std::fs::read_to_string(p)?),
            None => print!("{}", game.default_rubric()),
        }
        return Ok(());
    };
    let sandbox = args.run.sandbox(game)?;
    let grader = Grader {
        game,
        sandbox: &sandbox,
        rubric: &rubric,
        games: args.games.map_or(rubric.games, |g| g as usize),
    };
    let student = student_of(&submission);
    // A folder (Gradescope's /autograder/submission): its one .wasm is the bot.
    let chosen = if submission.is_dir() {
        grade::submissions::choose(&submission)
    } else {
        Ok(grade::submissions::Chosen {
            path: submission.clone(),
            why: None,
        })
    };
    let started = std::time::Instant::now();
    let (mut report, _) = match &chosen {
        Ok(c) => {
            if let Some(why) = &c.why {
                eprintln!("grading {} ({why})", c.path.display());
            }
            let (mut r, e) = args.run.pool()?.install(|| grader.grade(&student, &c.path))?;
            r.chosen_because = c.why.clone();
            (r, e)
        }
        Err(reason) => (grader.unusable(&student, &submission, reason.clone()), None),
    };
    report.elapsed = started.elapsed();
    if let Some(path) = &args.gradescope {
        // No class tournament here: a `class-rating` leaderboard column is left out.
        let json = serde_json::to_string_pretty(&grade::gradescope::results(&report, &rubric, None))?;
        std::fs::write(path, json + "\n").with_context(|| format!("{}: cannot write", path.display()))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", text(&report));
    }
    Ok(())
}

/// Run `arena grade-class`.
pub fn run_class(args: GradeClassArgs) -> anyhow::Result<()> {
    let game = find_game(&args.game)?;
    let mut rubric = load_rubric(game, args.rubric.as_deref())?;
    // `--illegal` on the command line wins over the rubric's `illegal`.
    if let Some(illegal) = args.run.illegal {
        rubric.illegal = illegal;
    }
    if args.tournament.is_some() && game.kind() != Kind::Duel && args.tournament != Some(ClassTournament::RoundRobin) {
        bail!(
            "double-elimination needs a two-player game, and {} is not one; use --tournament round-robin",
            game.name()
        );
    }
    let class = super::common::read_class(&args.dir)?;
    for s in &class.submissions {
        match &s.bot {
            Ok(c) => {
                if let Some(why) = &c.why {
                    eprintln!("{}: grading {} ({why})", s.student, c.path.display());
                }
            }
            Err(reason) => eprintln!("{}: no usable bot in {}: {reason}", s.student, s.source.display()),
        }
    }
    let sandbox = args.run.sandbox(game)?;
    let grader = Grader {
        game,
        sandbox: &sandbox,
        rubric: &rubric,
        games: args.games.map_or(rubric.games, |g| g as usize),
    };
    std::fs::create_dir_all(&args.out).with_context(|| format!("{}: cannot create", args.out.display()))?;
    let pool = args.run.pool()?;
    // Each student is graded on its own; one broken submission cannot touch another's grade.
    let mut graded: Vec<(GradeReport, Option<Entrant>)> = pool.install(|| {
        class
            .submissions
            .par_iter()
            .map(|s| {
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
            })
            .collect::<Result<_, crate::runner::SetupError>>()
    })?;
    let mut class_tournament: Option<(TournamentSpec<'_>, tournament::TournamentReport)> = None;
    if let Some(format) = args.tournament {
        let entrants: Vec<Entrant> = graded
            .iter()
            .filter(|(r, _)| r.status == "graded")
            .filter_map(|(_, e)| e.clone())
            .collect();
        if entrants.len() >= 2 {
            let spec = TournamentSpec {
                game,
                setup: GameSetup {
                    illegal: rubric.illegal,
                    ..GameSetup::new(&sandbox)
                },
                entrants,
                disqualified: Vec::new(),
                format: match format {
                    ClassTournament::RoundRobin => Format::RoundRobin,
                    ClassTournament::DoubleElimination => Format::DoubleElimination,
                },
                games: args.tournament_games as usize,
                rounds: None,
                seeding: Seeding::RoundRobin,
                seed: rubric.seed,
            };
            let engine = Engine::new(
                &spec,
                None,
                Arc::new(AtomicBool::new(false)),
                std::io::IsTerminal::is_terminal(&std::io::stderr()),
            );
            let report = pool.install(|| tournament::run(&spec, &engine))?;
            let n = report.standings.len();
            // Class points follow the rank beyond noise: bots the games
            // cannot tell apart (byte-identical ones among them) get the same.
            for (i, standing) in report.standings.iter().enumerate() {
                if let Some((r, _)) = graded.iter_mut().find(|(r, _)| r.student == standing.name) {
                    let rank = crate::tournament::rank_beyond_noise(&report.standings, i);
                    grade::apply_ranking(r, &rubric, rank, i + 1, n);
                }
            }
            // The tournament ran: whoever could not enter it gets 0 of its items.
            for (r, _) in graded.iter_mut() {
                grade::missed_ranking(r);
            }
            let path = args.out.join(grade::TOURNAMENT_FILE);
            std::fs::write(&path, super::tournament::table(game.title(), &report))
                .with_context(|| format!("{}: cannot write", path.display()))?;
            class_tournament = Some((spec, report));
        } else {
            eprintln!(
                "no class tournament: {} submission{} passed the checks, and a tournament needs two; \
                 the class ranking stays pending (not counted)",
                entrants.len(),
                if entrants.len() == 1 { "" } else { "s" }
            );
        }
    }
    for (report, entrant) in &graded {
        let dir = args.out.join(&report.folder);
        std::fs::create_dir_all(&dir).with_context(|| format!("{}: cannot create", dir.display()))?;
        std::fs::write(dir.join("report.json"), serde_json::to_string_pretty(report)? + "\n")?;
        let class_rating = class_tournament.as_ref().and_then(|(_, t)| {
            let s = t.standings.iter().find(|s| s.name == report.student)?;
            // A solitaire has no rating: its mean score ranks it instead.
            s.rating.map(|r| r.value).or(s.score.map(|e| e.mean))
        });
        std::fs::write(
            dir.join("results.json"),
            serde_json::to_string_pretty(&grade::gradescope::results(report, &rubric, class_rating))? + "\n",
        )?;
        if let (Some((item, game_index)), Some(me)) = (report.worst, entrant) {
            std::fs::write(dir.join("worst-game.jsonl"), grader.replay(item, game_index, me)?)?;
        }
    }
    for (student, others) in grade::same_files(graded.iter().map(|(r, _)| r)) {
        eprintln!(
            "note: {student}'s file is byte-identical to {} (same SHA-256; flagged in the gradebook)",
            others.join(", ")
        );
    }
    for (r, _) in &graded {
        if let Some(house) = &r.plays_like {
            eprintln!(
                "note: {} {} (flagged in the gradebook's plays_like column)",
                r.student,
                grade::plays_like_note(house)
            );
        }
    }
    let gradebook = gradebook(&rubric, &graded);
    let path = args.out.join(grade::GRADEBOOK_FILE);
    std::fs::write(&path, &gradebook).with_context(|| format!("{}: cannot write", path.display()))?;
    let mut lms = args.export_for.clone();
    let own = match class.layout {
        grade::submissions::Layout::Canvas => Some(grade::lms::Lms::Canvas),
        grade::submissions::Layout::Moodle => Some(grade::lms::Lms::Moodle),
        _ => None,
    };
    lms.extend(own.filter(|l| !lms.contains(l)));
    for l in lms {
        let reports: Vec<&GradeReport> = graded.iter().map(|(r, _)| r).collect();
        let (csv, missing) = grade::lms::export(l, &reports, &args.assignment, class.layout);
        let file = args.out.join(l.file_name());
        std::fs::write(&file, csv).with_context(|| format!("{}: cannot write", file.display()))?;
        if !missing.is_empty() {
            eprintln!(
                "{}: {} of {} students have no {} (the class folder is not that LMS's export): fill in their rows before importing",
                file.display(),
                missing.len(),
                reports.iter().map(|r| r.members.len().max(1)).sum::<usize>(),
                l.id_name()
            );
        }
        eprintln!("wrote {}: import it {}", file.display(), l.how_to_import());
    }
    // index.html and the replay pages: the class's first, then the tournament's, under one cap.
    let (keys, mut jobs): (Vec<report::ClassPage>, Vec<report::PageJob<'_>>) =
        report::class_pages(&grader, &graded).into_iter().unzip();
    let class_jobs = jobs.len();
    if let Some((spec, t)) = &class_tournament {
        jobs.extend(report::tournament_pages(spec, t, "tournament-"));
    }
    let replays = pool.install(|| report::write_replays(&args.out, &jobs))?;
    let index = args.out.join(crate::report::INDEX);
    let html = report::class_index(&report::ClassReport {
        game,
        rubric: &rubric,
        rubric_name: args.rubric.as_ref().map_or_else(
            || format!("the default rubric of {}", game.name()),
            |p| p.display().to_string(),
        ),
        games: grader.games,
        graded: &graded,
        pages: keys.into_iter().zip(replays.pages.iter().cloned()).collect(),
        tournament: class_tournament
            .as_ref()
            .map(|(spec, t)| (spec, t, replays.pages[class_jobs..].to_vec())),
        replays: &replays,
    });
    std::fs::write(&index, html).with_context(|| format!("{}: cannot write", index.display()))?;
    eprintln!("wrote {}: {}", index.display(), replays.summary());
    let same = grade::same_files(graded.iter().map(|(r, _)| r));
    for (report, _) in &graded {
        let mut status = report
            .reason
            .as_deref()
            .map_or(String::new(), |r| format!("  rejected: {r}"));
        // The flags a teacher must not miss, on the line of the grade itself.
        if let Some(house) = &report.plays_like {
            status.push_str(&format!("  plays like {house}"));
        }
        if let Some(others) = same.get(&report.student) {
            status.push_str(&format!("  identical file to {}", others.join(", ")));
        }
        println!(
            "{:<24} {:>6} / {:<6}{status}",
            report.student, report.total, report.max_total
        );
    }
    println!(
        "wrote {} and a report per student in {}",
        path.display(),
        args.out.display()
    );
    Ok(())
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
