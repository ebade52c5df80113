//! President end to end: wasm twins at tables of 2 to 6, fair seat rotation,
//! positions in the results, and a failing bot put out while the others play on.

use arena::games::ForfeitReason;
use arena::sandbox::Limits;
use arena_tests::{arena, arena_bin, assert_one_line_error, compare_json, play, root};
use std::process::Command;

#[test]
fn wasm_bots_play_exactly_like_their_house_twins_at_every_table_size() {
    for n in [2usize, 4, 6] {
        let wasm: Vec<&str> = ["president/lowest", "president/random"]
            .iter()
            .cycle()
            .take(n)
            .copied()
            .collect();
        let house: Vec<&str> = ["house:lowest", "house:random"]
            .iter()
            .cycle()
            .take(n)
            .copied()
            .collect();
        let a = play("president", Limits::default(), None, &wasm, 3 * n, 21, false);
        let b = play("president", Limits::default(), None, &house, 3 * n, 21, false);
        assert_eq!(a.report.results, b.report.results, "{n} players");
        assert!(a.report.results.iter().all(|r| r.forfeits.is_empty()));
    }
}

#[test]
fn every_bot_sits_in_every_seat_equally_often_on_the_same_deals() {
    let bots = [
        "house:lowest",
        "house:random",
        "house:lowest",
        "house:random",
        "house:random",
    ];
    // Five bots: all 120 seat orders of a deal.
    let out = play("president", Limits::default(), None, &bots, 240, 3, false);
    let n = bots.len();
    assert_eq!(out.report.results.len(), 240);
    let mut count = vec![vec![0; n]; n]; // [bot][seat]
    for r in &out.report.results {
        for (seat, &bot) in r.seats.iter().enumerate() {
            count[bot][seat] += 1;
        }
    }
    assert!(count.iter().flatten().all(|&c| c == 48), "{count:?}");
    for deal in out.report.results.chunks(120) {
        assert!(
            deal.iter().all(|r| r.seed == deal[0].seed),
            "a deal is played from every seat"
        );
    }
}

#[test]
fn results_give_positions_and_bots_their_mean_position_president_and_bum_counts() {
    let out = play(
        "president",
        Limits::default(),
        None,
        &["house:lowest", "house:random", "house:random"],
        30,
        8,
        false,
    );
    for r in &out.report.results {
        let p = r.positions.as_ref().expect("positions");
        let mut sorted = p.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![1, 2, 3]);
        assert_eq!(r.winner, p.iter().position(|&q| q == 1));
    }
    for (i, b) in out.report.bots.iter().enumerate() {
        let mine: Vec<u32> = out
            .report
            .results
            .iter()
            .map(|r| r.positions.as_ref().unwrap()[r.seats.iter().position(|&x| x == i).unwrap()])
            .collect();
        let pos = b.positions.as_ref().expect("position summary");
        let mean = mine.iter().sum::<u32>() as f64 / mine.len() as f64;
        assert!((pos.mean - mean).abs() < 1e-12);
        assert_eq!(pos.first as usize, mine.iter().filter(|&&p| p == 1).count());
        assert_eq!(pos.last as usize, mine.iter().filter(|&&p| p == 3).count());
    }
}

#[test]
fn a_failing_bot_is_put_out_last_and_the_table_plays_on() {
    // A starved fuel budget makes the wasm bot fail on its first call.
    let limits = Limits {
        fuel: 1_000,
        ..Limits::default()
    };
    let out = play(
        "president",
        limits,
        None,
        &["president/lowest", "house:lowest", "house:random", "house:lowest"],
        8,
        2,
        false,
    );
    for r in &out.report.results {
        let seat = r.seats.iter().position(|&b| b == 0).unwrap();
        let f = r.forfeit.as_ref().expect("forfeit");
        assert_eq!((f.seat, f.reason), (seat, ForfeitReason::Fuel));
        let p = r.positions.as_ref().unwrap();
        assert_eq!(p[seat], 4, "the last finisher");
        let mut others: Vec<u32> = p
            .iter()
            .enumerate()
            .filter(|&(s, _)| s != seat)
            .map(|(_, &q)| q)
            .collect();
        others.sort_unstable();
        assert_eq!(others, vec![1, 2, 3], "the others played on");
    }
    // 8 games round up to one cycle of the 24 seat orders of a table of four.
    assert_eq!(out.report.results.len(), 24);
    assert_eq!(out.report.bots[0].forfeits["fuel"], 24);
}

