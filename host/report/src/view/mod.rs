//! `arena view`: one self-contained HTML page that animates a replay. The
//! page carries its styles, its scripts and the replay itself (gzip, base64,
//! inflated by the browser's own `DecompressionStream`), loads nothing from
//! the network (its Content-Security-Policy forbids it), and opens by
//! double-click. The drawing code is plain JavaScript in this folder:
//! `model.js` turns events into states (tested under Node against the
//! rules), `viewer.js` draws them, and each game's file of `games/` (found
//! there by `build.rs`) registers its states and its board with the model.

use crate::replay::{GameRecord, ReplayError, ReplayReader};
use base64::Engine;
use flate2::Compression;
use flate2::write::GzEncoder;
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

/// The largest replay `arena view` reads: a page must stay usable in a
/// browser; a 1,000-game Sugargame match is about 20 MB.
pub const MAX_REPLAY_BYTES: u64 = 256 << 20;

const TEMPLATE: &str = include_str!("viewer.html");
const CSS: &str = include_str!("viewer.css");
const VIEWER: &str = include_str!("viewer.js");

// `GAME_SCRIPTS`: each game's file of `games/`, by its name.
include!(concat!(env!("OUT_DIR"), "/game_scripts.rs"));

/// The page's first script: the model, then the file of every registered
/// game, in the registry's order.
static MODEL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    let mut model = include_str!("model.js").to_string();
    for game in arena_runner::adapters::GAMES {
        if let Some((_, script)) = GAME_SCRIPTS.iter().find(|(name, _)| *name == game.name()) {
            model.push_str(script);
        }
    }
    model
});

/// What went into a page, for the command's summary line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageStats {
    /// Games on the page.
    pub games: usize,
    /// Bytes of replay lines embedded (before compression).
    pub replay_bytes: usize,
    /// Bytes of the whole page.
    pub page_bytes: usize,
}

/// Read and check the replay at `path` (every line), and make its page,
/// one game at a time: the page's memory is its compressed replay and one game.
pub fn page_for_file(path: &Path, note: Option<&str>) -> Result<(String, PageStats), ReplayError> {
    let mut reader = ReplayReader::open(path, Some(MAX_REPLAY_BYTES))?;
    // The header is checked as `replay verify` checks it: a page drawn
    // from an edited one (an unknown game, absurd limits) would mislead.
    arena_runner::replay::CheckedHeader::parse(&reader.header).map_err(|what| ReplayError {
        path: path.to_owned(),
        line: Some(1),
        what,
    })?;
    let mut page = Page::new(&reader.header);
    while let Some(game) = reader.next_game()? {
        page.add_record(&game);
    }
    if page.index.is_empty() {
        return Err(ReplayError {
            path: path.to_owned(),
            line: None,
            what: "the replay has a header but no games; was the match stopped before its first game?".into(),
        });
    }
    Ok(page.finish(note))
}

/// The page for a replay's header and games (each game's lines, `game` to
/// `result`), with an optional note shown at its top.
pub fn page(header: &Value, games: &[Vec<Value>], note: Option<&str>) -> (String, PageStats) {
    let mut page = Page::new(header);
    for lines in games {
        page.add_game(lines);
    }
    page.finish(note)
}

/// [`page`] with a link back to the report it belongs to (`href` relative to the page).
pub fn page_in_report(header: &Value, games: &[Vec<Value>], note: Option<&str>, href: &str) -> (String, PageStats) {
    let mut page = Page::new(header);
    page.back = Some(href.to_string());
    for lines in games {
        page.add_game(lines);
    }
    page.finish(note)
}

/// A page being made: the replay's lines go through gzip as they come.
pub struct Page {
    header: Value,
    gz: GzEncoder<Vec<u8>>,
    index: Vec<Value>,
    line: usize,
    replay_bytes: usize,
    back: Option<String>,
}

impl Page {
    /// A page for the match of `header`.
    pub fn new(header: &Value) -> Self {
        let mut page = Page {
            header: header.clone(),
            gz: GzEncoder::new(Vec::new(), Compression::best()),
            index: Vec::new(),
            line: 0,
            replay_bytes: 0,
            back: None,
        };
        page.push(header);
        page
    }

    fn push(&mut self, line: &Value) {
        self.push_text(&line.to_string());
    }

    fn push_text(&mut self, text: &str) {
        self.replay_bytes += text.len() + 1;
        // Writing into a Vec cannot fail.
        let _ = self.gz.write_all(text.as_bytes());
        let _ = self.gz.write_all(b"\n");
        self.line += 1;
    }

    /// Add one game's lines, `game` to `result`.
    pub fn add_game(&mut self, lines: &[Value]) {
        let first = self.line;
        for l in lines {
            self.push(l);
        }
        self.index_game(first, lines.len(), lines.iter());
    }

