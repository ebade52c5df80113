//! A tournament of given bots as one library call: every bot loaded (on
//! every core, in the order given), the ones that cannot play disqualified
//! with why, the tournament played (resumable from its journal), and with
//! an output folder, its standings files, index page and replays written.
//! `arena tournament` is this call plus printing.

use anyhow::{Context, bail};
use arena_competition::tournament::{self, Engine, Format, Journal, Seeding, TournamentReport, TournamentSpec};
use arena_report::report;
use arena_runner::runner::entrants::entrant;
use arena_runner::runner::{BotRef, Entrant, GameDef, GameSetup};
use arena_sandbox::Sandbox;
use rayon::prelude::*;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// A bot to enter: `house:NAME` or a bot file, and the student it stands
/// for (their name replaces the file's).
#[derive(Debug, Clone)]
pub struct Contestant {
    /// `house:NAME` or a path.
    pub bot: String,
    /// The student's name, for a class folder's bot.
    pub student: Option<String>,
}

/// Everything a tournament needs.
pub struct ContestJob<'a> {
    /// The game.
    pub game: &'static dyn GameDef,
    /// Its setup (variant, illegal-move rule).
    pub setup: GameSetup<'a>,
    /// The sandbox the bots run in.
    pub sandbox: &'a Sandbox,
    /// The bots, in the order given.
    pub contestants: Vec<Contestant>,
    /// Students who have no bot to enter, with why.
    pub without: Vec<Disqualified>,
    /// The format.
    pub format: Format,
    /// Games per match.
    pub games: usize,
    /// Swiss rounds, or rounds of tables.
    pub rounds: Option<usize>,
    /// Double elimination's seeding.
    pub seeding: Seeding,
    /// The tournament seed.
    pub seed: u64,
    /// The folder for the journal, the standings files, the index page and replays.
    pub out: Option<&'a Path>,
    /// Set to stop the tournament after the games in flight (kept in the journal).
    pub stop: Arc<AtomicBool>,
    /// Whether to draw a progress bar on the terminal.
    pub progress: bool,
    /// Told each line a person should read as it happens (a disqualification, a resumption).
    pub note: &'a (dyn Fn(&str) + Sync),
    /// Games played elsewhere (shards' journals, each beginning with this
    /// line) that count as finished; with them, nothing is played here.
    pub elsewhere: Option<(serde_json::Value, Vec<PathBuf>)>,
}

/// A student or bot left out of a tournament, with why.
pub type Disqualified = (String, String);

/// A finished tournament.
pub struct ContestOutcome {
    /// The standings and every match.
    pub report: TournamentReport,
    /// The index page written, with what it holds, when there was an output folder.
    pub index: Option<(PathBuf, String)>,
}

/// Why a tournament of fewer than two bots is not played, naming each
/// student left out and why (a link out of the folder, a link to nothing):
/// the report that would list them is never written.
pub fn too_few(job: &ContestJob<'_>) -> String {
    let mut line = format!("a tournament needs at least two bots, got {}", job.contestants.len());
    for (student, why) in &job.without {
        line.push_str(&format!("; {student} left out: {why}"));
    }
    line
}

/// Load the bots, play the tournament on `pool` and write its outputs.
/// A stopped tournament is an error saying where its games are kept.
pub fn run(job: &ContestJob<'_>, pool: &rayon::ThreadPool) -> anyhow::Result<ContestOutcome> {
    if job.contestants.len() < 2 {
        bail!("{}", too_few(job));
    }
    let Loaded {
        entrants, disqualified, ..
    } = load(job, pool)?;
    let spec = TournamentSpec {
        game: job.game,
        setup: job.setup.clone(),
        entrants,
        disqualified,
        format: job.format,
        games: job.games,
        rounds: job.rounds,
        seeding: job.seeding,
        seed: job.seed,
    };
    let mut journal = job.out.map(|dir| open_journal(job, &spec, dir)).transpose()?;
    let mut stop = job.stop.clone();
    if let Some((header, paths)) = &job.elsewhere {
        let journal = journal.get_or_insert_with(Journal::in_memory);
        for path in paths {
            journal.absorb(path, header).map_err(anyhow::Error::msg)?;
        }
        // Every game was played elsewhere: a missing one stops the run rather than being played here.
        stop = Arc::new(AtomicBool::new(true));
    }
    let engine = Engine::new(&spec, journal, stop, job.progress);
    let report = pool.install(|| tournament::run(&spec, &engine))?;
    if !report.complete && job.elsewhere.is_some() {
        bail!(
            "the shards do not hold every game of the tournament; run `arena tournament status` on the work folder to see which"
        );
    }
    if !report.complete {
        let kept = match job.out {
            Some(dir) => format!(
                "finished games are kept in {}; run the same command again to continue",
                dir.join("journal.jsonl").display()
            ),
            None => "no --out folder was given, so nothing was kept".to_string(),
        };
        bail!("stopped after {} new games: {kept}", engine.games_played());
    }
    let index = match job.out {
        Some(dir) => {
            report::standings::write_outputs(dir, job.game.title(), &report)?;
            let jobs = report::tournament_pages(&spec, &report, "");
            let replays = pool.install(|| report::write_replays(dir, &jobs))?;
            let index = dir.join(report::INDEX);
            std::fs::write(&index, report::tournament_index(&spec, &report, &replays))
                .with_context(|| format!("{}: cannot write", index.display()))?;
            Some((index, replays.summary()))
        }
        None => None,
    };
    Ok(ContestOutcome { report, index })
}

