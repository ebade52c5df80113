//! World 0.2's fuel: a per-move budget, a bank for overdrafts, and a budget
//! the bot reads itself; old 0.1 bots next to 0.2 bots in one match; files
//! built for a version the arena does not know.
//!
//! `hostile/fuel-burner` logs `budget call=C bank=B move=M` as it reads them
//! on entry to each move, then burns 1.5 times its per-move budget.

use arena::games::ForfeitReason;
use arena::sandbox::Limits;
use arena_tests::{assert_one_line_error, bot, en_garde_match, play, temp};
use serde_json::Value;

const MOVE: u64 = 2_000_000;

fn limits(bank: u64) -> Limits {
    Limits {
        fuel: MOVE,
        bank,
        start_fuel: 50_000_000,
        ..Limits::default()
    }
}

/// The burner's moves (as `move` events) in game `g` of a recorded match, and its forfeit.
fn burner_moves(events: &[Value], seat: u64) -> usize {
    events
        .iter()
        .filter(|e| e["type"] == "move" && e["seat"] == seat)
        .count()
}

#[test]
fn a_bank_of_twice_the_budget_pays_three_moves_of_one_and_a_half_and_the_fourth_forfeits() {
    let out = en_garde_match(
        limits(2 * MOVE),
        "simple",
        ["hostile/fuel-burner", "house:random"],
        2,
        7,
        true,
    );
    for (r, events) in out.report.results.iter().zip(&out.events) {
        let seat = r.seats.iter().position(|&b| b == 0).expect("the burner sits") as u64;
        let f = r.forfeit.as_ref().expect("the burner forfeits");
        assert_eq!((f.seat as u64, f.reason), (seat, ForfeitReason::Fuel), "{}", f.detail);
        assert_eq!(
            burner_moves(events, seat),
            3,
            "three moves paid by the bank, then the fourth forfeits"
        );
        assert!(
            f.detail.contains("over its allowance of 2.00M (per-move budget 2.00M)")
                && f.detail.contains("left in the bank"),
            "the detail says what was used, the budget and the bank: {}",
            f.detail
        );
    }
    let broke = en_garde_match(limits(0), "simple", ["hostile/fuel-burner", "house:random"], 2, 7, true);
    for (r, events) in broke.report.results.iter().zip(&broke.events) {
        let seat = r.seats.iter().position(|&b| b == 0).expect("the burner sits") as u64;
        assert_eq!(r.forfeit.as_ref().map(|f| f.reason), Some(ForfeitReason::Fuel));
        assert_eq!(burner_moves(events, seat), 0, "without a bank the first move forfeits");
    }
}

#[test]
fn the_budget_a_bot_reads_is_the_hosts_own_account_of_its_move_and_its_bank() {
    let bank = 20 * MOVE;
    let out = en_garde_match(
        limits(bank),
        "simple",
        ["hostile/fuel-burner", "house:aggressive"],
        4,
        11,
        true,
    );
    let mut checked = 0;
    for (r, events) in out.report.results.iter().zip(&out.events) {
        let seat = r.seats.iter().position(|&b| b == 0).expect("the burner sits");
        let log = events
            .iter()
            .find(|e| e["type"] == "log" && e["seat"] == seat as u64)
            .expect("the burner's log");
        let mut lines = log["lines"]
            .as_array()
            .expect("lines")
            .iter()
            .map(|l| l.as_str().unwrap_or(""));
        let fuel = events.iter().find(|e| e["type"] == "fuel").expect("a fuel event");
        // Replay the host's account: a move's overdraft comes out of the bank.
        let mut left = bank;
        let (mut lines_before, mut mark_before) = (0, 0);
        for call in fuel["calls"][seat].as_array().expect("calls") {
            let (kind, used) = (call[0].as_str().unwrap_or(""), call[1].as_u64().unwrap_or(0));
            // Each call's record places it among the game's events and says
            // which log lines it wrote: the burner writes one per burning move.
            let (mark, lines_after) = (call[2].as_u64().expect("mark"), call[3].as_u64().expect("log lines"));
            assert!(
                mark >= mark_before && mark as usize <= events.len(),
                "calls in order among the events"
            );
            let burning = kind == "move" && used > MOVE;
            assert_eq!(
                lines_after - lines_before,
                u64::from(burning),
                "the lines this call logged"
            );
            (lines_before, mark_before) = (lines_after, mark);
            if burning {
                let line = lines.next().expect("one log line per burning move");
                let read: Vec<u64> = line
                    .split_whitespace()
                    .filter_map(|w| w.split_once('=').and_then(|(_, v)| v.parse().ok()))
                    .collect();
                let [call_fuel, bank_fuel, move_fuel] = read[..] else {
                    panic!("unexpected log line {line}");
                };
                assert_eq!(move_fuel, MOVE, "limits() gives the per-move budget");
                assert_eq!(bank_fuel, left, "the bank read on entry is the host's bank");
                assert!(
                    call_fuel <= MOVE && MOVE - call_fuel < 20_000,
                    "the move's own fuel, less its first instructions: {call_fuel}"
                );
                checked += 1;
            }
            if kind == "move" {
                left -= used.saturating_sub(MOVE).min(left);
            }
        }
        assert!(lines.next().is_none(), "every budget line matched a move");
    }
    assert!(checked >= 8, "checked {checked} moves");
}

