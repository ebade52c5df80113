//! A person playing Sugargame in the terminal, against any bot.

use crate::human::{Terminal, asks_for_help, asks_to_leave};
use arena_core::Outcome;
use arena_core::{EventSink, Failure, Seat};
use arena_games::sugar as rules;
use arena_games::sugar::{
    AGENTS, Action, Agent, Direction, GROWBACK_EVERY, Grid, KILL_POINTS, PlaceInfo, SIZE, STEPS, SugarPlayer, View,
    agent_ids, check_placement, home_row, neighbour, owner_of,
};
use arena_runner::adapters::sugar::Sugar;
use arena_runner::runner::{BotRef, GameDef, GameSetup, SetupError, exactly, person_against_one};
use serde_json::Value;

/// How an agent is drawn: `[3]` for the person's, `(7)` for the opponent's.
fn agent_mark(agent: &Agent, me: Seat) -> String {
    if agent.owner == me {
        format!("[{}]", agent.id)
    } else {
        format!("({})", agent.id)
    }
}

/// Draw the grid, top row (y = 0) first: each cell shows its agent, if
/// any, over its sugar. `[n]` is one of `me`'s agents, `(n)` an opponent's.
pub fn render_grid(sugar: &Grid, agents: &[Agent], me: Seat, unicode: bool) -> String {
    let (top, middle, bottom, bar, empty) = if unicode {
        (('┌', '┬', '┐'), ('├', '┼', '┤'), ('└', '┴', '┘'), '│', "·")
    } else {
        (('+', '+', '+'), ('+', '+', '+'), ('+', '+', '+'), '|', ".")
    };
    let h = if unicode { "─────" } else { "-----" };
    let rule = |(left, cross, right): (char, char, char)| {
        let cells = vec![h; SIZE as usize].join(&cross.to_string());
        format!("     {left}{cells}{right}\n")
    };
    let mut s = String::from("  x:   0     1     2     3     4\n");
    s.push_str(&rule(top));
    for y in 0..SIZE {
        let mut marks = format!("  {y}  {bar}");
        let mut sugars = format!("     {bar}");
        for x in 0..SIZE {
            let mark = agents
                .iter()
                .find(|a| a.x == x && a.y == y)
                .map(|a| agent_mark(a, me))
                .unwrap_or_default();
            marks.push_str(&format!("{mark:^5}{bar}"));
            let n = sugar[y as usize][x as usize];
            let amount = if n == 0 { empty.to_string() } else { n.to_string() };
            sugars.push_str(&format!("{amount:>4} {bar}"));
        }
        if y == home_row(me) {
            marks.push_str("  your home row");
        } else if y == home_row(1 - me) {
            marks.push_str("  their home row");
        }
        s.push_str(&marks);
        s.push('\n');
        s.push_str(&sugars);
        s.push('\n');
        s.push_str(&rule(if y + 1 == SIZE { bottom } else { middle }));
    }
    s
}

/// The letter a direction is typed and shown with.
pub fn direction_letter(direction: Direction) -> char {
    match direction {
        Direction::Up => 'u',
        Direction::Down => 'd',
        Direction::Left => 'l',
        Direction::Right => 'r',
    }
}

fn direction_word(direction: Direction) -> &'static str {
    match direction {
        Direction::Up => "up",
        Direction::Down => "down",
        Direction::Left => "left",
        Direction::Right => "right",
    }
}

fn parse_direction(word: &str) -> Option<Direction> {
    Some(match word {
        "u" | "up" | "n" | "north" => Direction::Up,
        "d" | "down" | "s" | "south" => Direction::Down,
        "l" | "left" | "w" | "west" => Direction::Left,
        "r" | "right" | "e" | "east" => Direction::Right,
        _ => return None,
    })
}

/// What a typed move said, or what is missing from it.
#[derive(Debug, PartialEq, Eq)]
pub enum Typed {
    /// An agent id and a direction.
    Move(u8, Direction),
    /// A number but no direction.
    NoDirection(u8),
    /// A direction but no agent.
    NoAgent(Direction),
    /// Neither.
    Unreadable,
}

