//! ConnectFwar in the arena: what the game is, how its player is seated,
//! and one bindings module per world version its bots may target.

pub mod since_v0_1;
pub mod since_v0_2;

use crate::games::connect_fwar::{self as rules, GameInfo, Player, View};
use crate::games::{EventSink, Failure, Kind};
use crate::runner::{About, Deal, GameDef, PlayedGame, SetupError, Strict, Table, counted, exactly, seating, strict};

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
    chained: false,
    illegal_rule: "each discards the card (rule 3.3)",
    first_opponents: &[],
    starter: "basic",
    places: ["first", "last"],
    check_event: crate::runner::typed_event::<crate::games::connect_fwar::Event>,
    hide_event: crate::games::connect_fwar::hide,
    rules: include_str!("../../../../../docs/rules/connect-fwar.md"),
};

/// Under `--illegal forfeit` a column where the card does not fit forfeits
/// instead of discarding the card (rule 3.3).
impl Player for Strict<'_, dyn Player> {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        self.player.start_game(info)
    }
    fn choose_column(&mut self, view: &View) -> Result<i32, Failure> {
        let column = self.player.choose_column(view)?;
        // Under the course's rule a discard is a legal choice (rule 3.3):
        // nothing to count.
        if self.rule == crate::games::IllegalMoves::Course {
            return Ok(column);
        }
        self.judge(
            column,
            |&c| usize::try_from(c).is_ok_and(|c| view.fitting_columns().contains(&c)),
            |c| format!("named column {c} for the {}", view.card.label(false)),
        )
    }
}

/// ConnectFwar as the runner sees it.
pub struct ConnectFwar;

seating!(ConnectFwar, Player, rules::house_bot, [since_v0_1, since_v0_2]);

impl GameDef for ConnectFwar {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn play(&self, deal: Deal<'_>, events: &mut dyn EventSink) -> Result<PlayedGame, SetupError> {
        Table::<Self>::seat(deal)?.play(events, |players, events| {
            let mut players = strict(players, deal.setup.illegal);
            let [player] = exactly(self.title(), players.iter_mut().collect())?;
            let outcome = rules::play_game(deal.seed, player, events);
            Ok(counted(outcome, &players))
        })
    }
}
