//! Every hostile fixture forfeits with the right reason, every game, while
//! the match goes on and the other bot's results stay right.

use arena::games::ForfeitReason;
use arena::sandbox::Limits;
use arena_tests::{Load, en_garde_match};
use std::time::Duration;

/// Fuel enough for any honest En Garde move, small enough that the loops end fast.
fn test_limits() -> Limits {
    Limits {
        fuel: 20_000_000,
        memory_bytes: 16 << 20,
        ..Limits::default()
    }
}

fn assert_every_game_forfeits(fixture: &str, limits: Limits, reason: ForfeitReason) {
    let out = en_garde_match(
        limits,
        "simple",
        [&format!("hostile/{fixture}"), "house:aggressive"],
        6,
        5,
        true,
    );
    assert_forfeits(fixture, &out, reason);
}

fn assert_forfeits(fixture: &str, out: &arena::runner::MatchOutcome, reason: ForfeitReason) {
    let report = &out.report;
    assert_eq!(report.results.len(), 6, "the match goes on after a forfeit");
    for r in &report.results {
        let f = r
            .forfeit
            .as_ref()
            .unwrap_or_else(|| panic!("{fixture}: game {} did not forfeit", r.index));
        let hostile_seat = r.seats.iter().position(|&b| b == 0).unwrap();
        assert_eq!((f.seat, f.reason), (hostile_seat, reason), "{fixture}: {}", f.detail);
        assert_eq!(r.winner, Some(1 - hostile_seat), "the other bot wins");
    }
    assert_eq!(report.bots[0].forfeits[reason.as_str()], 6);
    assert_eq!(report.bots[1].wins, 6);
    assert_eq!(report.bots[1].forfeits.values().sum::<u32>(), 0);
}

#[test]
fn an_infinite_loop_runs_out_of_fuel() {
    assert_every_game_forfeits("infinite-loop", test_limits(), ForfeitReason::Fuel);
}

#[test]
fn a_loop_in_the_round_hook_runs_out_of_fuel() {
    assert_every_game_forfeits("round-loop", test_limits(), ForfeitReason::Fuel);
}

#[test]
fn the_wall_clock_catches_what_a_huge_fuel_budget_lets_through() {
    let limits = Limits {
        fuel: u64::MAX / 2,
        timeout: Duration::from_millis(100),
        ..test_limits()
    };
    // With a per-call limit of 0.1 s, a machine whose other programs leave
    // a bot less than a tenth of a CPU is told apart from a slow bot: the
    // run stops with a host error that says so and scores nothing (the
    // sandbox's own rule). That is right, and not what this test is about:
    // it plays again once the machine gives the bot its share, for at most
    // ten tries.
    let mut tries = 0;
    let out = loop {
        match arena_tests::try_en_garde_match(
            limits.clone(),
            "simple",
            ["hostile/infinite-loop", "house:aggressive"],
            6,
            5,
        ) {
            Ok(out) => break out,
            Err(e) if e.contains("the machine is too loaded") && tries < 10 => {
                tries += 1;
                std::thread::sleep(Duration::from_secs(5));
            }
            Err(e) => panic!("the match is set up right: {e}"),
        }
    };
    assert_forfeits("infinite-loop", &out, ForfeitReason::Timeout);
}

#[test]
fn a_memory_bomb_hits_the_memory_cap() {
    assert_every_game_forfeits("memory-bomb", test_limits(), ForfeitReason::Memory);
}

#[test]
fn unbounded_recursion_traps_on_the_bounded_stack() {
    assert_every_game_forfeits("recursion", test_limits(), ForfeitReason::Trap);
}

#[test]
fn a_panic_traps_and_the_detail_quotes_the_panic_message() {
    assert_every_game_forfeits("panic", test_limits(), ForfeitReason::Trap);
    let out = en_garde_match(test_limits(), "simple", ["hostile/panic", "house:random"], 2, 1, false);
    let detail = &out.report.results[0].forfeit.as_ref().unwrap().detail;
    assert!(detail.contains("index out of bounds"), "{detail}");
}

