//! What `arena check` finds out about a bot file before it is submitted:
//! the toolchain that built it, the world it targets, its size, compile time
//! and initial memory, then short games against every house bot with the
//! fuel it used, its log size, any forfeit and illegal move, and whether it
//! is ready. A library call ([`check`]) returning data ([`CheckReport`]),
//! so the command line and a course server report the same thing.

use crate::adapters;
use crate::games::{IllegalMoves, Kind};
use crate::runner::entrants::{entrant, setup};
use crate::runner::{BotRef, Entrant, GameDef, MatchReport, MatchSpec, Played, forfeit_list, play_match};
use crate::sandbox::{LoadError, Sandbox, fuel_amount};
use crate::text::percent;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How a caller makes the sandbox of a game: its limits and compile cache.
pub type SandboxFor<'a> = dyn Fn(&'static dyn GameDef) -> anyhow::Result<Sandbox> + Sync + 'a;

/// What to check: a bot file, and how to load and play it.
pub struct CheckSpec<'a> {
    /// The bot file.
    pub bot: &'a Path,
    /// The game, or `None` to find the one the bot loads for.
    pub game: Option<&'static dyn GameDef>,
    /// Games against each house bot (whole deals: every deal from every seat).
    pub games: usize,
    /// The match seed.
    pub seed: u64,
    /// What an illegal move costs (`None`: the game's course rule).
    pub illegal: Option<IllegalMoves>,
    /// The sandbox a game's bots run in (limits, compile cache), as the caller configures it.
    pub sandbox: &'a SandboxFor<'a>,
}

/// Why a check could not give a verdict.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The file is no bot for any game checked (one line: the file, the cause, the fix).
    #[error("{0}")]
    Rejected(String),
    /// The arena could not finish the check (the machine failed, not the bot).
    #[error("{0:#}")]
    Failed(anyhow::Error),
}

impl From<anyhow::Error> for CheckError {
    fn from(e: anyhow::Error) -> Self {
        CheckError::Failed(e)
    }
}

/// Everything a check found, in the order its text reports it.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    /// The file as it was named.
    pub file: String,
    /// The game it was checked for.
    pub game: &'static str,
    /// Whether the game was found by loading the file for each game.
    pub found_game: bool,
    /// The world it targets, e.g. `arena:bots/en-garde@0.2.0`.
    pub world: String,
    /// The toolchain that built it, from its producers section.
    pub toolchain: String,
    /// Its size and the limit, in bytes.
    pub file_bytes: u64,
    /// The largest file accepted.
    pub max_file_bytes: u64,
    /// How long loading took, in seconds.
    pub compile_seconds: f64,
    /// Whether it was compiled (not loaded from the compile cache).
    pub compiled: bool,
    /// Its initial memory, in bytes, when the file says.
    pub initial_memory: Option<u64>,
    /// The memory cap, in bytes.
    pub memory_limit: u64,
    /// One line per smoke match: the opponents, then the results.
    pub matches: Vec<(String, String)>,
    /// Games played, and duel games played and won.
    pub games: usize,
    /// Duel games played (a bot that never wins one is not ready).
    pub duels: u32,
    /// Duel games won.
    pub wins: u32,
    /// Moves played, and their mean and largest fuel.
    pub moves: u64,
    /// Mean fuel per move.
    pub mean_move_fuel: u64,
    /// Most fuel one move used.
    pub max_move_fuel: u64,
    /// The budget per move.
    pub fuel_per_move: u64,
    /// Most fuel the start of a game used, and its allowance.
    pub max_start_fuel: u64,
    /// The start-of-game allowance.
    pub start_fuel: u64,
    /// Most of the bank drawn in one game, and the bank.
    pub max_bank_used: u64,
    /// The bank per game.
    pub bank: u64,
    /// The largest log of a game, in bytes, its limit, and the games whose log was cut.
    pub max_log_bytes: u64,
    /// The log limit per game.
    pub log_limit: u64,
    /// Games whose log was cut short.
    pub truncated_logs: usize,
    /// Forfeits by reason, each with its first one.
    pub forfeits: Vec<ForfeitSeen>,
    /// Illegal moves the games played on (the course's rule), and the games with any.
    pub illegal_moves: u32,
    /// Games with an illegal move.
    pub illegal_games: u32,
    /// The first game with an illegal move: its opponents and number.
    pub first_illegal: Option<(String, u64)>,
    /// The match seed.
    pub seed: u64,
    /// Whether the bot is ready to submit.
    pub ready: bool,
    /// Why not, in words, when it is not.
    pub not_ready: Vec<String>,
}

