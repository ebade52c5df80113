//! ConnectFwar end to end: the wasm baselines are exact twins of the house
//! baselines, and `arena compare` reports them on shared decks.

use arena::sandbox::Limits;
use arena_tests::{arena, assert_one_line_error, bot_arg, compare_json, play};

#[test]
fn each_wasm_baseline_scores_exactly_what_its_house_twin_scores() {
    let run = |bot: &str| play("connect-fwar", Limits::default(), None, &[bot], 500, 17, false);
    for name in ["random", "basic", "suits", "ranks"] {
        let wasm = run(&format!("connect-fwar/{name}"));
        let house = run(&format!("house:{name}"));
        assert_eq!(wasm.report.results, house.report.results, "{name}");
        assert!(wasm.report.results.iter().all(|r| r.forfeit.is_none()));
        assert_eq!(wasm.report.bots[0].score, house.report.bots[0].score);
    }
}

#[test]
fn a_hostile_bot_forfeits_a_solitaire_with_score_zero() {
    // An En Garde bot is the wrong world; build a looping ConnectFwar bot from
    // the basic one by starving it of fuel instead.
    let limits = Limits {
        fuel: 1_000,
        ..Limits::default()
    };
    let out = play("connect-fwar", limits, None, &["connect-fwar/basic"], 4, 1, false);
    for r in &out.report.results {
        assert_eq!(r.scores, vec![0]);
        assert_eq!(
            r.forfeit.as_ref().map(|f| f.reason),
            Some(arena::games::ForfeitReason::Fuel)
        );
    }
    assert_eq!(out.report.bots[0].forfeits["fuel"], 4);
}

#[test]
fn compare_reports_means_with_intervals_on_the_same_decks() {
    let basic = bot_arg("connect-fwar/basic");
    let v = compare_json(
        "connect-fwar",
        &[&basic, "house:basic", "house:random", "--games", "400"],
    );
    assert_eq!(v["measure"], "mean-score");
    let bots = v["bots"].as_array().unwrap();
    assert_eq!(bots[0]["estimate"], bots[1]["estimate"], "twins on the same decks");
    for b in bots {
        let e = &b["estimate"];
        let (mean, lo, hi) = (
            e["mean"].as_f64().unwrap(),
            e["ci95"][0].as_f64().unwrap(),
            e["ci95"][1].as_f64().unwrap(),
        );
        assert!(lo < mean && mean < hi);
        // Half-width = t(0.975, 399 df) sd / sqrt(n); the printed tables give 1.966.
        let half = 1.966 * e["sd"].as_f64().unwrap() / 400f64.sqrt();
        assert!((hi - mean - half).abs() < 1e-3 * half, "{} vs {half}", hi - mean);
    }
    assert!(
        bots[0]["estimate"]["mean"].as_f64() > bots[2]["estimate"]["mean"].as_f64(),
        "basic beats random"
    );
}

#[test]
fn compare_against_a_reference_gives_win_rates_for_two_player_games() {
    let v = compare_json(
        "en-garde",
        &[
            "house:aggressive",
            "house:cowardly",
            "--against",
            "house:random",
            "--games",
            "100",
        ],
    );
    assert_eq!(v["measure"], "win-rate");
    assert_eq!(v["against"], "house:random");
    let rate = |i: usize| v["bots"][i]["estimate"]["mean"].as_f64().unwrap();
    assert!(
        rate(0) > 0.8 && rate(1) < 0.2,
        "aggressive {} cowardly {}",
        rate(0),
        rate(1)
    );
}

#[test]
fn compare_bad_input_is_one_line() {
    let garde = bot_arg("en-garde/aggressive");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["compare", "--game", "connect-fwar"], "required"),
        (
            vec!["compare", "--game", "connect-fwar", &garde],
            "aggressive.wasm: a bot for En Garde, not ConnectFwar",
        ),
        (
            vec!["compare", "--game", "connect-fwar", &garde],
            "play it with `--game en-garde`, or start a bot for ConnectFwar with `arena new --game connect-fwar`",
        ),
        (vec!["compare", "--game", "en-garde", "house:random"], "--against"),
        (
            vec![
                "compare",
                "--game",
                "connect-fwar",
                "house:basic",
                "--against",
                "house:random",
            ],
            "played alone",
        ),
    ];
    for (args, expect) in cases {
        assert_one_line_error(&args, expect);
    }
}

#[test]
fn a_solitaire_match_prints_the_mean_score() {
    let out = arena(&["match", "--game", "connect-fwar", "house:suits", "--games", "50"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("mean score") && text.contains("house:suits"), "{text}");
}
