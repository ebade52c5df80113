//! A graded submission as a report: its items, its conduct, and the
//! words people read (`arena grade`'s text, a rejected file's reason), and
//! the report carried whole between machines.

use super::gradescope;
use super::submissions;
use arena_sandbox::Limits;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// One rubric item, measured and scored.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct ItemResult {
    /// The item's name.
    pub name: String,
    /// What was measured.
    pub measure: super::Measure,
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
    pub fn of(bot: &arena_runner::runner::BotSummary) -> Conduct {
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
    arena_sandbox::fuel_amount(x.round() as u64)
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
    pub illegal: arena_core::IllegalMoves,
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
    /// Whether grading stopped because the submission used the course's
    /// whole grading budget, with the numbers (the reason says it in words).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_budget: Option<super::budget::OverBudget>,
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
    this_version(d, arena_runner::replay::WASMTIME_VERSION)
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
            arena_sandbox::fuel_amount(report.limits.fuel),
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

    /// Total the items again (pending ones count for nothing, in neither total).
    pub fn recount(&mut self) {
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

/// What a report says of a submission that plays like `house` (its
/// `plays_like`): in the teacher's words and the student's.
pub fn plays_like_note(house: &str) -> String {
    format!(
        "plays like {house}: every game of every item ended exactly as {house}'s did in its seat \
         (an unchanged `arena new` template, or a copy of the house bot)"
    )
}
