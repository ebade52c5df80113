//! Sugargame end to end: wasm twins, forfeits, the duplicate format and complete replays.

use arena::games::ForfeitReason;
use arena::sandbox::Limits;
use arena_tests::play;
use std::time::Duration;

#[test]
fn each_wasm_bot_plays_exactly_like_its_house_twin() {
    for name in ["random", "greedy", "hunter"] {
        for opponent in ["house:random", "house:hunter"] {
            let run = |bot: &str| play("sugar", Limits::default(), None, &[bot, opponent], 40, 11, false);
            let wasm = run(&format!("sugar/{name}"));
            let house = run(&format!("house:{name}"));
            assert_eq!(wasm.report.results, house.report.results, "{name} vs {opponent}");
            assert!(wasm.report.results.iter().all(|r| r.forfeit.is_none()));
        }
    }
}

#[test]
fn the_default_wall_clock_limit_is_the_course_three_seconds() {
    assert_eq!(Limits::default().timeout, Duration::from_secs(3));
}

#[test]
fn an_invalid_placement_forfeits_every_game() {
    let out = play(
        "sugar",
        Limits::default(),
        None,
        &["hostile/bad-placement", "house:greedy"],
        4,
        2,
        false,
    );
    for r in &out.report.results {
        let f = r.forfeit.as_ref().expect("forfeit");
        assert_eq!(f.reason, ForfeitReason::InvalidAnswer);
        assert!(f.detail.contains("two agents placed on x = 2"), "{}", f.detail);
        assert_eq!(r.seats[f.seat], 0, "the hostile bot forfeits");
    }
}

#[test]
fn both_seats_play_the_same_landscape_and_length() {
    let out = play(
        "sugar",
        Limits::default(),
        None,
        &["house:greedy", "house:hunter"],
        6,
        4,
        true,
    );
    for pair in out.report.results.chunks(2) {
        assert_eq!(pair[0].seed, pair[1].seed);
        assert_eq!(pair[0].seats, vec![0, 1]);
        assert_eq!(pair[1].seats, vec![1, 0]);
    }
    for pair in out.events.chunks(2) {
        let start =
            |events: &Vec<serde_json::Value>| events.iter().find(|e| e["type"] == "game-start").cloned().unwrap();
        let (a, b) = (start(&pair[0]), start(&pair[1]));
        assert_eq!(a["capacity"], b["capacity"]);
        assert_eq!(a["max-steps"], b["max-steps"]);
    }
}

#[test]
fn the_replay_redraws_the_grid_at_every_step() {
    let out = play(
        "sugar",
        Limits::default(),
        None,
        &["sugar/greedy", "house:random"],
        2,
        9,
        true,
    );
    for (events, result) in out.events.iter().zip(&out.report.results) {
        let steps: Vec<&serde_json::Value> = events.iter().filter(|e| e["type"] == "step").collect();
        assert!(!steps.is_empty());
        for (i, e) in steps.iter().enumerate() {
            assert_eq!(e["step"], i + 1);
            assert_eq!(e["sugar"].as_array().unwrap().len(), 5);
            assert!(e["agents"].as_array().unwrap().len() <= 10);
            assert!(e["scores"].is_array());
        }
        let last = steps.last().unwrap();
        assert_eq!(last["scores"], serde_json::json!(result.scores));
        assert!(events.iter().any(|e| e["type"] == "placement"));
    }
}
