//! Twin of `house:lowest`: the weakest legal play, fewest cards first; pass when none.

use arena_bot_sdk::president::{Bot, Card, GameInfo, View};

struct Lowest;

impl Bot for Lowest {
    fn new(_info: &GameInfo) -> Self {
        Lowest
    }

    fn play(&mut self, view: &View) -> Option<Vec<Card>> {
        view.simple_plays().into_iter().next()
    }
}

arena_bot_sdk::export!(president, Lowest);
