//! The work behind one submission, run off the web server's threads: the
//! file checked as `arena check` checks it (it must load for the course's
//! game and one of its accepted world versions), graded against the house
//! bots by the course's rubric as `arena grade` grades it, and the replay
//! pages of its graded games written for the viewer.

use crate::course::Course;
use arena_grading::check::{CheckError, CheckSpec, check_loaded};
use arena_grading::grade::budget::{Hook, Meter, OverBudget, Progress};
use arena_grading::grade::rubric::Rubric;
use arena_grading::grade::{GradeReport, Grader};
use arena_grading::loaded::LoadedBot;
use arena_runner::runner::settings::RunSettings;
use arena_runner::runner::{BotRef, Entrant, GameDef};
use arena_sandbox::Sandbox;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Gradescope's file of a graded version, beside its replay pages.
pub const RESULTS_FILE: &str = "results.json";

/// Smoke games per opponent of the check, as `arena check` plays by default.
pub const CHECK_GAMES: usize = 20;

/// What a course grades with, made once when the server starts.
pub struct Grading {
    /// The game.
    pub game: &'static dyn GameDef,
    /// The rubric.
    pub rubric: Rubric,
    /// Limits, compile limits and the compile cache.
    pub settings: RunSettings,
    /// The world versions a bot may target.
    pub worlds: Vec<String>,
}

/// What the work found.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Verdict {
    /// Whether the file is a bot the course accepts (it loads for the game).
    pub accepted: bool,
    /// Why not, or why the arena could not finish (one line).
    pub reason: Option<String>,
    /// The toolchain the file was built with, as `arena check` reads it.
    pub toolchain: Option<String>,
    /// `arena check`'s report, as `--json` prints it.
    pub check: Option<serde_json::Value>,
    /// `arena check`'s report as the command prints it.
    pub check_text: Option<String>,
    /// The grade, as `arena grade --json` prints it.
    pub grade: Option<serde_json::Value>,
    /// The grade as `arena grade` prints it.
    pub grade_text: Option<String>,
    /// Points and the most there are.
    pub score: Option<f64>,
    /// The most points there are.
    pub max_score: Option<f64>,
    /// Whether the arena itself failed (not the bot): the job may run again.
    pub failed: bool,
    /// Each graded item's worst game, (item, game) from 0: what its replay page shows.
    #[serde(default)]
    pub worst: Vec<(usize, usize)>,
    /// Gradescope's `results.json` of the grade.
    #[serde(default)]
    pub results: Option<serde_json::Value>,
    /// The grading stopped over the course's grading budget (the rubric's
    /// `grading_minutes`): the numbers; `reason` says it in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_budget: Option<OverBudget>,
}

impl Grading {
    /// The grading of `course`: its game, rubric and limits, checked.
    pub fn new(course: &Course, compiler: Option<PathBuf>) -> Result<Grading, String> {
        let config = &course.config;
        let path = course.rubric_path();
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: cannot read it ({e})", path.display()))?;
        let settings = RunSettings {
            fuel: config.limits.fuel,
            bank: config.limits.bank,
            memory: config.limits.memory,
            max_file_bytes: config.limits.max_file_bytes,
            cache_dir: Some(course.dir.join("cache")),
            cache_max: 4 << 30,
            compiler,
            jobs: None,
            ..RunSettings::default()
        };
        Grading::from_parts(
            &config.game,
            &text,
            &path.display().to_string(),
            settings,
            &config.worlds,
        )
        .map_err(|e| format!("{}: {e}", course.dir.join(crate::course::COURSE_FILE).display()))
    }

    /// The grading of game `game` by the rubric `text` (read from `shown`)
    /// under `settings`, for bots of the world versions `worlds` (none: all):
    /// what a server makes from its course and a worker from what the server sends.
    pub fn from_parts(
        game: &str,
        text: &str,
        shown: &str,
        settings: RunSettings,
        worlds: &[String],
    ) -> Result<Grading, String> {
        let game = arena_runner::runner::entrants::find_game(game).map_err(|e| e.to_string())?;
        let rubric = arena_grading::grade::rubric::parse(text, shown, game)?;
        settings.limits(game).map_err(|e| e.to_string())?;
        let config_worlds = worlds;
        let known: Vec<&str> = game.worlds().iter().map(|w| w.version).collect();
        for w in config_worlds {
            if !known.contains(&w.as_str()) {
                return Err(format!(
                    "world `{w}` is not one of {}'s ({}); list some of those, or none for all",
                    game.name(),
                    known.join(", ")
                ));
            }
        }
        Ok(Grading {
            game,
            rubric,
            settings,
            worlds: config_worlds.to_vec(),
        })
    }

