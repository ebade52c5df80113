//! A plan's shards as a Slurm job array, and the merge as a job that waits
//! for it (`--dependency=afterok`): the scripts, their submission, and each
//! shard's state read back from `squeue`. Slurm is the scheduler; arena only
//! writes what it runs (docs/cluster.md).

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The array script's name in the work folder.
pub const ARRAY_SCRIPT: &str = "slurm/shards.sbatch";
/// The merge script's name in the work folder.
pub const MERGE_SCRIPT: &str = "slurm/merge.sbatch";
/// Where the job ids submitted are kept.
pub const JOBS: &str = "slurm/jobs.json";

/// What the scripts ask of Slurm and where things are.
#[derive(Debug, Clone)]
pub struct SlurmOptions {
    /// The partition, or the cluster's default.
    pub partition: Option<String>,
    /// Time limit per shard task, in Slurm's notation (`1:00:00`).
    pub time: Option<String>,
    /// Cores per shard task: its games play on as many threads.
    pub cpus_per_task: u32,
    /// Most shard tasks running at once (`%K`), or no limit.
    pub max_concurrent: Option<usize>,
    /// The arena binary, on a path every node sees.
    pub arena: PathBuf,
    /// The compile cache on each node (node-local disk is fastest).
    pub cache: String,
    /// Where the merge writes the standings files and report.
    pub out: PathBuf,
}

/// Quote `s` for a POSIX shell.
fn sh(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn path_text(p: &Path) -> String {
    std::path::absolute(p).unwrap_or(p.to_path_buf()).display().to_string()
}

/// A plan's work folder as the scripts need it: where it is, its shards,
/// and the command whose steps run them (`tournament` or `grade-class`).
#[derive(Debug, Clone, Copy)]
pub struct Work<'a> {
    /// The work folder.
    pub dir: &'a Path,
    /// Its shards.
    pub shards: usize,
    /// `tournament` or `grade-class`.
    pub command: &'a str,
    /// Memory the merge job asks for, in MiB: it holds every game
    /// (docs/cluster.md measures about 1.5 KB a game).
    pub merge_mib: u64,
}

/// The memory a merge of `matches` matches among `bots` bots asks Slurm
/// for, in MiB: 512 MiB for the program, 1 MiB a loaded bot (0.3 MiB
/// measured for a compiled one) and 2 KiB a match (1.4 KB measured: a
/// merge keeps each match's totals, never its games), rounded up to a whole GiB.
pub fn merge_mib(matches: usize, bots: usize) -> u64 {
    let mib = 512 + bots as u64 + (matches as u64).saturating_mul(2048).div_ceil(1 << 20);
    mib.div_ceil(1024) * 1024
}

/// The two sbatch scripts for the plan in `work`: the array and the merge.
pub fn scripts(work: Work<'_>, o: &SlurmOptions) -> (String, String) {
    let command = work.command;
    let dir = path_text(work.dir);
    let logs = format!("{dir}/logs");
    let mut head = String::from("#!/bin/bash\n");
    if let Some(p) = &o.partition {
        let _ = writeln!(head, "#SBATCH --partition={p}");
    }
    let mut array = head.clone();
    let last = work.shards - 1;
    let limit = o.max_concurrent.map(|k| format!("%{k}")).unwrap_or_default();
    let _ = writeln!(array, "#SBATCH --job-name=arena-{command}-shards");
    let _ = writeln!(array, "#SBATCH --array=0-{last}{limit}");
    let _ = writeln!(array, "#SBATCH --cpus-per-task={}", o.cpus_per_task);
    if let Some(t) = &o.time {
        let _ = writeln!(array, "#SBATCH --time={t}");
    }
    let _ = writeln!(array, "#SBATCH --output={logs}/%A_%a.out");
    let _ = write!(
        array,
        "# One shard per task: the task's index is $SLURM_ARRAY_TASK_ID.\n\
         # Written by `arena tournament slurm`; rerun one task with\n\
         #   sbatch --array=I {dir}/{ARRAY_SCRIPT}\n\
         set -euo pipefail\n\
         exec {} {command} run-shard {} --jobs \"${{SLURM_CPUS_PER_TASK:-{}}}\" --cache-dir \"{}\"\n",
        sh(&path_text(&o.arena)),
        sh(&dir),
        o.cpus_per_task,
        o.cache
    );
    let mut merge = head;
    let _ = writeln!(merge, "#SBATCH --job-name=arena-{command}-merge");
    let _ = writeln!(merge, "#SBATCH --cpus-per-task={}", o.cpus_per_task);
    let _ = writeln!(merge, "#SBATCH --mem={}M", work.merge_mib);
    let _ = writeln!(merge, "#SBATCH --output={logs}/merge_%j.out");
    let _ = write!(
        merge,
        "# Runs once every shard task has succeeded (submitted with --dependency=afterok).\n\
         set -euo pipefail\n\
         exec {} {command} merge {} --out {} --jobs \"${{SLURM_CPUS_PER_TASK:-{}}}\" --cache-dir \"{}\"\n",
        sh(&path_text(&o.arena)),
        sh(&dir),
        sh(&path_text(&o.out)),
        o.cpus_per_task,
        o.cache
    );
    (array, merge)
}

