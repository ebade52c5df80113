//! Twin of `house:hunter`: kill when possible, else close in on the nearest
//! enemy, never onto a deadly cell unless the move kills.

use arena_bot_sdk::sugar::{Action, Bot, PlaceInfo, View, distance};

struct Hunter;

const DEADLY: i64 = 100_000;

impl Bot for Hunter {
    fn new(_info: &PlaceInfo) -> Self {
        Hunter
    }

    fn place(&mut self, _info: &PlaceInfo) -> Vec<u8> {
        vec![0, 1, 2, 3, 4]
    }

    fn choose_action(&mut self, view: &View) -> Action {
        let enemies: Vec<(u8, u8)> = view.enemies().map(|a| (a.x, a.y)).collect();
        // The rules' view, converted once for all the questions of this move.
        let rules = view.to_rules();
        let mut best: Option<(i64, Action)> = None;
        for step in view.legal_moves() {
            let nearest = enemies.iter().map(|&e| distance(step.to, e)).min().unwrap_or(0);
            let kills = rules.kills_after(step.agent.id, step.to) as i64;
            let deadly = if kills == 0 && rules.enemies_next_to(step.to.0, step.to.1) >= 2 {
                DEADLY
            } else {
                0
            };
            let value =
                kills * 1000 - i64::from(nearest) * 10 + i64::from(view.sugar_at(step.to.0, step.to.1)) - deadly;
            if best.is_none_or(|(b, _)| value > b) {
                best = Some((value, step.action()));
            }
        }
        best.map_or(Action::Pass, |(_, a)| a)
    }
}

arena_bot_sdk::export!(sugar, Hunter);