    /// The largest file a student may upload.
    pub fn max_file_bytes(&self) -> u64 {
        self.settings.limits(self.game).map_or(64 << 20, |l| l.max_file_bytes)
    }

    /// Why an upload of `bytes` named `shown` is no bot for this course, if
    /// that shows without compiling it: not WebAssembly, a core module, or a
    /// component whose exports are another game's world (named by its game,
    /// not by its exports). Said in the upload's own response; everything
    /// else (validation, compiling, the smoke games) is the grading job's.
    pub fn refuse_at_upload(&self, shown: &str, bytes: &[u8]) -> Option<String> {
        let worlds = self.game.worlds();
        let newest = worlds.last()?;
        if let Some(e) = arena_sandbox::not_a_component(Path::new(shown), shown, bytes, newest.name) {
            return Some(e.to_string());
        }
        // A file that does not parse is left to the validator's own words;
        // one for another game, or for none, is named as `arena check` names it.
        let game = self.game;
        arena_grading::check::not_for_game(shown, bytes, game, |_| {
            format!(
                "this course plays {}: upload your {} bot (`arena new --game {}` writes a project to start from)",
                game.title(),
                game.title(),
                game.name()
            )
        })
    }

    /// Games a grading plays with the submission (the check's smoke games,
    /// the rubric's smoke game and every item's) and the estimate of its
    /// work before it starts.
    pub fn estimate(&self) -> Progress {
        let check = arena_grading::check::games_planned(self.game, CHECK_GAMES);
        let graded = arena_grading::grade::games_planned(&self.rubric, self.rubric.games);
        // The check's budget and the grading's, as `run_with` gives them.
        Progress::start(check + graded, self.rubric.grading_fuel.saturating_mul(2))
    }

