//! The runner: seats, seeds, duplicate deals and results, for any game.
//!
//! It speaks only the common vocabulary (seats, seeds, outcomes, forfeits,
//! events) and works for 1, 2 or N players without knowing the game.

mod compare;
pub mod crashes;
pub mod entrants;
mod head;
mod matches;
mod seats;
pub mod settings;

pub use compare::{CompareError, CompareReport, CompareRow, CompareSpec, DEFAULT_TABLE, run_compare};
pub use head::{HeadReport, HeadSpec, SprtOutcome, run_head_to_head};
pub use matches::{
    BotSummary, Entrant, FirstForfeit, FuelSummary, GameEvents, GameResult, MAX_GAMES, MatchOutcome, MatchReport,
    MatchSpec, Played, PositionSummary, ReportWriter, check_seats, forfeit_list, play_match, play_match_game_recorded,
    play_match_paced, play_unit, run_match, seat_orders, seating, unit, unit_count, units, whole_rotations,
};
pub(crate) use seats::seating;
pub use seats::{
    Broken, CountingEvents, Seated, Seating, Strict, Table, WasmBot, WasmSeat, counted, exactly, failure,
    person_against_one, strict,
};

use arena_core::{EventSink, Failure, IllegalMoves, Kind, Outcome, Seat, derive_seed};
use arena_sandbox::log::LogContents;
use arena_sandbox::{BotProgram, Limits, Sandbox, Usage, WorldSpec};
use std::sync::Arc;

/// A bot as the runner knows it: built in, or a loaded wasm program.
#[derive(Debug, Clone)]
pub enum BotRef {
    /// A house bot by name.
    House(String),
    /// A checked and compiled wasm component.
    Wasm(Arc<BotProgram>),
}

/// What a game needs besides its seed and players.
#[derive(Clone)]
pub struct GameSetup<'a> {
    /// The sandbox wasm bots run in.
    pub sandbox: &'a Sandbox,
    /// The rules variant, if the game has several.
    pub variant: Option<String>,
    /// What an illegal move costs: the course's rule, or a forfeit.
    pub illegal: IllegalMoves,
}

impl<'a> GameSetup<'a> {
    /// The default variant and the course's rule for illegal moves.
    pub fn new(sandbox: &'a Sandbox) -> Self {
        GameSetup {
            sandbox,
            variant: None,
            illegal: IllegalMoves::Course,
        }
    }
}

/// One game to play: its settings, its seed, and who sits where (`seats[i]` in seat `i`).
#[derive(Clone, Copy)]
pub struct Deal<'a> {
    /// The sandbox and variant.
    pub setup: &'a GameSetup<'a>,
    /// The game's seed: the deal, and each wasm instance's randomness.
    pub seed: u64,
    /// The bot in each seat.
    pub seats: &'a [&'a BotRef],
}

/// A setting a game cannot accept.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// No such variant.
    #[error("unknown variant `{0}`")]
    UnknownVariant(String),
    /// The game has no terminal play yet.
    #[error("{0} cannot be played by a person yet")]
    NoHumanPlay(&'static str),
    /// Wrong number of opponents for human play.
    #[error("{0}")]
    Opponents(String),
    /// A house bot the game does not have reached a game: the run's mistake, never a seat's.
    #[error("no house bot `{0}` in this game (see `arena games`)")]
    UnknownHouseBot(String),
    /// The wrong number of players reached a game.
    #[error("{0}")]
    Seats(String),
    /// More games than a match may play.
    #[error("{0}")]
    Games(String),
    /// The machine failed a bot (not the bot's fault): the run stops, nobody is charged.
    #[error("the machine failed, not a bot: {0}")]
    Host(String),
    /// A wasm bot built for a world that is not this game's: refused before
    /// any game, never charged to the bot as a forfeit in every game.
    #[error("{0}")]
    WrongWorld(String),
}

/// One game played: its outcome, and per seat the wasm bot's log and fuel.
#[derive(Debug, Clone)]
pub struct PlayedGame {
    /// How it ended.
    pub outcome: Outcome,
    /// Per seat: what a wasm bot logged (`None` for house bots).
    pub logs: Vec<Option<LogContents>>,
    /// Per seat: the fuel a wasm bot used, call by call (`None` for house bots).
    pub fuel: Vec<Option<Usage>>,
}

