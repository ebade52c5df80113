//! The ConnectFwar adapter: rules' views to the `connect-fwar` world and back.

use crate::games::Failure;
use crate::games::connect_fwar::{self as rules, Card, GameInfo, Player, View};
use crate::runner::{BotRef, GameDef, GameSetup, PlayedGame, SetupError};
use crate::sandbox::{BotProgram, BotState, Instance, Sandbox, WorldSpec};
use wasmtime::component::InstancePre;

mod bindings {
    wasmtime::component::bindgen!({ path: "../wit", world: "connect-fwar" });
}
use bindings::arena::bots::connect_fwar_types as wit;

/// The world ConnectFwar bots must target.
pub static WORLD: WorldSpec = WorldSpec {
    name: "arena:bots/connect-fwar@0.1.0",
    exports: &["start-game", "choose-column"],
    typecheck,
};

fn typecheck(pre: &InstancePre<BotState>) -> wasmtime::Result<()> {
    bindings::ConnectFwarIndices::new(pre).map(|_| ())
}

fn wit_card(c: &Card) -> wit::Card {
    wit::Card {
        rank: c.rank,
        suit: c.suit.number(),
    }
}

fn wit_cards(cards: &[Card]) -> Vec<wit::Card> {
    cards.iter().map(wit_card).collect()
}

/// A wasm bot playing ConnectFwar through the sandbox.
pub struct WasmPlayer {
    instance: Instance<bindings::ConnectFwar>,
}

impl WasmPlayer {
    /// A fresh instance of `program` for one game.
    pub fn new(sandbox: &Sandbox, program: &BotProgram, seed: u64) -> Result<Self, Failure> {
        let instance = sandbox.instantiate(program, seed, |store, instance| {
            bindings::ConnectFwar::new(store, instance)
        })?;
        Ok(WasmPlayer { instance })
    }
}

impl Player for WasmPlayer {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        let info = wit::GameInfo { seed: info.seed };
        self.instance.call(|b, store| b.call_start_game(store, info))
    }

    fn choose_column(&mut self, view: &View) -> Result<i32, Failure> {
        let view = wit::View {
            card: wit_card(&view.card),
            columns: view.board.columns.iter().map(|c| wit_cards(c)).collect(),
            deck_remaining: view.deck_remaining,
            discard: wit_cards(&view.discard),
        };
        self.instance.call(|b, store| b.call_choose_column(store, &view))
    }
}

/// ConnectFwar as the runner sees it.
pub struct ConnectFwar;

impl GameDef for ConnectFwar {
    fn name(&self) -> &'static str {
        "connect-fwar"
    }
    fn title(&self) -> &'static str {
        "ConnectFwar"
    }
    fn world(&self) -> &'static WorldSpec {
        &WORLD
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

    fn has_human_play(&self) -> bool {
        true
    }

    fn play_human(
        &self,
        _setup: &GameSetup<'_>,
        seed: u64,
        term: crate::human::Terminal,
        _seat: crate::games::Seat,
        opponents: &[(String, BotRef)],
    ) -> Result<crate::games::Outcome, SetupError> {
        if !opponents.is_empty() {
            return Err(SetupError::Opponents("ConnectFwar is played alone: drop --vs".into()));
        }
        let mut narrator = crate::human::connect_fwar::Narrator { term: term.clone() };
        let mut person = crate::human::connect_fwar::HumanPlayer::new(term);
        Ok(rules::play_game(seed, &mut person, &mut narrator))
    }

    fn play(
        &self,
        setup: &GameSetup<'_>,
        seed: u64,
        seats: &[&BotRef],
        events: &mut dyn crate::games::EventSink,
    ) -> PlayedGame {
        let Some(bot) = seats.first() else {
            let failure = Failure::new(
                crate::games::ForfeitReason::InvalidAnswer,
                "ConnectFwar needs one player",
            );
            return PlayedGame::forfeit_at_start(1, 0, failure, events);
        };
        match bot {
            BotRef::House(name) => match rules::house_bot(name) {
                Some(mut player) => PlayedGame::native(rules::play_game(seed, player.as_mut(), events)),
                None => {
                    let failure = Failure::new(crate::games::ForfeitReason::InvalidAnswer, "unknown house bot");
                    PlayedGame::forfeit_at_start(1, 0, failure, events)
                }
            },
            BotRef::Wasm(program) => {
                match WasmPlayer::new(setup.sandbox, program, crate::runner::instance_seed(seed, 0)) {
                    Ok(mut player) => {
                        let outcome = rules::play_game(seed, &mut player, events);
                        PlayedGame::with_reports(outcome, vec![Some(player.instance.report())])
                    }
                    Err(failure) => PlayedGame::forfeit_at_start(1, 0, failure, events),
                }
            }
        }
    }
}
