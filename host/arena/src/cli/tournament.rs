//! `arena tournament`: round robin, double elimination or Swiss, with
//! ratings, on this machine ([`arena_batch::contest`]); and its steps
//! `plan | run-shard | merge | slurm | status`: a round robin cut into
//! shards, played anywhere, merged into what one machine gives
//! ([`arena_batch::shard`]), with what they share with `arena grade-class`
//! from `shards.rs`.

use super::args::{parse_games, parse_positive_u64};
use super::common::{RunArgs, read_class};
use super::shards::{
    MergeArgs, RunShardArgs, SlurmArgs, StatusArgs, index_or_slurm, print_status, stop_on_ctrl_c, write_and_submit,
};
use arena_batch::contest::{ContestJob, ContestOutcome, Contestant};
use arena_batch::shard::{self, LimitChanges, MergeRun, ShardRun, WorkFolder};
use arena_batch::slurm;
use arena_competition::tournament::{Format, Seeding, TournamentReport};
use arena_report::report::standings::{csv, markdown, table};
use arena_runner::runner::GameDef;
use arena_runner::runner::entrants::{find_game, setup};
use arena_sandbox::Sandbox;
use clap::{Args, Subcommand};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Options of `arena tournament`: a tournament on this machine, or one of
/// the steps that cut a round robin into shards for other machines.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct TournamentArgs {
    /// A step of a sharded tournament (docs/cluster.md).
    #[command(subcommand)]
    pub step: Option<Box<Step>>,
    /// The tournament.
    #[command(flatten)]
    pub spec: SpecArgs,
    /// Where the results go.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// What a tournament is: its game, bots, format, games, seed and limits.
#[derive(Debug, Args)]
pub struct SpecArgs {
    /// The game (see `arena games`).
    #[arg(long, required = true)]
    pub game: Option<String>,
    /// The bots: .wasm files or house:NAME.
    #[arg(value_name = "BOT")]
    pub bots: Vec<String>,
    /// A class folder, read as grading reads it: a folder of .wasm files (named by their stems), a folder
    /// per student, or a Gradescope, Canvas or Moodle export (named as the gradebook names them).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The format.
    #[arg(long, value_enum, required = true)]
    pub format: Option<Format>,
    /// Games per match (each deal played from every seat).
    #[arg(long, default_value = "10", allow_hyphen_values = true, value_parser = parse_games)]
    pub games: u64,
    /// Swiss rounds [default: log2(bots) + 1]; for games of more than two
    /// players, rounds of random tables [default: one per bot].
    #[arg(long, allow_hyphen_values = true, value_parser = parse_positive_u64)]
    pub rounds: Option<u64>,
    /// Double elimination seeding: the order given, or a short round robin.
    #[arg(long, value_enum, default_value = "order")]
    pub seeding: Seeding,
    /// The tournament seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Rules variant.
    #[arg(long)]
    pub variant: Option<String>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Where a tournament's results go.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Folder for the journal (to resume after a stop) and the standings files.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print the standings as JSON.
    #[arg(long, conflicts_with_all = ["csv", "markdown"])]
    pub json: bool,
    /// Print the standings as CSV.
    #[arg(long, conflicts_with = "markdown")]
    pub csv: bool,
    /// Print the standings as a Markdown table.
    #[arg(long)]
    pub markdown: bool,
}

/// The steps of a tournament played in shards on other machines.
#[derive(Debug, Subcommand)]
pub enum Step {
    /// Cut a round robin into shards of near-equal cost: writes the manifest and the plan into --work.
    #[command(allow_negative_numbers = true)]
    Plan(Box<PlanArgs>),
    /// Play one shard of a plan on this machine (resumable; idempotent).
    RunShard(RunShardArgs),
    /// Merge the finished shards: the standings and report `arena tournament` gives on one machine.
    Merge(MergeArgs<OutputArgs>),
    /// Write (and with --submit, submit) the Slurm job array that plays the shards, and the merge job.
    Slurm(SlurmArgs),
    /// Each shard's state: done, running, failed or not started, with its games.
    Status(StatusArgs),
}

/// Options of `arena tournament plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// The tournament, with the flags of `arena tournament`.
    #[command(flatten)]
    pub spec: SpecArgs,
    /// Shards to cut it into (one Slurm array task each).
    #[arg(long, value_parser = parse_positive_u64)]
    pub shards: u64,
    /// The shared work folder for the manifest, the plan and the shards' results.
    #[arg(long, value_name = "D")]
    pub work: PathBuf,
}

