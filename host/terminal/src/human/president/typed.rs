//! What a person types at President: cards (`7h`, `10`, `K`, `jo`),
//! a number from the list, or a word, and the legal play it picks.

use super::words::{cards_text, play_words, rank_name, what_beats};
use arena_games::president::{ACE, Card, Illegal, Play, Suit, TWO, View, classify, meets, sort_hand};

/// One card as typed: a rank (2-14) and maybe a suit, or a Joker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    /// A normal card; any suit when `None`.
    Card(u8, Option<Suit>),
    /// A Joker.
    Joker,
}

impl Wanted {
    fn matches(self, card: Card) -> bool {
        match (self, card) {
            (Wanted::Joker, Card::Joker) => true,
            (Wanted::Card(r, s), Card::Normal { rank, suit }) => r == rank && s.is_none_or(|s| s == suit),
            _ => false,
        }
    }
}

fn parse_rank(text: &str) -> Option<u8> {
    Some(match text {
        "j" | "jack" => 11,
        "q" | "queen" => 12,
        "k" | "king" => 13,
        "a" | "ace" => ACE,
        n => match n.parse::<u8>() {
            Ok(r) if (TWO..=ACE).contains(&r) => r,
            _ => return None,
        },
    })
}

fn parse_suit(c: char) -> Option<Suit> {
    Some(match c {
        'd' | '♦' | '♢' => Suit::Diamonds,
        'c' | '♣' | '♧' => Suit::Clubs,
        'h' | '♥' | '♡' => Suit::Hearts,
        's' | '♠' | '♤' => Suit::Spades,
        _ => return None,
    })
}

/// Read one typed card: `7`, `7h`, `10♠`, `qs`, `ace`, `jk` or `joker`.
pub fn parse_card(token: &str) -> Option<Wanted> {
    let t = token.to_lowercase();
    if matches!(t.as_str(), "jk" | "jo" | "joker" | "jkr" | "*") {
        return Some(Wanted::Joker);
    }
    if let Some(rank) = parse_rank(&t) {
        return Some(Wanted::Card(rank, None));
    }
    let last = t.chars().last()?;
    let suit = parse_suit(last)?;
    let rank = parse_rank(&t[..t.len() - last.len_utf8()])?;
    Some(Wanted::Card(rank, Some(suit)))
}

/// What the person typed on their turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The number of a listed play, from 1.
    Number(usize),
    /// Cards.
    Cards(Vec<Wanted>),
    /// A pass.
    Pass,
    /// Leave the game.
    Quit,
    /// Show the rules.
    Help,
    /// Not understood: the word that was not.
    Unreadable(String),
}

/// Read an answer: a play's number, cards (`7 7`, `10h 3s`, `joker`), `p`, `q` or `?`.
pub fn parse_answer(text: &str) -> Answer {
    let t = text.trim().to_lowercase();
    if t == "p" || t == "pass" {
        return Answer::Pass;
    }
    if crate::human::asks_to_leave(&t) {
        return Answer::Quit;
    }
    if crate::human::asks_for_help(&t) {
        return Answer::Help;
    }
    let number = t.strip_prefix('#').unwrap_or(&t);
    if !number.is_empty() && number.chars().all(|c| c.is_ascii_digit()) {
        return match number.parse::<usize>() {
            Ok(n) => Answer::Number(n),
            Err(_) => Answer::Unreadable(t),
        };
    }
    let mut wanted = Vec::new();
    for token in t
        .split(|c: char| c.is_whitespace() || c == ',' || c == '+')
        .filter(|s| !s.is_empty())
    {
        match parse_card(token) {
            Some(w) => wanted.push(w),
            None => return Answer::Unreadable(token.to_string()),
        }
    }
    if wanted.is_empty() {
        Answer::Unreadable(t)
    } else {
        Answer::Cards(wanted)
    }
}

