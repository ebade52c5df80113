//! A game of ConnectFwar played (see `docs/rules/connect-fwar.md`): the order of play,
//! each event recorded where it happens. The rules it follows are in `rules.rs`.

use super::Event;
use super::rules::{Board, Card, GameInfo, Player, View, player_seed, shuffled_deck};
use arena_core::{EventSink, Failure, Outcome, record};

/// Play one game from `seed` (rules 2-5). The score is the cards left in the
/// deck at the first connected four, or 0 if the deck runs out; a failure
/// forfeits with score 0.
pub fn play_game(seed: u64, player: &mut dyn Player, events: &mut dyn EventSink) -> Outcome {
    let mut deck = shuffled_deck(seed);
    let mut board = Board::default();
    let mut discard: Vec<Card> = Vec::new();
    if events.enabled() {
        let deck = deck.iter().rev().copied().collect();
        record(events, &Event::GameStart { seed, deck });
    }
    let forfeit =
        |failure: Failure, events: &mut dyn EventSink| Outcome::forfeited(vec![0], failure.forfeit(0, events));
    if let Err(failure) = player.start_game(&GameInfo {
        seed: player_seed(seed),
    }) {
        return forfeit(failure, events);
    }
    let score = loop {
        let Some(card) = deck.pop() else {
            break 0;
        };
        let view = View {
            card,
            board: board.clone(),
            deck_remaining: deck.len() as u8,
            discard: discard.clone(),
        };
        let answer = match player.choose_column(&view) {
            Ok(c) => c,
            Err(failure) => return forfeit(failure, events),
        };
        let placed = usize::try_from(answer).ok().filter(|&c| board.fits(c, card));
        match placed {
            Some(c) => board.columns[c].push(card),
            None => discard.push(card),
        }
        let four = placed.and_then(|_| board.connected_four());
        if events.enabled() {
            record(
                events,
                &Event::Draw {
                    card,
                    answer,
                    placed,
                    deck_remaining: deck.len(),
                    connected: four,
                },
            );
        }
        if four.is_some() {
            break deck.len() as i64;
        }
    };
    if events.enabled() {
        record(
            events,
            &Event::GameEnd {
                score,
                board: board.clone(),
            },
        );
    }
    Outcome {
        scores: vec![score],
        winner: None,
        forfeit: None,
        other_forfeits: Vec::new(),
        positions: None,
        illegal: Vec::new(),
    }
}
