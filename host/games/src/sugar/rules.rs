//! The rules of Sugargame (see `docs/rules/sugar.md`).

use arena_core::{Failure, Seat, derive_seed};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Cells per side of the grid.
pub const SIZE: u8 = 5;
/// Agents per player.
pub const AGENTS: u8 = 5;
/// Points for each opposing agent killed (and lost for each own agent lost).
pub const KILL_POINTS: i64 = 50;
/// Most sugar a cell can hold.
pub const MAX_SUGAR: u8 = 4;
/// Growback happens after every this many steps (rule 3.4).
pub const GROWBACK_EVERY: u32 = 4;
/// Fewest and most steps a game lasts (rule 4.5).
pub const STEPS: std::ops::RangeInclusive<u32> = 100..=200;

/// A direction on the grid; y grows downwards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// y - 1
    Up,
    /// y + 1
    Down,
    /// x - 1
    Left,
    /// x + 1
    Right,
}

impl Direction {
    /// Every direction, in the order moves are listed.
    pub const ALL: [Direction; 4] = [Direction::Up, Direction::Down, Direction::Left, Direction::Right];

    /// The change in (x, y).
    pub fn delta(self) -> (i8, i8) {
        match self {
            Direction::Up => (0, -1),
            Direction::Down => (0, 1),
            Direction::Left => (-1, 0),
            Direction::Right => (1, 0),
        }
    }

    /// The direction as the rules and the replay write it: `up`, `down`, `left`, `right`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Up => "up",
            Direction::Down => "down",
            Direction::Left => "left",
            Direction::Right => "right",
        }
    }
}

/// A player's answer on its turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Action {
    /// Move `agent` one cell.
    Move {
        /// The agent's id.
        agent: u8,
        /// Which way.
        direction: Direction,
    },
    /// No legal move.
    Pass,
}

/// A live agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agent {
    /// 0-4 for player 1, 5-9 for player 2.
    pub id: u8,
    /// The seat that owns it.
    pub owner: Seat,
    /// Column.
    pub x: u8,
    /// Row (0 = top).
    pub y: u8,
}

/// The seat owning agent `id` (rule 1.2).
pub fn owner_of(id: u8) -> Seat {
    if id < AGENTS { 0 } else { 1 }
}

/// The agents of `seat`, in order.
pub fn agent_ids(seat: Seat) -> std::ops::Range<u8> {
    let first = seat as u8 * AGENTS;
    first..first + AGENTS
}

/// The home row of `seat` (rule 1.2).
pub fn home_row(seat: Seat) -> u8 {
    if seat == 0 { 0 } else { SIZE - 1 }
}

/// The cell one step from (x, y) in `direction`, if on the grid.
pub fn neighbour(x: u8, y: u8, direction: Direction) -> Option<(u8, u8)> {
    let (dx, dy) = direction.delta();
    let nx = x as i8 + dx;
    let ny = y as i8 + dy;
    let on = |v: i8| (0..SIZE as i8).contains(&v);
    (on(nx) && on(ny)).then_some((nx as u8, ny as u8))
}

/// Sugar per cell, `[y][x]`.
pub type Grid = [[u8; SIZE as usize]; SIZE as usize];

/// The capacity landscape and its two peaks for `seed` (rule 3.1).
pub fn landscape(seed: u64) -> (Grid, [(u8, u8); 2]) {
    let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, 0x5_0CA));
    let px = rng.random_range(0..SIZE as u32) as u8;
    let py = rng.random_range(1..=2u32) as u8;
    let peaks = [(px, py), (SIZE - 1 - px, SIZE - 1 - py)];
    let mut grid = [[0; SIZE as usize]; SIZE as usize];
    for y in 0..SIZE {
        for x in 0..SIZE {
            let d = peaks
                .iter()
                .map(|&(a, b)| a.abs_diff(x) + b.abs_diff(y))
                .min()
                .unwrap_or(0);
            grid[y as usize][x as usize] = MAX_SUGAR.saturating_sub(d);
        }
    }
    (grid, peaks)
}

/// How many steps the game with `seed` lasts (rule 4.5).
pub fn game_length(seed: u64) -> u32 {
    let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, 0x5_7E95));
    rng.random_range(STEPS)
}

/// Why a placement is invalid (rule 2.3).
pub fn check_placement(placement: &[u8]) -> Result<[u8; AGENTS as usize], String> {
    if placement.len() != AGENTS as usize {
        return Err(format!("a placement lists {AGENTS} cells, got {}", placement.len()));
    }
    let mut seen = [false; SIZE as usize];
    let mut out = [0; AGENTS as usize];
    for (i, &x) in placement.iter().enumerate() {
        if x >= SIZE {
            return Err(format!("cell x = {x} is off the grid (0-4)"));
        }
        if std::mem::replace(&mut seen[x as usize], true) {
            return Err(format!("two agents placed on x = {x}"));
        }
        out[i] = x;
    }
    Ok(out)
}

/// Why an action loses the game (rule 4.3, 4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Illegal {
    /// The agent is not one of the player's live agents.
    NotYourAgent,
    /// The move leaves the grid.
    OffGrid,
    /// The target cell holds an agent.
    Occupied,
    /// A pass while a legal move exists.
    PassWithMoves,
}