/// Whether `play` is exactly the typed cards (suits left out match any).
fn fits(wanted: &[Wanted], play: &[Card]) -> bool {
    if wanted.len() != play.len() {
        return false;
    }
    let mut rest = play.to_vec();
    // Exact cards first, so a rank without a suit cannot take the card a later exact one names.
    let mut order: Vec<Wanted> = wanted.to_vec();
    order.sort_by_key(|w| matches!(w, Wanted::Card(_, None)));
    order.iter().all(|w| match rest.iter().position(|&c| w.matches(c)) {
        Some(i) => {
            rest.remove(i);
            true
        }
        None => false,
    })
}

fn wanted_text(w: Wanted, unicode: bool) -> String {
    match w {
        Wanted::Joker => "Joker".to_string(),
        Wanted::Card(rank, Some(suit)) => Card::new(rank, suit).label(unicode),
        Wanted::Card(rank, None) => rank_name(rank, false),
    }
}

/// The play the person meant by `wanted`, or why there is none.
pub fn choose_cards(view: &View, plays: &[Vec<Card>], wanted: &[Wanted], unicode: bool) -> Result<Vec<Card>, String> {
    if let Some(play) = plays.iter().find(|p| fits(wanted, p)) {
        return Ok(play.clone());
    }
    // Not legal: find the cards in the hand to say what is wrong with them.
    let mut hand = view.hand.clone();
    sort_hand(&mut hand);
    let mut cards = Vec::new();
    let mut order: Vec<Wanted> = wanted.to_vec();
    order.sort_by_key(|w| matches!(w, Wanted::Card(_, None)));
    for w in order {
        match hand.iter().position(|&c| w.matches(c)) {
            Some(i) => cards.push(hand.remove(i)),
            None => {
                let held = view.hand.iter().filter(|&&c| w.matches(c)).count();
                return Err(match (w, held) {
                    (Wanted::Card(rank, None), n) if n > 0 => format!("you hold only {n} {}", rank_name(rank, n > 1)),
                    _ => format!("you hold no {}", wanted_text(w, unicode)),
                });
            }
        }
    }
    let state = view.state_play();
    let why = match classify(&cards).and_then(|p| meets(p, state).map(|_| p)) {
        Ok(_) => return Ok(cards),
        Err(why) => why,
    };
    let shown = cards_text(&cards, unicode);
    Err(match why {
        Illegal::Mixed => format!(
            "{shown} is not one play: a play is cards of one face value (3s may join as wildcards); 2s go only with 2s, a Joker alone"
        ),
        Illegal::TooMany => "a play has at most four cards".to_string(),
        Illegal::Duplicate => {
            format!("{shown}: a wildcard 3 may not stand for a card that is also in the play (rule 5.4)")
        }
        Illegal::DoesNotBeat => match state {
            Some(s) => {
                let to_beat = cards_text(&view.state, unicode);
                let why = match (classify(&cards), s) {
                    (Ok(Play::Normal { count, .. }), Play::Normal { count: n, .. }) if count != n => format!(
                        "{shown} is {count} card{}, and {to_beat} is {n}: a play must have as many (rule 3.2)",
                        if count == 1 { "" } else { "s" }
                    ),
                    (Ok(Play::Twos { count, .. }), Play::Normal { count: n, .. }) => {
                        let k = n.saturating_sub(1).max(1);
                        format!(
                            "{shown} is {count} 2{}, but exactly {k} 2{} beat{} {n} card{} (rule 6.1)",
                            if count == 1 { "" } else { "s" },
                            if k == 1 { "" } else { "s" },
                            if k == 1 { "s" } else { "" },
                            if n == 1 { "" } else { "s" }
                        )
                    }
                    _ => format!("{shown} does not beat {to_beat} ({})", play_words(s)),
                };
                format!("{why}.\n  You may {}", what_beats(s, unicode))
            }
            None => format!("{shown} is not a play"),
        },
        Illegal::Empty | Illegal::NotInHand | Illegal::PassOnLead => format!("{shown} is not a play"),
    })
}
