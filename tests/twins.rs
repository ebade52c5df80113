//! The sandbox changes nothing but safety: each wasm example bot plays
//! exactly the games its native house twin plays, on the same seeds.

use arena::sandbox::Limits;
use arena_tests::en_garde_match;

fn assert_twins(bot: &str, opponent: &str, variant: &str, seed: u64) {
    let wasm = en_garde_match(
        Limits::default(),
        variant,
        [&format!("en-garde/{bot}"), opponent],
        200,
        seed,
        false,
    );
    let native = en_garde_match(
        Limits::default(),
        variant,
        [&format!("house:{bot}"), opponent],
        200,
        seed,
        false,
    );
    assert_eq!(wasm.report.results.len(), 200);
    assert_eq!(
        wasm.report.results, native.report.results,
        "{bot} vs {opponent} ({variant})"
    );
    assert!(wasm.report.results.iter().all(|r| r.forfeit.is_none()));
}

#[test]
fn wasm_aggressive_plays_exactly_like_house_aggressive() {
    assert_twins("aggressive", "house:random", "simple", 42);
    assert_twins("aggressive", "house:cowardly", "standard", 7);
}

#[test]
fn wasm_cowardly_plays_exactly_like_house_cowardly() {
    assert_twins("cowardly", "house:random", "simple", 42);
    assert_twins("cowardly", "house:aggressive", "standard", 3);
}

#[test]
fn wasm_random_draws_the_same_numbers_as_house_random() {
    assert_twins("random", "house:aggressive", "simple", 42);
    assert_twins("random", "house:random", "standard", 9);
}

#[test]
fn aggressive_beats_random_by_a_wide_margin() {
    // An independent expectation: walking at the opponent and hitting when
    // possible beats random play in well over 80% of 200 games.
    let out = en_garde_match(
        Limits::default(),
        "simple",
        ["en-garde/aggressive", "house:random"],
        200,
        1,
        false,
    );
    let wins = out.report.bots[0].wins;
    assert!(wins > 160, "aggressive won only {wins} of 200");
}
