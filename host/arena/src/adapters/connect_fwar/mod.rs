//! ConnectFwar in the arena: what the game is, how its player is seated,
//! and one bindings module per world version its bots may target.

pub mod human;
pub mod since_v0_1;

use crate::games::connect_fwar::{self as rules, Player};
use crate::games::{EventSink, Kind, Outcome, Seat};
use crate::human::Terminal;
use crate::runner::{BotRef, GameDef, GameSetup, PlayedGame, Seated, Seating, SetupError, Table, WasmBot, exactly};
use crate::sandbox::{BotState, WorldSpec};
use wasmtime::Store;

/// ConnectFwar as the runner sees it.
pub struct ConnectFwar;

impl Seating for ConnectFwar {
    type Player = dyn Player;
    type Bindings = since_v0_1::Bindings;
    fn house(name: &str) -> Option<Box<dyn Player>> {
        rules::house_bot(name).map(|b| b as Box<dyn Player>)
    }
    fn bind(store: &mut Store<BotState>, instance: &wasmtime::component::Instance) -> wasmtime::Result<Self::Bindings> {
        since_v0_1::Bindings::new(store, instance)
    }
    fn wasm(bot: &mut WasmBot<Self::Bindings>) -> &mut Self::Player {
        bot
    }
}

impl GameDef for ConnectFwar {
    fn name(&self) -> &'static str {
        "connect-fwar"
    }
    fn title(&self) -> &'static str {
        "ConnectFwar"
    }
    fn kind(&self) -> Kind {
        Kind::Solitaire
    }
    fn world(&self) -> &'static WorldSpec {
        &since_v0_1::WORLD
    }
    fn seats(&self) -> std::ops::RangeInclusive<usize> {
        1..=1
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
            let [player] = exactly(self.title(), players)?;
            Ok(rules::play_game(seed, player, events))
        })
    }

    fn has_human_play(&self) -> bool {
        true
    }

    fn play_human(
        &self,
        _setup: &GameSetup<'_>,
        seed: u64,
        term: Terminal,
        _seat: Seat,
        opponents: &[(String, BotRef)],
    ) -> Result<Outcome, SetupError> {
        if !opponents.is_empty() {
            return Err(SetupError::Opponents("ConnectFwar is played alone: drop --vs".into()));
        }
        let mut narrator = human::Narrator { term: term.clone() };
        let person = Seated::Native(Box::new(human::HumanPlayer::new(term)) as Box<dyn Player>);
        let played = Table::<Self>::of(vec![person]).play(&mut narrator, |players, events| {
            let [player] = exactly(self.title(), players)?;
            Ok(rules::play_game(seed, player, events))
        })?;
        Ok(played.outcome)
    }
}
