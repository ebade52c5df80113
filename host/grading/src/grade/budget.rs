//! The cap on one submission's grading work, and its progress.
//!
//! Grading a submission plays the rubric's games (and, on the course
//! server, the check's smoke games first). What bounds that work is fuel,
//! as for every move: the submission's fuel over every game it plays while
//! it is graded is counted game by game, in game order, and once it passes
//! the budget the grading stops after that game with an [`OverBudget`]
//! verdict. The same bot, rubric and budget stop at the same game on any
//! machine. The wall clock is only a backstop for a machine that cannot
//! keep up ([`Meter::late`]): it never decides a verdict.
//!
//! The default budget is [`DEFAULT_SECONDS`] (15 minutes) of one core of
//! the reference machine at [`FUEL_PER_SECOND`] (14.7 billion fuel a
//! second, the rate `MOVE_FUEL` of Sugargame is derived from): 13.2
//! trillion fuel. docs/grading.md ("Grading time") has the arithmetic per game.

use arena_runner::runner::{MatchSpec, Played, SetupError};
use serde::{Deserialize, Serialize};
use std::ops::ControlFlow;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Fuel a compute-bound Rust bot burns a second on one core of the
/// reference machine (`cargo bench -p arena --bench games`; the rate
/// Sugargame's 3 seconds a move are priced at).
pub const FUEL_PER_SECOND: u64 = 14_700_000_000;

/// The default budget, in seconds of the reference machine.
pub const DEFAULT_SECONDS: u64 = 900;

/// The default budget of one submission's grading: 15 minutes' fuel.
pub const DEFAULT_FUEL: u64 = DEFAULT_SECONDS * FUEL_PER_SECOND;

/// How many times the budget's own time (at [`FUEL_PER_SECOND`]) a grading
/// may last on the wall clock before it is given up as the machine's
/// failure (never the bot's verdict): a machine a quarter as fast as the
/// reference still finishes.
pub const WALL_CLOCK_MARGIN: u32 = 4;

/// The shortest wall-clock backstop, whatever the budget: a small budget
/// on a loaded machine is still decided by fuel.
pub const MIN_BACKSTOP: Duration = Duration::from_secs(1800);

/// Seconds `fuel` takes on the reference machine.
pub fn seconds_of(fuel: u64) -> f64 {
    fuel as f64 / FUEL_PER_SECOND as f64
}

/// A duration in round words: "40 seconds", "3 minutes", "2 hours".
pub fn duration_words(seconds: f64) -> String {
    let s = seconds.max(0.0);
    if s < 90.0 {
        let n = (s.round() as u64).max(1);
        format!("{n} second{}", if n == 1 { "" } else { "s" })
    } else if s < 90.0 * 60.0 {
        let n = (s / 60.0).round() as u64;
        format!("{n} minute{}", if n == 1 { "" } else { "s" })
    } else {
        let h = s / 3600.0;
        if h < 10.0 {
            format!("{h:.1} hours")
        } else {
            format!("{h:.0} hours")
        }
    }
}

/// Where a grading is: games played of those planned, and the fuel the
/// submission used of its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// Games the submission played so far.
    pub played: usize,
    /// Games the grading plays in all (the check's, the smoke game, every item's).
    pub games: usize,
    /// Fuel the submission used so far.
    pub fuel: u64,
    /// Its budget.
    pub budget: u64,
}

impl Progress {
    /// Before any game: what the grading will play, under what budget.
    pub fn start(games: usize, budget: u64) -> Progress {
        Progress {
            played: 0,
            games,
            fuel: 0,
            budget,
        }
    }

    /// Seconds of the reference machine the rest should take: the fuel
    /// per game so far times the games left, at most the budget left (the
    /// whole budget before any game).
    pub fn seconds_left(&self) -> f64 {
        let left = self.budget.saturating_sub(self.fuel);
        if self.played == 0 {
            return seconds_of(left);
        }
        let per_game = self.fuel as f64 / self.played as f64;
        let rest = per_game * self.games.saturating_sub(self.played) as f64;
        seconds_of(rest.min(left as f64) as u64)
    }

    /// The estimate before grading starts, in words: "up to 362 games,
    /// at most 15 minutes (the course's grading budget)".
    pub fn estimate_words(&self) -> String {
        format!(
            "up to {} games, at most {} (the course's grading budget)",
            self.games,
            duration_words(seconds_of(self.budget))
        )
    }

    /// Where it is, in words: "120 of 362 games played (33%), about 2
    /// minutes left (at most 15 minutes in all)".
    pub fn words(&self) -> String {
        if self.played == 0 {
            return format!("starting: {}", self.estimate_words());
        }
        let share = 100 * self.played / self.games.max(1);
        format!(
            "{} of {} games played ({share}%), about {} left (at most {} in all)",
            self.played,
            self.games,
            duration_words(self.seconds_left()),
            duration_words(seconds_of(self.budget))
        )
    }
}

