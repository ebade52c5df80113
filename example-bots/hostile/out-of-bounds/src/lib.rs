//! Hostile fixture: reads far past the end of its memory on its first move
//! (a trap, not a panic), from a function whose name the component keeps
//! (this crate is built without stripping symbols), so the forfeit's detail
//! can name it.

use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, View};

struct Stray;

/// Reads the byte at `address`, unchecked: a wild pointer in a student's bot.
#[inline(never)]
fn read_past_the_end(address: usize) -> u8 {
    // SAFETY: none; the point of this fixture is an access outside linear memory.
    unsafe { std::ptr::read_volatile(address as *const u8) }
}

impl Bot for Stray {
    fn new(_info: &GameInfo) -> Self {
        Stray
    }

    fn choose_move(&mut self, view: &View) -> Move {
        let byte = read_past_the_end(0xFFFF_FFF0 - usize::from(view.seat));
        view.legal_moves()[usize::from(byte) % view.legal_moves().len()]
    }
}

arena_bot_sdk::export!(en_garde, Stray);
