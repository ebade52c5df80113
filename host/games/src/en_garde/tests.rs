//! One test per rule of `docs/rules/en-garde.md`, named after the rule.

use super::play::play_round;
use super::*;
use Direction::{Backward, Forward};
use arena_core::{Failure, ForfeitReason, Seat};

fn mv(card: u8, direction: Direction) -> Move {
    Move { card, direction }
}

/// A round in a chosen position. `deck` lists the cards in the order they will be drawn.
fn round(variant: Variant, positions: [u8; 2], hands: [&[u8]; 2], deck: &[u8], to_move: Seat) -> Round {
    Round {
        variant,
        positions,
        hands: [hands[0].to_vec(), hands[1].to_vec()],
        deck: deck.iter().rev().copied().collect(),
        discard: Vec::new(),
        to_move,
        last_move: None,
        last_chance: None,
    }
}

/// A fencer that plays a fixed list of moves, then its first legal move; it records what it is told.
#[derive(Default)]
struct Scripted {
    moves: Vec<Move>,
    rounds: Vec<RoundInfo>,
    views: Vec<View>,
    fail_at: Option<(&'static str, ForfeitReason)>,
}

impl Fencer for Scripted {
    fn start_game(&mut self, _: &GameInfo) -> Result<(), Failure> {
        match self.fail_at {
            Some(("start-game", r)) => Err(Failure::new(r, "scripted")),
            _ => Ok(()),
        }
    }
    fn start_round(&mut self, info: &RoundInfo) -> Result<(), Failure> {
        self.rounds.push(info.clone());
        match self.fail_at {
            Some(("start-round", r)) => Err(Failure::new(r, "scripted")),
            _ => Ok(()),
        }
    }
    fn choose_move(&mut self, view: &View) -> Result<Move, Failure> {
        self.views.push(view.clone());
        if let Some(("choose-move", r)) = self.fail_at {
            return Err(Failure::new(r, "scripted"));
        }
        if self.moves.is_empty() {
            return Ok(view.legal_moves()[0]);
        }
        Ok(self.moves.remove(0))
    }
}

#[test]
fn rule_1_1_the_strip_has_23_spaces() {
    assert_eq!(STRIP_LENGTH, 23);
    assert_eq!(landing(0, 20, mv(2, Forward)), Some(22));
    assert_eq!(landing(0, 20, mv(3, Forward)), None);
    assert_eq!(landing(1, 2, mv(2, Forward)), Some(0));
    assert_eq!(landing(1, 2, mv(3, Forward)), None);
}

#[test]
fn rule_1_2_the_deck_has_five_of_each_value() {
    let r = Round::deal(Variant::Simple, 0, &mut round_rng(7, 1));
    let mut all: Vec<u8> = r.deck.iter().chain(&r.hands[0]).chain(&r.hands[1]).copied().collect();
    all.sort_unstable();
    let expected: Vec<u8> = (1..=5).flat_map(|v| [v; 5]).collect();
    assert_eq!(all, expected);
}

#[test]
fn rule_1_3_forward_points_at_the_opponent() {
    assert_eq!(start_position(0), 0);
    assert_eq!(start_position(1), 22);
    assert_eq!(landing(0, 5, mv(3, Forward)), Some(8));
    assert_eq!(landing(0, 5, mv(3, Backward)), Some(2));
    assert_eq!(landing(1, 15, mv(3, Forward)), Some(12));
    assert_eq!(landing(1, 15, mv(3, Backward)), Some(18));
}

#[test]
fn rule_2_1_and_2_2_a_round_starts_on_the_ends_with_five_sorted_cards() {
    let r = Round::deal(Variant::Simple, 1, &mut round_rng(3, 2));
    assert_eq!(r.positions, [0, 22]);
    assert_eq!(r.deck.len(), 15);
    for hand in &r.hands {
        assert_eq!(hand.len(), 5);
        assert!(hand.windows(2).all(|w| w[0] <= w[1]));
    }
    // Same seed and round: the same deal; another round: another deal.
    assert_eq!(r, Round::deal(Variant::Simple, 1, &mut round_rng(3, 2)));
    assert_ne!(r.deck, Round::deal(Variant::Simple, 1, &mut round_rng(3, 3)).deck);
}

#[test]
fn rule_2_3_the_first_mover_alternates_by_round() {
    let (mut a, mut b) = (Scripted::default(), Scripted::default());
    play_game(Config::default(), 11, [&mut a, &mut b], &mut arena_core::NoEvents);
    assert!(a.rounds.len() >= 5);
    for info in &a.rounds {
        assert_eq!(info.first_to_move, ((info.round - 1) % 2) as Seat);
    }
    // And the first view of each round goes to that seat.
    let first_views = a.views.iter().filter(|v| v.deck_remaining == 15).count()
        + b.views.iter().filter(|v| v.deck_remaining == 15).count();
    assert_eq!(first_views, a.rounds.len());
}

#[test]
fn rule_3_1_a_move_plays_a_card_from_the_hand_exactly_that_far() {
    let mut r = round(
        Variant::Simple,
        [0, 22],
        [&[1, 2, 3, 4, 5], &[1, 1, 1, 1, 1]],
        &[5, 5],
        0,
    );
    assert_eq!(r.apply(mv(4, Forward)), None);
    assert_eq!(r.positions, [4, 22]);
    assert_eq!(r.to_move, 1);
    let mut r = round(Variant::Simple, [0, 22], [&[1, 2, 3, 3, 5], &[1, 1, 1, 1, 1]], &[5], 0);
    assert_eq!(
        r.apply(mv(4, Forward)),
        Some(RoundEnd::IllegalMove {
            scorer: 1,
            why: Illegal::CardNotInHand,
            attempted: mv(4, Forward),
        })
    );
}

#[test]
fn rule_3_2_a_move_may_not_leave_the_strip_nor_pass_the_opponent() {
    let hand = [1, 2, 3, 4, 5];
    assert_eq!(check_move(0, &hand, 0, 22, mv(1, Backward)), Err(Illegal::LeavesStrip));
    assert_eq!(
        check_move(0, &hand, 10, 12, mv(3, Forward)),
        Err(Illegal::PassesOpponent)
    );
    assert_eq!(
        check_move(1, &hand, 12, 10, mv(3, Forward)),
        Err(Illegal::PassesOpponent)
    );
    assert_eq!(check_move(1, &hand, 21, 10, mv(2, Backward)), Err(Illegal::LeavesStrip));
    assert_eq!(check_move(0, &hand, 10, 12, mv(2, Forward)), Ok(12));
}

#[test]
fn rule_3_3_landing_on_the_opponent_is_a_hit() {
    let mut r = round(
        Variant::Simple,
        [8, 11],
        [&[1, 2, 3, 4, 5], &[3, 3, 3, 3, 3]],
        &[5, 5],
        0,
    );
    assert_eq!(r.apply(mv(3, Forward)), Some(RoundEnd::Hit { scorer: 0 }));
    // In the simple variant even a matching card in the defender's hand does not parry.
    let mut r = round(Variant::Simple, [8, 11], [&[3, 3, 3, 3, 3], &[3, 3, 3, 3, 3]], &[5], 1);
    assert_eq!(r.apply(mv(3, Forward)), Some(RoundEnd::Hit { scorer: 1 }));
}

#[test]
fn rule_3_4_the_card_is_discarded_and_one_drawn() {
    let mut r = round(
        Variant::Simple,
        [0, 22],
        [&[1, 2, 3, 4, 5], &[1, 1, 1, 1, 1]],
        &[4, 5],
        0,
    );
    r.apply(mv(2, Forward));
    assert_eq!(r.discard, vec![2]);
    assert_eq!(r.hands[0], vec![1, 3, 4, 4, 5]);
    assert_eq!(r.deck, vec![5]);
}

#[test]
fn rule_4_1_and_4_2_when_the_deck_runs_out_the_farther_fencer_scores() {
    // Seat 0 draws the last card after advancing to 6 (advanced 6); seat 1 at 20 advanced 2.
    let mut r = round(Variant::Simple, [3, 20], [&[1, 2, 3, 4, 5], &[1, 1, 1, 1, 1]], &[2], 0);
    assert_eq!(
        r.apply(mv(3, Forward)),
        Some(RoundEnd::DeckOut {
            scorer: Some(0),
            advanced: [6, 2]
        })
    );
    let mut r = round(Variant::Simple, [3, 20], [&[1, 2, 3, 4, 5], &[1, 1, 1, 1, 1]], &[2], 1);
    assert_eq!(
        r.apply(mv(1, Forward)),
        Some(RoundEnd::DeckOut {
            scorer: None,
            advanced: [3, 3]
        })
    );
    let mut r = round(Variant::Simple, [3, 20], [&[1, 2, 3, 4, 5], &[1, 1, 1, 1, 5]], &[2], 1);
    assert_eq!(
        r.apply(mv(5, Forward)),
        Some(RoundEnd::DeckOut {
            scorer: Some(1),
            advanced: [3, 7]
        })
    );
}

#[test]
fn rule_5_1_an_illegal_move_loses_the_round_without_playing_the_card() {
    let mut r = round(
        Variant::Simple,
        [0, 22],
        [&[1, 2, 3, 4, 5], &[1, 1, 1, 1, 1]],
        &[4, 5],
        0,
    );
    assert_eq!(
        r.apply(mv(3, Backward)),
        Some(RoundEnd::IllegalMove {
            scorer: 1,
            why: Illegal::LeavesStrip,
            attempted: mv(3, Backward),
        })
    );
    assert_eq!(r.hands[0], vec![1, 2, 3, 4, 5]);
    assert!(r.discard.is_empty());
    // Through a game: a bot that always answers illegally loses every round, 0-5, no forfeit.
    let mut bad = Scripted {
        moves: vec![mv(5, Backward); 20],
        ..Scripted::default()
    };
    let mut good = Scripted::default();
    let out = play_game(Config::default(), 5, [&mut bad, &mut good], &mut arena_core::NoEvents);
    assert_eq!(out.scores, vec![0, 5]);
    assert_eq!(out.winner, Some(1));
    assert_eq!(out.forfeit, None);
}

#[test]
fn rule_5_2_no_legal_move_loses_the_round() {
    // Seat 0 at 0 with only 5s, opponent at 3: forward passes, backward leaves the strip.
    let r = round(Variant::Simple, [0, 3], [&[5, 5, 5, 5, 5], &[1, 1, 1, 1, 1]], &[], 0);
    assert!(r.legal_moves(0).is_empty());
    let mut asked = Scripted::default();
    let mut other = Scripted::default();
    let mut r = r;
    let end = play_round(
        &mut r,
        &mut [&mut asked, &mut other],
        [0, 0],
        1,
        &mut arena_core::NoEvents,
    );
    assert_eq!(end, Ok(RoundEnd::NoLegalMove { scorer: 1 }));
    assert!(asked.views.is_empty(), "a fencer with no legal move is not asked");
}

#[test]
fn rule_5_3_a_card_value_outside_1_to_5_forfeits() {
    let mut bad = Scripted {
        moves: vec![mv(9, Forward)],
        ..Scripted::default()
    };
    let mut good = Scripted::default();
    let out = play_game(Config::default(), 5, [&mut bad, &mut good], &mut arena_core::NoEvents);
    let forfeit = out.forfeit.expect("a forfeit");
    assert_eq!((forfeit.seat, forfeit.reason), (0, ForfeitReason::InvalidAnswer));
    assert_eq!(out.winner, Some(1));
}

#[test]
fn rule_6_1_first_to_five_points_wins() {
    for seed in 0..20 {
        let (mut a, mut b) = (house_bot("aggressive").unwrap(), house_bot("random").unwrap());
        let out = play_game(
            Config::default(),
            seed,
            [a.as_mut(), b.as_mut()],
            &mut arena_core::NoEvents,
        );
        let max = *out.scores.iter().max().unwrap();
        assert_eq!(max, 5, "seed {seed}: {:?}", out.scores);
        assert!(out.scores.iter().filter(|&&s| s == 5).count() == 1);
        assert_eq!(out.winner, out.scores.iter().position(|&s| s == 5));
    }
}

#[test]
fn rule_6_2_scores_carry_over_between_rounds() {
    let (mut a, mut b) = (Scripted::default(), Scripted::default());
    let out = play_game(Config::default(), 21, [&mut a, &mut b], &mut arena_core::NoEvents);
    let totals: Vec<u8> = a.rounds.iter().map(|r| r.scores[0] + r.scores[1]).collect();
    assert!(totals.windows(2).all(|w| w[1] >= w[0] && w[1] <= w[0] + 1));
    assert!(out.scores.iter().sum::<i64>() as u8 >= *totals.last().unwrap());
}

#[test]
fn rule_6_3_a_game_stops_at_the_round_cap() {
    let config = Config {
        max_rounds: 1,
        ..Config::default()
    };
    let (mut a, mut b) = (Scripted::default(), Scripted::default());
    let out = play_game(config, 4, [&mut a, &mut b], &mut arena_core::NoEvents);
    assert_eq!(a.rounds.len(), 1);
    assert!(out.scores.iter().sum::<i64>() <= 1);
    let expected = match out.scores[0].cmp(&out.scores[1]) {
        std::cmp::Ordering::Greater => Some(0),
        std::cmp::Ordering::Less => Some(1),
        std::cmp::Ordering::Equal => None,
    };
    assert_eq!(out.winner, expected);
}

#[test]
fn rule_7_1_a_matching_card_parries_and_both_draw_back_to_five() {
    let mut r = round(
        Variant::Standard,
        [8, 11],
        [&[1, 2, 3, 4, 5], &[1, 3, 4, 4, 5]],
        &[2, 2, 5],
        0,
    );
    assert_eq!(r.apply(mv(3, Forward)), None);
    assert_eq!(r.positions, [8, 11], "the attacker does not move");
    assert_eq!(r.hands[0], vec![1, 2, 2, 4, 5]);
    assert_eq!(r.hands[1], vec![1, 2, 4, 4, 5]);
    assert_eq!(r.discard, vec![3, 3]);
    assert_eq!(r.to_move, 1, "the defender takes a normal turn");
    assert!(r.last_move.is_some_and(|m| m.parried));
}

#[test]
fn rule_7_2_without_a_matching_card_the_attack_hits() {
    let mut r = round(
        Variant::Standard,
        [8, 11],
        [&[1, 2, 3, 4, 5], &[1, 2, 4, 4, 5]],
        &[2, 2, 5],
        0,
    );
    assert_eq!(r.apply(mv(3, Forward)), Some(RoundEnd::Hit { scorer: 0 }));
}

#[test]
fn rule_7_3_the_opponent_of_the_last_drawer_has_a_last_chance() {
    // Seat 0 moves 3 -> 6 and draws the last card; seat 1 at 9 holds a 3: it attacks and hits.
    let mut r = round(Variant::Standard, [3, 9], [&[1, 2, 3, 4, 5], &[1, 1, 3, 1, 1]], &[1], 0);
    assert_eq!(r.apply(mv(3, Forward)), Some(RoundEnd::LastChanceHit { scorer: 1 }));
    // Same, but seat 0 drew a 3: the last-chance attack is parried and distance decides.
    let mut r = round(Variant::Standard, [3, 9], [&[1, 2, 3, 4, 5], &[1, 1, 3, 1, 1]], &[3], 0);
    assert_eq!(
        r.apply(mv(3, Forward)),
        Some(RoundEnd::DeckOut {
            scorer: Some(1),
            advanced: [6, 13]
        })
    );
    assert!(r.last_chance.is_some_and(|m| m.parried && m.seat == 1));
    // The move that drew the last card keeps its own record.
    assert!(
        r.last_move
            .is_some_and(|m| !m.parried && m.seat == 0 && m.mv == mv(3, Forward))
    );
    // No card of the distance: nobody attacks, distance decides.
    let mut r = round(Variant::Standard, [3, 9], [&[1, 2, 3, 4, 5], &[1, 1, 1, 1, 1]], &[1], 0);
    assert_eq!(
        r.apply(mv(3, Forward)),
        Some(RoundEnd::DeckOut {
            scorer: Some(1),
            advanced: [6, 13]
        })
    );
}

#[test]
fn rule_8_a_failure_in_any_call_forfeits_the_game() {
    for (call, reason) in [
        ("start-game", ForfeitReason::Trap),
        ("start-round", ForfeitReason::Fuel),
        ("choose-move", ForfeitReason::Memory),
    ] {
        for seat in 0..2 {
            let mut failing = Scripted {
                fail_at: Some((call, reason)),
                ..Scripted::default()
            };
            let mut fine = Scripted::default();
            let players: [&mut dyn Fencer; 2] = if seat == 0 {
                [&mut failing, &mut fine]
            } else {
                [&mut fine, &mut failing]
            };
            let out = play_game(Config::default(), 8, players, &mut arena_core::NoEvents);
            let f = out.forfeit.expect("forfeit");
            assert_eq!((f.seat, f.reason), (seat, reason), "{call}");
            assert_eq!(out.winner, Some(1 - seat));
        }
    }
}

#[test]
fn rule_9_1_a_view_shows_the_seat_its_own_hand_and_public_facts_only() {
    let mut r = round(
        Variant::Standard,
        [4, 15],
        [&[1, 2, 3, 4, 5], &[2, 2, 3, 3, 4]],
        &[1, 5, 5],
        0,
    );
    r.apply(mv(2, Forward));
    let v = r.view(1, [2, 3], 6);
    assert_eq!(v.seat, 1);
    assert_eq!(v.hand, vec![2, 2, 3, 3, 4]);
    assert_eq!((v.my_position, v.opponent_position), (15, 6));
    assert_eq!((v.my_score, v.opponent_score), (3, 2));
    assert_eq!(v.deck_remaining, 2);
    assert_eq!(v.discard, vec![2]);
    assert_eq!(v.opponent_hand_size, 5);
    assert_eq!(v.round, 6);
    assert_eq!(v.variant, Variant::Standard);
    assert_eq!(
        v.last_move,
        Some(PlayedMove {
            seat: 0,
            mv: mv(2, Forward),
            parried: false
        })
    );
}

#[test]
fn rule_9_2_each_seat_gets_its_own_reproducible_seed() {
    assert_ne!(player_seed(1, 0), player_seed(1, 1));
    assert_eq!(player_seed(1, 0), player_seed(1, 0));
    assert_ne!(player_seed(1, 0), player_seed(2, 0));
}

#[test]
fn rule_10_2_legal_moves_are_ordered_by_card_then_forward_first() {
    let moves = legal_moves(0, &[3, 1, 3, 2], 5, 20);
    assert_eq!(
        moves,
        vec![
            mv(1, Forward),
            mv(1, Backward),
            mv(2, Forward),
            mv(2, Backward),
            mv(3, Forward),
            mv(3, Backward)
        ]
    );
}

#[test]
fn house_bots_play_to_their_descriptions() {
    let view = round(Variant::Simple, [5, 10], [&[1, 3, 5, 5, 5], &[1, 1, 1, 1, 1]], &[], 0).view(0, [0, 0], 1);
    let mut aggressive = house_bot("aggressive").unwrap();
    let mut cowardly = house_bot("cowardly").unwrap();
    assert_eq!(aggressive.choose_move(&view), Ok(mv(5, Forward)), "the hit is closest");
    assert_eq!(
        cowardly.choose_move(&view),
        Ok(mv(5, Backward)),
        "0 is farthest from 10"
    );
    // Random: every legal move turns up, and only legal moves.
    let mut random = house_bot("random").unwrap();
    random
        .start_game(&GameInfo {
            seat: 0,
            variant: Variant::Simple,
            points_to_win: 5,
            strip_length: 23,
            seed: 9,
        })
        .unwrap();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..200 {
        let m = random.choose_move(&view).unwrap();
        assert!(view.legal_moves().contains(&m));
        seen.insert(m);
    }
    assert_eq!(seen.len(), view.legal_moves().len());
}

#[test]
fn variants_are_named_exactly_and_an_unknown_name_is_no_variant() {
    for name in Variant::NAMES {
        assert_eq!(Variant::from_name(name).map(Variant::name), Some(name));
    }
    assert_eq!(Variant::from_name(Variant::NAMES[0]), Some(Variant::default()));
    for unknown in ["epee", "Standard", "", "simple ", "sabre"] {
        assert_eq!(Variant::from_name(unknown), None, "{unknown:?}");
    }
}

/// The view's legal moves (what world 0.2 sends a bot) are the rules' own,
/// and over the whole move space (cards 0-6, both directions) a move is
/// legal by the rules exactly when it is listed, over many random rounds.
#[test]
fn rule_3_the_views_legal_moves_are_exactly_the_rules_legal_moves() {
    use rand::{Rng, SeedableRng};
    for seed in 0..60u64 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let variant = if seed % 2 == 0 {
            Variant::Simple
        } else {
            Variant::Standard
        };
        let mut round = Round::deal(variant, (seed % 2) as Seat, &mut round_rng(seed, 1));
        for _ in 0..40 {
            let seat = round.to_move;
            let view = round.view(seat, [0, 0], 1);
            let listed = view.legal_moves();
            assert_eq!(listed, round.legal_moves(seat), "seed {seed}");
            for card in 0..=6u8 {
                for direction in [Direction::Forward, Direction::Backward] {
                    let mv = Move { card, direction };
                    let legal = check_move(seat, &view.hand, view.my_position, view.opponent_position, mv).is_ok();
                    assert_eq!(legal, listed.contains(&mv), "seed {seed} {mv:?}");
                }
            }
            if listed.is_empty() {
                break;
            }
            if round.apply(listed[rng.random_range(0..listed.len())]).is_some() {
                break;
            }
        }
    }
}