/// The bots to load: each BOT argument, then each student of --dir read
/// as grading reads a class folder (a folder of .wasm files, a folder per
/// student, or a Gradescope, Canvas or Moodle export), named as the
/// gradebook names them; and the students with no usable bot, with why.
type Specs = (Vec<(String, Option<String>)>, Vec<(String, String)>);

fn bot_specs(args: &SpecArgs) -> anyhow::Result<Specs> {
    let mut specs: Vec<(String, Option<String>)> = args.bots.iter().map(|b| (b.clone(), None)).collect();
    let mut without = Vec::new();
    if let Some(dir) = &args.dir {
        let class = read_class(dir)?;
        for s in class.submissions {
            match s.bot {
                Ok(chosen) => specs.push((chosen.path.display().to_string(), Some(s.student))),
                Err(why) => without.push((s.student, why)),
            }
        }
    }
    Ok((specs, without))
}

/// Run `arena tournament`: [`arena_batch::contest::run`], printed; or one of its steps.
pub fn run(args: TournamentArgs) -> anyhow::Result<()> {
    if let Some(step) = args.step {
        return run_step(*step);
    }
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // If a handler is already set (tests calling in-process), Ctrl-C keeps its default.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed));
    }
    let spec = &args.spec;
    let (game, sandbox, contestants, without) = load_spec(spec)?;
    let job = contest_job(
        spec,
        game,
        &sandbox,
        contestants,
        without,
        args.output.out.as_deref(),
        stop,
    )?;
    let ContestOutcome { report, index } = arena_batch::contest::run(&job, &spec.run.pool()?)?;
    print_outcome(game, &args.output, &report, index);
    Ok(())
}

/// A tournament's game, sandbox, bots, and the students without a bot.
type Loaded = (&'static dyn GameDef, Sandbox, Vec<Contestant>, Vec<(String, String)>);

/// The game, the sandbox and the bots of a tournament's flags.
fn load_spec(spec: &SpecArgs) -> anyhow::Result<Loaded> {
    let game = find_game(spec.game.as_deref().unwrap_or_default())?;
    let (specs, without) = bot_specs(spec)?;
    let sandbox = spec.run.sandbox(game)?;
    let contestants = specs
        .into_iter()
        .map(|(bot, student)| Contestant { bot, student })
        .collect();
    Ok((game, sandbox, contestants, without))
}

/// The library's job for a tournament's flags.
fn contest_job<'a>(
    spec: &SpecArgs,
    game: &'static dyn GameDef,
    sandbox: &'a Sandbox,
    contestants: Vec<Contestant>,
    without: Vec<(String, String)>,
    out: Option<&'a std::path::Path>,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<ContestJob<'a>> {
    Ok(ContestJob {
        game,
        setup: setup(game, sandbox, spec.variant.clone(), spec.run.illegal)?,
        sandbox,
        contestants,
        without,
        format: spec.format.unwrap_or(Format::RoundRobin),
        games: usize::try_from(spec.games).unwrap_or(usize::MAX),
        rounds: spec.rounds.map(|r| r as usize),
        seeding: spec.seeding,
        seed: spec.seed,
        out,
        stop,
        progress: std::io::stderr().is_terminal(),
        note: &|line| eprintln!("{line}"),
        elsewhere: None,
    })
}

/// Print a finished tournament as the output flags ask.
fn print_outcome(game: &dyn GameDef, output: &OutputArgs, report: &TournamentReport, index: Option<(PathBuf, String)>) {
    if let Some((index, summary)) = index {
        eprintln!("wrote {}: {summary}", index.display());
    }
    let text = if output.json {
        serde_json::to_string_pretty(report).unwrap_or_default() + "\n"
    } else if output.csv {
        csv(report)
    } else if output.markdown {
        markdown(report)
    } else {
        table(game.title(), report)
    };
    print!("{text}");
}

/// Run a step of a sharded tournament.
fn run_step(step: Step) -> anyhow::Result<()> {
    match step {
        Step::Plan(a) => plan(*a),
        Step::RunShard(a) => run_shard(a),
        Step::Merge(a) => merge(a),
        Step::Slurm(a) => slurm_step(a),
        Step::Status(a) => status(a),
    }
}

fn plan(args: PlanArgs) -> anyhow::Result<()> {
    let spec = &args.spec;
    let (game, sandbox, contestants, without) = load_spec(spec)?;
    let job = contest_job(
        spec,
        game,
        &sandbox,
        contestants,
        without,
        None,
        Arc::new(AtomicBool::new(false)),
    )?;
    let changes = LimitChanges::of(&spec.run.settings()?);
    let shards = usize::try_from(args.shards).unwrap_or(usize::MAX);
    let outcome = shard::plan(&job, &changes, shards, &args.work, &spec.run.pool()?)?;
    let m = &outcome.manifest;
    println!(
        "planned {} matches ({} games) of {} bots in {} shards: {}",
        m.matches,
        m.total_games,
        m.bots.len(),
        m.shards,
        args.work.display()
    );
    let costs: Vec<f64> = outcome.shards.iter().map(|s| s.cost).collect();
    let (lo, hi) = costs
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), &c| (lo.min(c), hi.max(c)));
    let games: Vec<usize> = outcome.shards.iter().map(|s| s.games).collect();
    println!(
        "each shard: {} to {} games; estimated cost within {:.1}% of each other (a Python or JavaScript bot's game counts about 30 of a Rust or C bot's)",
        games.iter().min().unwrap_or(&0),
        games.iter().max().unwrap_or(&0),
        if hi > 0.0 { 100.0 * (hi - lo) / hi } else { 0.0 }
    );
    println!(
        "next: `arena tournament slurm {0} --submit` on a Slurm cluster, or `arena tournament run-shard {0} --index I` for each I, then `arena tournament merge {0}`",
        args.work.display()
    );
    Ok(())
}

