//! ConnectFwar for bots built against `arena:bots@0.2.0`: the world's WIT
//! types to the current rules' types and back.

use crate::adapters::world;
use crate::games::Failure;
use crate::games::connect_fwar::{Card, GameInfo, Player, View};
use crate::runner::WasmBot;
use crate::sandbox::Call;

world!(
    "../../wit/0.2.0",
    "connect-fwar",
    v0_2,
    Banked,
    ConnectFwar,
    ConnectFwarIndices,
    ["start-game", "choose-column"]
);
pub(super) use bindings::arena::bots::connect_fwar_types as wit;

fn wit_card(c: &Card) -> wit::Card {
    wit::Card {
        rank: c.rank,
        suit: c.suit.number(),
    }
}

fn wit_cards(cards: &[Card]) -> Vec<wit::Card> {
    cards.iter().map(wit_card).collect()
}

/// The game's start in this version's types (older versions convert from it).
pub(super) fn wit_info(info: &GameInfo) -> wit::GameInfo {
    wit::GameInfo { seed: info.seed }
}

/// The rules' view in this version's types. Older versions convert from it
/// with `legal` false: their worlds have no legal list, so it is not built
/// for them on every move.
pub(super) fn wit_view(view: &View, legal: bool) -> wit::View {
    wit::View {
        card: wit_card(&view.card),
        columns: view.board.columns.iter().map(|c| wit_cards(c)).collect(),
        deck_remaining: view.deck_remaining,
        discard: wit_cards(&view.discard),
        legal_columns: if legal {
            view.fitting_columns().into_iter().map(|c| c as i32).collect()
        } else {
            Vec::new()
        },
    }
}

impl Player for WasmBot<Bindings> {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        let info = wit_info(info);
        self.call(Call::Start, |b, store| b.call_start_game(store, info))
    }

    fn choose_column(&mut self, view: &View) -> Result<i32, Failure> {
        let view = wit_view(view, true);
        self.call(Call::Move, |b, store| b.call_choose_column(store, &view))
    }
}
