//! The narrator of a President table: every play, pass, burn and finish,
//! the exchange, and the finishing order, told to the person.

use super::words::{cards_text, play_words, title_text};
use crate::human::Terminal;
use arena_core::{EventSink, Seat};
use arena_games::president::{Card, Event, Meets, WILD, classify, title};
use arena_runner::text::ordinal;
use serde_json::Value;

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
        let Ok(event) = serde_json::from_value::<Event>(e) else {
            return;
        };
        if self.quiet() && !matches!(event, Event::GameEnd { .. }) {
            return;
        }
        match event {
            Event::GameStart {
                hands,
                last_positions,
                exchange,
                leader,
                ..
            } => self.game_start(&hands, last_positions.as_deref(), &exchange, leader),
            Event::Turn {
                seat,
                cards,
                meets,
                positions,
                state,
                ..
            } => self.turn(seat, cards, meets, positions, state.is_none()),
            Event::Illegal { seat, why, .. } => {
                self.term.say(&format!(
                    "{} made an illegal play ({}): out, in the last free place (rule 10.1).",
                    self.name(seat),
                    why.words()
                ));
            }
            Event::Forfeit(f) if f.seat == self.me => self.term.say(&format!(
                "You are out ({}), in the last free place; the bots play on.",
                f.detail
            )),
            Event::Forfeit(f) => self.term.say(&format!(
                "{} fails ({}): out, in the last free place (rule 10.2).",
                self.name(f.seat),
                f.detail
            )),
            Event::GameEnd { positions, .. } => self.game_end(&positions),
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
