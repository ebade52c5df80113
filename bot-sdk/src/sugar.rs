//! Sugargame bots: implement [`Bot`] and export it with [`export_sugar!`](crate::export_sugar).
//!
//! Cells are (x, y), y = 0 the top row. Player 1 (seat 0) owns agents 0-4 on
//! the top row; player 2 owns agents 5-9 on the bottom row. The rules are in
//! `docs/rules/sugar.md`.

#[doc(hidden)]
#[allow(clippy::too_many_arguments)] // generated glue for a wide record
pub mod bindings {
    wit_bindgen::generate!({
        path: "../wit/0.1.0",
        world: "sugar",
        pub_export_macro: true,
        export_macro_name: "__export_sugar_world",
        default_bindings_module: "arena_bot_sdk::sugar::bindings",
        runtime_path: "arena_bot_sdk::__private::wit_bindgen::rt",
        with: { "arena:bots/host@0.1.0": crate::en_garde::bindings::arena::bots::host },
    });
}

pub use bindings::arena::bots::sugar_types::{Action, Agent, AgentMove, Direction, PlaceInfo, View};

/// Cells per side.
pub const SIZE: u8 = 5;

/// A Sugargame bot. One value is created per game, at placement.
pub trait Bot: 'static {
    /// A game starts: make your bot. `info.seed` is yours for random choices.
    fn new(info: &PlaceInfo) -> Self;
    /// For each of your agents in order, the x (0-4) of its home-row cell: five distinct numbers.
    fn place(&mut self, info: &PlaceInfo) -> Vec<u8>;
    /// Your turn (only asked when you have a legal move).
    fn choose_action(&mut self, view: &View) -> Action;
}

/// All four directions, in the order [`View::legal_moves`] tries them.
pub const DIRECTIONS: [Direction; 4] = [Direction::Up, Direction::Down, Direction::Left, Direction::Right];

/// The cell one step from (x, y), if it is on the grid.
pub fn neighbour(x: u8, y: u8, direction: Direction) -> Option<(u8, u8)> {
    let (dx, dy): (i8, i8) = match direction {
        Direction::Up => (0, -1),
        Direction::Down => (0, 1),
        Direction::Left => (-1, 0),
        Direction::Right => (1, 0),
    };
    let (nx, ny) = (x as i8 + dx, y as i8 + dy);
    let on = |v: i8| (0..SIZE as i8).contains(&v);
    (on(nx) && on(ny)).then_some((nx as u8, ny as u8))
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

    /// Every legal move: by agent id, then up, down, left, right (the house bots' order).
    pub fn legal_moves(&self) -> Vec<Step> {
        let mut steps = Vec::new();
        for a in self.my_agents() {
            for direction in DIRECTIONS {
                if let Some(to) = neighbour(a.x, a.y, direction)
                    && self.agent_at(to.0, to.1).is_none()
                {
                    steps.push(Step {
                        agent: *a,
                        direction,
                        to,
                    });
                }
            }
        }
        steps
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
    pub fn kills_after(&self, step: &Step) -> usize {
        let moved: Vec<Agent> = self
            .agents
            .iter()
            .map(|a| {
                if a.id == step.agent.id {
                    Agent {
                        x: step.to.0,
                        y: step.to.1,
                        ..*a
                    }
                } else {
                    *a
                }
            })
            .collect();
        let at = |x: u8, y: u8| moved.iter().find(|a| a.x == x && a.y == y);
        moved
            .iter()
            .filter(|a| a.id != step.agent.id && a.owner != self.seat)
            .filter(|a| {
                DIRECTIONS
                    .iter()
                    .filter_map(|&d| neighbour(a.x, a.y, d))
                    .filter(|&(x, y)| at(x, y).is_some_and(|b| b.owner != a.owner))
                    .count()
                    >= 2
            })
            .count()
    }
}

/// Export a type implementing [`Bot`] as the Sugargame world's exports.
#[macro_export]
macro_rules! export_sugar {
    ($bot:ty) => {
        const _: () = {
            use $crate::sugar::{Bot as _, bindings};
            struct ArenaSugarExport;
            ::std::thread_local! {
                static BOT: ::core::cell::RefCell<::core::option::Option<$bot>> =
                    const { ::core::cell::RefCell::new(::core::option::Option::None) };
            }
            impl bindings::Guest for ArenaSugarExport {
                fn place(info: $crate::sugar::PlaceInfo) -> ::std::vec::Vec<u8> {
                    let mut bot = <$bot as $crate::sugar::Bot>::new(&info);
                    let placement = bot.place(&info);
                    BOT.with(|b| *b.borrow_mut() = ::core::option::Option::Some(bot));
                    placement
                }
                fn choose_action(view: $crate::sugar::View) -> $crate::sugar::Action {
                    BOT.with(|b| match b.borrow_mut().as_mut() {
                        ::core::option::Option::Some(bot) => bot.choose_action(&view),
                        ::core::option::Option::None => ::core::panic!("choose-action called before place"),
                    })
                }
            }
    $crate::sugar::bindings::__export_sugar_world!(ArenaSugarExport with_types_in $crate::sugar::bindings);
        };
    };
}
