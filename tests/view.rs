//! The replay viewer's model (`host/report/src/view/model.js`), run under
//! Node, against the rules themselves: for every game, the state it redraws
//! from a replay's events alone must be the state the rules showed each bot
//! at each of its decisions, after every event that preceded it.

use arena::games::{EventSink, Failure, Seat};
use arena::games::{connect_fwar as cf, en_garde as eg, president as pr, sugar as su};
use arena_tests::root;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::io::Write;
use std::process::{Command, Stdio};
use std::rc::Rc;

/// Events shared between the game (which writes them) and the observing players.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<Value>>>);

impl EventSink for Shared {
    fn event(&mut self, event: Value) {
        self.0.borrow_mut().push(event);
    }
    fn enabled(&self) -> bool {
        true
    }
}

/// What the rules showed one seat at one decision: taken after `at` events.
#[derive(Clone, Debug)]
struct Seen {
    at: usize,
    seat: Seat,
    view: Value,
}

/// A house bot that notes every view the rules give it.
struct Observer<P: ?Sized> {
    inner: Box<P>,
    seat: Seat,
    events: Shared,
    seen: Rc<RefCell<Vec<Seen>>>,
}

impl<P: ?Sized> Observer<P> {
    fn note(&self, view: Value) {
        let at = self.events.0.borrow().len();
        self.seen.borrow_mut().push(Seen {
            at,
            seat: self.seat,
            view,
        });
    }
}

impl eg::Fencer for Observer<dyn eg::Fencer + Send> {
    fn start_game(&mut self, info: &eg::GameInfo) -> Result<(), Failure> {
        self.inner.start_game(info)
    }
    fn start_round(&mut self, info: &eg::RoundInfo) -> Result<(), Failure> {
        self.inner.start_round(info)
    }
    fn choose_move(&mut self, v: &eg::View) -> Result<eg::Move, Failure> {
        let (me, them) = (self.seat, 1 - self.seat);
        let mut positions = [0u8; 2];
        positions[me] = v.my_position;
        positions[them] = v.opponent_position;
        let mut scores = [0u8; 2];
        scores[me] = v.my_score;
        scores[them] = v.opponent_score;
        self.note(json!({
            "round": v.round, "hand": v.hand, "positions": positions, "scores": scores,
            "deckRemaining": v.deck_remaining, "discard": v.discard,
            "opponentHandSize": v.opponent_hand_size,
            "last": v.last_move.map(|m| json!({"seat": m.seat, "card": m.mv.card, "direction": m.mv.direction, "parried": m.parried})),
        }));
        self.inner.choose_move(v)
    }
}

impl cf::Player for Observer<dyn cf::Player + Send> {
    fn start_game(&mut self, info: &cf::GameInfo) -> Result<(), Failure> {
        self.inner.start_game(info)
    }
    fn choose_column(&mut self, v: &cf::View) -> Result<i32, Failure> {
        self.note(json!({"columns": v.board.columns, "discard": v.discard, "deckRemaining": v.deck_remaining, "card": v.card}));
        self.inner.choose_column(v)
    }
}

impl su::SugarPlayer for Observer<dyn su::SugarPlayer + Send> {
    fn place(&mut self, info: &su::PlaceInfo) -> Result<Vec<u8>, Failure> {
        self.inner.place(info)
    }
    fn choose(&mut self, v: &su::View) -> Result<su::Action, Failure> {
        let mut scores = [0i64; 2];
        scores[self.seat] = v.my_score;
        scores[1 - self.seat] = v.opponent_score;
        self.note(json!({"sugar": v.sugar, "agents": v.agents, "scores": scores}));
        self.inner.choose(v)
    }
}

impl pr::PresidentPlayer for Observer<dyn pr::PresidentPlayer + Send> {
    fn start_game(&mut self, info: &pr::GameInfo) -> Result<(), Failure> {
        self.inner.start_game(info)
    }
    fn play(&mut self, v: &pr::View) -> Result<Option<Vec<pr::Card>>, Failure> {
        self.note(json!({
            "hand": v.hand, "counts": v.card_counts, "positions": v.positions,
            "toBeat": if v.state.is_empty() { Value::Null } else { json!(v.state) },
            "toBeatSeat": v.state_seat,
        }));
        self.inner.play(v)
    }
}

