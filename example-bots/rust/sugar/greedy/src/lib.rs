//! Twin of `house:greedy`: the most sugar now, else towards the richest free
//! cell, never onto a cell where two enemies can kill it.

use arena_bot_sdk::sugar::{Action, Bot, PlaceInfo, SIZE, View, distance};

struct Greedy;

const DEADLY: i64 = 100_000;

impl Bot for Greedy {
    fn new(_info: &PlaceInfo) -> Self {
        Greedy
    }

    fn place(&mut self, _info: &PlaceInfo) -> Vec<u8> {
        vec![0, 1, 2, 3, 4]
    }

    fn choose_action(&mut self, view: &View) -> Action {
        let mut target = (0, 0);
        let mut most = 0;
        for y in 0..SIZE {
            for x in 0..SIZE {
                if view.sugar_at(x, y) > most && view.agent_at(x, y).is_none() {
                    most = view.sugar_at(x, y);
                    target = (x, y);
                }
            }
        }
        let mut best: Option<(i64, Action)> = None;
        for step in view.legal_moves() {
            let deadly = if view.enemies_next_to(step.to.0, step.to.1) >= 2 { DEADLY } else { 0 };
            let value =
                i64::from(view.sugar_at(step.to.0, step.to.1)) * 100 - i64::from(distance(step.to, target)) - deadly;
            if best.is_none_or(|(b, _)| value > b) {
                best = Some((value, step.action()));
            }
        }
        best.map_or(Action::Pass, |(_, a)| a)
    }
}

arena_bot_sdk::export!(sugar, Greedy);
