//! The Sugargame adapter: rules' views to the `sugar` world and back.

use crate::games::sugar::{self as rules, Action, Direction, Grid, PlaceInfo, SugarPlayer, View};
use crate::games::{EventSink, Failure, ForfeitReason};
use crate::runner::{BotRef, GameDef, GameSetup, PlayedGame};
use crate::sandbox::{BotProgram, BotState, Instance, Sandbox, WorldSpec};
use wasmtime::component::InstancePre;

mod bindings {
    wasmtime::component::bindgen!({ path: "../wit", world: "sugar" });
}
use bindings::arena::bots::sugar_types as wit;

/// The world Sugargame bots must target.
pub static WORLD: WorldSpec = WorldSpec {
    name: "arena:bots/sugar@0.1.0",
    exports: &["place", "choose-action"],
    typecheck,
};

fn typecheck(pre: &InstancePre<BotState>) -> wasmtime::Result<()> {
    bindings::SugarIndices::new(pre).map(|_| ())
}

fn flat(grid: &Grid) -> Vec<u8> {
    grid.iter().flatten().copied().collect()
}

fn wit_action(a: &Action) -> wit::Action {
    match *a {
        Action::Pass => wit::Action::Pass,
        Action::Move { agent, direction } => wit::Action::Move(wit::AgentMove {
            agent,
            direction: match direction {
                Direction::Up => wit::Direction::Up,
                Direction::Down => wit::Direction::Down,
                Direction::Left => wit::Direction::Left,
                Direction::Right => wit::Direction::Right,
            },
        }),
    }
}

/// A wasm bot playing Sugargame through the sandbox.
pub struct WasmSugarPlayer {
    instance: Instance<bindings::Sugar>,
}

impl WasmSugarPlayer {
    /// A fresh instance of `program` for one game.
    pub fn new(sandbox: &Sandbox, program: &BotProgram, seed: u64) -> Result<Self, Failure> {
        let instance = sandbox.instantiate(program, seed, |store, instance| bindings::Sugar::new(store, instance))?;
        Ok(WasmSugarPlayer { instance })
    }
}

impl SugarPlayer for WasmSugarPlayer {
    fn place(&mut self, info: &PlaceInfo) -> Result<Vec<u8>, Failure> {
        let info = wit::PlaceInfo {
            seat: info.seat as u8,
            agents: info.agents.clone(),
            seed: info.seed,
            sugar: flat(&info.sugar),
        };
        self.instance.call(|b, store| b.call_place(store, &info))
    }

    fn choose(&mut self, view: &View) -> Result<Action, Failure> {
        let view = wit::View {
            seat: view.seat as u8,
            step: view.step,
            sugar: flat(&view.sugar),
            agents: view
                .agents
                .iter()
                .map(|a| wit::Agent {
                    id: a.id,
                    owner: a.owner as u8,
                    x: a.x,
                    y: a.y,
                })
                .collect(),
            my_score: view.my_score,
            opponent_score: view.opponent_score,
            last_actions: view.last_actions.iter().map(|a| a.as_ref().map(wit_action)).collect(),
        };
        let action = self.instance.call(|b, store| b.call_choose_action(store, &view))?;
        Ok(match action {
            wit::Action::Pass => Action::Pass,
            wit::Action::Move(m) => Action::Move {
                agent: m.agent,
                direction: match m.direction {
                    wit::Direction::Up => Direction::Up,
                    wit::Direction::Down => Direction::Down,
                    wit::Direction::Left => Direction::Left,
                    wit::Direction::Right => Direction::Right,
                },
            },
        })
    }
}

enum Seated {
    House(Box<dyn SugarPlayer + Send>),
    Wasm(WasmSugarPlayer),
}

impl Seated {
    fn player(&mut self) -> &mut dyn SugarPlayer {
        match self {
            Seated::House(p) => p.as_mut(),
            Seated::Wasm(w) => w,
        }
    }
}

/// Sugargame as the runner sees it.
pub struct Sugar;

impl GameDef for Sugar {
    fn name(&self) -> &'static str {
        "sugar"
    }
    fn title(&self) -> &'static str {
        "Sugargame"
    }
    fn world(&self) -> &'static WorldSpec {
        &WORLD
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

    fn play(&self, setup: &GameSetup<'_>, seed: u64, seats: &[&BotRef], events: &mut dyn EventSink) -> PlayedGame {
        let mut seated = Vec::with_capacity(2);
        for (seat, bot) in seats.iter().enumerate() {
            let player = match bot {
                BotRef::House(name) => rules::house_bot(name)
                    .map(Seated::House)
                    .ok_or_else(|| Failure::new(ForfeitReason::InvalidAnswer, format!("no house bot `{name}`"))),
                BotRef::Wasm(program) => {
                    WasmSugarPlayer::new(setup.sandbox, program, crate::runner::instance_seed(seed, seat))
                        .map(Seated::Wasm)
                }
            };
            match player {
                Ok(p) => seated.push(p),
                Err(failure) => return PlayedGame::forfeit_at_start(seats.len(), seat, failure, events),
            }
        }
        let outcome = match seated.as_mut_slice() {
            [a, b] => rules::play_game(seed, [a.player(), b.player()], events),
            _ => {
                let failure = Failure::new(ForfeitReason::InvalidAnswer, "Sugargame needs exactly two players");
                return PlayedGame::forfeit_at_start(seats.len(), 0, failure, events);
            }
        };
        let reports = seated
            .iter()
            .map(|s| {
                if let Seated::Wasm(w) = s {
                    Some(w.instance.report())
                } else {
                    None
                }
            })
            .collect();
        PlayedGame::with_reports(outcome, reports)
    }
}
