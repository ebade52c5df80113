//! ConnectFwar bots: implement [`Bot`] and export it with
//! [`export!`](crate::export)`(connect_fwar, YourBot)`.
//!
//! Each turn you get the card just drawn and name a column 0-3. A column
//! where the card does not fit (or any other number) discards it. The rules
//! are in `docs/rules/connect-fwar.md`. The arena sends the columns where the
//! card fits ([`View::fitting_columns`]); the other helpers here call the
//! arena's own rules ([`arena_games::connect_fwar`]).

use crate::__private::Export;
use arena_games::connect_fwar as rules;

crate::world_bindings!("connect-fwar", additional_derives: [PartialEq, Eq]);

pub use bindings::arena::bots::connect_fwar_types::{Card, GameInfo, View};
pub use rules::{COLUMNS, HEIGHT};

/// Suit numbers, as in `Card::suit`.
pub mod suit {
    use super::rules::Suit;

    /// Spades.
    pub const SPADES: u8 = Suit::Spades as u8;
    /// Hearts.
    pub const HEARTS: u8 = Suit::Hearts as u8;
    /// Clubs.
    pub const CLUBS: u8 = Suit::Clubs as u8;
    /// Diamonds.
    pub const DIAMONDS: u8 = Suit::Diamonds as u8;
}

/// A ConnectFwar bot. One value is created per game.
pub trait Bot: 'static {
    /// A game starts; `info.seed` is yours for random choices.
    fn new(info: &GameInfo) -> Self;
    /// The column (0-3) for `view.card`. Anything else discards the card.
    fn choose_column(&mut self, view: &View) -> i32;
}

/// The card as the rules know it, if its suit is one of the four.
pub(crate) fn rules_card(card: &Card) -> Option<rules::Card> {
    rules::Suit::from_number(card.suit).map(|suit| rules::Card { rank: card.rank, suit })
}

/// Whether two neighbouring cards connect: same suit, same rank, or ranks
/// one apart. A card whose suit is not 1-4 connects to nothing.
pub fn connects(a: &Card, b: &Card) -> bool {
    match (rules_card(a), rules_card(b)) {
        (Some(a), Some(b)) => rules::connects(a, b),
        _ => false,
    }
}

impl View {
    /// Whether the drawn card fits in `column`: room left, and a rank at least
    /// the top card's (one of [`fitting_columns`](View::fitting_columns)).
    pub fn fits(&self, column: usize) -> bool {
        i32::try_from(column).is_ok_and(|c| self.legal_columns.contains(&c))
    }

    /// The columns the drawn card fits in, left to right (maybe none: then
    /// any answer discards it). Each is an answer you can return as it is.
    ///
    /// The arena computes them with its rules and sends them in the view
    /// (the `legal_columns` field): reading them costs nothing.
    pub fn fitting_columns(&self) -> &[i32] {
        &self.legal_columns
    }

    /// The card at `column`, `row` (0 = bottom), if any.
    pub fn cell(&self, column: usize, row: usize) -> Option<&Card> {
        self.columns.get(column)?.get(row)
    }
}

impl<B: Bot> bindings::Guest for Export<B> {
    fn start_game(info: GameInfo) {
        Export::start(B::new(&info));
    }

    fn choose_column(view: View) -> i32 {
        Export::<B>::with(|bot| bot.choose_column(&view)).expect("choose-column called before start-game")
    }
}
