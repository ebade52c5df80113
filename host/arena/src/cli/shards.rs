//! What the sharded steps of `arena tournament` and `arena grade-class`
//! share (`run-shard`, `merge`, `slurm`, `status`): their arguments, the
//! shard index, the Slurm scripts and the status table
//! ([`arena_batch::slurm`]). Each command's own steps are in its module
//! (`tournament.rs`, `grade_class.rs`), which uses this one; this one uses
//! neither.

use super::args::parse_positive_u64;
use super::common::CacheArgs;
use anyhow::{Context, bail};
use arena_batch::shard::MAX_SHARDS;
use arena_batch::slurm::{self, SlurmOptions};
use arena_runner::runner::settings::RunSettings;
use clap::Args;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Where this machine keeps compiled bots, and how many threads it plays on.
#[derive(Debug, Args)]
pub struct NodeArgs {
    /// Threads to play games on [default: all cores].
    #[arg(long, value_parser = parse_positive_u64)]
    pub jobs: Option<u64>,
    /// Where compiled bots are kept.
    #[command(flatten)]
    pub cache: CacheArgs,
}

impl NodeArgs {
    /// This machine's settings: its cache, the compiler child, its threads.
    pub fn settings(&self) -> anyhow::Result<RunSettings> {
        Ok(RunSettings {
            jobs: self.jobs,
            cache_dir: self.cache.dir(),
            cache_max: self.cache.max_bytes()?,
            compiler: Some(std::env::current_exe().context("cannot find the arena executable to compile bots with")?),
            ..RunSettings::default()
        })
    }
}

/// Options of `arena tournament run-shard` and `arena grade-class run-shard`
/// (whose `--index` help says "grade": `ClassStep::RunShard`).
#[derive(Debug, Args)]
pub struct RunShardArgs {
    /// The work folder of the plan.
    #[arg(value_name = "D")]
    pub work: PathBuf,
    /// The shard to play [default: $SLURM_ARRAY_TASK_ID].
    #[arg(long)]
    pub index: Option<usize>,
    #[command(flatten)]
    pub node: NodeArgs,
}

/// Options of `arena tournament merge` and `arena grade-class merge`:
/// where the merged results go (`O`) is each command's own.
#[derive(Debug, Args)]
pub struct MergeArgs<O: Args> {
    /// The work folder of the plan.
    #[arg(value_name = "D")]
    pub work: PathBuf,
    #[command(flatten)]
    pub output: O,
    #[command(flatten)]
    pub node: NodeArgs,
}

/// Options of `arena tournament slurm` and `arena grade-class slurm`.
#[derive(Debug, Args)]
pub struct SlurmArgs {
    /// The work folder of the plan (on a file system every node sees).
    #[arg(value_name = "D")]
    pub work: PathBuf,
    /// The Slurm partition [default: the cluster's].
    #[arg(long)]
    pub partition: Option<String>,
    /// Time limit per shard task, as Slurm writes it (e.g. 2:00:00).
    #[arg(long)]
    pub time: Option<String>,
    /// Cores per shard task; its games play on as many threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub cpus_per_task: u32,
    /// Most shard tasks running at once.
    #[arg(long, value_parser = parse_positive_u64)]
    pub max_concurrent: Option<u64>,
    /// The compile cache on each node [default: node-local, ${TMPDIR:-/tmp}/arena-cache-$USER].
    #[arg(long, value_name = "DIR")]
    pub node_cache: Option<String>,
    /// Where the merge job writes the standings and report [default: D/result].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Submit the scripts with sbatch (the array, then the merge with --dependency=afterok).
    #[arg(long)]
    pub submit: bool,
    /// With --submit: submit only these shards again (e.g. 2 or 0,3-5), and a new merge job.
    #[arg(long, value_name = "LIST", requires = "submit", value_parser = parse_list)]
    pub rerun: Option<ShardList>,
}

/// Shard indices as given to --rerun.
#[derive(Debug, Clone)]
pub struct ShardList(pub Vec<usize>);

/// Options of `arena tournament status` and `arena grade-class status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The work folder of the plan.
    #[arg(value_name = "D")]
    pub work: PathBuf,
}