#[test]
fn an_always_illegal_mover_loses_every_round_but_does_not_forfeit() {
    let out = en_garde_match(
        test_limits(),
        "simple",
        ["hostile/illegal", "house:random"],
        6,
        2,
        false,
    );
    for r in &out.report.results {
        assert!(r.forfeit.is_none());
        let hostile_seat = r.seats.iter().position(|&b| b == 0).unwrap();
        assert_eq!(r.scores[hostile_seat], 0);
        assert_eq!(r.scores[1 - hostile_seat], 5);
    }
}

#[test]
fn a_log_flood_is_capped_and_the_bot_plays_on() {
    let limits = Limits {
        log_bytes: 10_000,
        ..test_limits()
    };
    let out = en_garde_match(limits, "simple", ["hostile/log-flood", "house:random"], 2, 3, true);
    assert!(out.report.results.iter().all(|r| r.forfeit.is_none()));
    let logs: Vec<&serde_json::Value> = out
        .events
        .iter()
        .flatten()
        .filter(|e| e["type"] == "log" && e["seat"].as_u64().is_some())
        .collect();
    assert_eq!(logs.len(), 2, "one log per wasm bot per game");
    for log in logs {
        assert_eq!(log["truncated"], true);
        let bytes: usize = log["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().len())
            .sum();
        assert!(bytes <= 10_000, "kept {bytes} bytes");
        assert!(bytes >= 4096, "kept what fits");
    }
}

#[test]
fn sleeping_advances_a_virtual_clock_instead_of_blocking() {
    let started = std::time::Instant::now();
    let out = en_garde_match(test_limits(), "simple", ["hostile/sleeper", "house:random"], 2, 3, true);
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "an hour-long sleep must not block"
    );
    assert!(out.report.results.iter().all(|r| r.forfeit.is_none()));
    let lines: Vec<String> = out
        .events
        .iter()
        .flatten()
        .filter(|e| e["type"] == "log")
        .flat_map(|e| {
            e["lines"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_str().unwrap().to_string())
        })
        .collect();
    assert!(
        lines.iter().any(|l| l.starts_with("slept 3600s, wall clock 17040")),
        "{lines:?}"
    );
    // Virtual time is deterministic: the same match logs the same times.
    let again = en_garde_match(test_limits(), "simple", ["hostile/sleeper", "house:random"], 2, 3, true);
    assert_eq!(out.events, again.events);
}

/// Host work is paid in fuel: the same bot on the same seed forfeits for
/// `fuel`, with the same detail and the same fuel used, idle and under load.
fn assert_host_work_is_fuel_under_load_and_idle(fixture: &str) {
    let run = || {
        en_garde_match(
            test_limits(),
            "simple",
            [&format!("hostile/{fixture}"), "house:aggressive"],
            2,
            5,
            true,
        )
    };
    let idle = run();
    let busy = {
        let _load = Load::on_all_cores();
        run()
    };
    for r in &idle.report.results {
        let f = r
            .forfeit
            .as_ref()
            .unwrap_or_else(|| panic!("{fixture}: game {} did not forfeit", r.index));
        assert_eq!(f.reason, ForfeitReason::Fuel, "{fixture}: {}", f.detail);
        assert!(f.detail.starts_with("ran out of fuel"), "{fixture}: {}", f.detail);
    }
    assert_eq!(
        idle.report.results, busy.report.results,
        "{fixture}: the same results under load"
    );
    assert_eq!(
        idle.events, busy.events,
        "{fixture}: the same events, fuel included, under load"
    );
    assert_every_game_forfeits(fixture, test_limits(), ForfeitReason::Fuel);
}

#[test]
fn a_flood_of_random_bytes_is_stopped_by_fuel_under_load_and_idle() {
    assert_host_work_is_fuel_under_load_and_idle("random-flood");
}

