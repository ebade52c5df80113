//! The class walkthrough of issue 47 (item 11), in Chromium, for each of
//! the four games: a course with a class of seven students who upload, half
//! through the page's file picker and half with `arena submit`, a crashing
//! bot, one that plays illegal moves, one that loops, one that eats memory,
//! an unchanged template, a good bot and a better one; the ladder plays;
//! then the deadline passes. Every page each student and the teacher open is
//! checked against the words docs/server.md and the rules documents
//! promise, and kept as a full-page screenshot in
//! `target/screenshots/walkthrough/<game>/<step>.png` (CI keeps the folder).

use crate::browser::{browser_with, eval, text, wait_long};
use crate::ladder::replay_in;
use crate::server::{Server, csv_row, logged_in, serve_with, small_rubric, submit};
use arena_tests::{arena, bot, temp};
use headless_chrome::Tab;
use headless_chrome::protocol::cdp::Page;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What a student uploads, and what every page must then say of it.
struct Student {
    /// Their part in the class, and their first name.
    role: &'static str,
    /// The example or hostile bot they upload.
    file: &'static str,
    /// Rejected: the smoke game was forfeited for this reason
    /// (`ForfeitReason`'s word, as the check and the grade say it).
    forfeit: Option<&'static str>,
}

/// The class of one game, in roster order.
struct Class {
    game: &'static str,
    /// The game's starter (`arena new`'s template, docs/languages.md): its
    /// unchanged copy plays exactly as this house bot.
    starter: &'static str,
    students: [Student; 7],
    /// What `course.toml`'s `[limits]` changes: the looping bot forfeits
    /// every smoke game at the fuel limit (24 of them in President), and
    /// at Sugargame's 44G a move, or President's 2G, that takes minutes.
    limits: &'static str,
    /// The good and the better bot log notes of their own that no classmate may read.
    notes: bool,
    /// What an illegal move costs under the course's rule, in the rules
    /// document's words and number (none: the game has no illegal move).
    illegal_rule: Option<&'static str>,
}

fn classes() -> [Class; 4] {
    let s = |role, file, forfeit| Student { role, file, forfeit };
    [
        Class {
            game: "en-garde",
            starter: "aggressive",
            students: [
                s("Crash", "hostile/panic", Some("trap")),
                // Rule 5.1: each illegal move loses the round; the bot plays on.
                s("Illegal", "hostile/illegal", None),
                s("Loop", "hostile/infinite-loop", Some("fuel")),
                s("Memory", "hostile/memory-bomb", Some("memory")),
                s("Template", "en-garde/aggressive", None),
                s("Good", "en-garde/random", None),
                s("Better", "hostile/en-garde-move-notes", None),
            ],
            limits: "",
            notes: true,
            illegal_rule: Some("each loses the round (rule 5.1)"),
        },
        Class {
            game: "president",
            starter: "lowest",
            students: [
                s("Crash", "hostile/president-play-panic", Some("trap")),
                // Rule 10.1: an illegal play puts the bot out, in the last place.
                s("Illegal", "hostile/president-play-not-in-hand", None),
                s("Loop", "hostile/president-play-loop", Some("fuel")),
                s("Memory", "hostile/president-play-memory", Some("memory")),
                s("Template", "president/lowest", None),
                s("Good", "president/random", None),
                s("Better", "hostile/president-play-notes", None),
            ],
            limits: "\n[limits]\nfuel = 100000000\nbank = 50000000\n",
            notes: true,
            illegal_rule: Some("each puts the bot out, in the last place (rule 10.1)"),
        },
        Class {
            game: "connect-fwar",
            starter: "basic",
            students: [
                s("Crash", "hostile/connect-fwar-start-trap", Some("trap")),
                // Rule 3.3: a column outside 0-3 discards the card, a legal choice.
                s("Illegal", "hostile/connect-fwar-column-out-of-range", None),
                s("Loop", "hostile/connect-fwar-column-loop", Some("fuel")),
                s("Memory", "hostile/connect-fwar-start-memory", Some("memory")),
                s("Template", "connect-fwar/basic", None),
                s("Good", "connect-fwar/suits", None),
                s("Better", "connect-fwar/ranks", None),
            ],
            limits: "",
            notes: false,
            illegal_rule: None,
        },
        Class {
            game: "sugar",
            starter: "greedy",
            students: [
                s("Crash", "hostile/sugar-place-panic", Some("trap")),
                // Rule 4.3: an illegal move loses the game at once; no forfeit.
                s("Illegal", "hostile/sugar-action-foreign-agent", None),
                s("Loop", "hostile/sugar-action-loop", Some("fuel")),
                s("Memory", "hostile/sugar-action-memory", Some("memory")),
                s("Template", "sugar/greedy", None),
                s("Good", "sugar/random", None),
                s("Better", "hostile/sugar-action-notes", None),
            ],
            limits: "\n[limits]\nfuel = 500000000\nbank = 200000000\n",
            notes: true,
            illegal_rule: Some("the first one loses the game (rule 4.3)"),
        },
    ]
}

