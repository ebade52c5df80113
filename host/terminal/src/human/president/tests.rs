//! President at the terminal: typed cards, chosen plays, words.

use super::*;
use arena_games::president::{Suit, WILD};

#[test]
fn typed_cards_read_as_the_rules_cards() {
    assert_eq!(parse_answer("7"), Answer::Number(7));
    assert_eq!(parse_answer("#12"), Answer::Number(12));
    assert_eq!(
        parse_answer("7 7"),
        Answer::Cards(vec![Wanted::Card(7, None), Wanted::Card(7, None)])
    );
    assert_eq!(
        parse_answer("10h, 3S"),
        Answer::Cards(vec![
            Wanted::Card(10, Some(Suit::Hearts)),
            Wanted::Card(3, Some(Suit::Spades))
        ])
    );
    assert_eq!(parse_answer("Joker"), Answer::Cards(vec![Wanted::Joker]));
    assert_eq!(
        parse_answer("qs"),
        Answer::Cards(vec![Wanted::Card(12, Some(Suit::Spades))])
    );
    assert_eq!(
        parse_answer("k♥"),
        Answer::Cards(vec![Wanted::Card(13, Some(Suit::Hearts))])
    );
    assert_eq!(parse_answer("q"), Answer::Quit);
    assert_eq!(parse_answer("P"), Answer::Pass);
    assert_eq!(parse_answer("7x"), Answer::Unreadable("7x".into()));
    assert_eq!(parse_answer("1h"), Answer::Unreadable("1h".into()));
    assert_eq!(
        parse_answer("99999999999999999999999"),
        Answer::Unreadable("99999999999999999999999".into())
    );
}

fn view(hand: &[Card], state: &[Card]) -> View {
    View {
        seat: 0,
        hand: hand.to_vec(),
        card_counts: vec![hand.len() as u8, 5],
        last_positions: None,
        positions: vec![0, 0],
        state: state.to_vec(),
        state_seat: (!state.is_empty()).then_some(1),
        round: Vec::new(),
    }
}

#[test]
fn typed_cards_pick_the_weakest_legal_play_they_describe() {
    use Suit::*;
    let c = Card::new;
    let hand = [
        c(7, Diamonds),
        c(7, Hearts),
        c(7, Spades),
        c(9, Clubs),
        c(WILD, Clubs),
        Card::Joker,
    ];
    let choose = |state: &[Card], typed: &str| {
        let v = view(&hand, state);
        let Answer::Cards(wanted) = parse_answer(typed) else {
            panic!("{typed}")
        };
        choose_cards(&v, &v.legal_plays(), &wanted, false)
    };
    assert_eq!(choose(&[], "7 7"), Ok(vec![c(7, Diamonds), c(7, Hearts)]));
    assert_eq!(choose(&[], "7s 7"), Ok(vec![c(7, Diamonds), c(7, Spades)]));
    // 3C would stand for the 9C already in the play (rule 5.4).
    assert_eq!(
        choose(&[], "9 3"),
        Err("9C 3C: a wildcard 3 may not stand for a card that is also in the play (rule 5.4)".to_string())
    );
    assert_eq!(choose(&[], "7h 3"), Ok(vec![c(7, Hearts), c(WILD, Clubs)]));
    // Only a burn meets a pair of 7s topped by the Club 7 here: the Spade one (rule 4.1).
    assert_eq!(
        choose(&[c(7, Clubs), c(7, Hearts)], "7 7"),
        Ok(vec![c(7, Diamonds), c(7, Spades)])
    );
    assert_eq!(choose(&[], "7 7 7 7"), Err("you hold only 3 7s".to_string()));
    assert_eq!(choose(&[], "kh"), Err("you hold no KH".to_string()));
    assert_eq!(choose(&[], "7 9"), Err("7D 9C is not one play: a play is cards of one face value (3s may join as wildcards); 2s go only with 2s, a Joker alone".to_string()));
    assert_eq!(
        choose(&[c(10, Hearts)], "9c"),
        Err("9C does not beat 10H (one 10).\n  You may beat it with a higher card, one 2 or a Joker, or burn it with a better 10 than 10H (suits D < C < H < S)".to_string())
    );
    let pair_of_tens = [c(10, Hearts), c(10, Spades)];
    assert!(choose(&pair_of_tens, "7 7 7").is_err_and(|e| {
        e.starts_with("7D 7H 7S is 3 cards, and 10H 10S is 2: a play must have as many (rule 3.2).")
    }),);
    assert_eq!(
        choose(&[Card::Joker], "jk"),
        Err("Jk does not beat Jk (a Joker).\n  You may only pass: nothing beats a Joker".to_string())
    );
}

#[test]
fn ordinals_and_titles_read_well() {
    assert_eq!(
        [1, 2, 3, 4, 11, 12, 21].map(ordinal),
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "21st"]
    );
    assert_eq!(title_text("vice-president"), "Vice-President");
    assert_eq!(title_text("bum"), "Bum");
}