impl PlayedGame {
    /// A game played: per seat, the wasm bot's log and fuel (`None` for house bots).
    pub fn with_reports(outcome: Outcome, reports: Vec<Option<(LogContents, Usage)>>) -> PlayedGame {
        let (logs, fuel) = reports
            .into_iter()
            .map(|r| r.map_or((None, None), |(l, f)| (Some(l), Some(f))))
            .unzip();
        PlayedGame { outcome, logs, fuel }
    }

    /// A game played by house bots only: no logs, no fuel.
    pub fn native(outcome: Outcome) -> PlayedGame {
        let seats = outcome.scores.len();
        PlayedGame {
            outcome,
            logs: vec![None; seats],
            fuel: vec![None; seats],
        }
    }

    /// A game lost before it began because `seat` could not start (its instantiation failed).
    pub fn forfeit_at_start(seats: usize, seat: Seat, failure: Failure, events: &mut dyn EventSink) -> PlayedGame {
        PlayedGame::native(Outcome::forfeited(vec![0; seats], failure.forfeit(seat, events)))
    }
}

/// What a game is, declared once by its adapter: everything `match`,
/// `compare`, `tournament`, `grade`, `play` and the tables read, so nothing
/// above the adapters matches on a game's name.
pub struct About {
    /// Command-line name, e.g. `en-garde`.
    pub name: &'static str,
    /// Display name, e.g. `En Garde`.
    pub title: &'static str,
    /// Alone, a duel, or a table of several.
    pub kind: Kind,
    /// How many players sit at one table.
    pub seats: std::ops::RangeInclusive<usize>,
    /// The worlds its bots may target, one per supported version, oldest first.
    pub worlds: &'static [&'static WorldSpec],
    /// Built-in bots: name and description.
    pub house_bots: &'static [(&'static str, &'static str)],
    /// Rules variants; the first is the default.
    pub variants: &'static [&'static str],
    /// The rubric `arena grade` uses when none is given (TOML).
    pub default_rubric: &'static str,
    /// The limits bots run under unless the command line says otherwise.
    pub limits: Limits,
    /// Whether each game depends on the one before at the same seating
    /// (President's card exchanges; see `GameDef::chained`).
    pub chained: bool,
    /// What an illegal move costs under the course's rule, in words that
    /// follow "N illegal moves: ", with the rule's number.
    pub illegal_rule: &'static str,
    /// The opponents of a newcomer's first match (`arena new` prints it):
    /// house bots, none for a game played alone.
    pub first_opponents: &'static [&'static str],
    /// The house bot whose example twins (`example-bots/<lang>/<game>/`)
    /// the projects of `arena new` start as a copy of.
    pub starter: &'static str,
    /// What a table game's results call its first and last place
    /// (President: `president`, `bum`); `first` and `last` for the others.
    pub places: [&'static str; 2],
    /// Why a replay line is not one of the game's events (its typed
    /// `Event` enum, read and written back unchanged), or `Ok`: [`typed_event`].
    pub check_event: fn(&serde_json::Value) -> Result<(), String>,
    /// Leaves out of a replay's game event what a viewer may not see (the
    /// hands of seats that are not theirs, a deck's order), as the rules
    /// say what each bot sees: the server's one privacy rule for replays.
    pub hide_event: fn(&mut serde_json::Value, &dyn Fn(Seat) -> bool),
    /// The rules document (`docs/rules/<game>.md`, Markdown), which the
    /// course server shows its students at `/rules`.
    pub rules: &'static str,
}

/// Whether `line`, a replay's game event, is exactly an `E`: read as one,
/// it writes back the same object (the replay's `game` index aside).
pub fn typed_event<E: serde::Serialize + serde::de::DeserializeOwned>(line: &serde_json::Value) -> Result<(), String> {
    let mut event = line.clone();
    if let Some(fields) = event.as_object_mut() {
        fields.remove("game");
    }
    let typed: E = serde_json::from_value(event.clone()).map_err(|e| e.to_string())?;
    let again = serde_json::to_value(&typed).map_err(|e| e.to_string())?;
    match (event.as_object(), again.as_object()) {
        (Some(read), Some(written)) => match read.keys().find(|k| !written.contains_key(*k)) {
            Some(extra) => Err(format!("unknown field `{extra}`")),
            None if read == written => Ok(()),
            None => Err("a field of an unexpected shape".to_string()),
        },
        _ => Err("not an object".to_string()),
    }
}

