//! `arena grade-class` in shards: the students cut into shards of
//! near-equal cost, each shard graded on any machine (each grade is a pure
//! function of the bot, the rubric and the limits), and the reports merged
//! and written up exactly as one machine writes them ([`crate::class::write_up`]).
//!
//! The work folder holds `manifest.json` (the game, the class folder, the
//! rubric's text, limits, every student's file with its SHA-256 and shard),
//! `shards/NNNN/grades.jsonl` (one graded student per line, written as each
//! finishes) and `shards/NNNN/done.json`.

use crate::class::{self, ClassJob, ClassOutcome};
use crate::shard::{LimitChanges, cost_of, read_manifest, sha256_hex, shard_dir, write_atomic};
use anyhow::{Context, bail};
use arena_competition::tournament::Format;
use arena_grading::grade::lms::Lms;
use arena_grading::grade::submissions::{self, Class};
use arena_grading::grade::{CarriedReport, GradeReport, Rubric, rubric};
use arena_runner::runner::settings::RunSettings;
use arena_runner::runner::{BotRef, Entrant, GameDef};
use arena_sandbox::Sandbox;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A student of the plan.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PlannedStudent {
    /// The name the gradebook shows.
    pub student: String,
    /// The chosen bot file (absolute), or none when the student has no usable bot.
    pub file: Option<String>,
    /// Its SHA-256.
    pub sha256: Option<String>,
    /// The shard that grades the student.
    pub shard: usize,
    /// Estimated cost, in house-bot games.
    pub cost: f64,
}

/// Everything a shard needs to grade its students as one machine would.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClassManifest {
    /// `grade-class`.
    pub kind: String,
    /// The arena version that made the plan.
    pub arena_version: String,
    /// The wasmtime version.
    pub wasmtime_version: String,
    /// The game.
    pub game: String,
    /// The class folder (absolute), read again by every step.
    pub class_dir: String,
    /// The rubric's text, frozen at plan time.
    pub rubric_text: String,
    /// Where the rubric came from, as its errors name it.
    pub rubric_file: String,
    /// How the report names the rubric.
    pub rubric_name: String,
    /// `--illegal`, which wins over the rubric's.
    pub illegal: Option<arena_core::IllegalMoves>,
    /// Games per rubric item.
    pub games: usize,
    /// The class tournament, if any (played by the merge).
    pub tournament: Option<Format>,
    /// Games per tournament match.
    pub tournament_games: usize,
    /// LMS grade files to write, by name.
    pub export_for: Vec<String>,
    /// The assignment's name in LMS files.
    pub assignment: String,
    /// The limits as given.
    pub changes: LimitChanges,
    /// The limits resolved; every node must resolve the same.
    pub limits: Value,
    /// Every student, in the class's order.
    pub students: Vec<PlannedStudent>,
    /// The shards.
    pub shards: usize,
}

/// What the command line gives a class plan besides the job.
pub struct ClassPlan<'a> {
    /// The class job, as `arena grade-class` would run it.
    pub job: &'a ClassJob<'a>,
    /// The class folder as given.
    pub class_dir: &'a Path,
    /// The rubric's text and the name its errors use.
    pub rubric_text: String,
    /// The rubric's file name (or "default rubric of GAME").
    pub rubric_file: String,
    /// `--illegal`.
    pub illegal: Option<arena_core::IllegalMoves>,
    /// The limits as given.
    pub changes: LimitChanges,
}

