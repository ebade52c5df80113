//! En Garde bots: implement [`Bot`] and export it with
//! [`export!`](crate::export)`(en_garde, YourBot)`.
//!
//! Positions are absolute spaces 0..=22. Seat 0 starts on 0 and moves
//! forward towards 22; seat 1 starts on 22 and moves forward towards 0.
//! The rules are in `docs/rules/en-garde.md`. The arena sends the legal
//! moves in the view ([`View::legal_moves`]); the other helpers on [`View`]
//! call the arena's own rules ([`arena_games::en_garde`]).

use crate::__private::Export;
use arena_games::{Seat, en_garde as rules};

crate::world_bindings!("en-garde", additional_derives: [PartialEq, Eq]);

pub use bindings::arena::bots::en_garde_types::{
    Direction, FencerMove as Move, GameInfo, PlayedMove, RoundInfo, RulesVariant as Variant, View,
};
/// Spaces on the strip.
pub use rules::STRIP_LENGTH;

/// An En Garde bot. One value is created per game, when the game starts.
pub trait Bot: 'static {
    /// A game starts: `info` says your seat, the variant and your random seed.
    fn new(info: &GameInfo) -> Self;
    /// A round starts (positions reset, fresh deal). Optional.
    fn start_round(&mut self, _info: &RoundInfo) {}
    /// Choose your move. Only asked when you have at least one legal move.
    fn choose_move(&mut self, view: &View) -> Move;
}

impl From<Direction> for rules::Direction {
    fn from(direction: Direction) -> Self {
        match direction {
            Direction::Forward => rules::Direction::Forward,
            Direction::Backward => rules::Direction::Backward,
        }
    }
}

impl From<rules::Direction> for Direction {
    fn from(direction: rules::Direction) -> Self {
        match direction {
            rules::Direction::Forward => Direction::Forward,
            rules::Direction::Backward => Direction::Backward,
        }
    }
}

impl From<Move> for rules::Move {
    fn from(mv: Move) -> Self {
        rules::Move {
            card: mv.card,
            direction: mv.direction.into(),
        }
    }
}

impl From<rules::Move> for Move {
    fn from(mv: rules::Move) -> Self {
        Move {
            card: mv.card,
            direction: mv.direction.into(),
        }
    }
}

impl View {
    fn my_seat(&self) -> Seat {
        Seat::from(self.seat)
    }

    /// Where `mv` would land, if it stays on the strip.
    pub fn landing(&self, mv: &Move) -> Option<u8> {
        rules::landing(self.my_seat(), self.my_position, (*mv).into())
    }

    /// Whether `mv` is legal: the card is in hand, it stays on the strip and does not pass the opponent.
    pub fn is_legal(&self, mv: &Move) -> bool {
        rules::check_move(
            self.my_seat(),
            &self.hand,
            self.my_position,
            self.opponent_position,
            (*mv).into(),
        )
        .is_ok()
    }

    /// Every distinct legal move: cards ascending, forward before backward
    /// (the same order the arena's house bots use). Never empty when you are
    /// asked for a move.
    ///
    /// The arena computes this list with its rules and sends it in the view
    /// (the `legal_moves` field): reading it costs nothing.
    pub fn legal_moves(&self) -> &[Move] {
        &self.legal_moves
    }

    /// The distance between the fencers after `mv` (0 means a hit; `u8::MAX` off the strip).
    pub fn distance_after(&self, mv: &Move) -> u8 {
        rules::distance_after(self.my_seat(), self.my_position, self.opponent_position, (*mv).into())
    }

    /// The distance between the fencers now.
    pub fn distance(&self) -> u8 {
        self.my_position.abs_diff(self.opponent_position)
    }
}

impl<B: Bot> bindings::Guest for Export<B> {
    fn start_game(info: GameInfo) {
        Export::start(B::new(&info));
    }

    fn start_round(info: RoundInfo) {
        Export::<B>::with(|bot| bot.start_round(&info));
    }

    fn choose_move(view: View) -> Move {
        Export::<B>::with(|bot| bot.choose_move(&view)).expect("choose-move called before start-game")
    }
}
