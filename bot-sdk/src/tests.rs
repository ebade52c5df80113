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
