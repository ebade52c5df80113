//! A game of En Garde played (see `docs/rules/en-garde.md`): the order of play,
//! each event recorded where it happens. The rules it follows are in `rules.rs`.

use super::Event;
use super::rules::{
    Config, Fencer, GameInfo, MAX_CARD, POINTS_TO_WIN, Round, RoundEnd, RoundInfo, STRIP_LENGTH, opponent, player_seed,
    round_rng,
};
use arena_core::{EventSink, Failure, ForfeitReason, Outcome, Seat, record};

fn forfeit(seat: Seat, failure: Failure, scores: [u8; 2], events: &mut dyn EventSink) -> Outcome {
    let scores = scores.iter().map(|&s| i64::from(s)).collect();
    Outcome::forfeited(scores, failure.forfeit(seat, events))
}

/// Play `round` to its end. A player's failure is returned with its seat.
pub(crate) fn play_round(
    round: &mut Round,
    players: &mut [&mut dyn Fencer; 2],
    scores: [u8; 2],
    round_no: u32,
    events: &mut dyn EventSink,
) -> Result<RoundEnd, (Seat, Failure)> {
    loop {
        let seat = round.to_move;
        if round.legal_moves(seat).is_empty() {
            return Ok(RoundEnd::NoLegalMove { scorer: opponent(seat) });
        }
        let view = round.view(seat, scores, round_no);
        let mv = players[seat].choose_move(&view).map_err(|f| (seat, f))?;
        if !(1..=MAX_CARD).contains(&mv.card) {
            let failure = Failure::new(
                ForfeitReason::InvalidAnswer,
                format!("card {} is not a card value (1 to {MAX_CARD})", mv.card),
            );
            return Err((seat, failure));
        }
        let result = round.apply(mv);
        if events.enabled() {
            let parried = round
                .last_move
                .is_some_and(|m| m.parried && m.seat == seat && m.mv == mv);
            // The hands after this move and its draws: before any last-chance
            // attack, which has an event of its own.
            let mut hands = round.hands.clone();
            if let Some(last) = round.last_chance {
                hands[last.seat].push(last.mv.card);
                if last.parried {
                    hands[opponent(last.seat)].push(last.mv.card);
                }
                hands.iter_mut().for_each(|h| h.sort_unstable());
            }
            record(
                events,
                &Event::Move {
                    seat,
                    card: mv.card,
                    direction: mv.direction,
                    parried,
                    positions: round.positions,
                    deck_remaining: round.deck.len(),
                    hands,
                },
            );
            if let Some(last) = round.last_chance {
                record(
                    events,
                    &Event::LastChance {
                        seat: last.seat,
                        card: last.mv.card,
                        direction: last.mv.direction,
                        parried: last.parried,
                        positions: round.positions,
                        hands: round.hands.clone(),
                    },
                );
            }
        }
        if let Some(end) = result {
            return Ok(end);
        }
    }
}

/// Play one game between `players` (indexed by seat) from `seed`.
///
/// A player's failure forfeits the game to the other seat (rule 8). Every
/// event goes to `events`, complete enough to replay the game.
///
/// Long because it is the game's order of play as the rules document gives
/// it, top to bottom, with each event recorded where it happens: split,
/// the order of play would be read across functions.
pub fn play_game(config: Config, seed: u64, players: [&mut dyn Fencer; 2], events: &mut dyn EventSink) -> Outcome {
    let [p0, p1] = players;
    let mut players: [&mut dyn Fencer; 2] = [p0, p1];
    let mut scores = [0u8; 2];
    if events.enabled() {
        record(
            events,
            &Event::GameStart {
                variant: config.variant,
                seed,
            },
        );
    }
    for (seat, player) in players.iter_mut().enumerate() {
        let info = GameInfo {
            seat,
            variant: config.variant,
            points_to_win: POINTS_TO_WIN,
            strip_length: STRIP_LENGTH,
            seed: player_seed(seed, seat),
        };
        if let Err(failure) = player.start_game(&info) {
            return forfeit(seat, failure, scores, events);
        }
    }
    let mut round_no = 0;
    while scores.iter().all(|&s| s < POINTS_TO_WIN) && round_no < config.max_rounds {
        round_no += 1;
        let first = ((round_no - 1) % 2) as Seat;
        let mut round = Round::deal(config.variant, first, &mut round_rng(seed, round_no));
        if events.enabled() {
            record(
                events,
                &Event::RoundStart {
                    round: round_no,
                    first_to_move: first,
                    positions: round.positions,
                    hands: round.hands.clone(),
                    deck: round.deck.iter().rev().copied().collect(),
                    scores,
                },
            );
        }
        let info = RoundInfo {
            round: round_no,
            first_to_move: first,
            scores,
        };
        for (seat, player) in players.iter_mut().enumerate() {
            if let Err(failure) = player.start_round(&info) {
                return forfeit(seat, failure, scores, events);
            }
        }
        let end = match play_round(&mut round, &mut players, scores, round_no, events) {
            Ok(end) => end,
            Err((seat, failure)) => return forfeit(seat, failure, scores, events),
        };
        if let Some(scorer) = end.scorer() {
            scores[scorer] += 1;
        }
        if events.enabled() {
            record(
                events,
                &Event::RoundEnd {
                    end,
                    round: round_no,
                    scores,
                    positions: round.positions,
                    last_move: round.last_move,
                },
            );
        }
    }
    let winner = match scores[0].cmp(&scores[1]) {
        std::cmp::Ordering::Greater => Some(0),
        std::cmp::Ordering::Less => Some(1),
        std::cmp::Ordering::Equal => None,
    };
    if events.enabled() {
        record(
            events,
            &Event::GameEnd {
                scores,
                winner,
                rounds: round_no,
            },
        );
    }
    Outcome {
        scores: scores.iter().map(|&s| i64::from(s)).collect(),
        winner,
        forfeit: None,
        other_forfeits: Vec::new(),
        positions: None,
        illegal: Vec::new(),
    }
}
