//! Fixture: counts the games its instance has seen in a global and prints
//! the count at every game's start. Each game gets a fresh instance, so it
//! must print "game 1 of this instance" every time: nothing of one game
//! survives into the next (`tests/hostile.rs`).

use arena_bot_sdk::en_garde::{Bot, Direction, GameInfo, Move, View};
use std::sync::atomic::{AtomicU32, Ordering};

static GAMES: AtomicU32 = AtomicU32::new(0);

struct Counter;

impl Bot for Counter {
    fn new(_info: &GameInfo) -> Self {
        let n = GAMES.fetch_add(1, Ordering::Relaxed) + 1;
        println!("game {n} of this instance");
        Counter
    }

    fn choose_move(&mut self, view: &View) -> Move {
        // Its smallest card forward: legal unless it would pass the
        // opponent, which under the course's rule only loses the round.
        let card = view.hand.iter().copied().min().unwrap_or(1);
        Move {
            card,
            direction: Direction::Forward,
        }
    }
}

arena_bot_sdk::export!(en_garde, Counter);