#[test]
fn results_with_banks_do_not_depend_on_the_number_of_threads() {
    let run = |jobs: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .expect("pool")
            .install(|| {
                en_garde_match(
                    limits(10 * MOVE),
                    "standard",
                    ["hostile/fuel-burner", "en-garde/random"],
                    8,
                    5,
                    true,
                )
            })
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one.report.results, two.report.results);
    assert_eq!(one.events, two.events, "every event, log line and call's fuel");
}

#[test]
fn an_old_0_1_bot_and_a_0_2_bot_play_one_match_exactly_like_their_house_twins() {
    let mixed = ["v0.1.0/en-garde-aggressive", "en-garde/random"];
    let first = play("en-garde", Limits::default(), Some("standard"), &mixed, 40, 21, true);
    let again = play("en-garde", Limits::default(), Some("standard"), &mixed, 40, 21, true);
    assert_eq!(first.report.results, again.report.results);
    assert_eq!(first.events, again.events, "bit for bit, fuel included");
    let house = play(
        "en-garde",
        Limits::default(),
        Some("standard"),
        &["house:aggressive", "house:random"],
        40,
        21,
        false,
    );
    assert_eq!(
        first.report.results, house.report.results,
        "each plays as its house twin"
    );
    let fuel = |i: usize| first.report.bots[i].fuel.clone().expect("a wasm bot's fuel");
    assert!(fuel(0).moves > 0 && fuel(1).moves > 0);
}

/// A copy of a built bot with every `@0.2.0` in its import names replaced.
fn patched(version: &[u8; 5], only_host: bool) -> std::path::PathBuf {
    // The fuel burner imports the host interface (it reads its budget) and the En Garde types.
    let mut bytes = std::fs::read(bot("hostile/fuel-burner")).expect("read the bot");
    let needle: &[u8] = if only_host { b"arena:bots/host@0.2.0" } else { b"@0.2.0" };
    let mut i = 0;
    let mut found = 0;
    while let Some(at) = bytes[i..].windows(needle.len()).position(|w| w == needle) {
        let end = i + at + needle.len();
        bytes[end - 5..end].copy_from_slice(version);
        i = end;
        found += 1;
    }
    assert!(found > 0, "the bot imports 0.2.0 names");
    let path = temp(&format!("patched-{}-{only_host}", String::from_utf8_lossy(version))).join("bot.wasm");
    std::fs::write(&path, bytes).expect("write");
    path
}

#[test]
fn a_bot_for_an_unknown_or_mixed_version_is_refused_in_one_line_naming_the_versions() {
    let unknown = patched(b"0.3.0", false);
    assert_one_line_error(
        &["match", "--game", "en-garde", unknown.to_str().unwrap(), "house:random"],
        "built for arena:bots@0.3.0, a version this arena does not know; it runs bots built for versions 0.1.0, 0.2.0",
    );
    let mixed = patched(b"0.1.0", true);
    assert_one_line_error(
        &["match", "--game", "en-garde", mixed.to_str().unwrap(), "house:random"],
        "imports versions 0.1.0 and 0.2.0 of the bots' package at once",
    );
}

#[test]
fn limits_that_make_no_sense_are_one_line() {
    assert_one_line_error(
        &[
            "match",
            "--game",
            "en-garde",
            "house:random",
            "house:random",
            "--fuel",
            "5000",
            "--start-fuel",
            "100",
        ],
        "--start-fuel 100 is smaller than the per-move budget --fuel 5000",
    );
    // A zero bank is fine, and the flag reaches the bot: the burner, which
    // needs 1.5 moves' fuel, forfeits on its first move without a bank.
    let v = arena_tests::arena_json(&[
        "match",
        "--game",
        "en-garde",
        &arena_tests::bot_arg("hostile/fuel-burner"),
        "house:random",
        "--fuel",
        "2000000",
        "--bank",
        "0",
        "--games",
        "2",
        "--json",
    ]);
    assert_eq!(v["limits"]["bank"], 0);
    assert_eq!(v["bots"][0]["forfeits"]["fuel"], 2);
    assert_eq!(v["bots"][0]["fuel"]["max_bank_used"], 0, "nothing to draw on");
    assert_eq!(
        v["bots"][0]["fuel"]["max_per_move"], 2_000_000,
        "the failing move used exactly its budget"
    );
}
