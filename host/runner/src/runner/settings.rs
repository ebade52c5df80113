//! The settings a run is made with: a game's default limits with a
//! command's (or a course's) changes, the compile limits, the compile cache
//! and the threads. The CLI fills them from flags; a server from its course.

use crate::adapters;
use crate::runner::GameDef;
use anyhow::Context;
use arena_sandbox::{ChildCompiler, CompileLimits, Compiler, Limits, Sandbox};
use std::path::PathBuf;
use std::time::Duration;

/// The hidden subcommand that makes the `arena` binary a compiler process
/// (see `arena_sandbox::compile`); its `main` runs it before parsing anything else.
pub const COMPILE_SUBCOMMAND: &str = "__compile";

/// The most threads a run may use: the sandbox's instance pool always has
/// a slot for every seat of every game in flight.
pub const MAX_JOBS: u64 = arena_sandbox::MAX_LIVE_INSTANCES as u64 / 6;

/// Changes to a game's default limits, and how to compile and where to keep bots.
#[derive(Debug, Clone, Default)]
pub struct RunSettings {
    /// Fuel per move.
    pub fuel: Option<u64>,
    /// Fuel bank per bot per game.
    pub bank: Option<u64>,
    /// Start allowance.
    pub start_fuel: Option<u64>,
    /// Memory cap per bot, in bytes.
    pub memory: Option<u64>,
    /// Time backstop per bot call.
    pub timeout: Option<Duration>,
    /// Log bytes kept per bot per game.
    pub log_bytes: Option<u64>,
    /// Largest bot file accepted, in bytes.
    pub max_file_bytes: Option<u64>,
    /// CPU time compiling one bot file may take.
    pub compile_seconds: Option<Duration>,
    /// Memory compiling one bot file may take, in bytes.
    pub compile_memory: Option<u64>,
    /// Threads to play games on (all cores, within [`MAX_JOBS`], when `None`).
    pub jobs: Option<u64>,
    /// The compile cache's folder, or `None` for none.
    pub cache_dir: Option<PathBuf>,
    /// The most the compile cache keeps, in bytes.
    pub cache_max: u64,
    /// The program that compiles a bot file in a child process (run with
    /// [`COMPILE_SUBCOMMAND`]); `None` compiles in this process, unlimited.
    pub compiler: Option<PathBuf>,
}

impl RunSettings {
    /// The game's default limits with these changes, checked.
    pub fn limits(&self, game: &dyn GameDef) -> anyhow::Result<Limits> {
        let mut limits = game.default_limits();
        if let Some(f) = self.fuel {
            limits.fuel = f;
        }
        if let Some(b) = self.bank {
            limits.bank = b;
        }
        if let Some(s) = self.start_fuel {
            limits.start_fuel = s;
        } else if self.fuel.is_some() {
            // A larger per-move budget lifts the default start allowance with it.
            limits.start_fuel = limits.start_fuel.max(limits.fuel);
        }
        if let Some(m) = self.memory {
            limits.memory_bytes = usize::try_from(m).unwrap_or(usize::MAX);
        }
        // A larger budget lifts the backstop with it.
        limits.timeout = self.timeout.unwrap_or(limits.timeout.max(limits.backstop_floor()));
        if let Some(l) = self.log_bytes {
            limits.log_bytes = usize::try_from(l).unwrap_or(usize::MAX);
        }
        if let Some(b) = self.max_file_bytes {
            limits.max_file_bytes = b;
        }
        limits.check().map_err(anyhow::Error::msg)?;
        Ok(limits)
    }

    /// What the person who chose these settings should know before the run
    /// (a backstop so short that the machine's speed may decide a game).
    pub fn warnings(&self, game: &dyn GameDef) -> Vec<String> {
        let Ok(limits) = self.limits(game) else {
            return Vec::new();
        };
        let floor = limits.backstop_floor();
        match self.timeout {
            Some(t) if t < floor => vec![format!(
                "--timeout {} s is less than the {} s after which fuel decides first for these budgets: a bot \
                 that runs its fuel out slowly may forfeit by time on a slower machine",
                t.as_secs_f64(),
                floor.as_secs()
            )],
            _ => Vec::new(),
        }
    }

    /// The limits on compiling one bot file.
    pub fn compile_limits(&self) -> CompileLimits {
        let mut limits = CompileLimits::DEFAULT;
        if let Some(s) = self.compile_seconds {
            limits = limits.with_cpu(s);
        }
        if let Some(m) = self.compile_memory {
            limits.memory_bytes = m;
        }
        limits
    }

    /// A sandbox for `game` under these limits, compiling every bot file in
    /// a child process under the compile limits (so a file that takes minutes
    /// to compile is rejected instead of holding up the run), and keeping
    /// what it compiled in the compile cache.
    pub fn sandbox(&self, game: &dyn GameDef) -> anyhow::Result<Sandbox> {
        let sandbox = self.sandbox_uncached(game)?;
        Ok(match &self.cache_dir {
            Some(dir) => sandbox.with_bounded_disk_cache(dir.clone(), self.cache_max),
            None => sandbox,
        })
    }

    /// Like [`RunSettings::sandbox`], but never using the compile cache:
    /// every bot file is compiled afresh (so `arena check` times a real compile).
    pub fn sandbox_uncached(&self, game: &dyn GameDef) -> anyhow::Result<Sandbox> {
        let sandbox = adapters::sandbox(self.limits(game)?)?;
        Ok(match &self.compiler {
            Some(program) => sandbox.with_compiler(Compiler::Child(ChildCompiler {
                program: program.clone(),
                args: vec![COMPILE_SUBCOMMAND.into()],
                limits: self.compile_limits(),
            })),
            None => sandbox,
        })
    }

    /// A thread pool of [`RunSettings::jobs`] threads.
    pub fn pool(&self) -> anyhow::Result<rayon::ThreadPool> {
        rayon::ThreadPoolBuilder::new()
            .num_threads(self.jobs.map_or_else(default_jobs, |j| j.min(MAX_JOBS) as usize))
            .build()
            .context("cannot start worker threads")
    }
}

/// All cores, within what the instance pool allows.
fn default_jobs() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.min(MAX_JOBS as usize)
}
