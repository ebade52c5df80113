//! President in words: titles, cards, hands, plays, what beats the pile,
//! and the legal plays numbered for the person.

use arena_games::president::{ACE, Card, Meets, Play, Suit, TWO, WILD, classify, meets, sort_hand};

/// A title as people write it: `Vice-President`, `Bum`.
pub fn title_text(title: &str) -> String {
    title
        .split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join("-")
}

/// Cards separated by spaces.
pub fn cards_text(cards: &[Card], unicode: bool) -> String {
    cards.iter().map(|c| c.label(unicode)).collect::<Vec<_>>().join(" ")
}

/// A hand, weakest first, with a wider gap between face values.
pub fn hand_text(hand: &[Card], unicode: bool) -> String {
    let mut hand = hand.to_vec();
    sort_hand(&mut hand);
    let mut s = String::new();
    let mut last = None;
    for c in hand {
        let rank = c.strength().0;
        if let Some(r) = last {
            s.push_str(if r == rank { " " } else { "  " });
        }
        s.push_str(&c.label(unicode));
        last = Some(rank);
    }
    s
}

pub(super) fn rank_name(rank: u8, plural: bool) -> String {
    let name = match rank {
        11 => "Jack".to_string(),
        12 => "Queen".to_string(),
        13 => "King".to_string(),
        ACE => "Ace".to_string(),
        r => r.to_string(),
    };
    if plural { format!("{name}s") } else { name }
}

/// What a play is, in words: `a pair of 9s`, `three Kings`, `one 2`, `a Joker`.
pub fn play_words(play: Play) -> String {
    let count = |n: u8| match n {
        1 => "one",
        2 => "two",
        3 => "three",
        _ => "four",
    };
    match play {
        Play::Normal { count: 1, rank, .. } => format!("one {}", rank_name(rank, false)),
        Play::Normal { count: 2, rank, .. } => format!("a pair of {}", rank_name(rank, true)),
        Play::Normal { count: n, rank, .. } => format!("{} {}", count(n), rank_name(rank, true)),
        Play::Twos { count: 1, .. } => "one 2".to_string(),
        Play::Twos { count: n, .. } => format!("{} 2s", count(n)),
        Play::Joker => "a Joker".to_string(),
    }
}

/// What may be played on `state` (rules 3, 4, 6), to follow "you may".
pub fn what_beats(state: Play, unicode: bool) -> String {
    match beat_and_burn(state, unicode) {
        (beat, Some(burn)) => format!("{beat}, or {burn}"),
        (beat, None) => beat,
    }
}

/// What beats `state` and, if anything can, what burns it: `beat it with ...`, `burn it with ...`.
pub fn beat_and_burn(state: Play, unicode: bool) -> (String, Option<String>) {
    let words = |n: u8| ["one", "two", "three", "four"][usize::from(n.clamp(1, 4)) - 1];
    let suits = if unicode {
        "♦ < ♣ < ♥ < ♠"
    } else {
        "D < C < H < S"
    };
    let top_card = |rank: u8, (suit, real): (u8, u8)| match Suit::from_number(suit) {
        Some(s) if real == 1 => Card::new(rank, s).label(unicode),
        Some(s) => format!("the wildcard {}", Card::new(WILD, s).label(unicode)),
        None => "?".to_string(),
    };
    let mut beats = Vec::new();
    let mut burn = None;
    match state {
        Play::Normal { count, rank, top } => {
            if rank < ACE {
                beats.push(match count {
                    1 => "a higher card".to_string(),
                    2 => "a higher pair".to_string(),
                    n => format!("{} of a higher face value", words(n)),
                });
            }
            let twos = count.saturating_sub(1).max(1);
            beats.push(format!("{} 2{}", words(twos), if twos == 1 { "" } else { "s" }));
            if top != (Suit::Spades as u8, 1) {
                burn = Some(if count == 1 {
                    format!("a better {} than {}", rank_name(rank, false), top_card(rank, top))
                } else {
                    format!(
                        "{} {} topped by a better card than {}",
                        words(count),
                        rank_name(rank, true),
                        top_card(rank, top)
                    )
                });
            }
        }
        Play::Twos { count, top } => {
            if top != Suit::Spades as u8 {
                let top = top_card(TWO, (top, 1));
                burn = Some(if count == 1 {
                    format!("a better 2 than {top}")
                } else {
                    format!("{} 2s topped by a better card than {top}", words(count))
                });
            }
        }
        Play::Joker => return ("only pass: nothing beats a Joker".to_string(), None),
    }
    beats.push("a Joker".to_string());
    let last = beats.pop().unwrap_or_default();
    let beat = if beats.is_empty() {
        format!("beat it with {last}")
    } else {
        format!("beat it with {} or {last}", beats.join(", "))
    };
    (beat, burn.map(|burn| format!("burn it with {burn} (suits {suits})")))
}

/// The legal plays, numbered from 1, one line per face value (2s and the Joker last).
pub fn plays_text(plays: &[Vec<Card>], state: Option<Play>, unicode: bool) -> Vec<String> {
    let group = |p: &[Card]| match classify(p) {
        Ok(Play::Normal { rank, .. }) => rank_name(rank, true),
        Ok(Play::Twos { .. }) => "2s".to_string(),
        _ => "Joker".to_string(),
    };
    let mut lines: Vec<(String, String)> = Vec::new();
    for (i, p) in plays.iter().enumerate() {
        let burn = classify(p).and_then(|play| meets(play, state)) == Ok(Meets::Burn);
        let item = format!(
            "{}) {}{}",
            i + 1,
            cards_text(p, unicode),
            if burn { " (burn)" } else { "" }
        );
        let g = group(p);
        match lines.last_mut() {
            Some((last, line)) if *last == g && line.len() + item.len() < 96 => {
                line.push_str("   ");
                line.push_str(&item);
            }
            Some((last, _)) if *last == g => lines.push((g, format!("  {:>7}   {item}", ""))),
            _ => lines.push((g.clone(), format!("  {g:>7}:  {item}"))),
        }
    }
    lines.into_iter().map(|(_, l)| l).collect()
}
