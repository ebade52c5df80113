//! The hostile corpus (`example-bots/hostile/corpus`): one attack per
//! `.wasm`, aimed at one export of one world. Every attack ends exactly as
//! `docs/security.md` says: a forfeit with its reason and detail, an illegal
//! move judged by the game's rules, or a bot that plays on and finds the
//! door shut.

use arena::games::{ForfeitReason, IllegalMoves};
use arena::sandbox::Limits;
use arena_tests::play_under;
use serde_json::Value;

/// Fuel enough for any honest move, small enough that the loops end fast.
fn limits() -> Limits {
    Limits {
        fuel: 20_000_000,
        memory_bytes: 16 << 20,
        log_bytes: 10_000,
        ..Limits::default()
    }
}

/// What an attack must come to, in every game.
enum Expect {
    /// The attacker forfeits with this reason and a detail containing this.
    Forfeit(ForfeitReason, &'static str),
    /// As [`Expect::Forfeit`], under `--illegal forfeit`.
    ForfeitUnderForfeitRule(ForfeitReason, &'static str),
    /// Under the course's rules: no forfeit, and an `illegal` event from
    /// the attacker with this `why`.
    Illegal(&'static str),
    /// No forfeit; the attacker's log holds this line (prefix).
    PlaysOn(&'static str),
    /// No forfeit; the attacker's log was cut at the cap.
    Truncated,
}

use Expect::*;
use ForfeitReason::*;

const FUEL_IN_A_MOVE: &str = "ran out of fuel: one move used 20.0M";
const FUEL_AT_START: &str = "ran out of fuel: a start-up call used";
const MEMORY: &str = "tried to grow memory beyond the cap of 16 MiB";
const STACK: &str = "stack overflow (unbounded recursion?)";
const UNREACHABLE: &str = "wasm trap: wasm `unreachable` instruction executed";
const EXIT: &str = "the bot exited with status 1";

/// Every attack of `attacks.txt` and what it must come to.
const CORPUS: &[(&str, Expect)] = &[
    ("connect-fwar-start-trap", Forfeit(Trap, UNREACHABLE)),
    ("connect-fwar-start-memory", Forfeit(Memory, MEMORY)),
    ("connect-fwar-column-loop", Forfeit(Fuel, FUEL_IN_A_MOVE)),
    ("connect-fwar-column-recursion", Forfeit(Trap, STACK)),
    ("connect-fwar-column-log-flood", Truncated),
    ("connect-fwar-column-exit", Forfeit(Trap, EXIT)),
    (
        "connect-fwar-column-out-of-range",
        ForfeitUnderForfeitRule(IllegalMove, "named column -2147483648 for the"),
    ),
    (
        "sugar-place-short",
        Forfeit(InvalidAnswer, "invalid placement: a placement lists 5 cells, got 3"),
    ),
    (
        "sugar-place-off-grid",
        Forfeit(InvalidAnswer, "invalid placement: cell x = 200 is off the grid (0-4)"),
    ),
    (
        "sugar-place-huge",
        Forfeit(
            InvalidAnswer,
            "invalid placement: a placement lists 5 cells, got 8000000",
        ),
    ),
    ("sugar-place-loop", Forfeit(Fuel, FUEL_AT_START)),
    ("sugar-place-panic", Forfeit(Trap, "the corpus panics in sugar-place")),
    ("sugar-action-recursion", Forfeit(Trap, STACK)),
    ("sugar-action-memory", Forfeit(Memory, MEMORY)),
    ("sugar-action-foreign-agent", Illegal("not-your-agent")),
    ("sugar-action-loop", Forfeit(Fuel, FUEL_IN_A_MOVE)),
    ("sugar-action-notes", PlaysOn("private strategy notes of sugar-action")),
    ("president-start-loop", Forfeit(Fuel, FUEL_AT_START)),
    ("president-start-recursion", Forfeit(Trap, STACK)),
    ("president-play-memory", Forfeit(Memory, MEMORY)),
    ("president-play-loop", Forfeit(Fuel, FUEL_IN_A_MOVE)),
    (
        "president-play-panic",
        Forfeit(Trap, "the corpus panics in president-play"),
    ),
    ("president-play-not-in-hand", Illegal("not-in-hand")),
    (
        "president-play-hundred-cards",
        Forfeit(InvalidAnswer, "100 cards in one move"),
    ),
    ("president-play-jokers-mixed", Illegal("mixed")),
    (
        "president-play-huge",
        Forfeit(InvalidAnswer, "1000000 cards in one move"),
    ),
    (
        "president-play-notes",
        PlaysOn("private strategy notes of president-play"),
    ),
    ("en-garde-start-trap", Forfeit(Trap, UNREACHABLE)),
    ("en-garde-start-memory", Forfeit(Memory, MEMORY)),
    ("en-garde-start-log-flood", Truncated),
    (
        "en-garde-round-panic",
        Forfeit(Trap, "the corpus panics in en-garde-round"),
    ),
    ("en-garde-round-recursion", Forfeit(Trap, STACK)),
    ("en-garde-move-exit", Forfeit(Trap, EXIT)),
    ("en-garde-move-clock-loop", Forfeit(Fuel, FUEL_IN_A_MOVE)),
    (
        "en-garde-move-files",
        PlaysOn(
            "files: read Err(Os { code: 44, kind: NotFound, message: \"No such file or directory\" }); \
             create Err(Os { code: 44",
        ),
    ),
    (
        "en-garde-move-sockets",
        PlaysOn(
            "sockets: tcp Err(Os { code: 2, kind: PermissionDenied, message: \"Permission denied\" }); \
             udp Err(Os { code: 2, kind: PermissionDenied",
        ),
    ),
    (
        "en-garde-move-env",
        PlaysOn("env: 0 variables, 0 arguments, current dir Ok(\"/\")"),
    ),
    ("en-garde-start-hold-61mib", PlaysOn("holding 63963136 bytes")),
    (
        "en-garde-move-notes",
        PlaysOn("private strategy notes of en-garde-move"),
    ),
];

/// The attacks `attacks.txt` lists, with their worlds.
fn listed() -> Vec<(String, String)> {
    let path = arena_tests::root().join("example-bots/hostile/corpus/attacks.txt");
    std::fs::read_to_string(path)
        .expect("read attacks.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (attack, world) = l.split_once(' ').expect("`name world`");
            (attack.to_string(), world.trim().to_string())
        })
        .collect()
}

/// Play `attack` against house bots, once from every seat, and check it.
fn check(attack: &str) {
    let (_, world) = listed()
        .into_iter()
        .find(|(a, _)| a == attack)
        .unwrap_or_else(|| panic!("{attack} is not in attacks.txt"));
    let expect = &CORPUS.iter().find(|(a, _)| *a == attack).expect("in CORPUS").1;
    let me = format!("hostile/{attack}");
    let bots: Vec<&str> = match world.as_str() {
        "connect-fwar" => vec![&me],
        "president" => vec![&me, "house:lowest", "house:random"],
        "sugar" => vec![&me, "house:greedy"],
        _ => vec![&me, "house:random"],
    };
    let mut limits = limits();
    if attack.ends_with("61mib") {
        limits.memory_bytes = 64 << 20;
    }
    let rule = match expect {
        ForfeitUnderForfeitRule(..) => IllegalMoves::Forfeit,
        _ => IllegalMoves::Course,
    };
    // Every seat order once: a table of three plays six.
    let games = arena::runner::whole_rotations(bots.len().max(2), bots.len());
    let out = play_under(&world, limits, None, rule, &bots, games, 1, true);
    assert_eq!(out.report.results.len(), games, "{attack}: the match goes on");
    for (r, events) in out.report.results.iter().zip(&out.events) {
        let seat = r.seats.iter().position(|&b| b == 0).unwrap();
        let mine = |kind: &str| -> Vec<&Value> {
            events
                .iter()
                .filter(|e| e["type"] == kind && e["seat"].as_u64() == Some(seat as u64))
                .collect()
        };
        let log: Vec<&str> = mine("log")
            .iter()
            .flat_map(|e| e["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()))
            .collect();
        match expect {
            Forfeit(reason, detail) | ForfeitUnderForfeitRule(reason, detail) => {
                assert_eq!(r.forfeits.len(), 1, "{attack}: {:?}", r.forfeits);
                let f = &r.forfeits[0];
                assert_eq!((f.seat, f.reason), (seat, *reason), "{attack}: {}", f.detail);
                assert!(f.detail.contains(detail), "{attack}: {}", f.detail);
                assert!(
                    r.scores.iter().all(|&s| s >= r.scores[seat]),
                    "{attack}: scores {:?}",
                    r.scores
                );
            }
            Illegal(why) => {
                assert!(r.forfeits.is_empty(), "{attack}: {:?}", r.forfeits);
                let illegal = mine("illegal");
                assert_eq!(illegal.len(), 1, "{attack}: one illegal move ends its game");
                assert_eq!(illegal[0]["why"], *why, "{attack}");
                assert!(
                    r.scores.iter().all(|&s| s >= r.scores[seat]),
                    "{attack}: scores {:?}",
                    r.scores
                );
            }
            PlaysOn(line) => {
                assert!(r.forfeits.is_empty(), "{attack}: {:?}", r.forfeits);
                assert!(log.iter().any(|l| l.starts_with(line)), "{attack}: {log:?}");
            }
            Truncated => {
                assert!(r.forfeits.is_empty(), "{attack}: {:?}", r.forfeits);
                assert_eq!(mine("log")[0]["truncated"], true, "{attack}");
                let kept: usize = log.iter().map(|l| l.len()).sum();
                assert!((4096..=10_000).contains(&kept), "{attack}: kept {kept} bytes");
            }
        }
    }
}

#[test]
fn the_corpus_is_listed_built_and_tested_one_for_one() {
    let listed: Vec<String> = listed().into_iter().map(|(a, _)| a).collect();
    let tested: Vec<&str> = CORPUS.iter().map(|(a, _)| *a).collect();
    assert_eq!(
        listed, tested,
        "attacks.txt and CORPUS list the same attacks in the same order"
    );
    for attack in &listed {
        assert!(
            arena_tests::bot(&format!("hostile/{attack}")).is_file(),
            "{attack} is built"
        );
    }
    for world in ["connect-fwar", "sugar", "president", "en-garde"] {
        for export in match world {
            "connect-fwar" => &["start", "column"][..],
            "sugar" => &["place", "action"][..],
            "president" => &["start", "play"][..],
            _ => &["start", "round", "move"][..],
        } {
            let prefix = format!("{world}-{export}-");
            assert!(
                listed.iter().any(|a| a.starts_with(&prefix)),
                "no attack from {prefix}*"
            );
        }
    }
}

macro_rules! attacks {
    ($($test:ident: $attack:literal,)*) => {
        $(
            #[test]
            fn $test() {
                check($attack);
            }
        )*

        #[test]
        fn every_attack_has_its_test() {
            let tests = [$($attack),*];
            for (attack, _) in CORPUS {
                assert!(tests.contains(attack), "no test for {attack}");
            }
        }
    };
}

attacks! {
    connect_fwar_start_trap: "connect-fwar-start-trap",
    connect_fwar_start_memory: "connect-fwar-start-memory",
    connect_fwar_column_loop: "connect-fwar-column-loop",
    connect_fwar_column_recursion: "connect-fwar-column-recursion",
    connect_fwar_column_log_flood: "connect-fwar-column-log-flood",
    connect_fwar_column_exit: "connect-fwar-column-exit",
    connect_fwar_column_out_of_range: "connect-fwar-column-out-of-range",
    sugar_place_short: "sugar-place-short",
    sugar_place_off_grid: "sugar-place-off-grid",
    sugar_place_huge: "sugar-place-huge",
    sugar_place_loop: "sugar-place-loop",
    sugar_place_panic: "sugar-place-panic",
    sugar_action_recursion: "sugar-action-recursion",
    sugar_action_memory: "sugar-action-memory",
    sugar_action_foreign_agent: "sugar-action-foreign-agent",
    sugar_action_loop: "sugar-action-loop",
    sugar_action_notes: "sugar-action-notes",
    president_start_loop: "president-start-loop",
    president_start_recursion: "president-start-recursion",
    president_play_memory: "president-play-memory",
    president_play_loop: "president-play-loop",
    president_play_panic: "president-play-panic",
    president_play_not_in_hand: "president-play-not-in-hand",
    president_play_hundred_cards: "president-play-hundred-cards",
    president_play_jokers_mixed: "president-play-jokers-mixed",
    president_play_huge: "president-play-huge",
    president_play_notes: "president-play-notes",
    en_garde_start_trap: "en-garde-start-trap",
    en_garde_start_memory: "en-garde-start-memory",
    en_garde_start_log_flood: "en-garde-start-log-flood",
    en_garde_round_panic: "en-garde-round-panic",
    en_garde_round_recursion: "en-garde-round-recursion",
    en_garde_move_exit: "en-garde-move-exit",
    en_garde_move_clock_loop: "en-garde-move-clock-loop",
    en_garde_move_files: "en-garde-move-files",
    en_garde_move_sockets: "en-garde-move-sockets",
    en_garde_move_env: "en-garde-move-env",
    en_garde_start_hold_61mib: "en-garde-start-hold-61mib",
    en_garde_move_notes: "en-garde-move-notes",
}
