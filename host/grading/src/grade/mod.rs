//! Auto-grading: a submission against the house bots, scored with a rubric.
//!
//! Every student meets the same deals (the seeds come from the rubric, not
//! the student), seats are swapped on each deal, and the fuel budget, not
//! the clock, decides timeouts: the same submission, rubric and seed give
//! the same grade on any machine.

pub mod budget;
pub mod gradescope;
pub mod lms;
pub mod rubric;
pub mod submissions;

pub use rubric::{Item, Measure, Rubric};

mod item;
mod ranking;
mod report;

pub use ranking::{apply_ranking, missed_ranking, same_files};
pub use report::{CarriedReport, Conduct, GradeReport, ItemResult, Word, plays_like_note, smoke_replay_file};

use arena_core::derive_seed;
use arena_runner::runner::{BotRef, Entrant, GameDef, GameSetup, MatchReport, MatchSpec, SetupError};
use arena_sandbox::{BotProgram, Sandbox};
use budget::{Meter, OverBudget};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::sync::Arc;

/// Grades submissions for one game with one rubric.
pub struct Grader<'a> {
    /// The game.
    pub game: &'static dyn GameDef,
    /// The sandbox submissions run in.
    pub sandbox: &'a Sandbox,
    /// The rubric.
    pub rubric: &'a Rubric,
    /// Games per item (the rubric's unless overridden).
    pub games: usize,
    /// Told after each game the submission plays while it is graded.
    pub progress: Option<budget::Hook<'a>>,
}

pub use crate::files::GRADEBOOK_FILE;
pub use crate::files::TOURNAMENT_FILE;

