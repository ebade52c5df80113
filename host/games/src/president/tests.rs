//! One test per rule of `docs/rules/president.md`, named after the rule.

use super::*;
use Suit::{Clubs, Diamonds, Hearts, Spades};
use arena_core::{Failure, ForfeitReason, NoEvents};

fn c(rank: u8, suit: Suit) -> Card {
    Card::new(rank, suit)
}

fn play(cards: &[Card]) -> Play {
    classify(cards).unwrap()
}

/// Plays a fixed list of answers, then the weakest legal play.
#[derive(Default)]
struct Scripted {
    answers: Vec<Option<Vec<Card>>>,
    infos: Vec<GameInfo>,
    views: Vec<View>,
    fail: Option<ForfeitReason>,
}

impl PresidentPlayer for Scripted {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        self.infos.push(info.clone());
        Ok(())
    }
    fn play(&mut self, view: &View) -> Result<Option<Vec<Card>>, Failure> {
        self.views.push(view.clone());
        if let Some(r) = self.fail {
            return Err(Failure::new(r, "scripted"));
        }
        if !self.answers.is_empty() {
            return Ok(self.answers.remove(0));
        }
        Ok(view.simple_plays().into_iter().next())
    }
}

#[test]
fn rule_1_1_fifty_two_cards_and_two_jokers() {
    let deck = full_deck();
    assert_eq!(deck.len(), 54);
    assert_eq!(deck.iter().filter(|c| **c == Card::Joker).count(), 2);
    let mut normal: Vec<Card> = deck.into_iter().filter(|c| *c != Card::Joker).collect();
    normal.sort_by_key(|c| c.strength());
    normal.dedup();
    assert_eq!(normal.len(), 52);
}

#[test]
fn rule_1_2_dealt_out_as_evenly_as_possible_from_seat_0() {
    for n in PLAYERS {
        let hands = deal(7, n);
        let sizes: Vec<usize> = hands.iter().map(Vec::len).collect();
        assert_eq!(sizes.iter().sum::<usize>(), 54);
        assert!(
            sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1,
            "{sizes:?}"
        );
        assert!(
            sizes.windows(2).all(|w| w[0] >= w[1]),
            "earlier seats get the extras: {sizes:?}"
        );
    }
    assert_eq!(deal(7, 4), deal(7, 4));
    assert_ne!(deal(7, 4), deal(8, 4));
}

#[test]
fn rule_1_3_ranks_then_suits() {
    assert_eq!(
        meets(play(&[c(5, Diamonds)]), Some(play(&[c(4, Spades)]))),
        Ok(Meets::Beat)
    );
    assert_eq!(
        meets(play(&[c(14, Diamonds)]), Some(play(&[c(13, Spades)]))),
        Ok(Meets::Beat)
    );
    assert_eq!(
        meets(play(&[c(11, Spades)]), Some(play(&[c(12, Diamonds)]))),
        Err(Illegal::DoesNotBeat)
    );
    assert!(Diamonds < Clubs && Clubs < Hearts && Hearts < Spades);
}

#[test]
fn rule_2_2_a_leader_plays_anything_but_may_not_pass() {
    let mut t = Table::new(vec![vec![c(9, Hearts), c(9, Clubs)], vec![c(4, Diamonds)]], 0);
    assert_eq!(t.clone().apply(None), Err(Illegal::PassOnLead));
    assert_eq!(t.apply(Some(vec![c(9, Hearts), c(9, Clubs)])), Ok(Some(Meets::Lead)));
}

#[test]
fn rule_2_3_and_3_2_beating_needs_the_same_count_and_a_higher_value() {
    let pair_of_5 = play(&[c(5, Diamonds), c(5, Clubs)]);
    assert_eq!(
        meets(play(&[c(6, Diamonds), c(6, Clubs)]), Some(pair_of_5)),
        Ok(Meets::Beat)
    );
    assert_eq!(
        meets(play(&[c(6, Diamonds)]), Some(pair_of_5)),
        Err(Illegal::DoesNotBeat)
    );
    assert_eq!(
        meets(play(&[c(6, Diamonds), c(6, Clubs), c(6, Hearts)]), Some(pair_of_5)),
        Err(Illegal::DoesNotBeat)
    );
    assert_eq!(
        meets(play(&[c(4, Hearts), c(4, Spades)]), Some(pair_of_5)),
        Err(Illegal::DoesNotBeat)
    );
}

