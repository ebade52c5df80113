//! A round robin cut into shards that any machine can play, then merged into
//! exactly what one machine gives. A game is a pure function of its bots,
//! seed and limits (fuel decides, never the clock), so the shards of a plan
//! can run on the nodes of a cluster, in any order, twice, or after a kill.
//!
//! The work folder holds:
//! - `manifest.json`: the game, format, seed, limits, illegal-move rule,
//!   versions and every bot with its SHA-256 ([`Manifest`]);
//! - `plan.jsonl`: every match, one line each, with its shard and cost;
//! - `shards/NNNN/journal.jsonl`: the shard's finished games, written as they
//!   finish (a killed shard resumes, a finished one plays nothing again);
//! - `shards/NNNN/done.json`: written last, when every game of the shard is in.
//!
//! [`plan`], [`run_shard`] and [`merge`] are the three library calls behind
//! `arena tournament plan`, `run-shard` and `merge`.

use crate::contest::{self, ContestJob, ContestOutcome, Contestant, Disqualified, Loaded};
use anyhow::{Context, bail};
use arena_competition::tournament::{self, Engine, Format, Journal, Plan, Seeding, TournamentSpec};
use arena_runner::runner::entrants::setup;
use arena_runner::runner::settings::RunSettings;
use arena_runner::runner::{BotRef, Entrant, GameDef, whole_rotations};
use arena_sandbox::Sandbox;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// The manifest's file name in the work folder.
pub const MANIFEST: &str = "manifest.json";
/// The plan's file name in the work folder.
pub const PLAN: &str = "plan.jsonl";
/// The most shards a plan may have: a Slurm array's default `MaxArraySize` is 1001.
pub const MAX_SHARDS: usize = 100_000;

/// The limits a plan was made with, as given (the game's defaults fill in
/// the rest on every node, and the resolved limits must then agree).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LimitChanges {
    /// Fuel per move.
    pub fuel: Option<u64>,
    /// Fuel bank per bot per game.
    pub bank: Option<u64>,
    /// Start allowance.
    pub start_fuel: Option<u64>,
    /// Memory cap per bot, in bytes.
    pub memory: Option<u64>,
    /// Time backstop per call, in seconds.
    pub timeout_seconds: Option<f64>,
    /// Log bytes kept per bot per game.
    pub log_bytes: Option<u64>,
    /// Largest bot file accepted.
    pub max_file_bytes: Option<u64>,
    /// CPU seconds a compile may take.
    pub compile_seconds: Option<f64>,
    /// Memory a compile may take.
    pub compile_memory: Option<u64>,
}

impl LimitChanges {
    /// The changes a run's settings make.
    pub fn of(s: &RunSettings) -> LimitChanges {
        LimitChanges {
            fuel: s.fuel,
            bank: s.bank,
            start_fuel: s.start_fuel,
            memory: s.memory,
            timeout_seconds: s.timeout.map(|d| d.as_secs_f64()),
            log_bytes: s.log_bytes,
            max_file_bytes: s.max_file_bytes,
            compile_seconds: s.compile_seconds.map(|d| d.as_secs_f64()),
            compile_memory: s.compile_memory,
        }
    }

    /// `base` (this machine's cache, compiler and threads) with these limits.
    pub fn apply(&self, base: &RunSettings) -> RunSettings {
        let secs = |s: Option<f64>| s.and_then(|s| Duration::try_from_secs_f64(s).ok());
        RunSettings {
            fuel: self.fuel,
            bank: self.bank,
            start_fuel: self.start_fuel,
            memory: self.memory,
            timeout: secs(self.timeout_seconds),
            log_bytes: self.log_bytes,
            max_file_bytes: self.max_file_bytes,
            compile_seconds: secs(self.compile_seconds),
            compile_memory: self.compile_memory,
            ..base.clone()
        }
    }
}

