//! En Garde for bots built against `arena:bots@0.1.0`. Only the newest
//! version's module talks to the rules: this one converts between that
//! module's types and its own (a 0.1 view is a 0.2 view without its legal
//! moves), so a rule is written once.

use super::since_v0_2::{self as newest, wit as new};
use crate::adapters::world;
use crate::games::Failure;
use crate::games::en_garde::{Fencer, GameInfo, Move, RoundInfo, View};
use crate::runner::WasmBot;
use crate::sandbox::Call;

world!(
    "../../wit/0.1.0",
    "en-garde",
    v0_1,
    PerCall,
    EnGarde,
    EnGardeIndices,
    ["start-game", "start-round", "choose-move"]
);
use bindings::arena::bots::en_garde_types as wit;

impl From<new::RulesVariant> for wit::RulesVariant {
    fn from(v: new::RulesVariant) -> Self {
        match v {
            new::RulesVariant::Simple => wit::RulesVariant::Simple,
            new::RulesVariant::Standard => wit::RulesVariant::Standard,
        }
    }
}

impl From<new::Direction> for wit::Direction {
    fn from(d: new::Direction) -> Self {
        match d {
            new::Direction::Forward => wit::Direction::Forward,
            new::Direction::Backward => wit::Direction::Backward,
        }
    }
}

impl From<wit::FencerMove> for new::FencerMove {
    fn from(m: wit::FencerMove) -> Self {
        new::FencerMove {
            card: m.card,
            direction: match m.direction {
                wit::Direction::Forward => new::Direction::Forward,
                wit::Direction::Backward => new::Direction::Backward,
            },
        }
    }
}

impl From<new::GameInfo> for wit::GameInfo {
    fn from(i: new::GameInfo) -> Self {
        wit::GameInfo {
            seat: i.seat,
            variant: i.variant.into(),
            points_to_win: i.points_to_win,
            strip_length: i.strip_length,
            seed: i.seed,
        }
    }
}

impl From<new::RoundInfo> for wit::RoundInfo {
    fn from(i: new::RoundInfo) -> Self {
        wit::RoundInfo {
            round: i.round,
            first_to_move: i.first_to_move,
            scores: i.scores,
        }
    }
}

impl From<new::View> for wit::View {
    fn from(v: new::View) -> Self {
        wit::View {
            seat: v.seat,
            variant: v.variant.into(),
            round: v.round,
            hand: v.hand,
            my_position: v.my_position,
            opponent_position: v.opponent_position,
            my_score: v.my_score,
            opponent_score: v.opponent_score,
            deck_remaining: v.deck_remaining,
            discard: v.discard,
            opponent_hand_size: v.opponent_hand_size,
            last_move: v.last_move.map(|m| wit::PlayedMove {
                seat: m.seat,
                card: m.card,
                direction: m.direction.into(),
                parried: m.parried,
            }),
        }
    }
}

impl Fencer for WasmBot<Bindings> {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        let info = wit::GameInfo::from(newest::wit_game_info(info));
        self.call(Call::Start, |b, store| b.call_start_game(store, info))
    }

    fn start_round(&mut self, info: &RoundInfo) -> Result<(), Failure> {
        let info = wit::RoundInfo::from(newest::wit_round_info(info));
        self.call(Call::Round, |b, store| b.call_start_round(store, &info))
    }

    fn choose_move(&mut self, view: &View) -> Result<Move, Failure> {
        let view = wit::View::from(newest::wit_view(view, false));
        let mv = self.call(Call::Move, |b, store| b.call_choose_move(store, &view))?;
        Ok(newest::rules_move(mv.into()))
    }
}