/// Cut the class into `shards` shards of near-equal cost and write the
/// manifest into `work`. Nothing is compiled: each shard compiles its
/// students' bots.
pub fn plan(p: &ClassPlan<'_>, shards: usize, work: &Path) -> anyhow::Result<ClassManifest> {
    if shards == 0 || shards > crate::shard::MAX_SHARDS {
        bail!(
            "--shards {shards}: give between 1 and {} shards",
            crate::shard::MAX_SHARDS
        );
    }
    let path = work.join(crate::shard::MANIFEST);
    if path.exists() {
        bail!(
            "{}: this work folder already holds a plan; use another --work folder or delete it",
            path.display()
        );
    }
    let job = p.job;
    let mut students: Vec<PlannedStudent> = job
        .class
        .submissions
        .par_iter()
        .map(|s| -> anyhow::Result<PlannedStudent> {
            let (file, sha256, cost) = match &s.bot {
                Ok(c) => {
                    let bytes = std::fs::read(&c.path).with_context(|| format!("{}: cannot read", c.path.display()))?;
                    let toolchain = arena_grading::check::toolchain(&arena_grading::check::scan(&bytes));
                    let path = std::path::absolute(&c.path).unwrap_or(c.path.clone());
                    (
                        Some(path.display().to_string()),
                        Some(sha256_hex(&bytes)),
                        cost_of(&toolchain, false),
                    )
                }
                Err(_) => (None, None, 0.1),
            };
            Ok(PlannedStudent {
                student: s.student.clone(),
                file,
                sha256,
                shard: 0,
                cost,
            })
        })
        .collect::<anyhow::Result<_>>()?;
    // The costliest students first, each to the least loaded shard.
    let mut order: Vec<usize> = (0..students.len()).collect();
    order.sort_by(|&a, &b| students[b].cost.total_cmp(&students[a].cost).then(a.cmp(&b)));
    let mut load = vec![0.0f64; shards];
    for i in order {
        let s = (0..shards)
            .min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b)))
            .unwrap_or(0);
        load[s] += students[i].cost;
        students[i].shard = s;
    }
    let manifest = ClassManifest {
        kind: "grade-class".into(),
        arena_version: arena_runner::VERSION.into(),
        wasmtime_version: arena_runner::replay::WASMTIME_VERSION.into(),
        game: job.game.name().into(),
        class_dir: std::path::absolute(p.class_dir)
            .unwrap_or(p.class_dir.to_path_buf())
            .display()
            .to_string(),
        rubric_text: p.rubric_text.clone(),
        rubric_file: p.rubric_file.clone(),
        rubric_name: job.rubric_name.clone(),
        illegal: p.illegal,
        games: job.games,
        tournament: job.tournament,
        tournament_games: job.tournament_games,
        export_for: job.export_for.iter().map(|l| lms_name(*l)).collect(),
        assignment: job.assignment.clone(),
        changes: p.changes.clone(),
        limits: serde_json::to_value(job.sandbox.limits())?,
        students,
        shards,
    };
    std::fs::create_dir_all(work).with_context(|| format!("{}: cannot create the work folder", work.display()))?;
    write_atomic(&path, (serde_json::to_string_pretty(&manifest)? + "\n").as_bytes())?;
    Ok(manifest)
}

fn lms_name(l: Lms) -> String {
    clap::ValueEnum::to_possible_value(&l).map_or_else(String::new, |v| v.get_name().to_string())
}

/// A class plan read back: the manifest, the rubric, and the class folder
/// read again and checked against the plan.
pub struct ClassWork {
    /// The work folder.
    pub dir: PathBuf,
    /// The manifest.
    pub manifest: ClassManifest,
    /// SHA-256 of the manifest, which every shard's results carry.
    pub sha256: String,
    /// The game.
    pub game: &'static dyn GameDef,
    /// The rubric, with `--illegal` applied.
    pub rubric: Rubric,
    /// The class, as read now.
    pub class: Class,
    export_for: Vec<Lms>,
}