/// A bot of the plan: one that loaded when the plan was made.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlannedBot {
    /// `house:NAME` or the bot file's absolute path.
    pub bot: String,
    /// The student it stands for.
    pub student: Option<String>,
    /// The file's SHA-256 (none for a house bot).
    pub sha256: Option<String>,
    /// The world it was built for (`arena:bots/en-garde@0.2.0`); none for a house bot.
    pub world: Option<String>,
    /// What built it, as `arena check` names it.
    pub toolchain: String,
    /// Its estimated cost per game, relative to a house bot's.
    pub cost: f64,
}

/// Everything a shard needs to play its games as one machine would.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    /// What was planned: `tournament`.
    pub kind: String,
    /// The arena version that made the plan; every shard must run the same.
    pub arena_version: String,
    /// The wasmtime version; the same on every node.
    pub wasmtime_version: String,
    /// The game.
    pub game: String,
    /// Its rules variant.
    pub variant: Option<String>,
    /// The illegal-move rule.
    pub illegal: arena_core::IllegalMoves,
    /// The format (a round robin).
    pub format: Format,
    /// Games per match.
    pub games: usize,
    /// Rounds of tables.
    pub rounds: Option<usize>,
    /// Seeding (unused by a round robin, kept so the journal's header matches).
    pub seeding: Seeding,
    /// The tournament seed.
    pub seed: u64,
    /// The limits as given.
    pub changes: LimitChanges,
    /// The limits every bot runs under, resolved; a node must resolve the same.
    pub limits: Value,
    /// The bots that play, in the order given.
    pub bots: Vec<PlannedBot>,
    /// The students and bots left out, with why, in the order one machine reports them.
    pub disqualified: Vec<Disqualified>,
    /// The shards.
    pub shards: usize,
    /// Matches planned.
    pub matches: usize,
    /// Games planned.
    pub total_games: usize,
}

/// One line of `plan.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlannedMatch {
    /// The match id.
    #[serde(rename = "match")]
    pub id: String,
    /// Its bots, by index in the manifest.
    pub bots: Vec<usize>,
    /// Games, rounded up to whole seat rotations.
    pub games: usize,
    /// The shard that plays it.
    pub shard: usize,
    /// Its estimated cost.
    pub cost: f64,
}

/// What [`plan`] made.
#[derive(Debug)]
pub struct PlanOutcome {
    /// The manifest written.
    pub manifest: Manifest,
    /// Each shard's matches, games and estimated cost.
    pub shards: Vec<ShardLoad>,
}

/// A shard's share of the work.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ShardLoad {
    /// Matches.
    pub matches: usize,
    /// Games.
    pub games: usize,
    /// Estimated cost, in house-bot games.
    pub cost: f64,
}

/// A bot's cost per game, in house-bot games: against the native house
/// bot, a compiled (Rust, C) twin is 1.3 to 5.7 times slower and an
/// interpreted (Python, JavaScript) one 15 to 221 times (docs/performance.md).
pub(crate) fn cost_of(toolchain: &str, house: bool) -> f64 {
    if house {
        1.0
    } else if toolchain.contains("Python") || toolchain.contains("JavaScript") {
        100.0
    } else {
        3.0
    }
}

fn toolchain_of(bot: &BotRef) -> String {
    match bot {
        BotRef::House(_) => "house bot".into(),
        BotRef::Wasm(p) => match std::fs::read(&p.path) {
            Ok(bytes) => arena_grading::check::toolchain(&arena_grading::check::scan(&bytes)),
            Err(_) => "unknown".into(),
        },
    }
}

/// The folder of shard `index`.
pub fn shard_dir(work: &Path, index: usize) -> PathBuf {
    work.join("shards").join(format!("{index:04}"))
}

/// The first line of every shard journal of a plan: it ties the games to
/// this manifest (by its SHA-256), so a shard of another plan is refused.
fn shard_header(manifest_sha: &str) -> Value {
    json!({"type": "tournament-shard", "plan": manifest_sha})
}

pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Cut `job`'s round robin into `shards` shards of near-equal cost and
/// write the manifest and plan into `work`. Loads every bot (compiling it
/// into the sandbox's cache, which the shards can then share), as the
/// tournament would; the ones that do not load are disqualified in the plan.
pub fn plan(
    job: &ContestJob<'_>,
    changes: &LimitChanges,
    shards: usize,
    work: &Path,
    pool: &rayon::ThreadPool,
) -> anyhow::Result<PlanOutcome> {
    if shards == 0 || shards > MAX_SHARDS {
        bail!("--shards {shards}: give between 1 and {MAX_SHARDS} shards");
    }
    if job.contestants.len() < 2 {
        bail!("{}", crate::contest::too_few(job));
    }
    if work.join(MANIFEST).exists() {
        bail!(
            "{}: this work folder already holds a plan; use another --work folder or delete it",
            work.join(MANIFEST).display()
        );
    }
    let Loaded {
        entrants,
        disqualified,
        kept,
    } = contest::load(job, pool)?;
    let bots = planned_bots(job, &entrants, &kept);
    let spec = TournamentSpec {
        game: job.game,
        setup: job.setup.clone(),
        entrants,
        disqualified: disqualified.clone(),
        format: job.format,
        games: job.games,
        rounds: job.rounds,
        seeding: job.seeding,
        seed: job.seed,
    };
    let plans = tournament::planned_matches(&spec)?;
    let (assigned, loads) = balance(&plans, &bots, shards);
    let manifest = Manifest {
        kind: "tournament".into(),
        arena_version: arena_runner::VERSION.into(),
        wasmtime_version: arena_runner::replay::WASMTIME_VERSION.into(),
        game: job.game.name().into(),
        variant: job.setup.variant.clone(),
        illegal: job.setup.illegal,
        format: job.format,
        games: job.games,
        rounds: job.rounds,
        seeding: job.seeding,
        seed: job.seed,
        changes: changes.clone(),
        limits: serde_json::to_value(job.sandbox.limits())?,
        bots,
        disqualified,
        shards,
        matches: plans.len(),
        total_games: loads.iter().map(|l| l.games).sum(),
    };
    write_plan(work, &plans, &assigned, &manifest)?;
    Ok(PlanOutcome {
        manifest,
        shards: loads,
    })
}

/// Each loaded bot as the plan names it: its file (absolute) or house
/// name, its SHA-256, world, toolchain and estimated cost of a game.
fn planned_bots(job: &ContestJob<'_>, entrants: &[Entrant], kept: &[usize]) -> Vec<PlannedBot> {
    entrants
        .iter()
        .zip(kept)
        .map(|(e, &i)| {
            let c = &job.contestants[i];
            let toolchain = toolchain_of(&e.bot);
            let (bot, sha256) = match &e.bot {
                BotRef::House(_) => (c.bot.clone(), None),
                BotRef::Wasm(p) => {
                    let path = std::path::absolute(&p.path).unwrap_or(p.path.clone());
                    (path.display().to_string(), Some(p.sha256.clone()))
                }
            };
            PlannedBot {
                world: match &e.bot {
                    BotRef::Wasm(p) => Some(p.world.name.to_string()),
                    BotRef::House(_) => None,
                },
                cost: cost_of(&toolchain, sha256.is_none()),
                bot,
                student: c.student.clone(),
                sha256,
                toolchain,
            }
        })
        .collect()
}

/// Write the plan (a line per match with its shard) and then the manifest into `work`.
fn write_plan(work: &Path, plans: &[Plan], assigned: &[(usize, f64)], manifest: &Manifest) -> anyhow::Result<()> {
    std::fs::create_dir_all(work).with_context(|| format!("{}: cannot create the work folder", work.display()))?;
    let mut out = String::new();
    for (p, &(shard, cost)) in plans.iter().zip(assigned) {
        let line = PlannedMatch {
            id: p.id.clone(),
            bots: p.bots.clone(),
            games: whole_rotations(p.games, p.bots.len()),
            shard,
            cost,
        };
        out.push_str(&serde_json::to_string(&line)?);
        out.push('\n');
    }
    write_atomic(&work.join(PLAN), out.as_bytes())?;
    // The manifest last: a folder with a manifest has its whole plan.
    write_atomic(
        &work.join(MANIFEST),
        (serde_json::to_string_pretty(manifest)? + "\n").as_bytes(),
    )?;
    Ok(())
}

