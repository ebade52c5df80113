//! En Garde in the arena: what the game is, how its players are seated, and
//! one bindings module per world version its bots may target.

pub mod since_v0_1;
pub mod since_v0_2;

use crate::games::en_garde::{self as rules, Fencer, GameInfo, Move, RoundInfo, Variant, View};
use crate::games::{EventSink, Failure, Kind};
use crate::runner::{
    About, Deal, GameDef, GameSetup, PlayedGame, SetupError, Strict, Table, counted, exactly, seating, strict,
};

/// Under `--illegal forfeit` a move the rules do not allow (rule 5) forfeits.
impl Fencer for Strict<'_, dyn Fencer> {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        self.player.start_game(info)
    }
    fn start_round(&mut self, info: &RoundInfo) -> Result<(), Failure> {
        self.player.start_round(info)
    }
    fn choose_move(&mut self, view: &View) -> Result<Move, Failure> {
        let mv = self.player.choose_move(view)?;
        self.judge(
            mv,
            // A value that is no card is no move at all: the game's invalid
            // answer (rule 5.3, a forfeit), not an illegal move to count.
            |&mv| {
                !(1..=rules::MAX_CARD).contains(&mv.card)
                    || rules::check_move(view.seat, &view.hand, view.my_position, view.opponent_position, mv).is_ok()
            },
            |mv| format!("played card {} {:?}", mv.card, mv.direction).to_lowercase(),
        )
    }
}

/// A wasm bot fencing, whatever world version it targets.
pub type WasmFencer = Box<dyn crate::runner::WasmSeat<dyn Fencer>>;

/// What En Garde is.
pub static ABOUT: About = About {
    name: "en-garde",
    title: "En Garde",
    kind: Kind::Duel,
    seats: 2..=2,
    worlds: &[&since_v0_1::WORLD, &since_v0_2::WORLD],
    house_bots: rules::HOUSE_BOTS,
    variants: &Variant::NAMES,
    default_rubric: include_str!("rubric.toml"),
    limits: crate::adapters::TURN_LIMITS,
    chained: false,
    illegal_rule: "each loses the round (rule 5.1)",
    first_opponents: &["house:random"],
    starter: "aggressive",
    places: ["first", "last"],
    check_event: crate::runner::typed_event::<crate::games::en_garde::Event>,
    hide_event: crate::games::en_garde::hide,
    rules: include_str!("../../../../../docs/rules/en-garde.md"),
};

/// En Garde as the runner sees it.
pub struct EnGarde;

impl EnGarde {
    /// The rules for `setup`: its variant by name, the first of
    /// [`Variant::NAMES`] when none is given, and an error for any other name.
    pub fn config(setup: &GameSetup<'_>) -> Result<rules::Config, SetupError> {
        let variant = match setup.variant.as_deref() {
            None => Variant::default(),
            Some(name) => Variant::from_name(name).ok_or_else(|| SetupError::UnknownVariant(name.to_string()))?,
        };
        Ok(rules::Config {
            variant,
            ..rules::Config::default()
        })
    }
}

seating!(EnGarde, Fencer, rules::house_bot, [since_v0_1, since_v0_2]);

impl GameDef for EnGarde {
    fn about(&self) -> &'static About {
        &ABOUT
    }
    fn check_setup(&self, setup: &GameSetup<'_>) -> Result<(), SetupError> {
        Self::config(setup).map(|_| ())
    }

    fn play(&self, deal: Deal<'_>, events: &mut dyn EventSink) -> Result<PlayedGame, SetupError> {
        let config = Self::config(deal.setup)?;
        Table::<Self>::seat(deal)?.play(events, |players, events| {
            let mut players = strict(players, deal.setup.illegal);
            let [a, b] = exactly(self.title(), players.iter_mut().collect())?;
            let outcome = rules::play_game(config, deal.seed, [a, b], events);
            Ok(counted(outcome, &players))
        })
    }
}