fn observers<P: ?Sized>(bots: Vec<Box<P>>, events: &Shared, seen: &Rc<RefCell<Vec<Seen>>>) -> Vec<Observer<P>> {
    bots.into_iter()
        .enumerate()
        .map(|(seat, inner)| Observer {
            inner,
            seat,
            events: events.clone(),
            seen: seen.clone(),
        })
        .collect()
}

/// One recorded game: its events and what the rules showed at each decision.
struct Recorded {
    game: &'static str,
    events: Vec<Value>,
    seen: Vec<Seen>,
}

fn record_en_garde(seed: u64, variant: eg::Variant, names: [&str; 2]) -> Recorded {
    let events = Shared::default();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let bots = names.iter().map(|n| eg::house_bot(n).expect("house bot")).collect();
    let mut obs = observers(bots, &events, &seen);
    let (a, b) = obs.split_at_mut(1);
    let config = eg::Config {
        variant,
        ..eg::Config::default()
    };
    eg::play_game(config, seed, [&mut a[0], &mut b[0]], &mut events.clone());
    let events = events.0.borrow().clone();
    let seen = seen.borrow().clone();
    Recorded {
        game: "en-garde",
        events,
        seen,
    }
}

fn record_connect_fwar(seed: u64, name: &str) -> Recorded {
    let events = Shared::default();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let mut obs = observers(vec![cf::house_bot(name).expect("house bot")], &events, &seen);
    cf::play_game(seed, &mut obs[0], &mut events.clone());
    let events = events.0.borrow().clone();
    let seen = seen.borrow().clone();
    Recorded {
        game: "connect-fwar",
        events,
        seen,
    }
}

fn record_sugar(seed: u64, names: [&str; 2]) -> Recorded {
    let events = Shared::default();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let bots = names.iter().map(|n| su::house_bot(n).expect("house bot")).collect();
    let mut obs = observers(bots, &events, &seen);
    let (a, b) = obs.split_at_mut(1);
    su::play_game(seed, [&mut a[0], &mut b[0]], &mut events.clone());
    let events = events.0.borrow().clone();
    let seen = seen.borrow().clone();
    Recorded {
        game: "sugar",
        events,
        seen,
    }
}

/// A series at one table, each game after the card exchange of the one before.
fn record_president(seed: u64, names: &[&str], games: usize) -> Vec<Recorded> {
    let mut last = None;
    let mut out = Vec::new();
    for g in 0..games {
        let events = Shared::default();
        let seen = Rc::new(RefCell::new(Vec::new()));
        let bots = names.iter().map(|n| pr::house_bot(n).expect("house bot")).collect();
        let mut obs = observers(bots, &events, &seen);
        let mut players: Vec<&mut dyn pr::PresidentPlayer> =
            obs.iter_mut().map(|o| o as &mut dyn pr::PresidentPlayer).collect();
        let record = pr::play_game(seed + g as u64, last.take(), &mut players, &mut events.clone());
        last = Some(record.positions);
        out.push(Recorded {
            game: "president",
            events: events.0.borrow().clone(),
            seen: seen.borrow().clone(),
        });
    }
    out
}

