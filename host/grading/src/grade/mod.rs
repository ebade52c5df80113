//! Auto-grading: a submission against the house bots, scored with a rubric.
//!
//! Every student meets the same deals (the seeds come from the rubric, not
//! the student), seats are swapped on each deal, and the fuel budget, not
//! the clock, decides timeouts: the same submission, rubric and seed give
//! the same grade on any machine.

pub mod gradescope;
pub mod lms;
pub mod rubric;
pub mod submissions;

pub use rubric::{Item, Measure, Rubric};

use crate::games::derive_seed;
use crate::runner::{
    BotRef, Entrant, GameDef, GameResult, GameSetup, MatchReport, MatchSpec, SetupError, play_match, run_match,
};
use crate::sandbox::{Limits, Sandbox};
use crate::stats::{Estimate, estimate};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;

/// One rubric item, measured and scored.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct ItemResult {
    /// The item's name.
    pub name: String,
    /// What was measured.
    pub measure: Measure,
    /// Against whom (or which baseline).
    pub against: Vec<String>,
    /// The measured value, if measured.
    pub value: Option<f64>,
    /// Its 95% confidence interval.
    pub ci95: Option<[f64; 2]>,
    /// Games played for it.
    pub games: usize,
    /// Points earned.
    pub points: f64,
    /// Points possible.
    pub max_points: f64,
    /// Whether students see it.
    pub visible: bool,
    /// Its own Gradescope visibility, if the rubric gives it one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visibility: Option<gradescope::Visibility>,
    /// `graded`, `pending` (class ranking without a tournament, never counted) or `rejected`.
    #[serde(deserialize_with = "known_status")]
    pub status: Word,
    /// For people: the verdict, and a warning when a threshold lies inside the interval.
    pub note: String,
    /// Games of the item in which the submission forfeited, by index (for replays).
    #[serde(skip)]
    pub forfeit_games: Vec<usize>,
    /// The item's worst game, to show as its replay (`None`: no game was bad, e.g. none lost).
    #[serde(skip)]
    pub sample_game: Option<usize>,
    /// How the submission behaved in the item's games.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conduct: Option<Conduct>,
}

/// How a submission behaved: forfeits by reason, illegal moves played on,
/// and the fuel its moves used against the per-move budget.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Conduct {
    /// Games played.
    pub games: u32,
    /// Forfeits by reason (every reason listed).
    pub forfeits: BTreeMap<String, u32>,
    /// Illegal answers the games played on under the course's rule.
    pub illegal_moves: u32,
    /// Calls after the first move (moves, and calls such as En Garde's
    /// `start-round`): each has the per-move budget.
    pub calls: u64,
    /// Mean fuel per call.
    pub mean_fuel_per_call: f64,
    /// The most fuel one call used.
    pub max_fuel_per_call: u64,
    /// `max_fuel_per_call` as a share of the per-move budget (above 1: the bank paid).
    pub worst_share_of_budget: f64,
}

impl Conduct {
    /// The submission's conduct in a match, from its summary.
    pub fn of(bot: &crate::runner::BotSummary) -> Conduct {
        let fuel = bot.fuel.as_ref();
        Conduct {
            games: bot.games,
            forfeits: bot.forfeits.clone(),
            illegal_moves: bot.illegal_moves,
            calls: fuel.map_or(0, |f| f.moves),
            mean_fuel_per_call: fuel.map_or(0.0, |f| f.mean_per_move),
            max_fuel_per_call: fuel.map_or(0, |f| f.max_per_move),
            worst_share_of_budget: fuel.map_or(0.0, |f| f.worst_share),
        }
    }

    /// Both together: counts added, the mean weighted by moves, the worst kept.
    pub fn add(&mut self, other: &Conduct) {
        let calls = self.calls + other.calls;
        if calls > 0 {
            self.mean_fuel_per_call = (self.mean_fuel_per_call * self.calls as f64
                + other.mean_fuel_per_call * other.calls as f64)
                / calls as f64;
        }
        self.calls = calls;
        self.games += other.games;
        for (reason, n) in &other.forfeits {
            *self.forfeits.entry(reason.clone()).or_default() += n;
        }
        self.illegal_moves += other.illegal_moves;
        self.max_fuel_per_call = self.max_fuel_per_call.max(other.max_fuel_per_call);
        self.worst_share_of_budget = self.worst_share_of_budget.max(other.worst_share_of_budget);
    }

