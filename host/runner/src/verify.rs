//! `arena replay verify` as a library call: play a replay's match again
//! from its header, with the bots it names, and compare every line. A
//! replay that verifies is a result anyone can check, on any machine.

use crate::replay::{CheckedHeader, FORMAT, GameRecord, ReplayReader, game_lines};
use crate::runner::entrants::{entrant, setup};
use crate::runner::{Entrant, GameDef, MatchSpec, play_unit, unit, unit_count};
use anyhow::bail;
use arena_sandbox::Sandbox;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What playing a replay again found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verified {
    /// Every line the same: the games, and the lines read.
    Identical {
        /// Games compared.
        games: usize,
        /// Lines compared.
        lines: u64,
        /// The game, variant and seed, for the sentence.
        what: String,
    },
    /// Where the replay and the games played again first part, in words.
    Different(String),
}

/// The verdict on a replay, and what a reader should know about it.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// Why the games may differ though nobody cheated (another arena, other
    /// fuel prices, another file under a bot's name).
    pub warnings: Vec<String>,
    /// The comparison.
    pub verified: Verified,
}

impl Verdict {
    /// Whether every line was the same.
    pub fn identical(&self) -> bool {
        matches!(self.verified, Verified::Identical { .. })
    }

    /// The verdict in one line, after the file's name.
    pub fn line(&self) -> String {
        match &self.verified {
            Verified::Identical { games, lines, what } => {
                format!("IDENTICAL: {games} games, {lines} lines, every event the same when played again ({what})")
            }
            Verified::Different(diff) => format!("DIFFERENT{diff}"),
        }
    }
}

/// How a caller makes the sandbox for a replay: the game, with the limits
/// and rule of its header (and the caller's compile cache).
pub type SandboxForReplay<'a> = dyn Fn(&'static dyn GameDef, &CheckedHeader) -> anyhow::Result<Sandbox> + Sync + 'a;

/// Play the match of the replay at `path` again and compare it line by
/// line. `bots` gives each wasm bot of the replay by name; house bots need
/// none. An error is a replay or a bot that cannot be read (one line).
pub fn verify(
    path: &Path,
    given: BTreeMap<String, PathBuf>,
    sandbox: &SandboxForReplay<'_>,
    pool: &rayon::ThreadPool,
) -> anyhow::Result<Verdict> {
    let mut reader = ReplayReader::open(path, None)?;
    let shown = path.display().to_string();
    if reader.format() < FORMAT {
        bail!(
            "{shown}: replay format {} records too little to be played again exactly; make it again with this arena (format {FORMAT})",
            reader.format()
        );
    }
    let header = CheckedHeader::parse(&reader.header).map_err(|e| anyhow::anyhow!("{shown} line 1: {e}"))?;
    let game = header.game;
    let sandbox = sandbox(game, &header)?;
    let setup = setup(game, &sandbox, header.variant.clone(), header.illegal)?;
    let (entrants, mut warnings) = replay_entrants(&header, given, &sandbox, &shown)?;
    warnings.extend(version_warnings(&header));
    let spec = MatchSpec {
        game,
        setup,
        entrants,
        games: header.games,
        seed: header.seed,
        record: true,
    };
    spec.check()?;
    // Count the file's games first (one game in memory at a time): a header
    // that claims more games than the file holds is told at once, not after
    // playing them.
    let plays = crate::runner::whole_rotations(header.games, spec.entrants.len());
    let in_file = games_in_file(path, plays)?;
    let short = |in_file: usize| {
        format!(
            ": the replay ends after {in_file} games; the header says {} (the match plays {plays})",
            header.games
        )
    };
    let verified = if in_file < plays {
        Verified::Different(short(in_file))
    } else {
        match play_and_compare(&spec, &mut reader, pool)? {
            Compared::Same { games, lines } => Verified::Identical {
                games,
                lines,
                what: format!(
                    "{}, variant {}, seed {}",
                    game.name(),
                    header.variant.as_deref().unwrap_or_default(),
                    header.seed
                ),
            },
            Compared::EndsAfter(games) => Verified::Different(short(games)),
            Compared::Differs(diff) => Verified::Different(diff),
        }
    };
    Ok(Verdict { warnings, verified })
}