/// Read a move like `3u`, `3 up`, `u3`, `3n` (compass letters work too).
pub fn parse_move(text: &str) -> Typed {
    let t = text.to_ascii_lowercase();
    let digits: String = t.chars().filter(|c| c.is_ascii_digit()).collect();
    let letters: String = t.chars().filter(|c| c.is_ascii_alphabetic()).collect();
    let other = t.chars().any(|c| !c.is_ascii_alphanumeric() && !c.is_whitespace());
    if other {
        return Typed::Unreadable;
    }
    let agent = digits.parse::<u8>().ok();
    let direction = parse_direction(&letters);
    match (agent, direction, letters.is_empty(), digits.is_empty()) {
        (Some(a), Some(d), _, _) => Typed::Move(a, d),
        (Some(a), None, true, _) => Typed::NoDirection(a),
        (None, Some(d), _, true) => Typed::NoAgent(d),
        _ => Typed::Unreadable,
    }
}

/// Read a placement: five columns like `2 0 1 3 4`, `2,0,1,3,4` or `20134`;
/// an empty line places agent k on column k.
pub fn parse_placement(text: &str) -> Result<Vec<u8>, String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok((0..AGENTS).collect());
    }
    let tokens: Vec<String> = if t.chars().all(|c| c.is_ascii_digit()) {
        // `20134`: one digit per agent.
        t.chars().map(String::from).collect()
    } else {
        t.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    };
    let mut columns = Vec::with_capacity(tokens.len());
    for token in tokens {
        match token.parse::<u8>() {
            Ok(x) => columns.push(x),
            Err(_) => return Err(format!("`{token}` is not a column number 0-4")),
        }
    }
    check_placement(&columns).map(|p| p.to_vec())
}

/// Why `agent` is not one of the viewer's live agents, or `None` if it is.
pub fn agent_problem(view: &View, agent: u8) -> Option<String> {
    let mine = agent_ids(view.seat);
    if view.agents.iter().any(|a| a.id == agent && a.owner == view.seat) {
        return None;
    }
    Some(if mine.contains(&agent) {
        format!("agent {agent} is dead")
    } else if agent < 2 * AGENTS && owner_of(agent) != view.seat {
        format!("agent {agent} is not yours; yours are {}-{}", mine.start, mine.end - 1)
    } else {
        format!("there is no agent {agent}; yours are {}-{}", mine.start, mine.end - 1)
    })
}

/// Why a typed move cannot be played now, or `None` if it can.
pub fn why_illegal(view: &View, agent: u8, direction: Direction) -> Option<String> {
    let Some(a) = view.agents.iter().find(|a| a.id == agent && a.owner == view.seat) else {
        return agent_problem(view, agent);
    };
    let Some((x, y)) = neighbour(a.x, a.y, direction) else {
        return Some(format!(
            "agent {agent} is at ({}, {}): {} leaves the grid",
            a.x,
            a.y,
            direction_word(direction)
        ));
    };
    view.agent_at(x, y).map(|b| {
        let whose = if b.owner == view.seat { "your" } else { "their" };
        format!("({x}, {y}) is taken by {whose} agent {}", b.id)
    })
}

/// The legal moves, one line per agent that can move, each with the sugar
/// it collects and the kills it makes.
fn legal_lines(view: &View) -> Vec<String> {
    let mut lines: Vec<(u8, String)> = Vec::new();
    for (agent, direction, to) in view.legal_moves() {
        let mut text = format!("{}{}", agent.id, direction_letter(direction));
        let sugar = view.sugar[to.1 as usize][to.0 as usize];
        if sugar > 0 {
            text.push_str(&format!(" +{sugar}"));
        }
        match view.kills_after(agent.id, to) {
            0 => {}
            1 => text.push_str(" kills 1!"),
            k => text.push_str(&format!(" kills {k}!")),
        }
        match lines.last_mut() {
            Some((id, line)) if *id == agent.id => {
                line.push_str(", ");
                line.push_str(&text);
            }
            _ => lines.push((
                agent.id,
                format!("  agent {} at ({}, {}): {text}", agent.id, agent.x, agent.y),
            )),
        }
    }
    lines.into_iter().map(|(_, l)| l).collect()
}

const HELP: &str = "\
How to play (docs/rules/sugar.md):
  Each turn move one of your agents one cell: type its number and u, d, l or r
  (up, down, left, right; n, s, w, e work too), e.g. 2d. Moving onto a cell
  collects its sugar. Every 4 steps each cell grows back 1 sugar, up to its start level.
  An agent with two or more enemies on its four sides dies (not the one that just
  moved): +50 for the side that killed it, -50 for the side that lost it.
  Score = sugar + 50 per kill - 50 per loss. The game lasts 100 to 200 steps,
  and nobody is told how many. You cannot pass while you can move; when you
  cannot, the arena passes for you. q leaves the game.";

