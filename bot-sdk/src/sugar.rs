//! Sugargame bots: implement [`Bot`] and export it with
//! [`export!`](crate::export)`(sugar, YourBot)`.
//!
//! Cells are (x, y), y = 0 the top row. Player 1 (seat 0) owns agents 0-4 on
//! the top row; player 2 owns agents 5-9 on the bottom row. The rules are in
//! `docs/rules/sugar.md`. The arena sends the legal actions in the view
//! ([`View::legal_moves`] reads them); the other helpers call the arena's own
//! rules ([`arena_games::sugar`]): for many questions in one move, convert
//! the view once with [`View::to_rules`] and ask the result.

use crate::__private::Export;
use arena_games::{Seat, sugar as rules};

crate::world_bindings!("sugar", additional_derives: [PartialEq, Eq]);

pub use bindings::arena::bots::sugar_types::{Action, Agent, AgentMove, Direction, PlaceInfo, View};
/// Cells per side.
pub use rules::SIZE;

/// A Sugargame bot. One value is created per game, at placement.
pub trait Bot: 'static {
    /// A game starts: make your bot. `info.seed` is yours for random choices.
    fn new(info: &PlaceInfo) -> Self;
    /// For each of your agents in order, the x (0-4) of its home-row cell: five distinct numbers.
    fn place(&mut self, info: &PlaceInfo) -> Vec<u8>;
    /// Your turn (only asked when you have a legal move).
    fn choose_action(&mut self, view: &View) -> Action;
}

const fn wit_direction(direction: rules::Direction) -> Direction {
    match direction {
        rules::Direction::Up => Direction::Up,
        rules::Direction::Down => Direction::Down,
        rules::Direction::Left => Direction::Left,
        rules::Direction::Right => Direction::Right,
    }
}

/// All four directions, in the order [`View::legal_moves`] tries them.
pub const DIRECTIONS: [Direction; 4] = {
    let all = rules::Direction::ALL;
    [
        wit_direction(all[0]),
        wit_direction(all[1]),
        wit_direction(all[2]),
        wit_direction(all[3]),
    ]
};

impl From<rules::Direction> for Direction {
    fn from(direction: rules::Direction) -> Self {
        wit_direction(direction)
    }
}

impl From<Direction> for rules::Direction {
    fn from(direction: Direction) -> Self {
        match direction {
            Direction::Up => rules::Direction::Up,
            Direction::Down => rules::Direction::Down,
            Direction::Left => rules::Direction::Left,
            Direction::Right => rules::Direction::Right,
        }
    }
}

impl From<Agent> for rules::Agent {
    fn from(a: Agent) -> Self {
        rules::Agent {
            id: a.id,
            owner: Seat::from(a.owner),
            x: a.x,
            y: a.y,
        }
    }
}

impl From<rules::Agent> for Agent {
    fn from(a: rules::Agent) -> Self {
        Agent {
            id: a.id,
            owner: a.owner as u8,
            x: a.x,
            y: a.y,
        }
    }
}

impl From<Action> for rules::Action {
    fn from(action: Action) -> Self {
        match action {
            Action::Move(m) => rules::Action::Move {
                agent: m.agent,
                direction: m.direction.into(),
            },
            Action::Pass => rules::Action::Pass,
        }
    }
}

impl From<&View> for rules::View {
    /// The view as the rules see it (missing sugar counts as none).
    fn from(view: &View) -> Self {
        let mut sugar: rules::Grid = Default::default();
        for (cell, &s) in sugar.iter_mut().flatten().zip(&view.sugar) {
            *cell = s;
        }
        let last_action = |seat: usize| view.last_actions.get(seat).copied().flatten().map(rules::Action::from);
        rules::View {
            seat: Seat::from(view.seat),
            step: view.step,
            sugar,
            agents: view.agents.iter().copied().map(rules::Agent::from).collect(),
            my_score: view.my_score,
            opponent_score: view.opponent_score,
            last_actions: [last_action(0), last_action(1)],
        }
    }
}

/// The cell one step from (x, y), if it is on the grid.
pub fn neighbour(x: u8, y: u8, direction: Direction) -> Option<(u8, u8)> {
    rules::neighbour(x, y, direction.into())
}