/// Issue 15's case: a parried attack that draws the last card, answered by
/// a last-chance attack (rules 7.1 and 7.3). The replay records the parry
/// on the move, the hands right after it, then the last chance on its own.
#[test]
fn replay_of_a_parried_attack_that_empties_the_deck_then_a_last_chance() {
    // Seat 0 at 6 attacks seat 1 at 9 with a 3; seat 1 parries with its 3.
    // Both draw: seat 0 the 2, seat 1 the last card, a 1. Seat 0 then holds
    // the distance (3) and attacks; seat 1 has no 3 left: a hit.
    let mut r = round(
        Variant::Standard,
        [6, 9],
        [&[1, 3, 3, 4, 5], &[1, 1, 3, 4, 5]],
        &[2, 1],
        0,
    );
    let mut attacker = Scripted {
        moves: vec![mv(3, Forward)],
        ..Default::default()
    };
    let mut defender = Scripted::default();
    let mut events: Vec<serde_json::Value> = Vec::new();
    let end = play_round(&mut r, &mut [&mut attacker, &mut defender], [0, 0], 1, &mut events);
    assert_eq!(end, Ok(RoundEnd::LastChanceHit { scorer: 0 }));
    assert_eq!(events.len(), 2, "{events:?}");
    let (played, last) = (&events[0], &events[1]);
    assert_eq!(played["type"], "move");
    assert_eq!(played["parried"], true, "rule 7.1: the attack was parried");
    assert_eq!(played["hands"], serde_json::json!([[1, 2, 3, 4, 5], [1, 1, 1, 4, 5]]));
    assert_eq!(played["deck-remaining"], 0);
    assert_eq!(last["type"], "last-chance");
    assert_eq!((last["seat"].as_u64(), last["card"].as_u64()), (Some(0), Some(3)));
    assert_eq!(last["parried"], false);
    assert_eq!(last["hands"], serde_json::json!([[1, 2, 4, 5], [1, 1, 1, 4, 5]]));
    assert!(r.last_move.is_some_and(|m| m.parried && m.seat == 0));
}