/// A person choosing placements and moves at the terminal.
pub struct HumanSugar {
    term: Terminal,
    opponent: String,
}

impl HumanSugar {
    /// A player reading from and writing to `term`, facing `opponent`.
    pub fn new(term: Terminal, opponent: String) -> Self {
        HumanSugar { term, opponent }
    }
}

impl SugarPlayer for HumanSugar {
    fn place(&mut self, info: &PlaceInfo) -> Result<Vec<u8>, Failure> {
        let u = self.term.unicode;
        let row = home_row(info.seat);
        let ids = agent_ids(info.seat);
        self.term.say(&format!(
            "Sugargame against {}: you are player {}, with agents {}-{} ([n] on the grid; theirs are (n)).",
            self.opponent,
            info.seat + 1,
            ids.start,
            ids.end - 1
        ));
        self.term.say(&format!(
            "Collect sugar and surround their agents. {} first. Type ? at any move for the rules.",
            if info.seat == 0 { "You move" } else { "They move" }
        ));
        self.term.say("\nThe sugar on each cell at the start:");
        self.term.print(&render_grid(&info.sugar, &[], info.seat, u));
        self.term.say(&format!(
            "Place your agents on your home row (y = {row}): type the column x of agents {} in that order;",
            info.agents.iter().map(u8::to_string).collect::<Vec<_>>().join(", ")
        ));
        self.term.say(&format!(
            "2 0 1 3 4 puts agent {} on x = 2. Enter places them on 0 1 2 3 4. Both sides place unseen.",
            ids.start
        ));
        loop {
            let Some(answer) = self.term.ask("Placement> ") else {
                return Err(self.term.leave());
            };
            if asks_to_leave(&answer) {
                return Err(self.term.leave());
            }
            if asks_for_help(&answer) {
                self.term.say(HELP);
                continue;
            }
            match parse_placement(&answer) {
                Ok(columns) => {
                    let cells: Vec<String> = info
                        .agents
                        .iter()
                        .zip(&columns)
                        .map(|(id, x)| format!("{id} on ({x}, {row})"))
                        .collect();
                    self.term.say(&format!("You place agent {}.", cells.join(", ")));
                    return Ok(columns);
                }
                Err(why) => self.term.say(&format!(
                    "Not a placement: {why}. Type five different columns 0-4, e.g. 4 3 2 1 0, or press Enter."
                )),
            }
        }
    }

    fn choose(&mut self, view: &View) -> Result<Action, Failure> {
        let u = self.term.unicode;
        let alive = |seat: Seat| view.agents.iter().filter(|a| a.owner == seat).count();
        self.term.say("");
        self.term.say(&format!(
            "Step {} of {}-{} (how many, nobody is told).",
            view.step,
            STEPS.start(),
            STEPS.end()
        ));
        self.term.say(&format!(
            "Score: you {}, {} {}. Agents alive: you {}, {} {}.",
            view.my_score,
            self.opponent,
            view.opponent_score,
            alive(view.seat),
            self.opponent,
            alive(1 - view.seat)
        ));
        self.term.print(&render_grid(&view.sugar, &view.agents, view.seat, u));
        self.term.say(&format!(
            "  [n] your agents, (n) {}'s; the number in a cell is its sugar.",
            self.opponent
        ));
        self.term
            .say("Your moves (agent and direction u/d/l/r, +sugar it collects):");
        for line in legal_lines(view) {
            self.term.say(&line);
        }
        loop {
            let Some(answer) = self.term.ask("Your move (e.g. 2d; ? for help, q to leave)> ") else {
                return Err(self.term.leave());
            };
            let lower = answer.to_ascii_lowercase();
            if asks_to_leave(&lower) {
                return Err(self.term.leave());
            }
            if asks_for_help(&lower) {
                self.term.say(HELP);
                self.term.say("Your moves now:");
                for line in legal_lines(view) {
                    self.term.say(&line);
                }
                continue;
            }
            match lower.as_str() {
                "p" | "pass" => {
                    self.term.say(
                        "You cannot pass while an agent can move (rule 4.4); the arena passes for you when none can.",
                    );
                    continue;
                }
                _ => {}
            }
            match parse_move(&lower) {
                Typed::Move(agent, direction) => match why_illegal(view, agent, direction) {
                    None => return Ok(Action::Move { agent, direction }),
                    Some(why) => self
                        .term
                        .say(&format!("Not allowed: {why}. Pick a move from the list.")),
                },
                Typed::NoDirection(agent) => match agent_problem(view, agent) {
                    Some(why) => self.term.say(&format!("Not allowed: {why}.")),
                    None => self.term.say(&format!(
                        "Add a direction: {agent}u, {agent}d, {agent}l or {agent}r (up, down, left, right)."
                    )),
                },
                Typed::NoAgent(direction) => self.term.say(&format!(
                    "Which agent? Type its number and the direction, e.g. {}{}.",
                    view.agents.iter().find(|a| a.owner == view.seat).map_or(0, |a| a.id),
                    direction_letter(direction)
                )),
                Typed::Unreadable => self
                    .term
                    .say("Type an agent number and a direction letter u/d/l/r, e.g. 2d; ? for help."),
            }
        }
    }
}

