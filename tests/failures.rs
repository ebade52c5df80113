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
        assert!(
            f.detail.starts_with("panicked at hostile/panic/src/lib.rs:"),
            "the bot's words, no wasm prefix: {}",
            f.detail
        );
    }
}

/// A match as a library caller (the course server) would make it.
fn spec_of<'a>(
    game: &str,
    sandbox: &'a arena::sandbox::Sandbox,
    entrants: Vec<arena::runner::Entrant>,
) -> arena::runner::MatchSpec<'a> {
    arena::runner::MatchSpec {
        game: arena::adapters::game(game).expect("a known game"),
        setup: arena::runner::GameSetup::new(sandbox),
        entrants,
        games: 2,
        seed: 1,
        record: false,
    }
}

#[test]
fn the_library_refuses_a_bot_built_for_another_games_world_before_any_game() {
    let sandbox = arena::adapters::sandbox(Limits::default()).expect("sandbox");
    // Loaded for ConnectFwar, entered in En Garde: a caller's mix-up, never
    // an invalid-answer forfeit in every game.
    let cf = arena_tests::entrant_for("connect-fwar", &sandbox, "connect-fwar/basic");
    let spec = spec_of(
        "en-garde",
        &sandbox,
        vec![cf, arena_tests::entrant(&sandbox, "house:random")],
    );
    let err = arena::runner::run_match(&spec).err().expect("refused").to_string();
    assert!(
        err.contains("a component for another world; expected world arena:bots/en-garde@0.2.0")
            && err.contains("a bot built for arena:bots/connect-fwar@"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let units = arena::runner::units(&spec);
    assert!(
        arena::runner::play_unit(&spec, &units[0]).is_err(),
        "every entry point refuses"
    );
}

#[test]
fn the_library_refuses_a_president_table_of_one_or_nine() {
    let sandbox = arena::adapters::sandbox(Limits::default()).expect("sandbox");
    for n in [1, 7, 9] {
        let bots = (0..n)
            .map(|_| arena_tests::entrant_for("president", &sandbox, "house:random"))
            .collect();
        let spec = spec_of("president", &sandbox, bots);
        let err = arena::runner::run_match(&spec).err().expect("refused").to_string();
        assert_eq!(err, format!("president takes 2 to 6 bots, got {n}"));
    }
    // The command line says the same, from the same check.
    arena_tests::assert_one_line_error(
        &["match", "--game", "president", "house:random"],
        "president takes 2 to 6 bots, got 1",
    );
}

#[test]
fn the_start_of_a_round_is_not_counted_as_a_move() {
    let out = en_garde_match(
        Limits::default(),
        "standard",
        ["en-garde/aggressive", "house:random"],
        4,
        7,
        true,
    );
    // Each of the bot's moves is one `move` event of its seat; the
    // last-chance attack is made for it (docs/rules/en-garde.md, rule 7.3),
    // and the calls at the start of each round are no moves.
    let mut moves = 0;
    for (result, events) in out.report.results.iter().zip(&out.events) {
        let seat = result.seats.iter().position(|&b| b == 0).expect("the bot plays");
        moves += events
            .iter()
            .filter(|e| e["type"] == "move" && e["seat"] == seat)
            .count() as u64;
    }
    let fuel = out.report.bots[0].fuel.as_ref().expect("a wasm bot's fuel");
    assert_eq!(fuel.moves, moves, "moves in the fuel statistics are the bot's moves");
}
