//! Each game's typed `Event` enum is its replay events: every event a match
//! writes reads as one and writes back unchanged, and `docs/replay-format.md`
//! lists exactly the enum's event types with every field they carry.

use arena_tests::{arena, bot_arg, root, temp};
use std::collections::{BTreeMap, BTreeSet};

/// The lines the replay writer adds around a game's own events (the doc's "Lines").
const REPLAY_LINES: [&str; 5] = ["match", "game", "log", "fuel", "result"];

/// The matches whose events are read, from what the game declares: its
/// house bots (cycled to fill a table of at most three), and its bot
/// answering at random (`hostile/fuzz-answers-<game>`: illegal moves under
/// both rules, a forfeit under `--illegal forfeit`), in its last variant.
fn matches(game: &dyn arena::runner::GameDef) -> Vec<Vec<String>> {
    let seats = game.seats();
    let n = 3.min(*seats.end()).max(*seats.start());
    let house: Vec<String> = game
        .house_bots()
        .iter()
        .cycle()
        .take(n)
        .map(|(name, _)| format!("house:{name}"))
        .collect();
    let variant = game.variants().last().expect("a variant").to_string();
    let fuzz = bot_arg(&format!("hostile/fuzz-answers-{}", game.name()));
    let with = |first: String, rule: &str, games: &str| {
        let mut args = vec![
            "--illegal".to_string(),
            rule.to_string(),
            "--games".into(),
            games.into(),
            "--variant".into(),
            variant.clone(),
            first,
        ];
        args.extend(house[1..].iter().cloned());
        args
    };
    vec![
        with(house[0].clone(), "course", "200"),
        with(fuzz.clone(), "course", "100"),
        with(fuzz, "forfeit", "100"),
    ]
}

/// The documented fields of each event type of `title`'s table: every
/// backticked name in the row (nested names included).
fn documented(title: &str) -> BTreeMap<String, BTreeSet<String>> {
    let doc = std::fs::read_to_string(root().join("docs/replay-format.md")).expect("docs/replay-format.md");
    let section = doc
        .split(&format!("## {title} events"))
        .nth(1)
        .unwrap_or_else(|| panic!("docs/replay-format.md has no \"{title} events\" section"));
    let section = section.split("\n## ").next().unwrap_or_default();
    let mut rows = BTreeMap::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').collect();
        let kind = cells[1].trim().trim_matches('`').to_string();
        let names = cells[2..]
            .join("|")
            .split('`')
            .skip(1)
            .step_by(2)
            .map(String::from)
            .collect();
        rows.insert(kind, names);
    }
    rows
}

/// The event types the game's enum has, as serde names them when it meets
/// a type it does not know.
fn enum_types(game: &dyn arena::runner::GameDef) -> BTreeSet<String> {
    let err = game
        .check_event(&serde_json::json!({"type": "no-such-event"}))
        .expect_err("an unknown type is refused");
    let listed = err.split("expected one of").nth(1).unwrap_or_else(|| panic!("{err}"));
    listed.split('`').skip(1).step_by(2).map(String::from).collect()
}

#[test]
fn every_event_a_match_writes_is_the_games_typed_event_and_is_documented() {
    for game in arena::adapters::GAMES {
        let name = game.name();
        let doc = documented(game.title());
        let types = enum_types(*game);
        let doc_types: BTreeSet<String> = doc.keys().cloned().collect();
        assert_eq!(
            doc_types, types,
            "{name}: docs/replay-format.md lists other event types than the enum"
        );
        let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (i, args) in matches(*game).into_iter().enumerate() {
            let replay = temp(&format!("events-{name}-{i}")).join("r.jsonl");
            let mut full = vec!["match".to_string(), "--game".into(), name.into(), "--replay".into()];
            full.push(replay.display().to_string());
            full.extend(args);
            let out = arena(&full);
            assert!(
                out.status.success(),
                "{name} {full:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text = std::fs::read_to_string(&replay).expect("the replay");
            for (n, line) in text.lines().enumerate() {
                let v: serde_json::Value = serde_json::from_str(line).expect("JSON");
                let kind = v["type"].as_str().expect("a type").to_string();
                if REPLAY_LINES.contains(&kind.as_str()) {
                    continue;
                }
                if let Err(why) = game.check_event(&v) {
                    panic!("{name} line {}: {why}: {line}", n + 1);
                }
                let keys = seen.entry(kind).or_default();
                keys.extend(
                    v.as_object()
                        .expect("an object")
                        .keys()
                        .filter(|k| *k != "type" && *k != "game")
                        .cloned(),
                );
            }
        }
        for (kind, keys) in &seen {
            let names = &doc[kind];
            let missing: Vec<&String> = keys.iter().filter(|k| !names.contains(*k)).collect();
            assert!(
                missing.is_empty(),
                "{name} \"{kind}\": fields {missing:?} are not in docs/replay-format.md"
            );
        }
        let unseen: Vec<&String> = types.iter().filter(|t| !seen.contains_key(*t)).collect();
        assert!(
            unseen.is_empty(),
            "{name}: no match here wrote {unseen:?}; add one that does"
        );
    }
}

/// A line written by hand that is no event of the game is refused with the
/// field at fault, and an event with a field added is not taken as one.
#[test]
fn a_line_that_is_not_the_games_event_is_refused_with_its_fault() {
    let game = arena::adapters::game("en-garde").expect("en-garde");
    let good = serde_json::json!({"type": "game-start", "variant": "standard", "seed": 7, "game": 0});
    assert_eq!(game.check_event(&good), Ok(()));
    let missing = serde_json::json!({"type": "game-end", "scores": [5, 2], "winner": 0});
    assert!(game.check_event(&missing).expect_err("refused").contains("rounds"));
    let extra = serde_json::json!({"type": "game-start", "variant": "standard", "seed": 7, "script": "x"});
    assert!(game.check_event(&extra).expect_err("refused").contains("script"));
    let wrong = serde_json::json!({"type": "game-start", "variant": "standard", "seed": "7"});
    assert!(game.check_event(&wrong).is_err());
}
