//! `arena grade-class plan | run-shard | merge | status`: a class graded in
//! shards on other machines and written up as one machine writes it
//! ([`arena_batch::class_shard`]).

use super::grade::{ClassSpecArgs, ClassStep, class_job, class_parts, print_class};
use super::shards::{NodeArgs, SlurmArgs, StatusArgs};
use anyhow::bail;
use arena_batch::class_shard::{self, ClassPlan, ClassWork};
use arena_batch::shard::LimitChanges;
use arena_batch::slurm::Progress;
use clap::Args;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Options of `arena grade-class plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// The class and how to grade it, with the flags of `arena grade-class`.
    #[command(flatten)]
    pub spec: ClassSpecArgs,
    /// Shards to cut it into.
    #[arg(long, value_parser = super::parse_positive_u64)]
    pub shards: u64,
    /// The shared work folder for the manifest and the shards' grades.
    #[arg(long, value_name = "D")]
    pub work: PathBuf,
}

/// Options of `arena grade-class run-shard`.
#[derive(Debug, Args)]
pub struct RunShardArgs {
    /// The work folder of the plan.
    #[arg(value_name = "D")]
    pub work: PathBuf,
    /// The shard to grade [default: $SLURM_ARRAY_TASK_ID].
    #[arg(long)]
    pub index: Option<usize>,
    #[command(flatten)]
    pub node: NodeArgs,
}

/// Options of `arena grade-class merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The work folder of the plan.
    #[arg(value_name = "D")]
    pub work: PathBuf,
    /// Where to write the gradebook and each student's reports.
    #[arg(long, value_name = "DIR", default_value = "grades")]
    pub out: PathBuf,
    #[command(flatten)]
    pub node: NodeArgs,
}

/// Run a step.
pub fn run(step: ClassStep) -> anyhow::Result<()> {
    match step {
        ClassStep::Plan(a) => plan(*a),
        ClassStep::RunShard(a) => run_shard(a),
        ClassStep::Merge(a) => merge(a),
        ClassStep::Slurm(a) => slurm_step(a),
        ClassStep::Status(a) => status(a),
    }
}

fn plan(args: PlanArgs) -> anyhow::Result<()> {
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

fn index_or_slurm(index: Option<usize>) -> anyhow::Result<usize> {
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

fn run_shard(args: RunShardArgs) -> anyhow::Result<()> {
    let index = index_or_slurm(args.index)?;
    let base = args.node.settings()?;
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let _ = ctrlc::set_handler(move || s.store(true, Ordering::Relaxed));
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

fn merge(args: MergeArgs) -> anyhow::Result<()> {
    let base = args.node.settings()?;
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let (_, outcome) = class_shard::merge(&args.work, &base, &args.out, progress, &base.pool()?)?;
    print_class(&outcome, &args.out);
    Ok(())
}

fn work(w: &ClassWork) -> arena_batch::slurm::Work<'_> {
    arena_batch::slurm::Work {
        dir: &w.dir,
        shards: w.manifest.shards,
        command: "grade-class",
        // The class tournament's matches and every student's bot are the most a class merge holds.
        merge_mib: arena_batch::slurm::merge_mib(w.manifest.students.len().pow(2) / 2, w.manifest.students.len()),
    }
}

fn slurm_step(args: SlurmArgs) -> anyhow::Result<()> {
    let w = ClassWork::open(&args.work)?;
    super::shards::write_and_submit(&args, work(&w))
}

fn status(args: StatusArgs) -> anyhow::Result<()> {
    let w = ClassWork::open(&args.work)?;
    let progress: Vec<Progress> = w
        .states()
        .into_iter()
        .map(|(planned, count, done)| Progress { done, count, planned })
        .collect();
    super::shards::print_status(work(&w), &progress, "students");
    Ok(())
}
