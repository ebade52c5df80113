//! A person fencing in the terminal, against any bot.

use crate::human::{Terminal, asks_for_help, asks_to_leave};
use arena_core::Outcome;
use arena_core::{EventSink, Failure, Seat};
use arena_games::en_garde as rules;
use arena_games::en_garde::{
    Direction, Event, Fencer, GameInfo, Illegal, Move, POINTS_TO_WIN, RoundEnd, RoundInfo, STRIP_LENGTH, View,
    check_move,
};
use arena_runner::adapters::en_garde::EnGarde;
use arena_runner::runner::{BotRef, GameDef, GameSetup, SetupError, exactly, person_against_one};
use serde_json::Value;

/// Draw the strip with both fencers: `Y` for you, `O` for the opponent.
pub fn render_strip(me: u8, opponent: u8) -> String {
    let mut labels = String::new();
    for i in (0..STRIP_LENGTH).step_by(5) {
        let at = usize::from(i) * 2;
        while labels.len() < at {
            labels.push(' ');
        }
        labels.push_str(&i.to_string());
    }
    let cells: Vec<&str> = (0..STRIP_LENGTH)
        .map(|i| {
            if i == me {
                "Y"
            } else if i == opponent {
                "O"
            } else {
                "."
            }
        })
        .collect();
    format!("  {labels}\n  {}\n", cells.join(" "))
}

/// Read a move like `3f`, `3 b`, `f3` or `2 forward`.
pub fn parse_move(text: &str) -> Option<Move> {
    let t = text.to_ascii_lowercase();
    let digits: String = t.chars().filter(|c| c.is_ascii_digit()).collect();
    let letters: String = t.chars().filter(|c| c.is_ascii_alphabetic()).collect();
    let card: u8 = digits.parse().ok()?;
    let direction = match letters.as_str() {
        "f" | "fw" | "fwd" | "forward" | "forwards" => Direction::Forward,
        "b" | "bw" | "back" | "backward" | "backwards" => Direction::Backward,
        _ => return None,
    };
    Some(Move { card, direction })
}

fn move_text(mv: Move) -> String {
    let dir = match mv.direction {
        Direction::Forward => "f",
        Direction::Backward => "b",
    };
    format!("{}{dir}", mv.card)
}

/// A person choosing moves at the terminal.
pub struct HumanFencer {
    term: Terminal,
}

impl HumanFencer {
    /// A fencer reading from and writing to `term`.
    pub fn new(term: Terminal) -> Self {
        HumanFencer { term }
    }
}

impl Fencer for HumanFencer {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        self.term.say(&format!(
            "En Garde ({} variant): first to {POINTS_TO_WIN} points. You are Y, on the {} end of the strip.",
            info.variant.name(),
            if info.seat == 0 { "left" } else { "right" }
        ));
        self.term
            .say("Play a card to move exactly that many spaces; land on your opponent to hit.");
        Ok(())
    }

    fn start_round(&mut self, _: &RoundInfo) -> Result<(), Failure> {
        Ok(())
    }

    fn choose_move(&mut self, view: &View) -> Result<Move, Failure> {
        self.term.say("");
        self.term.print(&render_strip(view.my_position, view.opponent_position));
        let hand: Vec<String> = view.hand.iter().map(u8::to_string).collect();
        self.term.say(&format!(
            "Score: you {}, opponent {}. Cards left in the deck: {}. Distance: {}. Opponent holds {} cards.",
            view.my_score,
            view.opponent_score,
            view.deck_remaining,
            view.my_position.abs_diff(view.opponent_position),
            view.opponent_hand_size
        ));
        self.term.say(&format!("Your hand: {}", hand.join(" ")));
        let legal: Vec<String> = view.legal_moves().into_iter().map(move_text).collect();
        loop {
            let Some(answer) = self
                .term
                .ask("Your move (card and f/b, e.g. 3f; ? for help, q to leave)> ")
            else {
                return Err(self.term.leave());
            };
            if asks_to_leave(&answer) {
                return Err(self.term.leave());
            }
            if asks_for_help(&answer) {
                self.term.say(HELP);
                self.term.say(&format!("Legal moves now: {}", legal.join(" ")));
                continue;
            }
            let Some(mv) = parse_move(&answer) else {
                self.term
                    .say("Type a card value and a direction: 3f moves 3 forward, 2b moves 2 back.");
                continue;
            };
            match check_move(view.seat, &view.hand, view.my_position, view.opponent_position, mv) {
                Ok(_) => return Ok(mv),
                Err(why) => {
                    let reason = match why {
                        Illegal::CardNotInHand => format!("you hold no {}", mv.card),
                        Illegal::LeavesStrip => "that would leave the strip".to_string(),
                        Illegal::PassesOpponent => "you may not pass your opponent".to_string(),
                    };
                    self.term
                        .say(&format!("Not allowed: {reason}. Legal moves: {}", legal.join(" ")));
                }
            }
        }
    }
}

const HELP: &str = "\
How to play (docs/rules/en-garde.md):
  The strip has spaces 0 to 22; you and your opponent start at opposite ends.
  Each turn play one card of your hand and move exactly its value, forward (f,
  towards your opponent) or back (b), e.g. 3f. You may not leave the strip or pass
  your opponent. Landing exactly on your opponent is a hit: you score the round.
  When the deck runs out, whoever advanced farther from their start scores.
  In the standard variant a defender holding a card of the attack's value parries
  it. An illegal move loses the round. First to 5 points wins. q leaves the game.";