/// Tells the person what happens: the opponent's moves, kills, growback and the end.
pub struct Narrator {
    /// Where to write.
    pub term: Terminal,
    /// The person's seat.
    pub me: Seat,
    /// The opponent's name.
    pub opponent: String,
    /// The board after the last step, for the final picture.
    pub agents: Vec<Agent>,
    /// The sugar after the last step.
    pub sugar: Grid,
    /// Passes in a row, to tell why the game ended (rule 4.6).
    passes: u32,
    /// Whether an illegal move or a forfeit ended the game (already told).
    cut_short: bool,
}

impl Narrator {
    /// A narrator for the person in seat `me` facing `opponent`.
    pub fn new(term: Terminal, me: Seat, opponent: String) -> Self {
        Narrator {
            term,
            me,
            opponent,
            agents: Vec::new(),
            sugar: [[0; SIZE as usize]; SIZE as usize],
            passes: 0,
            cut_short: false,
        }
    }

    /// Why a game that nobody lost by a fault ended (rules 4.5, 4.6).
    fn why_over(&self, steps: u64) -> String {
        let left = |seat: Seat| self.agents.iter().any(|a| a.owner == seat);
        if !left(self.me) {
            "all your agents are dead".to_string()
        } else if !left(1 - self.me) {
            format!("all of {}'s agents are dead", self.opponent)
        } else if self.passes >= 2 {
            "neither side can move".to_string()
        } else {
            format!("its secret length of {steps} steps is up")
        }
    }

    fn whose(&self, id: u8) -> String {
        if owner_of(id) == self.me {
            format!("your agent {id}")
        } else {
            format!("{}'s agent {id}", self.opponent)
        }
    }

    fn step(&mut self, step: u32, seat: Seat, action: Action, collected: u8, killed: &[u8]) {
        let mine = seat == self.me;
        let who = if mine { "You".to_string() } else { self.opponent.clone() };
        self.passes = if action == Action::Pass { self.passes + 1 } else { 0 };
        let mut line = match action {
            Action::Pass if mine => {
                format!("Step {step}: none of your agents can move, so the arena passes for you.")
            }
            Action::Pass => format!("Step {step}: {who} has no legal move and passes."),
            Action::Move { agent, direction } => {
                let to = self
                    .agents
                    .iter()
                    .find(|a| a.id == agent)
                    .map(|a| format!(" to ({}, {})", a.x, a.y))
                    .unwrap_or_default();
                let verb = if mine { "move" } else { "moves" };
                let mut s = format!("Step {step}: {who} {verb} agent {agent} {}{to}", direction.name());
                match collected {
                    0 => s.push('.'),
                    n => s.push_str(&format!(", collecting {n} sugar.")),
                }
                s
            }
        };
        for &id in killed {
            let (gain, loss) = if owner_of(id) == self.me {
                (self.opponent.as_str(), "you")
            } else {
                ("you", self.opponent.as_str())
            };
            line.push_str(&format!(
                "\n  Surrounded: {} dies (+{KILL_POINTS} for {gain}, -{KILL_POINTS} for {loss}).",
                self.whose(id)
            ));
        }
        if step.is_multiple_of(GROWBACK_EVERY) {
            line.push_str("\n  The sugar grows back by 1 where it is below its start level.");
        }
        self.term.say(&line);
    }
}

impl EventSink for Narrator {
    fn enabled(&self) -> bool {
        true
    }

