//! The rules of ConnectFwar (see `docs/rules/connect-fwar.md`).

use arena_core::{Failure, derive_seed};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Columns on the board.
pub const COLUMNS: usize = 4;
/// Cards a column holds.
pub const HEIGHT: usize = 4;
/// Cards in the deck.
pub const DECK_SIZE: usize = 52;
/// The best possible score: the cards left after four placements.
pub const BEST_SCORE: i64 = (DECK_SIZE - 4) as i64;

/// A suit, numbered 1-4 as in the course.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Suit {
    /// 1
    Spades = 1,
    /// 2
    Hearts = 2,
    /// 3
    Clubs = 3,
    /// 4
    Diamonds = 4,
}

impl Suit {
    /// Every suit, by number.
    pub const ALL: [Suit; 4] = [Suit::Spades, Suit::Hearts, Suit::Clubs, Suit::Diamonds];

    /// The suit's number, 1-4.
    pub fn number(self) -> u8 {
        self as u8
    }

    /// The suit numbered `n`, 1-4.
    pub fn from_number(n: u8) -> Option<Suit> {
        Suit::ALL.get(usize::from(n).checked_sub(1)?).copied()
    }

    /// The suit's symbol, or its letter when the terminal cannot show symbols.
    pub fn glyph(self, unicode: bool) -> char {
        match (self, unicode) {
            (Suit::Spades, true) => '♠',
            (Suit::Hearts, true) => '♥',
            (Suit::Clubs, true) => '♣',
            (Suit::Diamonds, true) => '♦',
            (Suit::Spades, false) => 'S',
            (Suit::Hearts, false) => 'H',
            (Suit::Clubs, false) => 'C',
            (Suit::Diamonds, false) => 'D',
        }
    }
}

/// A playing card: rank 1 (Ace) to 13 (King), and a suit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Card {
    /// 1 = Ace, 11 = Jack, 12 = Queen, 13 = King.
    pub rank: u8,
    /// The suit.
    pub suit: Suit,
}

impl Card {
    /// The card's name: `A♠`, `10♥`, `Q♦` (letters for suits without unicode).
    pub fn label(self, unicode: bool) -> String {
        let rank = match self.rank {
            1 => "A".to_string(),
            11 => "J".to_string(),
            12 => "Q".to_string(),
            13 => "K".to_string(),
            r => r.to_string(),
        };
        format!("{rank}{}", self.suit.glyph(unicode))
    }
}

/// Whether two neighbouring cards connect (rule 4.2): same suit, same rank, or ranks one apart.
pub fn connects(a: Card, b: Card) -> bool {
    a.suit == b.suit || a.rank == b.rank || a.rank.abs_diff(b.rank) == 1
}

/// Whether a card of `rank` may go on a column holding `height` cards, the
/// top one of rank `top_rank` (rule 3.2): room left, and a rank at least the top card's.
pub fn fits_on(height: usize, top_rank: Option<u8>, rank: u8) -> bool {
    height < HEIGHT && top_rank.is_none_or(|top| rank >= top)
}

/// A full, fresh deck in a fixed order (suit by suit, Ace to King).
pub fn fresh_deck() -> Vec<Card> {
    Suit::ALL
        .iter()
        .flat_map(|&suit| (1..=13).map(move |rank| Card { rank, suit }))
        .collect()
}

/// The four columns, each listed bottom-up.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Board {
    /// Column `c` holds its cards from the bottom up.
    pub columns: [Vec<Card>; COLUMNS],
}

/// A line of four cells: row, column or diagonal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Line {
    /// Row `index` (0 = bottom), left to right.
    Row {
        /// Which row.
        index: usize,
    },
    /// Column `index`, bottom to top.
    Column {
        /// Which column.
        index: usize,
    },
    /// From bottom-left to top-right.
    Diagonal,
    /// From top-left to bottom-right.
    AntiDiagonal,
}

impl Line {
    /// Every line checked, in the order they are checked.
    pub fn all() -> impl Iterator<Item = Line> {
        (0..HEIGHT)
            .map(|index| Line::Row { index })
            .chain((0..COLUMNS).map(|index| Line::Column { index }))
            .chain([Line::Diagonal, Line::AntiDiagonal])
    }

    /// The (column, row) cells of the line, in order.
    pub fn cells(self) -> [(usize, usize); 4] {
        match self {
            Line::Row { index } => [(0, index), (1, index), (2, index), (3, index)],
            Line::Column { index } => [(index, 0), (index, 1), (index, 2), (index, 3)],
            Line::Diagonal => [(0, 0), (1, 1), (2, 2), (3, 3)],
            Line::AntiDiagonal => [(0, 3), (1, 2), (2, 1), (3, 0)],
        }
    }
}

impl Board {
    /// The card at `column`, `row` (0 = bottom), if any.
    pub fn cell(&self, column: usize, row: usize) -> Option<Card> {
        self.columns.get(column)?.get(row).copied()
    }

    /// Whether `card` may go into `column` (rule 3.2): room left, and a rank
    /// at least that of the column's top card.
    pub fn fits(&self, column: usize, card: Card) -> bool {
        self.columns
            .get(column)
            .is_some_and(|col| fits_on(col.len(), col.last().map(|top| top.rank), card.rank))
    }

    /// The first connected four (rule 4), if the board has one.
    pub fn connected_four(&self) -> Option<Line> {
        Line::all().find(|line| {
            let cards: Vec<Card> = line.cells().iter().filter_map(|&(c, r)| self.cell(c, r)).collect();
            cards.len() == 4 && cards.windows(2).all(|w| connects(w[0], w[1]))
        })
    }
}

/// Sent once per game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameInfo {
    /// The player's own random seed.
    pub seed: u64,
}

/// What the player sees when choosing a column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// The card just drawn.
    pub card: Card,
    /// The board.
    pub board: Board,
    /// Cards left in the deck after this draw.
    pub deck_remaining: u8,
    /// Cards discarded so far, oldest first.
    pub discard: Vec<Card>,
}

impl View {
    /// The columns the drawn card fits in, left to right.
    pub fn fitting_columns(&self) -> Vec<usize> {
        (0..COLUMNS).filter(|&c| self.board.fits(c, self.card)).collect()
    }
}

/// A ConnectFwar player: a house bot, a wasm bot, or a person.
pub trait Player {
    /// A game starts.
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure>;
    /// Name a column for the drawn card. Any number is an answer: one that is
    /// not a column where the card fits discards the card (rule 3.3).
    fn choose_column(&mut self, view: &View) -> Result<i32, Failure>;
}

/// The deck for game `seed`, in drawing order (next card last).
pub fn shuffled_deck(seed: u64) -> Vec<Card> {
    let mut deck = fresh_deck();
    deck.shuffle(&mut ChaCha8Rng::seed_from_u64(derive_seed(seed, 1)));
    deck
}

/// The player's own seed for game `seed`.
pub fn player_seed(seed: u64) -> u64 {
    derive_seed(seed, 0x5EA7_0000)
}