/// Each match's shard and cost, and each shard's load: the costliest
/// matches first, each to the least loaded shard (ties to the lowest
/// index), which keeps shards within one match of each other.
fn balance(plans: &[Plan], bots: &[PlannedBot], shards: usize) -> (Vec<(usize, f64)>, Vec<ShardLoad>) {
    let costs: Vec<f64> = plans
        .iter()
        .map(|p| whole_rotations(p.games, p.bots.len()) as f64 * p.bots.iter().map(|&b| bots[b].cost).sum::<f64>())
        .collect();
    let mut order: Vec<usize> = (0..plans.len()).collect();
    order.sort_by(|&a, &b| costs[b].total_cmp(&costs[a]).then(a.cmp(&b)));
    let mut loads = vec![ShardLoad::default(); shards];
    let mut assigned = vec![(0, 0.0); plans.len()];
    for m in order {
        let (s, _) = loads
            .iter()
            .enumerate()
            .min_by(|(i, a), (j, b)| a.cost.total_cmp(&b.cost).then(i.cmp(j)))
            .unwrap_or((0, &ShardLoad::default()));
        loads[s].matches += 1;
        loads[s].games += whole_rotations(plans[m].games, plans[m].bots.len());
        loads[s].cost += costs[m];
        assigned[m] = (s, costs[m]);
    }
    (assigned, loads)
}

pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let tmp = path.with_extension("partial");
    let mut f = std::fs::File::create(&tmp).with_context(|| format!("{}: cannot create", tmp.display()))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .with_context(|| format!("{}: cannot write", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("{}: cannot write", path.display()))?;
    Ok(())
}

/// The manifest in `bytes` (read from `path`), of a plan of `kind`
/// (`tournament` or `grade-class`), made by this arena.
pub(crate) fn read_manifest<T: serde::de::DeserializeOwned>(
    path: &Path,
    bytes: &[u8],
    kind: &str,
) -> anyhow::Result<T> {
    #[derive(Deserialize)]
    struct Head {
        kind: String,
        arena_version: String,
        wasmtime_version: String,
    }
    let head: Head = serde_json::from_slice(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{}: not a plan arena can read ({e}); make the plan again",
            path.display()
        )
    })?;
    if head.kind != kind {
        let dir = path.parent().unwrap_or(path).display();
        bail!(
            "{}: this folder holds a {} plan, not a {kind} one; use `arena {} status {dir}`",
            path.display(),
            head.kind,
            head.kind
        );
    }
    if head.arena_version != arena_runner::VERSION || head.wasmtime_version != arena_runner::replay::WASMTIME_VERSION {
        bail!(
            "{}: planned with arena {} (wasmtime {}), and this is arena {} (wasmtime {}); run every step with the same arena binary",
            path.display(),
            head.arena_version,
            head.wasmtime_version,
            arena_runner::VERSION,
            arena_runner::replay::WASMTIME_VERSION
        );
    }
    serde_json::from_slice(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{}: not a plan arena can read ({e}); make the plan again",
            path.display()
        )
    })
}

/// A plan read back, with its manifest's SHA-256.
pub struct WorkFolder {
    /// The folder.
    pub dir: PathBuf,
    /// The manifest.
    pub manifest: Manifest,
    /// SHA-256 of `manifest.json`, which every shard's results carry.
    pub sha256: String,
    /// The game.
    pub game: &'static dyn GameDef,
}

impl WorkFolder {
    /// Read the plan in `dir`, refusing one made by another arena or wasmtime.
    pub fn open(dir: &Path) -> anyhow::Result<WorkFolder> {
        let path = dir.join(MANIFEST);
        let bytes = std::fs::read(&path).with_context(|| {
            format!(
                "{}: no plan here; make one with `arena tournament plan ... --work {}`",
                path.display(),
                dir.display()
            )
        })?;
        let manifest: Manifest = read_manifest(&path, &bytes, "tournament")?;
        let game = arena_runner::runner::entrants::find_game(&manifest.game)?;
        Ok(WorkFolder {
            dir: dir.to_path_buf(),
            sha256: sha256_hex(&bytes),
            manifest,
            game,
        })
    }

