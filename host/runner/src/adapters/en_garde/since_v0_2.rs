//! En Garde for bots built against `arena:bots@0.2.0`: the world's WIT types
//! to the current rules' types and back.

use crate::adapters::world;
use crate::games::Failure;
use crate::games::en_garde::{Direction, Fencer, GameInfo, Move, RoundInfo, Variant, View};
use crate::runner::WasmBot;
use crate::sandbox::Call;

world!(
    "../../wit/0.2.0",
    "en-garde",
    v0_2,
    Banked,
    EnGarde,
    EnGardeIndices,
    ["start-game", "start-round", "choose-move"]
);
/// The world's WIT types (public for benchmarks that call a bot with wasmtime alone).
pub use bindings::arena::bots::en_garde_types as wit;

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

/// The rules' view in this version's types. Older versions convert from it
/// with `legal` false: their worlds have no legal list, so it is not built
/// for them on every move.
pub fn wit_view(v: &View, legal: bool) -> wit::View {
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
        legal_moves: if legal {
            v.legal_moves()
                .into_iter()
                .map(|m| wit::FencerMove {
                    card: m.card,
                    direction: wit_direction(m.direction),
                })
                .collect()
        } else {
            Vec::new()
        },
    }
}

/// The game's start in this version's types.
pub fn wit_game_info(info: &GameInfo) -> wit::GameInfo {
    wit::GameInfo {
        seat: small(info.seat),
        variant: wit_variant(info.variant),
        points_to_win: info.points_to_win,
        strip_length: info.strip_length,
        seed: info.seed,
    }
}

/// A round's start in this version's types.
pub fn wit_round_info(info: &RoundInfo) -> wit::RoundInfo {
    wit::RoundInfo {
        round: info.round,
        first_to_move: small(info.first_to_move),
        scores: info.scores.to_vec(),
    }
}

/// A bot's answer as the rules' move (the rules judge it).
pub(super) fn rules_move(mv: wit::FencerMove) -> Move {
    let direction = match mv.direction {
        wit::Direction::Forward => Direction::Forward,
        wit::Direction::Backward => Direction::Backward,
    };
    Move {
        card: mv.card,
        direction,
    }
}

impl Fencer for WasmBot<Bindings> {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        let info = wit_game_info(info);
        self.call(Call::Start, |b, store| b.call_start_game(store, info))
    }

    fn start_round(&mut self, info: &RoundInfo) -> Result<(), Failure> {
        let info = wit_round_info(info);
        self.call(Call::Round, |b, store| b.call_start_round(store, &info))
    }

    fn choose_move(&mut self, view: &View) -> Result<Move, Failure> {
        let view = wit_view(view, true);
        let mv = self.call(Call::Move, |b, store| b.call_choose_move(store, &view))?;
        Ok(rules_move(mv))
    }
}