/// Every game's states after every event, as the viewer's model redraws them.
fn redraw(games: &[Recorded]) -> Vec<Vec<Value>> {
    let view = root().join("host/report/src/view");
    // The model, then every game's file, which registers itself with it (as on the page).
    let script = "const path = require('path'); const M = globalThis.ArenaModel = require(path.join(process.argv[1], 'model.js')); \
        for (const f of require('fs').readdirSync(path.join(process.argv[1], 'games')).sort()) require(path.join(process.argv[1], 'games', f)); \
        let s = ''; process.stdin.on('data', d => s += d); \
        process.stdin.on('end', () => process.stdout.write(JSON.stringify(JSON.parse(s).map(g => M.redraw(g.game, g.events)))));";
    let mut child = Command::new("node")
        .args(["-e", script])
        .arg(&view)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run node (Node.js runs the viewer's model in these tests; .ci/run installs it)");
    let input: Vec<Value> = games
        .iter()
        .map(|g| json!({"game": g.game, "events": g.events}))
        .collect();
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(serde_json::to_string(&input).expect("json").as_bytes())
        .expect("write to node");
    let out = child.wait_with_output().expect("node");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("states as JSON")
}

/// The model's state as the seat at a decision would see it.
fn as_seen(game: &str, state: &Value, seat: Seat) -> Value {
    let g = |k: &str| state.get(k).cloned().unwrap_or(Value::Null);
    match game {
        "en-garde" => json!({
            "round": g("round"), "hand": state["hands"][seat], "positions": g("positions"), "scores": g("scores"),
            "deckRemaining": g("deckRemaining"), "discard": g("discard"),
            "opponentHandSize": state["hands"][1 - seat].as_array().map_or(0, Vec::len), "last": g("last"),
        }),
        "connect-fwar" => {
            json!({"columns": g("columns"), "discard": g("discard"), "deckRemaining": g("deckRemaining")})
        }
        "sugar" => json!({"sugar": g("sugar"), "agents": g("agents"), "scores": g("scores")}),
        "president" => json!({
            "hand": state["hands"][seat], "counts": g("counts"), "positions": g("positions"),
            "toBeat": g("toBeat"), "toBeatSeat": if state["toBeat"].is_null() { Value::Null } else { g("toBeatSeat") },
        }),
        _ => unreachable!(),
    }
}

fn check(games: Vec<Recorded>) {
    let states = redraw(&games);
    let mut decisions = 0;
    for (g, (rec, states)) in games.iter().zip(&states).enumerate() {
        assert_eq!(states.len(), rec.events.len(), "{}: a state per event", rec.game);
        for seen in &rec.seen {
            assert!(seen.at > 0, "a decision before any event");
            let state = &states[seen.at - 1];
            let mut expected = seen.view.clone();
            if rec.game == "connect-fwar" {
                // The bot sees the card already drawn, which the next event
                // (the draw) records, and the deck without it.
                let o = expected.as_object_mut().expect("an object");
                let card = o.remove("card").expect("the drawn card");
                assert_eq!(
                    rec.events[seen.at]["card"], card,
                    "the next event draws the card the bot saw"
                );
                let left = o["deckRemaining"].as_u64().expect("a count");
                o.insert("deckRemaining".into(), json!(left + 1));
            }
            assert_eq!(
                as_seen(rec.game, state, seen.seat),
                expected,
                "{} game {g}: after event {} ({}), seat {} saw another state than the model redraws",
                rec.game,
                seen.at - 1,
                rec.events[seen.at - 1],
                seen.seat
            );
            decisions += 1;
        }
        assert!(!rec.seen.is_empty(), "{}: no decisions observed", rec.game);
    }
    assert!(decisions > 0);
}

#[test]
fn en_garde_states_redrawn_from_the_replay_are_the_rules_own() {
    let mut games = Vec::new();
    for seed in 0..30 {
        for (variant, names) in [
            (eg::Variant::Standard, ["random", "aggressive"]),
            (eg::Variant::Standard, ["cowardly", "random"]),
            (eg::Variant::Simple, ["random", "random"]),
        ] {
            games.push(record_en_garde(seed, variant, names));
        }
    }
    // Parries and last chances are where a redraw goes wrong: make sure they were drawn.
    let count = |t: &str| games.iter().flat_map(|g| &g.events).filter(|e| e["type"] == t).count();
    let parried = games
        .iter()
        .flat_map(|g| &g.events)
        .filter(|e| e["parried"] == true)
        .count();
    assert!(
        count("last-chance") > 0 && parried > 0,
        "no parries or last chances in the sample"
    );
    check(games);
}

#[test]
fn connect_fwar_states_redrawn_from_the_replay_are_the_rules_own() {
    let games = (0..40)
        .flat_map(|seed| ["random", "basic", "suits", "ranks"].map(|n| record_connect_fwar(seed, n)))
        .collect();
    check(games);
}

#[test]
fn sugar_states_redrawn_from_the_replay_are_the_rules_own() {
    let games = (0..12)
        .flat_map(|seed| [["greedy", "hunter"], ["random", "greedy"]].map(|n| record_sugar(seed, n)))
        .collect::<Vec<_>>();
    assert!(
        games
            .iter()
            .flat_map(|g| &g.events)
            .any(|e| e["killed"].as_array().is_some_and(|k| !k.is_empty())),
        "no kills in the sample"
    );
    check(games);
}

#[test]
fn president_states_redrawn_from_the_replay_are_the_rules_own() {
    let mut games = Vec::new();
    for seed in 0..6 {
        games.extend(record_president(
            seed * 100,
            &["random", "lowest", "random", "lowest", "random"],
            3,
        ));
        games.extend(record_president(seed * 100 + 50, &["lowest", "random"], 2));
    }
    let burns = games
        .iter()
        .flat_map(|g| &g.events)
        .filter(|e| e["meets"] == "burn")
        .count();
    assert!(burns > 0, "no burns in the sample");
    check(games);
}

/// The replays a student is shown keep only their own seat's hidden cards
/// (docs/server.md, "Privacy"): with every event hidden as the game says for
/// a viewer of one seat, the viewer's model still redraws exactly what the
/// rules showed that seat at each of its decisions (its hand, the others'
/// card counts), and of every other seat's hand and of the deck's order
/// it holds not one card.
#[test]
fn a_replay_hidden_for_one_seat_keeps_all_that_seat_saw_and_no_other_card() {
    let mut games = Vec::new();
    for seed in 0..6 {
        games.push(record_en_garde(seed, eg::Variant::Standard, ["random", "aggressive"]));
        games.push(record_connect_fwar(seed, "basic"));
        games.extend(record_president(
            seed * 100,
            &["random", "lowest", "random", "lowest"],
            2,
        ));
    }
    let mut hidden = Vec::new();
    for g in &games {
        let game = arena::adapters::game(g.game).expect("a game");
        let seats = g
            .events
            .iter()
            .find_map(|e| e["hands"].as_array().map(Vec::len))
            .unwrap_or(1);
        for me in 0..seats {
            let mut events = g.events.clone();
            for e in &mut events {
                game.hide_event(e, &|seat| seat == me);
            }
            let seen = g.seen.iter().filter(|s| s.seat == me).cloned().collect();
            hidden.push(Recorded {
                game: g.game,
                events,
                seen,
            });
        }
    }
    // A solitaire's one seat sees its own game whole; a viewer of no seat sees no deck.
    let mut nobody = games
        .iter()
        .find(|g| g.game == "connect-fwar")
        .expect("a solitaire")
        .events
        .clone();
    for e in &mut nobody {
        arena::adapters::game("connect-fwar")
            .expect("a game")
            .hide_event(e, &|_| false);
    }
    assert!(
        nobody[0]["deck"]
            .as_array()
            .is_some_and(|d| !d.is_empty() && d.iter().all(Value::is_null))
    );
    let states = redraw(&hidden);
    for (rec, states) in hidden.iter().zip(&states) {
        let me = rec.seen.first().map_or(0, |s| s.seat);
        for (at, state) in states.iter().enumerate() {
            for (seat, hand) in state["hands"].as_array().into_iter().flatten().enumerate() {
                if seat != me {
                    assert!(
                        hand.as_array().is_some_and(|h| h.iter().all(Value::is_null)),
                        "{} after event {at}: seat {seat}'s hand shown to seat {me}: {hand}",
                        rec.game
                    );
                }
            }
            if rec.game != "connect-fwar" {
                assert!(
                    state["deck"].as_array().is_none_or(|d| d.iter().all(Value::is_null)),
                    "{} after event {at}: the deck's order shown to seat {me}",
                    rec.game
                );
            }
        }
    }
    check(hidden);
}

// ---- the commands: arena view and arena replay verify ----

use arena_tests::{arena, assert_one_line_error, bot_arg, temp};

fn record(dir: &std::path::Path, name: &str, args: &[&str]) -> std::path::PathBuf {
    let replay = dir.join(format!("{name}.jsonl"));
    let mut all: Vec<String> = vec!["match".into()];
    all.extend(args.iter().map(|s| s.to_string()));
    all.extend(["--replay".into(), replay.display().to_string()]);
    let out = arena(&all);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    replay
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn verify_finds_a_replay_identical_and_names_the_first_difference() {
    let dir = temp("verify");
    let aggressive = bot_arg("en-garde/aggressive");
    let replay = record(
        &dir,
        "eg",
        &[
            "--game",
            "en-garde",
            &aggressive,
            "house:random",
            "--games",
            "6",
            "--variant",
            "standard",
        ],
    );
    let good = format!("aggressive={aggressive}");
    let out = arena(&["replay", "verify", &replay.display().to_string(), "--bot", &good]);
    assert!(
        out.status.success(),
        "{}{}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout(&out).contains("IDENTICAL: 6 games"), "{}", stdout(&out));

    // Another bot under the same name: warned, and the first differing line named.
    let other = format!("aggressive={}", bot_arg("en-garde/cowardly"));
    let out = arena(&["replay", "verify", &replay.display().to_string(), "--bot", &other]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not the file the replay was made with"));
    let text = stdout(&out);
    assert!(
        text.contains("DIFFERENT at line ") && text.contains("the replay has"),
        "{text}"
    );

    // A hand-edited event: its line, and the field.
    let lines: Vec<String> = std::fs::read_to_string(&replay)
        .expect("replay")
        .lines()
        .map(String::from)
        .collect();
    let k = lines
        .iter()
        .position(|l| l.contains("\"type\":\"move\""))
        .expect("a move");
    let mut edited = lines.clone();
    let mut v: Value = serde_json::from_str(&edited[k]).expect("json");
    v["positions"][0] = json!(v["positions"][0].as_u64().expect("a space") + 1);
    edited[k] = v.to_string();
    let edited_path = dir.join("edited.jsonl");
    std::fs::write(&edited_path, edited.join("\n") + "\n").expect("write");
    let out = arena(&["replay", "verify", &edited_path.display().to_string(), "--bot", &good]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains(&format!("line {}", k + 1)) && text.contains("positions[0]"),
        "{text}"
    );

    // A house bot's replay needs no --bot; a wasm bot's does, by name.
    assert_one_line_error(
        &["replay", "verify", &replay.display().to_string()],
        "give it with --bot aggressive=PATH",
    );
    assert_one_line_error(
        &[
            "replay",
            "verify",
            &replay.display().to_string(),
            "--bot",
            &good,
            "--bot",
            "nobody=x.wasm",
        ],
        "no wasm bot named `nobody`",
    );
}

#[test]
fn verify_plays_president_series_again_exactly() {
    let dir = temp("verify-president");
    let lowest = bot_arg("president/lowest");
    let replay = record(
        &dir,
        "pr",
        &[
            "--game",
            "president",
            &lowest,
            "house:random",
            "house:lowest",
            "--games",
            "9",
        ],
    );
    let out = arena(&[
        "replay",
        "verify",
        &replay.display().to_string(),
        "--bot",
        &format!("lowest={lowest}"),
    ]);
    assert!(
        out.status.success(),
        "{}{}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    // 9 games round up to two sets of the 6 seat orders of a table of three.
    assert!(stdout(&out).contains("IDENTICAL: 12 games"), "{}", stdout(&out));
}

#[test]
fn view_and_verify_name_the_line_of_a_bad_replay() {
    let dir = temp("bad-replays");
    let replay = record(&dir, "cf", &["--game", "connect-fwar", "house:basic", "--games", "3"]);
    let text = std::fs::read_to_string(&replay).expect("replay");
    let lines: Vec<&str> = text.lines().collect();
    let write = |name: &str, body: String| {
        let p = dir.join(name);
        std::fs::write(&p, body).expect("write");
        p.display().to_string()
    };
    let cases: Vec<(String, &str)> = vec![
        (write("empty.jsonl", String::new()), "the file is empty"),
        (
            write("truncated.jsonl", text[..text.len() - 40].to_string()),
            "cut short",
        ),
        (
            write("no-result.jsonl", lines[..lines.len() - 1].join("\n") + "\n"),
            "has no result line",
        ),
        (
            write("not-json.jsonl", format!("{}\n{{\"type\": oops}}\n", lines[0])),
            "line 2: not valid JSON",
        ),
        (
            write("not-a-replay.jsonl", "{\"type\":\"game\",\"game\":0}\n".into()),
            "line 1: the first line is not a match header",
        ),
        (
            write("newer.jsonl", text.replacen("\"format\":2", "\"format\":7", 1)),
            "line 1: replay format 7 was written by a newer arena",
        ),
        (
            write(
                "out-of-order.jsonl",
                format!(
                    "{}\n{}",
                    lines[0],
                    lines[lines
                        .iter()
                        .position(|l| l.contains("\"game\":1,\"names\""))
                        .expect("game 1")..]
                        .join("\n")
                ),
            ),
            "expected game 0 here, found 1",
        ),
    ];
    for (path, expect) in &cases {
        assert_one_line_error(&["view", path.as_str()], expect);
        assert_one_line_error(&["replay", "verify", path.as_str()], expect);
    }
    // 2 GB (sparse: no disk used) is refused by its size, before any reading.
    let huge = dir.join("huge.jsonl");
    let f = std::fs::File::create(&huge).expect("create");
    f.set_len(2 << 30).expect("sparse file");
    assert_one_line_error(
        &["view", &huge.display().to_string()],
        "over the 256 MiB this command reads",
    );
    // verify reads line by line: one endless line stops at the line cap.
    assert_one_line_error(
        &["replay", "verify", &huge.display().to_string()],
        "line 1: the line is over 64 MiB",
    );
    // A good replay still makes a page, next to it by default.
    let out = arena(&["view", &replay.display().to_string()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let page = std::fs::read_to_string(replay.with_extension("html")).expect("the page");
    assert!(
        page.contains("Content-Security-Policy") && !page.contains("src=\"http"),
        "self-contained"
    );
}

#[test]
fn a_replay_named_gz_is_the_plain_one_compressed_and_reads_the_same() {
    let dir = temp("gzip");
    let aggressive = bot_arg("en-garde/aggressive");
    let args = [
        "--game",
        "en-garde",
        aggressive.as_str(),
        "house:random",
        "--games",
        "40",
        "--variant",
        "standard",
    ];
    let plain = record(&dir, "eg", &args);
    let gz = dir.join("eg.jsonl.gz");
    let mut all = vec!["match"];
    all.extend(args);
    all.extend(["--replay", gz.to_str().expect("a UTF-8 path")]);
    let out = arena(&all);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // gzip itself, not the arena, inflates it back to the plain file's bytes.
    let inflated = std::process::Command::new("gzip")
        .arg("-dc")
        .arg(&gz)
        .output()
        .expect("gzip runs");
    assert!(inflated.status.success());
    let plain_bytes = std::fs::read(&plain).expect("plain replay");
    assert!(
        inflated.stdout == plain_bytes,
        "the inflated replay differs from the plain one"
    );
    let packed = std::fs::metadata(&gz).expect("gz").len();
    assert!(
        packed * 4 < plain_bytes.len() as u64,
        "{packed} bytes compressed from {}",
        plain_bytes.len()
    );
    // verify and view read it as they read the plain file.
    let good = format!("aggressive={aggressive}");
    for path in [&plain, &gz] {
        let out = arena(&["replay", "verify", &path.display().to_string(), "--bot", &good]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(stdout(&out).contains("IDENTICAL: 40 games"), "{}", stdout(&out));
    }
    let out = arena(&["view", &gz.display().to_string()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(dir.join("eg.html").is_file(), "eg.jsonl.gz makes eg.html");
    // Cut short, it is refused in one line naming the file, not a panic.
    let cut = dir.join("cut.jsonl.gz");
    std::fs::write(&cut, &std::fs::read(&gz).expect("gz")[..packed as usize / 2]).expect("write");
    for expect in ["cut.jsonl.gz", "the compressed replay is cut short or damaged"] {
        assert_one_line_error(
            &["replay", "verify", &cut.display().to_string(), "--bot", &good],
            expect,
        );
    }
    // Written under a temporary name and renamed: nothing of it is left over.
    assert!(!dir.join("eg.jsonl.gz.partial").exists() && !dir.join("eg.jsonl.partial").exists());
}

/// The exit status and the one stderr line of a command that must refuse.
fn refused(args: &[&str], expect: &str) {
    assert_one_line_error(args, expect);
    let out = arena(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}: exit 2 for a file it cannot use");
}

#[test]
fn verify_checks_every_header_value_with_the_command_lines_limits() {
    let dir = temp("crafted-headers");
    let replay = record(
        &dir,
        "eg",
        &["--game", "en-garde", "house:aggressive", "house:random", "--games", "2"],
    );
    let text = std::fs::read_to_string(&replay).expect("replay");
    let (head, rest) = text.split_once('\n').expect("a header line");
    let header: Value = serde_json::from_str(head).expect("header");
    let with = |name: &str, edit: &dyn Fn(&mut Value)| {
        let mut h = header.clone();
        edit(&mut h);
        let p = dir.join(name);
        std::fs::write(&p, format!("{h}\n{rest}")).expect("write");
        p.display().to_string()
    };
    let cases: Vec<(String, &str)> = vec![
        (
            with("no-bots.jsonl", &|h| h["bots"] = json!([])),
            "en-garde takes 2 bots, got 0",
        ),
        (
            with("bots-text.jsonl", &|h| h["bots"] = json!("alice")),
            "\"bots\" must be a list",
        ),
        (
            with("games-2-62.jsonl", &|h| h["games"] = json!(4611686018427387904u64)),
            "a match plays 1 to 10000000 games",
        ),
        (
            with("games-max.jsonl", &|h| h["games"] = json!(u64::MAX)),
            "a match plays 1 to 10000000 games",
        ),
        (
            with("games-float.jsonl", &|h| h["games"] = json!(1e9)),
            "\"games\" must be a whole number",
        ),
        (
            with("timeout.jsonl", &|h| h["limits"]["timeout"] = json!(1e300)),
            "at most 3600 s",
        ),
        (
            with("memory.jsonl", &|h| h["limits"]["memory_bytes"] = json!(1u64 << 60)),
            "at most 4G",
        ),
        (
            with("sha.jsonl", &|h| h["bots"][0]["sha256"] = json!("aéééééééééééééé")),
            "\"sha256\" must be 64 hex digits",
        ),
        (
            with("game.jsonl", &|h| h["game"] = json!("chess")),
            "unknown game `chess`",
        ),
        // `view` drew a variant the game does not have as the default one
        // (exit 0) where `verify` refused it (the rerun of issue 48's attacks).
        (
            with("variant.jsonl", &|h| h["variant"] = json!("bogus")),
            "unknown variant `bogus` for en-garde; variants are: simple, standard",
        ),
    ];
    for (path, expect) in &cases {
        refused(&["replay", "verify", path.as_str()], expect);
        // `view` checks the header as `verify` does (issue 48).
        refused(&["view", path.as_str()], expect);
    }
    // A key given twice: JSON readers keep the last, which is checked too.
    let twice = dir.join("twice.jsonl");
    let doubled = head.replacen("\"games\":2", "\"games\":2,\"games\":99999999999", 1);
    assert_ne!(doubled, head, "the header has \"games\":2");
    std::fs::write(&twice, format!("{doubled}\n{rest}")).expect("write");
    refused(
        &["replay", "verify", &twice.display().to_string()],
        "a match plays 1 to 10000000 games",
    );
    // A header claiming more games than the file holds is told at once.
    let more = with("more.jsonl", &|h| h["games"] = json!(10_000_000));
    let out = arena(&["replay", "verify", &more]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("the replay ends after 2 games; the header says 10000000"),
        "{}",
        stdout(&out)
    );
}

/// The peak resident memory of a command, in MiB, read from /proc while it runs.
fn peak_mib(args: &[&str]) -> (std::process::Output, u64) {
    let child = std::process::Command::new(arena_tests::arena_bin())
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start arena");
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let handle = std::thread::spawn(move || child.wait_with_output().expect("arena ran"));
    while !handle.is_finished() {
        if let Ok(s) = std::fs::read_to_string(&status)
            && let Some(kb) = s
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak = peak.max(kb >> 10);
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    (handle.join().expect("arena ran"), peak)
}

#[test]
fn a_replay_is_read_in_the_memory_of_one_game_whatever_it_holds() {
    let dir = temp("big-games");
    let replay = record(
        &dir,
        "eg",
        &["--game", "en-garde", "house:aggressive", "house:random", "--games", "2"],
    );
    let text = std::fs::read_to_string(&replay).expect("replay");
    let header = text.lines().next().expect("header");
    // Game 0 made of two 25 MiB log lines of short strings, which parsed
    // whole as JSON would take many times their size.
    let lines: Vec<&str> = std::iter::repeat_n("ab", 20 << 18).collect();
    let log = json!({"type": "log", "game": 0, "seat": 0, "lines": lines, "truncated": false}).to_string();
    let game =
        json!({"type": "game", "game": 0, "seed": 1, "seats": [0, 1], "names": ["house:aggressive", "house:random"]});
    let result = json!({"type": "result", "game": 0, "scores": [5, 0], "winner": 0, "forfeit": null});
    let big = dir.join("big.jsonl");
    std::fs::write(&big, format!("{header}\n{game}\n{log}\n{log}\n{result}\n")).expect("write");
    let (out, peak) = peak_mib(&["replay", "verify", &big.display().to_string()]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout(&out).contains("DIFFERENT"), "{}", stdout(&out));
    // 50 MiB of game: a parsed copy would be over 600 MiB.
    assert!(peak < 400, "verify of a 50 MiB game peaked at {peak} MiB");
    let (out, peak) = peak_mib(&["view", &big.display().to_string()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(peak < 400, "view of a 50 MiB game peaked at {peak} MiB");
    // Past a real game's size, one line says so.
    let huge = dir.join("huge.jsonl");
    std::fs::write(&huge, format!("{header}\n{game}\n{log}\n{log}\n{log}\n{result}\n")).expect("write");
    for cmd in ["view", "verify"] {
        let args: Vec<&str> = if cmd == "view" {
            vec!["view"]
        } else {
            vec!["replay", "verify"]
        };
        let path = huge.display().to_string();
        let (out, peak) = peak_mib(&[&args[..], &[path.as_str()]].concat());
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("line 5: game 0 is over 64 MiB"), "{cmd}: {err}");
        assert!(peak < 400, "{cmd} of a 75 MiB game peaked at {peak} MiB");
    }
}

/// The library call behind `arena replay verify`, as a server checking a
/// student's replay makes it: identical for the bot that played, and for
/// another file under its name a warning and the first difference.
#[test]
fn the_verify_library_call_finds_the_replay_identical_or_where_it_differs() {
    use arena::verify::{Verified, verify};
    let dir = arena_tests::temp("verify-lib");
    let replay = dir.join("r.jsonl");
    let aggressive = arena_tests::bot("en-garde/aggressive");
    let out = arena_tests::arena(&[
        "match",
        "--game",
        "en-garde",
        &aggressive.display().to_string(),
        "house:random",
        "--games",
        "4",
        "--replay",
        &replay.display().to_string(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let sandbox = |_: &'static dyn arena::runner::GameDef, header: &arena::replay::CheckedHeader| {
        arena::adapters::sandbox(header.limits.clone())
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let bots = |path: &std::path::Path| [("aggressive".to_string(), path.to_path_buf())].into_iter().collect();
    let verdict = verify(&replay, bots(&aggressive), &sandbox, &pool).expect("a verdict");
    assert!(verdict.warnings.is_empty(), "{:?}", verdict.warnings);
    match &verdict.verified {
        Verified::Identical { games, .. } => assert_eq!(*games, 4),
        other => panic!("{other:?}"),
    }
    assert!(verdict.line().starts_with("IDENTICAL: 4 games"), "{}", verdict.line());
    let other = verify(&replay, bots(&arena_tests::bot("en-garde/cowardly")), &sandbox, &pool).expect("a verdict");
    assert!(!other.identical());
    assert!(
        other.warnings[0].contains("not the file the replay was made with"),
        "{:?}",
        other.warnings
    );
    assert!(other.line().starts_with("DIFFERENT at line "), "{}", other.line());
}

/// A game event edited by hand into something the game never writes is
/// named as such by the typed events, not as a list of differing fields.
#[test]
fn verify_names_a_line_that_is_no_event_of_the_game() {
    use arena::verify::verify;
    let dir = arena_tests::temp("verify-typed");
    let replay = dir.join("r.jsonl");
    let out = arena_tests::arena(&[
        "match",
        "--game",
        "en-garde",
        "house:aggressive",
        "house:random",
        "--games",
        "2",
        "--replay",
        &replay.display().to_string(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&replay).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let at = lines
        .iter()
        .position(|l| l.contains("\"type\":\"move\""))
        .expect("a move");
    let mut edited: serde_json::Value = serde_json::from_str(&lines[at]).unwrap();
    edited["note"] = serde_json::json!("<script>alert(1)</script>");
    lines[at] = edited.to_string();
    std::fs::write(&replay, lines.join("\n") + "\n").unwrap();
    let sandbox = |_: &'static dyn arena::runner::GameDef, header: &arena::replay::CheckedHeader| {
        arena::adapters::sandbox(header.limits.clone())
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let verdict = verify(&replay, Default::default(), &sandbox, &pool).expect("a verdict");
    let line = verdict.line();
    assert!(
        line.starts_with(&format!("DIFFERENT at line {} (game ", at + 1))
            && line.contains(
                "the \"move\" line is not one of En Garde's events as this arena writes them: unknown field `note`"
            ),
        "{line}"
    );
}
