//! President for bots built against `arena:bots@0.2.0`: the world's WIT
//! types to the current rules' types and back.

use crate::adapters::world;
use crate::games::president::{self as rules, Card, GameInfo, PresidentPlayer, Suit, View};
use crate::games::{Failure, ForfeitReason};
use crate::runner::WasmBot;
use crate::sandbox::Call;

world!(
    "../../wit/0.2.0",
    "president",
    v0_2,
    Banked,
    President,
    PresidentIndices,
    ["start-game", "play"]
);
pub(super) use bindings::arena::bots::president_types as wit;

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

/// The game's start in this version's types (older versions convert from it).
pub(super) fn wit_game_info(info: &GameInfo) -> wit::GameInfo {
    wit::GameInfo {
        seat: info.seat as u8,
        players: info.players as u8,
        seed: info.seed,
        last_positions: info.last_positions.clone(),
        gave: wit_cards(&info.gave),
        received: wit_cards(&info.received),
    }
}

/// The rules' view in this version's types. Older versions convert from it
/// with `legal` false: their worlds have no legal list, so it is not built
/// for them on every move.
pub(super) fn wit_view(view: &View, legal: bool) -> wit::View {
    wit::View {
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
        legal_plays: if legal {
            view.legal_plays().iter().map(|p| wit_cards(p)).collect()
        } else {
            Vec::new()
        },
    }
}

/// A bot's answer as the rules' play: a pass, or cards that are cards (an
/// answer that names no card, or more cards than a deck holds, forfeits).
pub(super) fn rules_play(answer: Option<Vec<wit::Card>>) -> Result<Option<Vec<Card>>, Failure> {
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

impl PresidentPlayer for WasmBot<Bindings> {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        let info = wit_game_info(info);
        self.call(Call::Start, |b, store| b.call_start_game(store, &info))
    }

    fn play(&mut self, view: &View) -> Result<Option<Vec<Card>>, Failure> {
        let view = wit_view(view, true);
        let answer = self.call(Call::Move, |b, store| b.call_play(store, &view))?;
        rules_play(answer)
    }
}
