//! Replay files: JSON lines, one event per line (see `docs/replay-format.md`).
//! Written by `arena match --replay`; read, checked line by line, by
//! `arena view` and `arena replay verify`.

use crate::runner::{Entrant, GameResult, MatchOutcome};
use serde_json::{Value, json};
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

/// The wasmtime version bots ran on; fuel costs can change between releases.
pub const WASMTIME_VERSION: &str = "48";

/// The replay format this arena writes. 2 added, per call, where it
/// happened and its log lines, the winner's name, and the move of an
/// illegal En Garde answer. Readers take every format up to this one.
pub const FORMAT: u64 = 2;

/// The longest line a reader accepts: far above any real event (a whole
/// game's log is capped by `--log-bytes`, 64 KiB by default).
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// The header line of a match.
pub fn header(outcome: &MatchOutcome, entrants: &[Entrant]) -> Value {
    let r = &outcome.report;
    match_header(&r.game, &r.variant, r.illegal, r.seed, r.games, &r.limits, entrants)
}

/// The header line of a match of `games` games of `game` between
/// `entrants`, played from `seed` under `limits`: what `verify` plays again from.
pub fn match_header(
    game: &str,
    variant: &str,
    illegal: crate::games::IllegalMoves,
    seed: u64,
    games: usize,
    limits: &crate::sandbox::Limits,
    entrants: &[Entrant],
) -> Value {
    json!({
        "type": "match",
        "format": FORMAT,
        "arena-version": crate::VERSION,
        "wasmtime-version": WASMTIME_VERSION,
        "game": game,
        "variant": variant, "illegal": illegal,
        "seed": seed,
        "games": games,
        "limits": limits,
        "bots": entrants.iter().map(|e| json!({"name": e.name, "sha256": match &e.bot {
            crate::runner::BotRef::Wasm(p) => Some(p.sha256.clone()),
            crate::runner::BotRef::House(_) => None,
        }})).collect::<Vec<_>>(),
    })
}

/// One game's lines: `game`, its events, `result`.
pub fn game_lines(result: &GameResult, events: &[Value], entrants: &[Entrant]) -> Vec<Value> {
    let names: Vec<&str> = result.seats.iter().map(|&b| entrants[b].name.as_str()).collect();
    let mut lines = Vec::with_capacity(events.len() + 2);
    lines.push(
        json!({"type": "game", "game": result.index, "seed": result.seed, "seats": result.seats, "names": names}),
    );
    lines.extend(events.iter().cloned());
    let mut end = json!({"type": "result", "game": result.index, "scores": result.scores,
        "winner": result.winner, "winner-name": result.winner.map(|s| names[s]), "forfeit": result.forfeit});
    if let (Some(positions), Some(obj)) = (&result.positions, end.as_object_mut()) {
        obj.insert("positions".into(), json!(positions));
    }
    lines.push(end);
    lines
}

/// Write a match's header, every game's events and result to `out`.
pub fn write_match(out: &mut dyn Write, outcome: &MatchOutcome, entrants: &[Entrant]) -> std::io::Result<()> {
    line(out, &header(outcome, entrants))?;
    for (result, events) in outcome.report.results.iter().zip(&outcome.events) {
        for l in game_lines(result, events, entrants) {
            line(out, &l)?;
        }
    }
    out.flush()
}

fn line(out: &mut dyn Write, value: &Value) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}

/// What is wrong with a replay file: one line naming the file, the line
/// and what to do.
#[derive(Debug, thiserror::Error)]
#[error("{}{}: {what}", path.display(), line.map(|l| format!(" line {l}")).unwrap_or_default())]
pub struct ReplayError {
    /// The file.
    pub path: PathBuf,
    /// The line (1-based), when one line is at fault.
    pub line: Option<u64>,
    /// The cause and the fix.
    pub what: String,
}

/// One game of a replay, as read: its lines with their line numbers.
#[derive(Debug, Clone)]
pub struct GameRecord {
    /// The game's index in the match.
    pub index: u64,
    /// Every line of the game, `game` first and `result` last, with its line number.
    pub lines: Vec<(u64, Value)>,
}

/// Reads a replay game by game, checking each line's shape, so a file of
/// any size is read in the memory of one game.
pub struct ReplayReader {
    path: PathBuf,
    reader: Box<dyn BufRead>,
    line_no: u64,
    /// The header (`match`) line.
    pub header: Value,
    games_read: u64,
    pending: Option<(u64, Value)>,
}

