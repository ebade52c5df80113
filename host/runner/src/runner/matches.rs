//! Matches: the same bots over many games, each deal played from every seat.
//!
//! By concern: `types.rs` holds what a match is and what it reports, this
//! file how it is played; `seating.rs` who sits where in each game and the
//! units a match is played in, `played.rs` one game as it is handed over,
//! `totals.rs` the totals counted as games arrive and the streamed report.

mod played;
mod seating;
mod totals;
mod types;

use played::RunnerEvent;
pub use played::{GameEvents, Played};
pub use seating::{seat_orders, seating, unit, unit_count, units, whole_rotations};
use totals::MatchTotals;
pub use totals::{ReportWriter, forfeit_list};
use types::no_illegal;
pub use types::{
    BotSummary, Entrant, FirstForfeit, FuelSummary, GameResult, MAX_GAMES, MatchOutcome, MatchReport, MatchSpec,
    PositionSummary, check_seats,
};

use super::{BotRef, GameDef, GameSetup, PlayedGame, SetupError};
use arena_core::{EventLines, ForfeitReason};
use arena_sandbox::Usage;
use rayon::prelude::*;
use std::ops::ControlFlow;

/// Play one unit of a match (see [`units`]): its games in order, each with
/// its events if the match is recorded.
pub fn play_unit(spec: &MatchSpec<'_>, unit: &[usize]) -> Result<Vec<Played>, SetupError> {
    // Whoever calls (a match, a tournament, a replay): settings the game
    // cannot use, such as an unknown variant, are an error, never a default.
    spec.check()?;
    let n = spec.entrants.len();
    let Some(&first) = unit.first() else {
        return Ok(Vec::new());
    };
    // Every game of a unit has the same seating: a unit is one rotation.
    let seats = seating(spec.seed, first, n).1;
    let seeds: Vec<u64> = unit.iter().map(|&i| seating(spec.seed, i, n).0).collect();
    let players: Vec<&BotRef> = seats.iter().map(|&b| &spec.entrants[b].bot).collect();
    let played = spec.game.play_series(&spec.setup, &seeds, &players, spec.record)?;
    // The machine failing a bot is no result: stop the run, charge nobody.
    for (&index, (game, _)) in unit.iter().zip(&played) {
        let forfeits = game.outcome.forfeit.iter().chain(&game.outcome.other_forfeits);
        if let Some(f) = forfeits.into_iter().find(|f| f.reason == ForfeitReason::Host) {
            return Err(SetupError::Host(format!(
                "game {index}, {} in seat {}: {}; the game is not scored and the run stops: free memory or run fewer --jobs, then run again",
                spec.entrants[seats[f.seat]].name, f.seat, f.detail
            )));
        }
    }
    Ok(unit
        .iter()
        .zip(seeds)
        .zip(played)
        .map(|((&index, deal), (game, events))| finish_game(spec.record, index, deal, seats.clone(), game, events))
        .collect())
}

/// Play a match. Units run in parallel on rayon's pool; results are the
/// same, bit for bit, whatever the number of threads. An error is the
/// run's mistake (an unknown house bot), found before any game is played.
/// Every game is kept in the outcome: a long match is better played with
/// [`play_match`], which keeps none.
pub fn run_match(spec: &MatchSpec<'_>) -> Result<MatchOutcome, SetupError> {
    let mut results = Vec::new();
    let mut events = Vec::new();
    let mut report = play_match(spec, |played| {
        results.push(played.result);
        events.push(played.events.values());
        ControlFlow::Continue(())
    })?;
    report.results = results;
    Ok(MatchOutcome { report, events })
}

/// Play a match, handing each game to `each` in game order as soon as it
/// and every game before it are played, and return the totals (with no
/// `results`). At most two batches of games are in memory at a time (one
/// handed over while the next plays), so a million games take the memory
/// of a few thousand; the totals are exact
/// integer sums, equal whatever the batches or threads. `each` returning
/// `Break` ends the match there (the totals count the games handed over).
/// A host failure in a later batch (`SetupError::Host`) comes after `each`
/// has had the games before it. Chained games (President) are one batch:
/// their games are held until the whole match is played.
pub fn play_match(
    spec: &MatchSpec<'_>,
    mut each: impl FnMut(Played) -> ControlFlow<()>,
) -> Result<MatchReport, SetupError> {
    spec.check()?;
    let mut tally = MatchTotals::new(spec);
    let count = unit_count(spec);
    // Chained games interleave their units' indices (unit k plays games
    // k, k+m, ...), so game order needs every unit of the match at once:
    // at most one per seat order.
    let batch = if spec.game.chained() {
        count.max(1)
    } else {
        // A recorded game holds its events until it is written: fewer at once.
        let per_thread = if spec.record { 16 } else { 256 };
        per_thread * rayon::current_num_threads().max(1)
    };
    // While `each` takes one batch (writing a replay, say), the pool
    // plays the next: the two overlap. When `each` stops the match, the
    // batch in flight plays no further unit.
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut ready: Vec<Played> = Vec::new();
    let mut first = 0;
    loop {
        let next = (first < count).then(|| first..(first + batch).min(count));
        let mut played = None;
        let mut stopped = false;
        rayon::in_place_scope(|scope| {
            if let Some(range) = next.clone() {
                let (played, stop) = (&mut played, &stop);
                scope.spawn(move |_| *played = Some(play_batch(spec, range, stop)));
            }
            for p in ready.drain(..) {
                tally.add(&p.result, &p.fuel);
                if each(p).is_break() {
                    stopped = true;
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    break;
                }
            }
        });
        match (stopped, next, played) {
            (false, Some(range), Some(played)) => {
                ready = played?;
                first = range.end;
            }
            _ => return Ok(tally.report(spec)),
        }
    }
}

