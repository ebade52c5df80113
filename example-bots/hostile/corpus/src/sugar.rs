use crate::{is, strike};
use arena_bot_sdk::sugar::{Action, AgentMove, Bot, Direction, PlaceInfo, View};

struct Corpus;

impl Bot for Corpus {
    fn new(_info: &PlaceInfo) -> Self {
        Corpus
    }

    fn place(&mut self, _info: &PlaceInfo) -> Vec<u8> {
        strike("sugar-place");
        if is("sugar-place-short") {
            vec![0, 1, 2]
        } else if is("sugar-place-off-grid") {
            vec![0, 1, 2, 3, 200]
        } else if is("sugar-place-huge") {
            vec![0; 8_000_000]
        } else {
            vec![0, 1, 2, 3, 4]
        }
    }

    fn choose_action(&mut self, view: &View) -> Action {
        strike("sugar-action");
        if is("sugar-action-foreign-agent") {
            return Action::Move(AgentMove {
                agent: 255,
                direction: Direction::Up,
            });
        }
        view.legal_actions[0]
    }
}

arena_bot_sdk::export!(sugar, Corpus);
