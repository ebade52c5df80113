//! `arena tournament`: round robin, double elimination or Swiss, with ratings.

use super::common::RunArgs;
use crate::report::standings::{csv, markdown, table};
use crate::runner::entrants::{find_game, setup};
use crate::tournament::{Format, Seeding};
use arena_course::contest::{ContestJob, ContestOutcome, Contestant};
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Options of `arena tournament`.
#[derive(Debug, Args)]
pub struct TournamentArgs {
    /// The game (see `arena games`).
    #[arg(long)]
    pub game: String,
    /// The bots: .wasm files or house:NAME.
    #[arg(value_name = "BOT")]
    pub bots: Vec<String>,
    /// A class folder, read as grading reads it: a folder of .wasm files (named by their stems), a folder
    /// per student, or a Gradescope, Canvas or Moodle export (named as the gradebook names them).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The format.
    #[arg(long, value_enum)]
    pub format: Format,
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
    #[command(flatten)]
    pub run: RunArgs,
}

/// The bots to load: each BOT argument, then each student of --dir read
/// as grading reads a class folder (a folder of .wasm files, a folder per
/// student, or a Gradescope, Canvas or Moodle export), named as the
/// gradebook names them; and the students with no usable bot, with why.
type Specs = (Vec<(String, Option<String>)>, Vec<(String, String)>);

fn bot_specs(args: &TournamentArgs) -> anyhow::Result<Specs> {
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

/// Run `arena tournament`: [`arena_course::contest::run`], printed.
pub fn run(args: TournamentArgs) -> anyhow::Result<()> {
    let game = find_game(&args.game)?;
    let (specs, without) = bot_specs(&args)?;
    let sandbox = args.run.sandbox(game)?;
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // If a handler is already set (tests calling in-process), Ctrl-C keeps its default.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed));
    }
    let job = ContestJob {
        game,
        setup: setup(game, &sandbox, args.variant.clone(), args.run.illegal)?,
        sandbox: &sandbox,
        contestants: specs
            .into_iter()
            .map(|(bot, student)| Contestant { bot, student })
            .collect(),
        without,
        format: args.format,
        games: usize::try_from(args.games).unwrap_or(usize::MAX),
        rounds: args.rounds.map(|r| r as usize),
        seeding: args.seeding,
        seed: args.seed,
        out: args.out.as_deref(),
        stop,
        progress: std::io::stderr().is_terminal(),
        note: &|line| eprintln!("{line}"),
    };
    let ContestOutcome { report, index } = arena_course::contest::run(&job, &args.run.pool()?)?;
    if let Some((index, summary)) = index {
        eprintln!("wrote {}: {summary}", index.display());
    }
    let text = if args.json {
        serde_json::to_string_pretty(&report)? + "\n"
    } else if args.csv {
        csv(&report)
    } else if args.markdown {
        markdown(&report)
    } else {
        table(game.title(), &report)
    };
    print!("{text}");
    Ok(())
}
