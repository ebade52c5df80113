//! President in the arena: what the game is, how its players are seated,
//! and one bindings module per world version its bots may target.

pub mod since_v0_1;

use crate::games::president::{self as rules, Card, GameInfo, PresidentPlayer, View};
use crate::games::{EventSink, Failure, Kind, NoEvents};
use crate::runner::{BotRef, Broken, GameDef, GameSetup, PlayedGame, Seating, SetupError, Table, WasmBot};
use crate::sandbox::{BotState, WorldSpec};
use serde_json::Value;
use wasmtime::Store;

/// President as the runner sees it.
pub struct President;

/// A bot that could not start is put out at its first turn; the table plays on.
impl PresidentPlayer for Broken {
    fn start_game(&mut self, _info: &GameInfo) -> Result<(), Failure> {
        Err(self.0.clone())
    }
    fn play(&mut self, _view: &View) -> Result<Option<Vec<Card>>, Failure> {
        Err(self.0.clone())
    }
}

impl Seating for President {
    type Player = dyn PresidentPlayer;
    type Bindings = since_v0_1::Bindings;
    fn house(name: &str) -> Option<Box<dyn PresidentPlayer>> {
        rules::house_bot(name).map(|b| b as Box<dyn PresidentPlayer>)
    }
    fn bind(store: &mut Store<BotState>, instance: &wasmtime::component::Instance) -> wasmtime::Result<Self::Bindings> {
        since_v0_1::Bindings::new(store, instance)
    }
    fn wasm(bot: &mut WasmBot<Self::Bindings>) -> &mut Self::Player {
        bot
    }
    fn broken(bot: &mut Broken) -> Option<&mut Self::Player> {
        Some(bot)
    }
}

/// Play one game after the finishing order `last` (for the card exchange);
/// also gives this game's finishing order.
fn play_one(
    setup: &GameSetup<'_>,
    seed: u64,
    last: Option<Vec<u32>>,
    seats: &[&BotRef],
    events: &mut dyn EventSink,
) -> Result<(PlayedGame, Vec<u32>), SetupError> {
    let mut positions = Vec::new();
    let played = Table::<President>::seat(setup, seed, seats)?.play(events, |players, events| {
        let mut players: Vec<&mut dyn PresidentPlayer> =
            players.into_iter().map(|p| -> &mut dyn PresidentPlayer { p }).collect();
        let record = rules::play_game(seed, last, &mut players, events);
        positions = record.positions;
        Ok(record.outcome)
    })?;
    Ok((played, positions))
}

impl GameDef for President {
    fn name(&self) -> &'static str {
        "president"
    }
    fn title(&self) -> &'static str {
        "President"
    }
    fn kind(&self) -> Kind {
        Kind::Table
    }
    fn world(&self) -> &'static WorldSpec {
        &since_v0_1::WORLD
    }
    fn seats(&self) -> std::ops::RangeInclusive<usize> {
        rules::PLAYERS
    }
    fn house_bots(&self) -> &'static [(&'static str, &'static str)] {
        rules::HOUSE_BOTS
    }
    fn variants(&self) -> &'static [&'static str] {
        &["standard"]
    }
    fn default_rubric(&self) -> &'static str {
        include_str!("rubric.toml")
    }

    fn play(
        &self,
        setup: &GameSetup<'_>,
        seed: u64,
        seats: &[&BotRef],
        events: &mut dyn EventSink,
    ) -> Result<PlayedGame, SetupError> {
        Ok(play_one(setup, seed, None, seats, events)?.0)
    }

    fn chained(&self) -> bool {
        true
    }

    fn play_series(
        &self,
        setup: &GameSetup<'_>,
        seeds: &[u64],
        seats: &[&BotRef],
        record: bool,
    ) -> Result<Vec<(PlayedGame, Vec<Value>)>, SetupError> {
        let mut last: Option<Vec<u32>> = None;
        let mut out = Vec::with_capacity(seeds.len());
        for &seed in seeds {
            let mut events: Vec<Value> = Vec::new();
            let played = if record {
                play_one(setup, seed, last.clone(), seats, &mut events)
            } else {
                play_one(setup, seed, last.clone(), seats, &mut NoEvents)
            };
            let (game, positions) = played?;
            last = Some(positions);
            out.push((game, events));
        }
        Ok(out)
    }
}
