//! Every event a President game records, as `docs/replay-format.md` lists
//! them: the replay writer, verification and terminal play read this type.

use super::rules::{Card, Illegal, Meets};
use arena_core::{Forfeit, Seat};
use serde::{Deserialize, Serialize};

/// One event of a President game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", rename_all_fields = "kebab-case")]
pub enum Event {
    /// The game begins, after the exchange.
    GameStart {
        /// The game's seed.
        seed: u64,
        /// Players at the table.
        players: usize,
        /// The hands after the exchange, by seat.
        hands: Vec<Vec<Card>>,
        /// The previous game's positions, if this game follows one.
        last_positions: Option<Vec<u32>>,
        /// Per seat: the cards it gave and received.
        exchange: Vec<(Vec<Card>, Vec<Card>)>,
        /// Who leads.
        leader: Seat,
    },
    /// A seat played or passed.
    Turn {
        /// Who.
        seat: Seat,
        /// The cards, or `None` for a pass.
        cards: Option<Vec<Card>>,
        /// How the play met the state, or `None` for a pass.
        meets: Option<Meets>,
        /// Cards per seat after it.
        counts: Vec<usize>,
        /// Finishing positions so far (0 while playing).
        positions: Vec<u32>,
        /// The cards to beat after it, if any.
        state: Option<Vec<Card>>,
    },
    /// A seat answered an illegal play and is put out as the last finisher.
    Illegal {
        /// Who.
        seat: Seat,
        /// What it answered.
        cards: Option<Vec<Card>>,
        /// Why it is illegal.
        why: Illegal,
    },
    /// A seat forfeited and is put out as the last finisher.
    Forfeit(Forfeit),
    /// The game ended.
    GameEnd {
        /// Finishing positions by seat.
        positions: Vec<u32>,
        /// Titles by seat.
        titles: Vec<String>,
    },
}

/// Leave out of `event` (a replay line) what the viewer may not see: the
/// hand of every seat `sees` refuses, and the cards it gave and received
/// (a bot knows only its own, rule 9.1). How many cards each holds stays;
/// plays are public.
pub fn hide(event: &mut serde_json::Value, sees: &dyn Fn(Seat) -> bool) {
    arena_core::hide_per_seat(event, "hands", sees);
    arena_core::hide_per_seat(event, "exchange", sees);
}