impl Illegal {
    /// Why, in words: `not your agent`, `off grid`, `occupied`, `pass with moves`.
    pub fn words(self) -> &'static str {
        match self {
            Illegal::NotYourAgent => "not your agent",
            Illegal::OffGrid => "off grid",
            Illegal::Occupied => "occupied",
            Illegal::PassWithMoves => "pass with moves",
        }
    }
}

/// What one step did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepReport {
    /// Sugar the mover collected.
    pub collected: u8,
    /// Agents killed by the surround rule, by id.
    pub killed: Vec<u8>,
}

/// The state of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    /// Capacity per cell.
    pub capacity: Grid,
    /// Sugar per cell now.
    pub sugar: Grid,
    /// Live agents, by id.
    pub agents: Vec<Agent>,
    /// Sugar collected per seat.
    pub collected: [i64; 2],
    /// Opposing agents killed per seat.
    pub kills: [i64; 2],
    /// Own agents lost per seat.
    pub losses: [i64; 2],
    /// Steps played.
    pub step: u32,
    /// Steps the game lasts.
    pub max_steps: u32,
    /// Each seat's last action.
    pub last_actions: [Option<Action>; 2],
    /// Passes in a row, across both players.
    pub passes_in_a_row: u32,
}

impl State {
    /// A game from `seed` with both placements (checked) made (rules 2, 3.1, 3.2).
    pub fn new(seed: u64, placements: [[u8; AGENTS as usize]; 2]) -> State {
        let (capacity, _) = landscape(seed);
        let mut agents = Vec::with_capacity(2 * AGENTS as usize);
        for (seat, placement) in placements.iter().enumerate() {
            for (k, &x) in placement.iter().enumerate() {
                agents.push(Agent {
                    id: seat as u8 * AGENTS + k as u8,
                    owner: seat,
                    x,
                    y: home_row(seat),
                });
            }
        }
        State {
            capacity,
            sugar: capacity,
            agents,
            collected: [0; 2],
            kills: [0; 2],
            losses: [0; 2],
            step: 0,
            max_steps: game_length(seed),
            last_actions: [None; 2],
            passes_in_a_row: 0,
        }
    }

    /// The seat to move: player 1 on odd steps (rule 4.1).
    pub fn to_move(&self) -> Seat {
        (self.step % 2) as Seat
    }

    /// Each seat's score (rule 6.1).
    pub fn scores(&self) -> [i64; 2] {
        [0, 1].map(|s| self.collected[s] + KILL_POINTS * (self.kills[s] - self.losses[s]))
    }

    /// The agent on (x, y), if any.
    pub fn agent_at(&self, x: u8, y: u8) -> Option<&Agent> {
        self.agents.iter().find(|a| a.x == x && a.y == y)
    }

    /// Check a move; returns the target cell.
    pub fn check(&self, seat: Seat, agent: u8, direction: Direction) -> Result<(u8, u8), Illegal> {
        let a = self
            .agents
            .iter()
            .find(|a| a.id == agent && a.owner == seat)
            .ok_or(Illegal::NotYourAgent)?;
        let (x, y) = neighbour(a.x, a.y, direction).ok_or(Illegal::OffGrid)?;
        if self.agent_at(x, y).is_some() {
            return Err(Illegal::Occupied);
        }
        Ok((x, y))
    }

    /// The legal moves of `seat`: by agent id, then up, down, left, right.
    pub fn legal_moves(&self, seat: Seat) -> Vec<Action> {
        let mut moves = Vec::new();
        for a in self.agents.iter().filter(|a| a.owner == seat) {
            for direction in Direction::ALL {
                if self.check(seat, a.id, direction).is_ok() {
                    moves.push(Action::Move { agent: a.id, direction });
                }
            }
        }
        moves
    }

    /// Agents (other than `mover`) with two or more enemies next to them (rule 5).
    pub fn surrounded(&self, mover: Option<u8>) -> Vec<u8> {
        self.agents
            .iter()
            .filter(|a| Some(a.id) != mover)
            .filter(|a| {
                Direction::ALL
                    .iter()
                    .filter_map(|&d| neighbour(a.x, a.y, d))
                    .filter(|&(x, y)| self.agent_at(x, y).is_some_and(|b| b.owner != a.owner))
                    .count()
                    >= 2
            })
            .map(|a| a.id)
            .collect()
    }

