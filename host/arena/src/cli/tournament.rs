//! `arena tournament`: round robin, double elimination or Swiss, with ratings.

use super::common::RunArgs;
use super::shards;
use crate::report::standings::{csv, markdown, table};
use crate::runner::GameDef;
use crate::runner::entrants::{find_game, setup};
use crate::sandbox::Sandbox;
use crate::tournament::{Format, Seeding};
use arena_batch::contest::{ContestJob, ContestOutcome, Contestant};
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
    #[arg(long, default_value = "10", allow_hyphen_values = true, value_parser = super::parse_games)]
    pub games: u64,
    /// Swiss rounds [default: log2(bots) + 1]; for games of more than two
    /// players, rounds of random tables [default: one per bot].
    #[arg(long, allow_hyphen_values = true, value_parser = super::parse_positive_u64)]
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
    Plan(Box<shards::PlanArgs>),
    /// Play one shard of a plan on this machine (resumable; idempotent).
    RunShard(shards::RunShardArgs),
    /// Merge the finished shards: the standings and report `arena tournament` gives on one machine.
    Merge(shards::MergeArgs),
    /// Write (and with --submit, submit) the Slurm job array that plays the shards, and the merge job.
    Slurm(shards::SlurmArgs),
    /// Each shard's state: done, running, failed or not started, with its games.
    Status(shards::StatusArgs),
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
        let class = super::common::read_class(dir)?;
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
        return shards::run(*step);
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
pub(super) type Loaded = (&'static dyn GameDef, Sandbox, Vec<Contestant>, Vec<(String, String)>);

/// The game, the sandbox and the bots of a tournament's flags.
pub(super) fn load_spec(spec: &SpecArgs) -> anyhow::Result<Loaded> {
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
pub(super) fn contest_job<'a>(
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
pub(super) fn print_outcome(
    game: &dyn GameDef,
    output: &OutputArgs,
    report: &crate::tournament::TournamentReport,
    index: Option<(PathBuf, String)>,
) {
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