    fn grader<'a>(&'a self, sandbox: &'a Sandbox, progress: Option<Hook<'a>>) -> Grader<'a> {
        Grader {
            game: self.game,
            sandbox,
            rubric: &self.rubric,
            games: self.rubric.games,
            progress,
        }
    }

    /// Check and grade the bot file at `file` (uploaded as `shown`) for
    /// `student`; write the replay pages of its graded games into `pages`.
    pub fn run(&self, file: &Path, shown: &str, student: &str, pages: &Path) -> Verdict {
        self.run_with(file, shown, student, pages, None)
    }

    /// [`Grading::run`], telling `progress` after each game the bot plays
    /// (the check's and the rubric's, under one grading budget).
    pub fn run_with(
        &self,
        file: &Path,
        shown: &str,
        student: &str,
        pages: &Path,
        progress: Option<Hook<'_>>,
    ) -> Verdict {
        let sandbox = |g: &'static dyn GameDef| self.settings.sandbox(g);
        let spec = CheckSpec {
            bot: file,
            game: Some(self.game),
            games: CHECK_GAMES,
            seed: self.rubric.seed,
            illegal: Some(self.rubric.illegal),
            sandbox: &sandbox,
            meter: None,
        };
        // The student reads their file's name, never where the server keeps it.
        let in_words = |text: String| text.replace(&file.display().to_string(), shown);
        let verdict_of = |e: CheckError| match e {
            CheckError::Rejected(why) => Verdict::rejected(in_words(why)),
            CheckError::Failed(e) => Verdict::failed(format!("{e:#}")),
        };
        // Loaded once: the check, the grading and the replay pages play this program.
        let (sandbox, bot) = match arena_grading::check::load(&spec) {
            Ok(loaded) => loaded,
            Err(e) => return verdict_of(e),
        };
        // The check is bounded too, by a budget of its own (the rubric's);
        // the rubric's games then have theirs, metered as `arena grade`
        // meters them, so a verdict over the budget is the same here and
        // offline (the class zip's), and the whole is at most twice it.
        let grader = self.grader(&sandbox, progress);
        let check_games = arena_grading::check::games_planned(self.game, CHECK_GAMES);
        let graded_games = grader.games_planned();
        let budget = self.rubric.grading_fuel;
        let fuel = sandbox.limits().fuel;
        let then = Progress::start(graded_games, budget);
        let check_meter = Meter::check(budget, fuel, check_games, then, progress);
        let spec = CheckSpec {
            meter: Some(&check_meter),
            ..spec
        };
        let mut report = match check_loaded(&spec, &sandbox, &bot) {
            Ok(r) => r,
            Err(e) => return verdict_of(e),
        };
        if let Some(late) = check_meter.late() {
            return Verdict::failed(late);
        }
        if let Some(over) = check_meter.over() {
            report.file = shown.to_string();
            return Verdict {
                toolchain: Some(report.toolchain.clone()),
                check: serde_json::to_value(&report).ok(),
                check_text: Some(report.text()),
                over_budget: Some(over.clone()),
                ..Verdict::rejected(over.line())
            };
        }
        if !self.worlds.is_empty() && !self.worlds.iter().any(|w| report.world.ends_with(&format!("@{w}"))) {
            return Verdict::rejected(format!(
                "built for {}, which this course does not accept (it takes {}); rebuild it with the course's WIT files",
                report.world,
                self.worlds.join(", ")
            ));
        }
        report.file = shown.to_string();
        let check_json = serde_json::to_value(&report).ok();
        let mut verdict = Verdict {
            accepted: true,
            reason: None,
            toolchain: Some(report.toolchain.clone()),
            check: check_json,
            check_text: Some(report.text()),
            grade: None,
            grade_text: None,
            score: None,
            max_score: None,
            failed: false,
            worst: Vec::new(),
            results: None,
            over_budget: None,
        };
        let meter = Meter::after(&check_meter, budget, fuel, graded_games, progress);
        match self.grade(&grader, &bot, shown, student, pages, &meter) {
            Ok((mut grade, results)) => {
                grade.file = shown.to_string();
                verdict.worst = grade
                    .items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, item)| item.sample_game.map(|g| (i, g)))
                    .collect();
                verdict.results = Some(results);
                // One verdict: a bot the rubric rejects (its smoke game
                // forfeited, or its grading over the budget) is rejected
                // here too, never "accepted" with no points, and never the
                // version that counts.
                if grade.status == "rejected" {
                    verdict.accepted = false;
                    verdict.reason = grade.reason.clone();
                }
                verdict.over_budget = grade.over_budget.clone();
                verdict.score = Some(grade.total);
                verdict.max_score = Some(grade.max_total);
                verdict.grade = serde_json::to_value(&grade).ok();
                verdict.grade_text = Some(grade.text());
            }
            Err(e) => {
                verdict.failed = true;
                verdict.reason = Some(e);
            }
        }
        verdict
    }

    /// Grade the bot loaded in `grader`'s sandbox under `meter` and write
    /// its replay pages and Gradescope's file into `pages`.
    fn grade(
        &self,
        grader: &Grader<'_>,
        bot: &LoadedBot,
        shown: &str,
        student: &str,
        pages: &Path,
        meter: &Meter<'_>,
    ) -> Result<(GradeReport, serde_json::Value), String> {
        let (mut report, me) = grader
            .grade_metered(student, &bot.program, meter)
            .map_err(|e| e.to_string())?;
        // Replay pages are named after the folder: one safe name per version's folder.
        report.folder = "bot".into();
        let graded = vec![(report, Some(me))];
        // Stored once for the student and the teacher alike, so as the
        // student may see them (their bot is the first entrant); the
        // teacher plays a game again to see every hand.
        let jobs: Vec<_> = arena_report::report::class_pages(grader, &graded)
            .into_iter()
            .map(|(_, job)| arena_report::report::PageJob {
                shown_to: Some(0),
                ..job
            })
            .collect();
        arena_report::report::write_replays(pages, &jobs).map_err(|e| format!("{e:#}"))?;
        let [(mut report, _)]: [_; 1] = graded.try_into().map_err(|_| "one report".to_string())?;
        // Gradescope's file names the upload, never where the server keeps it.
        report.file = shown.to_string();
        // Gradescope's results.json, as `arena grade-class` writes it for each student.
        let results = arena_grading::grade::gradescope::results(&report, &self.rubric, None);
        let path = pages.join(RESULTS_FILE);
        std::fs::write(&path, format!("{results:#}\n"))
            .map_err(|e| format!("{}: cannot write ({e})", path.display()))?;
        Ok((report, results))
    }

    /// The pages of a version a worker graded, made here from its verdict:
    /// Gradescope's file, and each item's worst game played again (pages
    /// that students open are never taken from a worker).
    pub fn write_pages(
        &self,
        file: &Path,
        student: &str,
        verdict: &Verdict,
        pages: &Path,
        back: &str,
    ) -> Result<(), String> {
        let folder = pages.join(arena_report::report::REPLAYS);
        std::fs::create_dir_all(&folder).map_err(|e| format!("{}: cannot create it ({e})", folder.display()))?;
        if let Some(results) = &verdict.results {
            let path = pages.join(RESULTS_FILE);
            std::fs::write(&path, format!("{results:#}\n"))
                .map_err(|e| format!("{}: cannot write ({e})", path.display()))?;
        }
        // One page per rubric item at most, whatever a worker sent.
        let mut seen = vec![false; self.rubric.items.len()];
        // The bot is loaded once, for the first page, and plays every page.
        let mut loaded: Option<Loaded> = None;
        for &(item, game) in &verdict.worst {
            if seen.get(item).is_none_or(|s| *s) {
                continue;
            }
            seen[item] = true;
            self.replay_item(item, game)?;
            let bot = match loaded {
                Some(ref bot) => bot,
                None => loaded.insert(self.load(file, student)?),
            };
            // Stored once for the student and the teacher alike, so as the
            // student may see it; the teacher plays it again to see every hand.
            let html = self.replay_page_of(bot, item, game, back, false)?;
            let path = folder.join(format!("bot-item{}.html", item + 1));
            std::fs::write(&path, html).map_err(|e| format!("{}: cannot write ({e})", path.display()))?;
        }
        Ok(())
    }
}