impl ReplayReader {
    /// Open `path` and read its header; `max_bytes` refuses larger files up front.
    pub fn open(path: &Path, max_bytes: Option<u64>) -> Result<Self, ReplayError> {
        let err = |line: Option<u64>, what: String| ReplayError {
            path: path.to_owned(),
            line,
            what,
        };
        let meta = std::fs::metadata(path).map_err(|e| err(None, format!("cannot read it: {}", io_words(&e))))?;
        if meta.is_dir() {
            return Err(err(
                None,
                "this is a folder; give the replay file (arena match --replay FILE writes one)".into(),
            ));
        }
        if let Some(max) = max_bytes
            && meta.len() > max
        {
            return Err(err(
                None,
                format!(
                    "the replay is {} MiB, over the {} MiB this command reads; record fewer games (--games) or one game of it",
                    meta.len() >> 20,
                    max >> 20
                ),
            ));
        }
        let file = std::fs::File::open(path).map_err(|e| err(None, format!("cannot read it: {}", io_words(&e))))?;
        let reader: Box<dyn BufRead> = Box::new(std::io::BufReader::with_capacity(1 << 16, file));
        let mut r = ReplayReader {
            path: path.to_owned(),
            reader,
            line_no: 0,
            header: Value::Null,
            games_read: 0,
            pending: None,
        };
        let Some((n, header)) = r.next_line()? else {
            return Err(err(
                None,
                "the file is empty; write a replay with arena match --replay FILE".into(),
            ));
        };
        if header.get("type").and_then(Value::as_str) != Some("match") {
            return Err(err(
                Some(n),
                "the first line is not a match header; is this a replay written by arena match --replay?".into(),
            ));
        }
        match header.get("format").and_then(Value::as_u64) {
            Some(f) if (1..=FORMAT).contains(&f) => {}
            Some(f) => {
                return Err(err(
                    Some(n),
                    format!(
                        "replay format {f} was written by a newer arena (this one, {}, reads formats 1 to {FORMAT}); update the arena to read it",
                        crate::VERSION
                    ),
                ));
            }
            None => {
                return Err(err(
                    Some(n),
                    "the header has no replay format number; the first line was edited or is not from the arena".into(),
                ));
            }
        }
        for key in ["game", "variant", "bots"] {
            if header.get(key).is_none() {
                return Err(err(
                    Some(n),
                    format!("the header has no \"{key}\"; the first line was edited"),
                ));
            }
        }
        r.header = header;
        Ok(r)
    }

    /// The replay's format version.
    pub fn format(&self) -> u64 {
        self.header.get("format").and_then(Value::as_u64).unwrap_or(1)
    }

    fn err(&self, line: u64, what: String) -> ReplayError {
        ReplayError {
            path: self.path.clone(),
            line: Some(line),
            what,
        }
    }

    fn next_line(&mut self) -> Result<Option<(u64, Value)>, ReplayError> {
        loop {
            // Read at most one byte past the cap, so a file of one endless
            // line costs the cap, not the file.
            let mut bytes = Vec::new();
            let read = (&mut self.reader)
                .take(MAX_LINE_BYTES as u64 + 1)
                .read_until(b'\n', &mut bytes)
                .map_err(|e| self.err(self.line_no + 1, format!("cannot read the file: {}", io_words(&e))))?;
            if read == 0 {
                return Ok(None);
            }
            self.line_no += 1;
            let n = self.line_no;
            if bytes.len() > MAX_LINE_BYTES {
                return Err(self.err(
                    n,
                    format!(
                        "the line is over {} MiB; this is not a replay line",
                        MAX_LINE_BYTES >> 20
                    ),
                ));
            }
            let Ok(text) = std::str::from_utf8(&bytes) else {
                return Err(self.err(
                    n,
                    "this line is not text (UTF-8); the file is damaged or not a replay".into(),
                ));
            };
            if text.trim().is_empty() {
                continue;
            }
            let value: Value = serde_json::from_str(text).map_err(|e| {
                let cut = if e.is_eof() {
                    " (the line is cut short: was the file truncated?)"
                } else {
                    ""
                };
                self.err(n, format!("not valid JSON at column {}: {e}{cut}", e.column()))
            })?;
            if value.get("type").and_then(Value::as_str).is_none() {
                return Err(self.err(
                    n,
                    "the line has no \"type\"; every replay line is an object with a type".into(),
                ));
            }
            return Ok(Some((n, value)));
        }
    }

    /// The next game, checked: it starts with `game`, every line belongs to
    /// it, and it ends with `result`.
    pub fn next_game(&mut self) -> Result<Option<GameRecord>, ReplayError> {
        let first = match self.pending.take() {
            Some(l) => Some(l),
            None => self.next_line()?,
        };
        let Some((n, first)) = first else {
            return Ok(None);
        };
        let expected = self.games_read;
        if first.get("type").and_then(Value::as_str) != Some("game") {
            return Err(self.err(
                n,
                format!(
                    "expected the start of game {expected} (a \"game\" line), found a \"{}\" line",
                    kind(&first)
                ),
            ));
        }
        let index = first.get("game").and_then(Value::as_u64);
        if index != Some(expected) {
            return Err(self.err(
                n,
                format!(
                    "expected game {expected} here, found {}; games must be in order, none missing",
                    show(index)
                ),
            ));
        }
        let mut lines = vec![(n, first)];
        loop {
            let Some((m, value)) = self.next_line()? else {
                return Err(self.err(
                    self.line_no,
                    format!("the replay ends inside game {expected} (it has no result line): the file was cut short; write it again"),
                ));
            };
            match value.get("game").and_then(Value::as_u64) {
                Some(g) if g == expected => {}
                other => {
                    return Err(self.err(
                        m,
                        format!(
                            "a \"{}\" line of game {} inside game {expected}, which has no result line yet",
                            kind(&value),
                            show(other)
                        ),
                    ));
                }
            }
            let done = kind(&value) == "result";
            if kind(&value) == "game" {
                return Err(self.err(m, format!("game {expected} starts again before its result line")));
            }
            lines.push((m, value));
            if done {
                break;
            }
        }
        self.games_read += 1;
        Ok(Some(GameRecord { index: expected, lines }))
    }

    /// Games read so far.
    pub fn games_read(&self) -> u64 {
        self.games_read
    }

    /// The number of the last line read.
    pub fn line_no(&self) -> u64 {
        self.line_no
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn kind(v: &Value) -> &str {
    v.get("type").and_then(Value::as_str).unwrap_or("?")
}

fn show(index: Option<u64>) -> String {
    index.map_or_else(|| "none".to_string(), |i| i.to_string())
}

/// An I/O error in a user's words.
pub fn io_words(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "there is no such file; check the path".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied; check who may read it".into(),
        _ => e.to_string(),
    }
}
