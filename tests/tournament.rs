//! Tournaments end to end through the binary: formats, determinism over
//! --jobs, resuming from the journal, Ctrl-C, disqualification and bad input.

use arena_tests::{
    arena, arena_bin, arena_json as json, assert_one_line_error, bot, bot_arg, html_escape, html_links, replay_index,
    root, temp,
};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::process::Command;

/// `arena tournament --game GAME --format FORMAT`, then `rest`.
fn tournament(game: &str, format: &str, rest: &[&str]) -> Vec<String> {
    let args = ["tournament", "--game", game, "--format", format];
    args.iter().chain(rest).map(|a| a.to_string()).collect()
}

/// A JSON array of whole numbers (bot indices).
fn numbers(array: &Value) -> Vec<u64> {
    array.as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect()
}

/// A folder of wasm bots: copies of the examples under other names, plus a rejected one.
fn class_dir(name: &str, copies: usize) -> std::path::PathBuf {
    let dir = temp(name);
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
    let run = |jobs: &str| {
        let rest = [
            "--dir",
            &d,
            "house:aggressive",
            "--games",
            "6",
            "--json",
            "--jobs",
            jobs,
        ];
        json(&tournament("en-garde", "round-robin", &rest))
    };
    let (one, two) = (run("1"), run("2"));
    assert_eq!(one, two, "identical standings and games for any --jobs");
    let matches = one["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 6 * 5 / 2, "every pairing of six bots");
    let mut pairs = HashSet::new();
    for m in matches {
        assert_eq!(m["played"], 6);
        for t in m["totals"].as_array().unwrap() {
            assert_eq!(t["games"], 6, "each bot of a pairing plays its six games");
        }
        let b = numbers(&m["bots"]);
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
        &bot_arg("en-garde/aggressive"),
        &bot_arg("en-garde/random"),
    ];
    let double_elimination = |rest: &[&str]| tournament("en-garde", "double-elimination", &[&bots[..], rest].concat());
    let v = json(&double_elimination(&["--games", "4", "--json"]));
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
    let placement = numbers(&bracket["placement"]);
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
    let place = |i: usize| {
        standings[i]["placement"]
            .as_str()
            .unwrap()
            .split(" (")
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!([place(0), place(1), place(2)], ["champion", "runner-up", "third"]);
    let text = String::from_utf8(arena(&double_elimination(&["--games", "4"])).stdout).unwrap();
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
    let v = json(&tournament(
        "en-garde",
        "swiss",
        &["--dir", &d, "--rounds", "3", "--games", "4", "--json"],
    ));
    let matches = v["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 3 * 3, "seven bots: three matches and a bye per round");
    let mut seen = HashSet::new();
    for m in matches {
        let mut b = numbers(&m["bots"]);
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
    let rest = [&bots[..], &["--rounds", "4", "--games", "4", "--json"]].concat();
    let v = json(&tournament("president", "round-robin", &rest));
    for m in v["matches"].as_array().unwrap() {
        let n = m["bots"].as_array().unwrap().len();
        assert!((2..=6).contains(&n) && n == 4, "eight bots at two tables of four");
    }
    for s in v["standings"].as_array().unwrap() {
        // Four games round up to the 24 seat orders of a table of four.
        assert_eq!(s["games"], 96, "four rounds of 24 games");
        assert!(s["mean_position"].as_f64().is_some());
        assert_eq!(s["rating"]["system"], "plackett-luce");
    }
    let v = json(&tournament(
        "connect-fwar",
        "round-robin",
        &["house:random", "house:basic", "house:suits", "--games", "200", "--json"],
    ));
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
    let args = tournament(
        "en-garde",
        "round-robin",
        &[
            "house:aggressive",
            "house:random",
            "house:cowardly",
            "--games",
            "10",
            "--out",
            &o,
            "--json",
        ],
    );
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
    let other = arena(&tournament(
        "en-garde",
        "swiss",
        &["house:aggressive", "house:random", "--out", &o],
    ));
    assert!(!other.status.success());
    assert!(String::from_utf8_lossy(&other.stderr).contains("holds another tournament"));
    // So is the same tournament under another rule for illegal moves: its
    // games would not be the same games.
    let stricter = arena(&tournament(
        "en-garde",
        "round-robin",
        &[
            "house:aggressive",
            "house:random",
            "house:cowardly",
            "--games",
            "10",
            "--out",
            &o,
            "--illegal",
            "forfeit",
        ],
    ));
    assert!(!stricter.status.success());
    assert!(String::from_utf8_lossy(&stricter.stderr).contains("holds another tournament"));
    std::fs::remove_dir_all(out_dir).ok();
}

#[test]
fn ctrl_c_stops_cleanly_and_keeps_every_finished_game() {
    let out_dir = temp("ctrlc");
    let o = out_dir.display().to_string();
    let dir = class_dir("ctrlc-bots", 8);
    let d = dir.display().to_string();
    let args = tournament(
        "en-garde",
        "round-robin",
        &["--dir", &d, "--games", "400", "--out", &o, "--jobs", "1"],
    );
    let child = Command::new(arena_bin())
        .env("ARENA_NO_CACHE", "1")
        .args(args)
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Stop once games are being played (loading and compiling come first),
    // not after a fixed time that a loaded machine may not honour.
    let journal = std::path::Path::new(&o).join("journal.jsonl");
    let started = std::time::Instant::now();
    while std::fs::read_to_string(&journal).map_or(0, |s| s.lines().count()) < 3
        && started.elapsed() < std::time::Duration::from_secs(120)
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
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
    let v = json(&tournament(
        "en-garde",
        "round-robin",
        &["--dir", &d, "--games", "2", "--json"],
    ));
    assert_eq!(v["standings"].as_array().unwrap().len(), 3);
    let dq = v["disqualified"].as_array().unwrap();
    assert_eq!(dq.len(), 1);
    assert_eq!(dq[0]["name"], "zz-broken");
    assert!(
        dq[0]["reason"]
            .as_str()
            .unwrap()
            .contains("not an arena bot (it exports no game's functions)")
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn tournament_bad_input_is_one_line() {
    let empty = temp("empty");
    let e = empty.display().to_string();
    for (args, expect) in [
        (
            tournament("en-garde", "swiss", &["--dir", &e]),
            "no submissions in this folder",
        ),
        (
            tournament("en-garde", "swiss", &["house:random"]),
            "at least two bots, got 1",
        ),
        (
            tournament("en-garde", "knockout", &["house:random", "house:aggressive"]),
            "invalid value 'knockout'",
        ),
        (
            tournament("connect-fwar", "swiss", &["house:random", "house:basic"]),
            "swiss needs a two-player game, and connect-fwar is played alone",
        ),
        (
            tournament(
                "president",
                "double-elimination",
                &["house:random", "house:lowest", "house:random"],
            ),
            "seats more than two players",
        ),
    ] {
        assert_one_line_error(&args, expect);
    }
    std::fs::remove_dir_all(empty).ok();
}

/// What a report page may not hold: anything loaded from elsewhere.
fn assert_self_contained(html: &str) {
    for bad in ["http://", "https://", "src=", "<link", "@import"] {
        assert!(!html.contains(bad), "index.html holds `{bad}`");
    }
}

/// The standings row of `name` in index.html (the first table row naming it).
fn row<'a>(html: &'a str, name: &str) -> &'a str {
    let at = html
        .find(&format!(">{}</a></td>", html_escape(name)))
        .unwrap_or_else(|| panic!("no row for {name}"));
    let start = html[..at].rfind("<tr>").unwrap();
    let end = at + html[at..].find("</tr>").unwrap();
    &html[start..end]
}

/// Every replay page index.html links to, read: (href, its embedded index).
fn linked_replays(out: &std::path::Path, html: &str) -> Vec<(String, Value)> {
    let mut pages = Vec::new();
    for href in html_links(html) {
        let path = out.join(&href);
        assert!(path.is_file(), "index.html links {href}, which does not exist");
        if href.starts_with("replays/") && !pages.iter().any(|(h, _)| *h == href) {
            let page = std::fs::read_to_string(&path).expect("the replay page");
            assert!(
                page.contains("href=\"../index.html\""),
                "{href} links back to the report"
            );
            pages.push((href.clone(), replay_index(&path)));
        }
    }
    pages
}

/// Games on replay pages that `bot` forfeited.
fn forfeits_of<'a>(pages: &'a [(String, Value)], bot: &str) -> Vec<(&'a str, &'a Value)> {
    let mut out = Vec::new();
    for (href, index) in pages {
        for g in index["games"].as_array().unwrap() {
            let f = &g["forfeit"];
            if !f.is_null() && g["names"][f["seat"].as_u64().unwrap() as usize] == bot {
                out.push((href.as_str(), g));
            }
        }
    }
    out
}

#[test]
fn out_writes_an_index_with_the_bracket_standings_and_a_replay_of_each_forfeit() {
    let dir = class_dir("index-de", 4);
    std::fs::copy(bot("hostile/panic"), dir.join("zz-panic.wasm")).unwrap();
    std::fs::copy(bot("hostile/wrong-world"), dir.join("zz-broken.wasm")).unwrap();
    let out = temp("index-de-out");
    let (d, o) = (dir.display().to_string(), out.display().to_string());
    let v = json(&tournament(
        "en-garde",
        "double-elimination",
        &["--dir", &d, "--games", "4", "--out", &o, "--json"],
    ));
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert_self_contained(&html);
    assert!(html.contains("En Garde double-elimination tournament") && html.contains("seed 1"));
    // Every bot with its standing as the JSON report gives it.
    for s in v["standings"].as_array().unwrap() {
        let name = s["name"].as_str().unwrap();
        let r = row(&html, name);
        let wdl = format!("{}-{}-{}", s["wins"], s["draws"], s["losses"]);
        let rating = &s["rating"];
        let rating = format!(
            "{:.0} [{:.0} to {:.0}]",
            rating["value"].as_f64().unwrap(),
            rating["low"].as_f64().unwrap(),
            rating["high"].as_f64().unwrap()
        );
        for value in [
            format!(">{}</td>", s["rank"]),
            format!(">{}</td>", s["games"]),
            format!(">{wdl}</td>"),
            format!(">{rating}</td>"),
            format!(">{}</td>", html_escape(s["placement"].as_str().unwrap())),
        ] {
            assert!(r.contains(&value), "{name}: {value} not in {r}");
        }
    }
    let panic = v["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "zz-panic")
        .unwrap();
    let traps = format!("trap {}", panic["forfeits"]["trap"]);
    assert!(row(&html, "zz-panic").contains(&traps), "{}", row(&html, "zz-panic"));
    // The bracket names each match's winner.
    let bracket = &v["bracket"];
    let names: Vec<&str> = bracket["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let rounds = bracket["winners"]
        .as_array()
        .unwrap()
        .iter()
        .chain(bracket["losers"].as_array().unwrap())
        .flat_map(|r| r.as_array().unwrap().clone())
        .chain(bracket["grand_final"].as_array().unwrap().clone());
    let mut matches = 0;
    for m in rounds {
        let Some(w) = m["winner"].as_u64() else {
            continue; // an empty slot of the bracket: no match
        };
        let winner = names[w as usize];
        assert!(html.contains(&format!("winner: {}", html_escape(winner))), "{m}");
        matches += 1;
    }
    assert!(matches >= 6 && html.contains("Winners' bracket") && html.contains("Losers' bracket"));
    // The disqualified bot, with its reason.
    assert!(html.contains("zz-broken") && html.contains("but not an arena bot"));
    // Every link resolves; every forfeit of the broken bot's matches is
    // shown (at most three per match), and a sample of each match.
    let pages = linked_replays(&out, &html);
    let played: Vec<&Value> = v["matches"].as_array().unwrap().iter().collect();
    let files = std::fs::read_dir(out.join("replays")).unwrap().count();
    assert_eq!(files, played.len(), "one page per match");
    let forfeits = forfeits_of(&pages, "zz-panic");
    let panic_matches = played
        .iter()
        .filter(|m| {
            m["totals"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t.get("forfeits").is_some())
        })
        .count();
    assert!(panic_matches >= 2, "zz-panic loses twice");
    assert_eq!(forfeits.len(), 3 * panic_matches, "three forfeits shown per match");
    for (href, g) in &forfeits {
        assert_eq!(g["forfeit"]["reason"], "trap", "{href}");
        let note = pages.iter().find(|(h, _)| h == href).unwrap().1["note"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            note.contains("forfeit of zz-panic (trap") && note.contains("more forfeit"),
            "{note}"
        );
    }
    std::fs::remove_dir_all(dir).ok();
    std::fs::remove_dir_all(out).ok();
}

#[test]
fn a_round_robin_index_links_a_replay_of_every_pairing_and_replays_are_the_games_scored() {
    let dir = class_dir("index-rr", 3);
    std::fs::copy(bot("hostile/panic"), dir.join("zz-panic.wasm")).unwrap();
    let out = temp("index-rr-out");
    let (d, o) = (dir.display().to_string(), out.display().to_string());
    let v = json(&tournament(
        "en-garde",
        "round-robin",
        &["--dir", &d, "house:random", "--games", "6", "--out", &o, "--json"],
    ));
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert_self_contained(&html);
    let pages = linked_replays(&out, &html);
    assert_eq!(pages.len(), 5 * 4 / 2, "a page per pairing");
    for s in v["standings"].as_array().unwrap() {
        let name = s["name"].as_str().unwrap();
        let r = row(&html, name);
        assert!(
            r.contains(&format!(">{}-{}-{}</td>", s["wins"], s["draws"], s["losses"])),
            "{r}"
        );
        assert!(
            r.contains(&format!(">{}</td>", s["points"]))
                || r.contains(&format!(">{:.0}</td>", s["points"].as_f64().unwrap())),
            "{r}"
        );
    }
    // Each game on a page is the game that was scored (as the journal
    // recorded it when it finished): same seed, seats, scores, winner.
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    let scored: HashMap<(String, u64), Value> = journal
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| {
            (
                (v["match"].as_str().unwrap().to_string(), v["index"].as_u64().unwrap()),
                v["result"].clone(),
            )
        })
        .collect();
    for (href, index) in &pages {
        let note = index["note"].as_str().unwrap();
        assert!(!note.contains("Warning"), "{href}: {note}");
        let id = href.trim_start_matches("replays/");
        let m = v["matches"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| id.starts_with(&m["id"].as_str().unwrap().replace(':', "-")))
            .unwrap_or_else(|| panic!("{href}: no match"));
        for g in index["games"].as_array().unwrap() {
            let scored = &scored[&(m["id"].as_str().unwrap().to_string(), g["index"].as_u64().unwrap())];
            assert_eq!(g["seed"], scored["seed"].to_string(), "{href}");
            assert_eq!(g["scores"], scored["scores"], "{href}");
            assert_eq!(g["winner"], scored["winner"], "{href}");
            assert_eq!(g["forfeit"], scored["forfeit"], "{href}");
        }
    }
    // zz-panic forfeits all 6 games of each of its 4 matches: 3 shown per match, the rest counted.
    let shown = forfeits_of(&pages, "zz-panic");
    assert_eq!(shown.len(), 4 * 3);
    let sizes: u64 = std::fs::read_dir(out.join("replays"))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(
        sizes < 10 * 100_000,
        "ten pages of a few games each stay small: {sizes} bytes"
    );
    std::fs::remove_dir_all(dir).ok();
    std::fs::remove_dir_all(out).ok();
}

/// Inside one losers' round the bracket decides nothing between the bots
/// that went out in it: they share the place (`=7`), ordered by the rating
/// of all their games, so a bot that forfeited everything is never above
/// one that won games.
#[test]
fn bots_out_in_the_same_losers_round_share_the_place_in_rating_order() {
    let bots = [
        "house:aggressive",
        "house:random",
        "house:cowardly",
        &bot_arg("en-garde/aggressive"),
        &bot_arg("en-garde/random"),
        &bot_arg("en-garde/cowardly"),
        &bot_arg("hostile/infinite-loop"),
        &bot_arg("hostile/illegal"),
    ];
    let args = |rest: &[&str]| tournament("en-garde", "double-elimination", &[&bots[..], rest].concat());
    let v = json(&args(&["--games", "4", "--json", "--fuel", "20000000"]));
    let standings = v["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 8);
    let rating = |r: &Value| r["rating"]["value"].as_f64().unwrap();
    let mut shared = 0;
    let round = |r: &Value| r["placement"].as_str().unwrap().split(" (").next().unwrap().to_string();
    for pair in standings[3..].windows(2) {
        if round(&pair[0]) == round(&pair[1]) {
            shared += 1;
            assert!(rating(&pair[0]) >= rating(&pair[1]), "{pair:?}");
            assert_eq!(pair[0]["tier"], pair[1]["tier"], "{pair:?}");
        } else {
            assert_ne!(pair[0]["tier"], pair[1]["tier"], "{pair:?}");
        }
    }
    assert!(shared >= 1, "eight bots: two go out in losers' round 1: {standings:?}");
    for top in &standings[..3] {
        assert_eq!(top["tier"], top["rank"], "the podium's places stand alone");
    }
    let text = String::from_utf8(arena(&args(&["--games", "4", "--fuel", "20000000"])).stdout).unwrap();
    assert!(text.contains("=7"), "{text}");
    // The final was drawn 2-2 on this seed: the champion's place says the seed decided it.
    assert_eq!(
        standings[0]["placement"], "champion (a drawn match: the better seed went through)",
        "{standings:?}"
    );
}

/// `arena tournament` is the library's `contest::run` plus printing: the
/// same standings and matches, and with an output folder its files. (The
/// text, not the JSON: interval ends may differ in the last bits between
/// two binaries whose float libraries were built with other features.)
#[test]
fn the_tournament_library_call_gives_the_standings_the_command_prints() {
    use arena::batch::contest::{ContestJob, Contestant, run};
    let game = arena::adapters::game("en-garde").expect("en-garde");
    let sandbox = arena::adapters::sandbox(game.default_limits()).expect("a sandbox");
    let bots = ["house:aggressive", "house:random", "house:cowardly"];
    let out = arena_tests::temp("contest-lib");
    let notes = std::sync::Mutex::new(Vec::new());
    let job = ContestJob {
        game,
        setup: arena::runner::entrants::setup(game, &sandbox, None, None).expect("setup"),
        sandbox: &sandbox,
        contestants: bots
            .iter()
            .map(|b| Contestant {
                bot: b.to_string(),
                student: None,
            })
            .collect(),
        without: Vec::new(),
        format: arena::tournament::Format::RoundRobin,
        games: 4,
        rounds: None,
        seeding: arena::tournament::Seeding::Order,
        seed: 3,
        out: Some(&out),
        stop: Default::default(),
        progress: false,
        note: &|line| notes.lock().unwrap().push(line.to_string()),
        elsewhere: None,
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let outcome = run(&job, &pool).expect("played");
    assert!(notes.lock().unwrap().is_empty(), "{:?}", notes.lock().unwrap());
    assert!(out.join("index.html").is_file() && outcome.index.is_some());
    for file in [
        "standings.txt",
        "standings.csv",
        "standings.json",
        "standings.md",
        "journal.jsonl",
    ] {
        assert!(out.join(file).is_file(), "{file}");
    }
    let mut args = vec![
        "tournament",
        "--game",
        "en-garde",
        "--format",
        "round-robin",
        "--games",
        "4",
        "--seed",
        "3",
    ];
    args.extend(bots);
    let cli = arena_tests::arena(&args);
    assert!(cli.status.success(), "{}", String::from_utf8_lossy(&cli.stderr));
    let printed = String::from_utf8_lossy(&cli.stdout);
    assert_eq!(printed, arena::report::standings::table(game.title(), &outcome.report));
    assert!(printed.contains("house:aggressive"), "{printed}");
    // A second run of the same tournament resumes from the journal and changes nothing.
    let again = run(&job, &pool).expect("played again");
    assert!(
        notes.lock().unwrap()[0].starts_with("resuming: 12 finished games"),
        "{:?}",
        notes.lock().unwrap()
    );
    assert_eq!(
        serde_json::to_value(&again.report).unwrap(),
        serde_json::to_value(&outcome.report).unwrap()
    );
}