impl Verdict {
    /// Where two verdicts of the same file differ in anything a game
    /// decides (a worker's, and the server's doing it again), in words;
    /// none if they agree. How long compiling and grading took, and
    /// whether the bot came from a compile cache, differ between machines
    /// and are left out.
    pub fn difference(&self, other: &Verdict) -> Option<String> {
        let without = |v: &Option<serde_json::Value>, keys: &[&str]| {
            v.clone().map(|mut c| {
                if let Some(o) = c.as_object_mut() {
                    for key in keys {
                        o.remove(*key);
                    }
                }
                c
            })
        };
        let parts = [
            (
                "accepted",
                serde_json::json!(self.accepted),
                serde_json::json!(other.accepted),
            ),
            (
                "failed",
                serde_json::json!(self.failed),
                serde_json::json!(other.failed),
            ),
            ("score", serde_json::json!(self.score), serde_json::json!(other.score)),
            (
                "max_score",
                serde_json::json!(self.max_score),
                serde_json::json!(other.max_score),
            ),
            (
                "worst games",
                serde_json::json!(self.worst),
                serde_json::json!(other.worst),
            ),
            ("grade", serde_json::json!(self.grade), serde_json::json!(other.grade)),
            (
                "results.json",
                serde_json::json!(without(&self.results, &["execution_time"])),
                serde_json::json!(without(&other.results, &["execution_time"])),
            ),
            (
                "check",
                serde_json::json!(without(&self.check, &["compile_seconds", "compiled"])),
                serde_json::json!(without(&other.check, &["compile_seconds", "compiled"])),
            ),
        ];
        parts.iter().find_map(|(name, a, b)| first_difference(a, b, name))
    }
}

/// A version's bot loaded once in the course's sandbox, for its replay
/// pages: every page it plays runs this program.
pub struct Loaded {
    sandbox: Sandbox,
    me: Entrant,
}

impl Grading {
    /// Load the bot at `file` of `student` once for its replay pages
    /// ([`Grading::replay_page_of`]).
    pub fn load(&self, file: &Path, student: &str) -> Result<Loaded, String> {
        let sandbox = self.settings.sandbox(self.game).map_err(|e| format!("{e:#}"))?;
        let program = sandbox.load(file, self.game.worlds()).map_err(|e| e.to_string())?;
        let me = Entrant {
            name: student.to_string(),
            bot: BotRef::Wasm(std::sync::Arc::new(program)),
        };
        Ok(Loaded { sandbox, me })
    }

