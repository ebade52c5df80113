//! `arena grade-class`: every submission of a class graded against the house
//! bots, with the class tournament, on this machine
//! ([`arena_batch::class`]); and its steps `plan | run-shard | merge |
//! slurm | status`: the class graded in shards on other machines and
//! written up as one machine writes it ([`arena_batch::class_shard`]), with
//! what they share with `arena tournament` from `shards.rs`.

use super::args::{parse_games, parse_positive_u64};
use super::common::{RunArgs, read_class};
use super::shards::{
    MergeArgs, RunShardArgs, SlurmArgs, StatusArgs, index_or_slurm, print_status, stop_on_ctrl_c, write_and_submit,
};
use anyhow::{Context, bail};
use arena_batch::class::{ClassJob, ClassOutcome, flags, grade_class};
use arena_batch::class_shard::{self, ClassPlan, ClassWork};
use arena_batch::shard::LimitChanges;
use arena_batch::slurm::{self, Progress};
use arena_competition::tournament::Format;
use arena_games::Kind;
use arena_grading::grade::submissions::Class;
use arena_grading::grade::{self, Rubric, rubric};
use arena_runner::runner::GameDef;
use arena_runner::runner::entrants::find_game;
use arena_sandbox::Sandbox;
use clap::Args;
use std::path::{Path, PathBuf};

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
    #[arg(long, allow_hyphen_values = true, value_parser = parse_games)]
    pub games: Option<u64>,
    /// Also run a class tournament and grade the class-ranking items.
    #[arg(long, value_name = "FORMAT")]
    pub tournament: Option<ClassTournament>,
    /// Games per tournament match.
    #[arg(long, default_value = "10", allow_hyphen_values = true, value_parser = parse_games)]
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
    Plan(Box<ClassPlanArgs>),
    /// Grade one shard's students on this machine (resumable; idempotent).
    #[command(mut_arg("index", |a| a.help("The shard to grade [default: $SLURM_ARRAY_TASK_ID]")))]
    RunShard(RunShardArgs),
    /// Merge the finished shards: the gradebook and reports `arena grade-class` writes on one machine.
    Merge(MergeArgs<ClassOutArgs>),
    /// Write (and with --submit, submit) the Slurm job array that grades the shards, and the merge job.
    Slurm(SlurmArgs),
    /// Each shard's state: done, running, failed or not started, with its students graded.
    Status(StatusArgs),
}

/// Tournament formats for a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ClassTournament {
    /// Every pairing.
    RoundRobin,
    /// Two brackets, seeded by a short round robin.
    DoubleElimination,
}

/// Where `arena grade-class merge` writes.
#[derive(Debug, Args)]
pub struct ClassOutArgs {
    /// Where to write the gradebook and each student's reports.
    #[arg(long, value_name = "DIR", default_value = "grades")]
    pub out: PathBuf,
}