#[test]
fn a_flood_of_one_byte_log_calls_is_stopped_by_fuel_under_load_and_idle() {
    assert_host_work_is_fuel_under_load_and_idle("log-byte-flood");
}

#[test]
fn logging_a_huge_string_again_and_again_is_stopped_by_fuel_under_load_and_idle() {
    let started = std::time::Instant::now();
    assert_host_work_is_fuel_under_load_and_idle("log-huge-string");
    assert!(
        started.elapsed() < Duration::from_secs(120),
        "a full log does not read the string again"
    );
}

#[test]
fn a_handled_memory_refusal_followed_by_a_loop_forfeits_for_fuel_not_memory() {
    assert_every_game_forfeits("grow-then-loop", test_limits(), ForfeitReason::Fuel);
    let out = en_garde_match(
        test_limits(),
        "simple",
        ["hostile/grow-then-loop", "house:random"],
        1,
        1,
        false,
    );
    let detail = &out.report.results[0].forfeit.as_ref().unwrap().detail;
    assert!(detail.starts_with("ran out of fuel: one move used"), "{detail}");
}

#[test]
fn a_memory_bomb_still_forfeits_for_memory_with_the_cap_in_the_detail() {
    let out = en_garde_match(
        test_limits(),
        "simple",
        ["hostile/memory-bomb", "house:random"],
        1,
        1,
        false,
    );
    let f = out.report.results[0].forfeit.as_ref().unwrap();
    assert_eq!(f.reason, ForfeitReason::Memory);
    assert_eq!(
        f.detail,
        "tried to grow memory beyond the cap of 16 MiB (all memories and tables together)"
    );
}