    /// The plan's matches with their shards, read line by line.
    pub fn matches(&self) -> anyhow::Result<impl Iterator<Item = anyhow::Result<PlannedMatch>>> {
        let path = self.dir.join(PLAN);
        let file = std::fs::File::open(&path).with_context(|| format!("{}: cannot read the plan", path.display()))?;
        Ok(std::io::BufReader::new(file).lines().map(move |line| {
            let line = line.with_context(|| format!("{}: cannot read", path.display()))?;
            serde_json::from_str(&line)
                .with_context(|| format!("{}: a damaged line; make the plan again", path.display()))
        }))
    }

    /// The sandbox the plan's limits give on this machine (`base` brings
    /// the cache, compiler and threads), checked against the manifest.
    pub fn sandbox(&self, base: &RunSettings) -> anyhow::Result<Sandbox> {
        let sandbox = self.manifest.changes.apply(base).sandbox(self.game)?;
        if serde_json::to_value(sandbox.limits())? != self.manifest.limits {
            bail!(
                "{}: the limits resolve differently here than where the plan was made; run every step with the same arena binary",
                self.dir.join(MANIFEST).display()
            );
        }
        Ok(sandbox)
    }

    /// Check every bot file still has the SHA-256 the plan recorded.
    pub fn check_bots(&self) -> anyhow::Result<()> {
        for b in &self.manifest.bots {
            let Some(want) = &b.sha256 else { continue };
            let bytes = std::fs::read(&b.bot).with_context(|| {
                format!(
                    "{}: cannot read this bot of the plan; the shared folder must hold it where the plan was made",
                    b.bot
                )
            })?;
            let got = sha256_hex(&bytes);
            if &got != want {
                bail!(
                    "{}: this file has changed since the plan was made (SHA-256 {got}, planned {want}); restore it or make a new plan",
                    b.bot
                );
            }
        }
        Ok(())
    }

    /// The tournament job the plan describes, with the planned bots.
    fn job<'a>(
        &self,
        sandbox: &'a Sandbox,
        out: Option<&'a Path>,
        stop: Arc<AtomicBool>,
        progress: bool,
        note: &'a (dyn Fn(&str) + Sync),
    ) -> anyhow::Result<ContestJob<'a>> {
        let m = &self.manifest;
        Ok(ContestJob {
            game: self.game,
            setup: setup(self.game, sandbox, m.variant.clone(), Some(m.illegal))?,
            sandbox,
            contestants: m
                .bots
                .iter()
                .map(|b| Contestant {
                    bot: b.bot.clone(),
                    student: b.student.clone(),
                })
                .collect(),
            without: m.disqualified.clone(),
            format: m.format,
            games: m.games,
            rounds: m.rounds,
            seeding: m.seeding,
            seed: m.seed,
            out,
            stop,
            progress,
            note,
            elsewhere: None,
        })
    }
}

/// What a shard run did.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardOutcome {
    /// The shard.
    pub index: usize,
    /// Its matches.
    pub matches: usize,
    /// Its games.
    pub games: usize,
    /// Games played by this run (the rest were in the journal).
    pub played: usize,
}

/// What a finished shard's `done.json` says.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ShardDone {
    /// SHA-256 of the manifest the shard played.
    pub plan: String,
    /// The shard.
    pub shard: usize,
    /// Its matches.
    pub matches: usize,
    /// Its games.
    pub games: usize,
}

/// How to run one shard on this machine.
pub struct ShardRun<'a> {
    /// The work folder.
    pub work: &'a Path,
    /// The shard.
    pub index: usize,
    /// This machine's cache, compiler and threads (the limits come from the plan).
    pub base: RunSettings,
    /// Set to stop after the games in flight (they are kept in the journal).
    pub stop: Arc<AtomicBool>,
    /// Whether to draw a progress bar.
    pub progress: bool,
    /// Told each line a person should read as it happens.
    pub note: &'a (dyn Fn(&str) + Sync),
}

