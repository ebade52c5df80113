//! One played game as the runner hands it over: its result, its events as
//! the replay's JSON lines, and the fuel each wasm bot used.

use super::GameResult;
use arena_core::EventLines;
use arena_sandbox::{Call, Usage};
use serde::Serialize;
use serde_json::{Value, json};

/// One game as the runner played it: its result, its events (when
/// recorded) and per seat the fuel a wasm bot used.
#[derive(Debug, Clone)]
pub struct Played {
    /// The result.
    pub result: GameResult,
    /// Its events, when the match is recorded.
    pub events: GameEvents,
    /// Per seat, the fuel a wasm bot used, call by call (`None` for house bots).
    pub fuel: Vec<Option<Usage>>,
}

/// One call in a replay's `fuel` event: its kind, fuel, mark and log lines.
pub(super) type CallLine = (Call, u64, u64, usize);

/// The events the runner adds to every recorded game's own, after them.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "kebab-case", rename_all_fields = "kebab-case")]
pub(super) enum RunnerEvent<'a> {
    /// What a bot logged in the game.
    Log {
        seat: usize,
        lines: &'a [String],
        truncated: bool,
    },
    /// Per seat, the fuel a wasm bot used (`null` for a house bot).
    Fuel {
        per_seat: Vec<Option<u64>>,
        instantiation: Vec<Option<u64>>,
        calls: Vec<Option<Vec<CallLine>>>,
        bank_used: Vec<Option<u64>>,
    },
}

/// A played game's events as the replay's JSON lines, each object tagged
/// with the game's index (docs/replay-format.md) as it is written out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameEvents {
    pub(super) game: usize,
    pub(super) lines: EventLines,
}

impl GameEvents {
    /// Append the JSON lines, `"game"` first in each object, to `out`.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        let prefix = format!("{{\"game\":{}", self.game);
        for line in self.lines.lines() {
            // Every event is a JSON object (`{`, then its fields or `}`);
            // anything else would be written as it is, never dropped.
            match line.strip_prefix(b"{") {
                Some(rest) => {
                    out.extend_from_slice(prefix.as_bytes());
                    if rest.first() != Some(&b'}') {
                        out.push(b',');
                    }
                    out.extend_from_slice(rest);
                }
                None => out.extend_from_slice(line),
            }
            out.push(b'\n');
        }
    }
    /// How many events.
    pub fn len(&self) -> usize {
        self.lines.len()
    }
    /// Whether there are none (the game was not recorded).
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
    /// Each event as a JSON value.
    pub fn values(&self) -> Vec<Value> {
        let mut values = self.lines.values();
        for v in &mut values {
            if let Some(obj) = v.as_object_mut() {
                obj.insert("game".into(), json!(self.game));
            }
        }
        values
    }
}