/// The jobs submitted for a plan: the array, reruns of some of its tasks,
/// and the merge that waits for them.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Jobs {
    /// Each submission of shard tasks: its job id and the indices it runs.
    pub arrays: Vec<(String, Vec<usize>)>,
    /// The current merge job.
    pub merge: Option<String>,
}

impl Jobs {
    /// The jobs recorded in `work`, or none.
    pub fn read(work: &Path) -> Jobs {
        std::fs::read(work.join(JOBS))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    fn write(&self, work: &Path) -> anyhow::Result<()> {
        let path = work.join(JOBS);
        std::fs::write(&path, serde_json::to_string_pretty(self)? + "\n")
            .with_context(|| format!("{}: cannot write", path.display()))
    }

    /// The job that last ran shard `index`, with its task id (`123_4`).
    fn task(&self, index: usize) -> Option<String> {
        self.arrays
            .iter()
            .rev()
            .find(|(_, idx)| idx.contains(&index))
            .map(|(id, _)| format!("{id}_{index}"))
    }
}

/// Write the scripts into the work folder (and the logs folder Slurm
/// needs before a job starts); returns their paths.
pub fn write_scripts(work: Work<'_>, o: &SlurmOptions) -> anyhow::Result<(PathBuf, PathBuf)> {
    let (array, merge) = scripts(work, o);
    for d in ["slurm", "logs"] {
        let d = work.dir.join(d);
        std::fs::create_dir_all(&d).with_context(|| format!("{}: cannot create", d.display()))?;
    }
    let a = work.dir.join(ARRAY_SCRIPT);
    let m = work.dir.join(MERGE_SCRIPT);
    std::fs::write(&a, array).with_context(|| format!("{}: cannot write", a.display()))?;
    std::fs::write(&m, merge).with_context(|| format!("{}: cannot write", m.display()))?;
    Ok((a, m))
}

/// Run `sbatch --parsable ARGS`; the job id it prints.
fn sbatch(args: &[String]) -> anyhow::Result<String> {
    let out = Command::new("sbatch")
        .arg("--parsable")
        .args(args)
        .output()
        .context("cannot run sbatch: is this a Slurm login node (is `sbatch` on PATH)?")?;
    if !out.status.success() {
        bail!(
            "sbatch {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    // `--parsable` prints `id` or `id;cluster`.
    let id = text.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        bail!("sbatch printed `{}` where a job id was expected", text.trim());
    }
    Ok(id)
}

/// Submit the shards that are not done (all of them the first time, or
/// `rerun`), then a merge job that waits for them; a merge job submitted
/// before and still waiting is cancelled first, since it may wait forever
/// on a failed task. Returns the jobs now recorded.
pub fn submit(work: Work<'_>, rerun: Option<&[usize]>) -> anyhow::Result<Jobs> {
    let mut jobs = Jobs::read(work.dir);
    let n = work.shards;
    let indices: Vec<usize> = match rerun {
        Some(list) => {
            if let Some(bad) = list.iter().find(|&&i| i >= n) {
                bail!("--rerun {bad}: the plan has shards 0 to {}", n - 1);
            }
            list.to_vec()
        }
        None => (0..n).collect(),
    };
    let array_script = work.dir.join(ARRAY_SCRIPT).display().to_string();
    let merge_script = work.dir.join(MERGE_SCRIPT).display().to_string();
    let mut args = Vec::new();
    if rerun.is_some() {
        args.push(format!("--array={}", ranges(&indices)));
    }
    args.push(array_script);
    let array = sbatch(&args)?;
    jobs.arrays.push((array.clone(), indices));
    if let Some(old) = jobs.merge.take() {
        // A finished job cannot be cancelled, and that is fine.
        let _ = Command::new("scancel").arg(&old).output();
    }
    let merge = sbatch(&[format!("--dependency=afterok:{array}"), merge_script])?;
    jobs.merge = Some(merge);
    jobs.write(work.dir)?;
    Ok(jobs)
}

/// `0-3,5,7-8` for Slurm's `--array`.
fn ranges(indices: &[usize]) -> String {
    let mut sorted = indices.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        while i + 1 < sorted.len() && sorted[i + 1] == sorted[i] + 1 {
            i += 1;
        }
        parts.push(if sorted[i] == start {
            start.to_string()
        } else {
            format!("{start}-{}", sorted[i])
        });
        i += 1;
    }
    parts.join(",")
}

/// What `squeue` says of a job or task: its state and reason.
fn squeue(ids: &[String]) -> BTreeMap<String, (String, String)> {
    if ids.is_empty() {
        return BTreeMap::new();
    }
    let Ok(out) = Command::new("squeue")
        .args(["-h", "-r", "-t", "all", "-o", "%i|%T|%r", "-j", &ids.join(",")])
        .output()
    else {
        return BTreeMap::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut f = l.split('|');
            Some((
                f.next()?.trim().to_string(),
                (f.next()?.trim().to_string(), f.next()?.trim().to_string()),
            ))
        })
        .collect()
}

