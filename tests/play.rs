//! Human play in the terminal, driven by scripted stdin.

use arena::adapters;
use arena::games::Outcome;
use arena::human::Terminal;
use arena::runner::{BotRef, GameSetup};
use arena::sandbox::Limits;
use arena_tests::{arena_bin, bot, root};
use std::cell::RefCell;
use std::io::{BufRead, Cursor, Read, Write};
use std::process::{Command, Stdio};
use std::rc::Rc;

fn play(args: &[&str], lang: &str, script: &str) -> (bool, String, String) {
    let mut child = Command::new(arena_bin())
        .env("ARENA_NO_CACHE", "1")
        .args(args)
        .current_dir(root())
        .env("LANG", lang)
        .env_remove("LC_ALL")
        .env_remove("LC_CTYPE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start arena play");
    // The child may finish before reading everything; a broken pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(script.as_bytes());
    let out = child.wait_with_output().expect("arena play finishes");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn connect_fwar_reprompts_on_bad_columns_and_reports_the_score() {
    let mut script = String::from("x\n7\n-1\n");
    for _ in 0..60 {
        script.push_str("0\n1\n2\n3\nd\n");
    }
    let (ok, out, err) = play(&["play", "--game", "connect-fwar", "--seed", "3"], "C", &script);
    assert!(ok, "{err}");
    assert!(out.contains("seed 3"), "the seed is shown so the deal can be replayed");
    assert!(
        out.contains("Type a column number 0-3"),
        "non-numeric re-prompts:\n{out}"
    );
    assert_eq!(out.matches("There are four columns").count(), 2, "7 and -1 re-prompt");
    assert!(out.contains("You drew 6S"), "letters for suits without UTF-8:\n{out}");
    assert!(!out.contains('♠'));
    assert!(out.contains("You score ") || out.contains("The deck ran out"), "{out}");
}

#[test]
fn connect_fwar_draws_suit_symbols_on_a_utf8_terminal_and_scores_an_all_discard_game_zero() {
    let script = "d\n".repeat(52);
    let (ok, out, _) = play(
        &["play", "--game", "connect-fwar", "--seed", "3"],
        "en_US.UTF-8",
        &script,
    );
    assert!(ok);
    assert!(out.contains("You drew 6♠"), "{out}");
    assert_eq!(out.matches("Discarded.").count(), 52);
    assert!(
        out.contains("The deck ran out before a connected four: score 0"),
        "{out}"
    );
}

#[test]
fn connect_fwar_a_card_that_does_not_fit_reprompts() {
    // Seed 3 draws 6S, 8S, 3H: the 3 cannot go on the 6 in column 0.
    let (_, out, _) = play(&["play", "--game", "connect-fwar", "--seed", "3"], "C", "0\n1\n0\n2\n");
    assert!(
        out.contains("It does not fit there: 3H is lower than the top card 6S"),
        "{out}"
    );
}

#[test]
fn en_garde_reprompts_on_typos_and_illegal_moves() {
    let mut script = String::from("?\nzz\n9f\n1b\n");
    for _ in 0..400 {
        script.push_str("1f\n2f\n3f\n4f\n5f\n1b\n2b\n3b\n4b\n5b\n");
    }
    let (ok, out, err) = play(
        &["play", "--game", "en-garde", "--vs", "house:cowardly", "--seed", "5"],
        "C",
        &script,
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("Legal moves now: 1f 2f 3f 5f"),
        "? lists the legal moves:\n{out}"
    );
    assert!(out.contains("Type a card value and a direction"), "a typo re-prompts");
    assert!(out.contains("you hold no 9"));
    assert!(out.contains("that would leave the strip"));
    assert!(out.contains("Your hand: 1 2 3 5 5"));
    assert!(out.contains("Cards left in the deck: 15"));
    assert!(out.contains("house:cowardly plays"), "the opponent's moves are told");
    assert!(out.contains("Score: you 0, opponent 0"));
    assert!(out.contains("You win") || out.contains("house:cowardly wins"), "{out}");
}

/// Every game answers `?`, `h`, `help` and `rules` with its rules, and
/// `q`, `quit` and `exit` by leaving: one set of words for all four.
#[test]
fn every_game_answers_help_and_rules_and_leaves_on_the_same_words() {
    for (game, vs) in [
        ("en-garde", Some("house:random")),
        ("connect-fwar", None),
        ("sugar", Some("house:random")),
        ("president", Some("house:random")),
    ] {
        for leave in ["q", "quit", "exit"] {
            let mut args = vec!["play", "--game", game, "--seed", "5"];
            if let Some(v) = vs {
                args.extend(["--vs", v]);
            }
            let (_, out, _) = play(&args, "C", &format!("rules\nHELP\n?\nh\n{leave}\n"));
            let rules = format!("How to play (docs/rules/{game}.md):");
            assert_eq!(
                out.matches(&rules).count(),
                4,
                "{game}: every help word shows the rules:\n{out}"
            );
            assert!(
                out.trim_end().ends_with("You left the game."),
                "{game}: `{leave}` leaves:\n{out}"
            );
        }
    }
}

/// The person's own move is told as the opponent's is: what was played and where.
#[test]
fn en_garde_and_connect_fwar_echo_the_persons_move() {
    let (_, out, _) = play(
        &["play", "--game", "en-garde", "--vs", "house:cowardly", "--seed", "5"],
        "C",
        "1f\nq\n",
    );
    assert!(out.contains("You play 1 forward, to space 1."), "{out}");
    // Seed 3 draws 6S first.
    let (_, out, _) = play(&["play", "--game", "connect-fwar", "--seed", "3"], "C", "0\nq\n");
    assert!(out.contains("> Placed on column 0."), "{out}");
}

#[test]
fn en_garde_congratulates_a_winning_person() {
    // The always-illegal wasm bot loses every round: the person wins 5-0.
    let illegal = bot("hostile/illegal").display().to_string();
    let script = "1f\n2f\n3f\n4f\n5f\n".repeat(100);
    let (ok, out, err) = play(
        &[
            "play",
            "--game",
            "en-garde",
            "--vs",
            &illegal,
            "--seed",
            "2",
            "--variant",
            "standard",
        ],
        "C",
        &script,
    );
    assert!(ok, "{err}");
    assert!(out.contains("standard variant"));
    assert!(out.contains("You win 5-0! Congratulations"), "{out}");
}

#[test]
fn play_bad_input_is_one_line() {
    for (args, expect) in [
        (vec!["play", "--game", "en-garde"], "--vs BOT"),
        (
            vec!["play", "--game", "connect-fwar", "--vs", "house:basic"],
            "played alone",
        ),
        (
            vec!["play", "--game", "en-garde", "--vs", "house:nobody"],
            "no house bot",
        ),
        (
            vec!["play", "--game", "sugar"],
            "Sugargame needs one opponent: --vs BOT",
        ),
        (
            vec![
                "play",
                "--game",
                "sugar",
                "--vs",
                "house:greedy",
                "--vs",
                "house:hunter",
            ],
            "Sugargame needs one opponent",
        ),
        (
            vec![
                "play",
                "--game",
                "en-garde",
                "--vs",
                "house:random",
                "--vs",
                "house:random",
            ],
            "En Garde needs one opponent",
        ),
        (
            vec!["play", "--game", "president"],
            "President needs 1 to 5 opponents, one --vs BOT each",
        ),
        (
            vec![
                "play",
                "--game",
                "president",
                "--vs",
                "house:lowest",
                "--vs",
                "house:lowest",
                "--vs",
                "house:lowest",
                "--vs",
                "house:lowest",
                "--vs",
                "house:lowest",
                "--vs",
                "house:lowest",
            ],
            "President needs 1 to 5 opponents, one --vs BOT each (for example --vs house:lowest --vs house:random); got 6",
        ),
        (
            vec!["play", "--game", "president", "--vs", "house:lowest", "--seat", "2"],
            "President with 2 players has seats 0 to 1",
        ),
        (
            vec!["play", "--game", "president", "--vs", "house:nobody"],
            "no house bot `nobody` in president",
        ),
    ] {
        let (ok, _, err) = play(&args, "C", "");
        assert!(!ok, "{args:?}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(expect), "{args:?}: {err}");
    }
}

#[test]
fn a_person_who_quits_or_closes_the_input_is_told_they_left() {
    let cases = [
        (
            vec!["play", "--game", "en-garde", "--vs", "house:random", "--seed", "3"],
            "q\n",
        ),
        (
            vec!["play", "--game", "en-garde", "--vs", "house:random", "--seat", "1"],
            "",
        ),
        (vec!["play", "--game", "connect-fwar", "--seed", "3"], "quit\n"),
        (
            vec!["play", "--game", "sugar", "--vs", "house:greedy", "--seed", "3"],
            "\nq\n",
        ),
        (
            vec!["play", "--game", "sugar", "--vs", "house:greedy", "--seed", "3"],
            "q\n",
        ),
        (
            vec![
                "play",
                "--game",
                "president",
                "--vs",
                "house:lowest",
                "--vs",
                "house:random",
                "--seed",
                "3",
            ],
            "q\n",
        ),
        (vec!["play", "--game", "connect-fwar", "--seed", "3"], "0\n"),
    ];
    for (args, script) in cases {
        let (ok, out, err) = play(&args, "C", script);
        assert!(ok, "{err}");
        assert!(
            out.trim_end().ends_with("You left the game."),
            "{args:?} {script:?}:\n{out}"
        );
    }
    // Played to the end: nobody left.
    let (ok, out, _) = play(
        &["play", "--game", "connect-fwar", "--seed", "3"],
        "C",
        &"d\n".repeat(52),
    );
    assert!(ok);
    assert!(!out.contains("You left"), "{out}");
}

/// A terminal that reads `script` and throws away what it prints.
fn scripted(script: &str) -> Terminal {
    Terminal::new(
        Box::new(Cursor::new(script.to_string())),
        Box::new(std::io::sink()),
        false,
    )
}

#[test]
fn leaving_is_recorded_by_the_terminal_not_read_from_a_message() {
    let sandbox = adapters::sandbox(Limits::default()).unwrap();
    let setup = GameSetup::new(&sandbox);
    let random = [("house:random".to_string(), BotRef::House("random".into()))];
    let greedy = [("house:greedy".to_string(), BotRef::House("greedy".into()))];
    let lowest = [
        ("house:lowest".to_string(), BotRef::House("lowest".into())),
        ("house:random".to_string(), BotRef::House("random".into())),
    ];
    for (game, opponents, seat, script) in [
        ("en-garde", &random[..], 0, "q\n"),
        ("en-garde", &random[..], 1, ""),
        ("connect-fwar", &[][..], 0, "1\nq\n"),
        ("sugar", &greedy[..], 0, "\nq\n"),
        ("sugar", &greedy[..], 1, "4 3 2 1 0\n"),
        ("president", &lowest[..], 0, "quit\n"),
        ("president", &lowest[..], 2, ""),
    ] {
        let term = scripted(script);
        let outcome =
            arena::human::play(adapters::game(game).unwrap(), &setup, 7, term.clone(), seat, opponents).unwrap();
        assert!(term.has_left(), "{game} {script:?}");
        if let Some(positions) = &outcome.positions {
            // President plays on without the person, who takes the last place (rule 10.2).
            assert_eq!(positions[seat] as usize, positions.len(), "{game}: last");
        }
        assert_eq!(
            outcome.forfeit.map(|f| f.seat),
            Some(seat),
            "{game}: the person's seat forfeits"
        );
    }
    let stayed = scripted(&"d\n".repeat(52));
    let outcome = arena::human::play(
        adapters::game("connect-fwar").unwrap(),
        &setup,
        7,
        stayed.clone(),
        0,
        &[],
    )
    .unwrap();
    assert!(!stayed.has_left());
    assert!(outcome.forfeit.is_none());
}

/// What a terminal printed, readable by the test (and by a [`Typist`]) while the game runs.
#[derive(Clone, Default)]
struct Screen(Rc<RefCell<Vec<u8>>>);

impl Write for Screen {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Screen {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.borrow()).into_owned()
    }
}

/// A person at the keyboard: `answer` reads the screen so far and types one
/// line, or `None` to close the input.
struct Typist<F> {
    screen: Screen,
    answer: F,
    line: Vec<u8>,
    at: usize,
}

impl<F: FnMut(&str) -> Option<String>> Read for Typist<F> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = {
            let line = self.fill_buf()?;
            let n = line.len().min(buf.len());
            buf[..n].copy_from_slice(&line[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<F: FnMut(&str) -> Option<String>> BufRead for Typist<F> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.at >= self.line.len() {
            let Some(answer) = (self.answer)(&self.screen.text()) else {
                return Ok(&[]);
            };
            self.line = format!("{answer}\n").into_bytes();
            self.at = 0;
        }
        Ok(&self.line[self.at..])
    }
    fn consume(&mut self, n: usize) {
        self.at += n;
    }
}

/// Play `game` in this process with a person typing `answer`; the outcome,
/// everything printed, and whether the person left.
fn play_in_process(
    game: &str,
    seed: u64,
    seat: usize,
    opponents: &[(String, BotRef)],
    answer: impl FnMut(&str) -> Option<String> + 'static,
) -> (Outcome, String, bool) {
    let sandbox = adapters::sandbox(Limits::default()).unwrap();
    let setup = GameSetup::new(&sandbox);
    let screen = Screen::default();
    let typist = Typist {
        screen: screen.clone(),
        answer,
        line: Vec::new(),
        at: 0,
    };
    let term = Terminal::new(Box::new(typist), Box::new(screen.clone()), false);
    let outcome = arena::human::play(
        adapters::game(game).unwrap(),
        &setup,
        seed,
        term.clone(),
        seat,
        opponents,
    )
    .unwrap();
    (outcome, screen.text(), term.has_left())
}

/// Typed answers from a fixed list, then the input closes.
fn lines(script: &str) -> impl FnMut(&str) -> Option<String> + 'static {
    let mut lines: Vec<String> = script.lines().rev().map(String::from).collect();
    move |_| lines.pop()
}

fn house(game_bots: &[&str]) -> Vec<(String, BotRef)> {
    game_bots
        .iter()
        .map(|b| (format!("house:{b}"), BotRef::House(b.to_string())))
        .collect()
}

/// The number after `prefix` in `text`'s last line that has it.
fn number_after(text: &str, prefix: &str) -> i64 {
    let at = text
        .rfind(prefix)
        .unwrap_or_else(|| panic!("no `{prefix}` in:\n{text}"))
        + prefix.len();
    let digits: String = text[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().unwrap_or_else(|_| panic!("no number after `{prefix}`"))
}

/// Check the end of a Sugargame as printed against its outcome and the rules.
fn check_sugar_end(out: &str, outcome: &Outcome, seat: usize, opponent: &str, seed: u64) {
    let (mine, theirs) = (outcome.scores[seat], outcome.scores[1 - seat]);
    let result = match outcome.winner {
        Some(w) if w == seat => format!("You win, {mine} to {theirs}!"),
        Some(_) => format!("{opponent} wins, {theirs} to {mine}."),
        None => format!("A draw, {mine} to {theirs}."),
    };
    assert!(out.contains(&result), "`{result}` in:\n{out}");
    // Rule 6.2: the higher score wins when nobody lost by an illegal move or a forfeit.
    assert_eq!(outcome.winner.is_none(), mine == theirs);
    assert!(outcome.winner != Some(seat) || mine > theirs);
    // Rule 6.1: score = sugar + 50 per kill - 50 per loss.
    let steps = number_after(out, "After ");
    let sugar = number_after(out, "you collected ");
    let kills = number_after(out, "sugar and killed ");
    let their_sugar = number_after(out, &format!("; {opponent} collected "));
    let their_kills = number_after(out, &format!("; {opponent} collected {their_sugar} and killed "));
    assert_eq!(mine, sugar + 50 * (kills - their_kills), "{out}");
    assert_eq!(theirs, their_sugar + 50 * (their_kills - kills), "{out}");
    // Every step is told once, in order; rule 4.5: the game lasts its drawn length unless it ends early.
    let told: Vec<i64> = out
        .lines()
        // The person's own steps follow their prompt on the same line: input is not echoed here.
        .filter_map(|l| {
            l.rsplit("> ")
                .next()?
                .strip_prefix("Step ")?
                .split(':')
                .next()?
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(told, (1..=steps).collect::<Vec<_>>());
    if out.contains("its secret length of") {
        assert_eq!(steps, i64::from(arena::games::sugar::game_length(seed)));
    } else {
        assert!(steps < i64::from(arena::games::sugar::game_length(seed)));
    }
}

/// Type the first move listed (or place on 0-4), as a person reading the screen would.
fn first_listed_move(screen: &str) -> Option<String> {
    if screen.ends_with("Placement> ") {
        return Some(String::new());
    }
    let list = &screen[screen.rfind("Your moves (agent")?..];
    let first = list.lines().nth(1)?.split(": ").nth(1)?;
    Some(first.split([' ', ',']).next()?.to_string())
}

#[test]
fn sugar_a_whole_game_against_a_house_bot_ends_as_the_rules_score_it() {
    for (seat, bot, seed) in [(0, "greedy", 11), (1, "hunter", 12)] {
        let opponents = house(&[bot]);
        let mut typed = 0;
        let (outcome, out, left) = play_in_process("sugar", seed, seat, &opponents, move |screen| {
            typed += 1;
            // Every move typed is the first listed, so one answer per prompt; a re-prompt would loop.
            assert!(
                typed < 200,
                "a listed move was refused:\n{}",
                &screen[screen.len() - 2000..]
            );
            first_listed_move(screen)
        });
        assert!(!left, "{out}");
        assert!(outcome.forfeit.is_none());
        assert!(!out.contains("Not allowed"), "every listed move is legal");
        let ids = if seat == 0 { "agents 0-4" } else { "agents 5-9" };
        assert!(
            out.contains(&format!("you are player {}, with {ids}", seat + 1)),
            "{out}"
        );
        check_sugar_end(&out, &outcome, seat, &format!("house:{bot}"), seed);
    }
}

#[test]
fn sugar_reprompts_on_typos_and_illegal_moves_with_the_reason() {
    let mut script = String::from("0 0 1 2 3\n?\n\nzz\n3\nu\n7u\n0u\n0r\npass\n");
    for _ in 0..150 {
        for agent in 0..5 {
            for d in ["d", "r", "l", "u"] {
                script.push_str(&format!("{agent}{d}\n"));
            }
        }
    }
    let (ok, out, err) = play(
        &["play", "--game", "sugar", "--vs", "house:random", "--seed", "8"],
        "C",
        &script,
    );
    assert!(ok, "{err}");
    assert!(out.contains("Sugargame - seed 8"));
    assert!(out.contains("Not a placement: two agents placed on x = 0."), "{out}");
    assert!(out.contains("You place agent 0 on (0, 0), 1 on (1, 0), 2 on (2, 0), 3 on (3, 0), 4 on (4, 0)."));
    assert!(out.contains("How to play (docs/rules/sugar.md)"), "? shows the rules");
    assert!(out.contains("Type an agent number and a direction letter"));
    assert!(out.contains("Add a direction: 3u, 3d, 3l or 3r"));
    assert!(out.contains("Which agent? Type its number and the direction"));
    assert!(out.contains("Not allowed: agent 7 is not yours; yours are 0-4."));
    assert!(out.contains("Not allowed: agent 0 is at (0, 0): up leaves the grid."));
    assert!(out.contains("Not allowed: (1, 0) is taken by your agent 1."));
    assert!(out.contains("You cannot pass while an agent can move (rule 4.4)"));
    assert!(
        out.contains("|  [0]  |") || out.contains("| [0] |"),
        "your agents in brackets:\n{out}"
    );
    assert!(out.contains("| (5) |"), "theirs in parentheses");
    assert!(out.contains("+-----+-----+"), "ASCII borders without UTF-8");
    assert!(!out.contains('┌') && !out.contains('·'));
    assert!(
        out.contains("Step 2: house:random moves agent"),
        "the opponent's moves are told"
    );
    assert!(out.contains("You win, ") || out.contains("house:random wins, ") || out.contains("A draw, "));
    assert!(out.contains("After "), "{out}");
}

#[test]
fn sugar_draws_box_lines_on_a_utf8_terminal() {
    let (ok, out, _) = play(
        &["play", "--game", "sugar", "--vs", "house:greedy", "--seed", "8"],
        "en_US.UTF-8",
        "\nq\n",
    );
    assert!(ok);
    assert!(out.contains("┌─────┬"), "{out}");
    assert!(out.contains("│ [0] │ [1] │"), "{out}");
    assert!(out.trim_end().ends_with("You left the game."));
}

/// The finishing order as printed at the end of the last game: (position, name, title).
fn finishing_order(out: &str) -> Vec<(u32, String, String)> {
    let at = out.rfind("Finishing order:").expect("a finishing order");
    out[at..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| {
            let parts: Vec<&str> = l.split_whitespace().collect();
            let position = parts[0].trim_end_matches(char::is_alphabetic).parse().unwrap();
            (position, parts[1].to_string(), parts[2..].join(" "))
        })
        .collect()
}

/// Check the printed finishing order against the outcome and the rules' titles.
fn check_president_end(out: &str, outcome: &Outcome, names: &[String]) {
    let n = names.len();
    let positions = outcome.positions.clone().expect("positions");
    let mut sorted = positions.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (1..=n as u32).collect::<Vec<_>>(), "positions are 1..n");
    let order = finishing_order(out);
    assert_eq!(order.len(), n, "{out}");
    for (k, (position, name, title)) in order.iter().enumerate() {
        assert_eq!(*position, k as u32 + 1);
        let seat = names.iter().position(|s| s == name).unwrap();
        assert_eq!(positions[seat], *position, "{name} finished {position} in the outcome");
        let rules_title = arena::games::president::title(*position, n).replace('-', "");
        assert_eq!(title.replace('-', "").to_lowercase(), rules_title, "rule 8.1");
    }
    assert_eq!(outcome.winner, positions.iter().position(|&p| p == 1));
}

/// Play the first listed play, or pass: makes progress whatever the table.
fn first_or_pass() -> impl FnMut(&str) -> Option<String> + 'static {
    let mut turn = 0;
    move |screen: &str| {
        turn += 1;
        assert!(turn < 2000, "{screen}");
        if screen.ends_with("(y/N)> ") {
            return None;
        }
        Some(if turn % 2 == 1 { "1" } else { "p" }.to_string())
    }
}

#[test]
fn president_a_whole_game_against_one_house_bot_ends_in_the_printed_order() {
    for seat in [0, 1] {
        let opponents = house(&["random"]);
        let (outcome, out, left) = play_in_process("president", 5, seat, &opponents, first_or_pass());
        assert!(!left);
        let mut names = vec!["house:random".to_string()];
        names.insert(seat, "You".into());
        check_president_end(&out, &outcome, &names);
        assert!(out.contains("President at a table of 2"));
        assert!(
            out.contains("This is one game (one deal); after it you may play the next game of the\nseries"),
            "a single game is said to be one game of a series"
        );
        let me = outcome.positions.as_ref().unwrap()[seat];
        let title = if me == 1 { "President" } else { "Bum" };
        assert!(out.contains(&format!("You finish {}: {title}.", if me == 1 { "1st" } else { "2nd" })));
        assert!(out.contains("house:random plays ") || out.contains("house:random leads "));
    }
}

#[test]
fn president_against_five_bots_with_wasm_ones_prints_the_order_the_game_gives() {
    // The CLI game seats wasm twins of the house bots; the same answers in
    // this process against the house bots themselves give the outcome to check against.
    let lowest = bot("president/lowest").display().to_string();
    let random = bot("president/random").display().to_string();
    let script = "1\np\n".repeat(400);
    let (ok, out, err) = play(
        &[
            "play",
            "--game",
            "president",
            "--seed",
            "21",
            "--seat",
            "2",
            "--vs",
            &lowest,
            "--vs",
            "house:random",
            "--vs",
            "house:lowest",
            "--vs",
            &random,
            "--vs",
            "house:random",
        ],
        "C",
        &script,
    );
    assert!(ok, "{err}");
    let names: Vec<String> = [
        "lowest",
        "house:random",
        "You",
        "house:lowest",
        "random",
        "house:random#2",
    ]
    .map(String::from)
    .to_vec();
    let opponents: Vec<(String, BotRef)> = [
        ("lowest", "lowest"),
        ("house:random", "random"),
        ("house:lowest", "lowest"),
        ("random", "random"),
        ("house:random#2", "random"),
    ]
    .iter()
    .map(|(name, b)| (name.to_string(), BotRef::House(b.to_string())))
    .collect();
    let (outcome, twin_out, _) = play_in_process("president", 21, 2, &opponents, lines(&script));
    check_president_end(&out, &outcome, &names);
    assert_eq!(finishing_order(&out), finishing_order(&twin_out));
    assert!(out.contains("President at a table of 6: you are seat 2."));
    for name in &names[..2] {
        assert!(
            out.contains(&format!("{name} plays ")) || out.contains(&format!("{name} leads ")),
            "{name}"
        );
    }
    assert!(out.contains("house:random#2"), "two bots of one name are told apart");
    // Going out is told as it happens, from 1st, and the last one left holding cards.
    let outs: Vec<u32> = out
        .lines()
        .filter(|l| l.contains(" out: ") && l.trim_start().starts_with(|c: char| c.is_alphabetic()))
        .filter_map(|l| {
            l.split(" out: ")
                .nth(1)?
                .trim_end_matches(|c: char| !c.is_ascii_digit())
                .get(..1)?
                .parse()
                .ok()
        })
        .collect();
    assert!(!outs.is_empty() && outs.windows(2).all(|w| w[0] < w[1]), "{outs:?}");
    assert!(out.contains("is left holding cards: 6th, Bum.") || out.contains("You are left holding cards: 6th, Bum."));
}

#[test]
fn president_reprompts_on_typos_and_illegal_plays_with_the_reason() {
    // Seed 4, four players: you lead holding 4D 5D 5H 6D 6H 7D 8C 9C JC JH KD AC 2D Jk.
    let mut script = String::from("p\nzz\n10h\n5 6\n5 5 5\njk 2d\n99\n?\n5 5\n9c\njc jh\n12\n");
    script.push_str(&"1\np\n".repeat(200));
    let (ok, out, err) = play(
        &[
            "play",
            "--game",
            "president",
            "--seed",
            "4",
            "--vs",
            "house:lowest",
            "--vs",
            "house:random",
            "--vs",
            "house:lowest",
        ],
        "C",
        &script,
    );
    assert!(ok, "{err}");
    for expect in [
        "You lead first, as you hold the 4 of Diamonds.",
        "Your hand: 4D  5D 5H  6D 6H  7D  8C  9C  JC JH  KD  AC  2D  Jk",
        "4s:  1) 4D",
        "5s:  2) 5D   3) 5H   4) 5D 5H",
        "Joker:  17) Jk",
        "a leader may not pass (rule 2.2)",
        "`zz` is not a card",
        "Not allowed: you hold no 10H.",
        "Not allowed: 5D 6D is not one play",
        "Not allowed: you hold only 2 5s.",
        "Not allowed: Jk 2D is not one play",
        "There is no play 99: the plays are numbered 1 to 17.",
        "How to play (docs/rules/president.md)",
        "You lead 5D 5H.",
        "house:lowest#2",
    ] {
        assert!(out.contains(expect), "`{expect}` in:\n{out}");
    }
    // Then house:lowest burns the 5s and house:lowest#2 ends on JD: a 9 does not beat it, nor do two Jacks.
    assert!(out.contains("house:lowest burns with 5C 5S!"), "{out}");
    assert!(out.contains(
        "Not allowed: 9C does not beat JD (one Jack).\n  You may beat it with a higher card, one 2 or a Joker, \
         or burn it with a better Jack than JD (suits D < C < H < S)."
    ));
    assert!(out.contains("Not allowed: JC JH is 2 cards, and JD is 1: a play must have as many (rule 3.2)."));
    assert!(out.contains("There is no play 12: the plays are numbered 1 to "));
    assert!(!out.contains('♦'));
    assert!(out.contains("Finishing order:"));
}

#[test]
fn president_the_next_game_of_a_series_starts_with_the_exchange() {
    let opponents = house(&["lowest", "random", "lowest"]);
    let mut yes = 1;
    let mut turn = 0;
    let (_, out, left) = play_in_process("president", 9, 1, &opponents, move |screen| {
        turn += 1;
        if screen.ends_with("(y/N)> ") {
            yes -= 1;
            return Some(if yes >= 0 { "y" } else { "n" }.into());
        }
        Some(if turn % 2 == 1 { "1" } else { "p" }.into())
    });
    assert!(!left);
    let (first, second) = out.split_once("=== Game 2 of the series ===").expect("a second game");
    assert_eq!(out.matches("Finishing order:").count(), 2);
    assert!(!first.contains("Exchange:"), "no exchange before the first game");
    // Rule 8.3 with four players: the Bum pays the President two cards, the Vice-Bum the Vice-President one.
    let names = ["house:lowest", "You", "house:random", "house:lowest#2"];
    let order = finishing_order(first);
    let by_title = |t: &str| order.iter().find(|o| o.2 == t).map(|o| o.1.clone()).unwrap();
    let exchanges: Vec<&str> = second.lines().filter(|l| l.starts_with("Exchange: ")).collect();
    assert_eq!(exchanges.len(), 2, "{second}");
    let (president, bum) = (by_title("President"), by_title("Bum"));
    assert!(!exchanges[0].contains("Vice") && exchanges[0].contains("Bum") && exchanges[0].contains("President"));
    assert!(exchanges[1].contains("Vice-Bum") && exchanges[1].contains("Vice-President"));
    for name in [&president, &bum] {
        assert!(
            name == "You" || exchanges[0].contains(name.as_str()),
            "{name}: {}",
            exchanges[0]
        );
    }
    let leads = if president == "You" {
        "You lead first, as last game's President.".to_string()
    } else {
        format!("{president} leads first, as last game's President.")
    };
    assert!(second.contains(&leads), "rule 8.4: {leads}\n{second}");
    // The cards the person gave and got are those the rules move.
    let last: Vec<u32> = names
        .iter()
        .map(|n| order.iter().find(|o| o.1 == *n).unwrap().0)
        .collect();
    let mut hands = arena::games::president::deal(arena::games::derive_seed(9, 2), 4);
    let moved = arena::games::president::exchange(&mut hands, &last);
    let label =
        |cards: &[arena::games::president::Card]| cards.iter().map(|c| c.label(false)).collect::<Vec<_>>().join(" ");
    let (gave, got) = (label(&moved[1].0), label(&moved[1].1));
    if gave.is_empty() {
        assert!(!second.contains("Exchange: As "), "a Neutral player gives nothing");
    } else {
        let mine = exchanges
            .iter()
            .find(|l| l.starts_with("Exchange: As "))
            .expect("your exchange");
        assert!(
            mine.contains(&gave) && mine.contains(&got),
            "{mine}: gave {gave}, got {got}"
        );
    }
    assert!(second.contains("Finishing order:"));
}