#[test]
fn the_series_carries_the_exchange_between_games() {
    let out = play(
        "president",
        Limits::default(),
        None,
        &["house:lowest", "house:random", "house:random", "house:lowest"],
        48,
        4,
        true,
    );
    let starts: Vec<&serde_json::Value> = out
        .events
        .iter()
        .flatten()
        .filter(|e| e["type"] == "game-start")
        .collect();
    // A table of four cycles through 24 seat orders: games 0-23 open each
    // order's series; games 24-47 follow the game of their order before them.
    assert_eq!(starts.len(), 48);
    for (i, s) in starts.iter().enumerate() {
        if i < 24 {
            assert!(s["last-positions"].is_null());
        } else {
            let prev = &out.report.results[i - 24];
            assert_eq!(s["last-positions"], serde_json::json!(prev.positions));
            let exchange = s["exchange"].as_array().unwrap();
            let bum = prev.positions.as_ref().unwrap().iter().position(|&p| p == 4).unwrap();
            assert_eq!(
                exchange[bum][0].as_array().unwrap().len(),
                2,
                "the Bum gives two cards at a table of four"
            );
        }
    }
}

#[test]
fn the_table_shows_mean_positions() {
    let out = Command::new(arena_bin())
        .env("ARENA_NO_CACHE", "1")
        .args([
            "match",
            "--game",
            "president",
            "house:lowest",
            "house:random",
            "house:random",
            "--games",
            "30",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("mean position") && text.contains("president") && text.contains("bum"),
        "{text}"
    );
    let too_many = Command::new(arena_bin())
        .env("ARENA_NO_CACHE", "1")
        .args(["match", "--game", "president", "house:lowest"])
        .current_dir(root())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&too_many.stderr);
    assert!(err.contains("president takes 2 to 6 bots, got 1"), "{err}");
}

#[test]
fn compare_seats_each_bot_with_copies_of_the_reference_and_reports_its_mean_position() {
    let v = compare_json(
        "president",
        &[
            "house:random",
            "house:lowest",
            "--against",
            "house:random",
            "--games",
            "240",
        ],
    );
    assert_eq!(v["measure"], "mean-position", "a table game, not a win rate");
    assert_eq!(v["players"], 4, "a table of four by default, as the rubric grades");
    assert_eq!(v["against"], "house:random");
    let bot = |i: usize| &v["bots"][i];
    // A bot among three copies of itself plays every deal from every seat
    // of the same table: its finishing positions are 1, 2, 3 and 4.
    assert_eq!(bot(0)["estimate"]["mean"], 2.5);
    assert_eq!(
        bot(0)["estimate"]["n"],
        10,
        "the deal is the unit: 240 games in the 24 seat orders of four seats"
    );
    assert_eq!(bot(0)["positions"]["first"], 60);
    assert_eq!(bot(0)["positions"]["last"], 60);
    let lowest = bot(1)["estimate"]["mean"].as_f64().unwrap();
    assert!((1.0..2.5).contains(&lowest), "lowest beats random: {lowest}");
    assert!(bot(1)["record"].is_null(), "no win-draw-loss at a table");

    let three = compare_json(
        "president",
        &[
            "house:lowest",
            "--against",
            "house:random",
            "--players",
            "3",
            "--games",
            "30",
        ],
    );
    assert_eq!(three["players"], 3);
    assert_eq!(three["games"], 30);
    let mean = three["bots"][0]["estimate"]["mean"].as_f64().unwrap();
    assert!((1.0..=3.0).contains(&mean), "{mean}");

    let text = String::from_utf8(
        arena(&[
            "compare",
            "--game",
            "president",
            "house:lowest",
            "--against",
            "house:random",
            "--games",
            "20",
        ])
        .stdout,
    )
    .unwrap();
    assert!(
        text.contains("mean position") && text.contains("lower is better"),
        "{text}"
    );
}

#[test]
fn compare_bad_table_options_are_one_line() {
    let compare = |rest: &[&'static str]| [&["compare", "--game"][..], rest].concat();
    assert_one_line_error(
        &compare(&[
            "president",
            "house:random",
            "--against",
            "house:random",
            "--players",
            "7",
        ]),
        "president seats 2 to 6 players, not 7",
    );
    assert_one_line_error(&compare(&["president", "house:random"]), "--against");
    assert_one_line_error(
        &compare(&[
            "en-garde",
            "house:random",
            "--against",
            "house:random",
            "--players",
            "3",
        ]),
        "--players is only for games like president",
    );
}