    /// Play `action` for the seat to move. An illegal action is returned
    /// untouched; the game is then lost (rule 4.3).
    pub fn apply(&mut self, action: Action) -> Result<StepReport, Illegal> {
        let seat = self.to_move();
        let mut report = StepReport {
            collected: 0,
            killed: Vec::new(),
        };
        match action {
            Action::Pass => {
                if !self.legal_moves(seat).is_empty() {
                    return Err(Illegal::PassWithMoves);
                }
                self.passes_in_a_row += 1;
            }
            Action::Move { agent, direction } => {
                let (x, y) = self.check(seat, agent, direction)?;
                if let Some(a) = self.agents.iter_mut().find(|a| a.id == agent) {
                    a.x = x;
                    a.y = y;
                }
                let cell = &mut self.sugar[y as usize][x as usize];
                report.collected = std::mem::take(cell);
                self.collected[seat] += i64::from(report.collected);
                report.killed = self.surrounded(Some(agent));
                for &id in &report.killed {
                    let victim = owner_of(id);
                    self.losses[victim] += 1;
                    self.kills[1 - victim] += 1;
                }
                self.agents.retain(|a| !report.killed.contains(&a.id));
                self.passes_in_a_row = 0;
            }
        }
        self.last_actions[seat] = Some(action);
        self.step += 1;
        if self.step.is_multiple_of(GROWBACK_EVERY) {
            for (row, caps) in self.sugar.iter_mut().zip(&self.capacity) {
                for (s, &c) in row.iter_mut().zip(caps) {
                    if *s < c {
                        *s += 1;
                    }
                }
            }
        }
        Ok(report)
    }

    /// Whether the game is over (rules 4.5, 4.6).
    pub fn is_over(&self) -> bool {
        self.step >= self.max_steps
            || (0..2).any(|s| !self.agents.iter().any(|a| a.owner == s))
            || self.passes_in_a_row >= 2
    }

    /// What `seat` sees.
    pub fn view(&self, seat: Seat) -> View {
        let scores = self.scores();
        View {
            seat,
            step: self.step + 1,
            sugar: self.sugar,
            agents: self.agents.clone(),
            my_score: scores[seat],
            opponent_score: scores[1 - seat],
            last_actions: self.last_actions,
        }
    }
}

/// Sent to a player before placing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlaceInfo {
    /// The player's seat.
    pub seat: Seat,
    /// Its agent ids, in the order the placement lists them.
    pub agents: Vec<u8>,
    /// A seed for the player's own randomness.
    pub seed: u64,
    /// Sugar per cell at the start.
    pub sugar: Grid,
}

/// What a player sees on its turn (rule 7.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// The player's seat.
    pub seat: Seat,
    /// The step being played, from 1.
    pub step: u32,
    /// Sugar per cell, `[y][x]`.
    pub sugar: Grid,
    /// Every live agent, by id.
    pub agents: Vec<Agent>,
    /// The player's score.
    pub my_score: i64,
    /// The opponent's score.
    pub opponent_score: i64,
    /// Each seat's last action, by seat.
    pub last_actions: [Option<Action>; 2],
}

impl View {
    /// The agent on (x, y), if any.
    pub fn agent_at(&self, x: u8, y: u8) -> Option<&Agent> {
        self.agents.iter().find(|a| a.x == x && a.y == y)
    }

    /// The legal moves of the viewing seat, in the order [`State::legal_moves`] lists them.
    pub fn legal_moves(&self) -> Vec<(Agent, Direction, (u8, u8))> {
        let mut moves = Vec::new();
        for a in self.agents.iter().filter(|a| a.owner == self.seat) {
            for direction in Direction::ALL {
                if let Some((x, y)) = neighbour(a.x, a.y, direction)
                    && self.agent_at(x, y).is_none()
                {
                    moves.push((*a, direction, (x, y)));
                }
            }
        }
        moves
    }

    /// How many agents of the other side stand next to (x, y), for the viewing seat.
    pub fn enemies_next_to(&self, x: u8, y: u8) -> usize {
        Direction::ALL
            .iter()
            .filter_map(|&d| neighbour(x, y, d))
            .filter(|&(nx, ny)| self.agent_at(nx, ny).is_some_and(|a| a.owner != self.seat))
            .count()
    }

    /// How many opposing agents moving `agent` to `to` would kill.
    pub fn kills_after(&self, agent: u8, to: (u8, u8)) -> usize {
        let moved: Vec<Agent> = self
            .agents
            .iter()
            .map(|a| {
                if a.id == agent {
                    Agent { x: to.0, y: to.1, ..*a }
                } else {
                    *a
                }
            })
            .collect();
        let at = |x: u8, y: u8| moved.iter().find(|a| a.x == x && a.y == y);
        moved
            .iter()
            .filter(|a| a.id != agent && a.owner != self.seat)
            .filter(|a| {
                Direction::ALL
                    .iter()
                    .filter_map(|&d| neighbour(a.x, a.y, d))
                    .filter(|&(x, y)| at(x, y).is_some_and(|b| b.owner != a.owner))
                    .count()
                    >= 2
            })
            .count()
    }
}

/// A Sugargame player: a house bot, a wasm bot or a person.
pub trait SugarPlayer {
    /// Choose the home-row x of each own agent, in order (rule 2.1).
    fn place(&mut self, info: &PlaceInfo) -> Result<Vec<u8>, Failure>;
    /// Choose an action. Only asked when the seat has a legal move.
    fn choose(&mut self, view: &View) -> Result<Action, Failure>;
}

/// The seed each seat's player gets.
pub fn player_seed(seed: u64, seat: Seat) -> u64 {
    derive_seed(seed, 0x5EA7_0000 + seat as u64)
}
