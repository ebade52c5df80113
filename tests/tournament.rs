//! Tournaments end to end through the binary: formats, determinism over
//! --jobs, resuming from the journal, Ctrl-C, disqualification and bad input.

use arena_tests::{arena_bin, bot, root};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::process::{Command, Output};

fn arena(args: &[&str]) -> Output {
    Command::new(arena_bin())
        .args(args)
        .current_dir(root())
        .output()
        .expect("run arena")
}

fn json(args: &[&str]) -> Value {
    let out = arena(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn path(name: &str) -> String {
    bot(name).display().to_string()
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("arena-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A folder of wasm bots: copies of the examples under other names, plus a rejected one.
fn class_dir(name: &str, copies: usize) -> std::path::PathBuf {
    let dir = temp(name);
    std::fs::create_dir_all(&dir).unwrap();
    let kinds = ["aggressive", "cowardly", "random"];
    for i in 0..copies {
        let kind = kinds[i % kinds.len()];
        std::fs::copy(
            bot(&format!("en-garde/{kind}")),
            dir.join(format!("student{i:02}-{kind}.wasm")),
        )
        .unwrap();
    }
    dir
}

#[test]
fn round_robin_plays_every_pairing_and_results_do_not_depend_on_jobs() {
    let dir = class_dir("rr", 5);
    let d = dir.display().to_string();
    let base = [
        "tournament",
        "--game",
        "en-garde",
        "--dir",
        &d,
        "house:aggressive",
        "--format",
        "round-robin",
        "--games",
        "6",
        "--json",
    ];
    let one = json(&[&base[..], &["--jobs", "1"]].concat());
    let two = json(&[&base[..], &["--jobs", "2"]].concat());
    assert_eq!(one, two, "identical standings and games for any --jobs");
    let matches = one["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 6 * 5 / 2, "every pairing of six bots");
    let mut pairs = HashSet::new();
    for m in matches {
        assert_eq!(m["results"].as_array().unwrap().len(), 6);
        let b: Vec<u64> = m["bots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        assert!(pairs.insert((b[0], b[1])));
    }
    let standings = one["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 6);
    for s in standings {
        assert_eq!(s["games"], 30, "five opponents, six games each");
        let (w, d, l) = (
            s["wins"].as_u64().unwrap(),
            s["draws"].as_u64().unwrap(),
            s["losses"].as_u64().unwrap(),
        );
        assert_eq!(w + d + l, 30);
        let r = &s["rating"];
        assert!(r["low"].as_f64() < r["value"].as_f64() && r["value"].as_f64() < r["high"].as_f64());
    }
    let points: Vec<f64> = standings.iter().map(|s| s["points"].as_f64().unwrap()).collect();
    assert!(points.windows(2).all(|w| w[0] >= w[1]), "sorted by points: {points:?}");
    assert!(!one["reading"].as_array().unwrap().is_empty());
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn double_elimination_needs_two_losses_and_gives_byes() {
    let bots = [
        "house:aggressive",
        "house:random",
        "house:cowardly",
        &path("en-garde/aggressive"),
        &path("en-garde/random"),
    ];
    let v = json(
        &[
            &[
                "tournament",
                "--game",
                "en-garde",
                "--format",
                "double-elimination",
                "--games",
                "4",
                "--json",
            ][..],
            &bots[..],
        ]
        .concat(),
    );
    let bracket = &v["bracket"];
    let w1 = bracket["winners"][0].as_array().unwrap();
    assert_eq!(w1.len(), 4, "a bracket of eight slots for five bots");
    assert_eq!(
        w1.iter()
            .filter(|m| m["bots"].as_array().unwrap().iter().any(Value::is_null))
            .count(),
        3,
        "three byes"
    );
    // Count match losses: the champion loses at most once, everyone else exactly twice.
    let mut losses: BTreeMap<u64, u32> = BTreeMap::new();
    let all = bracket["winners"]
        .as_array()
        .unwrap()
        .iter()
        .chain(bracket["losers"].as_array().unwrap())
        .flat_map(|r| r.as_array().unwrap().clone())
        .chain(bracket["grand_final"].as_array().unwrap().clone());
    for m in all {
        let b = m["bots"].as_array().unwrap();
        if b.iter().all(|x| !x.is_null()) {
            let loser = if b[0] == m["winner"] { &b[1] } else { &b[0] };
            *losses.entry(loser.as_u64().unwrap()).or_default() += 1;
        }
    }
    let placement: Vec<u64> = bracket["placement"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert_eq!(placement.len(), 5);
    assert!(losses.get(&placement[0]).copied().unwrap_or(0) <= 1);
    for b in &placement[1..] {
        assert_eq!(
            losses.get(b).copied().unwrap_or(0),
            2,
            "bot {b} is out after two losses"
        );
    }
    let standings = v["standings"].as_array().unwrap();
    assert_eq!(standings[0]["placement"], "champion");
    assert_eq!(standings[1]["placement"], "runner-up");
    assert_eq!(standings[2]["placement"], "third");
    let text = String::from_utf8(
        arena(
            &[
                &[
                    "tournament",
                    "--game",
                    "en-garde",
                    "--format",
                    "double-elimination",
                    "--games",
                    "4",
                ][..],
                &bots[..],
            ]
            .concat(),
        )
        .stdout,
    )
    .unwrap();
    assert!(
        text.contains("Winners' bracket")
            && text.contains("Losers' bracket")
            && text.contains("Grand final")
            && text.contains("Podium"),
        "{text}"
    );
}

#[test]
fn swiss_pairs_similar_scores_without_rematches() {
    let dir = class_dir("swiss", 7);
    let d = dir.display().to_string();
    let v = json(&[
        "tournament",
        "--game",
        "en-garde",
        "--dir",
        &d,
        "--format",
        "swiss",
        "--rounds",
        "3",
        "--games",
        "4",
        "--json",
    ]);
    let matches = v["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 3 * 3, "seven bots: three matches and a bye per round");
    let mut seen = HashSet::new();
    for m in matches {
        let mut b: Vec<u64> = m["bots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        b.sort_unstable();
        assert!(seen.insert(b.clone()), "rematch {b:?}");
    }
    let total: f64 = v["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["match_points"].as_f64().unwrap())
        .sum();
    assert_eq!(
        total,
        3.0 * 4.0,
        "each round hands out one point per match and one per bye"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn many_player_round_robin_uses_balanced_tables_and_solitaires_a_leaderboard() {
    let bots = ["house:lowest", "house:random"]
        .iter()
        .cycle()
        .take(8)
        .copied()
        .collect::<Vec<_>>();
    let v = json(
        &[
            &[
                "tournament",
                "--game",
                "president",
                "--format",
                "round-robin",
                "--rounds",
                "4",
                "--games",
                "4",
                "--json",
            ][..],
            &bots[..],
        ]
        .concat(),
    );
    for m in v["matches"].as_array().unwrap() {
        let n = m["bots"].as_array().unwrap().len();
        assert!((2..=6).contains(&n) && n == 4, "eight bots at two tables of four");
    }
    for s in v["standings"].as_array().unwrap() {
        assert_eq!(s["games"], 16, "four rounds of four games");
        assert!(s["mean_position"].as_f64().is_some());
        assert_eq!(s["rating"]["system"], "weng-lin");
    }
    let v = json(&[
        "tournament",
        "--game",
        "connect-fwar",
        "--format",
        "round-robin",
        "house:random",
        "house:basic",
        "house:suits",
        "--games",
        "200",
        "--json",
    ]);
    let names: Vec<&str> = v["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["house:basic", "house:suits", "house:random"],
        "ranked by mean score on shared decks"
    );
}

#[test]
fn a_stopped_tournament_resumes_without_replaying_games() {
    let out_dir = temp("resume");
    let o = out_dir.display().to_string();
    let args = [
        "tournament",
        "--game",
        "en-garde",
        "--format",
        "round-robin",
        "house:aggressive",
        "house:random",
        "house:cowardly",
        "--games",
        "10",
        "--out",
        &o,
        "--json",
    ];
    let full = json(&args);
    let journal = out_dir.join("journal.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 30, "a header and one line per game");
    // Keep half the games and cut the last line short, as a kill would.
    let mut kept = lines[..16].join("\n");
    kept.push('\n');
    kept.push_str(&lines[16][..lines[16].len() / 2]);
    std::fs::write(&journal, kept).unwrap();
    let resumed = arena(&args);
    assert!(resumed.status.success());
    assert!(String::from_utf8_lossy(&resumed.stderr).contains("resuming: 15 finished games"));
    let again: Value = serde_json::from_slice(&resumed.stdout).unwrap();
    assert_eq!(again["standings"], full["standings"]);
    assert_eq!(again["matches"], full["matches"]);
    let after = std::fs::read_to_string(&journal).unwrap();
    let keys: Vec<(String, u64)> = after
        .lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| (v["match"].as_str().unwrap().to_string(), v["index"].as_u64().unwrap()))
        .collect();
    let unique: HashSet<&(String, u64)> = keys.iter().collect();
    assert_eq!(keys.len(), 30, "15 kept + 15 played, none twice");
    assert_eq!(unique.len(), 30);
    for f in ["standings.json", "standings.csv", "standings.md", "standings.txt"] {
        assert!(out_dir.join(f).exists(), "{f}");
    }
    // A damaged record (a seat index out of range) is ignored and its game played again.
    let text = std::fs::read_to_string(&journal).unwrap();
    let damaged = text.replacen("\"seats\":[0,1]", "\"seats\":[0,7]", 1);
    assert_ne!(damaged, text);
    std::fs::write(&journal, damaged).unwrap();
    let repaired = arena(&args);
    assert!(
        repaired.status.success(),
        "{}",
        String::from_utf8_lossy(&repaired.stderr)
    );
    let fixed: Value = serde_json::from_slice(&repaired.stdout).unwrap();
    assert_eq!(fixed["standings"], full["standings"]);
    // A different tournament in the same folder is refused, not overwritten.
    let other = arena(&[
        "tournament",
        "--game",
        "en-garde",
        "--format",
        "swiss",
        "house:aggressive",
        "house:random",
        "--out",
        &o,
    ]);
    assert!(!other.status.success());
    assert!(String::from_utf8_lossy(&other.stderr).contains("holds another tournament"));
    std::fs::remove_dir_all(out_dir).ok();
}

#[test]
fn ctrl_c_stops_cleanly_and_keeps_every_finished_game() {
    let out_dir = temp("ctrlc");
    let o = out_dir.display().to_string();
    let dir = class_dir("ctrlc-bots", 8);
    let d = dir.display().to_string();
    let args = [
        "tournament",
        "--game",
        "en-garde",
        "--dir",
        &d,
        "--format",
        "round-robin",
        "--games",
        "400",
        "--out",
        &o,
        "--jobs",
        "1",
    ];
    let child = Command::new(arena_bin())
        .args(args)
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a stopped tournament is not a finished one");
    assert!(
        stderr.contains("stopped after") && stderr.contains("run the same command again"),
        "{stderr}"
    );
    let kept = std::fs::read_to_string(out_dir.join("journal.jsonl"))
        .unwrap()
        .lines()
        .count()
        - 1;
    assert!(kept > 0 && kept < 28 * 400, "some games kept: {kept}");
    let tail = stderr.lines().last().unwrap_or("");
    assert!(!tail.contains("panicked"));
    std::fs::remove_dir_all(out_dir).ok();
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_rejected_bot_is_disqualified_and_the_rest_play() {
    let dir = class_dir("dq", 3);
    std::fs::copy(bot("hostile/wrong-world"), dir.join("zz-broken.wasm")).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a bot").unwrap();
    let d = dir.display().to_string();
    let v = json(&[
        "tournament",
        "--game",
        "en-garde",
        "--dir",
        &d,
        "--format",
        "round-robin",
        "--games",
        "2",
        "--json",
    ]);
    assert_eq!(v["standings"].as_array().unwrap().len(), 3);
    let dq = v["disqualified"].as_array().unwrap();
    assert_eq!(dq.len(), 1);
    assert_eq!(dq[0]["name"], "zz-broken");
    assert!(dq[0]["reason"].as_str().unwrap().contains("another world"));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn tournament_bad_input_is_one_line() {
    let empty = temp("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let e = empty.display().to_string();
    for (args, expect) in [
        (
            vec!["tournament", "--game", "en-garde", "--dir", &e, "--format", "swiss"],
            "no .wasm files",
        ),
        (
            vec!["tournament", "--game", "en-garde", "house:random", "--format", "swiss"],
            "at least two bots, got 1",
        ),
        (
            vec![
                "tournament",
                "--game",
                "en-garde",
                "house:random",
                "house:aggressive",
                "--format",
                "knockout",
            ],
            "invalid value 'knockout'",
        ),
        (
            vec![
                "tournament",
                "--game",
                "connect-fwar",
                "house:random",
                "house:basic",
                "--format",
                "swiss",
            ],
            "swiss needs a two-player game, and connect-fwar is played alone",
        ),
        (
            vec![
                "tournament",
                "--game",
                "president",
                "house:random",
                "house:lowest",
                "house:random",
                "--format",
                "double-elimination",
            ],
            "seats more than two players",
        ),
    ] {
        let out = arena(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(expect), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(empty).ok();
}
