//! Sugargame in the arena: what the game is, how its players are seated,
//! and one bindings module per world version its bots may target.

pub mod since_v0_1;
pub mod since_v0_2;

use crate::games::sugar::{self as rules, Action, PlaceInfo, SugarPlayer, View};
use crate::games::{EventSink, Failure, Kind};
use crate::runner::{About, Deal, GameDef, PlayedGame, SetupError, Strict, Table, counted, exactly, seating, strict};
use crate::sandbox::Limits;

/// Fuel per move: the course's 3 seconds per move, at the 14.7 billion fuel
/// per second a compute-bound Rust bot burns on the reference machine
/// (`cargo bench -p arena --bench games`; docs/rules/sugar.md).
pub const MOVE_FUEL: u64 = 44_000_000_000;

/// What Sugargame is.
pub static ABOUT: About = About {
    name: "sugar",
    title: "Sugargame",
    kind: Kind::Duel,
    seats: 2..=2,
    worlds: &[&since_v0_1::WORLD, &since_v0_2::WORLD],
    house_bots: rules::HOUSE_BOTS,
    variants: &["standard"],
    default_rubric: include_str!("rubric.toml"),
    limits: Limits {
        fuel: MOVE_FUEL,
        bank: MOVE_FUEL,
        start_fuel: MOVE_FUEL,
        // 88G at the worst measured rate takes 57 s: four times that.
        timeout: std::time::Duration::from_secs(240),
        ..Limits::DEFAULT
    },
    chained: false,
    illegal_rule: "the first one loses the game (rule 4.3)",
    first_opponents: &["house:greedy"],
    starter: "greedy",
    places: ["first", "last"],
    check_event: crate::runner::typed_event::<crate::games::sugar::Event>,
    hide_event: crate::games::sugar::hide,
    rules: include_str!("../../../../../docs/rules/sugar.md"),
};

/// Under `--illegal forfeit` an illegal step (rules 4.3, 4.4) forfeits
/// instead of losing; the placement is judged by the rules as always (rule 2).
impl SugarPlayer for Strict<'_, dyn SugarPlayer> {
    fn place(&mut self, info: &PlaceInfo) -> Result<Vec<u8>, Failure> {
        self.player.place(info)
    }
    fn choose(&mut self, view: &View) -> Result<Action, Failure> {
        let action = self.player.choose(view)?;
        self.judge(
            action,
            |a| match *a {
                Action::Pass => view.legal_moves().is_empty(),
                Action::Move { agent, direction } => view
                    .legal_moves()
                    .iter()
                    .any(|(a, d, _)| a.id == agent && *d == direction),
            },
            |a| format!("played {a:?}"),
        )
    }
}

/// Sugargame as the runner sees it.
pub struct Sugar;

seating!(Sugar, SugarPlayer, rules::house_bot, [since_v0_1, since_v0_2]);

impl GameDef for Sugar {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn play(&self, deal: Deal<'_>, events: &mut dyn EventSink) -> Result<PlayedGame, SetupError> {
        Table::<Self>::seat(deal)?.play(events, |players, events| {
            let mut players = strict(players, deal.setup.illegal);
            let [a, b] = exactly(self.title(), players.iter_mut().collect())?;
            let outcome = rules::play_game(deal.seed, [a, b], events);
            Ok(counted(outcome, &players))
        })
    }
}
