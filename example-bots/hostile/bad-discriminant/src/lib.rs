//! Hostile fixture: answers a move whose `direction` is 7, a discriminant
//! the enum does not have. No SDK can write that, so the exports are
//! written by hand against the canonical ABI; the host cannot read the
//! answer and the bot must forfeit with `invalid-answer`, not `trap`.

// The world's types and exports, as a component-type section; the export
// glue is not generated (no `export!`): the functions below are the exports.
wit_bindgen::generate!({
    path: "../../../wit/0.2.0",
    world: "en-garde",
});

/// The answer: card 1, direction 7 (a `fencer-move` is two bytes).
static ANSWER: [u8; 2] = [1, 7];

#[unsafe(export_name = "start-game")]
extern "C" fn start_game(_seat: i32, _variant: i32, _points: i32, _strip: i32, _seed: i64) {}

#[unsafe(export_name = "start-round")]
extern "C" fn start_round(_round: i32, _first: i32, _scores: i32, _scores_len: i32) {}

/// A `view` flattens to more than 16 values, so it arrives as a pointer;
/// a `fencer-move` is returned through a pointer to its bytes.
#[unsafe(export_name = "choose-move")]
extern "C" fn choose_move(_view: i32) -> i32 {
    ANSWER.as_ptr() as i32
}