    /// The viewer page of game `game` (from 0) of rubric item `item` of the
    /// bot at `file`, played again: a game is a pure function of the bots,
    /// the seed and the limits, so every graded game can be watched without
    /// keeping its replay. `back` is the link back to the version's page;
    /// the house bots' hidden cards are shown only where `everything` (the
    /// teacher), since a student sees their own bot's cards only.
    pub fn replay_page(
        &self,
        file: &Path,
        student: &str,
        (item, game): (usize, usize),
        back: &str,
        everything: bool,
    ) -> Result<String, String> {
        self.replay_item(item, game)?;
        let bot = self.load(file, student)?;
        self.replay_page_of(&bot, item, game, back, everything)
    }

    /// [`Grading::replay_page`] of a bot loaded once by [`Grading::load`].
    pub fn replay_page_of(
        &self,
        bot: &Loaded,
        item: usize,
        game: usize,
        back: &str,
        everything: bool,
    ) -> Result<String, String> {
        let rubric_item = self.replay_item(item, game)?;
        let grader = Grader {
            game: self.game,
            sandbox: &bot.sandbox,
            rubric: &self.rubric,
            games: self.rubric.games,
            progress: None,
        };
        let bytes = grader.replay(item, game, &bot.me).map_err(|e| e.to_string())?;
        // Every seat named: a solitaire's item plays the bot alone, against
        // its baseline's score on the same deal (never "Ann vs :").
        let who = match (rubric_item.against.is_empty(), &rubric_item.baseline) {
            (false, _) => format!("{} vs {}", bot.me.name, rubric_item.against.join(", ")),
            (true, Some(b)) => format!("{} alone, against {b}'s score on the same deal", bot.me.name),
            (true, None) => format!("{} alone", bot.me.name),
        };
        let note = format!(
            "{who}: rubric item {} \"{}\", game {} of {}, played again on request (the same deal, seed and limits as when it was graded).",
            item + 1,
            rubric_item.name,
            game + 1,
            self.rubric.games
        );
        // The graded bot is the first entrant ([`arena_grading::grade::Grader::item_spec`]).
        viewer_page(&bytes, &note, back, &|bot| everything || bot == 0)
    }

    /// Rubric item `item`, if game `game` of it can be played again.
    fn replay_item(&self, item: usize, game: usize) -> Result<&arena_grading::grade::Item, String> {
        use arena_grading::grade::rubric::Measure;
        let Some(rubric_item) = self.rubric.items.get(item) else {
            return Err(format!("the rubric has no item {}", item + 1));
        };
        if rubric_item.measure == Measure::ClassPercentile {
            return Err("the class ranking is measured by the class tournament, not by games of its own".into());
        }
        if game >= self.rubric.games {
            return Err(format!(
                "each rubric item plays {} games: give a number from 1 to {}",
                self.rubric.games, self.rubric.games
            ));
        }
        Ok(rubric_item)
    }
}

/// The viewer page of one game's replay file (`bytes`: a header line, then
/// its events), with `note` above it and `back` as the link back; the log
/// and the hidden cards of each bot `sees` refuses (by its index among the
/// header's bots) are left out ([`arena_runner::replay::for_viewer`]).
pub fn viewer_page(bytes: &[u8], note: &str, back: &str, sees: &dyn Fn(usize) -> bool) -> Result<String, String> {
    let mut lines = bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(serde_json::from_slice)
        .collect::<Result<Vec<serde_json::Value>, _>>()
        .map_err(|e| format!("the replay did not read back ({e})"))?;
    arena_runner::replay::for_viewer(&mut lines, sees);
    let Some((header, events)) = lines.split_first() else {
        return Err("the replay is empty".into());
    };
    Ok(arena_report::view::page_in_report(header, &[events.to_vec()], Some(note), back).0)
}

impl Verdict {
    /// The file is no bot the course accepts, and why.
    pub(crate) fn rejected(why: String) -> Verdict {
        Verdict {
            accepted: false,
            reason: Some(why),
            toolchain: None,
            check: None,
            check_text: None,
            grade: None,
            grade_text: None,
            score: None,
            max_score: None,
            failed: false,
            worst: Vec::new(),
            results: None,
            over_budget: None,
        }
    }