/// A grading stopped because the submission used its whole budget: what a
/// student reads, in one line ([`OverBudget::line`]), and the numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OverBudget {
    /// The budget, in fuel.
    pub budget: u64,
    /// What the submission used (past the budget in the game that crossed it).
    pub used: u64,
    /// Games played when it stopped.
    pub played: usize,
    /// Games the grading would have played.
    pub games: usize,
    /// Moves (calls after the first) the submission made meanwhile.
    pub moves: u64,
    /// The per-move limit.
    pub move_fuel: u64,
    /// Whether it was the course server's check that stopped (its smoke
    /// games, under a budget of their own), not the rubric's games.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub check: bool,
}

impl OverBudget {
    /// For the student, in one line: what happened and what to do.
    pub fn line(&self) -> String {
        let fuel = arena_sandbox::fuel_amount;
        let per_move = self.used / self.moves.max(1);
        // What the whole grading allows a move on average, at the moves a
        // game took so far.
        let moves_per_game = self.moves as f64 / self.played.max(1) as f64;
        let allowed = self.budget as f64 / (moves_per_game * self.games as f64).max(1.0);
        let (what, whose) = if self.check {
            ("the check's smoke games stopped", "the check's games")
        } else {
            ("grading stopped", "one submission's grading")
        };
        format!(
            "over the grading budget: {what} after {} of {} games, when the bot had used {} fuel, \
             more than the {} (about {}) the course gives {whose}; its moves used {} on average, \
             and {} games allow about {} a move: make most moves cheaper (the limit of {} is for the hardest \
             moves, not every move), see the fuel per move `arena check` reports, and upload again",
            self.played,
            self.games,
            fuel(self.used),
            fuel(self.budget),
            duration_words(seconds_of(self.budget)),
            fuel(per_move),
            self.games,
            fuel(allowed as u64),
            fuel(self.move_fuel)
        )
    }
}

/// What a meter may be told of each game, from any thread.
pub type Hook<'a> = &'a (dyn Fn(Progress) + Sync);

#[derive(Default)]
struct State {
    games: usize,
    played: usize,
    fuel: u64,
    moves: u64,
    over: Option<OverBudget>,
    late: Option<String>,
}

/// Counts one submission's games and fuel while it is graded, tells a
/// hook after each game, and stops the grading past its budget.
pub struct Meter<'a> {
    budget: u64,
    move_fuel: u64,
    hook: Option<Hook<'a>>,
    started: Instant,
    state: Mutex<State>,
    /// Added to what the hook is told, never to what is counted: the
    /// other part of a course server's grading (the check's games before
    /// the rubric's, or the rubric's after the check's).
    shown_with: Progress,
    /// Whether this meter counts the check's games (its verdict says so).
    check: bool,
}