    /// Forfeits of every reason.
    pub fn total_forfeits(&self) -> u32 {
        self.forfeits.values().sum()
    }

    /// The worst call's share of the per-move budget for people: `38.2%`, `<0.1%`.
    pub fn worst_share_text(&self) -> String {
        match 100.0 * self.worst_share_of_budget {
            p if p > 0.0 && p < 0.1 => "<0.1%".to_string(),
            p => format!("{p:.1}%"),
        }
    }

    /// The forfeits of each reason that occurred: `3 trap, 1 fuel`.
    pub fn forfeits_by_reason(&self) -> String {
        let by: Vec<String> = self
            .forfeits
            .iter()
            .filter(|(_, k)| **k > 0)
            .map(|(r, k)| format!("{k} {r}"))
            .collect();
        by.join(", ")
    }

    /// For people, in one line; `None` when no game was played.
    pub fn describe(&self) -> Option<String> {
        if self.games == 0 {
            return None;
        }
        let forfeits = match self.total_forfeits() {
            0 => "no forfeits".to_string(),
            n => format!(
                "{n} forfeit{} ({})",
                if n == 1 { "" } else { "s" },
                self.forfeits_by_reason()
            ),
        };
        let illegal = match self.illegal_moves {
            0 => String::new(),
            n => format!(", {n} illegal move{} played on", if n == 1 { "" } else { "s" }),
        };
        let fuel = if self.calls > 0 {
            let share = self.worst_share_text();
            format!(
                "; fuel per call: mean {}, max {} ({share} of the per-move budget)",
                fuel_words(self.mean_fuel_per_call),
                fuel_words(self.max_fuel_per_call as f64),
            )
        } else {
            String::new()
        };
        Some(format!("{} games: {forfeits}{illegal}{fuel}", self.games))
    }
}

/// Fuel in round words: 1.2M, 830k, 412.
fn fuel_words(x: f64) -> String {
    crate::sandbox::fuel_amount(x.round() as u64)
}

/// A graded submission.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct GradeReport {
    /// The student id (the file stem).
    pub student: String,
    /// The identifier the LMS knows the student by (Canvas user id, Moodle
    /// participant id, Gradescope SID), when the class folder was an export.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The student's email, when the export gives it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// A group submission's members, each given this grade.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<submissions::Member>,
    /// The file graded.
    pub file: String,
    /// Why this file was taken as the bot, when the student's folder held several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chosen_because: Option<String>,
    /// The student's folder name in the output (unique in the class).
    #[serde(skip)]
    pub folder: String,
    /// SHA-256 of the file.
    pub sha256: Option<String>,
    /// The game.
    pub game: String,
    /// `graded` or `rejected`.
    #[serde(deserialize_with = "known_status")]
    pub status: Word,
    /// Why a submission was rejected.
    pub reason: Option<String>,
    /// The rubric's seed.
    pub seed: u64,
    /// Games per item.
    pub games: usize,
    /// The limits the submission ran under.
    pub limits: Limits,
    /// What an illegal move cost (the rubric's `illegal`, or `--illegal`).
    pub illegal: crate::games::IllegalMoves,
    /// The host version.
    #[serde(deserialize_with = "this_arena")]
    pub arena_version: Word,
    /// The wasmtime version (fuel costs may change between releases).
    #[serde(deserialize_with = "this_wasmtime")]
    pub wasmtime_version: Word,
    /// The version of the sandbox's fuel prices the bots ran under.
    pub fuel_prices: u32,
    /// Every item.
    pub items: Vec<ItemResult>,
    /// Points earned.
    pub total: f64,
    /// Points possible (pending items excluded).
    pub max_total: f64,
    /// How the submission behaved over every item's games.
    pub conduct: Conduct,
    /// The house bot whose games it matched exactly, in every game of every
    /// item (an unchanged `arena new --from` template, a copy of the
    /// house bot in another language): `house:aggressive`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plays_like: Option<String>,
    /// The submission's worst game, for a replay: (item, game index).
    #[serde(skip)]
    pub worst: Option<(usize, usize)>,
    /// Whether the submission was rejected for forfeiting its smoke game
    /// (game 0 of [`Grader::smoke_spec`], which a replay can show).
    #[serde(skip)]
    pub smoke_forfeited: bool,
    /// How long grading it took (Gradescope's `execution_time`); not in
    /// the report, which must be the same on every run.
    #[serde(skip)]
    pub elapsed: std::time::Duration,
}