    /// The arena could not finish (not the bot's fault).
    pub fn arena_failed(why: String) -> Verdict {
        Verdict::failed(why)
    }

    fn failed(why: String) -> Verdict {
        Verdict {
            failed: true,
            ..Verdict::rejected(why)
        }
    }
}

/// A new version against the accepted version before it: a sequential
/// test on paired deals, as `arena compare --sprt` runs it.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct Versus {
    /// The version tested.
    pub version: i64,
    /// The version it was tested against.
    pub against: i64,
    /// `stronger`, `weaker` or `undecided`.
    pub verdict: String,
    /// The Elo difference, with its 95% interval's ends.
    pub elo: [f64; 3],
    /// Games played.
    pub games: usize,
    /// The new version's games won, drawn and lost.
    pub record: [u32; 3],
    /// The test's margin: stronger or weaker by at least this many Elo.
    pub margin: f64,
    /// The sentence shown.
    pub sentence: String,
}

impl Grading {
    /// Whether the course's game has new-against-old tests (duels only).
    pub fn has_versus(&self, course: &Course) -> bool {
        self.game.kind() == arena_core::Kind::Duel && course.config.ladder.versus_games > 0
    }

    /// Test version `version` (at `new`) against version `against` (at
    /// `old`) of the same student: an SPRT of "stronger by at least the
    /// margin" against "weaker by at least the margin", at most
    /// `max_games` games, error rates 5%.
    pub fn versus(
        &self,
        (new, version): (&Path, i64),
        (old, against): (&Path, i64),
        margin: f64,
        max_games: usize,
    ) -> Result<Versus, String> {
        use arena_runner::runner::{GameSetup, HeadSpec, run_head_to_head};
        use arena_runner::stats::{Sprt, SprtDecision};
        let sandbox = self.settings.sandbox(self.game).map_err(|e| format!("{e:#}"))?;
        let load = |path: &Path, name: String| -> Result<Entrant, String> {
            let program = sandbox.load(path, self.game.worlds()).map_err(|e| e.to_string())?;
            Ok(Entrant {
                name,
                bot: BotRef::Wasm(std::sync::Arc::new(program)),
            })
        };
        let bots = [load(new, format!("v{version}"))?, load(old, format!("v{against}"))?];
        let sprt = Sprt::new(-margin, margin, 0.05, 0.05)?;
        let spec = HeadSpec {
            game: self.game,
            setup: GameSetup {
                illegal: self.rubric.illegal,
                ..GameSetup::new(&sandbox)
            },
            bots,
            games: max_games,
            seed: arena_core::derive_seed(self.rubric.seed, 0x7665_7273_7573),
            sprt: Some(sprt),
        };
        let report = run_head_to_head(spec, &mut |_, _| {}).map_err(|e| e.to_string())?;
        let decision = report.sprt.map_or(SprtDecision::Continue, |s| s.decision);
        let figures = elo_figures(report.elo, report.games);
        let (verdict, sentence) = match decision {
            SprtDecision::AcceptH1 => (
                "stronger",
                format!(
                    "v{version} is stronger than v{against}: {figures}, decided after {} games.",
                    report.games
                ),
            ),
            SprtDecision::AcceptH0 => (
                "weaker",
                format!(
                    "v{version} is weaker than v{against}: {figures}, decided after {} games.",
                    report.games
                ),
            ),
            SprtDecision::Continue => (
                "undecided",
                format!(
                    "No difference of {margin:.0} Elo or more found between v{version} and v{against} in {} games, the most the test plays: {figures}.",
                    report.games
                ),
            ),
        };
        Ok(Versus {
            version,
            against,
            verdict: verdict.to_string(),
            elo: report.elo,
            games: report.games,
            record: report.record,
            margin,
            sentence,
        })
    }
}

/// Past this many Elo a difference is a bound, not a measure: a score of
/// 1 or 0 is infinitely many Elo, and the head-to-head's estimate clamps
/// it (at about ±3600) instead.
const ELO_BOUND: f64 = 3000.0;

