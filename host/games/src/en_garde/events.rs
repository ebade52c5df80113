//! Every event an En Garde game records, as `docs/replay-format.md` lists
//! them: the replay writer, verification and terminal play read this type.

use super::rules::{Direction, PlayedMove, RoundEnd, Variant};
use arena_core::{Forfeit, Seat};
use serde::{Deserialize, Serialize};

/// One event of an En Garde game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", rename_all_fields = "kebab-case")]
pub enum Event {
    /// The game begins.
    GameStart {
        /// The variant played.
        variant: Variant,
        /// The game's seed.
        seed: u64,
    },
    /// A round is dealt.
    RoundStart {
        /// The round, from 1.
        round: u32,
        /// Who moves first.
        first_to_move: Seat,
        /// Each seat's space.
        positions: [u8; 2],
        /// Each seat's hand.
        hands: [Vec<u8>; 2],
        /// The deck, next card first.
        deck: Vec<u8>,
        /// The scores before the round.
        scores: [u8; 2],
    },
    /// A seat played a card on its turn.
    Move {
        /// Who moved.
        seat: Seat,
        /// The card played.
        card: u8,
        /// Which way.
        direction: Direction,
        /// The move was an attack the defender parried (rule 7.1).
        parried: bool,
        /// The spaces after it.
        positions: [u8; 2],
        /// Cards left in the deck.
        deck_remaining: usize,
        /// The hands after the move and its draws (never with a last-chance attack).
        hands: [Vec<u8>; 2],
    },
    /// The deck ran out and the opponent of the last drawer attacked (rule 7.3).
    LastChance {
        /// The attacker.
        seat: Seat,
        /// The card of the distance.
        card: u8,
        /// Always forward.
        direction: Direction,
        /// The defender parried it.
        parried: bool,
        /// The spaces after it.
        positions: [u8; 2],
        /// The hands after it.
        hands: [Vec<u8>; 2],
    },
    /// A round ended.
    RoundEnd {
        /// How, and who scored.
        #[serde(flatten)]
        end: RoundEnd,
        /// The round, from 1.
        round: u32,
        /// The scores after it.
        scores: [u8; 2],
        /// The spaces at its end.
        positions: [u8; 2],
        /// The last move a seat played on its turn.
        last_move: Option<PlayedMove>,
    },
    /// A seat forfeited the game.
    Forfeit(Forfeit),
    /// The game ended.
    GameEnd {
        /// The final scores.
        scores: [u8; 2],
        /// The winner, if any.
        winner: Option<Seat>,
        /// Rounds played.
        rounds: u32,
    },
}

/// Leave out of `event` (a replay line) what the viewer may not see: the
/// hand of every seat `sees` refuses and the order of the deck, which no
/// bot ever sees (rule 9.1). How many cards each holds stays.
pub fn hide(event: &mut serde_json::Value, sees: &dyn Fn(Seat) -> bool) {
    arena_core::hide_per_seat(event, "hands", sees);
    if !(sees(0) && sees(1))
        && let Some(deck) = event.get_mut("deck")
    {
        arena_core::hide_cards(deck);
    }
}
