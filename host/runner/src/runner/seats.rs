//! One way to seat players at any game's table: a native player (a house bot
//! or a person), a wasm bot, or a wasm bot that could not start, in one
//! generic type. Adapters say how their game's players are made
//! ([`Seating`]); everything else (instance seeds, forfeits before the first
//! move, logs and fuel afterwards) is done here once for every game.

use super::{BotRef, Deal, GameSetup, PlayedGame, SetupError, instance_seed};
use arena_core::{EventSink, Failure, IllegalMoves, Outcome, Seat};
use arena_sandbox::log::LogContents;
use arena_sandbox::{BotProgram, BotState, Call, Instance, Sandbox, Usage};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use wasmtime::Store;

pub use super::crashes::failure;

/// A wasm bot playing one game: its sandboxed instance, speaking the games' vocabulary.
pub struct WasmBot<B> {
    instance: Instance<B>,
    events: Option<Arc<AtomicU64>>,
}

impl<B> WasmBot<B> {
    /// A fresh instance of `program` whose WASI randomness starts from `seed`;
    /// `bind` looks up the world's exports.
    pub fn new(
        sandbox: &Sandbox,
        program: &BotProgram,
        seed: u64,
        bind: impl FnOnce(&mut Store<BotState>, &wasmtime::component::Instance) -> wasmtime::Result<B>,
    ) -> Result<Self, Failure> {
        let instance = sandbox.instantiate(program, seed, bind).map_err(failure)?;
        Ok(WasmBot { instance, events: None })
    }

    /// Record each later call with the number of events its game had
    /// emitted when it was made (see [`CountingEvents`]).
    pub fn follow(&mut self, events: Arc<AtomicU64>) {
        self.events = Some(events);
    }

    /// Call into the bot under the budget of a call of kind `call`; a
    /// failure ends the bot for the game.
    pub fn call<R>(
        &mut self,
        call: Call,
        f: impl FnOnce(&B, &mut Store<BotState>) -> wasmtime::Result<R>,
    ) -> Result<R, Failure> {
        if let Some(events) = &self.events {
            self.instance.set_mark(events.load(Ordering::Relaxed));
        }
        self.instance.call(call, f).map_err(failure)
    }

    /// What the bot logged and the fuel it used, for the game's record.
    pub fn report(&self) -> (LogContents, Usage) {
        self.instance.report()
    }
}

/// A wasm bot seated as a player of one game, whatever world version it
/// targets: each version's bindings give the same player.
pub trait WasmSeat<P: ?Sized> {
    /// The bot as the game's player.
    fn player(&mut self) -> &mut P;
    /// What the bot logged and the fuel it used, for the game's record.
    fn report(&self) -> (LogContents, Usage);
    /// Mark each later call with its game's count of events so far.
    fn follow(&mut self, events: Arc<AtomicU64>);
}

/// An event sink that counts what it passes on, so each call into a wasm
/// bot can be placed among its game's events in a replay.
pub struct CountingEvents<'a> {
    inner: &'a mut dyn EventSink,
    count: Arc<AtomicU64>,
}

impl EventSink for CountingEvents<'_> {
    fn event(&mut self, event: serde_json::Value) {
        self.count.fetch_add(1, Ordering::Relaxed);
        self.inner.event(event);
    }
    fn enabled(&self) -> bool {
        self.inner.enabled()
    }
    fn event_json(&mut self, write: &mut dyn FnMut(&mut Vec<u8>) -> bool) -> bool {
        let taken = self.inner.event_json(write);
        if taken {
            self.count.fetch_add(1, Ordering::Relaxed);
        }
        taken
    }
}

/// A seat whose wasm bot could not start: for games that play on without it,
/// a player that fails every call.
pub struct Broken(pub Failure);

/// How one game makes its players: the only seating code an adapter writes.
pub trait Seating {
    /// The game's player trait, e.g. `dyn Fencer`.
    type Player: ?Sized;
    /// A house bot of this game by name.
    fn house(name: &str) -> Option<Box<Self::Player>>;
    /// A fresh instance of `program`, bound through the bindings of the
    /// world version it targets, as a player of this game.
    fn wasm(sandbox: &Sandbox, program: &BotProgram, seed: u64) -> Result<Box<dyn WasmSeat<Self::Player>>, Failure>;
    /// A bot that could not start as a player, for games that play on
    /// without it; `None` (the default) forfeits the game before it starts.
    fn broken(_bot: &mut Broken) -> Option<&mut Self::Player> {
        None
    }
}

