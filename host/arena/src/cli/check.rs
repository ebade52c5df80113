//! `arena check`: what a student runs before submitting a bot. One screen:
//! the toolchain that built it, the world it targets, its size, compile time
//! and initial memory, then short games against every house bot with the
//! fuel it used, its log size and any forfeit. Exit status 0: ready to
//! submit; 1: it loads but forfeited somewhere; 2: rejected, or the arena
//! could not finish the check (one line).

use super::common::{RunArgs, entrant, find_game, setup};
use super::matches::{forfeit_list, fuel_amount};
use crate::adapters;
use crate::games::Kind;
use crate::runner::{BotRef, Entrant, GameDef, MatchOutcome, MatchSpec, run_match};
use crate::sandbox::{LoadError, Sandbox};
use clap::Args;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Options of `arena check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The bot: a .wasm component.
    #[arg(value_name = "BOT.wasm")]
    pub bot: PathBuf,
    /// The game [default: the one the bot loads for].
    #[arg(long)]
    pub game: Option<String>,
    /// Games against each house bot; rounded up so every deal is played from every seat.
    #[arg(long, default_value = "10", value_parser = super::parse_games)]
    pub games: u64,
    /// The match seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Run `arena check`, printing the report; the exit status says whether the bot is ready.
pub fn run(args: CheckArgs) -> ExitCode {
    let loaded = match load(&args) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e:#}");
            return ExitCode::from(2);
        }
    };
    match smoke(&args, loaded) {
        Ok((text, ready)) => {
            print!("{text}");
            if ready { ExitCode::SUCCESS } else { ExitCode::from(1) }
        }
        // The arena could not finish the check (the machine failed, not the
        // bot): not a verdict on the bot, so not the exit status of one.
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
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

/// Load the bot for `--game`, or for the first game it loads for.
fn load(args: &CheckArgs) -> anyhow::Result<Loaded> {
    let candidates: Vec<&'static dyn GameDef> = match &args.game {
        Some(name) => vec![find_game(name)?],
        None => {
            // Games the file names first, so the usual case compiles once.
            // Only a regular file is read here: a device or a pipe is refused by the load below.
            let limit = args
                .run
                .max_file_bytes
                .unwrap_or(crate::sandbox::Limits::default().max_file_bytes);
            let names = std::fs::metadata(&args.bot)
                .is_ok_and(|m| m.is_file())
                .then(|| crate::sandbox::read_at_most(&args.bot, limit).ok())
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
        let sandbox = args.run.sandbox(game)?;
        let start = Instant::now();
        match sandbox.load(&args.bot, game.worlds()) {
            Ok(program) => {
                let compile = start.elapsed();
                let bytes = crate::sandbox::read_at_most(&args.bot, sandbox.limits().max_file_bytes)?;
                return Ok(Loaded {
                    game,
                    found: args.game.is_none(),
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
        Some(e) if args.game.is_none() && matches!(e, LoadError::WrongWorld { .. }) => {
            let games: Vec<&str> = adapters::GAMES.iter().map(|g| g.name()).collect();
            anyhow::bail!("{e} (it loads for none of the games: {})", games.join(", "))
        }
        Some(e) => Err(e.into()),
        None => anyhow::bail!("no game to check the bot against"),
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
}

/// Play the smoke matches and write the report; whether the bot is ready.
fn smoke(args: &CheckArgs, loaded: Loaded) -> anyhow::Result<(String, bool)> {
    let Loaded {
        game,
        found,
        sandbox,
        program,
        compile,
        bytes,
    } = loaded;
    let limits = args.run.limits(game)?;
    let info = scan(&bytes);
    let mut s = String::new();
    let name = args.bot.display().to_string();
    let _ = writeln!(s, "{name}");
    let _ = writeln!(s, "  toolchain  {}", toolchain(&info));
    let _ = writeln!(
        s,
        "  world      {} ({}{})",
        program.world.name,
        game.name(),
        if found {
            ", found by loading it for each game"
        } else {
            ""
        }
    );
    let _ = writeln!(
        s,
        "  file       {} (limit {})",
        size(bytes.len() as u64),
        size(limits.max_file_bytes)
    );
    if program.compiled {
        let _ = writeln!(s, "  compile    {:.2} s", compile.as_secs_f64());
    } else {
        let _ = writeln!(
            s,
            "  compile    {:.2} s (compiled before: loaded from the compile cache)",
            compile.as_secs_f64()
        );
    }
    if let Some(m) = info.initial_memory {
        let _ = writeln!(
            s,
            "  memory     {} initial (limit {})",
            size(m),
            size(limits.memory_bytes as u64)
        );
    }
    let setup = setup(game, &sandbox, None, args.run.illegal)?;
    let me = Entrant {
        name: stem(&args.bot),
        bot: BotRef::Wasm(Arc::new(program)),
    };
    let pool = args.run.pool()?;
    let mut totals = Totals::default();
    let _ = writeln!(s, "smoke games (every deal played from every seat):");
    for opponents in opponents(game) {
        let mut entrants = vec![me.clone()];
        for o in &opponents {
            entrants.push(entrant(game, &sandbox, o)?);
        }
        let spec = MatchSpec {
            game,
            setup: setup.clone(),
            entrants,
            games: usize::try_from(args.games).unwrap_or(usize::MAX),
            seed: args.seed,
            record: true,
        };
        let outcome = pool.install(|| run_match(&spec))?;
        let against = if opponents.is_empty() {
            "alone".to_string()
        } else if game.kind() == Kind::Table {
            format!("table with {}", opponents.join(", "))
        } else {
            format!("vs {}", opponents.join(", "))
        };
        let _ = writeln!(s, "  {against:<24} {}", match_line(game, &outcome));
        tally(&mut totals, &outcome, &against, game.kind() == Kind::Duel);
    }
    if totals.moves == 0 {
        let _ = writeln!(s, "fuel per move: no moves played");
    } else {
        let _ = writeln!(
            s,
            "fuel per move: mean {}, max {} ({} of the {} budget per move); start-up at most {} of {}; bank {}",
            fuel_amount((totals.move_fuel / totals.moves as f64).round() as u64),
            fuel_amount(totals.max_move),
            percent(totals.max_move as f64 / limits.fuel.max(1) as f64),
            fuel_amount(limits.fuel),
            fuel_amount(totals.max_start),
            fuel_amount(limits.start_fuel),
            if totals.max_bank == 0 {
                "never drawn on".to_string()
            } else {
                format!(
                    "up to {} of {} drawn in a game",
                    fuel_amount(totals.max_bank),
                    fuel_amount(limits.bank)
                )
            }
        );
    }
    let _ = writeln!(
        s,
        "log: at most {} per game (limit {}){}",
        size(totals.max_log as u64),
        size(limits.log_bytes as u64),
        if totals.truncated_logs == 0 {
            String::new()
        } else {
            format!(", cut short in {} games", totals.truncated_logs)
        }
    );
    let never_won = totals.duels > 0 && totals.wins == 0;
    let ready = totals.forfeits.is_empty() && totals.illegal == 0 && !never_won;
    if ready {
        let _ = writeln!(
            s,
            "ready to submit: it loads, forfeited none of {} games, played no illegal move and won {} of {}",
            totals.games, totals.wins, totals.duels
        );
        return Ok((s, ready));
    }
    let n: u32 = totals.forfeits.values().map(|(c, _, _)| c).sum();
    let mut why = Vec::new();
    if n > 0 {
        why.push(format!("forfeited {n} of {} games", totals.games));
    }
    if totals.illegal > 0 {
        why.push(format!(
            "played {} illegal moves in {} of {} games (each loses the round under the course's rule)",
            crate::grade::thousands(u64::from(totals.illegal)),
            totals.illegal_games,
            totals.games
        ));
    }
    if never_won {
        why.push(format!("won none of {} games", totals.duels));
    }
    let _ = writeln!(s, "not ready: {}", why.join("; "));
    for (reason, (count, first, log)) in &totals.forfeits {
        let _ = writeln!(s, "  {reason} ({count}): {first}");
        if !log.is_empty() {
            let _ = writeln!(s, "    the bot's log in that game ended with:");
            for line in log {
                let _ = writeln!(s, "    | {line}");
            }
        }
    }
    if let Some((against, index)) = &totals.first_illegal {
        let _ = writeln!(
            s,
            "  illegal moves: first in {against}, game {index}; to see them: arena match --game {} {} {} \
             --seed {} --games {} --replay illegal.jsonl && arena view illegal.jsonl",
            game.name(),
            args.bot.display(),
            against
                .trim_start_matches("vs ")
                .trim_start_matches("table with ")
                .replace(", ", " "),
            args.seed,
            index + 1
        );
    }
    Ok((s, ready))
}

/// One smoke match's results for the checked bot (bot 0).
fn match_line(game: &dyn GameDef, outcome: &MatchOutcome) -> String {
    let Some(b) = outcome.report.bots.first() else {
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
            outcome.report.bots.len()
        ),
        Kind::Duel => format!(
            "{} games, {} wins, {} losses, {} draws, forfeits: {forfeits}",
            b.games, b.wins, b.losses, b.draws
        ),
    }
}

/// Add one match to the totals: fuel, log sizes, forfeits, illegal moves
/// and (in a duel) wins of bot 0.
fn tally(t: &mut Totals, outcome: &MatchOutcome, against: &str, duel: bool) {
    let report = &outcome.report;
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
    for (k, r) in report.results.iter().enumerate() {
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
                let log = outcome.events.get(k).map_or_else(Vec::new, |events| log_tail(events));
                (0, format!("{against}, game {}: {}", r.index, f.detail), log)
            });
            entry.0 += 1;
        }
    }
    // Only the checked bot is a wasm bot, so every log is its own.
    for events in &outcome.events {
        for e in events.iter().filter(|e| e["type"] == "log") {
            let lines = e["lines"].as_array().map_or(&[][..], |l| l.as_slice());
            let bytes: usize = lines.iter().map(|l| l.as_str().map_or(0, str::len) + 1).sum();
            t.max_log = t.max_log.max(bytes);
            t.truncated_logs += usize::from(e["truncated"] == true);
        }
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
    line.starts_with("note: run with `RUST_BACKTRACE=1`")
        || line == "Python function threw an unexpected exception"
        || (line.starts_with("thread '") && line.contains("panicked at runtime/src/"))
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// A share as a percentage, small ones with three decimals.
fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p > 0.0 && p < 0.001 {
        return "<0.001%".to_string();
    }
    let decimals = if p >= 10.0 {
        0
    } else if p >= 1.0 {
        1
    } else {
        3
    };
    format!("{p:.decimals$}%")
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
    // A C bot made a component with the WASI adapter also carries the
    // adapter's Rust producers: the language the bot's code names decides.
    let c_family: Vec<&str> = scan
        .producers
        .iter()
        .filter(|(f, n, _)| f == "language" && (n.starts_with("C9") || n.starts_with("C1") || n.starts_with("C++")))
        .map(|(_, n, _)| n.as_str())
        .collect();
    if let Some(first) = c_family.first() {
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
        return format!("{label} ({})", parts.join(", "));
    }
    let rust = scan
        .producers
        .iter()
        .any(|(f, n, _)| (f == "language" && n == "Rust") || n == "rustc" || n == "wit-bindgen-rust");
    if rust {
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
        return if parts.is_empty() {
            "Rust".to_string()
        } else {
            format!("Rust ({})", parts.join(", "))
        };
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