/// Options of `arena grade-class plan`.
#[derive(Debug, Args)]
pub struct ClassPlanArgs {
    /// The class and how to grade it, with the flags of `arena grade-class`.
    #[command(flatten)]
    pub spec: ClassSpecArgs,
    /// Shards to cut it into.
    #[arg(long, value_parser = parse_positive_u64)]
    pub shards: u64,
    /// The shared work folder for the manifest and the shards' grades.
    #[arg(long, value_name = "D")]
    pub work: PathBuf,
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

/// Run `arena grade-class`: the library's [`arena_batch::class::grade_class`], printed; or one of its steps.
pub fn run(args: GradeClassArgs) -> anyhow::Result<()> {
    if let Some(step) = args.step {
        return run_step(*step);
    }
    let parts = class_parts(&args.spec)?;
    let job = class_job(&args.spec, &parts, &args.out);
    let outcome = args.spec.run.pool()?.install(|| grade_class(&job))?;
    print_class(&outcome, &args.out);
    Ok(())
}

/// What a class run is made of, from its flags.
struct ClassParts {
    pub game: &'static dyn GameDef,
    pub rubric: Rubric,
    pub rubric_text: String,
    pub rubric_file: String,
    pub class: Class,
    pub sandbox: Sandbox,
}

/// The game, rubric, class folder and sandbox of the flags, with what
/// will be graded said on stderr.
fn class_parts(spec: &ClassSpecArgs) -> anyhow::Result<ClassParts> {
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
    let class = read_class(&dir)?;
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
fn class_job<'a>(spec: &ClassSpecArgs, parts: &'a ClassParts, out: &'a Path) -> ClassJob<'a> {
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
fn print_class(outcome: &ClassOutcome, out: &Path) {
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
            flags(report, &same)
        );
    }
    println!(
        "wrote {} and a report per student in {}",
        outcome.gradebook.display(),
        out.display()
    );
}

/// Run a step of a class graded in shards.
fn run_step(step: ClassStep) -> anyhow::Result<()> {
    match step {
        ClassStep::Plan(a) => plan(*a),
        ClassStep::RunShard(a) => run_shard(a),
        ClassStep::Merge(a) => merge(a),
        ClassStep::Slurm(a) => slurm_step(a),
        ClassStep::Status(a) => status(a),
    }
}

fn plan(args: ClassPlanArgs) -> anyhow::Result<()> {
    let parts = class_parts(&args.spec)?;
    let out = args.work.join("unused");
    let job = class_job(&args.spec, &parts, &out);
    let plan = ClassPlan {
        job: &job,
        class_dir: args.spec.dir.as_deref().unwrap_or(std::path::Path::new(".")),
        rubric_text: parts.rubric_text.clone(),
        rubric_file: parts.rubric_file.clone(),
        illegal: args.spec.run.illegal,
        changes: LimitChanges::of(&args.spec.run.settings()?),
    };
    let shards = usize::try_from(args.shards).unwrap_or(usize::MAX);
    let m = class_shard::plan(&plan, shards, &args.work)?;
    let per: Vec<usize> = (0..m.shards)
        .map(|i| m.students.iter().filter(|s| s.shard == i).count())
        .collect();
    println!(
        "planned {} students in {} shards ({} to {} students each): {}",
        m.students.len(),
        m.shards,
        per.iter().min().unwrap_or(&0),
        per.iter().max().unwrap_or(&0),
        args.work.display()
    );
    println!(
        "next: `arena grade-class run-shard {0} --index I` for each I (in a Slurm array task, $SLURM_ARRAY_TASK_ID gives I), then `arena grade-class merge {0} --out DIR`",
        args.work.display()
    );
    Ok(())
}

fn run_shard(args: RunShardArgs) -> anyhow::Result<()> {
    let index = index_or_slurm(args.index)?;
    let base = args.node.settings()?;
    let stop = stop_on_ctrl_c();
    let out = class_shard::run_shard(&args.work, index, &base, &stop, &base.pool()?)?;
    println!(
        "shard {}: {} students ({} graded now, {} from its file)",
        out.index,
        out.students,
        out.graded,
        out.students - out.graded
    );
    Ok(())
}

fn merge(args: MergeArgs<ClassOutArgs>) -> anyhow::Result<()> {
    let base = args.node.settings()?;
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let out = &args.output.out;
    let (_, outcome) = class_shard::merge(&args.work, &base, out, progress, &base.pool()?)?;
    print_class(&outcome, out);
    Ok(())
}

fn work(w: &ClassWork) -> slurm::Work<'_> {
    slurm::Work {
        dir: &w.dir,
        shards: w.manifest.shards,
        command: "grade-class",
        // The class tournament's matches and every student's bot are the most a class merge holds.
        merge_mib: slurm::merge_mib(w.manifest.students.len().pow(2) / 2, w.manifest.students.len()),
    }
}

fn slurm_step(args: SlurmArgs) -> anyhow::Result<()> {
    let w = ClassWork::open(&args.work)?;
    write_and_submit(&args, work(&w))
}

fn status(args: StatusArgs) -> anyhow::Result<()> {
    let w = ClassWork::open(&args.work)?;
    let progress: Vec<Progress> = w
        .states()
        .into_iter()
        .map(|(planned, count, done)| Progress { done, count, planned })
        .collect();
    print_status(work(&w), &progress, "students");
    Ok(())
}
