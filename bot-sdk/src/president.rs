//! President bots: implement [`Bot`] and export it with
//! [`export!`](crate::export)`(president, YourBot)`.
//!
//! Ranks: 2-10, Jack 11, Queen 12, King 13, Ace 14; suits 1 Diamonds < 2
//! Clubs < 3 Hearts < 4 Spades; a Joker is rank 0, suit 0. 3s are wildcards,
//! 2s contest any round, a Joker beats everything. The rules are in
//! `docs/rules/president.md`. The arena sends every legal play in the view
//! ([`View::legal_plays`]; [`View::simple_plays`] and [`View::is_legal`] read
//! them); the other helpers call the arena's own rules
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

    /// Every legal play now (a pass is not listed: it is legal exactly when
    /// you do not lead), each play's cards weakest first, the plays weakest
    /// first: one face value (3 low, Ace high; wildcards alone count as
    /// Aces), then 2s, then the Joker; fewer cards first, then by the highest
    /// suit.
    ///
    /// The arena computes this list with its rules and sends it in the view
    /// (the `legal_plays` field): reading it costs nothing.
    pub fn legal_plays(&self) -> &[Vec<Card>] {
        &self.legal_plays
    }

    /// Whether `cards` are in your hand and may be played now (in any order):
    /// whether they are one of [`legal_plays`](View::legal_plays).
    pub fn is_legal(&self, cards: &[Card]) -> bool {
        // A legal play holds distinct cards: as many cards, each of them in
        // `cards`, means the same cards.
        self.legal_plays
            .iter()
            .any(|play| play.len() == cards.len() && play.iter().all(|c| cards.contains(c)))
    }

    /// The plays the house bots consider: for each rank held, its 1 to n
    /// lowest-suited cards (no wildcards added), and a Joker; only the legal
    /// ones, weakest first (the same list and order as the arena's): ranks 4
    /// to Ace, then 3s, then 2s, then the Joker; fewer cards first.
    ///
    /// Picked from [`legal_plays`](View::legal_plays), without asking the rules.
    pub fn simple_plays(&self) -> Vec<Vec<Card>> {
        // `legal_plays` lists them in this order, except that wildcards alone
        // count as Aces there: they move to just after the Aces.
        let mut plays = Vec::new();
        let mut wilds = Vec::new();
        let mut after_aces = None;
        for play in &self.legal_plays {
            match self.simple_rank(play) {
                Some(WILD) => wilds.push(play.clone()),
                Some(rank) => {
                    if rank == TWO || rank == 0 {
                        after_aces.get_or_insert(plays.len());
                    }
                    plays.push(play.clone());
                }
                None => {}
            }
        }
        let at = after_aces.unwrap_or(plays.len());
        plays.splice(at..at, wilds);
        plays
    }

    /// If `play` is one of the plays [`simple_plays`](View::simple_plays)
    /// lists, its rank (0 for the Joker).
    fn simple_rank(&self, play: &[Card]) -> Option<u8> {
        let (first, rest) = play.split_first()?;
        if first.rank == 0 {
            return rest.is_empty().then_some(0);
        }
        if rest.iter().any(|c| c.rank != first.rank) {
            return None;
        }
        // The lowest-suited cards of the rank: none held below the play's
        // highest suit is left out.
        let top = play.iter().map(|c| c.suit).max().unwrap_or(0);
        let held = self
            .hand
            .iter()
            .filter(|c| c.rank == first.rank && c.suit <= top)
            .count();
        (held == play.len()).then_some(first.rank)
    }

    /// The view as the arena's rules see it ([`arena_games::president::View`]),
    /// whose methods (`state_play`, `is_legal`, `legal_plays`, ...) are the
    /// referee's own. It copies the whole view: convert once per move and
    /// reuse it.
    pub fn to_rules(&self) -> rules::View {
        rules::View::from(self)
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
