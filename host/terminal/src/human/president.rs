//! A person playing President in the terminal, at a table of 1 to 5 bots.

use crate::adapters::president::President;
use crate::games::president as rules;
use crate::games::president::{
    ACE, Card, GameInfo, Illegal, Meets, Play, PresidentPlayer, Suit, TWO, View, WILD, classify, meets, sort_hand,
    title,
};
use crate::games::{EventSink, Failure, Seat};
use crate::games::{Outcome, derive_seed};
use crate::human::Terminal;
use crate::runner::{BotRef, GameDef, GameSetup, Seated, SetupError, Table};
use serde_json::Value;

pub use crate::text::ordinal;

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

fn rank_name(rank: u8, plural: bool) -> String {
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

const HELP: &str = "\
How to play (docs/rules/president.md):
  Shed your cards; the first out is President, the last is Bum.
  The leader plays any one to four cards of one face value. Each next player must play
  the same number of cards of a higher face value (4 low ... 10 J Q K A high), or pass.
  Burn: the same number of the same face value with a better top suit (D < C < H < S)
  clears the round, and you lead. 3s are wildcards: 3S + KD plays as two Kings
  (3s alone count as Aces). 2s beat anything: one 2 on one or two cards, two 2s on
  three, three on four. A Joker beats everything. A pass does not lock you out.
  When everyone else has passed, whoever played last leads a new round.
  Type a play's number, or the cards: 7h 7s, 7 7 (any two 7s), 10d 3s, qs, jk (Joker).
  A number alone is always a play's number: add the suit to play one card (9h).
  p passes (not when you lead), q leaves the game.";

/// A person playing cards at the terminal.
pub struct HumanPresident {
    term: Terminal,
    names: Vec<String>,
}

impl HumanPresident {
    /// A player reading from and writing to `term`; `names` by seat (`You` for the person).
    pub fn new(term: Terminal, names: Vec<String>) -> Self {
        HumanPresident { term, names }
    }

    fn table(&self, view: &View) -> String {
        let n = view.card_counts.len();
        let width = self.names.iter().map(|s| s.chars().count()).max().unwrap_or(3).max(6);
        let u = self.term.unicode;
        // Titles from the last game matter for the exchange, so a series shows them in a column of their own.
        let last_title = |seat: usize| {
            let p = view.last_positions.as_ref()?.get(seat)?;
            Some(title_text(title(*p, n)))
        };
        let last = if view.last_positions.is_some() {
            format!("{:<14}  ", "last game")
        } else {
            String::new()
        };
        let mut s = format!("  seat  {:<width$}  cards  {last}this round\n", "player");
        for seat in 0..n {
            let name = self.names.get(seat).cloned().unwrap_or_default();
            let mut status = match view.positions.get(seat).copied().unwrap_or(0) {
                0 => match view.round.iter().rev().find(|t| t.seat == seat) {
                    Some(t) => match &t.cards {
                        Some(cards) => format!("played {}", cards_text(cards, u)),
                        None => "passed".to_string(),
                    },
                    None if seat == view.seat => "to play".to_string(),
                    None => String::new(),
                },
                p => format!("out: {} ({})", ordinal(p), title_text(title(p, n))),
            };
            if view.state_seat == Some(seat) && !view.state.is_empty() {
                status.push_str("  <- to beat");
            }
            let last = match last_title(seat) {
                Some(t) => format!("{t:<14}  "),
                None => String::new(),
            };
            let line = format!(
                "  {seat:>4}  {name:<width$}  {:>5}  {last}{status}",
                view.card_counts.get(seat).copied().unwrap_or(0)
            );
            s.push_str(line.trim_end());
            s.push('\n');
        }
        s
    }
}

impl PresidentPlayer for HumanPresident {
    fn start_game(&mut self, _: &GameInfo) -> Result<(), Failure> {
        // The narrator has told the deal and the exchange already.
        Ok(())
    }

    fn play(&mut self, view: &View) -> Result<Option<Vec<Card>>, Failure> {
        let u = self.term.unicode;
        let plays = view.legal_plays();
        let state = view.state_play();
        self.show_turn(view, &plays, state);
        let prompt = match (plays.is_empty(), state.is_some()) {
            (true, _) => "Pass (p; ? for help, q to leave)> ",
            (false, true) => "Your play (number, cards like 7h 7s, p to pass; ? help, q leaves)> ",
            (false, false) => "Your play (number, or cards like 7h 7s; ? help, q leaves)> ",
        };
        loop {
            let Some(answer) = self.term.ask(prompt) else {
                return Err(self.term.leave());
            };
            match parse_answer(&answer) {
                Answer::Quit => return Err(self.term.leave()),
                Answer::Help => self.term.say(HELP),
                Answer::Pass if state.is_none() => self
                    .term
                    .say("You lead this round, and a leader may not pass (rule 2.2): play some cards."),
                Answer::Pass => return Ok(None),
                Answer::Number(k) if (1..=plays.len()).contains(&k) => return Ok(Some(plays[k - 1].clone())),
                Answer::Number(k) if plays.is_empty() => self.term.say(&format!(
                    "There is no play {k}: nothing you hold beats {}. Type p to pass.",
                    cards_text(&view.state, u)
                )),
                Answer::Number(k) => {
                    // `9` meant as the card 9: say how to name a card.
                    let hint = if (usize::from(TWO)..=10).contains(&k) {
                        format!(" To play a {k}, add its suit (e.g. {k}h).")
                    } else {
                        String::new()
                    };
                    self.term.say(&format!(
                        "There is no play {k}: the plays are numbered 1 to {}.{hint}",
                        plays.len()
                    ));
                }
                Answer::Cards(wanted) => match choose_cards(view, &plays, &wanted, u) {
                    Ok(cards) => return Ok(Some(cards)),
                    Err(why) => self.term.say(&format!("Not allowed: {why}.")),
                },
                Answer::Unreadable(word) => self.term.say(&format!(
                    "`{word}` is not a card: type a play's number, cards like 7h 7s or 10d 3s, jk for a Joker, p to pass, ? for help."
                )),
            }
        }
    }
}

impl HumanPresident {
    /// The table, what is to beat (and how it may be beaten or burnt), the
    /// person's hand and their numbered plays.
    fn show_turn(&self, view: &View, plays: &[Vec<Card>], state: Option<Play>) {
        let u = self.term.unicode;
        self.term.say("");
        self.term.print(&self.table(view));
        match state {
            None => self
                .term
                .say("You lead: play any cards of one face value (a leader may not pass)."),
            Some(s) => {
                let by = view
                    .state_seat
                    .and_then(|seat| self.names.get(seat))
                    .cloned()
                    .unwrap_or_default();
                self.term.say(&format!(
                    "To beat: {} ({}, played by {by}).",
                    cards_text(&view.state, u),
                    play_words(s)
                ));
                match beat_and_burn(s, u) {
                    (beat, Some(burn)) => {
                        self.term.say(&format!("  You may {beat},"));
                        self.term.say(&format!("  or {burn}."));
                    }
                    (beat, None) => self.term.say(&format!("  You may {beat}.")),
                }
            }
        }
        self.term.say(&format!("Your hand: {}", hand_text(&view.hand, u)));
        if plays.is_empty() {
            self.term.say("Nothing in your hand beats it: type p to pass.");
        } else {
            self.term.say("Your plays:");
            for line in plays_text(plays, state, u) {
                self.term.say(&line);
            }
        }
    }
}

/// Tells the person what happens at the table: every play, pass, burn and
/// finish, the exchange, and the finishing order at the end.
pub struct Narrator {
    /// Where to write.
    pub term: Terminal,
    /// The person's seat.
    pub me: Seat,
    /// Everyone's name by seat (`You` for the person).
    pub names: Vec<String>,
    /// Finishing positions so far, to tell who has just gone out.
    positions: Vec<u32>,
    /// Whether the next play opens a new round.
    new_round: bool,
}

impl Narrator {
    /// A narrator for the person in seat `me` at a table of `names`.
    pub fn new(term: Terminal, me: Seat, names: Vec<String>) -> Self {
        let n = names.len();
        Narrator {
            term,
            me,
            names,
            positions: vec![0; n],
            new_round: true,
        }
    }

    fn name(&self, seat: usize) -> String {
        self.names.get(seat).cloned().unwrap_or_else(|| format!("seat {seat}"))
    }

    /// Whether to stay quiet: the person left, and the bots play on without them.
    fn quiet(&self) -> bool {
        self.term.has_left()
    }

    fn game_start(
        &mut self,
        hands: &[Vec<Card>],
        last_positions: Option<&[u32]>,
        exchange: &[(Vec<Card>, Vec<Card>)],
        leader: Seat,
    ) {
        let n = self.names.len();
        let u = self.term.unicode;
        self.positions = vec![0; n];
        self.new_round = true;
        let counts: Vec<String> = hands
            .iter()
            .enumerate()
            .map(|(s, h)| format!("{} {}", self.name(s), h.len()))
            .collect();
        self.term.say(&format!("Cards dealt: {}.", counts.join(", ")));
        if let Some(last) = last_positions {
            let seat_of = |p: u32| last.iter().position(|&q| q == p);
            // Rule 8.3: the Bum pays the President, the Vice-Bum the Vice-President.
            let mut pairs = vec![(n as u32, 1u32)];
            if n >= 4 {
                pairs.push((n as u32 - 1, 2));
            }
            for (low, high) in pairs {
                let (Some(giver), Some(taker)) = (seat_of(low), seat_of(high)) else {
                    continue;
                };
                let (Some((gave, _)), Some((back, _))) = (exchange.get(giver), exchange.get(taker)) else {
                    continue;
                };
                let k = gave.len();
                let cards = |k: usize| if k == 1 { "card" } else { "cards" };
                let best = if k == 1 {
                    "its best card and gets one back".to_string()
                } else {
                    format!("its {k} best cards and gets {k} back")
                };
                let line = if giver == self.me {
                    format!(
                        "As {}, you give {} (the {}) your best {}, {}, and get {} back.",
                        title_text(title(low, n)),
                        self.name(taker),
                        title_text(title(high, n)),
                        cards(k),
                        cards_text(gave, u),
                        cards_text(back, u)
                    )
                } else if taker == self.me {
                    format!(
                        "As {}, you get {} from {} (the {}) and give back your weakest: {}.",
                        title_text(title(high, n)),
                        cards_text(gave, u),
                        self.name(giver),
                        title_text(title(low, n)),
                        cards_text(back, u)
                    )
                } else {
                    format!(
                        "{} (the {}) gives {} (the {}) {best}.",
                        self.name(giver),
                        title_text(title(low, n)),
                        self.name(taker),
                        title_text(title(high, n)),
                    )
                };
                self.term.say(&format!("Exchange: {line}"));
            }
        }
        let (verb, why) = match (last_positions.is_some(), leader == self.me) {
            (true, true) => ("lead", "as last game's President"),
            (true, false) => ("leads", "as last game's President"),
            (false, true) => ("lead", "as you hold the 4 of Diamonds"),
            (false, false) => ("leads", "holding the 4 of Diamonds"),
        };
        self.term.say(&format!("{} {verb} first, {why}.", self.name(leader)));
    }

    fn turn(&mut self, seat: Seat, cards: Option<Vec<Card>>, meets: Option<Meets>, positions: Vec<u32>, cleared: bool) {
        let you = seat == self.me;
        let who = self.name(seat);
        let u = self.term.unicode;
        let mut line = match cards {
            None => {
                let mut s = format!("{who} pass{}.", if you { "" } else { "es" });
                if cleared {
                    self.new_round = true;
                    s.push_str(" Everyone else has passed: the round is over.");
                }
                s
            }
            Some(played) => {
                let mut cards = cards_text(&played, u);
                // Wildcards stand for something: say what, as a learner cannot see it at a glance.
                if played.iter().any(|c| matches!(c, Card::Normal { rank: WILD, .. }))
                    && let Ok(play) = classify(&played)
                {
                    cards.push_str(&format!(" ({})", play_words(play)));
                }
                let s = match meets {
                    Some(Meets::Burn) => {
                        self.new_round = true;
                        format!(
                            "{who} burn{} with {cards}! The round is cleared; {} a new one.",
                            if you { "" } else { "s" },
                            if you {
                                "you lead".to_string()
                            } else {
                                format!("{who} leads")
                            }
                        )
                    }
                    _ if self.new_round => format!("{who} lead{} {cards}.", if you { "" } else { "s" }),
                    _ => format!("{who} play{} {cards}.", if you { "" } else { "s" }),
                };
                if meets != Some(Meets::Burn) {
                    self.new_round = false;
                }
                s
            }
        };
        let n = self.names.len();
        let mut finished: Vec<(u32, usize)> = positions
            .iter()
            .enumerate()
            .filter(|&(s, &p)| p != 0 && self.positions.get(s) == Some(&0))
            .map(|(s, &p)| (p, s))
            .collect();
        // The one who went out first, then whoever that left alone with cards.
        finished.sort_by_key(|&(_, s)| s != seat);
        for (p, s) in finished {
            let who = if s == self.me {
                "You are".to_string()
            } else {
                format!("{} is", self.name(s))
            };
            let how = if s == seat { "out" } else { "left holding cards" };
            line.push_str(&format!(
                "\n  {who} {how}: {}, {}.",
                ordinal(p),
                title_text(title(p, n))
            ));
            if s == self.me && positions.iter().filter(|&&q| q == 0).count() > 1 {
                line.push_str(" The others play on.");
            }
        }
        self.positions = positions;
        self.term.say(&line);
    }
}

impl EventSink for Narrator {
    fn enabled(&self) -> bool {
        true
    }

    fn event(&mut self, e: Value) {
        // The game writes only its own events; anything else is not narrated.
        let Ok(event) = serde_json::from_value::<rules::Event>(e) else {
            return;
        };
        if self.quiet() && !matches!(event, rules::Event::GameEnd { .. }) {
            return;
        }
        match event {
            rules::Event::GameStart {
                hands,
                last_positions,
                exchange,
                leader,
                ..
            } => self.game_start(&hands, last_positions.as_deref(), &exchange, leader),
            rules::Event::Turn {
                seat,
                cards,
                meets,
                positions,
                state,
                ..
            } => self.turn(seat, cards, meets, positions, state.is_none()),
            rules::Event::Illegal { seat, why, .. } => {
                self.term.say(&format!(
                    "{} made an illegal play ({}): out, in the last free place (rule 10.1).",
                    self.name(seat),
                    why.words()
                ));
            }
            rules::Event::Forfeit(f) if f.seat == self.me => self.term.say(&format!(
                "You are out ({}), in the last free place; the bots play on.",
                f.detail
            )),
            rules::Event::Forfeit(f) => self.term.say(&format!(
                "{} fails ({}): out, in the last free place (rule 10.2).",
                self.name(f.seat),
                f.detail
            )),
            rules::Event::GameEnd { positions, .. } => self.game_end(&positions),
        }
    }
}

impl Narrator {
    fn game_end(&mut self, positions: &[u32]) {
        let n = self.names.len();
        let width = self.names.iter().map(|s| s.chars().count()).max().unwrap_or(3);
        let mut order: Vec<(u32, usize)> = positions.iter().enumerate().map(|(s, &p)| (p, s)).collect();
        order.sort_unstable();
        self.term.say("\nThe game is over. Finishing order:");
        for (p, s) in order {
            self.term.say(&format!(
                "  {:>3}  {:<width$}  {}",
                ordinal(p),
                self.name(s),
                title_text(title(p, n))
            ));
        }
        if let Some(&p) = positions.get(self.me) {
            let t = title_text(title(p, n));
            if self.quiet() {
                self.term.say(&format!("You finish {}: {t}, as you left.", ordinal(p)));
                return;
            }
            let cheer = match p {
                1 => " Congratulations!",
                p if p as usize == n => " Better luck next game.",
                _ => "",
            };
            self.term.say(&format!("You finish {}: {t}.{cheer}", ordinal(p)));
        }
    }
}

/// Play one game of President with a person at `term` in seat `seat` against
/// `opponents` (name, bot): the person's terminal, the game's narrator,
/// and the bots seated as in any match.
pub fn play(
    setup: &GameSetup<'_>,
    seed: u64,
    term: Terminal,
    seat: Seat,
    opponents: &[(String, BotRef)],
) -> Result<Outcome, SetupError> {
    let game = &President;
    game.check_setup(setup)?;
    let names = table_names(seat, opponents)?;
    let n = names.len();
    term.say(&format!(
        "President at a table of {n}: you are seat {seat}. Shed your cards: the first out is President,"
    ));
    term.say("the last is Bum. This is one game (one deal); after it you may play the next game of the");
    term.say("series, which starts with the Bum and the President swapping cards (rule 8.3). ? at your turn: rules.");
    let mut last: Option<Vec<u32>> = None;
    let mut game = 1u64;
    loop {
        // Game k of the series is dealt from the seed (the first) or from it and k, so one --seed replays the series.
        let deal_seed = if game == 1 { seed } else { derive_seed(seed, game) };
        let seats = seat_table(setup, deal_seed, &term, seat, &names, opponents)?;
        if game > 1 {
            term.say(&format!("\n=== Game {game} of the series ==="));
        }
        let mut narrator = Narrator::new(term.clone(), seat, names.clone());
        let mut positions = Vec::new();
        let previous = last.clone();
        let played = Table::of(seats).play(&mut narrator, |players, events| {
            let mut players: Vec<&mut dyn PresidentPlayer> =
                players.into_iter().map(|p| -> &mut dyn PresidentPlayer { p }).collect();
            let record = rules::play_game(deal_seed, previous, &mut players, events);
            positions = record.positions;
            Ok(record.outcome)
        })?;
        if term.has_left() {
            return Ok(played.outcome);
        }
        let again = term.ask("\nPlay the next game of the series, with the card exchange? (y/N)> ");
        if !again.is_some_and(|a| matches!(a.to_ascii_lowercase().as_str(), "y" | "yes")) {
            return Ok(played.outcome);
        }
        last = Some(positions);
        game += 1;
    }
}

/// The names at the table, the person's "You" in `seat`: checked to be a
/// table President can seat, with two bots of one name told apart.
fn table_names(seat: Seat, opponents: &[(String, BotRef)]) -> Result<Vec<String>, SetupError> {
    let n = opponents.len() + 1;
    if !rules::PLAYERS.contains(&n) {
        return Err(SetupError::Opponents(format!(
            "President needs 1 to 5 opponents, one --vs BOT each (for example --vs house:lowest --vs house:random); got {}",
            opponents.len()
        )));
    }
    if seat >= n {
        return Err(SetupError::Opponents(format!(
            "President with {n} players has seats 0 to {}",
            n - 1
        )));
    }
    // Two bots of one name would be told apart by seat number only, which
    // nobody reads; callers other than the command line may pass such names.
    let mut names: Vec<String> = Vec::with_capacity(n);
    for (name, _) in opponents {
        let unique = crate::runner::entrants::unique_name_by(name, |n| names.iter().any(|x| x == n));
        names.push(unique);
    }
    names.insert(seat, "You".to_string());
    Ok(names)
}

/// One game's seats: the person in `seat`, each bot in turn around them.
fn seat_table(
    setup: &GameSetup<'_>,
    deal_seed: u64,
    term: &Terminal,
    seat: Seat,
    names: &[String],
    opponents: &[(String, BotRef)],
) -> Result<Vec<Seated<President>>, SetupError> {
    let n = names.len();
    let mut seats = Vec::with_capacity(n);
    for s in 0..n {
        if s == seat {
            let person = HumanPresident::new(term.clone(), names.to_vec());
            seats.push(Seated::Native(Box::new(person) as Box<dyn PresidentPlayer>));
            continue;
        }
        let (name, bot) = &opponents[if s < seat { s } else { s - 1 }];
        let bot = Seated::<President>::bot(setup, deal_seed, s, bot)?;
        if let Some(failure) = bot.broken() {
            return Err(SetupError::Opponents(format!(
                "{name} could not start: {}",
                failure.detail
            )));
        }
        seats.push(bot);
    }
    Ok(seats)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
