//! `arena grade` and `arena grade-class`: submissions against the house bots, scored by a rubric.

use super::common::{RunArgs, find_game};
use crate::games::Kind;
use crate::grade::{self, GradeReport, Grader, Rubric, rubric};
use crate::report;
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
    /// The submission: a .wasm component.
    #[arg(value_name = "SUBMISSION.wasm")]
    pub submission: PathBuf,
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
    /// A folder of submissions: every .wasm file, named by its stem (the student id).
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
        let _ = writeln!(
            s,
            "  {:>5} / {:<5} {}{}: {}",
            i.points,
            i.max_points,
            i.name,
            if i.visible { "" } else { " (hidden)" },
            i.note
        );
    }
    let _ = writeln!(
        s,
        "  seed {}, {} games per item, fuel {} per call, arena {}, wasmtime {}, sha256 {}",
        report.seed,
        report.games,
        report.limits.fuel,
        report.arena_version,
        report.wasmtime_version,
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
    let sandbox = args.run.sandbox(game)?;
    let grader = Grader {
        game,
        sandbox: &sandbox,
        rubric: &rubric,
        games: args.games.map_or(rubric.games, |g| g as usize),
    };
    let student = student_of(&args.submission);
    let (report, _) = args.run.pool()?.install(|| grader.grade(&student, &args.submission))?;
    if let Some(path) = &args.gradescope {
        let json = serde_json::to_string_pretty(&grade::gradescope(&report))?;
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
    let (wasm, skipped) = grade::submissions(&args.dir)
        .with_context(|| format!("{}: cannot read the submissions folder", args.dir.display()))?;
    for s in &skipped {
        eprintln!("skipped {}: not a .wasm file", s.display());
    }
    if wasm.is_empty() {
        bail!("{}: no .wasm submissions in this folder", args.dir.display());
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
        wasm.par_iter()
            .map(|p| grader.grade(&student_of(p), p))
            .collect::<Result<_, _>>()
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
                    grade::apply_ranking(r, &rubric, rank, n);
                }
            }
            let path = args.out.join("tournament.txt");
            std::fs::write(&path, super::tournament::table(game.title(), &report))
                .with_context(|| format!("{}: cannot write", path.display()))?;
            class_tournament = Some((spec, report));
        }
    }
    for (report, entrant) in &graded {
        let dir = args.out.join(&report.student);
        std::fs::create_dir_all(&dir).with_context(|| format!("{}: cannot create", dir.display()))?;
        std::fs::write(dir.join("report.json"), serde_json::to_string_pretty(report)? + "\n")?;
        std::fs::write(
            dir.join("results.json"),
            serde_json::to_string_pretty(&grade::gradescope(report))? + "\n",
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
    let gradebook = gradebook(&rubric, &graded);
    let path = args.out.join("gradebook.csv");
    std::fs::write(&path, &gradebook).with_context(|| format!("{}: cannot write", path.display()))?;
    // index.html and the replay pages: the class's first, then the tournament's, under one cap.
    let (keys, mut jobs): (Vec<report::ClassPage>, Vec<report::PageJob<'_>>) =
        report::class_pages(&grader, &graded).into_iter().unzip();
    let class_jobs = jobs.len();
    if let Some((spec, t)) = &class_tournament {
        jobs.extend(report::tournament_pages(spec, t, "tournament-"));
    }
    let replays = pool.install(|| report::write_replays(&args.out, &jobs))?;
    let index = args.out.join("index.html");
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
    for (report, _) in &graded {
        let status = report
            .reason
            .as_deref()
            .map_or(String::new(), |r| format!("  rejected: {r}"));
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

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// One row per student, one column per rubric item, and the total.
fn gradebook(rubric: &Rubric, graded: &[(GradeReport, Option<Entrant>)]) -> String {
    let same = grade::same_files(graded.iter().map(|(r, _)| r));
    let mut s = String::from("student,sha256,same_file_as");
    for item in &rubric.items {
        s.push(',');
        s.push_str(&csv_field(&item.name));
    }
    s.push_str(",total,max,status\n");
    for (r, _) in graded {
        s.push_str(&csv_field(&r.student));
        s.push(',');
        s.push_str(r.sha256.as_deref().unwrap_or(""));
        s.push(',');
        s.push_str(&csv_field(
            &same.get(&r.student).map_or(String::new(), |o| o.join("; ")),
        ));
        for i in &r.items {
            s.push_str(&format!(",{}", i.points));
        }
        s.push_str(&format!(
            ",{},{},{}\n",
            r.total,
            r.max_total,
            csv_field(r.reason.as_deref().unwrap_or(r.status))
        ));
    }
    s
}