#[test]
fn rule_2_4_when_all_others_pass_the_last_mover_leads_and_passing_does_not_lock_out() {
    let hands = vec![
        vec![c(5, Diamonds), c(9, Diamonds), c(12, Diamonds)],
        vec![c(6, Diamonds), c(10, Diamonds), c(13, Diamonds)],
        vec![c(7, Diamonds), c(11, Diamonds), c(14, Diamonds)],
    ];
    let mut t = Table::new(hands, 0);
    t.apply(Some(vec![c(5, Diamonds)])).unwrap();
    t.apply(None).unwrap(); // seat 1 passes
    t.apply(Some(vec![c(7, Diamonds)])).unwrap(); // seat 2 beats
    assert_eq!(t.to_move, 0);
    t.apply(Some(vec![c(9, Diamonds)])).unwrap(); // seat 0 beats again
    assert_eq!(t.to_move, 1);
    t.apply(Some(vec![c(10, Diamonds)])).unwrap(); // seat 1 passed before, plays now
    t.apply(None).unwrap(); // seat 2
    t.apply(None).unwrap(); // seat 0
    assert!(t.state.is_none(), "everyone else passed: a fresh round");
    assert_eq!(t.to_move, 1, "the last mover leads");
}

#[test]
fn rule_4_1_and_4_2_a_better_suit_on_the_same_value_burns_and_the_burner_leads() {
    assert_eq!(
        meets(play(&[c(8, Spades)]), Some(play(&[c(8, Hearts)]))),
        Ok(Meets::Burn)
    );
    assert_eq!(
        meets(play(&[c(8, Clubs)]), Some(play(&[c(8, Hearts)]))),
        Err(Illegal::DoesNotBeat)
    );
    let hands = vec![
        vec![c(8, Hearts), c(4, Clubs)],
        vec![c(8, Spades), c(5, Clubs)],
        vec![c(9, Clubs), c(6, Clubs)],
    ];
    let mut t = Table::new(hands, 0);
    t.apply(Some(vec![c(8, Hearts)])).unwrap();
    assert_eq!(t.apply(Some(vec![c(8, Spades)])), Ok(Some(Meets::Burn)));
    assert!(t.state.is_none() && t.round.is_empty());
    assert_eq!(t.to_move, 1);
}

#[test]
fn rule_5_1_a_three_stands_for_any_normal_rank_in_its_own_suit() {
    assert_eq!(
        play(&[c(3, Spades), c(13, Diamonds)]),
        Play::Normal {
            count: 2,
            rank: 13,
            top: (4, 0)
        }
    );
    let kings = play(&[c(13, Hearts), c(13, Clubs)]);
    assert_eq!(
        meets(play(&[c(3, Spades), c(14, Diamonds)]), Some(kings)),
        Ok(Meets::Beat)
    );
}

#[test]
fn rule_5_2_a_real_card_beats_the_wildcard_standing_for_it() {
    let wild = play(&[c(3, Spades), c(13, Diamonds)]);
    assert_eq!(
        meets(play(&[c(13, Diamonds), c(13, Spades)]), Some(wild)),
        Ok(Meets::Burn)
    );
    assert_eq!(
        meets(wild, Some(play(&[c(13, Diamonds), c(13, Spades)]))),
        Err(Illegal::DoesNotBeat)
    );
}

#[test]
fn rule_5_3_only_threes_stand_for_aces() {
    assert_eq!(
        play(&[c(3, Hearts)]),
        Play::Normal {
            count: 1,
            rank: 14,
            top: (3, 0)
        }
    );
    assert_eq!(
        meets(play(&[c(3, Hearts)]), Some(play(&[c(13, Spades)]))),
        Ok(Meets::Beat)
    );
    assert_eq!(
        meets(play(&[c(14, Hearts)]), Some(play(&[c(3, Hearts)]))),
        Ok(Meets::Burn),
        "the real Ace of Hearts"
    );
}

#[test]
fn rule_5_4_a_wildcard_cannot_stand_for_a_card_in_the_move() {
    assert_eq!(classify(&[c(3, Spades), c(13, Spades)]), Err(Illegal::Duplicate));
    assert_eq!(classify(&[c(9, Spades), c(10, Spades)]), Err(Illegal::Mixed));
    assert_eq!(
        classify(&[c(9, Spades), c(9, Hearts), c(9, Clubs), c(9, Diamonds), c(3, Clubs)]),
        Err(Illegal::TooMany)
    );
}