impl ClassWork {
    /// Read the plan in `dir` and the class folder it names; every
    /// student's file must be the one planned.
    pub fn open(dir: &Path) -> anyhow::Result<ClassWork> {
        let path = dir.join(crate::shard::MANIFEST);
        let bytes = std::fs::read(&path).with_context(|| {
            format!(
                "{}: no plan here; make one with `arena grade-class plan ... --work {}`",
                path.display(),
                dir.display()
            )
        })?;
        let manifest: ClassManifest = read_manifest(&path, &bytes, "grade-class")?;
        let game = arena_runner::runner::entrants::find_game(&manifest.game)?;
        let mut rubric =
            rubric::parse(&manifest.rubric_text, &manifest.rubric_file, game).map_err(anyhow::Error::msg)?;
        if let Some(illegal) = manifest.illegal {
            rubric.illegal = illegal;
        }
        let class_dir = Path::new(&manifest.class_dir);
        let class = submissions::find(class_dir).map_err(|e| {
            anyhow::anyhow!(
                "{}: cannot read the class folder of the plan ({e}); the shared folder must hold it where the plan was made",
                class_dir.display()
            )
        })?;
        let export_for = manifest
            .export_for
            .iter()
            .map(|n| {
                <Lms as clap::ValueEnum>::from_str(n, true)
                    .map_err(|_| anyhow::anyhow!("{}: unknown LMS `{n}`; make the plan again", path.display()))
            })
            .collect::<anyhow::Result<_>>()?;
        let work = ClassWork {
            dir: dir.to_path_buf(),
            sha256: sha256_hex(&bytes),
            manifest,
            game,
            rubric,
            class,
            export_for,
        };
        work.check_class()?;
        Ok(work)
    }

    /// The class folder must read as it did: the same students, the same files.
    fn check_class(&self) -> anyhow::Result<()> {
        let planned = &self.manifest.students;
        let now = &self.class.submissions;
        if planned.len() != now.len() || planned.iter().zip(now).any(|(p, s)| p.student != s.student) {
            bail!(
                "{}: the class folder's students are not the ones planned ({} then, {} now); make a new plan",
                self.manifest.class_dir,
                planned.len(),
                now.len()
            );
        }
        for (p, s) in planned.iter().zip(now) {
            let file = s.bot.as_ref().ok().map(|c| {
                std::path::absolute(&c.path)
                    .unwrap_or(c.path.clone())
                    .display()
                    .to_string()
            });
            if file != p.file {
                bail!(
                    "{}: {}'s chosen file is now {}, planned {}; make a new plan",
                    self.manifest.class_dir,
                    p.student,
                    file.as_deref().unwrap_or("none"),
                    p.file.as_deref().unwrap_or("none")
                );
            }
            if let (Some(f), Some(want)) = (&p.file, &p.sha256) {
                let bytes = std::fs::read(f).with_context(|| format!("{f}: cannot read {}'s bot", p.student))?;
                let got = sha256_hex(&bytes);
                if &got != want {
                    bail!(
                        "{f}: this file has changed since the plan was made (SHA-256 {got}, planned {want}); restore it or make a new plan"
                    );
                }
            }
        }
        Ok(())
    }

    /// The sandbox the plan's limits give here, checked against the manifest.
    pub fn sandbox(&self, base: &RunSettings) -> anyhow::Result<Sandbox> {
        let sandbox = self.manifest.changes.apply(base).sandbox(self.game)?;
        if serde_json::to_value(sandbox.limits())? != self.manifest.limits {
            bail!(
                "{}: the limits resolve differently here than where the plan was made; run every step with the same arena binary",
                self.dir.join(crate::shard::MANIFEST).display()
            );
        }
        Ok(sandbox)
    }