#[test]
fn an_unlinked_wasi_import_is_refused_as_an_import_the_arena_does_not_provide() {
    let sandbox = arena::adapters::sandbox(test_limits()).expect("sandbox");
    let game = arena::adapters::game("en-garde").unwrap();
    let err = sandbox
        .load(&arena_tests::bot("hostile/unknown-wasi"), game.worlds())
        .expect_err("refused at load")
        .to_string();
    assert!(
        err.contains("imports `wasi:frob/thing@0.2.0#poke`, which the arena does not provide"),
        "{err}"
    );
    assert!(!err.contains("linker"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn an_unlinked_function_of_the_host_interface_is_refused_the_same_way() {
    // The fuel burner calls `budget`; rename it to a function the host lacks.
    let mut bytes = std::fs::read(arena_tests::bot("hostile/fuel-burner")).expect("read the bot");
    let mut found = 0;
    let mut i = 0;
    while let Some(at) = bytes[i..].windows(6).position(|w| w == b"budget") {
        bytes[i + at + 5] = b'x';
        i += at + 6;
        found += 1;
    }
    assert!(found > 0, "the bot imports `budget`");
    let path = arena_tests::temp("unlinked-host-function").join("bot.wasm");
    std::fs::write(&path, bytes).unwrap();
    let sandbox = arena::adapters::sandbox(test_limits()).expect("sandbox");
    let game = arena::adapters::game("en-garde").unwrap();
    let err = sandbox
        .load(&path, game.worlds())
        .expect_err("refused at load")
        .to_string();
    assert!(
        err.contains("imports `arena:bots/host@0.2.0#budgex`, which the arena does not provide"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn an_answer_with_a_discriminant_the_enum_lacks_is_an_invalid_answer_not_a_trap() {
    assert_every_game_forfeits("bad-discriminant", test_limits(), ForfeitReason::InvalidAnswer);
    let out = en_garde_match(
        test_limits(),
        "simple",
        ["hostile/bad-discriminant", "house:random"],
        1,
        1,
        false,
    );
    assert_eq!(
        out.report.results[0].forfeit.as_ref().unwrap().detail,
        "answered a value the host cannot read as the world's type: unexpected discriminant: 7; \
         was the bot built with the arena's WIT files and an up-to-date SDK?"
    );
}

/// The loops of `tests/loops.rs` that take longest per unit of fuel, of
/// every kind: float, integer division, indirect and tail calls, zero-length
/// bulk operations, host calls, vector conversions, loads in a chain, and a
/// loop in `cabi_realloc` and in a start function (instantiation).
const SLOWEST_LOOPS: &[&str] = &[
    "f64.sqrt",
    "f64.min",
    "f64.sqrt, in a start function",
    "typical, in a start function",
    "typical, in cabi_realloc",
    "i64.div_u",
    "call_indirect",
    "return_call (endless tail calls)",
    "memory.fill 0 bytes",
    "memory.fill of 0 byte, opaque length",
    "table.init 0",
    "memory.grow 0",
    "log of 1 byte",
    "budget()",
    "f64.div subnormal chain",
    "f64.sqrt chain",
    "i64.div_u chain",
    "i32.load chain (one address)",
    "i32x4.trunc_sat_f32x4_u chain",
    "i64x2.all_true + splat chain",
    "f64.add, one per pass",
];

/// Fuel decides on every machine (issue 33): under the game's own limits,
/// each of the slowest loops forfeits for `fuel` in every game, with one
/// thread, with two, and with two while every core is kept busy, and the
/// three runs give the same results and the same fuel, call by call.
#[test]
fn the_slowest_loops_run_out_of_fuel_with_any_threads_and_under_load() {
    use arena_tests::loops::{catalogue, en_garde_file};
    let dir = arena_tests::temp("slowest-loops");
    let catalogue = catalogue();
    let limits = arena::adapters::game("en-garde").expect("En Garde").default_limits();
    let run = |jobs: usize, file: &std::path::Path| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .expect("a pool");
        let bot = file.to_str().expect("a UTF-8 path");
        pool.install(|| en_garde_match(limits.clone(), "standard", [bot, "house:random"], 2, 11, true))
    };
    for name in SLOWEST_LOOPS {
        let attack = catalogue
            .iter()
            .find(|a| a.name == *name)
            .unwrap_or_else(|| panic!("no loop named {name}"));
        let file = en_garde_file(&dir, attack);
        let one = run(1, &file);
        let two = run(2, &file);
        let loaded = {
            let _load = Load::on_all_cores();
            run(2, &file)
        };
        for r in &one.report.results {
            let f = r
                .forfeit
                .as_ref()
                .unwrap_or_else(|| panic!("{name}: game {} did not forfeit", r.index));
            let seat = r.seats.iter().position(|&b| b == 0).expect("the loop is seated");
            assert_eq!((f.seat, f.reason), (seat, ForfeitReason::Fuel), "{name}: {}", f.detail);
        }
        for (threads, other) in [("two threads", &two), ("two threads under load", &loaded)] {
            assert_eq!(
                one.report.results, other.report.results,
                "{name}: results with {threads}"
            );
            assert_eq!(one.events, other.events, "{name}: events and fuel with {threads}");
        }
    }
}

#[test]
fn a_global_that_counts_games_sees_one_every_game_whatever_the_threads() {
    // 40 games on rayon's threads: an instance reused by a thread, or state
    // kept between games, would print "game 2" or more.
    let out = en_garde_match(
        Limits::default(),
        "simple",
        ["hostile/counts-games", "house:random"],
        40,
        2,
        true,
    );
    assert_eq!(out.report.results.len(), 40);
    let mut seen = 0;
    for (result, events) in out.report.results.iter().zip(&out.events) {
        let seat = result.seats.iter().position(|&b| b == 0).expect("the counter plays");
        let log = events
            .iter()
            .find(|e| e["type"] == "log" && e["seat"] == seat)
            .expect("the counter's log");
        assert_eq!(
            log["lines"],
            serde_json::json!(["game 1 of this instance"]),
            "game {}",
            result.index
        );
        seen += 1;
    }
    assert_eq!(seen, 40);
}