/// The forfeits of one reason in a check.
#[derive(Debug, Clone, Serialize)]
pub struct ForfeitSeen {
    /// The reason: `trap`, `fuel`, ...
    pub reason: String,
    /// How many games it forfeited for it.
    pub count: u32,
    /// The first: opponents, game and detail.
    pub first: String,
    /// The last lines the bot logged in that game (a traceback's end).
    pub log_tail: Vec<String>,
}

/// Check a bot: load it (for `spec.game`, or for the first game it loads
/// for) and play the smoke matches. The caller picks the thread pool
/// (`pool.install(|| check(..))`).
pub fn check(spec: &CheckSpec<'_>) -> Result<CheckReport, CheckError> {
    let loaded = load(spec)?;
    smoke(spec, loaded)
}

/// A bot file that loaded for a game.
struct Loaded {
    game: &'static dyn GameDef,
    /// Whether the game was found by trying (no --game).
    found: bool,
    sandbox: Sandbox,
    program: crate::sandbox::BotProgram,
    compile: Duration,
    bytes: Vec<u8>,
}

/// Load the bot for the game asked, or for the first game it loads for.
fn load(spec: &CheckSpec<'_>) -> Result<Loaded, CheckError> {
    let candidates: Vec<&'static dyn GameDef> = match spec.game {
        Some(game) => vec![game],
        None => {
            // Games the file names first, so the usual case compiles once
            // (a hint only, read within the default size limit: loading decides).
            // Only a regular file is read here: a device or a pipe is refused by the load below.
            let limit = crate::sandbox::Limits::default().max_file_bytes;
            let names = std::fs::metadata(spec.bot)
                .is_ok_and(|m| m.is_file())
                .then(|| crate::sandbox::read_at_most(spec.bot, limit).ok())
                .flatten()
                .map(|b| scan(&b).names)
                .unwrap_or_default();
            let (mut named, rest): (Vec<_>, Vec<_>) =
                adapters::GAMES.iter().copied().partition(|g| names_game(&names, *g));
            named.extend(rest);
            named
        }
    };
    let mut first_error: Option<LoadError> = None;
    for game in candidates {
        // The compile cache too: a second check of the same file (a student
        // fixing a warning) takes a fraction of a second, not another compile.
        let sandbox = (spec.sandbox)(game)?;
        let start = Instant::now();
        match sandbox.load(spec.bot, game.worlds()) {
            Ok(program) => {
                let compile = start.elapsed();
                let bytes = crate::sandbox::read_at_most(spec.bot, sandbox.limits().max_file_bytes)
                    .map_err(|e| CheckError::Rejected(e.to_string()))?;
                return Ok(Loaded {
                    game,
                    found: spec.game.is_none(),
                    sandbox,
                    program,
                    compile,
                    bytes,
                });
            }
            Err(e) => {
                // Only the world differs from game to game; any other
                // reason rejects the file for every game.
                let per_game = matches!(
                    e,
                    LoadError::WrongWorld { .. }
                        | LoadError::UnknownVersion { .. }
                        | LoadError::MixedVersions { .. }
                        | LoadError::ForbiddenImport { .. }
                );
                let stop = !per_game;
                first_error.get_or_insert(e);
                if stop {
                    break;
                }
            }
        }
    }
    match first_error {
        Some(e) if spec.game.is_none() && matches!(e, LoadError::WrongWorld { .. }) => {
            let games: Vec<&str> = adapters::GAMES.iter().map(|g| g.name()).collect();
            Err(CheckError::Rejected(format!(
                "{e} (it loads for none of the games: {})",
                games.join(", ")
            )))
        }
        Some(e) => Err(CheckError::Rejected(e.to_string())),
        None => Err(CheckError::Failed(anyhow::anyhow!("no game to check the bot against"))),
    }
}

/// Whether the file exports every function of one of the game's worlds
/// (a hint only: loading decides).
fn names_game(names: &[String], game: &dyn GameDef) -> bool {
    game.worlds()
        .iter()
        .any(|w| w.exports.iter().all(|e| names.iter().any(|n| n == e)))
}

/// The opponents of each smoke match: every house bot in turn for a duel,
/// nobody for a game played alone, all the house bots at one table.
fn opponents(game: &dyn GameDef) -> Vec<Vec<String>> {
    let house: Vec<String> = game.house_bots().iter().map(|(n, _)| format!("house:{n}")).collect();
    match game.kind() {
        Kind::Solitaire => vec![Vec::new()],
        Kind::Duel => house.into_iter().map(|h| vec![h]).collect(),
        Kind::Table => {
            let seats = game.seats();
            let mut table: Vec<String> = house
                .iter()
                .cycle()
                .take((*seats.start()).max(house.len() + 1) - 1)
                .cloned()
                .collect();
            table.truncate(seats.end() - 1);
            vec![table]
        }
    }
}

