//! A game of President played (see `docs/rules/president.md`): the order of play,
//! each event recorded where it happens. The rules it follows are in `rules.rs`.

use super::Event;
use super::rules::{GameInfo, PresidentPlayer, Table, deal, exchange, leader, player_seed, title};
use arena_core::{EventSink, Failure, Forfeit, Outcome, Seat, record};

/// The result of one game, with what the next game of a series needs.
#[derive(Debug, Clone)]
pub struct GameRecord {
    /// The outcome (scores are `players - position`, so higher is better).
    pub outcome: Outcome,
    /// Positions by seat.
    pub positions: Vec<u32>,
}

/// Play one game from `seed`, after the exchange from `last_positions` if any (rules 1-10).
///
/// Long because it is the game's order of play as the rules document gives
/// it, top to bottom, with each event recorded where it happens: split,
/// the order of play would be read across functions.
pub fn play_game(
    seed: u64,
    last_positions: Option<Vec<u32>>,
    players: &mut [&mut dyn PresidentPlayer],
    events: &mut dyn EventSink,
) -> GameRecord {
    let n = players.len();
    let mut hands = deal(seed, n);
    let moved = match &last_positions {
        Some(p) => exchange(&mut hands, p),
        None => vec![(Vec::new(), Vec::new()); n],
    };
    let first = leader(&hands, last_positions.as_deref());
    if events.enabled() {
        record(
            events,
            &Event::GameStart {
                seed,
                players: n,
                hands: hands.clone(),
                last_positions: last_positions.clone(),
                exchange: moved.clone(),
                leader: first,
            },
        );
    }
    let mut table = Table::new(hands, first);
    let mut forfeits: Vec<Forfeit> = Vec::new();
    for (seat, player) in players.iter_mut().enumerate() {
        let info = GameInfo {
            seat,
            players: n,
            seed: player_seed(seed, seat),
            last_positions: last_positions.clone(),
            gave: moved[seat].0.clone(),
            received: moved[seat].1.clone(),
        };
        if let Err(failure) = player.start_game(&info) {
            put_out_for_failure(&mut table, seat, failure, &mut forfeits, events);
        }
    }
    // Every call plays or passes, so a game ends within a bounded number of turns;
    // the cap only guards against a rules bug.
    let mut turns = 0;
    while !table.is_over() && turns < 10_000 {
        turns += 1;
        let seat = table.to_move;
        let answer = match players[seat].play(&table.view(seat, &last_positions)) {
            Ok(a) => a,
            Err(failure) => {
                put_out_for_failure(&mut table, seat, failure, &mut forfeits, events);
                continue;
            }
        };
        match table.apply(answer.clone()) {
            Ok(meets) => {
                if events.enabled() {
                    record(
                        events,
                        &Event::Turn {
                            seat,
                            cards: answer,
                            meets,
                            counts: table.hands.iter().map(Vec::len).collect(),
                            positions: table.positions.clone(),
                            state: table.state.as_ref().map(|s| s.0.clone()),
                        },
                    );
                }
            }
            Err(why) => {
                if events.enabled() {
                    record(
                        events,
                        &Event::Illegal {
                            seat,
                            cards: answer,
                            why,
                        },
                    );
                }
                table.put_out(seat);
            }
        }
    }
    let positions = table.positions.clone();
    let winner = positions.iter().position(|&p| p == 1);
    if events.enabled() {
        let titles = positions.iter().map(|&p| title(p, n).to_string()).collect();
        record(
            events,
            &Event::GameEnd {
                positions: positions.clone(),
                titles,
            },
        );
    }
    let mut forfeits = forfeits.into_iter();
    GameRecord {
        outcome: Outcome {
            scores: positions.iter().map(|&p| n as i64 - i64::from(p)).collect(),
            winner,
            forfeit: forfeits.next(),
            other_forfeits: forfeits.collect(),
            positions: Some(positions.clone()),
            illegal: Vec::new(),
        },
        positions,
    }
}

fn put_out_for_failure(
    table: &mut Table,
    seat: Seat,
    failure: Failure,
    forfeits: &mut Vec<Forfeit>,
    events: &mut dyn EventSink,
) {
    forfeits.push(failure.forfeit(seat, events));
    table.put_out(seat);
}