/// Manhattan distance between two cells.
pub fn distance(a: (u8, u8), b: (u8, u8)) -> u32 {
    u32::from(a.0.abs_diff(b.0)) + u32::from(a.1.abs_diff(b.1))
}

/// A legal move: the agent, the direction, and the cell it lands on.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    /// The agent moving.
    pub agent: Agent,
    /// Which way.
    pub direction: Direction,
    /// Where it lands.
    pub to: (u8, u8),
}

impl Step {
    /// This step as an answer.
    pub fn action(&self) -> Action {
        Action::Move(AgentMove {
            agent: self.agent.id,
            direction: self.direction,
        })
    }
}

impl View {
    /// Sugar on (x, y).
    pub fn sugar_at(&self, x: u8, y: u8) -> u8 {
        self.sugar
            .get(usize::from(y) * usize::from(SIZE) + usize::from(x))
            .copied()
            .unwrap_or(0)
    }

    /// The agent on (x, y), if any.
    pub fn agent_at(&self, x: u8, y: u8) -> Option<&Agent> {
        self.agents.iter().find(|a| a.x == x && a.y == y)
    }

    /// Your live agents.
    pub fn my_agents(&self) -> impl Iterator<Item = &Agent> {
        self.agents.iter().filter(move |a| a.owner == self.seat)
    }

    /// The other side's live agents.
    pub fn enemies(&self) -> impl Iterator<Item = &Agent> {
        self.agents.iter().filter(move |a| a.owner != self.seat)
    }

    /// Every legal move: by agent id, then up, down, left, right (the house
    /// bots' order). Empty only when your sole legal action is `Pass`.
    ///
    /// The arena computes the legal actions with its rules and sends them in
    /// the view (the `legal_actions` field); this reads them, adding each
    /// mover and where it lands. To pick one by index, index
    /// `view.legal_actions` (the same moves in the same order).
    pub fn legal_moves(&self) -> impl Iterator<Item = Step> + '_ {
        self.legal_actions.iter().filter_map(|action| match *action {
            Action::Move(AgentMove { agent, direction }) => {
                let agent = *self.agents.iter().find(|a| a.id == agent)?;
                let to = neighbour(agent.x, agent.y, direction)?;
                Some(Step { agent, direction, to })
            }
            Action::Pass => None,
        })
    }

    /// How many enemy agents stand next to (x, y). Two or more kill whoever stands there.
    pub fn enemies_next_to(&self, x: u8, y: u8) -> usize {
        DIRECTIONS
            .iter()
            .filter_map(|&d| neighbour(x, y, d))
            .filter(|&(nx, ny)| self.agent_at(nx, ny).is_some_and(|a| a.owner != self.seat))
            .count()
    }

    /// How many enemy agents `step` would kill.
    ///
    /// This converts the whole view to the rules' view on every call. When
    /// you ask for many steps, convert once with [`to_rules`](View::to_rules)
    /// and ask the result: `rules.kills_after(step.agent.id, step.to)`.
    pub fn kills_after(&self, step: &Step) -> usize {
        self.to_rules().kills_after(step.agent.id, step.to)
    }

    /// The view as the arena's rules see it ([`arena_games::sugar::View`]),
    /// whose methods (`kills_after`, `enemies_next_to`, `legal_moves`, ...)
    /// are the referee's own. Convert once per move and reuse it:
    ///
    /// ```no_run
    /// # use arena_bot_sdk::sugar::{Action, View};
    /// # fn choose(view: &View) -> Action {
    /// let rules = view.to_rules();
    /// for step in view.legal_moves() {
    ///     if rules.kills_after(step.agent.id, step.to) > 0 {
    ///         return step.action();
    ///     }
    /// }
    /// view.legal_actions[0]
    /// # }
    /// ```
    pub fn to_rules(&self) -> rules::View {
        rules::View::from(self)
    }
}

impl<B: Bot> bindings::Guest for Export<B> {
    fn place(info: PlaceInfo) -> Vec<u8> {
        let mut bot = B::new(&info);
        let placement = bot.place(&info);
        Export::start(bot);
        placement
    }

    fn choose_action(view: View) -> Action {
        Export::<B>::with(|bot| bot.choose_action(&view)).expect("choose-action called before place")
    }
}