/// Totals of the wasm bot over every smoke match.
#[derive(Default)]
struct Totals {
    games: usize,
    moves: u64,
    move_fuel: f64,
    max_move: u64,
    max_start: u64,
    max_bank: u64,
    max_log: usize,
    truncated_logs: usize,
    /// Per reason: forfeits, the first one's opponents, game and detail,
    /// and the last lines the bot logged in that game (a traceback's end).
    forfeits: BTreeMap<String, (u32, String, Vec<String>)>,
    /// Illegal moves the games played on (the course's rule), the games
    /// with any, and the first such game's opponents and number.
    illegal: u32,
    illegal_games: u32,
    first_illegal: Option<(String, u64)>,
    /// Duel games played and won (a bot that never wins is not ready).
    duels: u32,
    wins: u32,
    /// Each match: whom against, and its result in one line.
    matches: Vec<(String, String)>,
}

/// Play the smoke matches and gather the report.
fn smoke(spec: &CheckSpec<'_>, loaded: Loaded) -> Result<CheckReport, CheckError> {
    let Loaded {
        game,
        found,
        sandbox,
        program,
        compile,
        bytes,
    } = loaded;
    let limits = sandbox.limits().clone();
    let info = scan(&bytes);
    let world = program.world.name.to_string();
    let compiled = program.compiled;
    let setup = setup(game, &sandbox, None, spec.illegal)?;
    let me = Entrant {
        name: stem(spec.bot),
        bot: BotRef::Wasm(Arc::new(program)),
    };
    let mut totals = play_matches(spec, game, &sandbox, &setup, &me)?;
    let not_ready = not_ready(game, &totals);
    let matches = std::mem::take(&mut totals.matches);
    Ok(CheckReport {
        file: spec.bot.display().to_string(),
        game: game.name(),
        found_game: found,
        world,
        toolchain: toolchain(&info),
        file_bytes: bytes.len() as u64,
        max_file_bytes: limits.max_file_bytes,
        compile_seconds: compile.as_secs_f64(),
        compiled,
        initial_memory: info.initial_memory,
        memory_limit: limits.memory_bytes as u64,
        matches,
        games: totals.games,
        duels: totals.duels,
        wins: totals.wins,
        moves: totals.moves,
        mean_move_fuel: if totals.moves == 0 {
            0
        } else {
            (totals.move_fuel / totals.moves as f64).round() as u64
        },
        max_move_fuel: totals.max_move,
        fuel_per_move: limits.fuel,
        max_start_fuel: totals.max_start,
        start_fuel: limits.start_fuel,
        max_bank_used: totals.max_bank,
        bank: limits.bank,
        // What was kept: a cut log holds the limit, whatever was printed.
        max_log_bytes: (totals.max_log as u64).min(limits.log_bytes as u64),
        log_limit: limits.log_bytes as u64,
        truncated_logs: totals.truncated_logs,
        forfeits: totals
            .forfeits
            .into_iter()
            .map(|(reason, (count, first, log_tail))| ForfeitSeen {
                reason,
                count,
                first,
                log_tail,
            })
            .collect(),
        illegal_moves: totals.illegal,
        illegal_games: totals.illegal_games,
        first_illegal: totals.first_illegal,
        seed: spec.seed,
        ready: not_ready.is_empty(),
        not_ready,
    })
}

/// The smoke matches: the bot against each first opponent set of its game.
fn play_matches(
    spec: &CheckSpec<'_>,
    game: &'static dyn GameDef,
    sandbox: &Sandbox,
    setup: &crate::runner::GameSetup<'_>,
    me: &Entrant,
) -> Result<Totals, CheckError> {
    let mut totals = Totals::default();
    for opponents in opponents(game) {
        let mut entrants = vec![me.clone()];
        for o in &opponents {
            entrants.push(entrant(game, sandbox, o)?);
        }
        let spec = MatchSpec {
            game,
            setup: setup.clone(),
            entrants,
            games: spec.games,
            seed: spec.seed,
            record: true,
        };
        let against = if opponents.is_empty() {
            "alone".to_string()
        } else if game.kind() == Kind::Table {
            format!("table with {}", opponents.join(", "))
        } else {
            format!("vs {}", opponents.join(", "))
        };
        // Each game is tallied as it is played and dropped: `--games`
        // can be large, and a recorded game holds its events.
        let report = play_match(&spec, |played| {
            tally_game(&mut totals, &played, &against);
            std::ops::ControlFlow::Continue(())
        })
        .map_err(|e| CheckError::Failed(e.into()))?;
        totals.matches.push((against.clone(), match_line(game, &report)));
        tally(&mut totals, &report, game.kind() == Kind::Duel);
    }
    Ok(totals)
}