/// A fixed word of a report (a status, a version). Named, not written
/// `&'static str`, because serde would otherwise borrow it from the input
/// instead of reading it with the function its field names.
pub type Word = &'static str;

/// A status read back: one of the few a report writes.
fn known_status<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let s = <String as serde::Deserialize>::deserialize(d)?;
    ["graded", "pending", "rejected"]
        .into_iter()
        .find(|k| *k == s)
        .ok_or_else(|| serde::de::Error::custom(format!("unknown status `{s}`")))
}

/// A version read back: this arena's, or the report is another arena's.
fn this_version<'de, D: serde::Deserializer<'de>>(d: D, this: &'static str) -> Result<&'static str, D::Error> {
    let s = <String as serde::Deserialize>::deserialize(d)?;
    if s == this {
        Ok(this)
    } else {
        Err(serde::de::Error::custom(format!(
            "graded by version {s}, this is {this}"
        )))
    }
}

fn this_arena<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    this_version(d, arena_runner::VERSION)
}

fn this_wasmtime<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    this_version(d, crate::replay::WASMTIME_VERSION)
}

/// A report with what its JSON leaves out (which games its replay pages
/// show, how long it took), so a grade made on one machine can be written
/// up on another exactly as there.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct CarriedReport {
    /// The report.
    pub report: GradeReport,
    folder: String,
    worst: Option<(usize, usize)>,
    smoke_forfeited: bool,
    elapsed_seconds: f64,
    /// Per item: games forfeited, and the game its replay shows.
    items: Vec<(Vec<usize>, Option<usize>)>,
}

impl CarriedReport {
    /// Carry `report` whole.
    pub fn new(report: &GradeReport) -> CarriedReport {
        CarriedReport {
            folder: report.folder.clone(),
            worst: report.worst,
            smoke_forfeited: report.smoke_forfeited,
            elapsed_seconds: report.elapsed.as_secs_f64(),
            items: report
                .items
                .iter()
                .map(|i| (i.forfeit_games.clone(), i.sample_game))
                .collect(),
            report: report.clone(),
        }
    }

    /// The report as it was made.
    pub fn into_report(self) -> GradeReport {
        let mut r = self.report;
        r.folder = self.folder;
        r.worst = self.worst;
        r.smoke_forfeited = self.smoke_forfeited;
        r.elapsed = std::time::Duration::try_from_secs_f64(self.elapsed_seconds).unwrap_or_default();
        for (item, (forfeits, sample)) in r.items.iter_mut().zip(self.items) {
            item.forfeit_games = forfeits;
            item.sample_game = sample;
        }
        r
    }
}

impl GradeReport {
    /// The report for people, as `arena grade` prints it.
    pub fn text(&self) -> String {
        let report = self;
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} ({}): {} / {} points",
            report.student, report.game, report.total, report.max_total
        );
        if let Some(reason) = &report.reason {
            let _ = writeln!(s, "  rejected: {reason}");
        }
        for i in &report.items {
            // A pending item is not counted: "0 / 10" would read as points lost.
            let points = if i.status == "pending" {
                format!("{:>13}", "pending")
            } else {
                format!("{:>5} / {:<5}", i.points, i.max_points)
            };
            let _ = writeln!(
                s,
                "  {points} {}{}: {}",
                i.name,
                if i.visible { "" } else { " (hidden)" },
                i.note
            );
        }
        if let Some(conduct) = report.conduct.describe() {
            let _ = writeln!(s, "  conduct over {conduct}");
        }
        if let Some(house) = &report.plays_like {
            let _ = writeln!(s, "  {}", plays_like_note(house));
        }
        if let Some(why) = &report.chosen_because {
            let _ = writeln!(s, "  file: {why}");
        }
        let _ = writeln!(
            s,
            "  seed {}, {} games per item, fuel {} per move, arena {}, wasmtime {}, fuel prices {}, sha256 {}",
            report.seed,
            report.games,
            crate::sandbox::fuel_amount(report.limits.fuel),
            report.arena_version,
            report.wasmtime_version,
            report.fuel_prices,
            report.sha256.as_deref().unwrap_or("-")
        );
        s
    }

    /// Why the submission was rejected, as its student reads it: the file
    /// by its name rather than the teacher's path to it, and, when the class
    /// report's replay pages are in `replays` (a folder beside the report),
    /// the page of the smoke game that rejected it, where the bot's whole
    /// log is.
    pub fn reason_for_student(&self, replays: Option<&str>) -> Option<String> {
        let reason = self.reason.as_ref()?;
        let name = Path::new(&self.file)
            .file_name()
            .map_or(self.file.clone(), |n| n.to_string_lossy().into_owned());
        let mut said = match reason.strip_prefix(self.file.as_str()) {
            Some(rest) if !self.file.is_empty() => format!("{name}{rest}"),
            _ => reason.clone(),
        };
        if let (true, Some(dir)) = (self.smoke_forfeited, replays) {
            said.push_str(&format!(
                "; the game and the bot's whole log: {dir}/{}",
                smoke_replay_file(&self.folder)
            ));
        }
        Some(said)
    }

    fn recount(&mut self) {
        let counted = self.items.iter().filter(|i| i.status != "pending");
        self.total = counted.clone().map(|i| i.points).sum();
        self.max_total = counted.map(|i| i.max_points).sum();
    }
}

