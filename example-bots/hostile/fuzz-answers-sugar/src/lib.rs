//! Fuzzing fixture: every answer is random from the game's seed, over the
//! whole value space of its type: a placement of any length (0-40) of any
//! bytes (often a shuffle of the right cells, so the game goes on to play
//! moves), and actions naming any agent id 0-255 in any direction, or a
//! pass; half the actions are legal ones and most others name an agent
//! 0-9, so games reach later steps.
//! `tests/fuzz.rs` plays it thousands of times: the host must end every
//! game with a result or a typed forfeit, the same on every run.

use arena_bot_sdk::sugar::{Action, AgentMove, Bot, Direction, PlaceInfo, View};
use arena_bot_sdk::{Rng, RngExt, SeedableRng};

struct Fuzz {
    rng: Rng,
}

const DIRECTIONS: [Direction; 4] = [Direction::Up, Direction::Down, Direction::Left, Direction::Right];

impl Bot for Fuzz {
    fn new(info: &PlaceInfo) -> Self {
        Fuzz {
            rng: Rng::seed_from_u64(info.seed),
        }
    }

    fn place(&mut self, _info: &PlaceInfo) -> Vec<u8> {
        match self.rng.random_range(0..6u32) {
            0 => {
                let len = self.rng.random_range(0..=40u32);
                (0..len).map(|_| self.rng.random::<u8>()).collect()
            }
            1 => {
                let len = self.rng.random_range(0..=8u32);
                (0..len).map(|_| self.rng.random_range(0..7u8)).collect()
            }
            _ => {
                let mut xs: Vec<u8> = (0..5).collect();
                for i in (1..xs.len()).rev() {
                    let j = self.rng.random_range(0..(i + 1) as u32) as usize;
                    xs.swap(i, j);
                }
                xs
            }
        }
    }

    fn choose_action(&mut self, view: &View) -> Action {
        let legal = &view.legal_actions;
        if !legal.is_empty() && self.rng.random::<bool>() {
            return legal[self.rng.random_range(0..legal.len() as u32) as usize];
        }
        if self.rng.random_range(0..16u32) == 0 {
            return Action::Pass;
        }
        let agent = if self.rng.random_range(0..8u32) == 0 {
            self.rng.random::<u8>()
        } else {
            self.rng.random_range(0..10u8)
        };
        let direction = DIRECTIONS[self.rng.random_range(0..4u32) as usize];
        Action::Move(AgentMove { agent, direction })
    }
}

arena_bot_sdk::export!(sugar, Fuzz);
