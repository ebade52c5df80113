//! Test fixture (En Garde, world 0.2): reads its fuel and burns half again
//! its per-move budget every move, so every move draws on the bank.
//!
//! Each `choose-move` logs `budget call=<call_fuel> bank=<bank_fuel>
//! move=<move_fuel>` as read on entry, then loops, re-reading `budget()`,
//! until it has used at least 1.5 x `move_fuel` in this call (used = call +
//! bank on entry minus call + bank now), then plays the first legal move.

use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, View};
use std::hint::black_box;

struct Burner;

/// Work between two readings of the budget: a few thousand fuel.
const CHUNK: u32 = 256;

impl Bot for Burner {
    fn new(_info: &GameInfo) -> Self {
        Burner
    }

    fn choose_move(&mut self, view: &View) -> Move {
        let start = arena_bot_sdk::budget();
        let limits = arena_bot_sdk::limits();
        arena_bot_sdk::log(&format!(
            "budget call={} bank={} move={}",
            start.call_fuel, start.bank_fuel, limits.move_fuel
        ));
        let left_at_start = start.call_fuel.saturating_add(start.bank_fuel);
        let target = limits.move_fuel.saturating_add(limits.move_fuel / 2);
        let mut x = u64::from(view.round);
        loop {
            for _ in 0..CHUNK {
                x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407));
            }
            let now = arena_bot_sdk::budget();
            let used = left_at_start.saturating_sub(now.call_fuel.saturating_add(now.bank_fuel));
            if used >= target {
                break;
            }
        }
        black_box(x);
        view.legal_moves()[0]
    }
}

arena_bot_sdk::export!(en_garde, Burner);
