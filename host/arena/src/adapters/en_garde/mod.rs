//! En Garde in the arena: what the game is, how its players are seated, and
//! one bindings module per world version its bots may target.

pub mod human;
pub mod since_v0_1;

use crate::games::en_garde::{self as rules, Fencer, Variant};
use crate::games::{EventSink, Kind, Outcome, Seat};
use crate::human::Terminal;
use crate::runner::{BotRef, GameDef, GameSetup, PlayedGame, Seated, Seating, SetupError, Table, WasmBot, exactly};
use crate::sandbox::{BotState, WorldSpec};
use wasmtime::Store;

/// A wasm bot fencing, whatever world version it targets.
pub type WasmFencer = WasmBot<<EnGarde as Seating>::Bindings>;

/// En Garde as the runner sees it.
pub struct EnGarde;

impl EnGarde {
    fn config(setup: &GameSetup<'_>) -> Result<rules::Config, SetupError> {
        let variant = match setup.variant.as_deref() {
            None | Some("simple") => Variant::Simple,
            Some("standard") => Variant::Standard,
            Some(other) => return Err(SetupError::UnknownVariant(other.to_string())),
        };
        Ok(rules::Config {
            variant,
            ..rules::Config::default()
        })
    }
}

impl Seating for EnGarde {
    type Player = dyn Fencer;
    type Bindings = since_v0_1::Bindings;
    fn house(name: &str) -> Option<Box<dyn Fencer>> {
        rules::house_bot(name).map(|b| b as Box<dyn Fencer>)
    }
    fn bind(store: &mut Store<BotState>, instance: &wasmtime::component::Instance) -> wasmtime::Result<Self::Bindings> {
        since_v0_1::Bindings::new(store, instance)
    }
    fn wasm(bot: &mut WasmBot<Self::Bindings>) -> &mut Self::Player {
        bot
    }
}

impl GameDef for EnGarde {
    fn name(&self) -> &'static str {
        "en-garde"
    }
    fn title(&self) -> &'static str {
        "En Garde"
    }
    fn kind(&self) -> Kind {
        Kind::Duel
    }
    fn world(&self) -> &'static WorldSpec {
        &since_v0_1::WORLD
    }
    fn seats(&self) -> std::ops::RangeInclusive<usize> {
        2..=2
    }
    fn house_bots(&self) -> &'static [(&'static str, &'static str)] {
        rules::HOUSE_BOTS
    }
    fn variants(&self) -> &'static [&'static str] {
        &["simple", "standard"]
    }
    fn default_rubric(&self) -> &'static str {
        include_str!("rubric.toml")
    }
    fn check_setup(&self, setup: &GameSetup<'_>) -> Result<(), SetupError> {
        Self::config(setup).map(|_| ())
    }

    fn play(
        &self,
        setup: &GameSetup<'_>,
        seed: u64,
        seats: &[&BotRef],
        events: &mut dyn EventSink,
    ) -> Result<PlayedGame, SetupError> {
        let config = Self::config(setup)?;
        Table::<Self>::seat(setup, seed, seats)?.play(events, |players, events| {
            let [a, b] = exactly(self.title(), players)?;
            Ok(rules::play_game(config, seed, [a, b], events))
        })
    }

    fn has_human_play(&self) -> bool {
        true
    }

    fn play_human(
        &self,
        setup: &GameSetup<'_>,
        seed: u64,
        term: Terminal,
        seat: Seat,
        opponents: &[(String, BotRef)],
    ) -> Result<Outcome, SetupError> {
        let config = Self::config(setup)?;
        let [(name, bot)] = opponents else {
            return Err(SetupError::Opponents(
                "En Garde needs one opponent: --vs BOT (for example --vs house:aggressive)".into(),
            ));
        };
        if seat > 1 {
            return Err(SetupError::Opponents("En Garde has seats 0 and 1".into()));
        }
        let opponent = Seated::<Self>::bot(setup, seed, 1 - seat, bot)?;
        if let Some(failure) = opponent.broken() {
            return Err(SetupError::Opponents(format!(
                "{name} could not start: {}",
                failure.detail
            )));
        }
        let person = Seated::Native(Box::new(human::HumanFencer::new(term.clone())) as Box<dyn Fencer>);
        let seats = if seat == 0 {
            vec![person, opponent]
        } else {
            vec![opponent, person]
        };
        let mut narrator = human::Narrator {
            term,
            me: seat,
            opponent: name.clone(),
        };
        let played = Table::of(seats).play(&mut narrator, |players, events| {
            let [a, b] = exactly(self.title(), players)?;
            Ok(rules::play_game(config, seed, [a, b], events))
        })?;
        Ok(played.outcome)
    }
}
