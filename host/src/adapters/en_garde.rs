//! The En Garde adapter: converts the rules' views into the `en-garde`
//! world's WIT types, calls the bot in the sandbox, converts its answer back.

use crate::games::en_garde::{self as rules, Direction, Fencer, GameInfo, Move, RoundInfo, Variant, View};
use crate::games::{EventSink, Failure, ForfeitReason};
use crate::runner::{BotRef, GameDef, GameSetup, PlayedGame, SetupError};
use crate::sandbox::{BotState, Instance, Sandbox, WorldSpec};
use wasmtime::component::InstancePre;

mod bindings {
    wasmtime::component::bindgen!({ path: "../wit", world: "en-garde" });
}
use bindings::arena::bots::en_garde_types as wit;

/// The world En Garde bots must target.
pub static WORLD: WorldSpec = WorldSpec {
    name: "arena:bots/en-garde@0.1.0",
    exports: &["start-game", "start-round", "choose-move"],
    typecheck,
};

fn typecheck(pre: &InstancePre<BotState>) -> wasmtime::Result<()> {
    bindings::EnGardeIndices::new(pre).map(|_| ())
}

fn wit_variant(v: Variant) -> wit::RulesVariant {
    match v {
        Variant::Simple => wit::RulesVariant::Simple,
        Variant::Standard => wit::RulesVariant::Standard,
    }
}

fn wit_direction(d: Direction) -> wit::Direction {
    match d {
        Direction::Forward => wit::Direction::Forward,
        Direction::Backward => wit::Direction::Backward,
    }
}

fn small(n: usize) -> u8 {
    n as u8
}

fn wit_view(v: &View) -> wit::View {
    wit::View {
        seat: small(v.seat),
        variant: wit_variant(v.variant),
        round: v.round,
        hand: v.hand.clone(),
        my_position: v.my_position,
        opponent_position: v.opponent_position,
        my_score: v.my_score,
        opponent_score: v.opponent_score,
        deck_remaining: v.deck_remaining,
        discard: v.discard.clone(),
        opponent_hand_size: v.opponent_hand_size,
        last_move: v.last_move.map(|m| wit::PlayedMove {
            seat: small(m.seat),
            card: m.mv.card,
            direction: wit_direction(m.mv.direction),
            parried: m.parried,
        }),
    }
}

/// A wasm bot playing En Garde through the sandbox.
pub struct WasmFencer {
    instance: Instance<bindings::EnGarde>,
}

impl WasmFencer {
    /// A fresh instance of `program` for one game.
    pub fn new(sandbox: &Sandbox, program: &crate::sandbox::BotProgram, seed: u64) -> Result<Self, Failure> {
        let instance = sandbox.instantiate(program, seed, |store, instance| bindings::EnGarde::new(store, instance))?;
        Ok(WasmFencer { instance })
    }
}

impl Fencer for WasmFencer {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        let info = wit::GameInfo {
            seat: small(info.seat),
            variant: wit_variant(info.variant),
            points_to_win: info.points_to_win,
            strip_length: info.strip_length,
            seed: info.seed,
        };
        self.instance.call(|b, store| b.call_start_game(store, info))
    }

    fn start_round(&mut self, info: &RoundInfo) -> Result<(), Failure> {
        let info = wit::RoundInfo {
            round: info.round,
            first_to_move: small(info.first_to_move),
            scores: info.scores.to_vec(),
        };
        self.instance.call(|b, store| b.call_start_round(store, &info))
    }

    fn choose_move(&mut self, view: &View) -> Result<Move, Failure> {
        let view = wit_view(view);
        let mv = self.instance.call(|b, store| b.call_choose_move(store, &view))?;
        let direction = match mv.direction {
            wit::Direction::Forward => Direction::Forward,
            wit::Direction::Backward => Direction::Backward,
        };
        Ok(Move {
            card: mv.card,
            direction,
        })
    }
}

/// En Garde as the runner sees it.
pub struct EnGarde;

impl EnGarde {
    fn config(setup: &GameSetup<'_>) -> Result<rules::Config, SetupError> {
        let variant = match setup.variant.as_deref() {
            None | Some("simple") => Variant::Simple,
            Some("standard") => Variant::Standard,
            Some(other) => return Err(SetupError::UnknownVariant(other.to_string())),
        };
        Ok(rules::Config {
            variant,
            ..rules::Config::default()
        })
    }
}

