use crate::{is, strike};
use arena_bot_sdk::connect_fwar::{Bot, GameInfo, View};

struct Corpus;

impl Bot for Corpus {
    fn new(_info: &GameInfo) -> Self {
        strike("connect-fwar-start");
        Corpus
    }

    fn choose_column(&mut self, view: &View) -> i32 {
        strike("connect-fwar-column");
        if is("connect-fwar-column-out-of-range") {
            return i32::MIN;
        }
        view.fitting_columns().first().copied().unwrap_or(0)
    }
}

arena_bot_sdk::export!(connect_fwar, Corpus);
