//! Every event a Sugargame game records, as `docs/replay-format.md` lists
//! them: the replay writer, verification and terminal play read this type.

use super::rules::{Action, Agent, Grid, Illegal};
use arena_core::{Forfeit, Seat};
use serde::{Deserialize, Serialize};

/// One event of a Sugargame game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", rename_all_fields = "kebab-case")]
pub enum Event {
    /// The game begins.
    GameStart {
        /// The game's seed.
        seed: u64,
        /// Sugar each cell grows back to, `[y][x]`.
        capacity: Grid,
        /// The two peaks of the landscape, `(x, y)`.
        peaks: [(u8, u8); 2],
        /// The steps after which the game ends.
        max_steps: u32,
    },
    /// Both players placed their agents.
    Placement {
        /// Every agent.
        agents: Vec<Agent>,
        /// The sugar on the grid.
        sugar: Grid,
    },
    /// A seat acted.
    Step {
        /// The step, from 1.
        step: u32,
        /// Who acted.
        seat: Seat,
        /// What it did.
        action: Action,
        /// Sugar collected by it.
        collected: u8,
        /// Agents it killed.
        killed: Vec<u8>,
        /// Every agent after it.
        agents: Vec<Agent>,
        /// The sugar after it.
        sugar: Grid,
        /// The scores after it.
        scores: [i64; 2],
    },
    /// A seat answered an illegal action and loses.
    Illegal {
        /// The step it would have been.
        step: u32,
        /// Who.
        seat: Seat,
        /// The action.
        action: Action,
        /// Why it is illegal.
        why: Illegal,
    },
    /// A seat forfeited the game.
    Forfeit(Forfeit),
    /// The game ended.
    GameEnd {
        /// The final scores.
        scores: [i64; 2],
        /// The winner, if any.
        winner: Option<Seat>,
        /// Steps played.
        steps: u32,
        /// Sugar collected per seat.
        collected: [i64; 2],
        /// Kills per seat.
        kills: [i64; 2],
    },
}

/// Leave out of `event` what the viewer may not see: nothing, since every
/// bot sees the whole grid (nothing of Sugar is hidden).
pub fn hide(_event: &mut serde_json::Value, _sees: &dyn Fn(Seat) -> bool) {}
