//! House bots with clearly different styles, each with a wasm twin in
//! `example-bots/rust/sugar/`.

use super::rules::{Action, PlaceInfo, SIZE, SugarPlayer, View};
use arena_core::Failure;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The house bots of Sugargame: name and one-line description.
pub const HOUSE_BOTS: &[(&str, &str)] = &[
    ("random", "a uniformly random legal move, from a random placement"),
    (
        "greedy",
        "takes the most sugar it can reach this move, else heads for the richest cell",
    ),
    (
        "hunter",
        "makes kills when it can, else closes in on the nearest enemy agent",
    ),
];

/// A house bot by name.
pub fn house_bot(name: &str) -> Option<Box<dyn SugarPlayer + Send>> {
    match name {
        "random" => Some(Box::new(RandomMover {
            rng: ChaCha8Rng::seed_from_u64(0),
        })),
        "greedy" => Some(Box::new(Greedy)),
        "hunter" => Some(Box::new(Hunter)),
        _ => None,
    }
}

fn manhattan(a: (u8, u8), b: (u8, u8)) -> u32 {
    u32::from(a.0.abs_diff(b.0)) + u32::from(a.1.abs_diff(b.1))
}

/// The first legal move with the highest `value` (ties: the earliest in move order).
fn best(view: &View, value: impl Fn(u8, (u8, u8)) -> i64) -> Action {
    let mut best: Option<(i64, Action)> = None;
    for (agent, direction, to) in view.legal_moves() {
        let v = value(agent.id, to);
        if best.is_none_or(|(b, _)| v > b) {
            best = Some((
                v,
                Action::Move {
                    agent: agent.id,
                    direction,
                },
            ));
        }
    }
    best.map_or(Action::Pass, |(_, a)| a)
}

/// The penalty for ending a move where two enemies can kill the mover next turn.
const DEADLY: i64 = 100_000;

fn identity(info: &PlaceInfo) -> Vec<u8> {
    (0..info.agents.len() as u8).collect()
}

/// A uniformly random legal move.
pub struct RandomMover {
    rng: ChaCha8Rng,
}

impl SugarPlayer for RandomMover {
    fn place(&mut self, info: &PlaceInfo) -> Result<Vec<u8>, Failure> {
        self.rng = ChaCha8Rng::seed_from_u64(info.seed);
        // An explicit Fisher-Yates with u32 draws: a wasm twin can repeat it exactly.
        let mut xs: Vec<u8> = (0..SIZE).collect();
        for i in (1..xs.len()).rev() {
            let j = self.rng.random_range(0..(i + 1) as u32) as usize;
            xs.swap(i, j);
        }
        Ok(xs)
    }
    fn choose(&mut self, view: &View) -> Result<Action, Failure> {
        let moves = view.legal_moves();
        let (agent, direction, _) = moves[self.rng.random_range(0..moves.len() as u32) as usize];
        Ok(Action::Move {
            agent: agent.id,
            direction,
        })
    }
}

/// Sugar first: the most sugar now, else the shortest way to the richest free cell.
pub struct Greedy;

impl SugarPlayer for Greedy {
    fn place(&mut self, info: &PlaceInfo) -> Result<Vec<u8>, Failure> {
        Ok(identity(info))
    }
    fn choose(&mut self, view: &View) -> Result<Action, Failure> {
        // The richest cell without an agent, first in reading order.
        let mut target = (0, 0);
        let mut most = 0;
        for y in 0..SIZE {
            for x in 0..SIZE {
                let s = view.sugar[y as usize][x as usize];
                if s > most && view.agent_at(x, y).is_none() {
                    most = s;
                    target = (x, y);
                }
            }
        }
        Ok(best(view, |_, to| {
            let deadly = if view.enemies_next_to(to.0, to.1) >= 2 {
                DEADLY
            } else {
                0
            };
            i64::from(view.sugar[to.1 as usize][to.0 as usize]) * 100 - i64::from(manhattan(to, target)) - deadly
        }))
    }
}

/// Fighter: the move that kills most, else the one ending nearest an enemy.
pub struct Hunter;

impl SugarPlayer for Hunter {
    fn place(&mut self, info: &PlaceInfo) -> Result<Vec<u8>, Failure> {
        Ok(identity(info))
    }
    fn choose(&mut self, view: &View) -> Result<Action, Failure> {
        let enemies: Vec<(u8, u8)> = view
            .agents
            .iter()
            .filter(|a| a.owner != view.seat)
            .map(|a| (a.x, a.y))
            .collect();
        Ok(best(view, |agent, to| {
            let nearest = enemies.iter().map(|&e| manhattan(to, e)).min().unwrap_or(0);
            let kills = view.kills_after(agent, to) as i64;
            let deadly = if kills == 0 && view.enemies_next_to(to.0, to.1) >= 2 {
                DEADLY
            } else {
                0
            };
            kills * 1000 - i64::from(nearest) * 10 + i64::from(view.sugar[to.1 as usize][to.0 as usize]) - deadly
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sugar::{Agent, Direction};

    fn view(agents: &[(u8, u8, u8)], sugar_at: &[((u8, u8), u8)]) -> View {
        let mut sugar = [[0; 5]; 5];
        for &((x, y), s) in sugar_at {
            sugar[y as usize][x as usize] = s;
        }
        View {
            seat: 0,
            step: 1,
            sugar,
            agents: agents
                .iter()
                .map(|&(id, x, y)| Agent {
                    id,
                    owner: super::super::owner_of(id),
                    x,
                    y,
                })
                .collect(),
            my_score: 0,
            opponent_score: 0,
            last_actions: [None; 2],
        }
    }

    #[test]
    fn greedy_takes_sugar_next_to_it_and_otherwise_walks_to_the_richest_cell() {
        let v = view(&[(0, 2, 0), (5, 2, 4)], &[((3, 0), 2), ((2, 3), 4)]);
        assert_eq!(
            Greedy.choose(&v),
            Ok(Action::Move {
                agent: 0,
                direction: Direction::Right
            })
        );
        let v = view(&[(0, 2, 0), (5, 0, 4)], &[((2, 3), 4)]);
        assert_eq!(
            Greedy.choose(&v),
            Ok(Action::Move {
                agent: 0,
                direction: Direction::Down
            })
        );
    }

    #[test]
    fn hunter_kills_when_it_can() {
        // Enemy 5 at (2,2) with our agent 1 at (1,2): agent 0 moving from (2,0)... to (2,1) makes two.
        let v = view(&[(0, 2, 0), (1, 1, 2), (5, 2, 2)], &[((0, 0), 4)]);
        assert_eq!(
            Hunter.choose(&v),
            Ok(Action::Move {
                agent: 0,
                direction: Direction::Down
            })
        );
    }
}
