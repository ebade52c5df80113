//! En Garde for bots built against `arena:bots@0.1.0`: the world's WIT types
//! to the current rules' types and back.

use crate::adapters::world;
use crate::games::Failure;
use crate::games::en_garde::{Direction, Fencer, GameInfo, Move, RoundInfo, Variant, View};
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

fn wit_variant(v: Variant) -> wit::RulesVariant {
    match v {
        Variant::Simple => wit::RulesVariant::Simple,
        Variant::Standard => wit::RulesVariant::Standard,
    }
}

fn wit_direction(d: Direction) -> wit::Direction {
    match d {
        Direction::Forward => wit::Direction::Forward,
        Direction::Backward => wit::Direction::Backward,
    }
}

fn small(n: usize) -> u8 {
    n as u8
}

fn wit_view(v: &View) -> wit::View {
    wit::View {
        seat: small(v.seat),
        variant: wit_variant(v.variant),
        round: v.round,
        hand: v.hand.clone(),
        my_position: v.my_position,
        opponent_position: v.opponent_position,
        my_score: v.my_score,
        opponent_score: v.opponent_score,
        deck_remaining: v.deck_remaining,
        discard: v.discard.clone(),
        opponent_hand_size: v.opponent_hand_size,
        last_move: v.last_move.map(|m| wit::PlayedMove {
            seat: small(m.seat),
            card: m.mv.card,
            direction: wit_direction(m.mv.direction),
            parried: m.parried,
        }),
    }
}

impl Fencer for WasmBot<Bindings> {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        let info = wit::GameInfo {
            seat: small(info.seat),
            variant: wit_variant(info.variant),
            points_to_win: info.points_to_win,
            strip_length: info.strip_length,
            seed: info.seed,
        };
        self.call(Call::Start, |b, store| b.call_start_game(store, info))
    }

    fn start_round(&mut self, info: &RoundInfo) -> Result<(), Failure> {
        let info = wit::RoundInfo {
            round: info.round,
            first_to_move: small(info.first_to_move),
            scores: info.scores.to_vec(),
        };
        self.call(Call::Round, |b, store| b.call_start_round(store, &info))
    }

    fn choose_move(&mut self, view: &View) -> Result<Move, Failure> {
        let view = wit_view(view);
        let mv = self.call(Call::Move, |b, store| b.call_choose_move(store, &view))?;
        let direction = match mv.direction {
            wit::Direction::Forward => Direction::Forward,
            wit::Direction::Backward => Direction::Backward,
        };
        Ok(Move {
            card: mv.card,
            direction,
        })
    }
}
