//! Every event a ConnectFwar game records, as `docs/replay-format.md` lists
//! them: the replay writer, verification and terminal play read this type.

use super::rules::{Board, Card, Line};
use arena_core::Forfeit;
use serde::{Deserialize, Serialize};

/// One event of a ConnectFwar game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", rename_all_fields = "kebab-case")]
pub enum Event {
    /// The game begins.
    GameStart {
        /// The game's seed.
        seed: u64,
        /// Every card in drawing order.
        deck: Vec<Card>,
    },
    /// A card was drawn and the bot answered.
    Draw {
        /// The card.
        card: Card,
        /// The column the bot named (any integer).
        answer: i32,
        /// Where the card went, or `None` when it was discarded.
        placed: Option<usize>,
        /// Cards left in the deck.
        deck_remaining: usize,
        /// The line of four the card made, if any.
        connected: Option<Line>,
    },
    /// The bot forfeited the game.
    Forfeit(Forfeit),
    /// The game ended.
    GameEnd {
        /// The score.
        score: i64,
        /// The final board.
        board: Board,
    },
}

/// Leave out of `event` (a replay line) what the viewer may not see: the
/// order of the deck (rule 6.1), unless they may see the game's one seat,
/// whose cards every draw shows in turn anyway.
pub fn hide(event: &mut serde_json::Value, sees: &dyn Fn(arena_core::Seat) -> bool) {
    if !sees(0)
        && let Some(deck) = event.get_mut("deck")
    {
        arena_core::hide_cards(deck);
    }
}