/// `2`, `0,3-5`: shard indices.
fn parse_list(s: &str) -> Result<ShardList, String> {
    let mut out = Vec::new();
    for part in s.split(',') {
        let num = |t: &str| {
            t.trim()
                .parse::<usize>()
                .map_err(|_| format!("`{s}`: write shard indices such as 2 or 0,3-5"))
        };
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b || b - a > MAX_SHARDS {
                    return Err(format!("`{part}`: a range runs from the smaller index to the larger"));
                }
                out.extend(a..=b);
            }
            None => out.push(num(part)?),
        }
    }
    Ok(ShardList(out))
}

/// The shard a `run-shard` step plays: `--index`, or in a Slurm array
/// task `$SLURM_ARRAY_TASK_ID`.
pub(super) fn index_or_slurm(index: Option<usize>) -> anyhow::Result<usize> {
    match index {
        Some(i) => Ok(i),
        None => match std::env::var("SLURM_ARRAY_TASK_ID") {
            Ok(v) => v
                .trim()
                .parse()
                .map_err(|_| anyhow::anyhow!("SLURM_ARRAY_TASK_ID is `{v}`, not a shard index; give --index")),
            Err(_) => bail!("which shard? give --index I (in a Slurm array task, $SLURM_ARRAY_TASK_ID gives it)"),
        },
    }
}

/// A flag that Ctrl-C sets (if no handler is set already, as in tests calling in-process).
pub(super) fn stop_on_ctrl_c() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let _ = ctrlc::set_handler(move || s.store(true, Ordering::Relaxed));
    stop
}

/// `arena tournament slurm` and `arena grade-class slurm`: write the
/// scripts and, with --submit, submit them.
pub(super) fn write_and_submit(args: &SlurmArgs, work: slurm::Work<'_>) -> anyhow::Result<()> {
    let command = work.command;
    let options = SlurmOptions {
        partition: args.partition.clone(),
        time: args.time.clone(),
        cpus_per_task: args.cpus_per_task,
        max_concurrent: args.max_concurrent.map(|k| k as usize),
        arena: std::env::current_exe().context("cannot find the arena executable the scripts run")?,
        cache: args
            .node_cache
            .clone()
            .unwrap_or_else(|| "${TMPDIR:-/tmp}/arena-cache-$(id -un)".to_string()),
        out: args.out.clone().unwrap_or_else(|| args.work.join("result")),
    };
    let (array, merge) = slurm::write_scripts(work, &options)?;
    println!("wrote {} and {}", array.display(), merge.display());
    if !args.submit {
        println!(
            "submit them with `arena {command} slurm {} --submit`, or by hand: `sbatch {}`, then `sbatch --dependency=afterok:<its job id> {}`",
            args.work.display(),
            array.display(),
            merge.display()
        );
        return Ok(());
    }
    let jobs = slurm::submit(work, args.rerun.as_ref().map(|l| l.0.as_slice()))?;
    if let Some((id, idx)) = jobs.arrays.last() {
        println!(
            "submitted job array {id} ({} shard tasks); merge job {} runs when they all succeed",
            idx.len(),
            jobs.merge.as_deref().unwrap_or("?")
        );
    }
    println!(
        "follow it with `arena {command} status {}`; logs in {}",
        args.work.display(),
        args.work.join("logs").display()
    );
    Ok(())
}

/// Print each shard's state, the merge job's, and what to do next.
pub(super) fn print_status(work: slurm::Work<'_>, progress: &[slurm::Progress], unit: &str) {
    let st = slurm::status(work, progress);
    let done = st.shards.iter().filter(|s| s.state == "done").count();
    let count: usize = st.shards.iter().map(|s| s.games).sum();
    let planned: usize = st.shards.iter().map(|s| s.planned).sum();
    let verb = if unit == "games" { "" } else { " graded" };
    println!(
        "{}: {done} of {} shards done, {count} of {planned} {unit}{verb}",
        work.dir.display(),
        st.shards.len()
    );
    println!("{:>5}  {:<11}  {:>15}  slurm", "shard", "state", unit);
    for s in &st.shards {
        println!(
            "{:>5}  {:<11}  {:>15}  {}",
            s.index,
            s.state,
            format!("{}/{}", s.games, s.planned),
            s.slurm.as_deref().unwrap_or("-")
        );
    }
    if let Some(m) = &st.merge {
        println!("merge job: {m}");
    }
    if done == st.shards.len() {
        println!(
            "every shard is done: `arena {} merge {}` writes the results",
            work.command,
            work.dir.display()
        );
    }
    for a in &st.advice {
        println!("{a}");
    }
}
