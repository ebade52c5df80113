//! `arena grade` and `arena grade-class`: submissions against the house bots, scored by a rubric.

use super::common::RunArgs;
use crate::class::{ClassJob, grade_class};
use crate::games::Kind;
use crate::grade::{self, Grader, Rubric, rubric};
use crate::runner::GameDef;
use crate::runner::entrants::find_game;
use crate::tournament::Format;
use anyhow::{Context, bail};
use clap::Args;
use std::path::{Path, PathBuf};

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

/// Options of `arena grade-class`: the class graded on this machine, or one
/// of the steps that grade it in shards on others.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct GradeClassArgs {
    /// A step of a sharded grading run (docs/cluster.md).
    #[command(subcommand)]
    pub step: Option<Box<ClassStep>>,
    /// The class and how to grade it.
    #[command(flatten)]
    pub spec: ClassSpecArgs,
    /// Where to write the gradebook and each student's reports.
    #[arg(long, value_name = "DIR", default_value = "grades")]
    pub out: PathBuf,
}

/// What a class grading run is: the game, the class folder, the rubric, the limits.
#[derive(Debug, Args)]
pub struct ClassSpecArgs {
    /// The game (see `arena games`).
    #[arg(long, required = true)]
    pub game: Option<String>,
    /// The class folder: .wasm files named by student, a folder per student, or a Gradescope, Canvas or Moodle export (docs/grading.md).
    #[arg(value_name = "DIR", required = true)]
    pub dir: Option<PathBuf>,
    /// The rubric (TOML); the game's default rubric otherwise.
    #[arg(long, value_name = "FILE")]
    pub rubric: Option<PathBuf>,
    /// Games per rubric item [default: the rubric's, else 200].
    #[arg(long, allow_hyphen_values = true, value_parser = super::parse_games)]
    pub games: Option<u64>,
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

/// The steps of a class graded in shards on other machines.
#[derive(Debug, clap::Subcommand)]
pub enum ClassStep {
    /// Cut the class into shards of near-equal cost: writes the manifest into --work.
    #[command(allow_negative_numbers = true)]
    Plan(Box<super::class_shards::PlanArgs>),
    /// Grade one shard's students on this machine (resumable; idempotent).
    RunShard(super::class_shards::RunShardArgs),
    /// Merge the finished shards: the gradebook and reports `arena grade-class` writes on one machine.
    Merge(super::class_shards::MergeArgs),
    /// Write (and with --submit, submit) the Slurm job array that grades the shards, and the merge job.
    Slurm(super::shards::SlurmArgs),
    /// Each shard's state: done, running, failed or not started, with its students graded.
    Status(super::shards::StatusArgs),
}

/// Tournament formats for a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ClassTournament {
    /// Every pairing.
    RoundRobin,
    /// Two brackets, seeded by a short round robin.
    DoubleElimination,
}

/// The rubric's text and the name its errors use: the file's, or the game's default.
fn rubric_source(game: &dyn GameDef, path: Option<&Path>) -> anyhow::Result<(String, String)> {
    match path {
        Some(p) => Ok((
            std::fs::read_to_string(p).with_context(|| format!("{}: cannot read the rubric", p.display()))?,
            p.display().to_string(),
        )),
        None => Ok((
            game.default_rubric().to_string(),
            format!("default rubric of {}", game.name()),
        )),
    }
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
    let report = args
        .run
        .pool()?
        .install(|| grader.grade_submission(&student, &submission))?;
    if let Some(why) = &report.chosen_because {
        eprintln!("grading {} ({why})", report.file);
    }
    if let Some(path) = &args.gradescope {
        // No class tournament here: a `class-rating` leaderboard column is left out.
        let json = serde_json::to_string_pretty(&grade::gradescope::results(&report, &rubric, None))?;
        std::fs::write(path, json + "\n").with_context(|| format!("{}: cannot write", path.display()))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.text());
    }
    Ok(())
}

/// Run `arena grade-class`: the library's [`crate::class::grade_class`], printed.
pub fn run_class(args: GradeClassArgs) -> anyhow::Result<()> {
    if let Some(step) = args.step {
        return super::class_shards::run(*step);
    }
    let parts = class_parts(&args.spec)?;
    let job = class_job(&args.spec, &parts, &args.out);
    let outcome = args.spec.run.pool()?.install(|| grade_class(&job))?;
    print_class(&outcome, &args.out);
    Ok(())
}

/// What a class run is made of, from its flags.
pub(super) struct ClassParts {
    pub game: &'static dyn GameDef,
    pub rubric: Rubric,
    pub rubric_text: String,
    pub rubric_file: String,
    pub class: crate::grade::submissions::Class,
    pub sandbox: crate::sandbox::Sandbox,
}

/// The game, rubric, class folder and sandbox of the flags, with what
/// will be graded said on stderr.
pub(super) fn class_parts(spec: &ClassSpecArgs) -> anyhow::Result<ClassParts> {
    let game = find_game(spec.game.as_deref().unwrap_or_default())?;
    let (rubric_text, rubric_file) = rubric_source(game, spec.rubric.as_deref())?;
    let mut rubric = rubric::parse(&rubric_text, &rubric_file, game).map_err(anyhow::Error::msg)?;
    // `--illegal` on the command line wins over the rubric's `illegal`.
    if let Some(illegal) = spec.run.illegal {
        rubric.illegal = illegal;
    }
    if spec.tournament.is_some() && game.kind() != Kind::Duel && spec.tournament != Some(ClassTournament::RoundRobin) {
        bail!(
            "double-elimination needs a two-player game, and {} is not one; use --tournament round-robin",
            game.name()
        );
    }
    let dir = spec.dir.clone().unwrap_or_default();
    let class = super::common::read_class(&dir)?;
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
    let sandbox = spec.run.sandbox(game)?;
    Ok(ClassParts {
        game,
        rubric,
        rubric_text,
        rubric_file,
        class,
        sandbox,
    })
}

/// The library's class job for the flags.
pub(super) fn class_job<'a>(spec: &ClassSpecArgs, parts: &'a ClassParts, out: &'a Path) -> ClassJob<'a> {
    ClassJob {
        game: parts.game,
        rubric: &parts.rubric,
        rubric_name: spec.rubric.as_ref().map_or_else(
            || format!("the default rubric of {}", parts.game.name()),
            |p| p.display().to_string(),
        ),
        class: &parts.class,
        sandbox: &parts.sandbox,
        games: spec.games.map_or(parts.rubric.games, |g| g as usize),
        tournament: spec.tournament.map(|t| match t {
            ClassTournament::RoundRobin => Format::RoundRobin,
            ClassTournament::DoubleElimination => Format::DoubleElimination,
        }),
        tournament_games: spec.tournament_games as usize,
        out,
        export_for: spec.export_for.clone(),
        assignment: spec.assignment.clone(),
        progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
    }
}

/// Print a class run as `arena grade-class` does.
pub(super) fn print_class(outcome: &crate::class::ClassOutcome, out: &Path) {
    for note in &outcome.notes {
        eprintln!("{note}");
    }
    let same = grade::same_files(&outcome.reports);
    for report in &outcome.reports {
        println!(
            "{:<24} {:>6} / {:<6}{}",
            report.student,
            report.total,
            report.max_total,
            crate::class::flags(report, &same)
        );
    }
    println!(
        "wrote {} and a report per student in {}",
        outcome.gradebook.display(),
        out.display()
    );
}
