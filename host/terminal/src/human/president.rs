//! A person playing President in the terminal, at a table of 1 to 5 bots.//!
//! By concern: this file holds the person as a player and the game's
//! `play`; `words.rs` writes cards, plays and titles, `typed.rs` reads what
//! the person types, `narrator.rs` tells what happens at the table.

mod narrator;
mod typed;
mod words;

pub use narrator::Narrator;
pub use typed::{Answer, Wanted, choose_cards, parse_answer, parse_card};
pub use words::{beat_and_burn, cards_text, hand_text, play_words, plays_text, title_text, what_beats};

use crate::human::Terminal;
use arena_core::{Failure, Seat};
use arena_core::{Outcome, derive_seed};
use arena_games::president as rules;
use arena_games::president::{Card, GameInfo, Play, PresidentPlayer, TWO, View, title};
use arena_runner::adapters::president::President;
use arena_runner::runner::{BotRef, GameDef, GameSetup, Seated, SetupError, Table};
use arena_runner::text::ordinal;

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
        let unique = arena_runner::runner::entrants::unique_name_by(name, |n| names.iter().any(|x| x == n));
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
mod tests;