impl GameDef for EnGarde {
    fn name(&self) -> &'static str {
        "en-garde"
    }
    fn title(&self) -> &'static str {
        "En Garde"
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
        &["simple", "standard"]
    }
    fn check_setup(&self, setup: &GameSetup<'_>) -> Result<(), SetupError> {
        Self::config(setup).map(|_| ())
    }

    fn has_human_play(&self) -> bool {
        true
    }

    fn play_human(
        &self,
        setup: &GameSetup<'_>,
        seed: u64,
        term: crate::human::Terminal,
        seat: crate::games::Seat,
        opponents: &[(String, BotRef)],
    ) -> Result<crate::games::Outcome, SetupError> {
        let config = Self::config(setup)?;
        let [(name, bot)] = opponents else {
            return Err(SetupError::Opponents(
                "En Garde needs one opponent: --vs BOT (for example --vs house:aggressive)".into(),
            ));
        };
        if seat > 1 {
            return Err(SetupError::Opponents("En Garde has seats 0 and 1".into()));
        }
        let mut opponent: Box<dyn Fencer> = match bot {
            BotRef::House(n) => match rules::house_bot(n) {
                Some(b) => b,
                None => return Err(SetupError::Opponents(format!("no house bot `{n}`"))),
            },
            BotRef::Wasm(program) => {
                match WasmFencer::new(setup.sandbox, program, crate::runner::instance_seed(seed, 1 - seat)) {
                    Ok(f) => Box::new(f),
                    Err(failure) => {
                        return Err(SetupError::Opponents(format!(
                            "{name} could not start: {}",
                            failure.detail
                        )));
                    }
                }
            }
        };
        let mut narrator = crate::human::en_garde::Narrator {
            term: term.clone(),
            me: seat,
            opponent: name.clone(),
        };
        let mut person = crate::human::en_garde::HumanFencer::new(term);
        let players: [&mut dyn Fencer; 2] = if seat == 0 {
            [&mut person, opponent.as_mut()]
        } else {
            [opponent.as_mut(), &mut person]
        };
        Ok(rules::play_game(config, seed, players, &mut narrator))
    }

    fn play(&self, setup: &GameSetup<'_>, seed: u64, seats: &[&BotRef], events: &mut dyn EventSink) -> PlayedGame {
        let config = Self::config(setup).unwrap_or_default();
        let mut wasm: Vec<Option<WasmFencer>> = Vec::with_capacity(2);
        let mut house: Vec<Option<Box<dyn Fencer + Send>>> = Vec::with_capacity(2);
        let mut load_failure = None;
        for (seat, bot) in seats.iter().enumerate() {
            match bot {
                BotRef::House(name) => {
                    house.push(rules::house_bot(name));
                    wasm.push(None);
                }
                BotRef::Wasm(program) => {
                    house.push(None);
                    match WasmFencer::new(setup.sandbox, program, crate::runner::instance_seed(seed, seat)) {
                        Ok(f) => wasm.push(Some(f)),
                        Err(failure) => {
                            load_failure.get_or_insert((seat, failure));
                            wasm.push(None);
                        }
                    }
                }
            }
        }
        if let Some((seat, failure)) = load_failure {
            return PlayedGame::forfeit_at_start(seats.len(), seat, failure, events);
        }
        let outcome = {
            let mut players: Vec<&mut dyn Fencer> = Vec::with_capacity(2);
            for (w, h) in wasm.iter_mut().zip(house.iter_mut()) {
                match (w, h) {
                    (Some(w), _) => players.push(w),
                    (None, Some(h)) => players.push(h.as_mut()),
                    (None, None) => {
                        let failure = Failure::new(ForfeitReason::InvalidAnswer, "unknown house bot");
                        return PlayedGame::forfeit_at_start(seats.len(), players.len(), failure, events);
                    }
                }
            }
            let [a, b]: [&mut dyn Fencer; 2] = match players.try_into() {
                Ok(p) => p,
                Err(_) => {
                    let failure = Failure::new(ForfeitReason::InvalidAnswer, "En Garde needs exactly two players");
                    return PlayedGame::forfeit_at_start(seats.len(), 0, failure, events);
                }
            };
            rules::play_game(config, seed, [a, b], events)
        };
        let reports = wasm.iter().map(|w| w.as_ref().map(|w| w.instance.report())).collect();
        PlayedGame::with_reports(outcome, reports)
    }
}