/// The replay page of a submission's smoke game in a class report's
/// replay folder, named after the submission's folder in the report.
pub fn smoke_replay_file(folder: &str) -> String {
    format!("{folder}-smoke-game.html")
}

pub use crate::text::thousands;

/// What a report says of a submission that plays like `house` (its
/// `plays_like`): in the teacher's words and the student's.
pub fn plays_like_note(house: &str) -> String {
    format!(
        "plays like {house}: every game of every item ended exactly as {house}'s did in its seat \
         (an unchanged `arena new` template, or a copy of the house bot)"
    )
}

/// How every game of a match ended, by seat (scores, winner, positions),
/// folded in game order into one SHA-256: two bots play alike in an item
/// when its digests are equal. A digest, not the list, so that grading
/// holds no memory per game.
#[derive(Default)]
struct Outcomes(Sha256);

impl Outcomes {
    fn add(&mut self, r: &GameResult) {
        let h = &mut self.0;
        h.update((r.scores.len() as u64).to_le_bytes());
        for s in &r.scores {
            h.update(s.to_le_bytes());
        }
        match r.winner {
            Some(w) => {
                h.update([1]);
                h.update((w as u64).to_le_bytes());
            }
            None => h.update([0]),
        }
        match &r.positions {
            Some(p) => {
                h.update([1]);
                h.update((p.len() as u64).to_le_bytes());
                for x in p {
                    h.update(x.to_le_bytes());
                }
            }
            None => h.update([0]),
        }
    }

    fn digest(self) -> [u8; 32] {
        self.0.finalize().into()
    }
}

/// An item graded: its result, its worst game (badness, index), and the
/// digest of its games' outcomes (none for an item the class tournament grades).
type GradedItem = (ItemResult, Option<(f64, usize)>, Option<[u8; 32]>);

/// The digest of how every game of a match ended ([`Outcomes`]), played
/// without keeping its games.
fn outcomes(spec: &MatchSpec<'_>) -> Result<[u8; 32], SetupError> {
    let mut outcomes = Outcomes::default();
    play_match(spec, |played| {
        outcomes.add(&played.result);
        ControlFlow::Continue(())
    })?;
    Ok(outcomes.digest())
}

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

