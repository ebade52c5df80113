//! A game of Sugargame played (see `docs/rules/sugar.md`): the order of play,
//! each event recorded where it happens. The rules it follows are in `rules.rs`.

use super::Event;
use super::rules::{AGENTS, Action, PlaceInfo, State, SugarPlayer, agent_ids, check_placement, landscape, player_seed};
use arena_core::{EventSink, Failure, Forfeit, ForfeitReason, Outcome, Seat, record};

fn finish(state: &State, loser: Option<Seat>, forfeit: Option<Forfeit>, events: &mut dyn EventSink) -> Outcome {
    let scores = state.scores();
    let winner = match loser {
        Some(l) => Some(1 - l),
        None => match scores[0].cmp(&scores[1]) {
            std::cmp::Ordering::Greater => Some(0),
            std::cmp::Ordering::Less => Some(1),
            std::cmp::Ordering::Equal => None,
        },
    };
    if events.enabled() {
        record(
            events,
            &Event::GameEnd {
                scores,
                winner,
                steps: state.step,
                collected: state.collected,
                kills: state.kills,
            },
        );
    }
    Outcome {
        scores: scores.to_vec(),
        winner,
        forfeit,
        other_forfeits: Vec::new(),
        positions: None,
        illegal: Vec::new(),
    }
}

/// Play one game from `seed` between `players`, indexed by seat.
///
/// Long because it is the game's order of play as the rules document gives
/// it, top to bottom, with each event recorded where it happens: split,
/// the order of play would be read across functions.
pub fn play_game(seed: u64, players: [&mut dyn SugarPlayer; 2], events: &mut dyn EventSink) -> Outcome {
    let [p0, p1] = players;
    let mut players: [&mut dyn SugarPlayer; 2] = [p0, p1];
    let (capacity, peaks) = landscape(seed);
    let mut placements = [[0u8; AGENTS as usize]; 2];
    // Both players place at once (rule 2.2): each is asked, whatever the other answered.
    let mut failed: Vec<(Seat, Failure)> = Vec::new();
    for (seat, player) in players.iter_mut().enumerate() {
        let info = PlaceInfo {
            seat,
            agents: agent_ids(seat).collect(),
            seed: player_seed(seed, seat),
            sugar: capacity,
        };
        let answer = player.place(&info).and_then(|p| {
            check_placement(&p)
                .map_err(|why| Failure::new(ForfeitReason::InvalidAnswer, format!("invalid placement: {why}")))
        });
        match answer {
            Ok(p) => placements[seat] = p,
            Err(f) => failed.push((seat, f)),
        }
    }
    let mut state = State::new(seed, placements);
    if events.enabled() {
        record(
            events,
            &Event::GameStart {
                seed,
                capacity,
                peaks,
                max_steps: state.max_steps,
            },
        );
    }
    let forfeit = |state: &State, seat: Seat, failure: Failure, events: &mut dyn EventSink| {
        let f = failure.forfeit(seat, events);
        finish(state, Some(seat), Some(f), events)
    };
    // Rule 2.3: a player who fails to place forfeits and the other wins;
    // rule 2.4: when both fail, both forfeits stand and nobody wins.
    let mut forfeits: Vec<Forfeit> = failed.into_iter().map(|(seat, f)| f.forfeit(seat, events)).collect();
    match forfeits.len() {
        0 => {}
        1 => {
            let first = forfeits.remove(0);
            return finish(&state, Some(first.seat), Some(first), events);
        }
        _ => {
            let first = forfeits.remove(0);
            // Nobody has moved, so the scores are level and `finish` names no winner.
            let mut outcome = finish(&state, None, Some(first), events);
            outcome.winner = None;
            outcome.other_forfeits = forfeits;
            return outcome;
        }
    }
    if events.enabled() {
        record(
            events,
            &Event::Placement {
                agents: state.agents.clone(),
                sugar: state.sugar,
            },
        );
    }
    while !state.is_over() {
        let seat = state.to_move();
        let action = if state.legal_moves(seat).is_empty() {
            Action::Pass
        } else {
            match players[seat].choose(&state.view(seat)) {
                Ok(a) => a,
                Err(failure) => return forfeit(&state, seat, failure, events),
            }
        };
        match state.apply(action) {
            Ok(report) => {
                if events.enabled() {
                    record(
                        events,
                        &Event::Step {
                            step: state.step,
                            seat,
                            action,
                            collected: report.collected,
                            killed: report.killed,
                            agents: state.agents.clone(),
                            sugar: state.sugar,
                            scores: state.scores(),
                        },
                    );
                }
            }
            Err(why) => {
                if events.enabled() {
                    record(
                        events,
                        &Event::Illegal {
                            step: state.step + 1,
                            seat,
                            action,
                            why,
                        },
                    );
                }
                return finish(&state, Some(seat), None, events);
            }
        }
    }
    finish(&state, None, None, events)
}
