//! Sugargame in the arena: what the game is, how its players are seated,
//! and one bindings module per world version its bots may target.

pub mod since_v0_1;

use crate::games::sugar::{self as rules, SugarPlayer};
use crate::games::{EventSink, Kind};
use crate::runner::{BotRef, GameDef, GameSetup, PlayedGame, Seating, SetupError, Table, WasmBot, exactly};
use crate::sandbox::{BotState, WorldSpec};
use wasmtime::Store;

/// Sugargame as the runner sees it.
pub struct Sugar;

impl Seating for Sugar {
    type Player = dyn SugarPlayer;
    type Bindings = since_v0_1::Bindings;
    fn house(name: &str) -> Option<Box<dyn SugarPlayer>> {
        rules::house_bot(name).map(|b| b as Box<dyn SugarPlayer>)
    }
    fn bind(store: &mut Store<BotState>, instance: &wasmtime::component::Instance) -> wasmtime::Result<Self::Bindings> {
        since_v0_1::Bindings::new(store, instance)
    }
    fn wasm(bot: &mut WasmBot<Self::Bindings>) -> &mut Self::Player {
        bot
    }
}

impl GameDef for Sugar {
    fn name(&self) -> &'static str {
        "sugar"
    }
    fn title(&self) -> &'static str {
        "Sugargame"
    }
    fn kind(&self) -> Kind {
        Kind::Duel
    }
    fn world(&self) -> &'static WorldSpec {
        &since_v0_1::WORLD
    }
    fn seats(&self) -> std::ops::RangeInclusive<usize> {
        2..=2
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
        Table::<Self>::seat(setup, seed, seats)?.play(events, |players, events| {
            let [a, b] = exactly(self.title(), players)?;
            Ok(rules::play_game(seed, [a, b], events))
        })
    }
}