/// Why the bot is not ready to submit, in words; none when it is.
fn not_ready(game: &dyn GameDef, totals: &Totals) -> Vec<String> {
    let never_won = totals.duels > 0 && totals.wins == 0;
    let forfeited: u32 = totals.forfeits.values().map(|(c, _, _)| c).sum();
    let mut not_ready = Vec::new();
    if forfeited > 0 {
        not_ready.push(format!("forfeited {forfeited} of {} games", totals.games));
    }
    if totals.illegal > 0 {
        not_ready.push(format!(
            "played {} illegal moves in {} of {} games (under the course's rule, {})",
            crate::grade::thousands(u64::from(totals.illegal)),
            totals.illegal_games,
            totals.games,
            game.illegal_rule()
        ));
    }
    if never_won {
        not_ready.push(format!("won none of {} games", totals.duels));
    }
    not_ready
}

impl CheckReport {
    /// The report as `arena check` prints it: one screen.
    pub fn text(&self) -> String {
        let mut s = self.file_text();
        let _ = writeln!(s, "smoke games (every deal played from every seat):");
        for (against, line) in &self.matches {
            let _ = writeln!(s, "  {against:<24} {line}");
        }
        self.write_fuel_and_log(&mut s);
        if self.ready {
            // Only a duel has wins to count; the other games' results are in the lines above.
            let won = if self.duels > 0 {
                format!(" and won {} of {}", self.wins, self.duels)
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "ready to submit: it loads, forfeited none of {} games, played no illegal move{won}",
                self.games
            );
        } else {
            s.push_str(&self.not_ready_text());
        }
        s
    }

    /// The file: its path, toolchain, world, size, compile and memory.
    fn file_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{}", self.file);
        let _ = writeln!(s, "  toolchain  {}", self.toolchain);
        let _ = writeln!(
            s,
            "  world      {} ({}{})",
            self.world,
            self.game,
            if self.found_game {
                ", found by loading it for each game"
            } else {
                ""
            }
        );
        let _ = writeln!(
            s,
            "  file       {} (limit {})",
            size(self.file_bytes),
            size(self.max_file_bytes)
        );
        if self.compiled {
            let _ = writeln!(s, "  compile    {:.2} s", self.compile_seconds);
        } else {
            let _ = writeln!(
                s,
                "  compile    {:.2} s (compiled before: loaded from the compile cache)",
                self.compile_seconds
            );
        }
        if let Some(m) = self.initial_memory {
            let _ = writeln!(
                s,
                "  memory     {} initial (limit {})",
                size(m),
                size(self.memory_limit)
            );
        }
        s
    }

    /// Why the bot is not ready, each forfeit with the end of its log, and
    /// the command that shows its illegal moves.
    fn not_ready_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "not ready: {}", self.not_ready.join("; "));
        for f in &self.forfeits {
            let _ = writeln!(s, "  {} ({}): {}", f.reason, f.count, f.first);
            if !f.log_tail.is_empty() {
                let _ = writeln!(s, "    the bot's log in that game ended with:");
                for line in &f.log_tail {
                    let _ = writeln!(s, "    | {line}");
                }
            }
        }
        if self.truncated_logs > 0 && self.forfeits.iter().any(|f| f.reason == "fuel") {
            let _ = writeln!(
                s,
                "  note: the log was cut short in {} games, and printing still costs fuel after the cut: print less",
                self.truncated_logs
            );
        }
        if let Some((against, index)) = &self.first_illegal {
            let _ = writeln!(
                s,
                "  illegal moves: first in {against}, game {index}; to see them: arena match --game {} {} {} \
                 --seed {} --games {} --replay illegal.jsonl && arena view illegal.jsonl",
                self.game,
                self.file,
                if against == "alone" {
                    String::new()
                } else {
                    against
                        .trim_start_matches("vs ")
                        .trim_start_matches("table with ")
                        .replace(", ", " ")
                },
                self.seed,
                index + 1
            );
        }
        s
    }

    fn write_fuel_and_log(&self, s: &mut String) {
        if self.moves == 0 {
            let _ = writeln!(s, "fuel per move: no moves played");
        } else {
            let _ = writeln!(
                s,
                "fuel per move: mean {}, max {} ({} of the {} budget per move); start-up at most {} of {}; bank {}",
                fuel_amount(self.mean_move_fuel),
                fuel_amount(self.max_move_fuel),
                percent(self.max_move_fuel as f64 / self.fuel_per_move.max(1) as f64),
                fuel_amount(self.fuel_per_move),
                fuel_amount(self.max_start_fuel),
                fuel_amount(self.start_fuel),
                if self.max_bank_used == 0 {
                    "never drawn on".to_string()
                } else {
                    format!(
                        "up to {} of {} drawn in a game",
                        fuel_amount(self.max_bank_used),
                        fuel_amount(self.bank)
                    )
                }
            );
        }
        let _ = writeln!(
            s,
            "log: at most {} per game (limit {}){}",
            size(self.max_log_bytes),
            size(self.log_limit),
            if self.truncated_logs == 0 {
                String::new()
            } else {
                format!(", cut short in {} games", self.truncated_logs)
            }
        );
    }
}

