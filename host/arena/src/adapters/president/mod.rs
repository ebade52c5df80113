//! President in the arena: what the game is, how its players are seated,
//! and one bindings module per world version its bots may target.

pub mod human;
pub mod since_v0_1;
pub mod since_v0_2;

use crate::games::president::{self as rules, Card, GameInfo, PresidentPlayer, View};
use crate::games::{EventSink, Failure, Kind, NoEvents, Outcome, Seat, derive_seed};
use crate::human::Terminal;
use crate::runner::{
    About, BotRef, Broken, Deal, GameDef, GameSetup, PlayedGame, Seated, SetupError, Strict, Table, counted, seating,
    strict,
};
use serde_json::Value;

/// What President is.
pub static ABOUT: About = About {
    name: "president",
    title: "President",
    kind: Kind::Table,
    seats: rules::PLAYERS,
    worlds: &[&since_v0_1::WORLD, &since_v0_2::WORLD],
    house_bots: rules::HOUSE_BOTS,
    variants: &["standard"],
    default_rubric: include_str!("rubric.toml"),
    limits: crate::adapters::PRESIDENT_LIMITS,
    human_play: true,
    chained: true,
    illegal_rule: "each puts the bot out, in the last place (rule 10.1)",
    first_opponents: &["house:lowest", "house:random"],
};

/// President as the runner sees it.
pub struct President;

/// Under `--illegal forfeit` an illegal play forfeits (the player is out
/// with reason `illegal-move`) instead of the course's rule 10.
impl PresidentPlayer for Strict<'_, dyn PresidentPlayer> {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        self.player.start_game(info)
    }
    fn play(&mut self, view: &View) -> Result<Option<Vec<Card>>, Failure> {
        let cards = self.player.play(view)?;
        self.judge(
            cards,
            |c| view.is_legal(c.as_deref()),
            |c| match c {
                Some(cards) => format!(
                    "played {}",
                    cards.iter().map(|c| c.label(false)).collect::<Vec<_>>().join(" ")
                ),
                None => "passed on the lead".to_string(),
            },
        )
    }
}

/// A bot that could not start is put out at its first turn; the table plays on.
impl PresidentPlayer for Broken {
    fn start_game(&mut self, _info: &GameInfo) -> Result<(), Failure> {
        Err(self.0.clone())
    }
    fn play(&mut self, _view: &View) -> Result<Option<Vec<Card>>, Failure> {
        Err(self.0.clone())
    }
}

seating!(
    President,
    PresidentPlayer,
    rules::house_bot,
    [since_v0_1, since_v0_2],
    plays_on
);

/// Play one game after the finishing order `last` (for the card exchange);
/// also gives this game's finishing order.
fn play_one(
    deal: Deal<'_>,
    last: Option<Vec<u32>>,
    events: &mut dyn EventSink,
) -> Result<(PlayedGame, Vec<u32>), SetupError> {
    let mut positions = Vec::new();
    let seed = deal.seed;
    let rule = deal.setup.illegal;
    let played = Table::<President>::seat(deal)?.play(events, |players, events| {
        let mut strict = strict(players, rule);
        let mut players: Vec<&mut dyn PresidentPlayer> =
            strict.iter_mut().map(|p| -> &mut dyn PresidentPlayer { p }).collect();
        let record = rules::play_game(seed, last, &mut players, events);
        drop(players);
        positions = record.positions;
        Ok(counted(record.outcome, &strict))
    })?;
    Ok((played, positions))
}

impl GameDef for President {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn play(&self, deal: Deal<'_>, events: &mut dyn EventSink) -> Result<PlayedGame, SetupError> {
        Ok(play_one(deal, None, events)?.0)
    }

    fn play_series(
        &self,
        setup: &GameSetup<'_>,
        seeds: &[u64],
        seats: &[&BotRef],
        record: bool,
    ) -> Result<Vec<(PlayedGame, Vec<Value>)>, SetupError> {
        let mut last: Option<Vec<u32>> = None;
        let mut out = Vec::with_capacity(seeds.len());
        for &seed in seeds {
            let mut events: Vec<Value> = Vec::new();
            let deal = Deal { setup, seed, seats };
            let played = if record {
                play_one(deal, last.clone(), &mut events)
            } else {
                play_one(deal, last.clone(), &mut NoEvents)
            };
            let (game, positions) = played?;
            last = Some(positions);
            out.push((game, events));
        }
        Ok(out)
    }

    fn play_human(
        &self,
        setup: &GameSetup<'_>,
        seed: u64,
        term: Terminal,
        seat: Seat,
        opponents: &[(String, BotRef)],
    ) -> Result<Outcome, SetupError> {
        self.check_setup(setup)?;
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
            let mut unique = name.clone();
            let mut k = 2;
            while names.contains(&unique) {
                unique = format!("{name}#{k}");
                k += 1;
            }
            names.push(unique);
        }
        names.insert(seat, "You".to_string());
        term.say(&format!(
            "President at a table of {n}: you are seat {seat}. Shed your cards: the first out is President,"
        ));
        term.say("the last is Bum. This is one game (one deal); after it you may play the next game of the");
        term.say(
            "series, which starts with the Bum and the President swapping cards (rule 8.3). ? at your turn: rules.",
        );
        let mut last: Option<Vec<u32>> = None;
        let mut game = 1u64;
        loop {
            // Game k of the series is dealt from the seed (the first) or from it and k, so one --seed replays the series.
            let deal_seed = if game == 1 { seed } else { derive_seed(seed, game) };
            let mut seats = Vec::with_capacity(n);
            for s in 0..n {
                if s == seat {
                    let person = human::HumanPresident::new(term.clone(), names.clone());
                    seats.push(Seated::Native(Box::new(person) as Box<dyn PresidentPlayer>));
                    continue;
                }
                let (name, bot) = &opponents[if s < seat { s } else { s - 1 }];
                let bot = Seated::<Self>::bot(setup, deal_seed, s, bot)?;
                if let Some(failure) = bot.broken() {
                    return Err(SetupError::Opponents(format!(
                        "{name} could not start: {}",
                        failure.detail
                    )));
                }
                seats.push(bot);
            }
            if game > 1 {
                term.say(&format!("\n=== Game {game} of the series ==="));
            }
            let mut narrator = human::Narrator::new(term.clone(), seat, names.clone());
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
}
