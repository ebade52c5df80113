//! Hostile fixture: sleeps an hour per move. The arena's clocks are virtual,
//! so the sleep returns at once and the bot simply plays; time read from
//! the clock is the same on every run.

use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, View};
use std::time::{Duration, Instant, SystemTime};

struct Sleepy;

impl Bot for Sleepy {
    fn new(_info: &GameInfo) -> Self {
        Sleepy
    }

    fn choose_move(&mut self, view: &View) -> Move {
        let before = Instant::now();
        std::thread::sleep(Duration::from_secs(3600));
        let slept = before.elapsed();
        let wall = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
        arena_bot_sdk::log(&format!("slept {}s, wall clock {}s", slept.as_secs(), wall.as_secs()));
        view.legal_moves()[0]
    }
}

arena_bot_sdk::export!(en_garde, Sleepy);
