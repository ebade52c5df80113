//! Hostile fixture: imports a WASI interface the arena does not link
//! (`wasi:frob/thing`). It must be refused at load in one friendly line,
//! like any other import the arena does not provide.

use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, View};

wit_bindgen::generate!({
    inline: "
        package wasi:frob@0.2.0;
        interface thing {
            poke: func();
        }
        world frob {
            import thing;
        }
    ",
    world: "frob",
});

struct Poker;

impl Bot for Poker {
    fn new(_info: &GameInfo) -> Self {
        Poker
    }

    fn choose_move(&mut self, view: &View) -> Move {
        wasi::frob::thing::poke();
        view.legal_moves()[0]
    }
}

arena_bot_sdk::export!(en_garde, Poker);
