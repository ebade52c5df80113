//! Sugargame for bots built against `arena:bots@0.1.0`. Only the newest
//! version's module talks to the rules: this one converts between that
//! module's types and its own (a 0.1 view is a 0.2 view without its legal
//! actions), so a rule is written once.

use super::since_v0_2::{self as newest, wit as new};
use crate::adapters::world;
use crate::games::Failure;
use crate::games::sugar::{Action, PlaceInfo, SugarPlayer, View};
use crate::runner::WasmBot;
use crate::sandbox::Call;

world!(
    "../../wit/0.1.0",
    "sugar",
    v0_1,
    PerCall,
    Sugar,
    SugarIndices,
    ["place", "choose-action"]
);
use bindings::arena::bots::sugar_types as wit;

impl From<new::Direction> for wit::Direction {
    fn from(d: new::Direction) -> Self {
        match d {
            new::Direction::Up => wit::Direction::Up,
            new::Direction::Down => wit::Direction::Down,
            new::Direction::Left => wit::Direction::Left,
            new::Direction::Right => wit::Direction::Right,
        }
    }
}

impl From<wit::Direction> for new::Direction {
    fn from(d: wit::Direction) -> Self {
        match d {
            wit::Direction::Up => new::Direction::Up,
            wit::Direction::Down => new::Direction::Down,
            wit::Direction::Left => new::Direction::Left,
            wit::Direction::Right => new::Direction::Right,
        }
    }
}

impl From<new::Action> for wit::Action {
    fn from(a: new::Action) -> Self {
        match a {
            new::Action::Pass => wit::Action::Pass,
            new::Action::Move(m) => wit::Action::Move(wit::AgentMove {
                agent: m.agent,
                direction: m.direction.into(),
            }),
        }
    }
}

impl From<wit::Action> for new::Action {
    fn from(a: wit::Action) -> Self {
        match a {
            wit::Action::Pass => new::Action::Pass,
            wit::Action::Move(m) => new::Action::Move(new::AgentMove {
                agent: m.agent,
                direction: m.direction.into(),
            }),
        }
    }
}

impl From<new::PlaceInfo> for wit::PlaceInfo {
    fn from(i: new::PlaceInfo) -> Self {
        wit::PlaceInfo {
            seat: i.seat,
            agents: i.agents,
            seed: i.seed,
            sugar: i.sugar,
        }
    }
}

impl From<new::View> for wit::View {
    fn from(v: new::View) -> Self {
        wit::View {
            seat: v.seat,
            step: v.step,
            sugar: v.sugar,
            agents: v
                .agents
                .into_iter()
                .map(|a| wit::Agent {
                    id: a.id,
                    owner: a.owner,
                    x: a.x,
                    y: a.y,
                })
                .collect(),
            my_score: v.my_score,
            opponent_score: v.opponent_score,
            last_actions: v.last_actions.into_iter().map(|a| a.map(wit::Action::from)).collect(),
        }
    }
}

impl SugarPlayer for WasmBot<Bindings> {
    fn place(&mut self, info: &PlaceInfo) -> Result<Vec<u8>, Failure> {
        let info = wit::PlaceInfo::from(newest::wit_place_info(info));
        self.call(Call::Start, |b, store| b.call_place(store, &info))
    }

    fn choose(&mut self, view: &View) -> Result<Action, Failure> {
        let view = wit::View::from(newest::wit_view(view, false));
        let action = self.call(Call::Move, |b, store| b.call_choose_action(store, &view))?;
        Ok(newest::rules_action(action.into()))
    }
}