/// A shard's line in the status.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardLine {
    /// The shard.
    pub index: usize,
    /// `done`, `running`, `pending`, `failed`, `stopped` or `not started`.
    pub state: &'static str,
    /// Games in its journal (all of them when done).
    pub games: usize,
    /// Games planned.
    pub planned: usize,
    /// The Slurm task and what Slurm says of it, when known.
    pub slurm: Option<String>,
}

/// The plan's state: each shard, the merge job, and what to do next.
#[derive(Debug, Clone)]
pub struct Status {
    /// Each shard.
    pub shards: Vec<ShardLine>,
    /// The merge job and its state, when one was submitted.
    pub merge: Option<String>,
    /// Commands that get the plan finished, when something is stuck.
    pub advice: Vec<String>,
}

/// How far a shard is, from the work folder alone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Marked done for this plan.
    pub done: bool,
    /// Games (or students) in its results so far.
    pub count: usize,
    /// Games (or students) planned.
    pub planned: usize,
}

/// Each shard's state from the work folder (`progress`) and, when the
/// plan was submitted to Slurm, from `squeue` (finished jobs stay listed
/// for `MinJobAge`, 300 s by default; after that the folder alone tells).
pub fn status(work: Work<'_>, progress: &[Progress]) -> Status {
    let jobs = Jobs::read(work.dir);
    let mut ids: Vec<String> = jobs.arrays.iter().map(|(id, _)| id.clone()).collect();
    ids.extend(jobs.merge.clone());
    let queue = squeue(&ids);
    let dir = work.dir.display().to_string();
    let command = work.command;
    let mut failed = Vec::new();
    let shards: Vec<ShardLine> = progress
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let task = jobs.task(i);
            let slurm = task.as_ref().map(|t| (t.clone(), queue.get(t).cloned()));
            let mut label = match (p.done, p.count) {
                (true, _) => "done",
                (false, 0) => "not started",
                (false, _) => "stopped",
            };
            if !p.done {
                match slurm.as_ref().and_then(|(_, q)| q.as_ref()).map(|(s, _)| s.as_str()) {
                    Some("RUNNING" | "COMPLETING" | "CONFIGURING") => label = "running",
                    Some("PENDING" | "REQUEUED" | "SUSPENDED") => label = "pending",
                    // Finished without marking the shard done: it failed, whatever Slurm says.
                    Some(_) => label = "failed",
                    // Submitted, and gone from the queue without finishing.
                    None if slurm.is_some() => label = "failed",
                    None => {}
                }
            }
            if label == "failed" {
                failed.push(i);
            }
            ShardLine {
                index: i,
                state: label,
                games: p.count,
                planned: p.planned,
                slurm: slurm.map(|(t, q)| match q {
                    Some((s, r)) if r != "None" => format!("{t} {s} ({r})"),
                    Some((s, _)) => format!("{t} {s}"),
                    None => t,
                }),
            }
        })
        .collect();
    let merge = jobs.merge.as_ref().map(|id| match queue.get(id) {
        Some((s, r)) if r != "None" => format!("{id} {s} ({r})"),
        Some((s, _)) => format!("{id} {s}"),
        None => id.clone(),
    });
    let mut advice = Vec::new();
    if !failed.is_empty() {
        let list = ranges(&failed);
        let never = jobs
            .merge
            .as_ref()
            .and_then(|id| queue.get(id))
            .is_some_and(|(_, r)| r.contains("DependencyNeverSatisfied"));
        if never {
            advice.push(
                "the merge job waits for a failed task and will never run (DependencyNeverSatisfied)".to_string(),
            );
        }
        advice.push(format!(
            "rerun shard {list} and resubmit the merge (the waiting merge job is cancelled): `arena {command} slurm {dir} --rerun {list} --submit`"
        ));
        advice.push(format!(
            "or by hand: `sbatch --array={list} {dir}/{ARRAY_SCRIPT}`, then `scancel` the merge job and `sbatch --dependency=afterok:<new job id> {dir}/{MERGE_SCRIPT}`; the logs are in {dir}/logs"
        ));
    }
    Status { shards, merge, advice }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_join_runs_of_indices() {
        assert_eq!(ranges(&[3, 0, 1, 2, 5, 7, 8]), "0-3,5,7-8");
        assert_eq!(ranges(&[4]), "4");
    }

    #[test]
    fn a_merge_asks_for_a_whole_gib_by_its_matches_and_bots() {
        assert_eq!(merge_mib(0, 0), 1024);
        assert_eq!(merge_mib(496, 32), 1024);
        // 1,000 bots, every pair: 512 + 1,000 + 975.6 MiB, rounded up to 3 GiB.
        assert_eq!(merge_mib(499_500, 1_000), 3 * 1024);
    }

    #[test]
    fn shell_quoting_survives_a_quote() {
        assert_eq!(sh("a'b c"), r"'a'\''b c'");
    }
}
