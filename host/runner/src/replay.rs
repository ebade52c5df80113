//! Replay files: JSON lines, one event per line (see `docs/replay-format.md`).
//! Written by `arena match --replay`; read, checked line by line, by
//! `arena view` and `arena replay verify`.

use crate::runner::{Entrant, GameResult, MatchOutcome};
use serde_json::{Value, json};
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

pub use crate::hidden::for_viewer;

/// The wasmtime version bots ran on; fuel costs can change between releases.
pub const WASMTIME_VERSION: &str = "48";

/// The replay format this arena writes. 2 added, per call, where it
/// happened and its log lines, the winner's name, and the move of an
/// illegal En Garde answer. Readers take every format up to this one.
pub const FORMAT: u64 = 2;

/// The most bytes one game of a replay may take, and so the longest line:
/// above any real game (a bot's whole log is at most
/// [`arena_sandbox::MAX_LOG_BYTES`], 1 MiB, per game, at most six bytes of
/// JSON per byte, six seats), so a reader holds at most this much of a file
/// whatever it claims.
pub const MAX_GAME_BYTES: usize = 64 << 20;

/// The longest line a reader accepts.
pub const MAX_LINE_BYTES: usize = MAX_GAME_BYTES;

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
    illegal: arena_core::IllegalMoves,
    seed: u64,
    games: usize,
    limits: &arena_sandbox::Limits,
    entrants: &[Entrant],
) -> Value {
    json!({
        "type": "match",
        "format": FORMAT,
        "arena-version": crate::VERSION,
        "wasmtime-version": WASMTIME_VERSION,
        "fuel-prices": arena_sandbox::PRICES_VERSION,
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
    let (first, last) = game_ends(result, entrants);
    let mut lines = Vec::with_capacity(events.len() + 2);
    lines.push(first);
    lines.extend(events.iter().cloned());
    lines.push(last);
    lines
}

/// A game's first line (`game`: seed, seats, names) and last (`result`).
fn game_ends(result: &GameResult, entrants: &[Entrant]) -> (Value, Value) {
    let names: Vec<&str> = result.seats.iter().map(|&b| entrants[b].name.as_str()).collect();
    let first =
        json!({"type": "game", "game": result.index, "seed": result.seed, "seats": result.seats, "names": names});
    let mut last = json!({"type": "result", "game": result.index, "scores": result.scores,
        "winner": result.winner, "winner-name": result.winner.map(|s| names[s]), "forfeit": result.forfeit});
    if let (Some(positions), Some(obj)) = (&result.positions, last.as_object_mut()) {
        obj.insert("positions".into(), json!(positions));
    }
    (first, last)
}

/// Write the header line of the match `spec` is about to play.
pub fn write_header(out: &mut dyn Write, spec: &crate::runner::MatchSpec<'_>) -> std::io::Result<()> {
    let games = crate::runner::whole_rotations(spec.games, spec.entrants.len());
    let head = match_header(
        spec.game.name(),
        &spec.variant_name(),
        spec.setup.illegal,
        spec.seed,
        games,
        spec.setup.sandbox.limits(),
        &spec.entrants,
    );
    line(out, &head)
}

/// Write one played game's lines (see [`game_lines`]), as it is played:
/// its events are written where they are, not copied, and the game goes
/// to `out` in one piece.
pub fn write_game(out: &mut dyn Write, played: &crate::runner::Played, entrants: &[Entrant]) -> std::io::Result<()> {
    let (first, last) = game_ends(&played.result, entrants);
    let mut text = Vec::with_capacity(played.events.len() * 160 + 512);
    serde_json::to_writer(&mut text, &first)?;
    text.push(b'\n');
    played.events.write_to(&mut text);
    serde_json::to_writer(&mut text, &last)?;
    text.push(b'\n');
    out.write_all(&text)
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

/// A replay file being written: plain JSON lines, or gzip-compressed when
/// its name ends in `.gz` ([`ReplayReader`] reads both). It is written
/// under a temporary name beside the file and renamed by [`ReplayFile::finish`],
/// so a match that fails half-way leaves no half replay (nor clobbers an old one).
pub struct ReplayFile {
    out: ReplayOut,
    partial: PathBuf,
    path: PathBuf,
}

enum ReplayOut {
    Plain(std::io::BufWriter<std::fs::File>),
    Gzip(Box<std::io::BufWriter<flate2::write::GzEncoder<std::fs::File>>>),
}

/// Whether `path` names a compressed replay (`.gz`, in any case).
pub fn is_gzip_name(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz"))
}

impl ReplayFile {
    /// Start writing `path` (compressed if it ends in `.gz`).
    pub fn create(path: &Path) -> std::io::Result<ReplayFile> {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(".partial");
        let partial = path.with_file_name(name);
        let file = std::fs::File::create(&partial)?;
        // JSON is written a few bytes at a time; the buffer hands the
        // compressor large blocks (each call into it has a fixed cost).
        let out = if is_gzip_name(path) {
            let level = flate2::Compression::new(2);
            ReplayOut::Gzip(Box::new(std::io::BufWriter::with_capacity(
                1 << 16,
                flate2::write::GzEncoder::new(file, level),
            )))
        } else {
            ReplayOut::Plain(std::io::BufWriter::with_capacity(1 << 16, file))
        };
        Ok(ReplayFile {
            out,
            partial,
            path: path.to_owned(),
        })
    }

    /// Write what is buffered and, compressed, the gzip trailer, then give
    /// the file its name.
    pub fn finish(self) -> std::io::Result<()> {
        match self.out {
            ReplayOut::Plain(mut f) => f.flush()?,
            ReplayOut::Gzip(z) => z.into_inner().map_err(|e| e.into_error())?.finish()?.flush()?,
        }
        std::fs::rename(&self.partial, &self.path)
    }

    /// Give up: delete what was written.
    pub fn abandon(self) {
        let partial = self.partial.clone();
        drop(self.out);
        let _ = std::fs::remove_file(partial);
    }
}

impl Write for ReplayFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.out {
            ReplayOut::Plain(f) => f.write(buf),
            ReplayOut::Gzip(z) => z.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.out {
            ReplayOut::Plain(f) => f.flush(),
            ReplayOut::Gzip(z) => z.flush(),
        }
    }
}

/// A reader that fails past `max` bytes: an inflated replay is held to the
/// cap its file size would have been.
struct Capped<R> {
    inner: R,
    left: u64,
    max: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.left = self.left.checked_sub(n as u64).ok_or_else(|| {
            std::io::Error::other(format!(
                "it holds over {} MiB once uncompressed, more than this command reads; record fewer games (--games) or one game of it",
                self.max >> 20
            ))
        })?;
        Ok(n)
    }
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

/// One game of a replay, as read: its lines with their line numbers, as
/// the file's text (checked JSON), so a game costs its bytes in memory and
/// no more; [`GameRecord::value`] parses one line when it is needed.
#[derive(Debug, Clone)]
pub struct GameRecord {
    /// The game's index in the match.
    pub index: u64,
    /// Every line of the game, `game` first and `result` last, with its line number.
    pub lines: Vec<(u64, String)>,
}

impl GameRecord {
    /// Line `k` of the game (0 is its `game` line) as JSON. Every line was
    /// checked to be a JSON object when it was read.
    pub fn value(&self, k: usize) -> Value {
        self.lines
            .get(k)
            .and_then(|(_, text)| serde_json::from_str(text).ok())
            .unwrap_or(Value::Null)
    }

    /// The game's `game` line and its `result` line, as JSON.
    pub fn ends(&self) -> (Value, Value) {
        (self.value(0), self.value(self.lines.len().saturating_sub(1)))
    }
}

/// What a reader needs of every line: its type and its game; the rest of
/// the line is checked to be JSON without being built in memory.
#[derive(serde::Deserialize)]
struct LineHead {
    #[serde(rename = "type", default)]
    kind: Scalar,
    #[serde(default)]
    game: Scalar,
}

/// A field's value when it is a string or a whole number; anything else
/// is read past without being kept (a crafted line may hold a huge value
/// where a type belongs).
#[derive(Debug, Default)]
enum Scalar {
    Text(String),
    Whole(u64),
    #[default]
    Other,
}

impl<'de> serde::Deserialize<'de> for Scalar {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar::Text(v.to_owned()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar::Whole(v))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Scalar, E> {
                Ok(Scalar::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Scalar, E> {
                Ok(Scalar::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Scalar, E> {
                Ok(Scalar::Other)
            }
            fn visit_unit<E>(self) -> Result<Scalar, E> {
                Ok(Scalar::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Scalar, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Scalar, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other)
            }
        }
        d.deserialize_any(V)
    }
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
    pending: Option<(u64, String, Head)>,
    /// Whether the file is gzip-compressed (its read errors are worded so).
    gzip: bool,
}

/// The lines of the replay at `path`, inflated as they are read if it is
/// gzip-compressed (and whether it is); `max_bytes` refuses larger files
/// (for a compressed one, more inflated bytes). The error says why, in words.
fn open_lines(path: &Path, max_bytes: Option<u64>) -> Result<(Box<dyn BufRead>, bool), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read it: {}", io_words(&e)))?;
    if meta.is_dir() {
        return Err("this is a folder; give the replay file (arena match --replay FILE writes one)".into());
    }
    if let Some(max) = max_bytes
        && meta.len() > max
    {
        return Err(format!(
            "the replay is {} MiB, over the {} MiB this command reads; record fewer games (--games) or one game of it",
            meta.len() >> 20,
            max >> 20
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read it: {}", io_words(&e)))?;
    let mut file = std::io::BufReader::with_capacity(1 << 16, file);
    let gzip = file
        .fill_buf()
        .map_err(|e| format!("cannot read it: {}", io_words(&e)))?
        .starts_with(&[0x1f, 0x8b]);
    // A compressed replay is read as it inflates; its size on disk says
    // little of what it holds, so the cap counts the inflated bytes.
    let reader: Box<dyn BufRead> = if gzip {
        let inflated = flate2::bufread::MultiGzDecoder::new(file);
        Box::new(std::io::BufReader::with_capacity(
            1 << 16,
            Capped {
                inner: inflated,
                left: max_bytes.unwrap_or(u64::MAX),
                max: max_bytes.unwrap_or(u64::MAX),
            },
        ))
    } else {
        Box::new(file)
    };
    Ok((reader, gzip))
}

/// Whether the first line is a match header this arena reads: its type,
/// a format it knows, and the keys every replay has; if not, why.
fn check_header(header: &Value) -> Result<(), String> {
    if header.get("type").and_then(Value::as_str) != Some("match") {
        return Err("the first line is not a match header; is this a replay written by arena match --replay?".into());
    }
    match header.get("format").and_then(Value::as_u64) {
        Some(f) if (1..=FORMAT).contains(&f) => {}
        Some(f) => {
            return Err(format!(
                "replay format {f} was written by a newer arena (this one, {}, reads formats 1 to {FORMAT}); update the arena to read it",
                crate::VERSION
            ));
        }
        None => {
            return Err(
                "the header has no replay format number; the first line was edited or is not from the arena".into(),
            );
        }
    }
    for key in ["game", "variant", "bots"] {
        if header.get(key).is_none() {
            return Err(format!("the header has no \"{key}\"; the first line was edited"));
        }
    }
    Ok(())
}

/// A line's type and game number.
#[derive(Debug, Clone)]
struct Head {
    kind: String,
    game: Option<u64>,
}

impl ReplayReader {
    /// Open `path` and read its header; `max_bytes` refuses larger files up front.
    pub fn open(path: &Path, max_bytes: Option<u64>) -> Result<Self, ReplayError> {
        let err = |line: Option<u64>, what: String| ReplayError {
            path: path.to_owned(),
            line,
            what,
        };
        let (reader, gzip) = open_lines(path, max_bytes).map_err(|what| err(None, what))?;
        let mut r = ReplayReader {
            path: path.to_owned(),
            reader,
            line_no: 0,
            header: Value::Null,
            games_read: 0,
            pending: None,
            gzip,
        };
        let Some((n, header)) = r.next_value()? else {
            return Err(err(
                None,
                "the file is empty; write a replay with arena match --replay FILE".into(),
            ));
        };
        check_header(&header).map_err(|what| err(Some(n), what))?;
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

    /// The next line, parsed whole (the header).
    fn next_value(&mut self) -> Result<Option<(u64, Value)>, ReplayError> {
        let Some((n, text, _)) = self.next_line()? else {
            return Ok(None);
        };
        let value = serde_json::from_str(&text).map_err(|e| self.err(n, format!("not valid JSON: {e}")))?;
        Ok(Some((n, value)))
    }

    /// The next line that is not blank, as text, with its type and game.
    fn next_line(&mut self) -> Result<Option<(u64, String, Head)>, ReplayError> {
        loop {
            // Read at most one byte past the cap, so a file of one endless
            // line costs the cap, not the file.
            let mut bytes = Vec::new();
            let read = (&mut self.reader)
                .take(MAX_LINE_BYTES as u64 + 1)
                .read_until(b'\n', &mut bytes)
                .map_err(|e| {
                    let why = match e.kind() {
                        // flate2's own words ("corrupt deflate stream") say little to a student.
                        std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::InvalidInput | std::io::ErrorKind::InvalidData
                            if self.gzip =>
                        {
                            format!("the compressed replay is cut short or damaged ({e}); write it again with arena match --replay")
                        }
                        _ => format!("cannot read the file: {}", io_words(&e)),
                    };
                    self.err(self.line_no + 1, why)
                })?;
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
            let Ok(text) = String::from_utf8(bytes) else {
                return Err(self.err(
                    n,
                    "this line is not text (UTF-8); the file is damaged or not a replay".into(),
                ));
            };
            if text.trim().is_empty() {
                continue;
            }
            let head: LineHead = serde_json::from_str(&text).map_err(|e| {
                let cut = if e.is_eof() {
                    " (the line is cut short: was the file truncated?)"
                } else {
                    ""
                };
                self.err(n, format!("not valid JSON at column {}: {e}{cut}", e.column()))
            })?;
            let Scalar::Text(kind) = head.kind else {
                return Err(self.err(
                    n,
                    "the line has no \"type\"; every replay line is an object with a type".into(),
                ));
            };
            let game = match head.game {
                Scalar::Whole(g) => Some(g),
                _ => None,
            };
            let text = text.trim_end().to_string();
            return Ok(Some((n, text, Head { kind, game })));
        }
    }

    /// The next game, checked: it starts with `game`, every line belongs to
    /// it, it ends with `result`, and it is at most [`MAX_GAME_BYTES`].
    pub fn next_game(&mut self) -> Result<Option<GameRecord>, ReplayError> {
        let first = match self.pending.take() {
            Some(l) => Some(l),
            None => self.next_line()?,
        };
        let Some((n, first, head)) = first else {
            return Ok(None);
        };
        let expected = self.games_read;
        if head.kind != "game" {
            return Err(self.err(
                n,
                format!(
                    "expected the start of game {expected} (a \"game\" line), found a \"{}\" line",
                    clip(&head.kind)
                ),
            ));
        }
        if head.game != Some(expected) {
            return Err(self.err(
                n,
                format!(
                    "expected game {expected} here, found {}; games must be in order, none missing",
                    show(head.game)
                ),
            ));
        }
        let mut bytes = first.len();
        let mut lines = vec![(n, first)];
        loop {
            let Some((m, text, head)) = self.next_line()? else {
                return Err(self.err(
                    self.line_no,
                    format!("the replay ends inside game {expected} (it has no result line): the file was cut short; write it again"),
                ));
            };
            if head.game != Some(expected) {
                return Err(self.err(
                    m,
                    format!(
                        "a \"{}\" line of game {} inside game {expected}, which has no result line yet",
                        clip(&head.kind),
                        show(head.game)
                    ),
                ));
            }
            if head.kind == "game" {
                return Err(self.err(m, format!("game {expected} starts again before its result line")));
            }
            bytes += text.len();
            if bytes > MAX_GAME_BYTES {
                return Err(self.err(
                    m,
                    format!(
                        "game {expected} is over {} MiB, more than any real game (logs are capped per bot); the file was made or edited by hand",
                        MAX_GAME_BYTES >> 20
                    ),
                ));
            }
            let done = head.kind == "result";
            lines.push((m, text));
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

/// A type as read from a file, cut short for a message.
fn clip(kind: &str) -> String {
    let cut = &kind[..kind.floor_char_boundary(40)];
    if cut.len() < kind.len() {
        format!("{cut}...")
    } else {
        cut.to_string()
    }
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

/// A bot as a replay's header records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedBot {
    /// The name the match gave it (`house:random`, a file stem).
    pub name: String,
    /// SHA-256 of a wasm bot's file, 64 lowercase hex digits; `None` for a house bot.
    pub sha256: Option<String>,
}

/// A replay's header, every value checked with the limits of the command
/// line's flags, so a reader plays again only what `arena match` could
/// have played.
#[derive(Clone)]
pub struct CheckedHeader {
    /// The game.
    pub game: &'static dyn crate::runner::GameDef,
    /// Its variant, as recorded.
    pub variant: Option<String>,
    /// What an illegal move cost.
    pub illegal: Option<arena_core::IllegalMoves>,
    /// The match seed.
    pub seed: u64,
    /// Games the match played, at most [`crate::runner::MAX_GAMES`].
    pub games: usize,
    /// The limits bots ran under: the game's defaults with the recorded values.
    pub limits: arena_sandbox::Limits,
    /// The bots, as many as the game seats.
    pub bots: Vec<RecordedBot>,
    /// The arena that wrote the file.
    pub arena_version: String,
    /// The wasmtime that ran the bots.
    pub wasmtime_version: String,
    /// The version of the fuel prices the bots ran under; 1 for files
    /// written before prices had versions.
    pub fuel_prices: u64,
}

impl CheckedHeader {
    /// Check a header line; the error is the cause and the fix, for a
    /// message that names the file and line 1.
    pub fn parse(header: &Value) -> Result<CheckedHeader, String> {
        let text = |key: &str| -> Result<Option<String>, String> {
            match header.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if s.len() <= 200 => Ok(Some(s.clone())),
                Some(_) => Err(format!("\"{key}\" must be a short text; the header was edited")),
            }
        };
        let name = text("game")?.unwrap_or_default();
        let game = crate::adapters::game(&name).ok_or_else(|| {
            let known: Vec<&str> = crate::adapters::GAMES.iter().map(|g| g.name()).collect();
            format!("unknown game `{}`; games are: {}", clip(&name), known.join(", "))
        })?;
        let illegal = match text("illegal")? {
            Some(s) => Some(match s.as_str() {
                "course" => arena_core::IllegalMoves::Course,
                "forfeit" => arena_core::IllegalMoves::Forfeit,
                _ => {
                    return Err(format!(
                        "\"illegal\" is `{}`; it must be `course` or `forfeit`",
                        clip(&s)
                    ));
                }
            }),
            None => None,
        };
        let games = whole(header.get("games"), "games")?.unwrap_or(0);
        let max = crate::runner::MAX_GAMES;
        if games == 0 || games > max as u64 {
            return Err(format!(
                "\"games\" is {games}; a match plays 1 to {max} games, as `arena match --games` allows"
            ));
        }
        let limits = Self::limits(game, header.get("limits"))?;
        let Some(list) = header.get("bots").and_then(Value::as_array) else {
            return Err("\"bots\" must be a list of the match's bots; the header was edited".into());
        };
        let mut bots = Vec::with_capacity(list.len().min(8));
        crate::runner::check_seats(game, list.len()).map_err(|e| format!("\"bots\": {e}"))?;
        for b in list {
            let name = match b.get("name") {
                Some(Value::String(s)) if !s.is_empty() && s.len() <= 200 => s.clone(),
                _ => return Err("every bot in \"bots\" needs a \"name\" (a short text); the header was edited".into()),
            };
            let sha256 = match b.get("sha256") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) if s.len() == 64 && s.bytes().all(|c| c.is_ascii_hexdigit()) => {
                    Some(s.to_ascii_lowercase())
                }
                Some(v) => {
                    return Err(format!(
                        "bot `{}`: \"sha256\" must be 64 hex digits, not {}; the header was edited",
                        clip(&name),
                        short(v)
                    ));
                }
            };
            bots.push(RecordedBot { name, sha256 });
        }
        // As `verify` plays it: a variant the game does not have is refused,
        // never shown as if it were the default.
        let variant = text("variant")?;
        if let Some(v) = variant.as_deref().filter(|v| !game.variants().contains(v)) {
            return Err(format!(
                "unknown variant `{}` for {}; variants are: {}",
                clip(v),
                game.name(),
                game.variants().join(", ")
            ));
        }
        Ok(CheckedHeader {
            game,
            variant,
            illegal,
            seed: whole(header.get("seed"), "seed")?.unwrap_or(0),
            games: games as usize,
            limits,
            bots,
            arena_version: text("arena-version")?.unwrap_or_default(),
            wasmtime_version: text("wasmtime-version")?.unwrap_or_default(),
            fuel_prices: whole(header.get("fuel-prices"), "fuel-prices")?.unwrap_or(1),
        })
    }

    /// The game's default limits with the recorded ones, checked as the
    /// command line's flags are.
    fn limits(game: &dyn crate::runner::GameDef, recorded: Option<&Value>) -> Result<arena_sandbox::Limits, String> {
        let mut limits = game.default_limits();
        let Some(recorded) = recorded.filter(|v| !v.is_null()) else {
            return Ok(limits);
        };
        if !recorded.is_object() {
            return Err("\"limits\" must be an object of limits; the header was edited".into());
        }
        let size = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
        if let Some(v) = whole(recorded.get("fuel"), "limits.fuel")? {
            limits.fuel = v;
        }
        if let Some(v) = whole(recorded.get("bank"), "limits.bank")? {
            limits.bank = v;
        }
        if let Some(v) = whole(recorded.get("start_fuel"), "limits.start_fuel")? {
            limits.start_fuel = v;
        }
        if let Some(v) = whole(recorded.get("memory_bytes"), "limits.memory_bytes")? {
            limits.memory_bytes = size(v);
        }
        if let Some(v) = whole(recorded.get("log_bytes"), "limits.log_bytes")? {
            limits.log_bytes = size(v);
        }
        if let Some(v) = whole(recorded.get("max_file_bytes"), "limits.max_file_bytes")? {
            limits.max_file_bytes = v;
        }
        match recorded.get("timeout") {
            None | Some(Value::Null) => {}
            Some(v) => {
                let secs = v.as_f64().filter(|t| t.is_finite() && *t > 0.0).ok_or_else(|| {
                    format!(
                        "\"limits.timeout\" must be a number of seconds above 0, not {}",
                        short(v)
                    )
                })?;
                if secs > arena_sandbox::MAX_TIMEOUT.as_secs_f64() {
                    return Err(format!(
                        "\"limits.timeout\" is {secs} s; at most {} s, as `arena match --timeout` allows",
                        arena_sandbox::MAX_TIMEOUT.as_secs()
                    ));
                }
                limits.timeout = std::time::Duration::from_secs_f64(secs);
            }
        }
        limits.check().map_err(|e| format!("\"limits\": {e}"))?;
        Ok(limits)
    }
}

/// A header's whole number, if given.
fn whole(v: Option<&Value>, key: &str) -> Result<Option<u64>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("\"{key}\" must be a whole number, not {}", short(v))),
    }
}

/// A JSON value cut short for a message.
fn short(v: &Value) -> String {
    let text = v.to_string();
    let cut = &text[..text.floor_char_boundary(40)];
    if cut.len() < text.len() {
        format!("{cut}...")
    } else {
        text
    }
}