/// The replay's bots as entrants: house bots by name, wasm bots from
/// `given` (every one of which the replay must name), with a warning for a
/// file that is not the one the replay was made with.
fn replay_entrants(
    header: &CheckedHeader,
    mut given: BTreeMap<String, PathBuf>,
    sandbox: &Sandbox,
    shown: &str,
) -> anyhow::Result<(Vec<Entrant>, Vec<String>)> {
    let game = header.game;
    let mut entrants = Vec::new();
    let mut warnings = Vec::new();
    for bot in &header.bots {
        let name = &bot.name;
        let e: Entrant = if let Some(house) = name.strip_prefix("house:") {
            let base = house.split('#').next().unwrap_or(house);
            let mut e = entrant(game, sandbox, &format!("house:{base}"))?;
            e.name = name.clone();
            e
        } else {
            let Some(path) = given.remove(name) else {
                bail!(
                    "{shown}: the replay's bot `{name}` is a wasm file; give it with --bot {name}=PATH (bots: {})",
                    header
                        .bots
                        .iter()
                        .map(|b| b.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            };
            let mut e = entrant(game, sandbox, &path.to_string_lossy())?;
            e.name = name.clone();
            if let (crate::runner::BotRef::Wasm(p), Some(sha)) = (&e.bot, &bot.sha256)
                && &p.sha256 != sha
            {
                warnings.push(format!(
                    "{}: not the file the replay was made with (sha256 {} here, {} in the replay), so the games may differ",
                    path.display(),
                    &p.sha256[..12],
                    &sha[..12]
                ));
            }
            e
        };
        entrants.push(e);
    }
    if let Some(name) = given.keys().next() {
        bail!("--bot {name}=...: the replay has no wasm bot named `{name}`");
    }
    Ok((entrants, warnings))
}

/// What may make the games differ though the bots are the same: another
/// arena or wasmtime, other fuel prices.
fn version_warnings(header: &CheckedHeader) -> Vec<String> {
    let mut warnings = Vec::new();
    if header.arena_version != crate::VERSION || header.wasmtime_version != crate::replay::WASMTIME_VERSION {
        warnings.push(format!(
            "written by arena {} on wasmtime {}, played again by arena {} on wasmtime {}: fuel counts may differ",
            header.arena_version,
            header.wasmtime_version,
            crate::VERSION,
            crate::replay::WASMTIME_VERSION
        ));
    }
    if header.fuel_prices != u64::from(arena_sandbox::PRICES_VERSION) {
        warnings.push(format!(
            "written under fuel prices {}, played again under prices {}: fuel counts differ, and a bot near \
             its budget may end differently",
            header.fuel_prices,
            arena_sandbox::PRICES_VERSION
        ));
    }
    warnings
}

/// The games the replay at `path` holds, counted up to one more than `plays`.
fn games_in_file(path: &Path, plays: usize) -> anyhow::Result<usize> {
    let mut counter = ReplayReader::open(path, None)?;
    let mut in_file = 0usize;
    while counter.next_game()?.is_some() {
        in_file += 1;
        if in_file > plays {
            break;
        }
    }
    Ok(in_file)
}

/// How the replayed games compare with the file's.
enum Compared {
    /// Every game the same: how many, and the lines read.
    Same { games: usize, lines: u64 },
    /// The file ends after this many games.
    EndsAfter(usize),
    /// Where they first differ, in words.
    Differs(String),
}

/// Play `spec` on `pool` in batches, comparing each game, in order, with
/// the next game of `reader` as it becomes ready.
fn play_and_compare(
    spec: &MatchSpec<'_>,
    reader: &mut ReplayReader,
    pool: &rayon::ThreadPool,
) -> anyhow::Result<Compared> {
    let chunk = pool.current_num_threads().max(1) * 4;
    let count = unit_count(spec);
    let mut ready: BTreeMap<usize, Vec<Value>> = BTreeMap::new();
    let mut next_game = 0usize;
    let mut events = 0u64;
    for first in (0..count).step_by(chunk) {
        let batch: Vec<Vec<usize>> = (first..count.min(first + chunk)).map(|k| unit(spec, k)).collect();
        let played = pool.install(|| {
            use rayon::prelude::*;
            batch
                .par_iter()
                .map(|unit| play_unit(spec, unit))
                .collect::<Result<Vec<_>, _>>()
        })?;
        for p in played.into_iter().flatten() {
            ready.insert(
                p.result.index,
                game_lines(&p.result, &p.events.values(), &spec.entrants),
            );
        }
        while let Some(lines) = ready.remove(&next_game) {
            let Some(record) = reader.next_game()? else {
                return Ok(Compared::EndsAfter(next_game));
            };
            events += record.lines.len() as u64;
            if let Some(diff) = first_difference(spec.game, &record, &lines) {
                return Ok(Compared::Differs(format!(" at {diff}")));
            }
            next_game += 1;
        }
    }
    if let Some(extra) = reader.next_game()? {
        return Ok(Compared::Differs(format!(
            ": line {}: game {} is one more than the match plays ({next_game})",
            extra.lines.first().map_or(0, |l| l.0),
            extra.index
        )));
    }
    Ok(Compared::Same {
        games: next_game,
        lines: events,
    })
}

/// Where a game's recorded lines and its re-played lines first part, in words.
fn first_difference(game: &dyn GameDef, record: &GameRecord, replayed: &[Value]) -> Option<String> {
    for (k, (line, _)) in record.lines.iter().enumerate() {
        // One recorded line parsed at a time: the game stays its bytes in memory.
        let recorded = &record.value(k);
        let Some(now) = replayed.get(k) else {
            return Some(format!(
                "line {line} (game {}): the replay has this \"{}\" line; played again, the game has ended",
                record.index,
                kind(recorded)
            ));
        };
        if recorded != now {
            // A line that is no event of the game was written by hand or
            // another program: say so, rather than list the fields that differ.
            if !REPLAY_LINES.contains(&kind(recorded))
                && let Err(why) = game.check_event(recorded)
            {
                return Some(format!(
                    "line {line} (game {}): the \"{}\" line is not one of {}'s events as this arena writes them: {why}",
                    record.index,
                    kind(recorded),
                    game.title()
                ));
            }
            return Some(format!(
                "line {line} (game {}, \"{}\" line): {}",
                record.index,
                kind(recorded),
                fields_that_differ(recorded, now)
            ));
        }
    }
    let last = record.lines.last().map_or(0, |l| l.0);
    (replayed.len() > record.lines.len()).then(|| {
        format!(
            "line {last} (game {}): the replay's game ends here; played again, it goes on with a \"{}\" line",
            record.index,
            kind(&replayed[record.lines.len()])
        )
    })
}

/// The lines the replay writer adds around a game's own events.
const REPLAY_LINES: [&str; 5] = ["match", "game", "log", "fuel", "result"];

fn kind(v: &Value) -> &str {
    v.get("type").and_then(Value::as_str).unwrap_or("?")
}

fn fields_that_differ(recorded: &Value, now: &Value) -> String {
    let mut out = Vec::new();
    differences(recorded, now, &mut String::new(), &mut out);
    let more = out.len().saturating_sub(3);
    out.truncate(3);
    let mut text = out.join("; ");
    if more > 0 {
        text.push_str(&format!("; and {more} more"));
    }
    text
}

/// The first difference under each field, by path (`calls[0][3][1]`): a
/// student reads where, not two screens of JSON.
fn differences(a: &Value, b: &Value, path: &mut String, out: &mut Vec<String>) {
    let clip = |v: Option<&Value>| {
        let s = v.map_or_else(|| "nothing".to_string(), Value::to_string);
        if s.len() > 100 {
            format!("{}...", &s[..s.floor_char_boundary(100)])
        } else {
            s
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => differences(p, q, path, out),
                    (p, q) => out.push(format!("{path}: the replay has {}, played again {}", clip(p), clip(q))),
                }
                path.truncate(len);
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            if let Some(i) = (0..x.len()).find(|&i| x[i] != y[i]) {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                differences(&x[i], &y[i], path, out);
                path.truncate(len);
            }
        }
        _ if a != b => {
            let at = if path.is_empty() { "the line" } else { path.as_str() };
            out.push(format!(
                "{at}: the replay has {}, played again {}",
                clip(Some(a)),
                clip(Some(b))
            ));
        }
        _ => {}
    }
}
