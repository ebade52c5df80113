//! What several subcommands share: limits, threads, games and bot arguments.

use anyhow::{Context, bail};
use arena_games::IllegalMoves;
use arena_runner::runner::GameDef;
use arena_runner::runner::settings::{MAX_JOBS, RunSettings};
use arena_sandbox::Sandbox;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// Limits and threads, for every command that plays games.
#[derive(Debug, Default, Args)]
pub struct RunArgs {
    /// Fuel (about one unit per wasm instruction) per move [default: the game's, see `arena games`].
    /// Bots built for world 0.1 get --fuel plus --bank afresh on every call.
    #[arg(long, allow_hyphen_values = true, value_parser = super::args::parse_positive_u64)]
    pub fuel: Option<u64>,
    /// Fuel bank per bot per game: what a move uses beyond --fuel comes out of it; unused fuel is not banked
    /// [default: the game's]. 0 is allowed.
    #[arg(long, allow_hyphen_values = true, value_parser = super::args::parse_u64)]
    pub bank: Option<u64>,
    /// Start allowance: fuel for instantiation and the calls before the first move, at least --fuel
    /// [default: the game's].
    #[arg(long, allow_hyphen_values = true, value_parser = super::args::parse_positive_u64)]
    pub start_fuel: Option<u64>,
    /// Memory cap per bot, e.g. 64M, at most 4G [default: 64M].
    #[arg(long, allow_hyphen_values = true, value_parser = super::args::parse_memory)]
    pub memory: Option<u64>,
    /// Time backstop per bot call, in seconds of CPU time (counted once that much wall-clock time has passed);
    /// fuel decides first [default: the game's (`arena games`), raised with --fuel and --bank].
    #[arg(long, allow_hyphen_values = true, value_parser = super::args::parse_seconds)]
    pub timeout: Option<Duration>,
    /// Log bytes kept per bot per game [default: 64K].
    #[arg(long, allow_hyphen_values = true, value_parser = super::args::parse_bytes)]
    pub log_bytes: Option<u64>,
    /// Largest bot file accepted, e.g. 64M [default: 64M].
    #[arg(long, allow_hyphen_values = true, value_parser = super::args::parse_bytes)]
    pub max_file_bytes: Option<u64>,
    /// CPU time compiling one bot file may take, in seconds; the wall clock, a backstop for a
    /// stalled compiler, allows ten times that [default: 60].
    #[arg(long, allow_hyphen_values = true, value_parser = super::args::parse_seconds)]
    pub compile_seconds: Option<Duration>,
    /// Memory compiling one bot file may take, e.g. 2G, at least 256M [default: 2G].
    #[arg(long, allow_hyphen_values = true, value_parser = parse_compile_memory)]
    pub compile_memory: Option<u64>,
    /// What an illegal move costs: `course` (each game's own rule, see its rules document) or `forfeit`
    /// (any illegal move forfeits the game with reason illegal-move) [default: course].
    #[arg(long, value_parser = super::args::parse_illegal)]
    pub illegal: Option<IllegalMoves>,
    /// Threads to play games on [default: all cores]. Results do not depend on it.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_jobs)]
    pub jobs: Option<u64>,
    /// Where compiled bots are kept between runs.
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// The compile cache: where it is, or that there is none.
#[derive(Debug, Default, Args)]
pub struct CacheArgs {
    /// Folder of compiled bots kept between runs [default: $ARENA_CACHE_DIR, else $XDG_CACHE_HOME/arena,
    /// else ~/.cache/arena].
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Compile every bot file afresh and keep nothing on disk (also ARENA_NO_CACHE=1).
    #[arg(long)]
    pub no_cache: bool,
    /// The most the cache keeps, e.g. 4G or 500M; the least recently used bots go first
    /// [default: $ARENA_CACHE_MAX, else 4G].
    #[arg(long, value_name = "SIZE", value_parser = super::args::parse_bytes)]
    pub cache_max: Option<u64>,
}

impl CacheArgs {
    /// The cache folder for a run, or `None` without a cache
    /// (`--no-cache`, or `ARENA_NO_CACHE` unless `--cache-dir` is given).
    pub fn dir(&self) -> Option<PathBuf> {
        let no_cache_env = std::env::var_os("ARENA_NO_CACHE").is_some_and(|v| !v.is_empty() && v != "0");
        if self.no_cache || (no_cache_env && self.cache_dir.is_none()) {
            return None;
        }
        self.folder()
    }