#[test]
fn rule_6_1_max_1_n_minus_1_twos_beat_n_cards() {
    let single = play(&[c(14, Spades)]);
    let triple = play(&[c(9, Spades), c(9, Hearts), c(9, Clubs)]);
    assert_eq!(meets(play(&[c(2, Diamonds)]), Some(single)), Ok(Meets::Beat));
    assert_eq!(
        meets(play(&[c(2, Diamonds), c(2, Clubs)]), Some(triple)),
        Ok(Meets::Beat)
    );
    assert_eq!(meets(play(&[c(2, Diamonds)]), Some(triple)), Err(Illegal::DoesNotBeat));
    let pair = play(&[c(9, Spades), c(9, Hearts)]);
    assert_eq!(
        meets(play(&[c(2, Diamonds)]), Some(pair)),
        Ok(Meets::Beat),
        "max(1, 2 - 1) = 1"
    );
}

#[test]
fn rule_6_2_on_twos_only_a_better_suited_two_or_a_joker() {
    let two = play(&[c(2, Hearts)]);
    assert_eq!(meets(play(&[c(2, Spades)]), Some(two)), Ok(Meets::Burn));
    assert_eq!(meets(play(&[c(2, Clubs)]), Some(two)), Err(Illegal::DoesNotBeat));
    assert_eq!(meets(play(&[c(14, Spades)]), Some(two)), Err(Illegal::DoesNotBeat));
    assert_eq!(meets(Play::Joker, Some(two)), Ok(Meets::Beat));
    assert_eq!(classify(&[c(2, Clubs), c(9, Clubs)]), Err(Illegal::Mixed));
}

#[test]
fn rule_6_3_a_joker_beats_everything_alone_and_nothing_beats_it() {
    for state in [
        play(&[c(14, Spades)]),
        play(&[c(2, Spades), c(2, Hearts)]),
        play(&[c(7, Clubs), c(7, Hearts)]),
    ] {
        assert_eq!(meets(Play::Joker, Some(state)), Ok(Meets::Beat));
    }
    assert_eq!(meets(Play::Joker, Some(Play::Joker)), Err(Illegal::DoesNotBeat));
    assert_eq!(
        meets(play(&[c(2, Spades)]), Some(Play::Joker)),
        Err(Illegal::DoesNotBeat)
    );
    assert_eq!(classify(&[Card::Joker, Card::Joker]), Err(Illegal::Mixed));
}

#[test]
fn rule_6_4_twos_and_jokers_may_lead() {
    assert_eq!(meets(play(&[c(2, Spades)]), None), Ok(Meets::Lead));
    assert_eq!(meets(Play::Joker, None), Ok(Meets::Lead));
}

#[test]
fn rule_7_going_out_takes_positions_from_the_top() {
    let hands = vec![
        vec![c(9, Diamonds)],
        vec![c(10, Diamonds), c(4, Clubs)],
        vec![c(11, Diamonds), c(5, Clubs)],
    ];
    let mut t = Table::new(hands, 0);
    t.apply(Some(vec![c(9, Diamonds)])).unwrap();
    assert_eq!(t.positions, vec![1, 0, 0]);
    assert_eq!(t.to_move, 1);
    t.apply(Some(vec![c(10, Diamonds)])).unwrap();
    t.apply(Some(vec![c(11, Diamonds)])).unwrap();
    // Seat 0 is out: seat 1 passes, so seat 2 (the last mover) leads.
    t.apply(None).unwrap();
    assert_eq!(t.to_move, 2);
    t.apply(Some(vec![c(5, Clubs)])).unwrap();
    assert_eq!(t.positions, vec![1, 3, 2], "the last holder takes the last place");
    assert!(t.is_over());
}

#[test]
fn rule_8_1_and_8_2_titles_collapse_below_four_players() {
    assert_eq!(
        (1..=5).map(|p| title(p, 5)).collect::<Vec<_>>(),
        ["president", "vice-president", "neutral", "vice-bum", "bum"]
    );
    assert_eq!(
        (1..=4).map(|p| title(p, 4)).collect::<Vec<_>>(),
        ["president", "vice-president", "vice-bum", "bum"]
    );
    assert_eq!(
        (1..=3).map(|p| title(p, 3)).collect::<Vec<_>>(),
        ["president", "neutral", "bum"]
    );
    assert_eq!((1..=2).map(|p| title(p, 2)).collect::<Vec<_>>(), ["president", "bum"]);
}