fn run_shard(args: RunShardArgs) -> anyhow::Result<()> {
    let index = index_or_slurm(args.index)?;
    let base = args.node.settings()?;
    let run = ShardRun {
        work: &args.work,
        index,
        stop: stop_on_ctrl_c(),
        progress: std::io::stderr().is_terminal(),
        note: &|line| eprintln!("{line}"),
        base: base.clone(),
    };
    let out = shard::run_shard(&run, &base.pool()?)?;
    println!(
        "shard {}: {} matches, {} games ({} played now, {} from its journal)",
        out.index,
        out.matches,
        out.games,
        out.played,
        out.games.saturating_sub(out.played)
    );
    Ok(())
}

fn merge(args: MergeArgs<OutputArgs>) -> anyhow::Result<()> {
    let base = args.node.settings()?;
    let run = MergeRun {
        work: &args.work,
        base: base.clone(),
        out: args.output.out.as_deref(),
        note: &|line| eprintln!("{line}"),
    };
    let (manifest, outcome) = shard::merge(&run, &base.pool()?)?;
    let game = find_game(&manifest.game)?;
    print_outcome(game, &args.output, &outcome.report, outcome.index);
    Ok(())
}

/// The progress of each shard of the tournament plan in `work`.
fn tournament_progress(work: &WorkFolder) -> anyhow::Result<Vec<slurm::Progress>> {
    Ok(shard::shard_states(work)?
        .into_iter()
        .map(|(load, state)| slurm::Progress {
            done: matches!(state, shard::ShardState::Done(_)),
            count: match state {
                shard::ShardState::Done(d) => d.games,
                shard::ShardState::Started { games } => games,
                _ => 0,
            },
            planned: load.games,
        })
        .collect())
}

fn slurm_step(args: SlurmArgs) -> anyhow::Result<()> {
    let work = WorkFolder::open(&args.work)?;
    write_and_submit(
        &args,
        slurm::Work {
            dir: &args.work,
            shards: work.manifest.shards,
            command: "tournament",
            merge_mib: slurm::merge_mib(work.manifest.matches, work.manifest.bots.len()),
        },
    )
}

fn status(args: StatusArgs) -> anyhow::Result<()> {
    let work = WorkFolder::open(&args.work)?;
    let progress = tournament_progress(&work)?;
    print_status(
        slurm::Work {
            dir: &args.work,
            shards: work.manifest.shards,
            command: "tournament",
            merge_mib: 0,
        },
        &progress,
        "games",
    );
    Ok(())
}
