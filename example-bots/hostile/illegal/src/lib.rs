//! Hostile fixture: always plays an illegal move (backwards off its own end).

use arena_bot_sdk::en_garde::{Bot, Direction, GameInfo, Move, View};

struct Illegal;

impl Bot for Illegal {
    fn new(_info: &GameInfo) -> Self {
        Illegal
    }

    fn choose_move(&mut self, view: &View) -> Move {
        let card = view.hand.iter().copied().max().unwrap_or(5);
        // At the start space any backward move leaves the strip; later ones may
        // pass nothing but are still checked: pick a card not in hand if we can.
        let missing = (1..=5).find(|c| !view.hand.contains(c));
        match missing {
            Some(c) => Move { card: c, direction: Direction::Forward },
            None => Move { card, direction: Direction::Backward },
        }
    }
}

arena_bot_sdk::export!(en_garde, Illegal);
