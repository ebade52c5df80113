//! The conversions between the worlds' types and the rules' types.

use arena_games::{connect_fwar, en_garde, president, sugar};

#[test]
fn en_garde_moves_convert_both_ways() {
    for card in 1..=en_garde::MAX_CARD {
        for direction in [en_garde::Direction::Forward, en_garde::Direction::Backward] {
            let mv = en_garde::Move { card, direction };
            assert_eq!(en_garde::Move::from(crate::en_garde::Move::from(mv)), mv);
        }
    }
}

#[test]
fn connect_fwar_deck_converts_to_the_rules_cards() {
    for card in connect_fwar::fresh_deck() {
        let wit = crate::connect_fwar::Card {
            rank: card.rank,
            suit: card.suit.number(),
        };
        assert_eq!(crate::connect_fwar::rules_card(&wit), Some(card));
    }
    let no_suit = crate::connect_fwar::Card { rank: 1, suit: 5 };
    assert_eq!(crate::connect_fwar::rules_card(&no_suit), None);
}

#[test]
fn sugar_directions_convert_both_ways_in_the_rules_order() {
    for (d, wit) in sugar::Direction::ALL.into_iter().zip(crate::sugar::DIRECTIONS) {
        assert_eq!(crate::sugar::Direction::from(d), wit);
        assert_eq!(sugar::Direction::from(wit), d);
    }
}

#[test]
fn president_deck_converts_both_ways_and_nothing_else_is_a_card() {
    use crate::president::{Card, rules_card};
    for card in president::full_deck() {
        assert_eq!(rules_card(&Card::from(card)), Some(card));
    }
    for (rank, suit) in [(0, 1), (1, 1), (15, 1), (5, 0), (5, 5)] {
        assert_eq!(rules_card(&Card { rank, suit }), None, "({rank}, {suit})");
    }
}

/// A Sugargame view as the arena sends it to a world 0.2 bot.
fn wit_sugar_view(view: &sugar::View) -> crate::sugar::View {
    use crate::sugar::{Action, Agent, AgentMove};
    let action = |action: sugar::Action| match action {
        sugar::Action::Move { agent, direction } => Action::Move(AgentMove {
            agent,
            direction: direction.into(),
        }),
        sugar::Action::Pass => Action::Pass,
    };
    let mut legal_actions: Vec<Action> = view
        .legal_moves()
        .into_iter()
        .map(|(agent, direction, _)| {
            action(sugar::Action::Move {
                agent: agent.id,
                direction,
            })
        })
        .collect();
    if legal_actions.is_empty() {
        legal_actions.push(Action::Pass);
    }
    crate::sugar::View {
        seat: view.seat as u8,
        step: view.step,
        sugar: view.sugar.iter().flatten().copied().collect(),
        agents: view.agents.iter().copied().map(Agent::from).collect(),
        my_score: view.my_score,
        opponent_score: view.opponent_score,
        last_actions: view.last_actions.iter().map(|a| a.map(action)).collect(),
        legal_actions,
    }
}

#[test]
fn sugar_helpers_on_the_sent_view_agree_with_the_rules() {
    use rand::{Rng, SeedableRng};
    let mut views = 0;
    for seed in 0..40 {
        let mut rng = crate::Rng::seed_from_u64(seed);
        let mut state = sugar::State::new(seed, [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]]);
        while !state.is_over() {
            let rules = state.view(state.to_move());
            let wit = wit_sugar_view(&rules);
            views += 1;
            assert_eq!(wit.to_rules(), rules);
            let steps: Vec<_> = wit
                .legal_moves()
                .map(|s| (sugar::Agent::from(s.agent), sugar::Direction::from(s.direction), s.to))
                .collect();
            assert_eq!(steps, rules.legal_moves());
            for step in wit.legal_moves() {
                assert_eq!(wit.kills_after(&step), rules.kills_after(step.agent.id, step.to));
            }
            for y in 0..sugar::SIZE {
                for x in 0..sugar::SIZE {
                    assert_eq!(wit.enemies_next_to(x, y), rules.enemies_next_to(x, y), "({x}, {y})");
                }
            }
            let action = wit.legal_actions[rng.random_range(0..wit.legal_actions.len() as u32) as usize];
            state.apply(action.into()).expect("a legal action");
        }
    }
    assert!(views > 1000, "{views} views");
}

