//! ConnectFwar in the arena: what the game is, how its player is seated,
//! and one bindings module per world version its bots may target.

pub mod human;
pub mod since_v0_1;
pub mod since_v0_2;

use crate::games::connect_fwar::{self as rules, Player};
use crate::games::{EventSink, Kind, Outcome, Seat};
use crate::human::Terminal;
use crate::runner::{About, BotRef, Deal, GameDef, GameSetup, PlayedGame, Seated, SetupError, Table, exactly, seating};

/// What ConnectFwar is.
pub static ABOUT: About = About {
    name: "connect-fwar",
    title: "ConnectFwar",
    kind: Kind::Solitaire,
    seats: 1..=1,
    worlds: &[&since_v0_1::WORLD, &since_v0_2::WORLD],
    house_bots: rules::HOUSE_BOTS,
    variants: &["standard"],
    default_rubric: include_str!("rubric.toml"),
    limits: crate::adapters::TURN_LIMITS,
    human_play: true,
    chained: false,
};

/// ConnectFwar as the runner sees it.
pub struct ConnectFwar;

seating!(ConnectFwar, Player, rules::house_bot, [since_v0_1, since_v0_2]);

impl GameDef for ConnectFwar {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn play(&self, deal: Deal<'_>, events: &mut dyn EventSink) -> Result<PlayedGame, SetupError> {
        Table::<Self>::seat(deal)?.play(events, |players, events| {
            let [player] = exactly(self.title(), players)?;
            Ok(rules::play_game(deal.seed, player, events))
        })
    }

    fn play_human(
        &self,
        _setup: &GameSetup<'_>,
        seed: u64,
        term: Terminal,
        _seat: Seat,
        opponents: &[(String, BotRef)],
    ) -> Result<Outcome, SetupError> {
        if !opponents.is_empty() {
            return Err(SetupError::Opponents("ConnectFwar is played alone: drop --vs".into()));
        }
        let mut narrator = human::Narrator { term: term.clone() };
        let person = Seated::Native(Box::new(human::HumanPlayer::new(term)) as Box<dyn Player>);
        let played = Table::<Self>::of(vec![person]).play(&mut narrator, |players, events| {
            let [player] = exactly(self.title(), players)?;
            Ok(rules::play_game(seed, player, events))
        })?;
        Ok(played.outcome)
    }
}
