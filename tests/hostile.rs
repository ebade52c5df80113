//! Every hostile fixture forfeits with the right reason, every game, while
//! the match goes on and the other bot's results stay right.

use arena::games::ForfeitReason;
use arena::sandbox::Limits;
use arena_tests::en_garde_match;
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
    assert_every_game_forfeits("infinite-loop", limits, ForfeitReason::Timeout);
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