/// Play shard `run.index` of the plan: refuse changed bots, load the bots
/// (each compiled once into this machine's cache), play the shard's
/// matches with every finished game in its journal, then mark it done.
/// Running it again after a kill plays only what is missing; after it
/// finished, nothing.
pub fn run_shard(run: &ShardRun<'_>, pool: &rayon::ThreadPool) -> anyhow::Result<ShardOutcome> {
    let work = WorkFolder::open(run.work)?;
    let m = &work.manifest;
    if run.index >= m.shards {
        bail!(
            "shard {} does not exist: the plan in {} has shards 0 to {}",
            run.index,
            run.work.display(),
            m.shards - 1
        );
    }
    work.check_bots()?;
    let sandbox = work.sandbox(&run.base)?;
    let job = work.job(&sandbox, None, run.stop.clone(), run.progress, run.note)?;
    let spec = loaded_spec(&work, &job, pool)?;
    let mine: HashMap<String, usize> = work
        .matches()?
        .filter_map(|l| match l {
            Ok(p) if p.shard == run.index => Some(Ok((p.id, p.games))),
            Ok(_) => None,
            Err(e) => Some(Err(e)),
        })
        .collect::<anyhow::Result<_>>()?;
    let plans: Vec<Plan> = tournament::planned_matches(&spec)?
        .into_iter()
        .filter(|p| mine.contains_key(&p.id))
        .collect();
    if plans.len() != mine.len() {
        bail!(
            "{}: the plan names matches this tournament does not have; make the plan again",
            run.work.join(PLAN).display()
        );
    }
    let dir = shard_dir(run.work, run.index);
    let journal = Journal::open(&dir, &shard_header(&work.sha256)).map_err(anyhow::Error::msg)?;
    if journal.finished() > 0 {
        (run.note)(&format!(
            "shard {}: resuming, {} finished games found in {}",
            run.index,
            journal.finished(),
            journal.path().display()
        ));
    }
    let journal_path = journal.path().to_path_buf();
    let engine = Engine::new(&spec, Some(journal), run.stop.clone(), run.progress);
    let label = format!("shard {}", run.index);
    let records = pool.install(|| engine.play_planned(&label, plans))?;
    let Some(records) = records else {
        bail!(
            "shard {} stopped after {} new games; they are kept in {}: run the same command again to continue",
            run.index,
            engine.games_played(),
            journal_path.display()
        );
    };
    let played = engine.games_played();
    drop(engine);
    // The games reach the disk before the mark that says they are all there.
    std::fs::File::open(&journal_path)
        .and_then(|f| f.sync_all())
        .with_context(|| format!("{}: cannot sync", journal_path.display()))?;
    let done = ShardDone {
        plan: work.sha256.clone(),
        shard: run.index,
        matches: records.len(),
        games: records.iter().map(|r| r.tally.played).sum(),
    };
    write_atomic(
        &dir.join("done.json"),
        (serde_json::to_string(&done)? + "\n").as_bytes(),
    )?;
    Ok(ShardOutcome {
        index: run.index,
        matches: done.matches,
        games: done.games,
        played,
    })
}

/// The plan's bots loaded here, as the spec the tournament runs on; the
/// same bots must load and be left out as when the plan was made.
fn loaded_spec<'a>(
    work: &WorkFolder,
    job: &ContestJob<'a>,
    pool: &rayon::ThreadPool,
) -> anyhow::Result<TournamentSpec<'a>> {
    let Loaded {
        entrants, disqualified, ..
    } = contest::load(job, pool)?;
    if disqualified != work.manifest.disqualified {
        let new: Vec<&str> = disqualified
            .iter()
            .filter(|d| !work.manifest.disqualified.contains(d))
            .map(|(n, _)| n.as_str())
            .collect();
        bail!(
            "{} did not load here although they loaded where the plan was made; check this node runs the same arena binary",
            new.join(", ")
        );
    }
    Ok(TournamentSpec {
        game: job.game,
        setup: job.setup.clone(),
        entrants,
        disqualified,
        format: job.format,
        games: job.games,
        rounds: job.rounds,
        seeding: job.seeding,
        seed: job.seed,
    })
}