impl Grader<'_> {
    fn empty_report(&self, student: &str, path: &Path) -> GradeReport {
        GradeReport {
            student: student.to_string(),
            id: None,
            email: None,
            members: Vec::new(),
            file: path.display().to_string(),
            chosen_because: None,
            folder: student.to_string(),
            sha256: sha256_of(path),
            game: self.game.name().to_string(),
            status: "graded",
            reason: None,
            seed: self.rubric.seed,
            games: self.games,
            limits: self.sandbox.limits().clone(),
            illegal: self.rubric.illegal,
            arena_version: arena_runner::VERSION,
            wasmtime_version: crate::replay::WASMTIME_VERSION,
            fuel_prices: crate::sandbox::PRICES_VERSION,
            items: Vec::new(),
            total: 0.0,
            max_total: 0.0,
            conduct: Conduct::default(),
            plays_like: None,
            worst: None,
            smoke_forfeited: false,
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
        let mut report = self.empty_report(student, source);
        report.sha256 = None;
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
        let report = self.empty_report(student, path);
        let program = match self.sandbox.load(path, self.game.worlds()) {
            Ok(p) => p,
            Err(e) => return Ok((self.rejected(report, e.to_string()), None)),
        };
        let me = Entrant {
            name: student.to_string(),
            bot: BotRef::Wasm(Arc::new(program)),
        };
        let out = run_match(&self.smoke_spec(&me))?;
        if let Some(f) = out
            .report
            .results
            .iter()
            .flat_map(|r| r.forfeits.iter().filter(move |f| r.seats[f.seat] == 0))
            .next()
        {
            let reason = format!("the smoke game was forfeited ({}: {})", f.reason, f.detail);
            let mut rejected = self.rejected(report, reason);
            rejected.smoke_forfeited = true;
            // How it failed there is the one conduct the gradebook can show.
            rejected.conduct = out.report.bots.first().map(Conduct::of).unwrap_or_default();
            return Ok((rejected, Some(me)));
        }
        let mut report = report;
        let mut worst: Option<(f64, usize, usize)> = None;
        let mut games: Vec<(usize, [u8; 32])> = Vec::new();
        for (index, item) in self.rubric.items.iter().enumerate() {
            let (result, bad, outcomes) = self.grade_item(index, item, &me)?;
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
        report.worst = worst.map(|(_, i, g)| (i, g));
        report.plays_like = self.plays_like(&games)?;
        report.recount();
        Ok((report, Some(me)))
    }

    /// The house bot that, in the submission's seat, plays every game of
    /// every item to the same result: the submission plays like it.
    fn plays_like(&self, games: &[(usize, [u8; 32])]) -> Result<Option<String>, SetupError> {
        if games.is_empty() {
            return Ok(None);
        }
        'house: for (name, _) in self.game.house_bots() {
            let bot = house(&format!("house:{name}"));
            for (index, mine) in games {
                let item = &self.rubric.items[*index];
                if outcomes(&self.item_spec(*index, &bot, &item.against))? != *mine {
                    continue 'house;
                }
            }
            return Ok(Some(format!("house:{name}")));
        }
        Ok(None)
    }

    fn grade_item(&self, index: usize, item: &Item, me: &Entrant) -> Result<GradedItem, SetupError> {
        let mut result = ItemResult {
            name: item.name.clone(),
            measure: item.measure,
            against: item.against.iter().chain(&item.baseline).cloned().collect(),
            value: None,
            ci95: None,
            games: 0,
            points: 0.0,
            max_points: item.max_points(),
            visible: item.visible,
            visibility: item.visibility,
            status: "graded",
            note: String::new(),
            forfeit_games: Vec::new(),
            sample_game: None,
            conduct: None,
        };
        if item.measure == Measure::ClassPercentile {
            result.status = "pending";
            result.note = "graded by the class tournament (grade-class --tournament)".into();
            return Ok((result, None, None));
        }
        let spec = self.item_spec(index, me, &item.against);
        let mine = |r: &GameResult| r.seats.iter().position(|&b| b == 0).unwrap_or(0);
        // Per game: its sample (averaged over each deal's games for a rate
        // or a position, the deal being the independent unit) and how bad
        // it was for the submission (its worst game is the one shown).
        let value = |r: &GameResult| match item.measure {
            Measure::WinRate => score_of_win(r, mine(r)),
            Measure::MeanPosition => r.positions.as_ref().map_or(f64::NAN, |p| f64::from(p[mine(r)])),
            _ => r.scores[0] as f64,
        };
        let badness = |r: &GameResult| match item.measure {
            Measure::WinRate => {
                let s = mine(r);
                (r.winner.is_some_and(|w| w != s)).then(|| (r.scores[1 - s] - r.scores[s]) as f64 + 1000.0)
            }
            Measure::MeanPosition => r.positions.as_ref().map(|p| f64::from(p[mine(r)])),
            _ => Some(-(r.scores[0] as f64)),
        };
        let by_deal = matches!(item.measure, Measure::WinRate | Measure::MeanPosition);
        // What the games leave behind: one number per deal (or per game),
        // never the games themselves.
        let mut samples: Vec<f64> = Vec::new();
        let mut deal: Vec<f64> = Vec::new();
        let mut worst: Option<(f64, usize)> = None;
        let mut digest = Outcomes::default();
        let mut games = 0;
        let report = play_match(&spec, |played| {
            let r = &played.result;
            games += 1;
            digest.add(r);
            if r.forfeits.iter().any(|f| r.seats[f.seat] == 0) {
                result.forfeit_games.push(r.index);
            }
            if let Some(b) = badness(r)
                && worst.is_none_or(|(w, _)| b > w)
            {
                worst = Some((b, r.index));
            }
            if by_deal {
                deal.push(value(r));
                if deal.len() == crate::runner::seat_orders(r.seats.len().max(1)) {
                    samples.push(deal_mean(&deal));
                    deal.clear();
                }
            } else {
                samples.push(value(r));
            }
            ControlFlow::Continue(())
        })?;
        if !deal.is_empty() {
            samples.push(deal_mean(&deal));
        }
        result.conduct = report.bots.first().map(Conduct::of);
        if let (false, Some(b)) = (by_deal, &item.baseline) {
            // Each game's score less the house baseline's in the same deal and seat.
            let mut k = 0;
            let mut less = Vec::with_capacity(samples.len());
            play_match(&self.item_spec(index, &house(b), &[]), |played| {
                if let Some(own) = samples.get(k) {
                    less.push(own - played.result.scores[0] as f64);
                }
                k += 1;
                ControlFlow::Continue(())
            })?;
            samples = less;
        }
        let mut e = estimate(&samples);
        if item.measure == Measure::WinRate {
            // A rate: the Wilson interval over the deals (the independent
            // unit), which keeps its width at 0%, 100% and at a tie.
            e.ci95 = crate::stats::wilson(e.mean, samples.len());
        }
        if item.measure == Measure::MeanPosition {
            // A position is 1 to the table's size: so is any interval of its mean.
            let seats = spec.entrants.len() as f64;
            e.ci95 = [e.ci95[0].clamp(1.0, seats), e.ci95[1].clamp(1.0, seats)];
        }
        result.games = games;
        result.value = Some(e.mean);
        result.ci95 = Some(e.ci95);
        result.points = item.points(e.mean);
        result.note = verdict(item, &e, games);
        result.sample_game = worst.map(|(_, g)| g);
        Ok((result, worst, Some(digest.digest())))
    }

    /// The replay of game `game` of item `item` for `me`, as JSON lines.
    pub fn replay(&self, item: usize, game: usize, me: &Entrant) -> Result<Vec<u8>, SetupError> {
        let rubric_item = &self.rubric.items[item];
        let spec = self.item_spec(item, me, &rubric_item.against);
        let crate::runner::Played { result, events, .. } = crate::runner::play_match_game_recorded(&spec, game)?;
        let outcome = crate::runner::MatchOutcome {
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
        let _ = crate::replay::write_match(&mut out, &outcome, &spec.entrants);
        Ok(out)
    }
}

fn score_of_win(r: &GameResult, seat: usize) -> f64 {
    match r.winner {
        Some(w) if w == seat => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    }
}

/// The mean of one deal's games (one per seat order): the deal is the independent unit.
fn deal_mean(deal: &[f64]) -> f64 {
    deal.iter().sum::<f64>() / deal.len() as f64
}

fn verdict(item: &Item, e: &Estimate, games: usize) -> String {
    let fmt = |x: f64| match item.measure {
        Measure::WinRate => format!("{:.1}%", 100.0 * x),
        _ => format!("{x:.2}"),
    };
    let tie = if item.measure == Measure::WinRate && e.mean == 0.5 {
        "a tie: "
    } else {
        ""
    };
    let interval = if item.measure == Measure::WinRate {
        "95% Wilson CI"
    } else {
        "95% CI"
    };
    let mut note = format!(
        "{tie}{} ({interval} {} to {}) over {games} games",
        fmt(e.mean),
        fmt(e.ci95[0]),
        fmt(e.ci95[1])
    );
    let lower = item.measure.lower_is_better();
    let missed: Vec<String> = item
        .thresholds
        .iter()
        .filter(|t| t.strict && e.mean == t.at)
        .map(|t| t.describe(lower))
        .collect();
    if !missed.is_empty() {
        note.push_str(&format!(
            "; exactly at the threshold, which must be beaten ({}): no points for equal",
            missed.join(", ")
        ));
    }
    // Strictly inside: an exact result (a zero-width interval) is not a close call.
    let close: Vec<String> = item
        .thresholds
        .iter()
        .filter(|t| e.ci95[0] < t.at && t.at < e.ci95[1])
        .map(|t| fmt(t.at))
        .collect();
    if !close.is_empty() {
        let (what, lie) = if close.len() == 1 {
            ("threshold", "lies")
        } else {
            ("thresholds", "lie")
        };
        // Every deal split evenly: a copy of its opponent does exactly that,
        // and no number of games breaks its tie.
        let settle = if item.measure == Measure::WinRate && e.sd == 0.0 && e.mean == 0.5 && e.n > 1 {
            "every deal was split evenly, as a bot that plays exactly like its opponent always does, however many games"
        } else {
            "more games per item (--games) would settle it"
        };
        note.push_str(&format!(
            "; too close to call: the {what} {} {lie} inside the interval; {settle}",
            close.join(", ")
        ));
    }
    note
}

/// Score the class-percentile items of `report` for a bot ranked `rank` of `n` (1 = first).
pub fn apply_ranking(report: &mut GradeReport, rubric: &Rubric, rank: usize, place: usize, n: usize) {
    let percentile = if n <= 1 {
        1.0
    } else {
        (n - rank) as f64 / (n - 1) as f64
    };
    // The standings' place and the rank that earns points differ when the
    // games cannot tell bots apart: say why, so the two never look at odds.
    let why = if place == rank {
        String::new()
    } else {
        let ahead = rank - 1;
        format!(
            "; {} in the standings, but {} clearly ahead of it (a whole 95% interval above): \
             the games cannot tell it from the rest; more --tournament-games would tell them apart",
            crate::text::ordinal(u32::try_from(place).unwrap_or(u32::MAX)),
            match ahead {
                0 => "no bot is".to_string(),
                1 => "only 1 bot is".to_string(),
                k => format!("only {k} bots are"),
            }
        )
    };
    for (item, result) in rubric.items.iter().zip(report.items.iter_mut()) {
        if item.measure == Measure::ClassPercentile && result.status == "pending" {
            result.status = "graded";
            result.value = Some(percentile);
            result.points = item.points(percentile);
            result.note = format!(
                "ranked {rank} of {n} in the class tournament (percentile {:.0}%){why}",
                100.0 * percentile
            );
        }
    }
    report.recount();
}

/// After a class tournament, the class-percentile items of a submission
/// that took no part (a rejected one): 0 points, now counted.
pub fn missed_ranking(report: &mut GradeReport) {
    let why = report.reason.as_deref().unwrap_or("not in the class tournament");
    for result in report.items.iter_mut().filter(|i| i.status == "pending") {
        result.status = "rejected";
        result.points = 0.0;
        result.note = format!("no points: not in the class tournament ({why})");
    }
    report.recount();
}

/// For each student whose file is byte-identical (same SHA-256) to another
/// student's, the others' names, in class order. Only identical bytes: this
/// is not a plagiarism detector (a rebuilt or renamed copy differs).
pub fn same_files<'a>(
    reports: impl IntoIterator<Item = &'a GradeReport>,
) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut by_sha: std::collections::BTreeMap<&str, Vec<&str>> = std::collections::BTreeMap::new();
    for r in reports {
        if let Some(sha) = &r.sha256 {
            by_sha.entry(sha).or_default().push(&r.student);
        }
    }
    let mut out = std::collections::BTreeMap::new();
    for students in by_sha.values().filter(|s| s.len() > 1) {
        for me in students {
            let others = students.iter().filter(|s| *s != me).map(|s| s.to_string()).collect();
            out.insert(me.to_string(), others);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(at: f64) -> Item {
        Item {
            name: "Beats x".into(),
            measure: Measure::WinRate,
            against: vec!["house:x".into()],
            baseline: None,
            visible: true,
            visibility: None,
            thresholds: vec![rubric::Threshold {
                at,
                strict: true,
                points: 10.0,
            }],
        }
    }

    #[test]
    fn a_close_call_says_whether_more_games_can_settle_it() {
        // A win rate over deals, with its Wilson interval as grading gives it.
        let rate = |deals: &[f64]| {
            let e = estimate(deals);
            Estimate {
                ci95: crate::stats::wilson(e.mean, deals.len()),
                ..e
            }
        };
        // Five deals, each split evenly: as a copy of the opponent plays.
        let note = verdict(&item(0.5), &rate(&[0.5; 5]), 10);
        assert!(note.contains("the threshold 50.0% lies inside"), "{note}");
        assert!(note.contains("however many games"), "{note}");
        // Five deals, each won: the same spread of 0, but more games narrow it.
        let note = verdict(&item(0.75), &rate(&[1.0; 5]), 10);
        assert!(note.contains("more games per item (--games) would settle it"), "{note}");
    }
}