/// The [`Seating`] of a game whose players implement `$player`, whose house
/// bots come from `$house(name)` and whose wasm bots target one of the world
/// versions bound by the modules `$version` (`since_v0_1`, ...); add
/// `plays_on` for a game that goes on without a seat whose bot could not
/// start (that seat then fails its first call).
macro_rules! seating {
    ($game:ty, $player:path, $house:path, [$($version:ident),+] $(, $plays_on:ident)?) => {
        $(
            impl $crate::runner::WasmSeat<dyn $player> for $crate::runner::WasmBot<$version::Bindings> {
                fn player(&mut self) -> &mut (dyn $player + 'static) {
                    self
                }
                fn report(&self) -> (::arena_sandbox::log::LogContents, ::arena_sandbox::Usage) {
                    $crate::runner::WasmBot::report(self)
                }
                fn follow(&mut self, events: std::sync::Arc<std::sync::atomic::AtomicU64>) {
                    $crate::runner::WasmBot::follow(self, events)
                }
            }
        )+
        impl $crate::runner::Seating for $game {
            type Player = dyn $player;
            fn house(name: &str) -> Option<Box<dyn $player>> {
                $house(name).map(|b| b as Box<dyn $player>)
            }
            fn wasm(
                sandbox: &::arena_sandbox::Sandbox,
                program: &::arena_sandbox::BotProgram,
                seed: u64,
            ) -> Result<Box<dyn $crate::runner::WasmSeat<dyn $player>>, ::arena_core::Failure> {
                $(
                    if std::ptr::eq(program.world, &$version::WORLD) {
                        let bot = $crate::runner::WasmBot::new(sandbox, program, seed, |store, instance| {
                            $version::Bindings::new(store, instance)
                        })?;
                        return Ok(Box::new(bot));
                    }
                )+
                Err(::arena_core::Failure::new(
                    ::arena_core::ForfeitReason::InvalidAnswer,
                    format!("{} is not a world of this game", program.world.name),
                ))
            }
            $(
                fn broken(bot: &mut $crate::runner::Broken) -> Option<&mut Self::Player> {
                    let _ = stringify!($plays_on);
                    Some(bot)
                }
            )?
        }
    };
}
pub(crate) use seating;

/// One seat at a game's table.
pub enum Seated<S: Seating> {
    /// A player in this process: a house bot or a person.
    Native(Box<S::Player>),
    /// A wasm bot with its own fresh instance.
    Wasm(Box<dyn WasmSeat<S::Player>>),
    /// A wasm bot whose instantiation failed.
    Broken(Broken),
}

impl<S: Seating> Seated<S> {
    /// Seat `bot` in `seat` for the game dealt from `seed`. An unknown house
    /// bot is a mistake of the run's configuration, not of any seat.
    pub fn bot(setup: &GameSetup<'_>, seed: u64, seat: Seat, bot: &BotRef) -> Result<Self, SetupError> {
        Ok(match bot {
            BotRef::House(name) => {
                Seated::Native(S::house(name).ok_or_else(|| SetupError::UnknownHouseBot(name.clone()))?)
            }
            BotRef::Wasm(program) => match S::wasm(setup.sandbox, program, instance_seed(seed, seat)) {
                Ok(bot) => Seated::Wasm(bot),
                Err(failure) => Seated::Broken(Broken(failure)),
            },
        })
    }

    /// Why this seat's bot could not start, if it could not.
    pub fn broken(&self) -> Option<&Failure> {
        match self {
            Seated::Broken(Broken(failure)) => Some(failure),
            _ => None,
        }
    }
}

/// Everyone at one game's table, in seat order.
pub struct Table<S: Seating> {
    seats: Vec<Seated<S>>,
}

impl<S: Seating> Table<S> {
    /// Seat the bots of `deal`, each with a fresh instance.
    pub fn seat(deal: Deal<'_>) -> Result<Self, SetupError> {
        let seats = deal
            .seats
            .iter()
            .enumerate()
            .map(|(seat, bot)| Seated::bot(deal.setup, deal.seed, seat, bot))
            .collect::<Result<_, _>>()?;
        Ok(Table { seats })
    }

    /// A table of seats made by the caller (a person among bots).
    pub fn of(seats: Vec<Seated<S>>) -> Self {
        Table { seats }
    }