#[test]
fn rule_8_3_bum_gives_its_best_and_gets_back_the_weakest() {
    let mut hands = vec![
        vec![c(4, Diamonds), c(5, Diamonds), c(14, Spades)], // position 1, President
        vec![c(6, Diamonds), c(7, Diamonds), c(13, Spades)], // 2, VP
        vec![c(8, Diamonds), c(2, Clubs), c(12, Clubs)],     // 3, Vice-Bum
        vec![Card::Joker, c(3, Hearts), c(9, Diamonds)],     // 4, Bum
    ];
    let moved = exchange(&mut hands, &[1, 2, 3, 4]);
    assert_eq!(
        moved[3].0,
        vec![Card::Joker, c(3, Hearts)],
        "the Bum's two best: Joker, then the wildcard"
    );
    assert_eq!(moved[0].1, vec![Card::Joker, c(3, Hearts)]);
    assert_eq!(
        moved[0].0,
        vec![c(4, Diamonds), c(5, Diamonds)],
        "the President gives back its weakest"
    );
    assert_eq!(moved[2].0, vec![c(2, Clubs)], "the Vice-Bum's best");
    assert_eq!(moved[1].0, vec![c(6, Diamonds)]);
    assert!(hands.iter().all(|h| h.len() == 3), "hands keep their sizes");
    // Three players: one card, no Vice roles.
    let mut hands = vec![
        vec![c(9, Diamonds)],
        vec![c(6, Diamonds)],
        vec![c(2, Spades), c(5, Diamonds)],
    ];
    let moved = exchange(&mut hands, &[3, 2, 1]);
    assert_eq!(
        moved[0].0,
        vec![c(9, Diamonds)],
        "seat 0 is the Bum here: its best card"
    );
    assert_eq!(hands[0], vec![c(5, Diamonds)], "and it gets the President's weakest");
    assert_eq!(hands[2], vec![c(9, Diamonds), c(2, Spades)]);
    assert!(
        moved[1].0.is_empty() && moved[1].1.is_empty(),
        "no Vice roles with three"
    );
}

#[test]
fn rule_8_4_the_four_of_diamonds_leads_first_then_the_president() {
    let hands = deal(3, 4);
    let holder = hands.iter().position(|h| h.contains(&c(4, Diamonds))).unwrap();
    assert_eq!(leader(&hands, None), holder);
    assert_eq!(leader(&hands, Some(&[3, 4, 1, 2])), 2);
    let (mut a, mut b, mut d) = (Scripted::default(), Scripted::default(), Scripted::default());
    let mut players: [&mut dyn PresidentPlayer; 3] = [&mut a, &mut b, &mut d];
    play_game(3, None, &mut players, &mut NoEvents);
    let hands = deal(3, 3);
    let holder = hands.iter().position(|h| h.contains(&c(4, Diamonds))).unwrap();
    let first_view = [&a, &b, &d][holder].views[0].clone();
    assert!(
        first_view.state.is_empty() && first_view.round.is_empty(),
        "the holder leads the first turn"
    );
}

#[test]
fn rule_9_the_view_shows_own_hand_counts_state_and_round() {
    let hands = vec![
        vec![c(9, Diamonds), c(4, Clubs)],
        vec![c(10, Diamonds), c(5, Clubs)],
        vec![c(11, Diamonds), c(6, Clubs)],
    ];
    let mut t = Table::new(hands, 0);
    t.apply(Some(vec![c(9, Diamonds)])).unwrap();
    t.apply(None).unwrap();
    let v = t.view(2, &Some(vec![2, 1, 3]));
    assert_eq!(v.hand, vec![c(11, Diamonds), c(6, Clubs)]);
    assert_eq!(v.card_counts, vec![1, 2, 2]);
    assert_eq!(v.state, vec![c(9, Diamonds)]);
    assert_eq!(v.state_seat, Some(0));
    assert_eq!(
        v.round,
        vec![
            Turn {
                seat: 0,
                cards: Some(vec![c(9, Diamonds)])
            },
            Turn { seat: 1, cards: None }
        ]
    );
    assert_eq!(v.last_positions, Some(vec![2, 1, 3]));
    assert_eq!(v.positions, vec![0, 0, 0]);
}

