//! President in the arena: what the game is, how its players are seated,
//! and one bindings module per world version its bots may target.

pub mod since_v0_1;
pub mod since_v0_2;

use crate::games::president::{self as rules, Card, GameInfo, PresidentPlayer, View};
use crate::games::{EventLines, EventSink, Failure, Kind, NoEvents};
use crate::runner::{
    About, BotRef, Broken, Deal, GameDef, GameSetup, PlayedGame, SetupError, Strict, Table, counted, seating, strict,
};

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
    chained: true,
    illegal_rule: "each puts the bot out, in the last place (rule 10.1)",
    first_opponents: &["house:lowest", "house:random"],
    starter: "lowest",
    places: ["president", "bum"],
    check_event: crate::runner::typed_event::<crate::games::president::Event>,
    hide_event: crate::games::president::hide,
    rules: include_str!("../../../../../docs/rules/president.md"),
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
    ) -> Result<Vec<(PlayedGame, EventLines)>, SetupError> {
        let mut last: Option<Vec<u32>> = None;
        let mut out = Vec::with_capacity(seeds.len());
        for &seed in seeds {
            let mut events = EventLines::default();
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
}