    /// Play one game with every seat's player. A seat that could not start
    /// and cannot play on forfeits the game before it begins; afterwards
    /// each wasm bot's log and fuel are collected.
    pub fn play(
        mut self,
        events: &mut dyn EventSink,
        game: impl FnOnce(Vec<&mut S::Player>, &mut dyn EventSink) -> Result<Outcome, SetupError>,
    ) -> Result<PlayedGame, SetupError> {
        let n = self.seats.len();
        let count = Arc::new(AtomicU64::new(0));
        let mut events = CountingEvents {
            inner: events,
            count: count.clone(),
        };
        let events: &mut dyn EventSink = &mut events;
        let mut players = Vec::with_capacity(n);
        let mut unplayable = None;
        for (seat, seated) in self.seats.iter_mut().enumerate() {
            match seated {
                Seated::Native(p) => players.push(p.as_mut()),
                Seated::Wasm(w) => {
                    w.follow(count.clone());
                    players.push(w.player())
                }
                Seated::Broken(b) => {
                    let failure = b.0.clone();
                    match S::broken(b) {
                        Some(p) => players.push(p),
                        None => {
                            unplayable.get_or_insert((seat, failure));
                        }
                    }
                }
            }
        }
        if let Some((seat, failure)) = unplayable {
            return Ok(PlayedGame::forfeit_at_start(n, seat, failure, events));
        }
        let outcome = game(players, events)?;
        let reports = self
            .seats
            .iter()
            .map(|s| match s {
                Seated::Wasm(w) => Some(w.report()),
                _ => None,
            })
            .collect();
        Ok(PlayedGame::with_reports(outcome, reports))
    }
}

/// A player whose answers are judged under the run's rule for illegal moves
/// before the game sees them (see [`IllegalMoves`]); each game's adapter
/// says what is legal.
pub struct Strict<'a, P: ?Sized> {
    /// The player.
    pub player: &'a mut P,
    /// What an illegal move costs.
    pub rule: IllegalMoves,
    /// Answers the rules did not allow that the game played on under the course's rule.
    pub illegal: u32,
}

impl<P: ?Sized> Strict<'_, P> {
    /// Judge an answer under the run's rule (see [`arena_core::judge`]); under the
    /// course's rule an answer the rules do not allow is counted, for the
    /// gradebook, and passed on for the game's own rule to judge.
    pub fn judge<T>(
        &mut self,
        answer: T,
        is_legal: impl FnOnce(&T) -> bool,
        describe: impl FnOnce(&T) -> String,
    ) -> Result<T, Failure> {
        match self.rule {
            IllegalMoves::Forfeit => arena_core::judge(self.rule, answer, is_legal, describe),
            IllegalMoves::Course => {
                if !is_legal(&answer) {
                    self.illegal += 1;
                }
                Ok(answer)
            }
        }
    }
}

/// Every player of a table, judged under `rule`.
pub fn strict<P: ?Sized>(players: Vec<&mut P>, rule: IllegalMoves) -> Vec<Strict<'_, P>> {
    players
        .into_iter()
        .map(|player| Strict {
            player,
            rule,
            illegal: 0,
        })
        .collect()
}

/// `outcome` with each seat's count of illegal answers played on.
pub fn counted<P: ?Sized>(mut outcome: Outcome, players: &[Strict<'_, P>]) -> Outcome {
    outcome.illegal = players.iter().map(|p| p.illegal).collect();
    outcome
}

/// The players of a game with a fixed number of seats, or the run's mistake
/// if another number reached it.
pub fn exactly<'a, const N: usize, P: ?Sized>(
    title: &str,
    players: Vec<&'a mut P>,
) -> Result<[&'a mut P; N], SetupError> {
    let n = players.len();
    players
        .try_into()
        .map_err(|_| SetupError::Seats(format!("{title} is played by {N}, not {n}")))
}

/// A duel's table with a person in `seat` against the one bot of
/// `opponents`, with that bot's name; or the run's mistake in one line
/// (`example` is a house bot the hint names). `person` is made with the
/// opponent's name, for games whose terminal player says it.
pub fn person_against_one<S: Seating>(
    setup: &GameSetup<'_>,
    seed: u64,
    seat: Seat,
    opponents: &[(String, BotRef)],
    (title, example): (&str, &str),
    person: impl FnOnce(&str) -> Box<S::Player>,
) -> Result<(Table<S>, String), SetupError> {
    let [(name, bot)] = opponents else {
        return Err(SetupError::Opponents(format!(
            "{title} needs one opponent: --vs BOT (for example --vs {example})"
        )));
    };
    if seat > 1 {
        return Err(SetupError::Opponents(format!("{title} has seats 0 and 1")));
    }
    let opponent = Seated::<S>::bot(setup, seed, 1 - seat, bot)?;
    if let Some(failure) = opponent.broken() {
        return Err(SetupError::Opponents(format!(
            "{name} could not start: {}",
            failure.detail
        )));
    }
    let person = Seated::Native(person(name));
    let seats = if seat == 0 {
        vec![person, opponent]
    } else {
        vec![opponent, person]
    };
    Ok((Table::of(seats), name.clone()))
}