    /// The class job the plan describes.
    pub fn job<'a>(&'a self, sandbox: &'a Sandbox, out: &'a Path, progress: bool) -> ClassJob<'a> {
        let m = &self.manifest;
        ClassJob {
            game: self.game,
            rubric: &self.rubric,
            rubric_name: m.rubric_name.clone(),
            class: &self.class,
            sandbox,
            games: m.games,
            tournament: m.tournament,
            tournament_games: m.tournament_games,
            out,
            export_for: self.export_for.clone(),
            assignment: m.assignment.clone(),
            progress,
        }
    }

    fn header(&self) -> Value {
        json!({"type": "grade-class-shard", "plan": self.sha256})
    }

    /// The students shard `index` grades, by their index in the class.
    fn students_of(&self, index: usize) -> Vec<usize> {
        (0..self.manifest.students.len())
            .filter(|&i| self.manifest.students[i].shard == index)
            .collect()
    }

    /// Each shard's students and how many are graded, and whether it is done.
    pub fn states(&self) -> Vec<(usize, usize, bool)> {
        (0..self.manifest.shards)
            .map(|i| {
                let dir = shard_dir(&self.dir, i);
                let planned = self.students_of(i).len();
                let graded = read_grades(&dir.join(GRADES), &self.header()).map_or(0, |g| g.len());
                (planned, graded.min(planned), self.done(i))
            })
            .collect()
    }

    fn done(&self, index: usize) -> bool {
        std::fs::read(shard_dir(&self.dir, index).join("done.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<ClassShardDone>(&b).ok())
            .is_some_and(|d| d.plan == self.sha256 && d.shard == index)
    }
}

/// A shard's file of graded students.
const GRADES: &str = "grades.jsonl";

/// One graded student, as a shard writes it.
#[derive(Debug, Serialize, Deserialize)]
struct Graded {
    /// The student's index in the class.
    student: usize,
    /// Whether the bot loaded (the merge loads it again for replays and the tournament).
    loaded: bool,
    /// The report, whole.
    report: CarriedReport,
}

/// What a finished shard's `done.json` says.
#[derive(Debug, Serialize, Deserialize)]
struct ClassShardDone {
    plan: String,
    shard: usize,
    students: usize,
}

/// The students graded in a shard file of this plan (a damaged or cut-short line is not graded yet).
fn read_grades(path: &Path, header: &Value) -> Option<BTreeMap<usize, Graded>> {
    let file = std::fs::File::open(path).ok()?;
    let mut lines = std::io::BufReader::new(file).lines();
    let first: Value = serde_json::from_str(&lines.next()?.ok()?).ok()?;
    if &first != header {
        return None;
    }
    Some(
        lines
            .map_while(Result::ok)
            .filter_map(|l| serde_json::from_str::<Graded>(&l).ok())
            .map(|g| (g.student, g))
            .collect(),
    )
}

/// What a class shard run did.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassShardOutcome {
    /// The shard.
    pub index: usize,
    /// Its students.
    pub students: usize,
    /// Graded by this run (the rest were in its file).
    pub graded: usize,
}

/// The shard's grades file at `path`: the students it holds already, and
/// the file opened to append more (made with its header if there is none;
/// a line cut short by a kill dropped).
fn open_grades(path: &Path, header: &Value) -> anyhow::Result<(BTreeMap<usize, Graded>, Mutex<std::fs::File>)> {
    let before = match read_grades(path, header) {
        Some(g) => g,
        None => {
            std::fs::write(path, format!("{header}\n")).with_context(|| format!("{}: cannot write", path.display()))?;
            BTreeMap::new()
        }
    };
    // Drop a line cut short by a kill, so new lines start on their own.
    let text = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    if !text.ends_with(b"\n") {
        let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|f| f.set_len(keep as u64))
            .with_context(|| format!("{}: cannot repair", path.display()))?;
    }
    let file = Mutex::new(
        std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .with_context(|| format!("{}: cannot open", path.display()))?,
    );
    Ok((before, file))
}

