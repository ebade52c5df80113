//! The President adapter: rules' views to the `president` world and back.

use crate::games::president::{self as rules, Card, GameInfo, PresidentPlayer, Suit, View};
use crate::games::{EventSink, Failure, ForfeitReason};
use crate::runner::{BotRef, GameDef, GameSetup, PlayedGame};
use crate::sandbox::{BotProgram, BotState, Instance, Sandbox, WorldSpec};
use serde_json::Value;
use wasmtime::component::InstancePre;

mod bindings {
    wasmtime::component::bindgen!({ path: "../wit", world: "president" });
}
use bindings::arena::bots::president_types as wit;

/// The world President bots must target.
pub static WORLD: WorldSpec = WorldSpec {
    name: "arena:bots/president@0.1.0",
    exports: &["start-game", "play"],
    typecheck,
};

fn typecheck(pre: &InstancePre<BotState>) -> wasmtime::Result<()> {
    bindings::PresidentIndices::new(pre).map(|_| ())
}

fn wit_card(c: &Card) -> wit::Card {
    match *c {
        Card::Joker => wit::Card { rank: 0, suit: 0 },
        Card::Normal { rank, suit } => wit::Card { rank, suit: suit as u8 },
    }
}

fn wit_cards(cards: &[Card]) -> Vec<wit::Card> {
    cards.iter().map(wit_card).collect()
}

/// A card from the world, if it is one (an answer the host cannot read forfeits).
fn card(c: &wit::Card) -> Option<Card> {
    match (c.rank, c.suit) {
        (0, 0) => Some(Card::Joker),
        (rank @ rules::TWO..=rules::ACE, suit) => Suit::from_number(suit).map(|suit| Card::Normal { rank, suit }),
        _ => None,
    }
}

/// A wasm bot playing President through the sandbox.
pub struct WasmPresidentPlayer {
    instance: Instance<bindings::President>,
}

impl WasmPresidentPlayer {
    /// A fresh instance of `program` for one game.
    pub fn new(sandbox: &Sandbox, program: &BotProgram, seed: u64) -> Result<Self, Failure> {
        let instance = sandbox.instantiate(program, seed, |store, instance| {
            bindings::President::new(store, instance)
        })?;
        Ok(WasmPresidentPlayer { instance })
    }
}

impl PresidentPlayer for WasmPresidentPlayer {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        let info = wit::GameInfo {
            seat: info.seat as u8,
            players: info.players as u8,
            seed: info.seed,
            last_positions: info.last_positions.clone(),
            gave: wit_cards(&info.gave),
            received: wit_cards(&info.received),
        };
        self.instance.call(|b, store| b.call_start_game(store, &info))
    }

    fn play(&mut self, view: &View) -> Result<Option<Vec<Card>>, Failure> {
        let view = wit::View {
            seat: view.seat as u8,
            hand: wit_cards(&view.hand),
            card_counts: view.card_counts.clone(),
            last_positions: view.last_positions.clone(),
            positions: view.positions.clone(),
            state: wit_cards(&view.state),
            state_seat: view.state_seat.map(|s| s as u8),
            round: view
                .round
                .iter()
                .map(|t| wit::Turn {
                    seat: t.seat as u8,
                    cards: t.cards.as_deref().map(wit_cards),
                })
                .collect(),
        };
        let answer = self.instance.call(|b, store| b.call_play(store, &view))?;
        let Some(cards) = answer else { return Ok(None) };
        if cards.len() > rules::full_deck().len() {
            return Err(Failure::new(
                ForfeitReason::InvalidAnswer,
                format!("{} cards in one move", cards.len()),
            ));
        }
        cards
            .iter()
            .map(|c| {
                card(c).ok_or_else(|| {
                    Failure::new(
                        ForfeitReason::InvalidAnswer,
                        format!("rank {} suit {} is not a card", c.rank, c.suit),
                    )
                })
            })
            .collect::<Result<Vec<Card>, Failure>>()
            .map(Some)
    }
}

enum Seated {
    House(Box<dyn PresidentPlayer + Send>),
    Wasm(WasmPresidentPlayer),
    /// A wasm bot that could not even start: it fails every call.
    Broken(Failure),
}

impl PresidentPlayer for Seated {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        match self {
            Seated::House(p) => p.start_game(info),
            Seated::Wasm(w) => w.start_game(info),
            Seated::Broken(f) => Err(f.clone()),
        }
    }
    fn play(&mut self, view: &View) -> Result<Option<Vec<Card>>, Failure> {
        match self {
            Seated::House(p) => p.play(view),
            Seated::Wasm(w) => w.play(view),
            Seated::Broken(f) => Err(f.clone()),
        }
    }
}

fn seat_players(setup: &GameSetup<'_>, seed: u64, seats: &[&BotRef]) -> Vec<Seated> {
    seats
        .iter()
        .enumerate()
        .map(|(seat, bot)| match bot {
            BotRef::House(name) => match rules::house_bot(name) {
                Some(p) => Seated::House(p),
                None => Seated::Broken(Failure::new(
                    ForfeitReason::InvalidAnswer,
                    format!("no house bot `{name}`"),
                )),
            },
            BotRef::Wasm(program) => {
                match WasmPresidentPlayer::new(setup.sandbox, program, crate::runner::instance_seed(seed, seat)) {
                    Ok(w) => Seated::Wasm(w),
                    Err(f) => Seated::Broken(f),
                }
            }
        })
        .collect()
}

fn play_one(
    setup: &GameSetup<'_>,
    seed: u64,
    last: Option<Vec<u32>>,
    seats: &[&BotRef],
    events: &mut dyn EventSink,
) -> (PlayedGame, Vec<u32>) {
    let mut seated = seat_players(setup, seed, seats);
    let record = {
        let mut players: Vec<&mut dyn PresidentPlayer> =
            seated.iter_mut().map(|s| s as &mut dyn PresidentPlayer).collect();
        rules::play_game(seed, last, &mut players, events)
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
    (PlayedGame::with_reports(record.outcome, reports), record.positions)
}

/// President as the runner sees it.
pub struct President;

impl GameDef for President {
    fn name(&self) -> &'static str {
        "president"
    }
    fn title(&self) -> &'static str {
        "President"
    }
    fn world(&self) -> &'static WorldSpec {
        &WORLD
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

    fn play(&self, setup: &GameSetup<'_>, seed: u64, seats: &[&BotRef], events: &mut dyn EventSink) -> PlayedGame {
        play_one(setup, seed, None, seats, events).0
    }

    fn play_series(
        &self,
        setup: &GameSetup<'_>,
        seeds: &[u64],
        seats: &[&BotRef],
        record: bool,
    ) -> Option<Vec<(PlayedGame, Vec<Value>)>> {
        let mut last: Option<Vec<u32>> = None;
        let mut out = Vec::with_capacity(seeds.len());
        for &seed in seeds {
            let mut events: Vec<Value> = Vec::new();
            let (game, positions) = if record {
                play_one(setup, seed, last.clone(), seats, &mut events)
            } else {
                play_one(setup, seed, last.clone(), seats, &mut crate::games::NoEvents)
            };
            last = Some(positions);
            out.push((game, events));
        }
        Some(out)
    }
}
