//! The common vocabulary every layer of the arena speaks: seats, seeds,
//! outcomes, failures, forfeits and events.
//!
//! Nothing here knows about WebAssembly or about any one game. A player that
//! fails (a trapped or exhausted bot) reports a [`Failure`], which the game
//! turns into a forfeit by its own rules.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Index of a seat at the table, starting at 0.
pub type Seat = usize;

/// Why a bot forfeited a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ForfeitReason {
    /// The bot trapped: a panic, an `unreachable`, a stack overflow, a bad memory access.
    Trap,
    /// The bot used up its compute budget (fuel) for one call.
    Fuel,
    /// The bot ran past the wall-clock limit for one call.
    Timeout,
    /// The bot tried to grow its memory beyond the cap.
    Memory,
    /// The bot answered something the host cannot accept.
    InvalidAnswer,
    /// The bot made a move the rules do not allow, under the setting where
    /// any illegal move forfeits (`--illegal forfeit`).
    IllegalMove,
    /// Not the bot: the machine failed it (the system could not give memory
    /// within the bot's cap). Never charged to a bot: the runner stops the
    /// run with the machine's error instead of scoring the game, so it is
    /// not among [`ForfeitReason::ALL`].
    Host,
}

impl ForfeitReason {
    /// Every reason, in the order tables print them.
    pub const ALL: [ForfeitReason; 6] = [
        ForfeitReason::Trap,
        ForfeitReason::Fuel,
        ForfeitReason::Timeout,
        ForfeitReason::Memory,
        ForfeitReason::InvalidAnswer,
        ForfeitReason::IllegalMove,
    ];

    /// The name used in JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            ForfeitReason::Trap => "trap",
            ForfeitReason::Fuel => "fuel",
            ForfeitReason::Timeout => "timeout",
            ForfeitReason::Memory => "memory",
            ForfeitReason::InvalidAnswer => "invalid-answer",
            ForfeitReason::IllegalMove => "illegal-move",
            ForfeitReason::Host => "host",
        }
    }
}

impl fmt::Display for ForfeitReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A player could not answer: the reason and a human-readable detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The typed reason callers branch on.
    pub reason: ForfeitReason,
    /// What happened, for people (for example the trap message).
    pub detail: String,
}

impl Failure {
    /// A failure with the given reason and detail.
    pub fn new(reason: ForfeitReason, detail: impl Into<String>) -> Self {
        Failure {
            reason,
            detail: detail.into(),
        }
    }
}

impl Failure {
    /// Record this failure as `seat`'s forfeit: the replay event now, and
    /// the forfeit for the outcome. Every forfeit in every game is built here.
    pub fn forfeit(self, seat: Seat, events: &mut dyn EventSink) -> Forfeit {
        let forfeit = Forfeit {
            seat,
            reason: self.reason,
            detail: self.detail,
        };
        if events.enabled() {
            record(events, &CommonEvent::Forfeit(forfeit.clone()));
        }
        forfeit
    }
}

/// The events every game records the same way; each game's own event enum
/// has these variants too, with the same shape.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
enum CommonEvent {
    Forfeit(Forfeit),
}

/// Record `event`, a game's typed event, as the JSON object the replay
/// keeps (the enum's `type` tag and its fields). Call it only when
/// `events.enabled()`: building the event costs time on the hot path.
pub fn record<E: Serialize>(events: &mut dyn EventSink, event: &E) {
    // A sink that keeps JSON lines takes the event serialised straight from
    // its type: no tree of values is built on the hot path of a recording.
    let taken = events.event_json(&mut |out: &mut Vec<u8>| serde_json::to_writer(out, event).is_ok());
    // A game's events are plain data (numbers, strings, lists, maps with
    // string keys), which always serialize.
    if !taken && let Ok(value) = serde_json::to_value(event) {
        events.event(value);
    }
}

