//! Readable failures: a forfeit's detail says what happened and where, in
//! words a student can act on.

use arena::games::ForfeitReason;
use arena::sandbox::Limits;
use arena_tests::en_garde_match;

#[test]
fn a_trap_names_the_bots_own_function_where_the_component_keeps_names() {
    // `hostile/out-of-bounds` is built without stripping its symbols and reads
    // past the end of its memory from `read_past_the_end`.
    let out = en_garde_match(
        Limits::default(),
        "simple",
        ["hostile/out-of-bounds", "house:random"],
        2,
        1,
        false,
    );
    for r in &out.report.results {
        let f = r.forfeit.as_ref().expect("the bot traps");
        assert_eq!(f.reason, ForfeitReason::Trap);
        assert!(
            f.detail
                .contains("out of bounds memory access in `hostile_out_of_bounds::read_past_the_end`"),
            "the detail names the demangled function: {}",
            f.detail
        );
    }
}

#[test]
fn a_rust_panic_shows_its_message_and_its_location() {
    let out = en_garde_match(
        Limits::default(),
        "simple",
        ["hostile/panic", "house:random"],
        2,
        1,
        false,
    );
    for r in &out.report.results {
        let f = r.forfeit.as_ref().expect("the bot panics");
        assert_eq!(f.reason, ForfeitReason::Trap);
        assert!(
            f.detail.contains("panicked at")
                && f.detail.contains("src/lib.rs:")
                && f.detail.contains("index out of bounds"),
            "message and location: {}",
            f.detail
        );
        assert!(!f.detail.contains("error while executing"), "{}", f.detail);
    }
}