/// One smoke match's results for the checked bot (bot 0).
fn match_line(game: &dyn GameDef, report: &MatchReport) -> String {
    let Some(b) = report.bots.first() else {
        return String::new();
    };
    let forfeits = forfeit_list(&b.forfeits);
    match game.kind() {
        Kind::Solitaire => format!(
            "{} games, mean score {:.2}, forfeits: {forfeits}",
            b.games, b.score.mean
        ),
        Kind::Table => format!(
            "{} games, mean position {:.2} of {}, forfeits: {forfeits}",
            b.games,
            b.positions.as_ref().map_or(f64::NAN, |p| p.mean),
            report.bots.len()
        ),
        Kind::Duel => format!(
            "{} games, {} wins, {} losses, {} draws, forfeits: {forfeits}",
            b.games, b.wins, b.losses, b.draws
        ),
    }
}

/// Add one match's totals to the check's: fuel, illegal moves and (in a
/// duel) wins of bot 0.
fn tally(t: &mut Totals, report: &MatchReport, duel: bool) {
    t.games += report.games;
    if let Some(f) = report.bots.first().and_then(|b| b.fuel.as_ref()) {
        t.moves += f.moves;
        t.move_fuel += f.mean_per_move * f.moves as f64;
        t.max_move = t.max_move.max(f.max_per_move);
        t.max_start = t.max_start.max(f.max_start);
        t.max_bank = t.max_bank.max(f.max_bank_used);
    }
    if let Some(b) = report.bots.first() {
        t.illegal += b.illegal_moves;
        if duel {
            t.duels += b.games;
            t.wins += b.wins;
        }
    }
}

/// Add one game, in game order: its log sizes, bot 0's forfeits (the
/// first of each reason with its log's end) and illegal moves.
fn tally_game(t: &mut Totals, played: &Played, against: &str) {
    let r = &played.result;
    let events = played.events.values();
    let mine = r.seats.iter().position(|&b| b == 0);
    let illegal = mine.and_then(|seat| r.illegal.get(seat)).copied().unwrap_or(0);
    if illegal > 0 {
        t.illegal_games += 1;
        t.first_illegal
            .get_or_insert_with(|| (against.to_string(), r.index as u64));
    }
    for f in &r.forfeits {
        if r.seats.get(f.seat) != Some(&0) {
            continue;
        }
        let entry = t.forfeits.entry(f.reason.to_string()).or_insert_with(|| {
            (
                0,
                format!("{against}, game {}: {}", r.index, f.detail),
                log_tail(&events),
            )
        });
        entry.0 += 1;
    }
    // Only the checked bot is a wasm bot, so every log is its own.
    for e in events.iter().filter(|e| e["type"] == "log") {
        let lines = e["lines"].as_array().map_or(&[][..], |l| l.as_slice());
        let bytes: usize = lines.iter().map(|l| l.as_str().map_or(0, str::len) + 1).sum();
        t.max_log = t.max_log.max(bytes);
        t.truncated_logs += usize::from(e["truncated"] == true);
    }
}

/// How many of the last lines of its log a forfeit shows: a Python or
/// JavaScript traceback's end (the exception and the student's frames).
const LOG_TAIL: usize = 8;

