//! A person playing ConnectFwar in the terminal.

use crate::human::{Terminal, asks_for_help, asks_to_leave};
use arena_core::Failure;
use arena_core::{Outcome, Seat};
use arena_games::connect_fwar as rules;
use arena_games::connect_fwar::{Board, COLUMNS, GameInfo, HEIGHT, Player, View};
use arena_runner::adapters::connect_fwar::ConnectFwar;
use arena_runner::runner::{BotRef, GameDef, GameSetup, Seated, SetupError, Table, exactly};

/// Draw the board, top row first.
pub fn render_board(board: &Board, unicode: bool) -> String {
    let mut s = String::from("      0     1     2     3\n");
    for row in (0..HEIGHT).rev() {
        s.push_str("   |");
        for column in 0..COLUMNS {
            let cell = board.cell(column, row).map(|c| c.label(unicode)).unwrap_or_default();
            s.push_str(&format!("{cell:^5}|"));
        }
        s.push('\n');
    }
    s.push_str("   +-----+-----+-----+-----+\n");
    s
}

const HELP: &str = "\
How to play (docs/rules/connect-fwar.md):
  Each turn you draw a card and put it on one of four columns (0-3), or discard it (d).
  A card goes on a column only if its rank is at least the top card's (any card fits
  an empty column). Ace is 1, Jack 11, Queen 12, King 13.
  Make a connected four: a full row, column or diagonal in which every neighbouring
  pair shares a suit or a rank, or differs by one in rank. The game ends there and
  scores the cards left in the deck (48 is perfect); an empty deck scores 0.
  q leaves the game.";

/// A person choosing columns at the terminal.
pub struct HumanPlayer {
    term: Terminal,
}

impl HumanPlayer {
    /// A player reading from and writing to `term`.
    pub fn new(term: Terminal) -> Self {
        HumanPlayer { term }
    }
}

impl Player for HumanPlayer {
    fn start_game(&mut self, _: &GameInfo) -> Result<(), Failure> {
        self.term
            .say("ConnectFwar: place each card you draw; make a row, column or diagonal of four");
        self.term
            .say("where neighbours share a suit or a rank, or differ by one. The sooner, the better.");
        self.term
            .say("A card goes on a column only if its rank is at least the top card's.");
        Ok(())
    }

    fn choose_column(&mut self, view: &View) -> Result<i32, Failure> {
        let u = self.term.unicode;
        self.term.say("");
        self.term.print(&render_board(&view.board, u));
        let fits = view.fitting_columns();
        let fits_text = if fits.is_empty() {
            "it fits nowhere: type d to discard it".to_string()
        } else {
            format!(
                "it fits on {}",
                fits.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ")
            )
        };
        self.term.say(&format!(
            "You drew {}; {}. Cards left in the deck: {}, discarded: {}.",
            view.card.label(u),
            fits_text,
            view.deck_remaining,
            view.discard.len()
        ));
        loop {
            let Some(answer) = self.term.ask("Column (0-3, or d to discard; ? for help, q to leave)> ") else {
                return Err(self.term.leave());
            };
            let answer = answer.to_ascii_lowercase();
            if answer == "d" || answer == "discard" {
                return Ok(-1);
            }
            if asks_to_leave(&answer) {
                return Err(self.term.leave());
            }
            if asks_for_help(&answer) {
                self.term.say(HELP);
                self.term
                    .say(&format!("Now: you drew {}; {fits_text}.", view.card.label(u)));
                continue;
            }
            match answer.parse::<i64>() {
                Ok(c) if (0..COLUMNS as i64).contains(&c) => {
                    let c = c as usize;
                    if view.board.fits(c, view.card) {
                        return Ok(c as i32);
                    }
                    let why = match view.board.columns[c].last() {
                        Some(top) if view.board.columns[c].len() < HEIGHT => {
                            format!("{} is lower than the top card {}", view.card.label(u), top.label(u))
                        }
                        _ => format!("column {c} is full"),
                    };
                    self.term.say(&format!(
                        "It does not fit there: {why}. Pick another column, or d to discard."
                    ));
                }
                Ok(_) => self.term.say("There are four columns, 0 to 3."),
                Err(_) => self.term.say("Type a column number 0-3, or d to discard the card."),
            }
        }
    }
}

/// Tells the person how the game ended.
pub struct Narrator {
    /// Where to write.
    pub term: Terminal,
}

impl arena_core::EventSink for Narrator {
    fn enabled(&self) -> bool {
        true
    }

    fn event(&mut self, e: serde_json::Value) {
        // The game writes only its own events; anything else is not narrated.
        let Ok(event) = serde_json::from_value::<rules::Event>(e) else {
            return;
        };
        match event {
            rules::Event::Draw { placed: None, .. } => self.term.say("Discarded."),
            rules::Event::Draw {
                placed: Some(column),
                connected,
                ..
            } => {
                self.term.say(&format!("Placed on column {column}."));
                if let Some(line) = connected {
                    let which = match line {
                        rules::Line::Row { index } => format!("row {index}"),
                        rules::Line::Column { index } => format!("column {index}"),
                        rules::Line::Diagonal => "the diagonal".to_string(),
                        rules::Line::AntiDiagonal => "the other diagonal".to_string(),
                    };
                    self.term.say(&format!("\nConnected four in {which}!"));
                }
            }
            rules::Event::GameEnd { score, .. } if score > 0 => self.term.say(&format!(
                "You score {score}: the cards left in the deck (48 is perfect). Well played!"
            )),
            rules::Event::GameEnd { .. } => self
                .term
                .say("The deck ran out before a connected four: score 0. Try again!"),
            rules::Event::GameStart { .. } | rules::Event::Forfeit(_) => {}
        }
    }
}

/// Play one game of ConnectFwar with a person at `term` in seat `seat` against
/// `opponents` (name, bot): the person's terminal, the game's narrator,
/// and the bots seated as in any match.
pub fn play(
    _setup: &GameSetup<'_>,
    seed: u64,
    term: Terminal,
    _seat: Seat,
    opponents: &[(String, BotRef)],
) -> Result<Outcome, SetupError> {
    let game = &ConnectFwar;
    if !opponents.is_empty() {
        return Err(SetupError::Opponents("ConnectFwar is played alone: drop --vs".into()));
    }
    let mut narrator = Narrator { term: term.clone() };
    let person = Seated::Native(Box::new(HumanPlayer::new(term)) as Box<dyn Player>);
    let played = Table::<ConnectFwar>::of(vec![person]).play(&mut narrator, |players, events| {
        let [player] = exactly(game.title(), players)?;
        Ok(rules::play_game(seed, player, events))
    })?;
    Ok(played.outcome)
}