/// What an illegal move costs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IllegalMoves {
    /// The course's rule for the game (En Garde: the round is lost;
    /// ConnectFwar: the card is discarded; Sugargame: the game is lost;
    /// President: the player is out, last).
    #[default]
    Course,
    /// Any illegal move forfeits the game with reason `illegal-move`.
    Forfeit,
}

/// Check a player's answer under `rule`: under [`IllegalMoves::Forfeit`] an
/// answer the rules do not allow (`is_legal`) becomes an `illegal-move`
/// failure whose detail records the move (`describe`); otherwise it passes
/// unchanged, for the game's own rule to judge.
pub fn judge<T>(
    rule: IllegalMoves,
    answer: T,
    is_legal: impl FnOnce(&T) -> bool,
    describe: impl FnOnce(&T) -> String,
) -> Result<T, Failure> {
    if rule == IllegalMoves::Forfeit && !is_legal(&answer) {
        return Err(Failure::new(
            ForfeitReason::IllegalMove,
            format!(
                "{}, which the rules do not allow (this run is played under the rule that any illegal move forfeits)",
                describe(&answer)
            ),
        ));
    }
    Ok(answer)
}

/// What kind of table a game is played at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// One player alone, for a score (ConnectFwar).
    Solitaire,
    /// Two players, one wins (En Garde, Sugargame).
    Duel,
    /// Three or more players ranked by finishing order (President).
    Table,
}

/// A forfeit recorded in a game result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forfeit {
    /// The seat that forfeited.
    pub seat: Seat,
    /// Why.
    pub reason: ForfeitReason,
    /// What happened, for people.
    pub detail: String,
}

/// How a game ended, per seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Each seat's score (points, or a solitaire score).
    pub scores: Vec<i64>,
    /// The winning seat, or `None` for a draw (or a solitaire game).
    pub winner: Option<Seat>,
    /// The forfeit that ended the game, if one did (in games of more than
    /// two players: the first forfeit; the game went on).
    pub forfeit: Option<Forfeit>,
    /// Further forfeits, in games where play goes on after one.
    pub other_forfeits: Vec<Forfeit>,
    /// Finishing positions by seat (1 = first), for games that rank players.
    pub positions: Option<Vec<u32>>,
    /// Per seat, the answers the rules did not allow, played on under the
    /// course's rule (the answers `--illegal forfeit` would forfeit); filled
    /// by the host, empty when nobody counted.
    #[serde(default)]
    pub illegal: Vec<u32>,
}

impl Outcome {
    /// An outcome with scores, winner and forfeit, and nothing else.
    pub fn new(scores: Vec<i64>, winner: Option<Seat>, forfeit: Option<Forfeit>) -> Outcome {
        Outcome {
            scores,
            winner,
            forfeit,
            other_forfeits: Vec::new(),
            positions: None,
            illegal: Vec::new(),
        }
    }

    /// A game ended by `forfeit` with these scores: in a duel the other seat
    /// wins; alone or at a table, nobody does.
    pub fn forfeited(scores: Vec<i64>, forfeit: Forfeit) -> Outcome {
        let winner = (scores.len() == 2).then(|| 1 - forfeit.seat.min(1));
        Outcome::new(scores, winner, Some(forfeit))
    }

    /// Every forfeit of the game.
    pub fn forfeits(&self) -> impl Iterator<Item = &Forfeit> {
        self.forfeit.iter().chain(&self.other_forfeits)
    }
}

/// Receives the events of a game as they happen, for replays.
pub trait EventSink {
    /// Record one event; `event` is a JSON object with a `"type"` field.
    fn event(&mut self, event: serde_json::Value);
    /// Whether events are wanted at all (building them costs time on the hot path).
    fn enabled(&self) -> bool;
    /// Take one event as JSON that `write` appends to a buffer (it says
    /// whether it could), for sinks that keep JSON text; `false` (the
    /// default) when the sink wants [`EventSink::event`]'s value instead.
    fn event_json(&mut self, _write: &mut dyn FnMut(&mut Vec<u8>) -> bool) -> bool {
        false
    }
}