/// Tells the person what happens: the opponent's moves, hits, points and the end.
pub struct Narrator {
    /// Where to write.
    pub term: Terminal,
    /// The person's seat.
    pub me: Seat,
    /// The opponent's name.
    pub opponent: String,
}

impl Narrator {
    fn who(&self, seat: Seat) -> String {
        if seat == self.me {
            "You".to_string()
        } else {
            self.opponent.clone()
        }
    }
}

impl EventSink for Narrator {
    fn enabled(&self) -> bool {
        true
    }

    fn event(&mut self, e: Value) {
        // The game writes only its own events; anything else is not narrated.
        if let Ok(event) = serde_json::from_value::<Event>(e) {
            self.narrate(event);
        }
    }
}

impl Narrator {
    /// Tell the person one event. Long because it has one arm per event
    /// of the game's enum, each the sentence a person reads for it.
    fn narrate(&mut self, event: Event) {
        let me = self.me;
        match event {
            Event::RoundStart {
                round, first_to_move, ..
            } => {
                self.term.say(&format!(
                    "\n=== Round {round}: {} move{} first ===",
                    self.who(first_to_move),
                    if first_to_move == me { "" } else { "s" }
                ));
            }
            Event::Move {
                seat,
                card,
                direction,
                parried,
                positions,
                ..
            } => {
                let dir = direction.name();
                let to = positions[seat];
                let line = match (seat == me, parried) {
                    (false, true) => format!("{} attacks with a {card} - and you parry it!", self.opponent),
                    (false, false) => format!("{} plays {card} {dir}, to space {to}.", self.opponent),
                    (true, true) => format!("Your attack is parried by {}.", self.opponent),
                    // The person's own move, as they will read the opponent's:
                    // what was played and where it landed.
                    (true, false) => format!("You play {card} {dir}, to space {to}."),
                };
                self.term.say(&line);
            }
            Event::LastChance {
                seat, card, parried, ..
            } => {
                let parried = if parried { ", and it is parried" } else { "" };
                let who = if seat == me {
                    "you attack".to_string()
                } else {
                    format!("{} attacks", self.opponent)
                };
                self.term
                    .say(&format!("The deck is out: {who} with a last-chance {card}{parried}."));
            }
            Event::RoundEnd { end, scores, .. } => {
                let what = match end {
                    RoundEnd::Hit { .. } => "a hit".to_string(),
                    RoundEnd::LastChanceHit { .. } => "a last-chance hit".to_string(),
                    RoundEnd::IllegalMove { .. } => "an illegal move".to_string(),
                    RoundEnd::NoLegalMove { .. } => "no legal move left".to_string(),
                    RoundEnd::DeckOut { advanced, .. } => format!(
                        "the deck ran out; you advanced {} spaces, {} advanced {}",
                        advanced[me],
                        self.opponent,
                        advanced[1 - me]
                    ),
                };
                let line = match end.scorer() {
                    Some(s) if s == me => format!("You score: {what}."),
                    Some(_) => format!("{} scores: {what}.", self.opponent),
                    None => format!("No point: {what}."),
                };
                self.term.say(&format!(
                    "{line} Score: you {}, {} {}.",
                    scores[me],
                    self.opponent,
                    scores[1 - me]
                ));
            }
            // The person who leaves is told so once, by the command.
            Event::Forfeit(f) if f.seat == me && self.term.has_left() => {}
            Event::Forfeit(f) => {
                let who = self.who(f.seat);
                self.term.say(&format!(
                    "{who} forfeit{}: {}.",
                    if who == "You" { "" } else { "s" },
                    f.detail
                ));
            }
            Event::GameEnd { winner, scores, .. } => {
                let (mine, theirs) = (scores[me], scores[1 - me]);
                let line = match winner {
                    Some(w) if w == me => format!("You win {mine}-{theirs}! Congratulations, well fenced!"),
                    Some(_) => format!("{} wins {theirs}-{mine}. Better luck next time!", self.opponent),
                    None => format!("A draw, {mine}-{theirs}."),
                };
                self.term.say(&format!("\n{line}"));
            }
            Event::GameStart { .. } => {}
        }
    }
}

/// Play one game of EnGarde with a person at `term` in seat `seat` against
/// `opponents` (name, bot): the person's terminal, the game's narrator,
/// and the bots seated as in any match.
pub fn play(
    setup: &GameSetup<'_>,
    seed: u64,
    term: Terminal,
    seat: Seat,
    opponents: &[(String, BotRef)],
) -> Result<Outcome, SetupError> {
    let game = &EnGarde;
    let config = EnGarde::config(setup)?;
    let (table, name) =
        person_against_one::<EnGarde>(setup, seed, seat, opponents, ("En Garde", "house:aggressive"), |_| {
            Box::new(HumanFencer::new(term.clone())) as Box<dyn Fencer>
        })?;
    let mut narrator = Narrator {
        term,
        me: seat,
        opponent: name,
    };
    let played = table.play(&mut narrator, |players, events| {
        let [a, b] = exactly(game.title(), players)?;
        Ok(rules::play_game(config, seed, [a, b], events))
    })?;
    Ok(played.outcome)
}
