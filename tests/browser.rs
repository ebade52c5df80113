//! The replay pages of `arena view` in a real browser: Debian's Chromium,
//! headless, driven over the DevTools protocol, with the network cut off.
//! For a replay of each game: step to the end and check that the page shows
//! the final scores, positions or board the replay records; check that
//! play/pause and the speed change what is shown; check the page's message
//! for a replay of a newer format. Screenshots are kept in
//! `target/tmp/view-screenshots/` (look at them).

use arena_tests::{arena, bot_arg, temp};
use headless_chrome::protocol::cdp::Page::CaptureScreenshotFormatOption;
use headless_chrome::{Browser, LaunchOptions, Tab};
use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub(crate) fn chromium() -> PathBuf {
    let found = std::env::var_os("CHROME").map(PathBuf::from).or_else(|| {
        ["chromium", "chromium-browser", "google-chrome"]
            .iter()
            .find_map(|name| {
                std::env::var_os("PATH")?
                    .to_str()?
                    .split(':')
                    .map(|d| Path::new(d).join(name))
                    .find(|p| p.is_file())
            })
    });
    found.expect("Chromium is needed for the browser tests: apt-get install chromium (or set CHROME)")
}

fn browser() -> Browser {
    // No network at all: every request goes to a closed port.
    browser_with("--proxy-bypass-list=<-loopback>")
}

/// Chromium with every request but the ones `bypass` names sent to a closed port.
pub(crate) fn browser_with(bypass: &str) -> Browser {
    let options = LaunchOptions::default_builder()
        .path(Some(chromium()))
        .headless(true)
        .sandbox(false)
        .window_size(Some((1280, 1000)))
        // A test may build a bot or play a match between two tabs; on a
        // fresh or busy machine that outlasted 120 s and Chromium closed
        // the connection under the test. The browser is dropped (and
        // killed) with the test, so a long idle limit costs nothing.
        .idle_browser_timeout(Duration::from_secs(1800))
        .args(vec![
            OsStr::new("--proxy-server=http://127.0.0.1:9"),
            OsStr::new(bypass),
            OsStr::new("--disable-gpu"),
            OsStr::new("--allow-file-access-from-files"),
        ])
        .build()
        .expect("launch options");
    Browser::new(options).expect("start Chromium")
}

/// A new tab whose own waits (a navigation's end above all) last as long
/// as the tests' polls: on a loaded machine a page of a debug server, or
/// the LMS's page that loads the course through four redirects, took over
/// headless_chrome's 20 s default (seen in full runs at a load of 5).
pub(crate) fn new_tab(browser: &Browser) -> Arc<Tab> {
    let tab = browser.new_tab().expect("tab");
    tab.set_default_timeout(Duration::from_secs(120));
    tab
}

/// Open `url` in `tab` and wait until its document has loaded.
///
/// Not headless_chrome's `wait_until_navigated`: it marks a tab as
/// navigating only once `Page.navigate` has answered, so on a busy machine
/// the new page's "network almost idle" can come first, and then it waits
/// for an event that never comes (an LTI test failed so with every core
/// busy). Here the old document is marked, and the new one must be
/// complete and without the mark. So `url` must load a new document: a
/// change of its `#` part alone keeps the marked one and fails after 120 s.
pub(crate) fn goto(tab: &Tab, url: &str) {
    if let Err(e) = try_goto(tab, url) {
        panic!("{e}");
    }
}

