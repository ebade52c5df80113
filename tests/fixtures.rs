//! Bots built in an earlier week keep working: the `.wasm` files in
//! `tests/fixtures/v0.1.0/` were built from this repository's example bots
//! against `arena:bots@0.1.0` and are never rebuilt. Each must play exactly
//! the games of its native house twin (an expectation independent of any
//! later change to the SDK or the example bots), and each hostile one must
//! still forfeit for its reason.

use arena::games::ForfeitReason;
use arena::sandbox::Limits;
use arena_tests::play;

/// `fixture` (a v0.1.0 build of `house:twin`) plays the same games as `house:twin`.
fn assert_same_games(game: &str, fixture: &str, twin: &str, others: &[&str], games: usize, seed: u64) {
    let old = format!("v0.1.0/{fixture}");
    let twin = format!("house:{twin}");
    let mut wasm_bots = vec![old.as_str()];
    wasm_bots.extend_from_slice(others);
    let mut house_bots = vec![twin.as_str()];
    house_bots.extend_from_slice(others);
    let wasm = play(game, Limits::default(), None, &wasm_bots, games, seed, false);
    let native = play(game, Limits::default(), None, &house_bots, games, seed, false);
    assert_eq!(wasm.report.results.len(), native.report.results.len());
    assert_eq!(wasm.report.results, native.report.results, "{fixture} against {twin}");
    assert!(
        wasm.report.results.iter().all(|r| r.forfeits.is_empty()),
        "{fixture} forfeited"
    );
}

#[test]
fn old_en_garde_bots_play_exactly_like_their_house_twins() {
    assert_same_games(
        "en-garde",
        "en-garde-aggressive",
        "aggressive",
        &["house:random"],
        100,
        11,
    );
    assert_same_games("en-garde", "en-garde-random", "random", &["house:cowardly"], 100, 12);
}

#[test]
fn an_old_connect_fwar_bot_scores_exactly_like_its_house_twin() {
    assert_same_games("connect-fwar", "connect-fwar-basic", "basic", &[], 200, 13);
}

#[test]
fn old_sugar_bots_play_exactly_like_their_house_twins() {
    assert_same_games("sugar", "sugar-greedy", "greedy", &["house:hunter"], 10, 14);
    assert_same_games("sugar", "sugar-hunter", "hunter", &["house:random"], 10, 15);
}

#[test]
fn old_president_bots_play_exactly_like_their_house_twins() {
    assert_same_games(
        "president",
        "president-lowest",
        "lowest",
        &["house:random", "house:lowest"],
        24,
        16,
    );
    assert_same_games(
        "president",
        "president-random",
        "random",
        &["house:lowest", "house:random", "house:lowest"],
        24,
        17,
    );
}

#[test]
fn old_hostile_bots_still_forfeit_for_their_reason() {
    for (fixture, reason) in [
        ("hostile-panic", ForfeitReason::Trap),
        ("hostile-infinite-loop", ForfeitReason::Fuel),
        ("hostile-memory-bomb", ForfeitReason::Memory),
    ] {
        let bot = format!("v0.1.0/{fixture}");
        let out = play(
            "en-garde",
            Limits::default(),
            None,
            &[&bot, "house:random"],
            2,
            18,
            false,
        );
        for r in &out.report.results {
            let f = r
                .forfeit
                .as_ref()
                .unwrap_or_else(|| panic!("{fixture} did not forfeit"));
            assert_eq!(f.reason, reason, "{fixture}: {}", f.detail);
        }
    }
}
