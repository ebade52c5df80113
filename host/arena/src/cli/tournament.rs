//! `arena tournament`: round robin, double elimination or Swiss, with ratings.

use super::common::RunArgs;
use crate::report::standings::{csv, markdown, table, write_outputs};
use crate::runner::Entrant;
use crate::runner::entrants::{entrant, find_game, setup};
use crate::tournament::{self, Engine, Format, Journal, Seeding, TournamentSpec};
use anyhow::{Context, bail};
use clap::Args;
use rayon::prelude::*;
use serde_json::json;
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

/// Run `arena tournament`.
pub fn run(args: TournamentArgs) -> anyhow::Result<()> {
    let game = find_game(&args.game)?;
    let (specs, without) = bot_specs(&args)?;
    if specs.len() < 2 {
        bail!("a tournament needs at least two bots, got {}", specs.len());
    }
    let sandbox = args.run.sandbox(game)?;
    let setup = setup(game, &sandbox, args.variant.clone(), args.run.illegal)?;
    let mut entrants: Vec<Entrant> = Vec::new();
    let mut disqualified = Vec::new();
    for (name, why) in without {
        eprintln!("disqualified {name}: {why}");
        disqualified.push((name, why));
    }
    let pool = args.run.pool()?;
    // Compiling is the slow part of loading: do it on every core, then take
    // the results in the order given so names and seeds do not depend on timing.
    let loaded: Vec<anyhow::Result<Entrant>> = pool.install(|| {
        specs
            .par_iter()
            .map(|(spec, _)| entrant(game, &sandbox, spec))
            .collect()
    });
    for ((spec, student), result) in specs.iter().zip(loaded) {
        match result {
            Ok(mut e) => {
                if let Some(student) = student {
                    e.name.clone_from(student);
                }
                e.name = crate::runner::entrants::unique_name(&e.name, &entrants);
                entrants.push(e);
            }
            Err(err) if !spec.starts_with("house:") => {
                let name = student.clone().unwrap_or_else(|| {
                    PathBuf::from(spec)
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or(spec.clone())
                });
                eprintln!("disqualified {name}: {err:#}");
                disqualified.push((name, format!("{err:#}")));
            }
            Err(err) => return Err(err),
        }
    }
    let spec = TournamentSpec {
        game,
        setup,
        entrants,
        disqualified,
        format: args.format,
        games: usize::try_from(args.games).unwrap_or(usize::MAX),
        rounds: args.rounds.map(|r| r as usize),
        seeding: args.seeding,
        seed: args.seed,
    };
    let journal = match &args.out {
        Some(dir) => {
            let header = json!({
                "type": "tournament", "arena-version": crate::VERSION, "game": game.name(),
                "variant": spec.setup.variant, "illegal": spec.setup.illegal, "format": spec.format, "seed": spec.seed, "games": spec.games,
                "rounds": spec.rounds, "seeding": spec.seeding, "limits": sandbox.limits(),
                "bots": spec.entrants.iter().map(|e| json!({"name": e.name, "sha256": match &e.bot {
                    crate::runner::BotRef::Wasm(p) => Some(p.sha256.clone()),
                    crate::runner::BotRef::House(_) => None,
                }})).collect::<Vec<_>>(),
            });
            let journal = Journal::open(dir, &header).map_err(anyhow::Error::msg)?;
            if journal.finished() > 0 {
                eprintln!(
                    "resuming: {} finished games found in {}",
                    journal.finished(),
                    journal.path().display()
                );
            }
            Some(journal)
        }
        None => None,
    };
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // If a handler is already set (tests calling in-process), Ctrl-C keeps its default.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed));
    }
    let engine = Engine::new(&spec, journal, stop.clone(), std::io::stderr().is_terminal());
    let report = pool.install(|| tournament::run(&spec, &engine))?;
    if !report.complete {
        let kept = match &args.out {
            Some(dir) => format!(
                "finished games are kept in {}; run the same command again to continue",
                dir.join("journal.jsonl").display()
            ),
            None => "no --out folder was given, so nothing was kept".to_string(),
        };
        bail!("stopped after {} new games: {kept}", engine.games_played());
    }
    if let Some(dir) = &args.out {
        write_outputs(dir, game.title(), &report)?;
        let jobs = crate::report::tournament_pages(&spec, &report, "");
        let replays = pool.install(|| crate::report::write_replays(dir, &jobs))?;
        let index = dir.join(crate::report::INDEX);
        std::fs::write(&index, crate::report::tournament_index(&spec, &report, &replays))
            .with_context(|| format!("{}: cannot write", index.display()))?;
        eprintln!("wrote {}: {}", index.display(), replays.summary());
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
