//! Hostile fixture: unbounded recursion.

use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, View};

struct Deep;

#[allow(unconditional_recursion)] // the point of this fixture
fn dive(n: u64, pad: [u64; 16]) -> u64 {
    let mut next = pad;
    next[(n % 16) as usize] = n;
    std::hint::black_box(dive(n + 1, std::hint::black_box(next))) + next[0]
}

impl Bot for Deep {
    fn new(_info: &GameInfo) -> Self {
        Deep
    }

    fn choose_move(&mut self, view: &View) -> Move {
        let n = dive(u64::from(view.round), [0; 16]);
        Move { card: n as u8, direction: arena_bot_sdk::en_garde::Direction::Forward }
    }
}

arena_bot_sdk::export!(en_garde, Deep);