/// The last lines the checked bot (the only wasm bot) logged in one game,
/// each cut to a terminal's width.
fn log_tail(events: &[serde_json::Value]) -> Vec<String> {
    let lines: Vec<String> = events
        .iter()
        .filter(|e| e["type"] == "log")
        .flat_map(|e| e["lines"].as_array().cloned().unwrap_or_default())
        .filter_map(|l| l.as_str().map(str::to_string))
        .filter(|l| !l.trim().is_empty() && !runtime_noise(l))
        .collect();
    lines[lines.len().saturating_sub(LOG_TAIL)..]
        .iter()
        .map(|l| {
            if l.chars().count() > 160 {
                l.chars().take(157).collect::<String>() + "..."
            } else {
                l.clone()
            }
        })
        .collect()
}

/// Lines a language's runtime adds after the bot's own report, which say
/// nothing to its author: componentize-py's panic once a Python exception
/// escapes, and Rust's hint about a backtrace the sandbox cannot give.
fn runtime_noise(line: &str) -> bool {
    // CPython's dump of the object it could not print (after a MemoryError).
    const CPYTHON_DUMP: [&str; 6] = [
        "object address",
        "object refcount",
        "object type",
        "object repr",
        "lost sys.stderr",
        "object type name",
    ];
    CPYTHON_DUMP.iter().any(|p| line.trim_start().starts_with(p))
        || line.starts_with("note: run with `RUST_BACKTRACE=1`")
        || line == "Python function threw an unexpected exception"
        || (line.starts_with("thread '") && line.contains("panicked at runtime/src/"))
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Bytes for people: 950 B, 12.3 KiB, 1.5 MiB.
fn size(n: u64) -> String {
    let f = n as f64;
    if n < 1024 {
        format!("{n} B")
    } else if n < 1024 * 1024 {
        format!("{:.1} KiB", f / 1024.0)
    } else {
        format!("{:.1} MiB", f / (1024.0 * 1024.0))
    }
}

/// What the file says about itself: producers entries, names, initial memory.
#[derive(Debug, Default, PartialEq)]
pub struct Scan {
    /// `(field, name, version)` of every producers section, e.g. `("language", "Rust", "")`.
    pub producers: Vec<(String, String, String)>,
    /// Import and export names, module and instance names, custom section names.
    pub names: Vec<String>,
    /// Initial size of the memories the core modules define, in bytes.
    pub initial_memory: Option<u64>,
}

/// Read what a component (or core module) says about itself, in it and its
/// nested modules and components; what cannot be parsed is left out.
pub fn scan(bytes: &[u8]) -> Scan {
    use wasmparser::{ComponentName, KnownCustom, Name, Parser, Payload};
    let mut out = Scan::default();
    for payload in Parser::new(0).parse_all(bytes) {
        let Ok(payload) = payload else { break };
        match payload {
            Payload::CustomSection(c) => {
                out.names.push(c.name().to_string());
                match c.as_known() {
                    KnownCustom::Producers(r) => {
                        for field in r.into_iter().flatten() {
                            for v in field.values.into_iter().flatten() {
                                out.producers
                                    .push((field.name.to_string(), v.name.to_string(), v.version.to_string()));
                            }
                        }
                    }
                    KnownCustom::Name(r) => {
                        for n in r.into_iter().flatten() {
                            if let Name::Module { name, .. } = n {
                                out.names.push(name.to_string());
                            }
                        }
                    }
                    KnownCustom::ComponentName(r) => {
                        for n in r.into_iter().flatten() {
                            match n {
                                ComponentName::Component { name, .. } => out.names.push(name.to_string()),
                                ComponentName::CoreModules(m)
                                | ComponentName::CoreInstances(m)
                                | ComponentName::Instances(m)
                                | ComponentName::Components(m) => {
                                    out.names.extend(m.into_iter().flatten().map(|n| n.name.to_string()));
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
            }
            Payload::ImportSection(r) => {
                for i in r.into_iter().flatten() {
                    out.names.push(i.module.to_string());
                }
            }
            Payload::ComponentImportSection(r) => {
                out.names.extend(r.into_iter().flatten().map(|i| i.name.0.to_string()));
            }
            Payload::ComponentExportSection(r) => {
                out.names.extend(r.into_iter().flatten().map(|e| e.name.0.to_string()));
            }
            Payload::MemorySection(r) => {
                for m in r.into_iter().flatten() {
                    let page = 1u64 << m.page_size_log2.unwrap_or(16);
                    let add = m.initial.saturating_mul(page);
                    out.initial_memory = Some(out.initial_memory.unwrap_or(0).saturating_add(add));
                }
            }
            _ => {}
        }
    }
    out.names.sort();
    out.names.dedup();
    out
}

/// The toolchain that built a file, from what [`scan`] found.
pub fn toolchain(scan: &Scan) -> String {
    let strings = || {
        scan.producers
            .iter()
            .flat_map(|(_, n, _)| [n.as_str()])
            .chain(scan.names.iter().map(String::as_str))
    };
    let has = |needle: &str| strings().any(|s| s.contains(needle));
    let version = |name: &str| {
        scan.producers
            .iter()
            .find(|(_, n, _)| n == name)
            .map(|(_, _, v)| v.split_whitespace().next().unwrap_or("").to_string())
    };
    let with_version = |label: &str, name: &str| match version(name) {
        Some(v) if !v.is_empty() => format!("{label} {v}"),
        _ => label.to_string(),
    };
    if has("componentize_qjs_runtime.wasm") || has("componentize-qjs") {
        return with_version("componentize-qjs (JavaScript)", "componentize-qjs");
    }
    let libpython = strings().any(|s| s.contains("libpython3.") && s.contains(".so"));
    if has("component-init-transform") || libpython || has("componentize-py") {
        return with_version("componentize-py (Python)", "componentize-py");
    }
    if has("ComponentizeJS") || has("componentize-js") {
        let v = version("ComponentizeJS").or_else(|| version("componentize-js"));
        return match v {
            Some(v) if !v.is_empty() => format!("ComponentizeJS (JavaScript) {v}"),
            _ => "ComponentizeJS (JavaScript)".to_string(),
        };
    }
    if let Some(c) = c_family(scan, &version) {
        return c;
    }
    if let Some(rust) = rust(scan, &version) {
        return rust;
    }
    let languages: Vec<&str> = scan
        .producers
        .iter()
        .filter(|(f, _, _)| f == "language")
        .map(|(_, n, _)| n.as_str())
        .collect();
    if languages.is_empty() {
        "unknown (no producers section names a known toolchain)".to_string()
    } else {
        format!("unknown toolchain for {}", languages.join(", "))
    }
}

/// A C or C++ bot: its language and the compiler and bindings versions.
fn c_family(scan: &Scan, version: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    // A C bot made a component with the WASI adapter also carries the
    // adapter's Rust producers: the language the bot's code names decides.
    let c_family: Vec<&str> = scan
        .producers
        .iter()
        .filter(|(f, n, _)| f == "language" && (n.starts_with("C9") || n.starts_with("C1") || n.starts_with("C++")))
        .map(|(_, n, _)| n.as_str())
        .collect();
    let first = c_family.first()?;
    let label = if c_family.iter().any(|n| n.starts_with("C++")) {
        "C++"
    } else {
        "C"
    };
    let mut parts = vec![first.to_string()];
    if let Some(v) = version("clang").filter(|v| !v.is_empty()) {
        parts.push(format!("clang {v}"));
    }
    if let Some(v) = version("wit-bindgen-c").filter(|v| !v.is_empty()) {
        parts.push(format!("wit-bindgen-c {v}"));
    }
    Some(format!("{label} ({})", parts.join(", ")))
}

/// A Rust bot: the compiler and bindings versions.
fn rust(scan: &Scan, version: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let rust = scan
        .producers
        .iter()
        .any(|(f, n, _)| (f == "language" && n == "Rust") || n == "rustc" || n == "wit-bindgen-rust");
    if !rust {
        return None;
    }
    let mut parts = Vec::new();
    if let Some(v) = version("rustc").filter(|v| !v.is_empty()) {
        parts.push(format!("rustc {v}"));
    }
    if let Some((_, n, v)) = scan.producers.iter().find(|(_, n, _)| n == "wit-bindgen-rust") {
        parts.push(
            format!("{n} {}", v.split_whitespace().next().unwrap_or(""))
                .trim()
                .to_string(),
        );
    }
    Some(if parts.is_empty() {
        "Rust".to_string()
    } else {
        format!("Rust ({})", parts.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leb(mut n: usize, out: &mut Vec<u8>) {
        loop {
            let b = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(b);
                return;
            }
            out.push(b | 0x80);
        }
    }

    fn string(s: &str, out: &mut Vec<u8>) {
        leb(s.len(), out);
        out.extend_from_slice(s.as_bytes());
    }

    fn section(id: u8, body: &[u8], out: &mut Vec<u8>) {
        out.push(id);
        leb(body.len(), out);
        out.extend_from_slice(body);
    }

    /// A custom `producers` section with these fields and `(name, version)` values.
    fn producers(fields: &[(&str, &[(&str, &str)])]) -> Vec<u8> {
        let mut body = Vec::new();
        string("producers", &mut body);
        leb(fields.len(), &mut body);
        for (field, values) in fields {
            string(field, &mut body);
            leb(values.len(), &mut body);
            for (n, v) in *values {
                string(n, &mut body);
                string(v, &mut body);
            }
        }
        let mut out = Vec::new();
        section(0, &body, &mut out);
        out
    }

    /// A core module named `name`, with one memory of `pages` pages.
    fn module(name: &str, pages: u8) -> Vec<u8> {
        let mut m = b"\0asm\x01\0\0\0".to_vec();
        section(5, &[1, 0, pages], &mut m);
        let mut names = Vec::new();
        string("name", &mut names);
        let mut sub = Vec::new();
        string(name, &mut sub);
        names.push(0);
        leb(sub.len(), &mut names);
        names.extend(sub);
        section(0, &names, &mut m);
        m
    }

    /// A component holding these sections (custom sections or nested modules).
    fn component(parts: &[Vec<u8>]) -> Vec<u8> {
        let mut c = b"\0asm\x0d\0\x01\0".to_vec();
        for p in parts {
            c.extend_from_slice(p);
        }
        c
    }

    fn nested(module: Vec<u8>) -> Vec<u8> {
        let mut out = Vec::new();
        section(1, &module, &mut out);
        out
    }

    #[test]
    fn rust_with_versions() {
        let bytes = component(&[
            producers(&[("processed-by", &[("wit-component", "0.239.0")])]),
            nested(
                [
                    module("my_bot.wasm", 17),
                    producers(&[
                        ("language", &[("Rust", "")]),
                        (
                            "processed-by",
                            &[
                                ("rustc", "1.90.0 (1159e78c4 2025-09-14)"),
                                ("wit-bindgen-rust", "0.46.0"),
                            ],
                        ),
                    ]),
                ]
                .concat(),
            ),
        ]);
        let s = scan(&bytes);
        assert_eq!(s.initial_memory, Some(17 * 65536));
        assert!(s.names.contains(&"my_bot.wasm".to_string()), "{s:?}");
        assert_eq!(toolchain(&s), "Rust (rustc 1.90.0, wit-bindgen-rust 0.46.0)");
    }

    #[test]
    fn rust_stripped_of_its_language() {
        let bytes = component(&[producers(&[(
            "processed-by",
            &[
                ("wit-component", "0.244.0"),
                ("wit-bindgen-rust", "0.45.0"),
                ("wit-bindgen-c", "0.51.0"),
            ],
        )])]);
        assert_eq!(toolchain(&scan(&bytes)), "Rust (wit-bindgen-rust 0.45.0)");
    }

    #[test]
    fn componentize_py_by_module_name() {
        let bytes = component(&[nested(module("libpython3.12.so", 2)), nested(module("main", 1))]);
        let s = scan(&bytes);
        assert_eq!(s.initial_memory, Some(3 * 65536));
        assert_eq!(toolchain(&s), "componentize-py (Python)");
        let bytes = component(&[producers(&[("processed-by", &[("component-init-transform", "0.1")])])]);
        assert_eq!(toolchain(&scan(&bytes)), "componentize-py (Python)");
    }

    #[test]
    fn javascript_toolchains() {
        let bytes = component(&[producers(&[("processed-by", &[("ComponentizeJS", "0.18.1")])])]);
        assert_eq!(toolchain(&scan(&bytes)), "ComponentizeJS (JavaScript) 0.18.1");
        let bytes = component(&[nested(module("componentize_qjs_runtime.wasm", 1))]);
        assert_eq!(toolchain(&scan(&bytes)), "componentize-qjs (JavaScript)");
    }

    #[test]
    fn c_even_with_the_rust_adapter_inside() {
        let bytes = component(&[
            producers(&[("language", &[("C99", "")]), ("processed-by", &[("clang", "14.0.6")])]),
            producers(&[("language", &[("Rust", "")]), ("processed-by", &[("rustc", "1.90.0")])]),
        ]);
        assert_eq!(toolchain(&scan(&bytes)), "C (C99, clang 14.0.6)");
    }

    #[test]
    fn unknown_and_garbage() {
        let bytes = component(&[producers(&[("language", &[("Zig", "")])])]);
        assert_eq!(toolchain(&scan(&bytes)), "unknown toolchain for Zig");
        let s = scan(b"hello, world");
        assert_eq!(s, Scan::default());
        assert!(toolchain(&s).starts_with("unknown"));
    }
}