/// A short ladder that rests once every version has its matches.
const LADDER: &str = "\n[ladder]\ngames = 4\nversus_games = 0\nlease_seconds = 10\nmin_matches = 6\nrest_width = 100000.0\nmax_matches = 6\n";

/// Where this game's screenshots go: `target/screenshots/walkthrough/<game>/`.
fn shots(game: &str) -> PathBuf {
    shots_in(&format!("walkthrough/{game}"))
}

/// A fresh folder `target/screenshots/<kind>/` for a test's screenshots.
pub(crate) fn shots_in(kind: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target folder")
        .join("screenshots")
        .join(kind);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the screenshot folder");
    dir
}

/// The whole page, below the fold too, as a PNG.
pub(crate) fn full_page(tab: &Tab, dir: &Path, step: &str) {
    let size = eval(
        tab,
        "return [document.documentElement.scrollWidth, document.documentElement.scrollHeight];",
    );
    let (w, h) = (
        size[0].as_f64().unwrap_or(1280.0).max(1280.0),
        size[1].as_f64().unwrap_or(1000.0).clamp(600.0, 12_000.0),
    );
    let shot = tab
        .call_method(Page::CaptureScreenshot {
            format: Some(Page::CaptureScreenshotFormatOption::Png),
            quality: None,
            clip: Some(Page::Viewport {
                x: 0.0,
                y: 0.0,
                width: w,
                height: h,
                scale: 1.0,
            }),
            from_surface: Some(true),
            capture_beyond_viewport: Some(true),
            optimize_for_speed: None,
        })
        .expect("screenshot");
    use base64::Engine;
    let png = base64::engine::general_purpose::STANDARD
        .decode(shot.data)
        .expect("a PNG");
    std::fs::write(dir.join(format!("{step}.png")), png).expect("write the screenshot");
}

/// Open `path` of the server in `tab` and wait for the page to be there.
fn visit(tab: &Tab, server: &Server, path: &str) {
    let url = if path.starts_with("http") {
        path.to_string()
    } else {
        format!("{}{path}", server.url)
    };
    crate::browser::goto(tab, &url);
    wait_long(tab, "return document.readyState === 'complete'", 120);
}

/// Log `link`'s owner in: the session cookie replaces whoever was logged in.
fn log_in(tab: &Tab, server: &Server, link: &str) {
    let path = link.split("/login/").nth(1).expect("a login link");
    visit(tab, server, &format!("/login/{path}"));
}