/// Grade shard `index` of the class plan in `work`: each of its students
/// graded on `pool` and written as soon as graded, so a killed run
/// resumes with the students left; then the shard is marked done.
pub fn run_shard(
    work: &Path,
    index: usize,
    base: &RunSettings,
    stop: &AtomicBool,
    pool: &rayon::ThreadPool,
) -> anyhow::Result<ClassShardOutcome> {
    let w = ClassWork::open(work)?;
    if index >= w.manifest.shards {
        bail!(
            "shard {index} does not exist: the plan in {} has shards 0 to {}",
            work.display(),
            w.manifest.shards - 1
        );
    }
    let sandbox = w.sandbox(base)?;
    let out = shard_dir(work, index);
    let job = w.job(&sandbox, &out, false);
    let grader = class::grader(&job);
    let path = out.join(GRADES);
    let header = w.header();
    std::fs::create_dir_all(&out).with_context(|| format!("{}: cannot create", out.display()))?;
    let (before, file) = open_grades(&path, &header)?;
    let mine = w.students_of(index);
    let todo: Vec<usize> = mine.iter().copied().filter(|i| !before.contains_key(i)).collect();
    let results: Vec<anyhow::Result<bool>> = pool.install(|| {
        todo.par_iter()
            .map(|&i| {
                if stop.load(Ordering::Relaxed) {
                    return Ok(false);
                }
                let (report, entrant) = class::grade_one(&grader, &w.class.submissions[i])?;
                let line = serde_json::to_string(&Graded {
                    student: i,
                    loaded: entrant.is_some(),
                    report: CarriedReport::new(&report),
                })?;
                let mut f = file.lock().unwrap_or_else(|e| e.into_inner());
                f.write_all(format!("{line}\n").as_bytes())
                    .with_context(|| format!("{}: cannot write", path.display()))?;
                Ok(true)
            })
            .collect()
    });
    let mut graded = 0;
    for r in results {
        if r? {
            graded += 1;
        }
    }
    if graded < todo.len() {
        bail!(
            "shard {index} stopped after grading {graded} more students; they are kept in {}: run the same command again to continue",
            path.display()
        );
    }
    file.into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .sync_all()
        .with_context(|| format!("{}: cannot sync", path.display()))?;
    let done = ClassShardDone {
        plan: w.sha256.clone(),
        shard: index,
        students: mine.len(),
    };
    write_atomic(
        &out.join("done.json"),
        (serde_json::to_string(&done)? + "\n").as_bytes(),
    )?;
    Ok(ClassShardOutcome {
        index,
        students: mine.len(),
        graded,
    })
}

/// Merge the class plan's finished shards: every student's report read
/// back in the class's order, their bots loaded again (for the replay
/// pages and the class tournament), then written up into `out` exactly as
/// `arena grade-class` writes it on one machine.
pub fn merge(
    work: &Path,
    base: &RunSettings,
    out: &Path,
    progress: bool,
    pool: &rayon::ThreadPool,
) -> anyhow::Result<(ClassWork, ClassOutcome)> {
    let w = ClassWork::open(work)?;
    let header = w.header();
    let mut all: BTreeMap<usize, Graded> = BTreeMap::new();
    for i in 0..w.manifest.shards {
        if !w.done(i) {
            bail!(
                "shard {i} of {} is not done: run `arena grade-class run-shard {} --index {i}`, then merge again",
                w.manifest.shards,
                work.display()
            );
        }
        let grades = read_grades(&shard_dir(work, i).join(GRADES), &header).unwrap_or_default();
        all.extend(
            grades
                .into_iter()
                .filter(|(s, _)| w.manifest.students.get(*s).is_some_and(|p| p.shard == i)),
        );
    }
    if let Some(missing) = (0..w.manifest.students.len()).find(|s| !all.contains_key(s)) {
        let shard = w.manifest.students[missing].shard;
        bail!(
            "{} has no grade in shard {shard}: run `arena grade-class run-shard {} --index {shard}` again",
            w.manifest.students[missing].student,
            work.display()
        );
    }
    let sandbox = w.sandbox(base)?;
    let job = w.job(&sandbox, out, progress);
    let graded: Vec<(GradeReport, Option<Entrant>)> = pool.install(|| {
        all.into_values()
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|g| -> anyhow::Result<(GradeReport, Option<Entrant>)> {
                let report = g.report.into_report();
                let entrant = match (&w.manifest.students[g.student].file, g.loaded) {
                    (Some(file), true) => {
                        let program = sandbox.load(Path::new(file), w.game.worlds()).map_err(|e| {
                            anyhow::anyhow!(
                                "{file}: loaded when graded, not here ({e}); run every step with the same arena binary"
                            )
                        })?;
                        Some(Entrant {
                            name: report.student.clone(),
                            bot: BotRef::Wasm(Arc::new(program)),
                        })
                    }
                    _ => None,
                };
                Ok((report, entrant))
            })
            .collect::<anyhow::Result<_>>()
    })?;
    let outcome = pool.install(|| class::write_up(&job, graded))?;
    Ok((w, outcome))
}
