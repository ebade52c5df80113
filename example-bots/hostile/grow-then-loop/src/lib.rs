//! Hostile fixture: asks for 1 GiB, handles the refusal, then loops
//! forever. The refusal is not what ends it: it runs out of fuel, and must
//! forfeit for `fuel`, not `memory`.

use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, View};

struct Greedy;

impl Bot for Greedy {
    fn new(_info: &GameInfo) -> Self {
        Greedy
    }

    fn choose_move(&mut self, view: &View) -> Move {
        let mut hoard: Vec<u8> = Vec::new();
        if hoard.try_reserve(1 << 30).is_ok() {
            return view.legal_moves()[0];
        }
        let mut x: u64 = view.round.into();
        loop {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    }
}

arena_bot_sdk::export!(en_garde, Greedy);
