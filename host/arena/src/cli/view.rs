//! `arena view` (a replay as one HTML page) and `arena replay verify` (a
//! replay played again, event for event).

use super::common::{CacheArgs, RunArgs};
use anyhow::{Context, bail};
use arena_runner::replay::CheckedHeader;
use clap::{Args, Subcommand};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `arena view`.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// A replay file written by `arena match --replay`.
    pub replay: PathBuf,
    /// The page to write [default: the replay's name with .html].
    #[arg(short, long, value_name = "OUT.html")]
    pub out: Option<PathBuf>,
}

/// Run `arena view`.
pub fn run_view(args: ViewArgs) -> anyhow::Result<()> {
    let (html, stats) = arena_report::view::page_for_file(&args.replay, None)?;
    // games.jsonl and games.jsonl.gz both make games.html.
    let out = args.out.unwrap_or_else(|| {
        let plain = if arena_runner::replay::is_gzip_name(&args.replay) {
            args.replay.with_extension("")
        } else {
            args.replay.clone()
        };
        plain.with_extension("html")
    });
    if out == args.replay {
        bail!(
            "{}: the page would overwrite the replay; name another file with -o OUT.html",
            out.display()
        );
    }
    std::fs::write(&out, html).with_context(|| format!("{}: cannot write the page", out.display()))?;
    println!(
        "{}: {} game{}, replay {} KB, page {} KB; open it in a browser (it works offline)",
        out.display(),
        stats.games,
        if stats.games == 1 { "" } else { "s" },
        stats.replay_bytes.div_ceil(1000),
        stats.page_bytes.div_ceil(1000)
    );
    Ok(())
}

/// `arena replay ...`.
#[derive(Debug, Subcommand)]
pub enum ReplayCommand {
    /// Play a replay's games again from its header (game, variant, seed, limits, bots) and
    /// report whether every event is the same, or the first that differs.
    /// Exit status 0: identical; 1: different.
    Verify(VerifyArgs),
}

/// Options of `arena replay verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// A replay file written by `arena match --replay`.
    pub replay: PathBuf,
    /// A wasm bot of the replay, by the name the replay gives it: NAME=PATH (repeat for each).
    /// House bots need none.
    #[arg(long = "bot", value_name = "NAME=PATH")]
    pub bots: Vec<String>,
    /// Threads to play games on [default: all cores]. Results do not depend on it.
    #[arg(long)]
    pub jobs: Option<u64>,
    /// Where compiled bots are kept between runs.
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// Run `arena replay ...`.
pub fn run_replay(command: ReplayCommand) -> anyhow::Result<ExitCode> {
    match command {
        ReplayCommand::Verify(args) => verify(args),
    }
}

fn verify(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    let mut bots: BTreeMap<String, PathBuf> = BTreeMap::new();
    for b in &args.bots {
        let Some((name, path)) = b.split_once('=') else {
            bail!("--bot {b}: write it NAME=PATH, with the name the replay gives the bot");
        };
        bots.insert(name.to_string(), PathBuf::from(path));
    }
    // The replay's own limits and rule, with this command's cache and threads.
    let sandbox = |game: &'static dyn arena_runner::runner::GameDef, header: &CheckedHeader| {
        let limits = &header.limits;
        RunArgs {
            fuel: Some(limits.fuel),
            bank: Some(limits.bank),
            start_fuel: Some(limits.start_fuel),
            memory: Some(limits.memory_bytes as u64),
            timeout: Some(limits.timeout),
            log_bytes: Some(limits.log_bytes as u64),
            max_file_bytes: Some(limits.max_file_bytes),
            compile_seconds: None,
            compile_memory: None,
            illegal: header.illegal,
            jobs: args.jobs,
            cache: CacheArgs {
                cache_dir: args.cache.cache_dir.clone(),
                no_cache: args.cache.no_cache,
                cache_max: args.cache.cache_max,
            },
        }
        .sandbox(game)
    };
    let pool = RunArgs {
        jobs: args.jobs,
        ..RunArgs::default()
    }
    .pool()?;
    let verdict = arena_runner::verify::verify(&args.replay, bots, &sandbox, &pool)?;
    for w in &verdict.warnings {
        eprintln!("warning: {w}");
    }
    println!("{}: {}", args.replay.display(), verdict.line());
    Ok(if verdict.identical() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