    fn event(&mut self, e: Value) {
        // The game writes only its own events; anything else is not narrated.
        if let Ok(event) = serde_json::from_value::<rules::Event>(e) {
            self.narrate(event);
        }
    }
}

impl Narrator {
    fn narrate(&mut self, event: rules::Event) {
        match event {
            rules::Event::Placement { agents, sugar } => {
                self.agents = agents;
                self.sugar = sugar;
                let theirs: Vec<String> = self
                    .agents
                    .iter()
                    .filter(|a| a.owner != self.me)
                    .map(|a| format!("{} on x = {}", a.id, a.x))
                    .collect();
                self.term
                    .say(&format!("{} placed agent {}.", self.opponent, theirs.join(", ")));
            }
            rules::Event::Step {
                step,
                seat,
                action,
                collected,
                killed,
                agents,
                sugar,
                ..
            } => {
                self.agents = agents;
                self.sugar = sugar;
                self.step(step, seat, action, collected, &killed);
            }
            rules::Event::Illegal { seat, why, .. } => {
                self.cut_short = true;
                if seat != self.me {
                    self.term.say(&format!(
                        "{} made an illegal move ({}) and loses the game (rule 4.3).",
                        self.opponent,
                        why.words()
                    ));
                }
            }
            rules::Event::Forfeit(f) => {
                self.cut_short = true;
                let who = if f.seat == self.me {
                    "You forfeit".to_string()
                } else {
                    format!("{} forfeits", self.opponent)
                };
                self.term.say(&format!("{who}: {}.", f.detail));
            }
            rules::Event::GameEnd {
                scores,
                winner,
                steps,
                collected,
                kills,
            } => self.game_end(scores, winner, steps, collected, kills),
            rules::Event::GameStart { .. } => {}
        }
    }

    fn game_end(&mut self, scores: [i64; 2], winner: Option<Seat>, steps: u32, collected: [i64; 2], kills: [i64; 2]) {
        let me = self.me;
        let (mine, theirs) = (scores[me], scores[1 - me]);
        if self.term.has_left() {
            self.term.say(&format!("{} wins, as you left.", self.opponent));
            return;
        }
        if !self.agents.is_empty() {
            self.term.say("\nThe final board:");
            self.term
                .print(&render_grid(&self.sugar, &self.agents, me, self.term.unicode));
        }
        if !self.cut_short {
            self.term
                .say(&format!("The game ends: {}.", self.why_over(u64::from(steps))));
        }
        let agents = |n: i64| if n == 1 { "agent" } else { "agents" };
        self.term.say(&format!(
            "After {steps} steps: you collected {} sugar and killed {} {}; {} collected {} and killed {}.",
            collected[me],
            kills[me],
            agents(kills[me]),
            self.opponent,
            collected[1 - me],
            kills[1 - me]
        ));
        // A game lost by a fault is lost whatever the scores (rule 6.2).
        let line = match (winner, self.cut_short) {
            (Some(w), true) if w == me => format!(
                "You win: {} lost by the rules above. The score was you {mine}, {} {theirs}.",
                self.opponent, self.opponent
            ),
            (Some(w), false) if w == me => format!("You win, {mine} to {theirs}! Well played."),
            (Some(_), true) => format!(
                "{} wins, as you lost by the rules above. The score was you {mine}, {} {theirs}.",
                self.opponent, self.opponent
            ),
            (Some(_), false) => format!("{} wins, {theirs} to {mine}. Better luck next time!", self.opponent),
            (None, _) => format!("A draw, {mine} to {theirs}."),
        };
        self.term.say(&format!("\n{line}"));
    }
}