/// [`goto`], saying why it failed.
pub(crate) fn try_goto(tab: &Tab, url: &str) -> Result<(), String> {
    let _ = tab.evaluate("window.arenaLeft = true", false);
    tab.navigate_to(url).map_err(|e| format!("open {url}: {e}"))?;
    let started = std::time::Instant::now();
    loop {
        let now = tab.evaluate("!window.arenaLeft && document.readyState === 'complete'", false);
        if matches!(now.ok().and_then(|o| o.value), Some(Value::Bool(true))) {
            return Ok(());
        }
        if started.elapsed() > Duration::from_secs(120) {
            return Err(format!("open {url}: the page did not load in 120 s"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

pub(crate) fn eval(tab: &Tab, js: &str) -> Value {
    try_eval(tab, js).unwrap_or_else(|e| panic!("{e}"))
}

/// [`eval`], or why not: between two documents (a redirect, a form that
/// posts itself) there is no page to ask.
fn try_eval(tab: &Tab, js: &str) -> Result<Value, String> {
    let wrapped = format!("JSON.stringify((() => {{ {js} }})())");
    let out = tab
        .evaluate(&wrapped, false)
        .map_err(|e| format!("evaluate {js}: {e}"))?
        .value;
    match out {
        Some(Value::String(s)) => Ok(serde_json::from_str(&s).unwrap_or(Value::Null)),
        other => Err(format!("{js}: {other:?}")),
    }
}

/// Wait for a viewer page (a local file, no server) to reach `js`: a
/// minute, since a loaded machine once took over the 10 s this had.
fn wait_until(tab: &Tab, js: &str) {
    wait_long(tab, js, 60);
}

fn screenshot(tab: &Tab, name: &str) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("view-screenshots");
    std::fs::create_dir_all(&dir).expect("screenshot folder");
    let png = tab
        .capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true)
        .expect("screenshot");
    std::fs::write(dir.join(format!("{name}.png")), png).expect("write screenshot");
}

/// A recorded match and its page.
fn replay_page(dir: &Path, name: &str, game: &str, bots: &[String], games: &str) -> (Vec<Value>, PathBuf) {
    let replay = dir.join(format!("{name}.jsonl"));
    let page = dir.join(format!("{name}.html"));
    let mut args: Vec<String> = vec!["match".into(), "--game".into(), game.into()];
    args.extend(bots.iter().cloned());
    args.extend([
        "--games".into(),
        games.into(),
        "--replay".into(),
        replay.display().to_string(),
    ]);
    let out = arena(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = arena(&["view".as_ref(), replay.as_os_str(), "-o".as_ref(), page.as_os_str()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines = std::fs::read_to_string(&replay)
        .expect("replay")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    (lines, page)
}

fn open(browser: &Browser, page: &Path) -> Arc<Tab> {
    let tab = new_tab(browser);
    goto(&tab, &format!("file://{}", page.display()));
    wait_until(&tab, "return !!(window.arenaView && arenaView.states.length > 0)");
    tab
}

/// The lines of game `g` of a replay.
fn game_lines(lines: &[Value], g: u64) -> Vec<&Value> {
    lines
        .iter()
        .filter(|l| l["game"] == g && l["type"] != "match")
        .collect()
}

/// The final scores as the page must write them: each with its bot's name,
/// in seat order ("house:random 1, house:aggressive 5").
fn scored(game: &[&Value]) -> String {
    let names = last_of(game, "game")["names"].as_array().expect("names").clone();
    let scores = last_of(game, "result")["scores"].as_array().expect("scores").clone();
    names
        .iter()
        .zip(&scores)
        .map(|(n, s)| format!("{} {s}", n.as_str().expect("a name")))
        .collect::<Vec<_>>()
        .join(", ")
}

fn last_of<'a>(lines: &[&'a Value], kind: &str) -> &'a Value {
    lines.iter().rev().find(|l| l["type"] == kind).copied().expect(kind)
}

fn select_game(tab: &Tab, g: u64) {
    eval(
        tab,
        &format!(
            "const s = document.getElementById('game'); s.value = '{g}'; s.dispatchEvent(new Event('change')); return true;"
        ),
    );
}

fn to_end(tab: &Tab) {
    // Keys reach the page after `press_key` returns: wait for their effect.
    tab.press_key("End").expect("End");
    wait_until(tab, "return arenaView.at === arenaView.events.length - 1");
}

pub(crate) fn text(tab: &Tab, id: &str) -> String {
    eval(tab, &format!("return document.getElementById('{id}').innerText;"))
        .as_str()
        .unwrap_or_default()
        .to_string()
}

pub(crate) fn no_network(tab: &Tab) {
    assert_eq!(
        eval(tab, "return performance.getEntriesByType('resource').length;"),
        Value::from(0),
        "the page loaded something"
    );
}

fn rank(r: u64, game: &str) -> String {
    match (r, game) {
        (1, "connect-fwar") => "A".into(),
        (11, _) => "J".into(),
        (12, _) => "Q".into(),
        (13, _) => "K".into(),
        (14, _) => "A".into(),
        _ => r.to_string(),
    }
}

/// A replay as the course server shows it to a student (issue 47: their
/// own seat's hidden cards only, `arena::replay::for_viewer`) draws in
/// Chromium: seat 0's hand face up, the other seats' face down, each with
/// its count, after every event, and no error on the page.
#[test]
fn a_replay_hidden_for_one_seat_draws_the_others_cards_face_down() {
    let dir = temp("browser-hidden");
    let browser = browser();
    for (game, bots, hand) in [
        ("en-garde", &["house:random", "house:aggressive"][..], ".hand.seat"),
        (
            "president",
            &["house:random", "house:lowest", "house:random"][..],
            ".seatrow:nth-child(N) .hand",
        ),
    ] {
        let bots: Vec<String> = bots.iter().map(|b| b.to_string()).collect();
        let (mut lines, _) = replay_page(&dir, game, game, &bots, "2");
        arena::replay::for_viewer(&mut lines, &|bot| bot == 0);
        let hidden = dir.join(format!("{game}-hidden.jsonl"));
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&hidden, text).expect("write");
        let page = dir.join(format!("{game}-hidden.html"));
        let out = arena(&["view".as_ref(), hidden.as_os_str(), "-o".as_ref(), page.as_os_str()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let tab = open(&browser, &page);
        let seat = |n: usize| {
            if game == "en-garde" {
                format!("{hand}{n}")
            } else {
                hand.replace('N', &(n + 1).to_string())
            }
        };
        for step in 1..6 {
            let (mine, theirs) = (seat(0), seat(1));
            let counts = eval(
                &tab,
                &format!(
                    "return [document.querySelectorAll('{mine} > .card:not(.back)').length, \
                     document.querySelectorAll('{mine} > .card.back').length, \
                     document.querySelectorAll('{theirs} > .card:not(.back)').length, \
                     document.querySelectorAll('{theirs} > .card.back').length];"
                ),
            );
            assert_eq!(
                counts[1], 0,
                "{game} step {step}: seat 0's own cards face down: {counts}"
            );
            assert!(
                counts[0].as_u64() > Some(0),
                "{game} step {step}: seat 0's hand: {counts}"
            );
            assert_eq!(counts[2], 0, "{game} step {step}: seat 1's cards shown: {counts}");
            assert_eq!(
                counts[3], 1,
                "{game} step {step}: seat 1's hand as one face-down count: {counts}"
            );
            tab.press_key("ArrowRight").expect("step");
            wait_until(&tab, &format!("return arenaView.at >= {step};"));
        }
        screenshot(&tab, &format!("{game}-hidden"));
        assert_eq!(
            eval(&tab, "return document.getElementById('message').hidden;"),
            Value::Bool(true)
        );
    }
}

/// The keys a page offers are the keys that work for its game (issue 47
/// item 10): Sugargame hides nothing, so its page offers neither the
/// "Show hidden cards" box nor "h hidden cards" among the keys, and "h"
/// does nothing; President's page offers both and "h" toggles the cards.
#[test]
fn the_hidden_cards_key_is_offered_only_where_a_game_hides_cards() {
    let dir = temp("browser-keys");
    let browser = browser();
    for (game, bots, hides) in [
        ("sugar", &["house:random", "house:greedy"][..], false),
        ("president", &["house:random", "house:lowest", "house:random"][..], true),
    ] {
        let bots: Vec<String> = bots.iter().map(|b| b.to_string()).collect();
        let (_, page) = replay_page(&dir, game, game, &bots, "1");
        let tab = open(&browser, &page);
        let footer = eval(&tab, "return document.querySelector('footer').innerText;");
        let footer = footer.as_str().unwrap_or_default();
        assert_eq!(footer.contains("h hidden cards"), hides, "{game}: {footer}");
        let toolbar = text(&tab, "hidden-key");
        assert_eq!(
            eval(&tab, "return document.getElementById('hidden').offsetParent !== null;"),
            Value::Bool(hides),
            "{game}: the box is shown only where cards are hidden ({toolbar:?})"
        );
        tab.press_key("h").expect("h");
        // A key reaches the page after `press_key` returns: step once, and
        // wait for the step, so "h" has been handled before reading.
        tab.press_key("ArrowRight").expect("step");
        wait_until(&tab, "return arenaView.at >= 1;");
        assert_eq!(
            eval(&tab, "return arenaView.showHidden;"),
            Value::Bool(!hides),
            "{game}: h toggles the cards only where it is offered"
        );
        screenshot(&tab, &format!("{game}-keys"));
    }
}

#[test]
fn every_game_redraws_to_the_replays_end_in_chromium() {
    let dir = temp("browser-games");
    let browser = browser();

    // En Garde: the final score and both fencers' spaces.
    let (lines, page) = replay_page(
        &dir,
        "en-garde",
        "en-garde",
        &[
            bot_arg("en-garde/aggressive"),
            "house:random".into(),
            "--variant".into(),
            "standard".into(),
        ],
        "2",
    );
    let tab = open(&browser, &page);
    screenshot(&tab, "en-garde-start");
    for g in [0u64, 1] {
        select_game(&tab, g);
        to_end(&tab);
        let game = game_lines(&lines, g);
        let result = last_of(&game, "result");
        let shown = text(&tab, "result");
        let scores = scored(&game);
        assert!(
            shown.contains(&scores),
            "game {g}: result shows {shown:?}, the replay {scores:?}"
        );
        if let Some(w) = result["winner-name"].as_str() {
            assert!(shown.contains(&format!("{w} wins")), "{shown}");
        }
        let positions = &last_of(&game, "round-end")["positions"];
        for seat in 0..2 {
            let title = eval(
                &tab,
                &format!("return document.querySelector('.space.fencer.seat{seat}').title;"),
            );
            assert_eq!(
                title,
                Value::from(format!("space {}", positions[seat])),
                "game {g} seat {seat}"
            );
        }
    }
    screenshot(&tab, "en-garde-end");
    no_network(&tab);

    // ConnectFwar: every card of the final board, and the score.
    let (lines, page) = replay_page(
        &dir,
        "connect-fwar",
        "connect-fwar",
        &[bot_arg("connect-fwar/basic")],
        "1",
    );
    let tab = open(&browser, &page);
    to_end(&tab);
    let game = game_lines(&lines, 0);
    let end = last_of(&game, "game-end");
    let shown: Vec<Value> = eval(&tab, "return [...document.querySelectorAll('.grid4 .cell')].map(c => { const k = c.querySelector('.card'); return k ? k.title : ''; });")
        .as_array()
        .expect("cells")
        .clone();
    let columns = end["board"]["columns"].as_array().expect("columns");
    let mut expected = Vec::new();
    for r in (0..4).rev() {
        for column in columns.iter().take(4) {
            expected.push(Value::from(column.get(r).map_or(String::new(), |c| {
                format!(
                    "{} of {}",
                    rank(c["rank"].as_u64().unwrap_or(0), "connect-fwar"),
                    c["suit"].as_str().unwrap_or("")
                )
            })));
        }
    }
    assert_eq!(shown, expected, "the board on the page");
    assert!(
        text(&tab, "result").contains(&format!("Score {}", end["score"])),
        "{}",
        text(&tab, "result")
    );
    screenshot(&tab, "connect-fwar-end");
    no_network(&tab);

    // Sugargame: every agent on its square, every square's sugar, the scores.
    let (lines, page) = replay_page(
        &dir,
        "sugar",
        "sugar",
        &[bot_arg("sugar/hunter"), "house:greedy".into()],
        "2",
    );
    let tab = open(&browser, &page);
    // It opens on the placed agents; Home goes back to the empty grid.
    assert_eq!(eval(&tab, "return arenaView.at;"), Value::from(1u64));
    tab.press_key("Home").expect("home");
    wait_until(&tab, "return arenaView.at === 0;");
    for _ in 0..12 {
        tab.press_key("ArrowRight").expect("step");
    }
    wait_until(&tab, "return arenaView.at === 12;");
    screenshot(&tab, "sugar-step-12");
    to_end(&tab);
    let game = game_lines(&lines, 0);
    let step = last_of(&game, "step");
    let mut agents: Vec<String> = step["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .map(|a| format!("({}, {}) {}", a["x"], a["y"], a["id"]))
        .collect();
    agents.sort();
    let mut shown: Vec<String> = eval(&tab, "return [...document.querySelectorAll('.grid5 .sq')].filter(q => q.querySelector('.agent:not(.dead)')).map(q => q.title.split(':')[0] + ' ' + q.querySelector('.agent').innerText);")
        .as_array()
        .expect("agents")
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_string())
        .collect();
    shown.sort();
    assert_eq!(shown, agents, "agents on the page");
    let sugar: Vec<String> = eval(
        &tab,
        "return [...document.querySelectorAll('.grid5 .sq')].map(q => q.title.split('sugar ')[1]);",
    )
    .as_array()
    .expect("squares")
    .iter()
    .map(|v| v.as_str().unwrap_or_default().to_string())
    .collect();
    let expected: Vec<String> = step["sugar"]
        .as_array()
        .expect("rows")
        .iter()
        .flat_map(|row| row.as_array().expect("row").iter().map(Value::to_string))
        .collect();
    assert_eq!(sugar, expected, "sugar levels on the page");
    assert!(
        text(&tab, "result").contains(&scored(&game)),
        "{} / {}",
        text(&tab, "result"),
        scored(&game)
    );
    screenshot(&tab, "sugar-end");
    no_network(&tab);

    // President: the finishing order and titles, for the second game (after an exchange).
    let (lines, page) = replay_page(
        &dir,
        "president",
        "president",
        &[
            bot_arg("president/lowest"),
            "house:random".into(),
            bot_arg("president/random"),
            "house:lowest".into(),
        ],
        "8",
    );
    let tab = open(&browser, &page);
    select_game(&tab, 1);
    screenshot(&tab, "president-exchange");
    to_end(&tab);
    let game = game_lines(&lines, 1);
    let names = &game[0]["names"];
    let positions = last_of(&game, "game-end")["positions"]
        .as_array()
        .expect("positions")
        .clone();
    let mut order: Vec<(u64, String)> = positions
        .iter()
        .enumerate()
        .map(|(seat, p)| (p.as_u64().unwrap_or(0), names[seat].as_str().unwrap_or("").to_string()))
        .collect();
    order.sort();
    let shown = text(&tab, "result");
    let expected = order
        .iter()
        .map(|(p, n)| format!("{}{} {n}", p, ["th", "st", "nd", "rd", "th", "th", "th"][*p as usize]))
        .collect::<Vec<_>>()
        .join(", ");
    assert!(shown.starts_with(&expected), "page: {shown:?}, replay: {expected:?}");
    let titles = last_of(&game, "game-end")["titles"].clone();
    let board = text(&tab, "board");
    for t in titles.as_array().expect("titles") {
        assert!(board.contains(t.as_str().unwrap_or("?")), "title {t} not shown");
    }
    screenshot(&tab, "president-end");
    no_network(&tab);
}

#[test]
fn play_pause_and_speed_change_what_is_shown() {
    let dir = temp("browser-controls");
    let browser = browser();
    let (_, page) = replay_page(
        &dir,
        "sugar",
        "sugar",
        &["house:greedy".into(), "house:hunter".into()],
        "2",
    );
    let tab = open(&browser, &page);
    let at = |tab: &Tab| eval(tab, "return arenaView.at;").as_u64().expect("at");
    let set_speed = |k: u32| {
        eval(
            &tab,
            &format!(
                "const s = document.getElementById('speed'); s.value = '{k}'; s.dispatchEvent(new Event('input')); return true;"
            ),
        )
    };
    // Fastest: 128 events a second.
    set_speed(7);
    tab.press_key("Home").expect("home");
    wait_until(&tab, "return arenaView.at === 0;");
    tab.press_key(" ").expect("play");
    wait_until(&tab, "return arenaView.playing === true;");
    std::thread::sleep(Duration::from_millis(1000));
    tab.press_key(" ").expect("pause");
    wait_until(&tab, "return arenaView.playing === false;");
    let fast = at(&tab);
    assert!(fast >= 5, "at the fastest speed, one second showed {fast} events");
    assert_eq!(
        text(&tab, "position"),
        format!(
            "event {} of {}",
            fast + 1,
            eval(&tab, "return arenaView.events.length;")
        ),
        "the counter shows the event drawn"
    );
    let board = text(&tab, "board");
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(at(&tab), fast, "paused, yet the game moved on");
    assert_eq!(text(&tab, "board"), board, "paused, yet the board changed");
    // Slowest: half an event a second.
    set_speed(0);
    tab.press_key("Home").expect("home");
    wait_until(&tab, "return arenaView.at === 0;");
    tab.press_key(" ").expect("play");
    wait_until(&tab, "return arenaView.playing === true;");
    std::thread::sleep(Duration::from_millis(1000));
    tab.press_key(" ").expect("pause");
    wait_until(&tab, "return arenaView.playing === false;");
    let slow = at(&tab);
    assert!(slow <= 1, "at the slowest speed, one second showed {slow} events");
    assert!(
        text(&tab, "speed-label").starts_with("0.25x"),
        "{}",
        text(&tab, "speed-label")
    );
    // Stepping with the arrows.
    tab.press_key("ArrowRight").expect("step");
    wait_until(&tab, &format!("return arenaView.at === {};", slow + 1));
    tab.press_key("ArrowLeft").expect("back");
    wait_until(&tab, &format!("return arenaView.at === {slow};"));
    screenshot(&tab, "controls");
}

#[test]
fn a_replay_of_a_newer_format_gets_a_message_on_the_page() {
    let dir = temp("browser-format");
    let browser = browser();
    let (lines, page) = replay_page(&dir, "cf", "connect-fwar", &["house:basic".into()], "1");
    let tab = open(&browser, &page);
    let mut header = lines[0].clone();
    header["format"] = Value::from(99);
    let text_of = format!(
        "{header}\n{}\n",
        lines[1..].iter().map(Value::to_string).collect::<Vec<_>>().join("\n")
    );
    eval(
        &tab,
        &format!(
            "arenaView.openText({}, 'future.jsonl'); return true;",
            Value::from(text_of)
        ),
    );
    let message = text(&tab, "message");
    assert!(
        message.contains("format 99") && message.contains("newer"),
        "the page says: {message:?}"
    );
    assert_eq!(
        eval(&tab, "return document.getElementById('message').hidden;"),
        Value::Bool(false)
    );
    screenshot(&tab, "newer-format");
    // A line cut short names its line.
    let cut = format!("{}\n{}", lines[0], &lines[1].to_string()[..20]);
    eval(
        &tab,
        &format!("arenaView.openText({}, 'cut.jsonl'); return true;", Value::from(cut)),
    );
    let message = text(&tab, "message");
    assert!(message.contains("cut.jsonl line 2"), "the page says: {message:?}");
}

#[test]
fn a_thousand_game_match_opens_and_links_go_straight_to_a_game() {
    let dir = temp("browser-large");
    let browser = browser();
    let (lines, page) = replay_page(
        &dir,
        "eg1000",
        "en-garde",
        &[
            "house:aggressive".into(),
            "house:random".into(),
            "--variant".into(),
            "standard".into(),
        ],
        "1000",
    );
    let tab = new_tab(&browser);
    let started = std::time::Instant::now();
    goto(&tab, &format!("file://{}#game=999&event=end", page.display()));
    wait_until(
        &tab,
        "return !!(window.arenaView && arenaView.game && arenaView.game.index === 999 && arenaView.at === arenaView.events.length - 1)",
    );
    // Not a pass/fail timing: docs/performance.md quotes it.
    eprintln!(
        "1,000-game page ({} KB): game 999's last event drawn {} ms after navigation",
        std::fs::metadata(&page).map_or(0, |m| m.len() / 1000),
        started.elapsed().as_millis()
    );
    assert_eq!(
        eval(&tab, "return document.getElementById('game').options.length;"),
        Value::from(1000)
    );
    let last = game_lines(&lines, 999);
    assert!(
        text(&tab, "result").contains(&scored(&last)),
        "{} / {}",
        text(&tab, "result"),
        scored(&last)
    );
    screenshot(&tab, "large-game-999");
    no_network(&tab);
}

/// Markup a crafted file or a hostile name might carry: each would run
/// script, end the page's data early or blank it, if it reached the page as
/// markup instead of text.
const HOSTILE: [&str; 5] = [
    "<img src=x onerror=\"window.pwned=1\">",
    "</script><script>window.pwned=2</script>",
    "<!--<script>",
    "<svg onload=\"window.pwned=3\">",
    "\u{2028}zz&amp;<b>",
];

/// Put `HOSTILE` strings where a replay holds cards, hands, names, suits,
/// scores and log lines; `names` also renames the bots.
fn poison(lines: &mut [Value]) {
    let name = Value::from(format!("zz{}", HOSTILE[2]));
    for line in lines.iter_mut() {
        match line["type"].as_str().unwrap_or_default() {
            "match" => {
                for b in line["bots"].as_array_mut().into_iter().flatten() {
                    if b["name"] == "house:random" {
                        b["name"] = name.clone();
                    }
                }
            }
            "game" => {
                for n in line["names"].as_array_mut().into_iter().flatten() {
                    if n == "house:random" {
                        *n = name.clone();
                    }
                }
            }
            "round-start" => {
                line["hands"][0][0] = Value::from(HOSTILE[0]);
                line["deck"][0] = Value::from(HOSTILE[1]);
            }
            "move" => line["card"] = Value::from(HOSTILE[3]),
            "round-end" => line["cause"] = Value::from(HOSTILE[4]),
            "log" => line["lines"] = Value::from(HOSTILE.to_vec()),
            _ => {}
        }
    }
}

#[test]
fn hostile_replays_logs_and_names_show_as_text_and_the_page_is_drawn() {
    let dir = temp("browser-hostile");
    let browser = browser();
    // A bot file named like markup: its name is the file's stem.
    let named = dir.join(format!("zz{}.wasm", HOSTILE[2]));
    std::fs::copy(bot_arg("en-garde/aggressive"), &named).expect("copy the bot");
    let (mut lines, _) = replay_page(
        &dir,
        "eg",
        "en-garde",
        &[named.display().to_string(), "house:random".into()],
        "2",
    );
    poison(&mut lines);
    let crafted = dir.join("crafted.jsonl");
    let body: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&crafted, body.join("\n") + "\n").expect("write the crafted replay");
    let page = dir.join("crafted.html");
    let out = arena(&["view".as_ref(), crafted.as_os_str(), "-o".as_ref(), page.as_os_str()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).expect("page");
    let policy = html
        .split("Content-Security-Policy\" content=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a Content-Security-Policy");
    let scripts = policy
        .split(';')
        .find(|d| d.trim().starts_with("script-src"))
        .expect("a script-src directive");
    assert!(
        scripts.contains("'sha256-") && !scripts.contains("unsafe-inline"),
        "only the page's own scripts, by hash: {policy}"
    );
    let tab = open(&browser, &page);
    // Every event of both games drawn, as a person stepping through would.
    for g in 0..2 {
        select_game(&tab, g);
        to_end(&tab);
    }
    assert_eq!(
        eval(&tab, "return window.pwned === undefined;"),
        Value::Bool(true),
        "script ran"
    );
    assert_eq!(
        eval(&tab, "return document.getElementById('app').hidden;"),
        Value::Bool(false),
        "the page is drawn"
    );
    // The strings are on the page as text: the name in the title, the log
    // lines beside the calls, the card and the hand on the board.
    let title = text(&tab, "title");
    assert!(title.contains(&format!("zz{}", HOSTILE[2])), "title: {title}");
    let board_and_calls = |tab: &Tab| {
        eval(
            tab,
            "return document.getElementById('board').innerText + document.getElementById('calls').innerText + document.getElementById('event').innerText;",
        )
        .as_str()
        .unwrap_or_default()
        .to_string()
    };
    select_game(&tab, 0);
    eval(&tab, "document.activeElement.blur(); return true;");
    tab.press_key("Home").expect("home");
    wait_until(&tab, "return arenaView.at === 0;");
    let mut seen = String::new();
    let events = eval(&tab, "return arenaView.events.length;").as_u64().expect("events");
    for k in 0..events {
        eval(&tab, "document.activeElement.blur(); return true;");
        tab.press_key("ArrowRight").expect("step");
        wait_until(&tab, &format!("return arenaView.at === {};", (k + 1).min(events - 1)));
        seen.push_str(&board_and_calls(&tab));
    }
    for s in [HOSTILE[0], HOSTILE[1], HOSTILE[3], HOSTILE[4]] {
        assert!(seen.contains(s), "`{s}` is not shown as text");
    }
    screenshot(&tab, "hostile-replay");
    no_network(&tab);
    assert_eq!(
        eval(&tab, "return window.pwned === undefined;"),
        Value::Bool(true),
        "script ran"
    );
}

/// A round lost to an illegal move gets the legend's red mark on the
/// scrubber ("forfeit or illegal"), not the gold one of a point.
#[test]
fn rounds_lost_to_an_illegal_move_get_the_red_mark() {
    let dir = temp("browser-illegal");
    let browser = browser();
    let bots = [bot_arg("hostile/illegal"), "house:random".to_string()];
    let (lines, page) = replay_page(&dir, "illegal", "en-garde", &bots, "1");
    let illegal_rounds = lines
        .iter()
        .filter(|l| l["game"] == 0 && l["type"] == "round-end" && l["cause"] == "illegal-move")
        .count();
    assert!(illegal_rounds > 0, "the bot loses rounds to illegal moves");
    let tab = open(&browser, &page);
    let red = eval(&tab, "return document.querySelectorAll('#markers .forfeit').length;");
    let gold = eval(&tab, "return document.querySelectorAll('#markers .point').length;");
    assert_eq!(
        red,
        Value::from(illegal_rounds as u64),
        "one red mark per illegal round"
    );
    assert_eq!(
        gold,
        Value::from(0u64),
        "no point marks: every round was lost to an illegal move"
    );
    // The game opens on the first deal, not on an empty table.
    assert_eq!(eval(&tab, "return arenaView.at;"), Value::from(1u64));
    assert_eq!(
        eval(&tab, "return arenaView.states[arenaView.at].hands[0].length;"),
        Value::from(5u64),
        "the first hand is on the table"
    );
}

/// Wait up to `seconds` for `js` to hold (a verdict takes a bot's compile and its games).
pub(crate) fn wait_long(tab: &Tab, js: &str, seconds: u64) {
    let started = std::time::Instant::now();
    // A page that moves on by itself (the LTI launch: a form that posts
    // itself, then a redirect) can be between documents when asked.
    while started.elapsed() < Duration::from_secs(seconds) {
        if try_eval(tab, js) == Ok(Value::Bool(true)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let at = try_eval(
        tab,
        "return location.href + '\\n' + document.body.innerText.slice(0, 2000);",
    );
    panic!(
        "the page never got to: {js}\nit shows: {}",
        at.map_or_else(|e| e, |v| v.as_str().unwrap_or_default().to_string())
    );
}

/// [`wait_until`] for a page that waits on the server: under a full test
/// run's load an 18 MB upload and its redirect take seconds, not a moment.
fn wait_patient(tab: &Tab, js: &str) {
    wait_long(tab, js, 300);
}

/// A login link clicked in webmail (a page of another site) logs the
/// student in at once: the session cookie is SameSite=Strict, which
/// Chromium does not send along a redirect of a cross-site navigation, so
/// the link answers a page that moves on by itself and the student's own
/// page, not the logged-out welcome, is what they see. The "mail" is a
/// page on `localhost`, another site than the server's `127.0.0.1`.
#[test]
fn a_login_link_clicked_in_webmail_lands_on_the_students_page() {
    let on = crate::server::On::Sqlite;
    let (dir, students) = on.course("srv-webmail", &[]);
    let server = on.serve(&dir);
    let link = format!(
        "{}/login/{}",
        server.url,
        students[0]["link"].split("/login/").nth(1).unwrap_or("")
    );
    let mail = temp("webmail");
    std::fs::write(
        mail.join("inbox.html"),
        format!("<!doctype html><p>Your bot course: <a id=\"link\" href=\"{link}\">log in</a></p>"),
    )
    .unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let mut webmail = std::process::Command::new("python3")
        .args(["-m", "http.server", "--bind", "127.0.0.1", &port.to_string()])
        .current_dir(&mail)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("python3 -m http.server");
    // The server and the "webmail" on loopback, two sites; nothing else.
    let browser = browser_with("--proxy-bypass-list=127.0.0.1;localhost");
    let tab = new_tab(&browser);
    let inbox = format!("http://localhost:{port}/inbox.html");
    let mut opened = false;
    for _ in 0..100 {
        if try_goto(&tab, &inbox).is_ok() && eval(&tab, "return !!document.getElementById('link')") == Value::Bool(true)
        {
            opened = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(opened, "the webmail page never opened");
    eval(&tab, "document.getElementById('link').click(); return true;");
    // On the server's home page, logged in (the upload box) or not (the welcome).
    wait_patient(
        &tab,
        "return location.host.startsWith('127.0.0.1') && location.pathname === '/' && document.readyState === 'complete' \
         && (!!document.querySelector('input[type=file]') || document.body.innerText.includes('Log in with the link'))",
    );
    let shown = eval(&tab, "return document.body.innerText");
    assert!(
        !shown
            .as_str()
            .unwrap_or("")
            .contains("Log in with the link your teacher sent you"),
        "logged out after the click: {shown}"
    );
    assert_eq!(
        eval(&tab, "return !!document.querySelector('input[type=file]')"),
        Value::Bool(true),
        "{shown}"
    );
    screenshot(&tab, "server-from-webmail");
    let _ = webmail.kill();
    let _ = webmail.wait();
}
/// The course server in Chromium, as its users meet it: a student logs in
/// by link, uploads with the file picker, and sees the verdict appear in
/// the page without a reload; the version page shows the rubric and opens
/// a replay in the viewer, served by the server and nothing else; the
/// teacher sees the class and takes the gradebook. Screenshots of each page
/// are kept in `target/tmp/view-screenshots/server-*.png`.
#[test]
fn a_student_uploads_in_chromium_and_the_verdict_appears_without_a_reload() {
    // Built before Chromium starts: on a fresh clone the build takes longer
    // than the browser waits idle.
    let python = arena_tests::lang_bot("en-garde/aggressive-py").display().to_string();
    let on = crate::server::On::Sqlite;
    let (dir, students) = on.course("srv-chromium", &[]);
    let server = on.serve(&dir);
    // Only the server on loopback: anything else goes to a closed port.
    let browser = browser_with("--proxy-bypass-list=127.0.0.1");
    let tab = new_tab(&browser);
    let login = |link: &str| format!("{}/login/{}", server.url, link.split("/login/").nth(1).unwrap_or(""));
    goto(&tab, &login(&students[0]["link"]));
    wait_patient(&tab, "return !!document.querySelector('input[type=file]')");
    screenshot(&tab, "server-student-before");
    tab.find_element("input[type=file]")
        .expect("the file picker")
        .set_input_files(&[&python])
        .expect("choose the file");
    // A DOM click, not a mouse event at the button's coordinates: under a
    // full test run's load a page still laying out can move the button.
    eval(
        &tab,
        "document.querySelector('#upload button[type=submit]').click(); return true;",
    );
    wait_patient(&tab, "return document.getElementById('received') !== null");
    assert!(
        text(&tab, "received").contains("Version 1 received"),
        "{}",
        text(&tab, "received")
    );
    // From here on, the page must change by itself: a reload would clear the mark.
    assert_eq!(
        eval(
            &tab,
            "window.arenaMark = 1; return document.getElementById('versions').textContent.includes('checking and grading');"
        ),
        Value::Bool(true),
        "a Python bot is still compiling when the page comes back"
    );
    screenshot(&tab, "server-student-grading");
    wait_long(
        &tab,
        "return document.querySelector('#versions td.ok') !== null || document.querySelector('#versions td.bad') !== null",
        600,
    );
    assert_eq!(
        eval(&tab, "return window.arenaMark === 1"),
        Value::Bool(true),
        "no reload"
    );
    assert!(
        text(&tab, "versions").contains("accepted"),
        "{}",
        text(&tab, "versions")
    );
    screenshot(&tab, "server-student-graded");
    tab.find_element("#versions a").expect("v1").click().expect("open v1");
    wait_patient(&tab, "return !!document.querySelector('#verdict table')");
    assert!(
        text(&tab, "verdict").contains("Beats house:random"),
        "{}",
        text(&tab, "verdict")
    );
    screenshot(&tab, "server-version");
    // Any graded game: the item's form, game 3 of its 200.
    eval(
        &tab,
        "document.querySelector('form.watch input').value = '3'; return true;",
    );
    tab.find_element("form.watch button")
        .expect("watch")
        .click()
        .expect("watch a game");
    wait_patient(&tab, "return !!(window.arenaView && arenaView.states.length > 0)");
    assert!(
        eval(&tab, "return document.body.innerText;")
            .as_str()
            .unwrap_or("")
            .contains("game 3 of 200"),
        "the game asked for"
    );
    screenshot(&tab, "server-any-game");
    no_network(&tab);
    goto(&tab, &format!("{}/", server.url));
    wait_patient(&tab, "return !!document.querySelector('#versions a')");
    tab.find_element("#versions a").expect("v1").click().expect("open v1");
    wait_patient(&tab, "return !!document.querySelector('#verdict table')");
    let replay = eval(
        &tab,
        "var a = document.querySelector('#verdict ul a'); return a ? a.href : null;",
    );
    let replay = replay.as_str().expect("a replay link");
    goto(&tab, replay);
    wait_patient(&tab, "return !!(window.arenaView && arenaView.states.length > 0)");
    screenshot(&tab, "server-replay");
    no_network(&tab);
    let teacher_link = std::fs::read_to_string(dir.join("teacher-link.txt")).expect("the teacher's link");
    let teacher = new_tab(&browser);
    goto(&teacher, &login(teacher_link.trim()));
    wait_patient(&teacher, "return !!document.querySelector('table.class')");
    let class = eval(&teacher, "return document.querySelector('table.class').textContent;");
    assert!(class.as_str().unwrap_or("").contains("v1 (accepted)"), "{class}");
    screenshot(&teacher, "server-teacher");
    // Re-grading runs in the background; the class part of the page follows it.
    teacher
        .find_element("form[action='/teacher/regrade'] button")
        .expect("the re-grade button")
        .click()
        .expect("re-grade");
    wait_patient(&teacher, "return document.getElementById('regrading') !== null");
    assert!(
        text(&teacher, "regrading").contains("1 counted version is being graded again"),
        "{}",
        text(&teacher, "regrading")
    );
    eval(&teacher, "window.arenaMark = 2; return true;");
    wait_long(
        &teacher,
        "return document.getElementById('pending').textContent.includes('nothing waiting')",
        600,
    );
    assert_eq!(
        eval(&teacher, "return window.arenaMark === 2"),
        Value::Bool(true),
        "no reload"
    );
    let csv = teacher
        .evaluate("fetch('/teacher/gradebook.csv').then(r => r.text())", true)
        .expect("fetch the gradebook")
        .value;
    let csv = csv.as_ref().and_then(Value::as_str).unwrap_or("");
    assert!(csv.lines().any(|l| l.starts_with("s1,Ann Lee,ann@uni.edu,1,")), "{csv}");
    // A file dropped on the upload box is submitted too: the picker only
    // lends the dropped file its bytes, then is emptied before the drop.
    // (The teacher's login took this browser's session: log in again.)
    goto(&tab, &login(&students[0]["link"]));
    // The login page leads on to the student's page: wait for that one.
    wait_patient(&tab, "return !!document.querySelector('input[type=file]')");
    let rust = arena_tests::bot("en-garde/aggressive").display().to_string();
    tab.find_element("input[type=file]")
        .expect("the file picker")
        .set_input_files(&[&rust])
        .expect("a file to drop");
    eval(
        &tab,
        "var input = document.querySelector('#drop input'); var dt = new DataTransfer(); dt.items.add(input.files[0]); \
         input.value = ''; document.getElementById('drop').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true })); \
         return true;",
    );
    wait_patient(
        &tab,
        "return !!document.getElementById('received') && document.getElementById('received').textContent.includes('Version 2 received')",
    );
    wait_long(
        &tab,
        "return document.querySelectorAll('#versions td.ok').length === 2",
        600,
    );
}

/// The ladder in Chromium: a student opens the leaderboard, classmates'
/// versions arrive and play, and the table changes by itself (server-sent
/// events; a reload would clear the window's mark). Screenshot:
/// `target/tmp/view-screenshots/server-ladder.png`.
#[test]
fn the_leaderboard_changes_in_chromium_without_a_reload() {
    let on = crate::server::On::Sqlite;
    let (dir, students) = on.course("srv-ladder-chromium", &[]);
    let server = on.serve(&dir);
    let browser = browser_with("--proxy-bypass-list=127.0.0.1");
    let tab = new_tab(&browser);
    let link = &students[0]["link"];
    goto(
        &tab,
        &format!("{}/login/{}", server.url, link.split("/login/").nth(1).unwrap_or("")),
    );
    goto(&tab, &format!("{}/ladder", server.url));
    wait_patient(&tab, "return !!document.getElementById('board')");
    assert_eq!(
        eval(
            &tab,
            "window.arenaMark = 1; return document.querySelectorAll('#board a').length;"
        ),
        Value::from(0u64),
        "nobody has submitted yet"
    );
    for (i, file) in ["en-garde/aggressive", "en-garde/random"].iter().enumerate() {
        let (code, json, err) = crate::server::submit(&server, &students[i]["token"], &arena_tests::bot(file));
        assert_eq!(code, 0, "{err} {json}");
    }
    wait_long(
        &tab,
        "return document.querySelectorAll('#board a').length === 2 && !document.getElementById('board-meta').textContent.startsWith('0 ');",
        300,
    );
    assert_eq!(
        eval(&tab, "return window.arenaMark === 1"),
        Value::Bool(true),
        "no reload"
    );
    let board = text(&tab, "board");
    assert!(board.contains("Ann Lee") && board.contains("Bo Wu"), "{board}");
    screenshot(&tab, "server-ladder");
    assert_eq!(
        eval(
            &tab,
            "return performance.getEntriesByType('resource').filter(e => !e.name.startsWith(location.origin)).length;"
        ),
        Value::from(0u64),
        "everything the page loaded came from the course server"
    );
    // A student's ladder page: the plot of ratings over versions is drawn.
    eval(&tab, "document.querySelector('#board a').click(); return true;");
    wait_patient(&tab, "return !!document.getElementById('plot')");
    assert_eq!(
        eval(&tab, "return document.querySelectorAll('#plot circle').length;"),
        Value::from(1u64),
        "one version, one point"
    );
    screenshot(&tab, "server-ladder-student");
}