/// The SHA-256 of a regular file, hex, read in pieces (a submission can be
/// any size; a device or a pipe, which could be read forever, has none).
pub fn sha256_of(path: &Path) -> Option<String> {
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let mut hasher = Sha256::new();
    std::io::copy(&mut std::fs::File::open(path).ok()?, &mut hasher).ok()?;
    Some(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

fn house(name: &str) -> Entrant {
    Entrant {
        name: name.to_string(),
        bot: BotRef::House(name.trim_start_matches("house:").to_string()),
    }
}

/// Games a grading by `rubric` at `games` per item plays with the
/// submission: the smoke game and every item's (whole seat rotations; a
/// class ranking plays none).
pub fn games_planned(rubric: &Rubric, games: usize) -> usize {
    let seats = |against: &[String]| against.len() + 1;
    let first = rubric.items.iter().find(|i| !i.against.is_empty());
    let smoke = arena_runner::runner::whole_rotations(1, first.map_or(1, |i| seats(&i.against)));
    smoke
        + rubric
            .items
            .iter()
            .filter(|i| i.measure != Measure::ClassPercentile)
            .map(|i| arena_runner::runner::whole_rotations(games, seats(&i.against)))
            .sum::<usize>()
}

impl<'a> Grader<'a> {
    /// The report of a submission before grading: `sha256` is the file's.
    fn empty_report(&self, student: &str, path: &Path, sha256: Option<String>) -> GradeReport {
        GradeReport {
            student: student.to_string(),
            id: None,
            email: None,
            members: Vec::new(),
            file: path.display().to_string(),
            chosen_because: None,
            folder: student.to_string(),
            sha256,
            game: self.game.name().to_string(),
            status: "graded",
            reason: None,
            seed: self.rubric.seed,
            games: self.games,
            limits: self.sandbox.limits().clone(),
            illegal: self.rubric.illegal,
            arena_version: arena_runner::VERSION,
            wasmtime_version: arena_runner::replay::WASMTIME_VERSION,
            fuel_prices: arena_sandbox::PRICES_VERSION,
            items: Vec::new(),
            total: 0.0,
            max_total: 0.0,
            conduct: Conduct::default(),
            plays_like: None,
            worst: None,
            smoke_forfeited: false,
            over_budget: None,
            elapsed: std::time::Duration::ZERO,
        }
    }

    fn rejected(&self, mut report: GradeReport, reason: String) -> GradeReport {
        report.status = "rejected";
        report.reason = Some(reason);
        // Item notes reach students (Gradescope's tests, the class page): the file by its name.
        let reason = report.reason_for_student(None).unwrap_or_default();
        report.items = self
            .rubric
            .items
            .iter()
            .map(|item| ItemResult {
                name: item.name.clone(),
                measure: item.measure,
                against: item.against.clone(),
                value: None,
                ci95: None,
                games: 0,
                points: 0.0,
                max_points: item.max_points(),
                visible: item.visible,
                visibility: item.visibility,
                // A class ranking waits for a tournament, which a rejected
                // submission cannot enter: 0 if one runs, never counted if not.
                status: if item.measure == Measure::ClassPercentile {
                    "pending"
                } else {
                    "rejected"
                },
                note: if item.measure == Measure::ClassPercentile {
                    "a rejected submission cannot enter the class tournament: 0 points if one runs".to_string()
                } else {
                    format!("no points: {reason}")
                },
                forfeit_games: Vec::new(),
                sample_game: None,
                conduct: None,
            })
            .collect();
        report.recount();
        report
    }

    /// The report of a student without a usable bot (`reason` says why, and the fix).
    pub fn unusable(&self, student: &str, source: &Path, reason: String) -> GradeReport {
        let report = self.empty_report(student, source, None);
        self.rejected(report, reason)
    }

    /// The match an item plays: the submission in entrant 0.
    pub fn item_spec(&self, index: usize, me: &Entrant, opponents: &[String]) -> MatchSpec<'_> {
        let mut entrants = vec![me.clone()];
        entrants.extend(opponents.iter().map(|o| house(o)));
        MatchSpec {
            game: self.game,
            setup: GameSetup {
                illegal: self.rubric.illegal,
                ..GameSetup::new(self.sandbox)
            },
            entrants,
            games: self.games,
            seed: derive_seed(self.rubric.seed, index as u64),
            record: false,
        }
    }

    /// The smoke game every submission plays first (one game against the
    /// first opponents the rubric names): a forfeit there rejects it.
    pub fn smoke_spec(&self, me: &Entrant) -> MatchSpec<'_> {
        let first = self
            .rubric
            .items
            .iter()
            .find(|i| !i.against.is_empty())
            .map(|i| i.against.clone())
            .unwrap_or_default();
        let mut smoke = self.item_spec(usize::MAX, me, &first);
        smoke.games = 1;
        smoke
    }

    /// Grade what a student submitted: a bot file, or a folder holding one
    /// (Gradescope's `/autograder/submission`: its only `.wasm`, or the one
    /// nearest the top, and why in `chosen_because`). A folder without a
    /// usable bot is a rejected report that says why.
    /// An error is the run's own mistake (an unknown house bot), never the student's.
    pub fn grade_submission(&self, student: &str, submission: &Path) -> Result<GradeReport, SetupError> {
        let started = std::time::Instant::now();
        let chosen = if submission.is_dir() {
            submissions::choose(submission)
        } else {
            Ok(submissions::Chosen {
                path: submission.to_path_buf(),
                why: None,
            })
        };
        let mut report = match chosen {
            Ok(c) => {
                let (mut r, _) = self.grade(student, &c.path)?;
                r.chosen_because = c.why;
                r
            }
            Err(reason) => self.unusable(student, submission, reason),
        };
        report.elapsed = started.elapsed();
        Ok(report)
    }

    /// Check, smoke-test and grade one submission.
    /// An error is the run's own mistake (an unknown house bot), never the student's.
    pub fn grade(&self, student: &str, path: &Path) -> Result<(GradeReport, Option<Entrant>), SetupError> {
        match self.sandbox.load(path, self.game.worlds()) {
            Ok(program) => {
                let (report, me) = self.grade_loaded(student, &Arc::new(program))?;
                Ok((report, Some(me)))
            }
            Err(e) => {
                let report = self.empty_report(student, path, sha256_of(path));
                let why = arena_runner::runner::entrants::wrong_game(path, &e, self.game, None)
                    .unwrap_or_else(|| e.to_string());
                Ok((self.rejected(report, why), None))
            }
        }
    }

    /// Games a grading plays with the submission ([`games_planned`]).
    pub fn games_planned(&self) -> usize {
        games_planned(self.rubric, self.games)
    }

    /// A meter of this grader's budget for a grading of `games` games,
    /// told to its progress hook.
    pub fn meter(&self, games: usize) -> Meter<'a> {
        Meter::new(
            self.rubric.grading_fuel,
            self.sandbox.limits().fuel,
            games,
            self.progress,
        )
    }

    /// Smoke-test and grade a submission already loaded in this grader's
    /// sandbox (`program`, loaded once for a whole grading run by
    /// `LoadedBot::load`, say): the report, and the submission as an
    /// entrant for its replay pages.
    /// An error is the run's own mistake (an unknown house bot), never the student's.
    pub fn grade_loaded(&self, student: &str, program: &Arc<BotProgram>) -> Result<(GradeReport, Entrant), SetupError> {
        let meter = self.meter(self.games_planned());
        self.grade_metered(student, program, &meter)
    }

    /// [`Grader::grade_loaded`] under `meter`, which may already count
    /// games played before (the course server's check): past its budget
    /// the grading stops and the submission is rejected as over budget.
    pub fn grade_metered(
        &self,
        student: &str,
        program: &Arc<BotProgram>,
        meter: &Meter<'_>,
    ) -> Result<(GradeReport, Entrant), SetupError> {
        let report = self.empty_report(student, &program.path, Some(program.sha256.clone()));
        let me = Entrant {
            name: student.to_string(),
            bot: BotRef::Wasm(program.clone()),
        };
        if let Some(over) = meter.over() {
            return Ok((self.over_budget(report, over), me));
        }
        let mut games = Vec::new();
        let out = meter.play(&self.smoke_spec(&me), |played| games.push(played.result.clone()))?;
        if let Some(late) = meter.late() {
            return Err(SetupError::Host(late));
        }
        if let Some(f) = games
            .iter()
            .flat_map(|r| r.forfeits.iter().filter(move |f| r.seats[f.seat] == 0))
            .next()
        {
            let reason = format!("the smoke game was forfeited ({}: {})", f.reason, f.detail);
            let mut rejected = self.rejected(report, reason);
            rejected.smoke_forfeited = true;
            // How it failed there is the one conduct the gradebook can show.
            rejected.conduct = out.bots.first().map(Conduct::of).unwrap_or_default();
            return Ok((rejected, me));
        }
        let mut report = report;
        let mut worst: Option<(f64, usize, usize)> = None;
        let mut games: Vec<(usize, [u8; 32])> = Vec::new();
        for (index, item) in self.rubric.items.iter().enumerate() {
            if let Some(over) = meter.over() {
                return Ok((self.over_budget(report, over), me));
            }
            let (result, bad, outcomes) = self.grade_item(index, item, &me, meter)?;
            if let Some(late) = meter.late() {
                return Err(SetupError::Host(late));
            }
            if let Some(o) = outcomes {
                games.push((index, o));
            }
            if let Some((badness, game)) = bad
                && worst.is_none_or(|(b, _, _)| badness > b)
            {
                worst = Some((badness, index, game));
            }
            if let Some(c) = &result.conduct {
                report.conduct.add(c);
            }
            report.items.push(result);
        }
        if let Some(over) = meter.over() {
            return Ok((self.over_budget(report, over), me));
        }
        report.worst = worst.map(|(_, i, g)| (i, g));
        report.plays_like = self.plays_like(&games)?;
        report.recount();
        Ok((report, me))
    }

    /// `report` rejected as over its grading budget: no points, the one
    /// line that says why and what to do, the numbers in `over_budget`.
    fn over_budget(&self, report: GradeReport, over: OverBudget) -> GradeReport {
        let conduct = report.conduct.clone();
        let mut rejected = self.rejected(report, over.line());
        rejected.conduct = conduct;
        rejected.over_budget = Some(over);
        rejected
    }

    /// The replay of game `game` of item `item` for `me`, as JSON lines.
    pub fn replay(&self, item: usize, game: usize, me: &Entrant) -> Result<Vec<u8>, SetupError> {
        let rubric_item = &self.rubric.items[item];
        let spec = self.item_spec(item, me, &rubric_item.against);
        let arena_runner::runner::Played { result, events, .. } =
            arena_runner::runner::play_match_game_recorded(&spec, game)?;
        let outcome = arena_runner::runner::MatchOutcome {
            report: MatchReport {
                game: self.game.name().to_string(),
                variant: self.game.variants()[0].to_string(),
                illegal: self.rubric.illegal,
                seed: spec.seed,
                games: 1,
                limits: self.sandbox.limits().clone(),
                bots: Vec::new(),
                results: vec![result],
            },
            events: vec![events.values()],
        };
        let mut out = Vec::new();
        let _ = arena_runner::replay::write_match(&mut out, &outcome, &spec.entrants);
        Ok(out)
    }
}