/// Play one game of Sugar with a person at `term` in seat `seat` against
/// `opponents` (name, bot): the person's terminal, the game's narrator,
/// and the bots seated as in any match.
pub fn play(
    setup: &GameSetup<'_>,
    seed: u64,
    term: Terminal,
    seat: Seat,
    opponents: &[(String, BotRef)],
) -> Result<Outcome, SetupError> {
    let game = &Sugar;
    game.check_setup(setup)?;
    let (table, name) =
        person_against_one::<Sugar>(setup, seed, seat, opponents, ("Sugargame", "house:greedy"), |name| {
            Box::new(HumanSugar::new(term.clone(), name.to_string())) as Box<dyn SugarPlayer>
        })?;
    let mut narrator = Narrator::new(term, seat, name);
    let played = table.play(&mut narrator, |players, events| {
        let [a, b] = exactly(game.title(), players)?;
        Ok(rules::play_game(seed, [a, b], events))
    })?;
    Ok(played.outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_moves_read_as_agent_and_direction() {
        assert_eq!(parse_move("3u"), Typed::Move(3, Direction::Up));
        assert_eq!(parse_move("3 down"), Typed::Move(3, Direction::Down));
        assert_eq!(parse_move("w7"), Typed::Move(7, Direction::Left));
        assert_eq!(parse_move("2E"), Typed::Move(2, Direction::Right));
        assert_eq!(parse_move("4"), Typed::NoDirection(4));
        assert_eq!(parse_move("up"), Typed::NoAgent(Direction::Up));
        assert_eq!(parse_move("3x"), Typed::Unreadable);
        assert_eq!(parse_move("3u!"), Typed::Unreadable);
        assert_eq!(parse_move("99999999999999u"), Typed::Unreadable);
    }

    #[test]
    fn placements_are_five_different_columns_or_the_default() {
        assert_eq!(parse_placement(""), Ok(vec![0, 1, 2, 3, 4]));
        assert_eq!(parse_placement("2 0 1 3 4"), Ok(vec![2, 0, 1, 3, 4]));
        assert_eq!(parse_placement("4,3,2,1,0"), Ok(vec![4, 3, 2, 1, 0]));
        assert_eq!(parse_placement("20134"), Ok(vec![2, 0, 1, 3, 4]));
        assert_eq!(parse_placement("0 0 1 2 3"), Err("two agents placed on x = 0".into()));
        assert_eq!(
            parse_placement("0 1 2 3 5"),
            Err("cell x = 5 is off the grid (0-4)".into())
        );
        assert_eq!(parse_placement("0 1 2"), Err("a placement lists 5 cells, got 3".into()));
        assert_eq!(parse_placement("a b"), Err("`a` is not a column number 0-4".into()));
        assert!(parse_placement("0 1 2 3 999").is_err());
    }

    #[test]
    fn an_illegal_move_is_refused_with_the_rule_it_breaks() {
        let agent = |id, owner, x, y| Agent { id, owner, x, y };
        let view = View {
            seat: 1,
            step: 2,
            sugar: [[0; 5]; 5],
            agents: vec![agent(0, 0, 2, 3), agent(5, 1, 2, 4), agent(6, 1, 3, 4)],
            my_score: 0,
            opponent_score: 0,
            last_actions: [None, None],
        };
        assert_eq!(why_illegal(&view, 5, Direction::Left), None);
        assert_eq!(why_illegal(&view, 7, Direction::Up).as_deref(), Some("agent 7 is dead"));
        assert_eq!(
            why_illegal(&view, 0, Direction::Up).as_deref(),
            Some("agent 0 is not yours; yours are 5-9")
        );
        assert_eq!(
            why_illegal(&view, 12, Direction::Up).as_deref(),
            Some("there is no agent 12; yours are 5-9")
        );
        assert_eq!(
            why_illegal(&view, 5, Direction::Down).as_deref(),
            Some("agent 5 is at (2, 4): down leaves the grid")
        );
        assert_eq!(
            why_illegal(&view, 5, Direction::Up).as_deref(),
            Some("(2, 3) is taken by their agent 0")
        );
        assert_eq!(
            why_illegal(&view, 5, Direction::Right).as_deref(),
            Some("(3, 4) is taken by your agent 6")
        );
    }

    #[test]
    fn the_grid_marks_each_side_and_falls_back_to_ascii() {
        let agents = [
            Agent {
                id: 3,
                owner: 0,
                x: 1,
                y: 0,
            },
            Agent {
                id: 8,
                owner: 1,
                x: 1,
                y: 1,
            },
        ];
        let mut sugar = [[0; 5]; 5];
        sugar[1][2] = 4;
        let ascii = render_grid(&sugar, &agents, 0, false);
        assert!(
            ascii.contains("  0  |     | [3] |     |     |     |  your home row"),
            "{ascii}"
        );
        assert!(ascii.contains("  1  |     | (8) |     |     |     |"), "{ascii}");
        assert!(ascii.contains("     |   . |   . |   4 |   . |   . |"), "{ascii}");
        assert!(ascii.is_ascii());
        let theirs = render_grid(&sugar, &agents, 1, true);
        assert!(
            theirs.contains("│ (3) │") && theirs.contains("│ [8] │") && theirs.contains('·'),
            "{theirs}"
        );
    }
}