/// A President view as the arena sends it to a world 0.2 bot.
fn wit_president_view(view: &president::View) -> crate::president::View {
    use crate::president::{Card, Turn, View};
    let cards = |cards: &[president::Card]| cards.iter().copied().map(Card::from).collect::<Vec<_>>();
    View {
        seat: view.seat as u8,
        hand: cards(&view.hand),
        card_counts: view.card_counts.clone(),
        last_positions: view.last_positions.clone(),
        positions: view.positions.clone(),
        state: cards(&view.state),
        state_seat: view.state_seat.map(|s| s as u8),
        round: view
            .round
            .iter()
            .map(|t| Turn {
                seat: t.seat as u8,
                cards: t.cards.as_deref().map(cards),
            })
            .collect(),
        legal_plays: view.legal_plays().iter().map(|p| cards(p)).collect(),
    }
}

#[test]
fn president_plays_read_from_the_sent_view_are_the_rules_plays_in_the_rules_order() {
    use crate::president::Card;
    use rand::{Rng, SeedableRng};
    let mut views = 0;
    for seed in 0..150 {
        let mut rng = crate::Rng::seed_from_u64(seed);
        let players = 2 + (seed as usize % 5);
        let hands = president::deal(seed, players);
        let leader = president::leader(&hands, None);
        let mut table = president::Table::new(hands, leader);
        while !table.is_over() {
            let rules = table.view(table.to_move, &None);
            let wit = wit_president_view(&rules);
            views += 1;
            assert_eq!(wit.to_rules(), rules);
            let simple: Vec<Vec<Card>> = rules
                .simple_plays()
                .into_iter()
                .map(|p| p.into_iter().map(Card::from).collect())
                .collect();
            assert_eq!(
                wit.simple_plays(),
                simple,
                "hand {:?} state {:?}",
                rules.hand,
                rules.state
            );
            // Legal plays in any order are legal; random sets of cards as the rules say.
            for play in wit.legal_plays() {
                let reversed: Vec<Card> = play.iter().rev().copied().collect();
                assert!(wit.is_legal(&reversed));
            }
            for _ in 0..20 {
                let n = rng.random_range(1..=4u32) as usize;
                let mut cards: Vec<Card> = Vec::new();
                for _ in 0..n {
                    cards.push(wit.hand[rng.random_range(0..wit.hand.len() as u32) as usize]);
                }
                let as_rules: Option<Vec<president::Card>> = cards.iter().map(crate::president::rules_card).collect();
                let expected = rules.is_legal(Some(&as_rules.expect("cards of the deck")));
                assert_eq!(wit.is_legal(&cards), expected, "{cards:?}");
            }
            let mut options: Vec<Option<Vec<president::Card>>> = rules.legal_plays().into_iter().map(Some).collect();
            if !rules.state.is_empty() {
                options.push(None);
            }
            let choice = options.swap_remove(rng.random_range(0..options.len() as u32) as usize);
            table.apply(choice).expect("a legal play");
        }
    }
    assert!(views > 1000, "{views} views");
}

#[test]
fn en_garde_and_connect_fwar_read_the_sent_lists() {
    use crate::connect_fwar::{Card, View};
    let view = View {
        card: Card { rank: 5, suit: 1 },
        columns: vec![Vec::new(); 4],
        deck_remaining: 10,
        discard: Vec::new(),
        legal_columns: vec![1, 3],
    };
    assert_eq!(view.fitting_columns(), [1, 3]);
    assert_eq!(
        (0..6).map(|c| view.fits(c)).collect::<Vec<_>>(),
        [false, true, false, true, false, false]
    );
}

/// A bot compares moves as values (issue 47): `Move` and the other world
/// types of every game derive `PartialEq`, as President's always did.
#[test]
fn moves_and_views_compare_as_values() {
    use crate::en_garde::{Direction, Move};
    let advance = Move {
        card: 3,
        direction: Direction::Forward,
    };
    assert_eq!(advance, advance.clone());
    assert_ne!(
        advance,
        Move {
            card: 3,
            direction: Direction::Backward
        }
    );
    let card = crate::connect_fwar::Card { rank: 1, suit: 2 };
    assert_eq!(card, card.clone());
    assert_eq!(crate::sugar::DIRECTIONS[0], crate::sugar::DIRECTIONS[0]);
}