impl<'a> Meter<'a> {
    /// A meter of `budget` fuel for a grading of `games` games, told to `hook`.
    pub fn new(budget: u64, move_fuel: u64, games: usize, hook: Option<Hook<'a>>) -> Meter<'a> {
        let meter = Meter {
            budget,
            move_fuel,
            hook,
            started: Instant::now(),
            state: Mutex::new(State {
                games,
                ..State::default()
            }),
            shown_with: Progress::start(0, 0),
            check: false,
        };
        meter.tell();
        meter
    }

    /// A meter of a course server's check: `budget` for its `games`, told
    /// to `hook` as part of a whole grading with `then` (the rubric's games
    /// and budget) after it; the grading that follows has a meter of its
    /// own ([`Meter::after`]), so it is metered exactly as `arena grade`
    /// meters it.
    pub fn check(budget: u64, move_fuel: u64, games: usize, then: Progress, hook: Option<Hook<'a>>) -> Meter<'a> {
        let mut meter = Meter::new(budget, move_fuel, games, None);
        meter.shown_with = then;
        meter.check = true;
        meter.hook = hook;
        meter.tell();
        meter
    }

    /// The meter of the grading after `before` (the check's), counting only
    /// its own games against `budget` and telling `hook` the whole.
    pub fn after(before: &Meter<'_>, budget: u64, move_fuel: u64, games: usize, hook: Option<Hook<'a>>) -> Meter<'a> {
        let shown = before.own();
        let mut meter = Meter::new(budget, move_fuel, games, None);
        meter.shown_with = shown;
        meter.hook = hook;
        meter
    }

    /// The budget.
    pub fn budget(&self) -> u64 {
        self.budget
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Where the grading is.
    pub fn progress(&self) -> Progress {
        let own = self.own();
        let w = self.shown_with;
        Progress {
            played: own.played + w.played,
            games: own.games + w.games,
            fuel: own.fuel.saturating_add(w.fuel),
            budget: own.budget.saturating_add(w.budget),
        }
    }

    /// This meter's own count, without what it is shown with.
    fn own(&self) -> Progress {
        let s = self.state();
        Progress {
            played: s.played,
            games: s.games,
            fuel: s.fuel,
            budget: self.budget,
        }
    }

    fn tell(&self) {
        if let Some(hook) = self.hook {
            hook(self.progress());
        }
    }

    /// Why the grading stopped over its budget, if it did.
    pub fn over(&self) -> Option<OverBudget> {
        self.state().over.clone()
    }

    /// Why the grading was given up on the wall clock, if it was: the
    /// machine's failure, not the bot's (the grading may run again).
    pub fn late(&self) -> Option<String> {
        self.state().late.clone()
    }

    /// Whether the grading must stop (over its budget, or late).
    pub fn stopped(&self) -> bool {
        let s = self.state();
        s.over.is_some() || s.late.is_some()
    }

    /// Units to play in the next batch of a match whose units are
    /// `per_unit` games each, on the current thread pool: as many as the
    /// budget left affords at the fuel per game so far, at least one per
    /// thread (one per thread before any game: a probe), at most 64 per
    /// thread. So a grading stopped by its budget has played at most about
    /// one unit per thread past it.
    pub fn batch(&self, per_unit: usize) -> usize {
        let threads = rayon::current_num_threads().max(1);
        let s = self.state();
        if s.played == 0 {
            return threads;
        }
        let per_game = (s.fuel / s.played as u64).max(1);
        let left = self.budget.saturating_sub(s.fuel);
        let units = usize::try_from(left / per_game).unwrap_or(usize::MAX) / per_unit.max(1);
        units.clamp(threads, 64 * threads)
    }

    /// Play `spec` (the graded submission in entrant 0) in batches this
    /// meter affords, each game counted ([`Meter::played`]) and then
    /// handed to `each`; the match stops past the budget.
    pub fn play(
        &self,
        spec: &MatchSpec<'_>,
        mut each: impl FnMut(&Played),
    ) -> Result<arena_runner::runner::MatchReport, SetupError> {
        let per_unit = arena_runner::runner::seat_orders(spec.entrants.len().max(1));
        arena_runner::runner::play_match_paced(
            spec,
            || self.batch(per_unit),
            |played| {
                each(&played);
                self.played(&played, 0)
            },
        )
    }

    /// A game of the graded submission (entrant `me` of its match) was
    /// played: its fuel counted; `Break` once the budget is spent (the
    /// game that crossed it is counted) or the wall-clock backstop passed.
    pub fn played(&self, p: &Played, me: usize) -> ControlFlow<()> {
        let seat = p.result.seats.iter().position(|&b| b == me);
        let usage = seat.and_then(|s| p.fuel.get(s)).and_then(Option::as_ref);
        let (fuel, moves) = usage.map_or((0, 0), |u| (u.total(), u.moves().count() as u64));
        let stop = {
            let mut s = self.state();
            s.played += 1;
            s.games = s.games.max(s.played);
            s.fuel = s.fuel.saturating_add(fuel);
            s.moves += moves;
            if s.over.is_none() && s.fuel > self.budget {
                s.over = Some(OverBudget {
                    budget: self.budget,
                    used: s.fuel,
                    played: s.played,
                    games: s.games,
                    moves: s.moves,
                    move_fuel: self.move_fuel,
                    check: self.check,
                });
            }
            let backstop =
                Duration::from_secs_f64(seconds_of(self.budget) * f64::from(WALL_CLOCK_MARGIN)).max(MIN_BACKSTOP);
            if s.late.is_none() && self.started.elapsed() > backstop {
                s.late = Some(format!(
                    "grading took more than {} of wall-clock time, {WALL_CLOCK_MARGIN} times what its fuel budget \
                     takes on the reference machine: the machine is too slow or too busy; it is graded again later",
                    duration_words(backstop.as_secs_f64())
                ));
            }
            s.over.is_some() || s.late.is_some()
        };
        self.tell();
        if stop {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_say_games_share_and_time_left() {
        let p = Progress {
            played: 120,
            games: 360,
            fuel: 120 * 7_350_000_000,
            budget: DEFAULT_FUEL,
        };
        // 0.5 s a game at the reference rate, 240 games left: 2 minutes.
        assert_eq!(
            p.words(),
            "120 of 360 games played (33%), about 2 minutes left (at most 15 minutes in all)"
        );
        assert_eq!(
            Progress::start(362, DEFAULT_FUEL).estimate_words(),
            "up to 362 games, at most 15 minutes (the course's grading budget)"
        );
    }

    #[test]
    fn over_budget_says_what_happened_and_what_to_do_in_one_line() {
        let o = OverBudget {
            budget: DEFAULT_FUEL,
            used: 9_000_000_000_000,
            played: 3,
            games: 301,
            moves: 225,
            move_fuel: 44_000_000_000,
            check: false,
        };
        let line = o.line();
        assert!(!line.contains('\n'), "{line}");
        assert!(
            line.starts_with("over the grading budget: grading stopped after 3 of 301 games"),
            "{line}"
        );
        assert!(line.contains("make most moves cheaper"), "{line}");
        assert!(line.contains("about 15 minutes"), "{line}");
    }
}
