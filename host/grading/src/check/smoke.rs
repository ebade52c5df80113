//! The smoke games of a check: the bot against each first opponent set of
//! its game, each game tallied as it is played (fuel, logs, forfeits,
//! illegal moves), and whether the bot is ready.

use super::{CheckError, CheckReport, CheckSpec, ForfeitSeen, toolchain};
use crate::loaded::LoadedBot;
use arena_core::Kind;
use arena_runner::runner::entrants::{entrant, setup};
use arena_runner::runner::{
    BotRef, Entrant, GameDef, GameSetup, MatchReport, MatchSpec, Played, forfeit_list, play_match,
};
use arena_sandbox::Sandbox;
use std::collections::BTreeMap;
use std::path::Path;

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

/// Games the smoke matches of a check of `games` games per match play
/// with the bot (whole seat rotations).
pub fn games_planned(game: &dyn GameDef, games: usize) -> usize {
    opponents(game)
        .iter()
        .map(|o| arena_runner::runner::whole_rotations(games, o.len() + 1))
        .sum()
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
pub(super) fn smoke(spec: &CheckSpec<'_>, sandbox: &Sandbox, bot: &LoadedBot) -> Result<CheckReport, CheckError> {
    let game = bot.game;
    let limits = sandbox.limits().clone();
    let info = &bot.scan;
    let world = bot.program.world.name.to_string();
    let compiled = bot.program.compiled;
    let setup = setup(game, sandbox, None, spec.illegal)?;
    let me = Entrant {
        name: stem(spec.bot),
        bot: BotRef::Wasm(bot.program.clone()),
    };
    let mut totals = play_matches(spec, game, sandbox, &setup, &me)?;
    let not_ready = not_ready(game, &totals);
    let matches = std::mem::take(&mut totals.matches);
    Ok(CheckReport {
        file: spec.bot.display().to_string(),
        game: game.name(),
        found_game: spec.game.is_none(),
        world,
        toolchain: toolchain(info),
        file_bytes: bot.file_bytes,
        max_file_bytes: limits.max_file_bytes,
        compile_seconds: bot.compile.as_secs_f64(),
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
    setup: &GameSetup<'_>,
    me: &Entrant,
) -> Result<Totals, CheckError> {
    let mut totals = Totals::default();
    for opponents in opponents(game) {
        if spec.meter.is_some_and(|m| m.stopped()) {
            break;
        }
        let mut entrants = vec![me.clone()];
        for o in &opponents {
            entrants.push(entrant(game, sandbox, o)?);
        }
        let meter = spec.meter;
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
        let report = match meter {
            // On the course server the check is part of the grading, under its budget.
            Some(m) => m.play(&spec, |played| tally_game(&mut totals, played, &against)),
            None => play_match(&spec, |played| {
                tally_game(&mut totals, &played, &against);
                std::ops::ControlFlow::Continue(())
            }),
        }
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
            arena_runner::text::thousands(u64::from(totals.illegal)),
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
