//! Illegal moves: each game's course rule by default, or a forfeit with
//! reason `illegal-move` and the move recorded under `--illegal forfeit`
//! (the rules documents state both).

use arena::games::{ForfeitReason, IllegalMoves};
use arena::sandbox::Limits;
use arena_tests::{arena, bot_arg, play_under};

fn forfeits(out: &arena::runner::MatchOutcome, reason: ForfeitReason) -> usize {
    out.report
        .results
        .iter()
        .flat_map(|r| &r.forfeits)
        .filter(|f| f.reason == reason)
        .count()
}

/// Events of the match that `is` picks out.
fn events_where(out: &arena::runner::MatchOutcome, is: impl Fn(&serde_json::Value) -> bool) -> usize {
    out.events.iter().flatten().filter(|e| is(e)).count()
}

/// Illegal moves counted for bot `bot` over the match.
fn illegal_counted(out: &arena::runner::MatchOutcome, bot: usize) -> usize {
    out.report
        .results
        .iter()
        .map(|r| {
            (0..r.seats.len())
                .filter(|&s| r.seats[s] == bot)
                .map(|s| r.illegal.get(s).copied().unwrap_or(0) as usize)
                .sum::<usize>()
        })
        .sum()
}

#[test]
fn en_garde_an_illegal_mover_loses_rounds_by_the_course_and_forfeits_under_the_setting() {
    let bots = ["hostile/illegal", "house:random"];
    let course = play_under(
        "en-garde",
        Limits::default(),
        None,
        IllegalMoves::Course,
        &bots,
        6,
        3,
        true,
    );
    assert_eq!(
        forfeits(&course, ForfeitReason::IllegalMove),
        0,
        "rule 5: the round is lost, not the game"
    );
    // Each illegal move played on is counted for the gradebook: as many as
    // the rounds rule 5.1 ended for it, seen in the events.
    let lost_rounds = events_where(&course, |e| e["type"] == "round-end" && e["cause"] == "illegal-move");
    assert!(lost_rounds > 0);
    assert_eq!(illegal_counted(&course, 0), lost_rounds);
    assert_eq!(illegal_counted(&course, 1), 0, "house:random plays legal moves");
    assert_eq!(course.report.bots[0].illegal_moves as usize, lost_rounds);
    let strict = play_under(
        "en-garde",
        Limits::default(),
        None,
        IllegalMoves::Forfeit,
        &bots,
        6,
        3,
        false,
    );
    for r in &strict.report.results {
        let f = r.forfeit.as_ref().expect("every game forfeited");
        assert_eq!(f.reason, ForfeitReason::IllegalMove);
        assert_eq!(r.seats[f.seat], 0, "the illegal mover forfeits");
        assert!(
            f.detail.starts_with("played card "),
            "the move is recorded: {}",
            f.detail
        );
        assert_eq!(r.winner, Some(1 - f.seat));
    }
}

#[test]
fn connect_fwar_a_card_that_does_not_fit_is_discarded_by_the_course_and_forfeits_under_the_setting() {
    // house:random names any column 0-3, fitting or not (rule 7.1).
    let course = play_under(
        "connect-fwar",
        Limits::default(),
        None,
        IllegalMoves::Course,
        &["house:random"],
        50,
        4,
        true,
    );
    assert_eq!(forfeits(&course, ForfeitReason::IllegalMove), 0);
    // Under the course's rule a discard is a legal choice (rule 3.3): the
    // draws the events show discarded are many, and none is counted illegal.
    let discarded = events_where(&course, |e| e["type"] == "draw" && e["placed"].is_null());
    assert!(discarded > 40);
    assert_eq!(illegal_counted(&course, 0), 0);
    let strict = play_under(
        "connect-fwar",
        Limits::default(),
        None,
        IllegalMoves::Forfeit,
        &["house:random"],
        50,
        4,
        false,
    );
    assert!(
        forfeits(&strict, ForfeitReason::IllegalMove) > 40,
        "random play rarely fits every card"
    );
    let f = strict.report.results[0].forfeit.as_ref().expect("a forfeit");
    assert!(f.detail.starts_with("named column "), "{}", f.detail);
}

#[test]
fn bots_that_only_play_legal_moves_never_forfeit_under_the_setting() {
    for (game, bots) in [
        ("en-garde", vec!["house:aggressive", "house:random"]),
        ("sugar", vec!["house:hunter", "house:random"]),
        ("president", vec!["house:lowest", "house:random", "house:lowest"]),
    ] {
        let course = play_under(game, Limits::default(), None, IllegalMoves::Course, &bots, 12, 5, false);
        let strict = play_under(
            game,
            Limits::default(),
            None,
            IllegalMoves::Forfeit,
            &bots,
            12,
            5,
            false,
        );
        assert_eq!(
            course.report.results, strict.report.results,
            "{game}: the setting changes nothing for legal play"
        );
    }
}

#[test]
fn the_command_line_takes_illegal_forfeit_and_refuses_other_words() {
    let out = arena(&[
        "match",
        "--game",
        "en-garde",
        &bot_arg("hostile/illegal"),
        "house:random",
        "--games",
        "2",
        "--illegal",
        "forfeit",
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["bots"][0]["forfeits"]["illegal-move"], 2);
    let bad = arena(&[
        "match",
        "--game",
        "en-garde",
        "house:random",
        "house:random",
        "--illegal",
        "never",
    ]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("use `course`"), "{err}");
}

/// An answer that is no move at all (card 0: no card has that value) is
/// the game's invalid answer, a forfeit (En Garde rule 5.3), and not also
/// counted as an illegal move played on.
#[test]
fn an_answer_that_is_no_move_forfeits_and_is_not_counted_illegal() {
    use arena_tests::loops::{Attack, en_garde_file};
    let dir = arena_tests::temp("no-move");
    // Every export answers zeros: `choose-move` gives card 0.
    let bot = en_garde_file(&dir, &Attack::in_export("zeros", "no-such-export", "", ""));
    let out = arena_tests::arena(&[
        "match",
        "--game",
        "en-garde",
        &bot.display().to_string(),
        "house:random",
        "--games",
        "4",
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let me = &report["bots"][0];
    assert_eq!(me["forfeits"]["invalid-answer"], 4, "{me}");
    assert_eq!(me["illegal_moves"], 0, "{me}");
}