/// An Elo difference and its 95% interval (`[elo, low, high]`, of `games`
/// games) in words: `+48 Elo, 95% interval +12 to +84`; a clamped value
/// is said as what it is, `more than +1080 Elo (it won all 40 games...)`.
pub fn elo_figures([elo, low, high]: [f64; 3], games: usize) -> String {
    let (up, down) = (|x: f64| x >= ELO_BOUND, |x: f64| x <= -ELO_BOUND);
    if up(elo) {
        return match up(low) {
            true => format!("it scored every point of all {games} games"),
            false => format!(
                "more than {} Elo (it scored every point of all {games} games; the 95% interval starts there)",
                signed(low)
            ),
        };
    }
    if down(elo) {
        return match down(high) {
            true => format!("it scored no point in all {games} games"),
            false => format!(
                "less than {} Elo (it scored no point in all {games} games; the 95% interval ends there)",
                signed(high)
            ),
        };
    }
    let end = |x: f64| match (up(x), down(x)) {
        (true, _) => format!("more than {}", signed(ELO_BOUND)),
        (_, true) => format!("less than {}", signed(-ELO_BOUND)),
        _ => signed(x),
    };
    format!("{} Elo, 95% interval {} to {}", signed(elo), end(low), end(high))
}

/// An Elo difference with its sign: `+48`, `-12`, `0`.
fn signed(elo: f64) -> String {
    let r = elo.round();
    if r == 0.0 { "0".into() } else { format!("{r:+.0}") }
}

/// The first place where `a` and `b` differ, as `path: a, not b`.
pub(crate) fn first_difference(a: &serde_json::Value, b: &serde_json::Value, path: &str) -> Option<String> {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))).find_map(|k| {
                first_difference(
                    &x.get(k).cloned().unwrap_or(Value::Null),
                    &y.get(k).cloned().unwrap_or(Value::Null),
                    &format!("{path}.{k}"),
                )
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(p, q, &format!("{path}[{i}]"))),
        _ if a == b => None,
        // Statistics summed in another order (another number of threads)
        // may differ in their last bits; games and counts may not.
        (Value::Number(x), Value::Number(y))
            if x.is_f64()
                && y.is_f64()
                && x.as_f64()
                    .zip(y.as_f64())
                    .is_some_and(|(p, q)| (p - q).abs() <= 1e-9 * p.abs().max(q.abs()).max(1.0)) =>
        {
            None
        }
        _ => {
            let short = |v: &Value| v.to_string().chars().take(60).collect::<String>();
            Some(format!("{path}: {}, not {}", short(a), short(b)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::first_difference;
    use serde_json::json;

    #[test]
    fn a_clamped_elo_is_said_as_a_bound_never_as_a_number() {
        use super::elo_figures;
        assert_eq!(elo_figures([48.2, 12.0, 84.4], 200), "+48 Elo, 95% interval +12 to +84");
        // A new version that won every game: its Elo is infinite, clamped at about 3600.
        let all_won = elo_figures([3600.0, 1080.3, 3600.0], 40);
        assert_eq!(
            all_won,
            "more than +1080 Elo (it scored every point of all 40 games; the 95% interval starts there)"
        );
        assert!(!all_won.contains("3600"), "{all_won}");
        assert_eq!(
            elo_figures([-3600.0, -3600.0, -950.0], 12),
            "less than -950 Elo (it scored no point in all 12 games; the 95% interval ends there)"
        );
    }

    #[test]
    fn statistics_may_differ_in_their_last_bits_and_nothing_else() {
        let a = json!({"items": [{"ci95": [0.9630065017930144, 1.0], "games": 200}]});
        let last_bit = json!({"items": [{"ci95": [0.9630065017930143, 1.0], "games": 200}]});
        assert_eq!(first_difference(&a, &last_bit, "grade"), None);
        let rate = json!({"items": [{"ci95": [0.95, 1.0], "games": 200}]});
        assert_eq!(
            first_difference(&a, &rate, "grade").as_deref(),
            Some("grade.items[0].ci95[0]: 0.9630065017930144, not 0.95")
        );
        let games = json!({"items": [{"ci95": [0.9630065017930144, 1.0], "games": 199}]});
        assert_eq!(
            first_difference(&a, &games, "grade").as_deref(),
            Some("grade.items[0].games: 200, not 199")
        );
        assert!(first_difference(&json!({"a": 1}), &json!({"a": 1, "b": 2}), "x").is_some());
    }
}
