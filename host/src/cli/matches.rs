//! `arena match`: the same bots over many games, seats swapped on the same deals.

use crate::adapters;
use crate::runner::{BotRef, Entrant, GameSetup, MatchReport, MatchSpec, run_match};
use crate::sandbox::{Limits, Sandbox};
use anyhow::{Context, bail};
use clap::Args;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Options of `arena match`.
#[derive(Debug, Args)]
pub struct MatchArgs {
    /// The game: en-garde (see `arena games`).
    #[arg(long)]
    pub game: String,
    /// The bots: paths to .wasm components, or house:NAME for a built-in bot.
    #[arg(required = true, value_name = "BOT")]
    pub bots: Vec<String>,
    /// Games to play; rounded up so every deal is played from every seat.
    #[arg(long, default_value = "100", value_parser = super::parse_positive_u64)]
    pub games: u64,
    /// The match seed: the same seed and bots give the same games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Rules variant (en-garde: simple or standard).
    #[arg(long)]
    pub variant: Option<String>,
    /// Compute budget per bot call, in wasmtime fuel units.
    #[arg(long, allow_hyphen_values = true, value_parser = super::parse_positive_u64)]
    pub fuel: Option<u64>,
    /// Memory cap per bot, e.g. 64M.
    #[arg(long, allow_hyphen_values = true, value_parser = super::parse_bytes)]
    pub memory: Option<u64>,
    /// Wall-clock backstop per bot call, in seconds.
    #[arg(long, allow_hyphen_values = true, value_parser = super::parse_seconds)]
    pub timeout: Option<Duration>,
    /// Log bytes kept per bot per game.
    #[arg(long, allow_hyphen_values = true, value_parser = super::parse_bytes)]
    pub log_bytes: Option<u64>,
    /// Threads to play games on (default: all cores). Results do not depend on it.
    #[arg(long, allow_hyphen_values = true, value_parser = super::parse_positive_u64)]
    pub jobs: Option<u64>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Write every event of every game to FILE (JSON lines).
    #[arg(long, value_name = "FILE")]
    pub replay: Option<PathBuf>,
}

/// Limits from the defaults and the command line.
pub fn limits(fuel: Option<u64>, memory: Option<u64>, timeout: Option<Duration>, log_bytes: Option<u64>) -> Limits {
    let mut limits = Limits::default();
    if let Some(f) = fuel {
        limits.fuel = f;
    }
    if let Some(m) = memory {
        limits.memory_bytes = usize::try_from(m).unwrap_or(usize::MAX);
    }
    if let Some(t) = timeout {
        limits.timeout = t;
    }
    if let Some(l) = log_bytes {
        limits.log_bytes = usize::try_from(l).unwrap_or(usize::MAX);
    }
    limits
}

/// Turn BOT arguments into entrants: house bots by name, wasm files loaded and checked.
pub fn entrants(
    game: &dyn crate::runner::GameDef,
    sandbox: &Sandbox,
    specs: &[String],
) -> anyhow::Result<Vec<Entrant>> {
    let mut out: Vec<Entrant> = Vec::with_capacity(specs.len());
    for spec in specs {
        let (base, bot) = if let Some(name) = spec.strip_prefix("house:") {
            if !game.house_bots().iter().any(|(n, _)| *n == name) {
                let known: Vec<&str> = game.house_bots().iter().map(|(n, _)| *n).collect();
                bail!(
                    "{spec}: no house bot `{name}` in {}; house bots are: {}",
                    game.name(),
                    known.join(", ")
                );
            }
            (spec.clone(), BotRef::House(name.to_string()))
        } else {
            let path = PathBuf::from(spec);
            let program = sandbox.load(&path, game.world())?;
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| spec.clone());
            (stem, BotRef::Wasm(Arc::new(program)))
        };
        let mut name = base.clone();
        let mut k = 2;
        while out.iter().any(|e| e.name == name) {
            name = format!("{base}#{k}");
            k += 1;
        }
        out.push(Entrant { name, bot });
    }
    Ok(out)
}

/// Run `arena match`.
pub fn run(args: MatchArgs) -> anyhow::Result<()> {
    let Some(game) = adapters::game(&args.game) else {
        let known: Vec<&str> = adapters::GAMES.iter().map(|g| g.name()).collect();
        bail!("unknown game `{}`; games are: {}", args.game, known.join(", "));
    };
    let seats = game.seats();
    if !seats.contains(&args.bots.len()) {
        bail!(
            "{} takes {} bots, got {}",
            game.name(),
            if seats.start() == seats.end() {
                seats.start().to_string()
            } else {
                format!("{} to {}", seats.start(), seats.end())
            },
            args.bots.len()
        );
    }
    let sandbox = Sandbox::new(limits(args.fuel, args.memory, args.timeout, args.log_bytes))?;
    let setup = GameSetup {
        sandbox: &sandbox,
        variant: args.variant.clone(),
    };
    if let Err(e) = game.check_setup(&setup) {
        bail!("{e} for {}; variants are: {}", game.name(), game.variants().join(", "));
    }
    let entrants = entrants(game, &sandbox, &args.bots)?;
    let spec = MatchSpec {
        game,
        setup,
        entrants,
        games: usize::try_from(args.games).unwrap_or(usize::MAX),
        seed: args.seed,
        record: args.replay.is_some(),
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.map(|j| j as usize).unwrap_or(0))
        .build()
        .context("cannot start worker threads")?;
    let outcome = pool.install(|| run_match(&spec));
    if let Some(path) = &args.replay {
        let file = std::fs::File::create(path)
            .with_context(|| format!("{}: cannot create the replay file", path.display()))?;
        let mut out = std::io::BufWriter::new(file);
        crate::replay::write_match(&mut out, &outcome, &spec.entrants)
            .with_context(|| format!("{}: cannot write the replay file", path.display()))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&outcome.report)?);
    } else {
        print!("{}", table(game.title(), &outcome.report));
    }
    Ok(())
}

/// The human-readable results of a match.
pub fn table(title: &str, report: &MatchReport) -> String {
    use std::fmt::Write;
    let n = report.bots.len().max(1);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{title} ({} variant), seed {}: {} games, {} deals each played from {} seats",
        report.variant,
        report.seed,
        report.games,
        report.games / n,
        n
    );
    let width = report.bots.iter().map(|b| b.name.len()).max().unwrap_or(3).max(3);
    let _ = writeln!(
        s,
        "{:<width$}  {:>6}  {:>5}  {:>6}  {:>5}  {:>6}  forfeits",
        "bot", "games", "wins", "losses", "draws", "points"
    );
    for b in &report.bots {
        let forfeits: Vec<String> = b
            .forfeits
            .iter()
            .filter(|(_, c)| **c > 0)
            .map(|(r, c)| format!("{r} {c}"))
            .collect();
        let forfeits = if forfeits.is_empty() {
            "-".to_string()
        } else {
            forfeits.join(", ")
        };
        let _ = writeln!(
            s,
            "{:<width$}  {:>6}  {:>5}  {:>6}  {:>5}  {:>6}  {forfeits}",
            b.name, b.games, b.wins, b.losses, b.draws, b.points
        );
    }
    s
}