/// A shard's state in the work folder.
#[derive(Debug, Clone, PartialEq)]
pub enum ShardState {
    /// No game yet.
    NotStarted,
    /// Some games in its journal, not all.
    Started {
        /// Games in the journal.
        games: usize,
    },
    /// Every game in, and marked done for this plan.
    Done(ShardDone),
    /// Marked done for another plan, or unreadable: to be played again.
    Foreign(String),
}

/// Each shard's planned load and state.
pub fn shard_states(work: &WorkFolder) -> anyhow::Result<Vec<(ShardLoad, ShardState)>> {
    let mut loads = vec![ShardLoad::default(); work.manifest.shards];
    for line in work.matches()? {
        let p = line?;
        let Some(l) = loads.get_mut(p.shard) else {
            bail!(
                "{}: a match of shard {} in a plan of {} shards; make the plan again",
                work.dir.join(PLAN).display(),
                p.shard,
                work.manifest.shards
            );
        };
        l.matches += 1;
        l.games += p.games;
        l.cost += p.cost;
    }
    let header = shard_header(&work.sha256);
    Ok(loads
        .into_iter()
        .enumerate()
        .map(|(i, load)| {
            let dir = shard_dir(&work.dir, i);
            let state = match std::fs::read(dir.join("done.json")) {
                Ok(bytes) => match serde_json::from_slice::<ShardDone>(&bytes) {
                    Ok(d) if d.plan == work.sha256 && d.shard == i => ShardState::Done(d),
                    Ok(_) => ShardState::Foreign("its done.json belongs to another plan".into()),
                    Err(e) => ShardState::Foreign(format!("its done.json cannot be read ({e})")),
                },
                Err(_) => match journal_games(&dir.join("journal.jsonl"), &header) {
                    Some(0) | None => ShardState::NotStarted,
                    Some(games) => ShardState::Started { games },
                },
            };
            (load, state)
        })
        .collect())
}

/// Games in a shard journal of this plan, `None` when there is none.
fn journal_games(path: &Path, header: &Value) -> Option<usize> {
    let file = std::fs::File::open(path).ok()?;
    let mut lines = std::io::BufReader::new(file).lines();
    let first: Value = serde_json::from_str(&lines.next()?.ok()?).ok()?;
    (&first == header).then(|| lines.map_while(Result::ok).filter(|l| l.ends_with('}')).count())
}

/// How to merge a plan's shards.
pub struct MergeRun<'a> {
    /// The work folder.
    pub work: &'a Path,
    /// This machine's cache, compiler and threads.
    pub base: RunSettings,
    /// The folder for the standings files, index page and replays, as `arena tournament --out`.
    pub out: Option<&'a Path>,
    /// Told each line a person should read as it happens.
    pub note: &'a (dyn Fn(&str) + Sync),
}

/// Merge a plan's finished shards into the tournament one machine would
/// have played: the same report and, with `out`, the same files. Every
/// shard must be done and belong to this plan; the first that is not is
/// named with the command that plays it.
pub fn merge(run: &MergeRun<'_>, pool: &rayon::ThreadPool) -> anyhow::Result<(Manifest, ContestOutcome)> {
    let work = WorkFolder::open(run.work)?;
    let states = shard_states(&work)?;
    for (i, (_, state)) in states.iter().enumerate() {
        let why = match state {
            ShardState::Done(_) => continue,
            ShardState::NotStarted => "has not run".to_string(),
            ShardState::Started { games } => format!("stopped after {games} games"),
            ShardState::Foreign(why) => why.clone(),
        };
        bail!(
            "shard {i} of {} {why}: run `arena tournament run-shard {} --index {i}`, then merge again",
            work.manifest.shards,
            run.work.display()
        );
    }
    work.check_bots()?;
    let sandbox = work.sandbox(&run.base)?;
    let mut job = work.job(&sandbox, run.out, Arc::new(AtomicBool::new(false)), false, run.note)?;
    job.elsewhere = Some((
        shard_header(&work.sha256),
        (0..work.manifest.shards)
            .map(|i| shard_dir(run.work, i).join("journal.jsonl"))
            .collect(),
    ));
    let outcome = contest::run(&job, pool)?;
    Ok((work.manifest, outcome))
}
