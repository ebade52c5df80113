//! President for bots built against `arena:bots@0.1.0`. Only the newest
//! version's module talks to the rules: this one converts between that
//! module's types and its own (a 0.1 view is a 0.2 view without its legal
//! plays), so a rule, and the check of an answer, is written once.

use super::since_v0_2::{self as newest, wit as new};
use crate::adapters::world;
use crate::games::Failure;
use crate::games::president::{Card, GameInfo, PresidentPlayer, View};
use crate::runner::WasmBot;
use crate::sandbox::Call;

world!(
    "../../wit/0.1.0",
    "president",
    v0_1,
    PerCall,
    President,
    PresidentIndices,
    ["start-game", "play"]
);
use bindings::arena::bots::president_types as wit;

impl From<new::Card> for wit::Card {
    fn from(c: new::Card) -> Self {
        wit::Card {
            rank: c.rank,
            suit: c.suit,
        }
    }
}

impl From<wit::Card> for new::Card {
    fn from(c: wit::Card) -> Self {
        new::Card {
            rank: c.rank,
            suit: c.suit,
        }
    }
}

fn cards(cards: Vec<new::Card>) -> Vec<wit::Card> {
    cards.into_iter().map(wit::Card::from).collect()
}

impl From<new::GameInfo> for wit::GameInfo {
    fn from(i: new::GameInfo) -> Self {
        wit::GameInfo {
            seat: i.seat,
            players: i.players,
            seed: i.seed,
            last_positions: i.last_positions,
            gave: cards(i.gave),
            received: cards(i.received),
        }
    }
}

impl From<new::View> for wit::View {
    fn from(v: new::View) -> Self {
        wit::View {
            seat: v.seat,
            hand: cards(v.hand),
            card_counts: v.card_counts,
            last_positions: v.last_positions,
            positions: v.positions,
            state: cards(v.state),
            state_seat: v.state_seat,
            round: v
                .round
                .into_iter()
                .map(|t| wit::Turn {
                    seat: t.seat,
                    cards: t.cards.map(cards),
                })
                .collect(),
        }
    }
}

impl PresidentPlayer for WasmBot<Bindings> {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        let info = wit::GameInfo::from(newest::wit_game_info(info));
        self.call(Call::Start, |b, store| b.call_start_game(store, &info))
    }

    fn play(&mut self, view: &View) -> Result<Option<Vec<Card>>, Failure> {
        let view = wit::View::from(newest::wit_view(view, false));
        let answer = self.call(Call::Move, |b, store| b.call_play(store, &view))?;
        newest::rules_play(answer.map(|cards| cards.into_iter().map(new::Card::from).collect()))
    }
}