#[test]
fn rule_10_1_an_illegal_move_puts_the_player_out_last_and_the_others_play_on() {
    let mut bad = Scripted {
        answers: vec![Some(vec![Card::Joker, Card::Joker])],
        ..Scripted::default()
    };
    let (mut b, mut d, mut e) = (Scripted::default(), Scripted::default(), Scripted::default());
    let mut players: [&mut dyn PresidentPlayer; 4] = [&mut bad, &mut b, &mut d, &mut e];
    let record = play_game(5, None, &mut players, &mut NoEvents);
    assert_eq!(record.positions[0], 4, "the last finisher");
    let mut others: Vec<u32> = record.positions[1..].to_vec();
    others.sort_unstable();
    assert_eq!(others, vec![1, 2, 3], "the others played on");
    assert_eq!(record.outcome.forfeit, None, "an illegal move is a rule, not a forfeit");
}

#[test]
fn rule_10_2_failures_put_players_out_from_the_bottom_and_are_recorded() {
    let mut f1 = Scripted {
        fail: Some(ForfeitReason::Fuel),
        ..Scripted::default()
    };
    let mut f2 = Scripted {
        fail: Some(ForfeitReason::Trap),
        ..Scripted::default()
    };
    let (mut b, mut d) = (Scripted::default(), Scripted::default());
    let mut players: [&mut dyn PresidentPlayer; 4] = [&mut f1, &mut b, &mut f2, &mut d];
    let record = play_game(9, None, &mut players, &mut NoEvents);
    let forfeits: Vec<(usize, ForfeitReason)> = record.outcome.forfeits().map(|f| (f.seat, f.reason)).collect();
    assert_eq!(forfeits.len(), 2);
    assert!(forfeits.contains(&(0, ForfeitReason::Fuel)) && forfeits.contains(&(2, ForfeitReason::Trap)));
    let mut bottom = vec![record.positions[0], record.positions[2]];
    bottom.sort_unstable();
    assert_eq!(bottom, vec![3, 4]);
}

#[test]
fn every_game_ends_with_each_position_taken_once() {
    for n in PLAYERS {
        for seed in 0..30 {
            let mut bots: Vec<Box<dyn PresidentPlayer + Send>> = (0..n)
                .map(|i| house_bot(if i % 2 == 0 { "random" } else { "lowest" }).unwrap())
                .collect();
            let mut players: Vec<&mut dyn PresidentPlayer> = bots
                .iter_mut()
                .map(|b| b.as_mut() as &mut dyn PresidentPlayer)
                .collect();
            let first = play_game(seed, None, &mut players, &mut NoEvents);
            let second = play_game(seed + 1000, Some(first.positions.clone()), &mut players, &mut NoEvents);
            for record in [first, second] {
                let mut p = record.positions.clone();
                p.sort_unstable();
                assert_eq!(p, (1..=n as u32).collect::<Vec<_>>(), "{n} players, seed {seed}");
                assert_eq!(record.outcome.winner, record.positions.iter().position(|&q| q == 1));
                assert!(record.outcome.forfeit.is_none());
            }
        }
    }
}

/// Every subset of the hand that the rules accept now, by brute force.
fn legal_by_brute_force(view: &View) -> Vec<Vec<Card>> {
    let hand = &view.hand;
    let mut out = Vec::new();
    for mask in 1u32..(1 << hand.len()) {
        let mut cards: Vec<Card> = (0..hand.len())
            .filter(|i| mask >> i & 1 == 1)
            .map(|i| hand[i])
            .collect();
        if view.is_legal(Some(&cards)) {
            cards.sort_by_key(|c| c.strength());
            out.push(cards);
        }
    }
    out
}

#[test]
fn legal_plays_are_exactly_the_plays_the_rules_accept_in_order() {
    for seed in 0..40u64 {
        let players = 3 + (seed % 4) as usize;
        let hands: Vec<Vec<Card>> = deal(seed, players)
            .into_iter()
            .map(|h| h.into_iter().take(12).collect())
            .collect();
        let mut t = Table::new(hands, 0);
        // Lead with the leader's weakest legal play, so the next view has a state to beat.
        for turn in 0..3 {
            let seat = t.to_move;
            let view = t.view(seat, &None);
            let listed = view.legal_plays();
            let mut expected = legal_by_brute_force(&view);
            expected.sort_by(|a, b| play_order(a, b));
            // The two Jokers are the same play.
            expected.dedup();
            assert_eq!(listed, expected, "seed {seed} turn {turn}");
            assert!(
                listed.windows(2).all(|w| play_order(&w[0], &w[1]).is_lt()),
                "strictly ordered"
            );
            let choice = listed.first().cloned();
            if t.apply(choice).is_err() {
                break;
            }
        }
    }
}