/// A game the arena can run: its rules behind the common vocabulary.
pub trait GameDef: Send + Sync {
    /// What the game is: the facts every command reads.
    fn about(&self) -> &'static About;
    /// Command-line name, e.g. `en-garde`.
    fn name(&self) -> &'static str {
        self.about().name
    }
    /// Display name, e.g. `En Garde`.
    fn title(&self) -> &'static str {
        self.about().title
    }
    /// What an illegal move costs under the course's rule: `each loses the round (rule 5.1)`.
    fn illegal_rule(&self) -> &'static str {
        self.about().illegal_rule
    }
    /// The world of the newest version, which new bots target.
    fn world(&self) -> &'static WorldSpec {
        let worlds = self.about().worlds;
        worlds[worlds.len() - 1]
    }
    /// Every world its bots may target, one per supported version, oldest first.
    fn worlds(&self) -> &'static [&'static WorldSpec] {
        self.about().worlds
    }
    /// Alone, a duel, or a table of several: what results and tournaments are made of.
    fn kind(&self) -> Kind {
        self.about().kind
    }
    /// How many players sit at one table.
    fn seats(&self) -> std::ops::RangeInclusive<usize> {
        self.about().seats.clone()
    }
    /// The rubric `arena grade` uses when none is given (TOML).
    fn default_rubric(&self) -> &'static str {
        self.about().default_rubric
    }
    /// The limits bots run under unless the command line says otherwise
    /// (the reasoning is in the game's rules document).
    fn default_limits(&self) -> Limits {
        self.about().limits.clone()
    }
    /// Built-in bots: name and description.
    fn house_bots(&self) -> &'static [(&'static str, &'static str)] {
        self.about().house_bots
    }
    /// Rules variants; the first is the default.
    fn variants(&self) -> &'static [&'static str] {
        self.about().variants
    }
    /// Why `line` (a replay's game event) is not one of this game's events, or `Ok`.
    fn check_event(&self, line: &serde_json::Value) -> Result<(), String> {
        (self.about().check_event)(line)
    }
    /// Leave out of `event` (a replay's game event) what a viewer who may
    /// see only the seats `sees` accepts may not see.
    fn hide_event(&self, event: &mut serde_json::Value, sees: &dyn Fn(Seat) -> bool) {
        (self.about().hide_event)(event, sees)
    }
    /// Reject settings the game cannot use, before any game is played.
    fn check_setup(&self, setup: &GameSetup<'_>) -> Result<(), SetupError> {
        match setup.variant.as_deref() {
            Some(v) if !self.variants().contains(&v) => Err(SetupError::UnknownVariant(v.to_string())),
            _ => Ok(()),
        }
    }
    /// Play one game of `deal`. An error is the run's mistake (an unknown
    /// house bot), never a seat's forfeit.
    fn play(&self, deal: Deal<'_>, events: &mut dyn EventSink) -> Result<PlayedGame, SetupError>;
    /// Whether each game depends on the one before at the same seating
    /// (President's card exchanges): the runner then plays each seat
    /// rotation as one series, in every command.
    fn chained(&self) -> bool {
        self.about().chained
    }
    /// Play games at one seating, in order, each with its events if
    /// `record`. Games that chain override this; by default each is dealt alone.
    fn play_series(
        &self,
        setup: &GameSetup<'_>,
        seeds: &[u64],
        seats: &[&BotRef],
        record: bool,
    ) -> Result<Vec<(PlayedGame, arena_core::EventLines)>, SetupError> {
        seeds
            .iter()
            .map(|&seed| {
                let mut events = arena_core::EventLines::default();
                let deal = Deal { setup, seed, seats };
                let game = if record {
                    self.play(deal, &mut events)?
                } else {
                    self.play(deal, &mut arena_core::NoEvents)?
                };
                Ok((game, events))
            })
            .collect()
    }
}

/// The seed a wasm instance's WASI randomness starts from, per game and seat.
pub fn instance_seed(game_seed: u64, seat: Seat) -> u64 {
    derive_seed(game_seed, 0x1A57_0000 + seat as u64)
}