    /// Add one game as read from a file: its lines go in as written, so the
    /// page costs the game's bytes, not a parsed copy of them.
    pub fn add_record(&mut self, record: &GameRecord) {
        let first = self.line;
        for (_, text) in &record.lines {
            self.push_text(text);
        }
        let (start, end) = record.ends();
        self.index_game(first, record.lines.len(), [start, end].iter());
    }

    /// The page's index entry of a game of `count` lines from line `first`,
    /// from its `game` and `result` lines (among `lines`).
    fn index_game<'v>(&mut self, first: usize, count: usize, lines: impl Iterator<Item = &'v Value>) {
        let mut entry = json!({"first": first, "last": first + count.saturating_sub(1)});
        // An entry is a few numbers and names; a crafted file may put
        // megabytes where they belong, and the index would copy them per game.
        let small = |v: Option<&Value>| match v {
            Some(v) if v.to_string().len() <= 4096 => v.clone(),
            _ => Value::Null,
        };
        for l in lines {
            let Some(obj) = entry.as_object_mut() else { continue };
            match l.get("type").and_then(Value::as_str) {
                Some("game") => {
                    obj.insert("index".into(), small(l.get("game")));
                    let names = small(l.get("names"));
                    obj.insert("names".into(), if names.is_array() { names } else { json!([]) });
                    // As text: JavaScript numbers cannot hold every u64 seed.
                    obj.insert("seed".into(), json!(l.get("seed").map(Value::to_string)));
                }
                Some("result") => {
                    for key in ["scores", "winner", "forfeit", "positions"] {
                        obj.insert(key.into(), small(l.get(key)));
                    }
                }
                _ => {}
            }
        }
        self.index.push(entry);
    }

    /// The page, with an optional note shown at its top.
    pub fn finish(self, note: Option<&str>) -> (String, PageStats) {
        let header = &self.header;
        let compressed = self.gz.finish().unwrap_or_default();
        let data = base64::engine::general_purpose::STANDARD.encode(compressed);
        let title = format!(
            "{} replay: {}",
            header.get("game").and_then(Value::as_str).unwrap_or("arena"),
            header
                .get("bots")
                .and_then(Value::as_array)
                .map(|b| b
                    .iter()
                    .filter_map(|b| b.get("name")?.as_str())
                    .collect::<Vec<_>>()
                    .join(" vs "))
                .unwrap_or_default()
        );
        let games = self.index.len();
        let back = self.back.as_deref().map_or_else(String::new, |href| {
            format!(
                "<a class=\"back\" href=\"{}\">&larr; back to the report</a>",
                html_escape(href)
            )
        });
        let index = json!({"games": self.index, "note": note, "seed": header.get("seed").map(Value::to_string)});
        let index = script_json(&index);
        let policy = content_security_policy();
        let html = fill(
            TEMPLATE,
            &[
                ("CSS", CSS),
                ("MODEL", &MODEL),
                ("VIEWER", VIEWER),
                ("TITLE", &html_escape(&title)),
                ("BACK", &back),
                ("VERSION", arena_runner::VERSION),
                ("CSP", &policy),
                ("INDEX", &index),
                ("DATA", &data),
            ],
        );
        let stats = PageStats {
            games,
            replay_bytes: self.replay_bytes,
            page_bytes: html.len(),
        };
        (html, stats)
    }
}

/// The template with each `{{KEY}}` replaced, in one pass: text put in
/// (a bot's name) is never searched for placeholders again.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after
            .find("}}")
            .and_then(|end| Some((end, values.iter().find(|(k, _)| *k == &after[..end])?)))
        {
            Some((end, (_, value))) => {
                out.push_str(value);
                rest = &after[end + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// JSON to sit inside a `<script>` element: `<`, `>` and `&` written as
/// `\u003c`-style escapes (still the same JSON), so no text a bot or a
/// student controls (`</script>`, `<!--<script>`) can end the element or put
/// the HTML tokenizer in another state and blank the page.
pub fn script_json(value: &Value) -> String {
    let text = value.to_string();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            _ => out.push(c),
        }
    }
    out
}

/// The page's Content-Security-Policy: nothing from the network, and only
/// the page's own two scripts run, named by their SHA-256, so markup that a
/// crafted replay smuggled in (an `onerror` handler, a `<script>`) never does.
pub fn content_security_policy() -> String {
    use sha2::{Digest, Sha256};
    let hash = |script: &str| base64::engine::general_purpose::STANDARD.encode(Sha256::digest(script.as_bytes()));
    format!(
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{}' 'sha256-{}'; img-src data:",
        hash(&MODEL),
        hash(VIEWER)
    )
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