/// An event sink that keeps a game's events as JSON lines, one object a
/// line, each serialised once from the game's typed event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventLines {
    text: Vec<u8>,
    /// Where each line ends (its line break), so lines are found without a scan.
    ends: Vec<usize>,
}

impl EventLines {
    /// The events as JSON lines, each ending in a line break.
    pub fn text(&self) -> &[u8] {
        &self.text
    }
    /// How many events.
    pub fn len(&self) -> usize {
        self.ends.len()
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
    /// Each event as a JSON value.
    pub fn values(&self) -> Vec<serde_json::Value> {
        // Every line was written by serde_json from a value or a typed event.
        self.lines().filter_map(|l| serde_json::from_slice(l).ok()).collect()
    }
    /// Each event's line, without its line break.
    pub fn lines(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(0).chain(self.ends.iter().map(|e| e + 1));
        starts.zip(&self.ends).map(|(start, &end)| &self.text[start..end])
    }
}

impl EventSink for EventLines {
    fn event(&mut self, event: serde_json::Value) {
        // A value always serialises.
        let start = self.text.len();
        if serde_json::to_writer(&mut self.text, &event).is_ok() {
            self.ends.push(self.text.len());
            self.text.push(b'\n');
        } else {
            self.text.truncate(start);
        }
    }
    fn enabled(&self) -> bool {
        true
    }
    fn event_json(&mut self, write: &mut dyn FnMut(&mut Vec<u8>) -> bool) -> bool {
        let start = self.text.len();
        let written = write(&mut self.text);
        if written {
            self.ends.push(self.text.len());
            self.text.push(b'\n');
        } else {
            self.text.truncate(start);
        }
        written
    }
}

/// An event sink that keeps nothing.
pub struct NoEvents;

impl EventSink for NoEvents {
    fn event(&mut self, _event: serde_json::Value) {}
    fn enabled(&self) -> bool {
        false
    }
}

impl EventSink for Vec<serde_json::Value> {
    fn event(&mut self, event: serde_json::Value) {
        self.push(event);
    }
    fn enabled(&self) -> bool {
        true
    }
}

/// Derive an independent 64-bit seed from a parent seed and a label.
///
/// SplitMix64 finalisation: portable, and neighbouring labels give
/// unrelated seeds, so game `i` and game `i + 1` share nothing.
pub fn derive_seed(parent: u64, label: u64) -> u64 {
    let mut z = parent.wrapping_add(label.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What a replay shown to one person leaves out: which cards, where they
/// may not see them. Every card of the list `cards` becomes `null`, so how
/// many there were stays and which they were goes.
pub fn hide_cards(cards: &mut serde_json::Value) {
    if let Some(list) = cards.as_array_mut() {
        list.iter_mut().for_each(|c| *c = serde_json::Value::Null);
    }
}

/// In an event whose `field` lists something per seat (each seat's hand),
/// hide the cards of every seat the viewer may not see ([`hide_cards`]);
/// an entry that is a list of lists (a seat's `[gave, received]`) has each
/// of its lists hidden.
pub fn hide_per_seat(event: &mut serde_json::Value, field: &str, sees: &dyn Fn(Seat) -> bool) {
    let Some(seats) = event.get_mut(field).and_then(serde_json::Value::as_array_mut) else {
        return;
    };
    for (seat, entry) in seats.iter_mut().enumerate() {
        if sees(seat) {
            continue;
        }
        let nested = entry
            .as_array()
            .is_some_and(|l| !l.is_empty() && l.iter().all(serde_json::Value::is_array));
        match entry.as_array_mut() {
            Some(lists) if nested => lists.iter_mut().for_each(hide_cards),
            _ => hide_cards(entry),
        }
    }
}
