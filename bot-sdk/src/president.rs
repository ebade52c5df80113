//! President bots: implement [`Bot`] and export it with
//! [`export!`](crate::export)`(president, YourBot)`.
//!
//! Ranks: 2-10, Jack 11, Queen 12, King 13, Ace 14; suits 1 Diamonds < 2
//! Clubs < 3 Hearts < 4 Spades; a Joker is rank 0, suit 0. 3s are wildcards,
//! 2s contest any round, a Joker beats everything. The rules are in
//! `docs/rules/president.md`; the helpers here call the arena's own
//! ([`arena_games::president`]).

use crate::__private::Export;
use arena_games::{Seat, president as rules};

crate::world_bindings!("president", additional_derives: [PartialEq, Eq]);

pub use bindings::arena::bots::president_types::{Card, GameInfo, Turn, View};
/// What a set of cards plays as.
pub use rules::Play;
pub use rules::{ACE, TWO, WILD};

/// A President bot. One value is created per game.
pub trait Bot: 'static {
    /// A game starts (after the exchange): make your bot.
    fn new(info: &GameInfo) -> Self;
    /// Your turn: cards from your hand, or `None` to pass (not when you lead).
    fn play(&mut self, view: &View) -> Option<Vec<Card>>;
}

/// The card as the rules know it, if it is one of the deck (as the arena reads answers).
pub(crate) fn rules_card(card: &Card) -> Option<rules::Card> {
    match (card.rank, card.suit) {
        (0, 0) => Some(rules::Card::Joker),
        (rank @ TWO..=ACE, suit) => rules::Suit::from_number(suit).map(|suit| rules::Card::new(rank, suit)),
        _ => None,
    }
}

/// The cards as the rules know them, if every one is a card of the deck.
fn rules_cards(cards: &[Card]) -> Option<Vec<rules::Card>> {
    cards.iter().map(rules_card).collect()
}

/// The cards of the deck among `cards` (the arena sends no others).
fn known_cards(cards: &[Card]) -> Vec<rules::Card> {
    cards.iter().filter_map(rules_card).collect()
}

impl From<rules::Card> for Card {
    fn from(card: rules::Card) -> Self {
        match card {
            rules::Card::Joker => Card { rank: 0, suit: 0 },
            rules::Card::Normal { rank, suit } => Card { rank, suit: suit as u8 },
        }
    }
}

impl From<&View> for rules::View {
    /// The view as the rules see it.
    fn from(view: &View) -> Self {
        rules::View {
            seat: Seat::from(view.seat),
            hand: known_cards(&view.hand),
            card_counts: view.card_counts.clone(),
            last_positions: view.last_positions.clone(),
            positions: view.positions.clone(),
            state: known_cards(&view.state),
            state_seat: view.state_seat.map(Seat::from),
            round: view
                .round
                .iter()
                .map(|t| rules::Turn {
                    seat: Seat::from(t.seat),
                    cards: t.cards.as_deref().map(known_cards),
                })
                .collect(),
        }
    }
}

impl Card {
    /// Whether this is a Joker.
    pub fn is_joker(&self) -> bool {
        rules_card(self) == Some(rules::Card::Joker)
    }

    /// How good a card is to hold: Joker, then 2s, then 3s, then Ace down to 4;
    /// ties by suit. `(0, 0)` for a card that is not one of the deck.
    pub fn strength(&self) -> (u8, u8) {
        rules_card(self).map_or((0, 0), rules::Card::strength)
    }
}

/// Read cards as a play, or `None` if they are not one.
pub fn classify(cards: &[Card]) -> Option<Play> {
    rules::classify(&rules_cards(cards)?).ok()
}

/// Whether `play` may be played on `state` (`None`: you lead).
pub fn can_play(play: Play, state: Option<Play>) -> bool {
    rules::meets(play, state).is_ok()
}

impl View {
    /// Whether you lead this round.
    pub fn leading(&self) -> bool {
        self.state.is_empty()
    }

    /// Whether `cards` are in your hand and may be played now.
    pub fn is_legal(&self, cards: &[Card]) -> bool {
        rules_cards(cards).is_some_and(|cards| rules::View::from(self).is_legal(Some(&cards)))
    }

    /// The plays the house bots consider: for each rank held, its 1 to n
    /// lowest-suited cards (no wildcards added), and a Joker; only the legal
    /// ones, weakest first (the same list and order as the arena's).
    pub fn simple_plays(&self) -> Vec<Vec<Card>> {
        rules::View::from(self)
            .simple_plays()
            .into_iter()
            .map(|play| play.into_iter().map(Card::from).collect())
            .collect()
    }
}

impl<B: Bot> bindings::Guest for Export<B> {
    fn start_game(info: GameInfo) {
        Export::start(B::new(&info));
    }

    fn play(view: View) -> Option<Vec<Card>> {
        Export::<B>::with(|bot| bot.play(&view)).expect("play called before start-game")
    }
}
