//! ConnectFwar for bots built against `arena:bots@0.1.0`. Only the newest
//! version's module talks to the rules: this one converts that module's
//! types into its own (a 0.1 view is a 0.2 view without its legal columns),
//! so a rule is written once.

use super::since_v0_2::{self as newest, wit as new};
use crate::adapters::world;
use crate::games::Failure;
use crate::games::connect_fwar::{GameInfo, Player, View};
use crate::runner::WasmBot;
use crate::sandbox::Call;

world!(
    "../../wit/0.1.0",
    "connect-fwar",
    v0_1,
    PerCall,
    ConnectFwar,
    ConnectFwarIndices,
    ["start-game", "choose-column"]
);
use bindings::arena::bots::connect_fwar_types as wit;

impl From<new::Card> for wit::Card {
    fn from(c: new::Card) -> Self {
        wit::Card {
            rank: c.rank,
            suit: c.suit,
        }
    }
}

impl From<new::GameInfo> for wit::GameInfo {
    fn from(i: new::GameInfo) -> Self {
        wit::GameInfo { seed: i.seed }
    }
}

impl From<new::View> for wit::View {
    fn from(v: new::View) -> Self {
        let cards = |cards: Vec<new::Card>| cards.into_iter().map(wit::Card::from).collect();
        wit::View {
            card: v.card.into(),
            columns: v.columns.into_iter().map(cards).collect(),
            deck_remaining: v.deck_remaining,
            discard: cards(v.discard),
        }
    }
}

impl Player for WasmBot<Bindings> {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        let info = wit::GameInfo::from(newest::wit_info(info));
        self.call(Call::Start, |b, store| b.call_start_game(store, info))
    }

    fn choose_column(&mut self, view: &View) -> Result<i32, Failure> {
        let view = wit::View::from(newest::wit_view(view, false));
        self.call(Call::Move, |b, store| b.call_choose_column(store, &view))
    }
}
