//! Sugargame in the arena: what the game is, how its players are seated,
//! and one bindings module per world version its bots may target.

pub mod since_v0_1;

use crate::games::sugar::{self as rules, SugarPlayer};
use crate::games::{EventSink, Kind};
use crate::runner::{About, Deal, GameDef, PlayedGame, SetupError, Table, exactly, seating};

/// What Sugargame is.
pub static ABOUT: About = About {
    name: "sugar",
    title: "Sugargame",
    kind: Kind::Duel,
    seats: 2..=2,
    world: &since_v0_1::WORLD,
    house_bots: rules::HOUSE_BOTS,
    variants: &["standard"],
    default_rubric: include_str!("rubric.toml"),
    human_play: false,
    chained: false,
};

/// Sugargame as the runner sees it.
pub struct Sugar;

seating!(Sugar, SugarPlayer, rules::house_bot, since_v0_1::Bindings);

impl GameDef for Sugar {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn play(&self, deal: Deal<'_>, events: &mut dyn EventSink) -> Result<PlayedGame, SetupError> {
        Table::<Self>::seat(deal)?.play(events, |players, events| {
            let [a, b] = exactly(self.title(), players)?;
            Ok(rules::play_game(deal.seed, [a, b], events))
        })
    }
}