    /// The cache's size bound: `--cache-max`, else `ARENA_CACHE_MAX`, else the default.
    pub fn max_bytes(&self) -> anyhow::Result<u64> {
        if let Some(max) = self.cache_max {
            return Ok(max);
        }
        match std::env::var("ARENA_CACHE_MAX") {
            Ok(v) if !v.is_empty() => super::args::parse_bytes(&v)
                .map_err(|e| anyhow::anyhow!("ARENA_CACHE_MAX: {e}; write a size such as 4G or 500M")),
            _ => Ok(arena_sandbox::cache::DEFAULT_MAX_BYTES),
        }
    }

    /// The cache folder, whether or not runs use it.
    pub fn folder(&self) -> Option<PathBuf> {
        let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        self.cache_dir
            .clone()
            .or_else(|| env("ARENA_CACHE_DIR"))
            .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("arena")))
            .or_else(|| env("HOME").map(|d| d.join(".cache").join("arena")))
    }
}

pub use arena_runner::runner::settings::COMPILE_SUBCOMMAND;

/// The least memory a compile may be given: the compiler itself needs about that much.
const MIN_COMPILE_MEMORY: u64 = 256 << 20;

fn parse_compile_memory(s: &str) -> Result<u64, String> {
    let v = super::args::parse_bytes(s)?;
    if v < MIN_COMPILE_MEMORY {
        return Err(format!("`{s}` is too little: the compiler itself needs at least 256M"));
    }
    Ok(v)
}

/// A thread count: positive, and at most [`MAX_JOBS`].
fn parse_jobs(s: &str) -> Result<u64, String> {
    let j = super::args::parse_positive_u64(s)?;
    if j > MAX_JOBS {
        return Err(format!("at most {MAX_JOBS} threads"));
    }
    Ok(j)
}

impl RunArgs {
    /// The run's settings from the command line: this executable compiles
    /// bots in a child process, with the cache the flags and environment give.
    pub fn settings(&self) -> anyhow::Result<RunSettings> {
        Ok(RunSettings {
            fuel: self.fuel,
            bank: self.bank,
            start_fuel: self.start_fuel,
            memory: self.memory,
            timeout: self.timeout,
            log_bytes: self.log_bytes,
            max_file_bytes: self.max_file_bytes,
            compile_seconds: self.compile_seconds,
            compile_memory: self.compile_memory,
            jobs: self.jobs,
            cache_dir: self.cache.dir(),
            cache_max: self.cache.max_bytes()?,
            compiler: Some(std::env::current_exe().context("cannot find the arena executable to compile bots with")?),
        })
    }

    /// A sandbox for `game` under the command line's settings
    /// ([`RunSettings::sandbox`]), after printing their warnings.
    pub fn sandbox(&self, game: &dyn GameDef) -> anyhow::Result<Sandbox> {
        let settings = self.settings()?;
        for w in settings.warnings(game) {
            eprintln!("warning: {w}");
        }
        settings.sandbox(game)
    }

    /// A thread pool of `--jobs` threads (all cores by default).
    pub fn pool(&self) -> anyhow::Result<rayon::ThreadPool> {
        RunSettings {
            jobs: self.jobs,
            ..RunSettings::default()
        }
        .pool()
    }
}

/// Read a class folder as grading and tournaments both do, saying on stderr
/// how it was read and what was skipped; a folder with no submission is one
/// line of error.
pub fn read_class(dir: &std::path::Path) -> anyhow::Result<arena_grading::grade::submissions::Class> {
    let class = arena_grading::grade::submissions::find(dir).map_err(|e| {
        anyhow::anyhow!(
            "{}: cannot read the submissions folder ({e}); give the folder that holds the students' files",
            dir.display()
        )
    })?;
    if class.submissions.is_empty() {
        bail!(
            "{}: no submissions in this folder (no .wasm file, no student folder); see docs/grading.md for the layouts read",
            dir.display()
        );
    }
    eprintln!(
        "{}: {} students, read as {}",
        class.root.display(),
        class.submissions.len(),
        class.layout.describe()
    );
    for s in &class.skipped {
        eprintln!("skipped {s}");
    }
    Ok(class)
}