fn body(tab: &Tab) -> String {
    eval(tab, "return document.body.innerText;")
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The course's `[ladder]` replaced, its `[limits]` added, and a deadline set.
fn configure(dir: &Path, limits: &str, deadline: Option<&str>) {
    let toml = dir.join("course.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    let mut text: String = text
        .lines()
        .filter(|l| !l.starts_with("deadline") && !l.starts_with("late_days"))
        .map(|l| format!("{l}\n"))
        .collect();
    // `course init` writes both tables (`[limits]` empty): these replace them.
    for (table, with) in [("\n[ladder]\n", LADDER), ("\n[limits]\n", limits)] {
        if with.is_empty() {
            continue;
        }
        let start = text.find(table).unwrap_or_else(|| panic!("no {table} in {text}"));
        let end = text[start + 1..].find("\n[").map_or(text.len(), |e| start + 1 + e);
        text = format!("{}{with}{}", &text[..start], &text[end..]);
    }
    if let Some(deadline) = deadline {
        // Top-level keys go before the first table.
        let at = text.find("\n[").unwrap_or(text.len());
        text = format!(
            "{}\ndeadline = \"{deadline}\"\nlate_days = 0\n{}",
            &text[..at],
            &text[at..]
        );
    }
    std::fs::write(&toml, text).unwrap();
}

/// What `arena grade` gives the same file offline, with the course's rubric and limits.
fn offline(game: &str, file: &Path, rubric: &Path, limits: &str) -> Value {
    let mut args = vec![
        "grade".to_string(),
        "--game".into(),
        game.into(),
        file.display().to_string(),
        "--rubric".into(),
        rubric.display().to_string(),
        "--json".into(),
    ];
    for line in limits.lines() {
        if let Some((k, v)) = line.split_once(" = ") {
            args.extend([format!("--{k}"), v.to_string()]);
        }
    }
    let out = arena(&args);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("arena grade {file:?}: {}", String::from_utf8_lossy(&out.stderr)))
}

/// Points as the pages write them: no decimals for whole points.
fn number(x: &Value) -> String {
    arena::text::points(x.as_f64().expect("points"))
}

/// The walkthrough of one game's class (see the module's comment).
fn walk(class: &Class) {
    let game = class.game;
    let shots = shots(game);
    let scratch = temp(&format!("walkthrough-{game}-files"));
    let rubric = small_rubric(game, 20, &scratch);
    let roster: String = std::iter::once("name,email,id\n".to_string())
        .chain(
            class
                .students
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{} {game},{}@uni.edu,s{}\n", s.role, s.role.to_lowercase(), i + 1)),
        )
        .collect();
    let (dir, links) = crate::server::On::Sqlite.course_of(
        &format!("walkthrough-{game}"),
        Some(&roster),
        &["--game", game, "--rubric", &rubric.display().to_string()],
    );
    configure(&dir, class.limits, None);
    let toml = std::fs::read_to_string(dir.join("course.toml")).unwrap();
    assert!(toml.contains(class.limits) && toml.contains(LADDER), "{toml}");
    let name = |i: usize| format!("{} {game}", class.students[i].role);
    // What each file earns offline: the server must say the same.
    let expected: Vec<Value> = class
        .students
        .iter()
        .map(|s| offline(game, &bot(s.file), &rubric, class.limits))
        .collect();
    for (s, e) in class.students.iter().zip(&expected) {
        let rejected = e["status"] == "rejected";
        assert_eq!(rejected, s.forfeit.is_some(), "{game} {}: offline {e:#}", s.role);
    }
    let server = serve_with(&dir, &[]);
    let browser = browser_with("--proxy-bypass-list=127.0.0.1");
    let tab = crate::browser::new_tab(&browser);

    // 1. Uploads: even students through the page, odd ones from a terminal.
    for (i, s) in class.students.iter().enumerate() {
        if i % 2 == 0 {
            log_in(&tab, &server, &links[i]["link"]);
            wait_long(&tab, "return !!document.querySelector('input[type=file]')", 120);
            let file = bot(s.file).display().to_string();
            tab.find_element("input[type=file]")
                .expect("the file picker")
                .set_input_files(&[&file])
                .expect("choose the file");
            eval(
                &tab,
                "document.querySelector('#upload button[type=submit]').click(); return true;",
            );
            wait_long(
                &tab,
                // The banner stays while the version is checked and graded
                // (a fast verdict may replace it first: then the table has it).
                "return (!!document.getElementById('received') && document.getElementById('received').textContent.includes('Version 1 received')) \
                 || (!!document.getElementById('versions') && /accepted|rejected/.test(document.getElementById('versions').textContent))",
                300,
            );
            if i == 0 {
                full_page(&tab, &shots, "01-uploaded-in-the-browser");
            }
        } else {
            let (code, v, err) = submit(&server, &links[i]["token"], &bot(s.file));
            // docs/server.md: 0 accepted, 1 rejected.
            let want = if s.forfeit.is_some() { 1 } else { 0 };
            assert_eq!(code, want, "{game} {}: {err} {v:#}", s.role);
            assert_eq!(v["accepted"].as_bool(), Some(s.forfeit.is_none()), "{v:#}");
            if let Some(reason) = s.forfeit {
                let said = v["reason"].as_str().unwrap_or("");
                assert!(
                    said.starts_with(&format!("the smoke game was forfeited ({reason}: ")),
                    "{game} {}: {said}",
                    s.role
                );
            }
        }
    }
    let teacher_link = std::fs::read_to_string(dir.join("teacher-link.txt")).unwrap();
    let mut teacher = logged_in(&server, teacher_link.trim());
    let started = Instant::now();
    loop {
        let (_, part, _) = teacher.get("/fragment/class");
        if part.contains("nothing waiting to be graded") && !part.contains("(queued)") && !part.contains("(running)") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "{game}: still grading after 10 minutes: {part}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }

    // 2. Each student's own pages.
    for (i, s) in class.students.iter().enumerate() {
        let e = &expected[i];
        let step = format!("{:02}-{}", 10 + i * 4, s.role.to_lowercase());
        log_in(&tab, &server, &links[i]["link"]);
        wait_long(&tab, "return !!document.querySelector('#versions td')", 120);
        let versions = text(&tab, "versions");
        let cell = eval(
            &tab,
            "var r = document.querySelector('#versions tbody tr'); return [r.cells[5].textContent, r.cells[5].className, r.cells[7].textContent.trim()];",
        );
        if s.forfeit.is_some() {
            assert_eq!(
                (cell[0].as_str(), cell[1].as_str()),
                (Some("rejected"), Some("bad")),
                "{game} {}: red and rejected on the student's table: {versions}",
                s.role
            );
            assert_ne!(cell[2], "counts", "a rejected version never counts: {versions}");
        } else {
            assert_eq!(
                (cell[0].as_str(), cell[1].as_str()),
                (Some("accepted"), Some("ok")),
                "{game} {}: {versions}",
                s.role
            );
            assert_eq!(cell[2], "counts", "{game} {}: {versions}", s.role);
        }
        // The course is open: the upload box, and the way to submit from a terminal.
        let home = body(&tab);
        assert!(home.contains("Submit from a terminal"), "{home}");
        for j in (0..7).filter(|&j| j != i) {
            assert!(
                !home.contains(&name(j)),
                "{game}: a classmate on {}'s page: {home}",
                s.role
            );
        }
        assert_eq!(
            eval(&tab, "return !!document.querySelector('form#upload');"),
            Value::Bool(true)
        );
        full_page(&tab, &shots, &format!("{step}-home"));
        // The version page: the verdict in the words of the check and the grade.
        let href = eval(
            &tab,
            "return document.querySelector('#versions a').getAttribute('href');",
        );
        let href = href.as_str().expect("a version link").to_string();
        visit(&tab, &server, &href);
        wait_long(&tab, "return !document.querySelector('#verdict .busy')", 120);
        let verdict = text(&tab, "verdict");
        if let Some(reason) = s.forfeit {
            assert!(
                verdict.contains(&format!("Rejected: the smoke game was forfeited ({reason}: ")),
                "{game} {}: {verdict}",
                s.role
            );
        } else {
            let points = format!("{} / {} points", number(&e["total"]), number(&e["max_total"]));
            assert!(
                verdict.contains(&points),
                "{game} {}: {points} offline, the page says {verdict}",
                s.role
            );
            assert!(!verdict.contains("Rejected"), "{verdict}");
        }
        // Illegal moves: accepted, and the check says what each cost.
        if let (true, Some(rule)) = (s.role == "Illegal", class.illegal_rule) {
            assert!(
                verdict.contains("illegal move") && verdict.contains(&format!("under the course's rule, {rule}")),
                "{game}: {verdict}"
            );
        }
        // The template is flagged to its student as grade-class flags it.
        match e["plays_like"].as_str() {
            Some(house) => assert!(
                verdict.contains(&format!("plays like {house}")),
                "{game} {}: {verdict}",
                s.role
            ),
            None => assert!(!verdict.contains("plays like"), "{verdict}"),
        }
        if s.role == "Template" {
            assert_eq!(e["plays_like"], format!("house:{}", class.starter), "{e:#}");
        }
        full_page(
            &tab,
            &shots,
            &format!("{:02}-{}-version", 11 + i * 4, s.role.to_lowercase()),
        );
        // A replay of the version: its own log only; a forfeit's page shows why.
        let replay = eval(
            &tab,
            "var a = document.querySelector('#verdict ul a'); return a ? a.getAttribute('href') : null;",
        );
        if let Some(replay) = replay.as_str() {
            let mut own = logged_in(&server, &links[i]["link"]);
            let (status, html, _) = own.get(replay);
            assert_eq!(status, 200, "{replay}");
            let lines = replay_in(&html);
            let seen = serde_json::to_string(&lines).unwrap();
            if let Some(reason) = s.forfeit {
                assert!(
                    lines.iter().any(|l| l["type"] == "forfeit" && l["reason"] == reason),
                    "{game} {}: the forfeit ({reason}) in its replay",
                    s.role
                );
            }
            assert!(
                !seen.contains("private strategy notes") || s.role == "Better",
                "{game} {}: another bot's notes in a replay",
                s.role
            );
            visit(&tab, &server, replay);
            wait_long(&tab, "return !!(window.arenaView && arenaView.states.length > 0)", 120);
            full_page(
                &tab,
                &shots,
                &format!("{:02}-{}-replay", 12 + i * 4, s.role.to_lowercase()),
            );
        }
    }

    // 3. The ladder: accepted versions only, then a game between two classmates.
    let started = Instant::now();
    loop {
        let (_, page, _) = teacher.get("/ladder");
        if page.contains("id=\"resting\"") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "{game}: the ladder never rested: {page}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    let better = 6;
    log_in(&tab, &server, &links[better]["link"]);
    visit(&tab, &server, "/ladder");
    wait_long(&tab, "return !!document.getElementById('board')", 120);
    let board = text(&tab, "board");
    for (i, s) in class.students.iter().enumerate() {
        assert_eq!(
            board.contains(&name(i)),
            s.forfeit.is_none(),
            "{game}: {} on the board only if accepted: {board}",
            s.role
        );
    }
    full_page(&tab, &shots, "40-ladder");
    // The better bot's own ladder page, then one of its games with a classmate.
    let (_, home, _) = logged_in(&server, &links[better]["link"]).get("/");
    let me = home
        .split("href=\"/ladder/people/")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("the student's ladder page")
        .to_string();
    visit(&tab, &server, &format!("/ladder/people/{me}"));
    full_page(&tab, &shots, "41-ladder-better");
    let solitaire = arena::adapters::game(game).is_some_and(|g| g.kind() == arena::games::Kind::Solitaire);
    let ladder_page_of = |link: &str| {
        let (_, home, _) = logged_in(&server, link).get("/");
        home.split("href=\"/ladder/people/")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .expect("the student's ladder page")
            .to_string()
    };
    let first_game = |page: &str, with: Option<&str>| {
        page.split("<tr>")
            .find(|row| row.contains("/ladder/matches/") && with.is_none_or(|n| row.contains(n)))
            .and_then(|row| row.split("href=\"").nth(1))
            .and_then(|r| r.split('"').next())
            .map(|h| h.replace("&amp;", "&"))
    };
    let (game_href, better_href, classmate, mut theirs) = if solitaire {
        // In a solitaire each entrant plays their own game on a deal (a
        // match may be with house baselines only, and a ladder that rests
        // may never pair Better with a classmate): a classmate is refused
        // Better's own game, and watches one of their own.
        let (_, page, _) = teacher.get(&format!("/ladder/people/{me}"));
        let better_game = first_game(&page, None).expect("a game of Better's");
        let classmate = (0..7)
            .rev()
            .find(|&i| i != better && class.students[i].forfeit.is_none())
            .expect("an accepted classmate");
        let mut theirs = logged_in(&server, &links[classmate]["link"]);
        let (status, html, _) = theirs.get(&better_game);
        assert_eq!(status, 403, "{game}: a classmate opened Better's own game: {html}");
        let (status, html, _) = theirs.get(better_game.split('?').next().unwrap_or_default());
        assert_eq!(
            status, 403,
            "{game}: a classmate opened a match they did not play: {html}"
        );
        let mine = ladder_page_of(&links[classmate]["link"]);
        let (_, page, _) = teacher.get(&format!("/ladder/people/{mine}"));
        let own = first_game(&page, None).expect("a game of the classmate's");
        (own, better_game, classmate, theirs)
    } else {
        // The ladder meets house bots too: wait until Better has met a
        // classmate. Hang guard only.
        let started = std::time::Instant::now();
        let (page, classmate) = loop {
            let (_, page, _) = teacher.get(&format!("/ladder/people/{me}"));
            let classmate = (0..7).rev().find(|&i| {
                i != better
                    && class.students[i].forfeit.is_none()
                    && page
                        .split("<tr>")
                        .any(|row| row.contains("/ladder/matches/") && row.contains(&name(i)))
            });
            match classmate {
                Some(c) => break (page, c),
                None if started.elapsed() < std::time::Duration::from_secs(600) => {
                    std::thread::sleep(std::time::Duration::from_secs(2));
                }
                None => panic!("{game}: Better met no classmate on the ladder: {page}"),
            }
        };
        let href = first_game(&page, Some(&name(classmate))).expect("a game's link");
        (
            href.clone(),
            href,
            classmate,
            logged_in(&server, &links[classmate]["link"]),
        )
    };
    let (status, html, _) = theirs.get(&game_href);
    assert_eq!(status, 200, "{game}: a classmate watches a game they played: {html}");
    let seen = serde_json::to_string(&replay_in(&html)).unwrap();
    let mut mine = logged_in(&server, &links[better]["link"]);
    let (status, own_html, _) = mine.get(&better_href);
    assert_eq!(status, 200, "{game}: Better watches its own game: {own_html}");
    let own = serde_json::to_string(&replay_in(&own_html)).unwrap();
    if class.notes {
        assert!(
            own.contains("private strategy notes"),
            "{game}: Better reads its own log"
        );
        assert!(
            !seen.contains("private strategy notes"),
            "{game}: {} read Better's log",
            class.students[classmate].role
        );
    }
    log_in(&tab, &server, &links[classmate]["link"]);
    visit(&tab, &server, &game_href);
    wait_long(&tab, "return !!(window.arenaView && arenaView.states.length > 0)", 120);
    full_page(&tab, &shots, "42-ladder-game-seen-by-a-classmate");

    // 4. The teacher: the class table, its flags, and the gradebook.
    log_in(&tab, &server, teacher_link.trim());
    wait_long(&tab, "return !!document.querySelector('table.class')", 120);
    let rows = eval(
        &tab,
        "return Array.from(document.querySelectorAll('table.class tbody tr')).map(r => Array.from(r.cells).map(c => c.textContent));",
    );
    let rows = rows.as_array().expect("the class table").clone();
    full_page(&tab, &shots, "50-teacher-class");
    let (_, gradebook, _) = teacher.get("/teacher/gradebook.csv");
    for (i, s) in class.students.iter().enumerate() {
        let e = &expected[i];
        let row = rows
            .iter()
            .find(|r| r[0] == name(i))
            .unwrap_or_else(|| panic!("{game}: {} in the class table: {rows:?}", s.role));
        let cells: Vec<&str> = row
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap_or(""))
            .collect();
        let g = csv_row(&gradebook, "id", &format!("s{}", i + 1)).expect("a gradebook row");
        let flag = e["plays_like"].as_str().map(|h| format!("plays like {h}"));
        assert_eq!(
            cells[7].contains("plays like"),
            flag.is_some(),
            "{game} {}: the teacher's flags {cells:?}",
            s.role
        );
        if let Some(flag) = &flag {
            assert!(cells[7].contains(flag.as_str()), "{cells:?}");
        }
        assert_eq!(g["plays_like"], e["plays_like"].as_str().unwrap_or(""), "{gradebook}");
        if s.forfeit.is_some() {
            assert_eq!(g["state"], "rejected", "{game} {}: {gradebook}", s.role);
        } else {
            assert_eq!(g["state"], "accepted", "{game} {}: {gradebook}", s.role);
            assert_eq!(cells[4], "v1 (accepted)", "{cells:?}");
        }
        assert_eq!(
            g["points"].parse::<f64>().unwrap_or(f64::NAN),
            e["total"].as_f64().unwrap(),
            "{game} {}: {gradebook}",
            s.role
        );
    }
    visit(&tab, &server, "/ladder");
    wait_long(&tab, "return !!document.getElementById('board')", 120);
    full_page(&tab, &shots, "51-teacher-ladder");
    drop(server);

    // 5. The deadline passes: the page says the course is closed, and why, before anyone acts.
    configure(&dir, "", Some("2020-01-01T00:00:00Z"));
    let server = serve_with(&dir, &[]);
    for i in [0, 6] {
        log_in(&tab, &server, &links[i]["link"]);
        wait_long(&tab, "return !!document.getElementById('versions')", 120);
        let page = body(&tab);
        assert_eq!(
            eval(
                &tab,
                "return !!document.querySelector('form#upload, input[type=file]');"
            ),
            Value::Bool(false),
            "{game}: no upload box once closed: {page}"
        );
        // The course gives no late days: the page names none.
        assert!(
            page.contains("The deadline (2020-01-01 00:00 UTC) is over: no more uploads are taken.")
                && page.contains("Uploads are closed: the deadline is over."),
            "{game}: says why: {page}"
        );
        assert!(!page.contains("Submit from a terminal"), "{game}: {page}");
        full_page(
            &tab,
            &shots,
            &format!("{}-closed-{}", 60 + i, class.students[i].role.to_lowercase()),
        );
    }
    let (code, _, err) = submit(&server, &links[6]["token"], &bot(class.students[6].file));
    assert_eq!(code, 2, "{game}: not submitted once closed: {err}");
    assert!(err.contains("the course is closed"), "{err}");
    log_in(&tab, &server, teacher_link.trim());
    wait_long(&tab, "return !!document.querySelector('table.class')", 120);
    full_page(&tab, &shots, "70-teacher-after-the-deadline");
}

#[test]
fn the_class_walks_through_en_garde_in_chromium() {
    walk(&classes()[0]);
}

#[test]
fn the_class_walks_through_president_in_chromium() {
    walk(&classes()[1]);
}

#[test]
fn the_class_walks_through_connect_fwar_in_chromium() {
    walk(&classes()[2]);
}

#[test]
fn the_class_walks_through_sugar_in_chromium() {
    walk(&classes()[3]);
}

#[test]
fn every_game_has_its_walkthrough() {
    let listed = arena(&["games"]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    let games: Vec<&str> = listed
        .lines()
        .filter(|l| !l.starts_with(' '))
        .filter_map(|l| l.split(' ').next())
        .collect();
    let walked: Vec<&str> = classes().iter().map(|c| c.game).collect();
    assert_eq!(games.len(), walked.len(), "{listed}");
    for g in games {
        assert!(walked.contains(&g), "no walkthrough for {g}");
    }
}