/// The bots of a tournament once loaded.
pub struct Loaded {
    /// The entrants, in the order given.
    pub entrants: Vec<Entrant>,
    /// The students without a bot and the bots that did not load, with why.
    pub disqualified: Vec<Disqualified>,
    /// For each entrant, the index of its contestant.
    pub kept: Vec<usize>,
}

/// The entrants (compiled on every core, then taken in the order given so
/// names and seeds do not depend on timing), and the disqualified with why.
/// A house bot that does not exist is the caller's mistake: an error.
pub fn load(job: &ContestJob<'_>, pool: &rayon::ThreadPool) -> anyhow::Result<Loaded> {
    let mut disqualified = Vec::new();
    for (name, why) in &job.without {
        (job.note)(&format!("disqualified {name}: {why}"));
        disqualified.push((name.clone(), why.clone()));
    }
    let loaded: Vec<anyhow::Result<Entrant>> = pool.install(|| {
        job.contestants
            .par_iter()
            .map(|c| entrant(job.game, job.sandbox, &c.bot))
            .collect()
    });
    let mut entrants: Vec<Entrant> = Vec::new();
    let mut kept = Vec::new();
    for (i, (c, result)) in job.contestants.iter().zip(loaded).enumerate() {
        match result {
            Ok(mut e) => {
                kept.push(i);
                if let Some(student) = &c.student {
                    e.name.clone_from(student);
                }
                e.name = arena_runner::runner::entrants::unique_name(&e.name, &entrants);
                entrants.push(e);
            }
            Err(err) if !c.bot.starts_with("house:") => {
                let name = c.student.clone().unwrap_or_else(|| {
                    PathBuf::from(&c.bot)
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or(c.bot.clone())
                });
                (job.note)(&format!("disqualified {name}: {err:#}"));
                disqualified.push((name, format!("{err:#}")));
            }
            Err(err) => return Err(err),
        }
    }
    Ok(Loaded {
        entrants,
        disqualified,
        kept,
    })
}

/// The journal in `dir` for this tournament: a new one, or the one a
/// stopped run of the same tournament left (its finished games are kept).
fn open_journal(job: &ContestJob<'_>, spec: &TournamentSpec<'_>, dir: &Path) -> anyhow::Result<Journal> {
    let header = json!({
        "type": "tournament", "arena-version": arena_runner::VERSION, "game": job.game.name(),
        "variant": spec.setup.variant, "illegal": spec.setup.illegal, "format": spec.format, "seed": spec.seed,
        "games": spec.games, "rounds": spec.rounds, "seeding": spec.seeding, "limits": job.sandbox.limits(),
        "bots": spec.entrants.iter().map(|e| json!({"name": e.name, "sha256": match &e.bot {
            BotRef::Wasm(p) => Some(p.sha256.clone()),
            BotRef::House(_) => None,
        }})).collect::<Vec<_>>(),
    });
    let journal = Journal::open(dir, &header).map_err(anyhow::Error::msg)?;
    if journal.finished() > 0 {
        (job.note)(&format!(
            "resuming: {} finished games found in {}",
            journal.finished(),
            journal.path().display()
        ));
    }
    Ok(journal)
}