/// Play a match as [`play_match`] does, but in batches of `next_batch()`
/// units (at least one), each played whole before its games are handed
/// to `each` and the next batch starts: a caller that may stop the match
/// (a grading budget) sizes each batch by what it can still afford, so
/// the games played past its stop are at most one batch's, never a whole
/// match's. Chained games (President) are one batch. The games and the
/// totals are those [`play_match`] gives.
pub fn play_match_paced(
    spec: &MatchSpec<'_>,
    mut next_batch: impl FnMut() -> usize,
    mut each: impl FnMut(Played) -> ControlFlow<()>,
) -> Result<MatchReport, SetupError> {
    spec.check()?;
    let mut tally = MatchTotals::new(spec);
    let count = unit_count(spec);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut first = 0;
    while first < count {
        let batch = if spec.game.chained() {
            count
        } else {
            next_batch().max(1)
        };
        let range = first..(first + batch).min(count);
        first = range.end;
        for p in play_batch(spec, range, &stop)? {
            tally.add(&p.result, &p.fuel);
            if each(p).is_break() {
                return Ok(tally.report(spec));
            }
        }
    }
    Ok(tally.report(spec))
}

/// Units `range` of the match, played on the pool: their games in game
/// order (none once `stop` is set).
fn play_batch(
    spec: &MatchSpec<'_>,
    range: std::ops::Range<usize>,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<Vec<Played>, SetupError> {
    let mut played: Vec<Played> = range
        .into_par_iter()
        .map(|k| match stop.load(std::sync::atomic::Ordering::Relaxed) {
            true => Ok(Vec::new()),
            false => play_unit(spec, &unit(spec, k)),
        })
        .collect::<Result<Vec<_>, _>>()?
        .concat();
    played.sort_by_key(|p| p.result.index);
    Ok(played)
}

impl MatchSpec<'_> {
    /// The variant played: the one asked for, or the game's first.
    pub fn variant_name(&self) -> String {
        self.setup
            .variant
            .clone()
            .unwrap_or_else(|| self.game.variants()[0].to_string())
    }

    /// The report's header with no games and no totals yet.
    fn empty_report(&self) -> MatchReport {
        MatchReport {
            game: self.game.name().to_string(),
            variant: self.variant_name(),
            illegal: self.setup.illegal,
            seed: self.seed,
            games: whole_rotations(self.games, self.entrants.len()),
            limits: self.setup.sandbox.limits().clone(),
            results: Vec::new(),
            bots: Vec::new(),
        }
    }
}

/// Play game `index` of a match again, keeping every event for a replay:
/// its whole unit is replayed, so the replay is exactly the game that was
/// scored (for President, after the same card exchanges).
pub fn play_match_game_recorded(spec: &MatchSpec<'_>, index: usize) -> Result<Played, SetupError> {
    let spec = MatchSpec {
        game: spec.game,
        setup: spec.setup.clone(),
        entrants: spec.entrants.clone(),
        games: spec.games,
        seed: spec.seed,
        record: true,
    };
    let unit = units(&spec)
        .into_iter()
        .find(|u| u.contains(&index))
        .unwrap_or_else(|| vec![index]);
    let played = play_unit(&spec, &unit)?;
    played
        .into_iter()
        .find(|p| p.result.index == index)
        .ok_or_else(|| SetupError::Seats(format!("the match has no game {index}")))
}

fn finish_game(
    record: bool,
    index: usize,
    deal: u64,
    seats: Vec<usize>,
    played: PlayedGame,
    mut events: EventLines,
) -> Played {
    let PlayedGame { outcome, logs, fuel } = played;
    if record {
        for (seat, log) in logs.into_iter().enumerate() {
            if let Some(log) = log {
                let log = RunnerEvent::Log {
                    seat,
                    lines: &log.lines,
                    truncated: log.truncated,
                };
                arena_core::record(&mut events, &log);
            }
        }
        // Each call: its kind, fuel, the index of the first game event after
        // it, and the bot's log lines when it returned (docs/replay-format.md).
        let calls = fuel
            .iter()
            .map(|u| {
                u.as_ref()
                    .map(|u| u.calls.iter().map(|c| (c.call, c.fuel, c.mark, c.log_lines)).collect())
            })
            .collect();
        let per_seat = |f: fn(&Usage) -> u64| fuel.iter().map(|u| u.as_ref().map(f)).collect();
        let usage = RunnerEvent::Fuel {
            per_seat: per_seat(Usage::total),
            instantiation: per_seat(|u| u.instantiation),
            calls,
            bank_used: per_seat(|u| u.bank_used),
        };
        arena_core::record(&mut events, &usage);
    }
    let events = GameEvents {
        game: index,
        lines: events,
    };
    let forfeits = outcome.forfeits().cloned().collect();
    let result = GameResult {
        index,
        seed: deal,
        seats,
        scores: outcome.scores,
        winner: outcome.winner,
        forfeit: outcome.forfeit,
        forfeits,
        positions: outcome.positions,
        // All zeros is written as nothing, so a result read back from a
        // journal or a shard compares equal to the one played.
        illegal: if no_illegal(&outcome.illegal) {
            Vec::new()
        } else {
            outcome.illegal
        },
    };
    Played { result, events, fuel }
}

#[cfg(test)]
mod tests;
