use crate::strike;
use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, RoundInfo, View};

struct Corpus;

impl Bot for Corpus {
    fn new(_info: &GameInfo) -> Self {
        strike("en-garde-start");
        Corpus
    }

    fn start_round(&mut self, _info: &RoundInfo) {
        strike("en-garde-round");
    }

    fn choose_move(&mut self, view: &View) -> Move {
        strike("en-garde-move");
        view.legal_moves()[0]
    }
}

arena_bot_sdk::export!(en_garde, Corpus);
