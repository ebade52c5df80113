//! Hostile fixture (Sugargame): puts two agents on the same cell.

use arena_bot_sdk::sugar::{Action, Bot, PlaceInfo, View};

struct Crowd;

impl Bot for Crowd {
    fn new(_info: &PlaceInfo) -> Self {
        Crowd
    }

    fn place(&mut self, _info: &PlaceInfo) -> Vec<u8> {
        vec![2, 2, 2, 2, 2]
    }

    fn choose_action(&mut self, view: &View) -> Action {
        view.legal_actions[0]
    }
}

arena_bot_sdk::export!(sugar, Crowd);
