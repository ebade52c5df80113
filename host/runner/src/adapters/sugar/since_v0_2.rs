//! Sugargame for bots built against `arena:bots@0.2.0`: the world's WIT
//! types to the current rules' types and back.

use crate::adapters::world;
use crate::games::Failure;
use crate::games::sugar::{Action, Direction, Grid, PlaceInfo, SugarPlayer, View};
use crate::runner::WasmBot;
use crate::sandbox::Call;

world!(
    "../../wit/0.2.0",
    "sugar",
    v0_2,
    Banked,
    Sugar,
    SugarIndices,
    ["place", "choose-action"]
);
pub(super) use bindings::arena::bots::sugar_types as wit;

fn flat(grid: &Grid) -> Vec<u8> {
    grid.iter().flatten().copied().collect()
}

fn wit_action(a: &Action) -> wit::Action {
    match *a {
        Action::Pass => wit::Action::Pass,
        Action::Move { agent, direction } => wit::Action::Move(wit::AgentMove {
            agent,
            direction: match direction {
                Direction::Up => wit::Direction::Up,
                Direction::Down => wit::Direction::Down,
                Direction::Left => wit::Direction::Left,
                Direction::Right => wit::Direction::Right,
            },
        }),
    }
}

/// The rules' legal moves, or a pass when there is none (the only legal action then).
fn legal_actions(view: &View) -> Vec<wit::Action> {
    let moves: Vec<wit::Action> = view
        .legal_moves()
        .into_iter()
        .map(|(agent, direction, _)| {
            wit_action(&Action::Move {
                agent: agent.id,
                direction,
            })
        })
        .collect();
    if moves.is_empty() {
        vec![wit::Action::Pass]
    } else {
        moves
    }
}

/// The placement's start in this version's types (older versions convert from it).
pub(super) fn wit_place_info(info: &PlaceInfo) -> wit::PlaceInfo {
    wit::PlaceInfo {
        seat: info.seat as u8,
        agents: info.agents.clone(),
        seed: info.seed,
        sugar: flat(&info.sugar),
    }
}

/// The rules' view in this version's types. Older versions convert from it
/// with `legal` false: their worlds have no legal list, so it is not built
/// for them on every move.
pub(super) fn wit_view(view: &View, legal: bool) -> wit::View {
    wit::View {
        seat: view.seat as u8,
        step: view.step,
        sugar: flat(&view.sugar),
        agents: view
            .agents
            .iter()
            .map(|a| wit::Agent {
                id: a.id,
                owner: a.owner as u8,
                x: a.x,
                y: a.y,
            })
            .collect(),
        my_score: view.my_score,
        opponent_score: view.opponent_score,
        last_actions: view.last_actions.iter().map(|a| a.as_ref().map(wit_action)).collect(),
        legal_actions: if legal { legal_actions(view) } else { Vec::new() },
    }
}

/// A bot's answer as the rules' action (the rules judge it).
pub(super) fn rules_action(action: wit::Action) -> Action {
    match action {
        wit::Action::Pass => Action::Pass,
        wit::Action::Move(m) => Action::Move {
            agent: m.agent,
            direction: match m.direction {
                wit::Direction::Up => Direction::Up,
                wit::Direction::Down => Direction::Down,
                wit::Direction::Left => Direction::Left,
                wit::Direction::Right => Direction::Right,
            },
        },
    }
}

impl SugarPlayer for WasmBot<Bindings> {
    fn place(&mut self, info: &PlaceInfo) -> Result<Vec<u8>, Failure> {
        let info = wit_place_info(info);
        self.call(Call::Start, |b, store| b.call_place(store, &info))
    }

    fn choose(&mut self, view: &View) -> Result<Action, Failure> {
        let view = wit_view(view, true);
        let action = self.call(Call::Move, |b, store| b.call_choose_action(store, &view))?;
        Ok(rules_action(action))
    }
}
