//! The `arena` command line: one module per subcommand.

mod args;
mod cache;
mod check;
mod common;
mod compare;
mod componentize;
mod course;
mod games;
mod grade;
mod grade_class;
mod matches;
mod new;
mod play;
mod shards;
mod tournament;
mod view;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

pub use args::{parse_bytes, parse_games, parse_illegal, parse_memory, parse_positive_u64, parse_seconds, parse_u64};
pub use common::COMPILE_SUBCOMMAND;

/// Run sandboxed WebAssembly game bots fairly and reproducibly.
#[derive(Debug, Parser)]
#[command(name = "arena", version, about, allow_negative_numbers = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Play a match between bots and print the results.
    #[command(allow_negative_numbers = true)]
    Match(matches::MatchArgs),
    /// Compare bots on the same deals: mean score (played alone), win rate against
    /// a reference (duels), or mean finishing position at a table of copies of a
    /// reference (table games such as president).
    #[command(allow_negative_numbers = true)]
    Compare(compare::CompareArgs),
    /// Play a game yourself in the terminal, against a bot where the game has opponents.
    Play(play::PlayArgs),
    /// Run a tournament: round robin, double elimination or Swiss, with ratings.
    #[command(allow_negative_numbers = true)]
    Tournament(tournament::TournamentArgs),
    /// Grade one submission against the house bots with a rubric.
    #[command(allow_negative_numbers = true)]
    Grade(grade::GradeArgs),
    /// Grade every submission in a folder; write a gradebook and per-student reports.
    #[command(allow_negative_numbers = true)]
    GradeClass(grade_class::GradeClassArgs),
    /// Check a bot before submitting it: toolchain, world, size, compile time, and short
    /// games against every house bot. Exit status 0: ready; 1: loads but forfeited; 2: rejected.
    #[command(allow_negative_numbers = true)]
    Check(check::CheckArgs),
    /// Start a bot project in Rust, Python, JavaScript or C: one command builds it, the next plays it.
    New(new::NewArgs),
    /// Make a bot component from a core module built for WASI preview 1 (C, C++).
    Componentize(componentize::ComponentizeArgs),
    /// Make one HTML page that plays a replay back: open it in any browser, offline.
    View(view::ViewArgs),
    /// Replays: `arena replay verify` plays one again and checks every event.
    #[command(subcommand)]
    Replay(view::ReplayCommand),
    /// List the games, their worlds and their house bots.
    Games,
    /// Make a course for the course server, or change its roster.
    #[command(subcommand)]
    Course(course::CourseCommand),
    /// Serve a course: students submit and see their grade; the teacher follows the class.
    Serve(course::ServeArgs),
    /// Submit a bot to a course server and wait for its verdict. Exit status 0: accepted;
    /// 1: rejected; 2: not submitted (bad token, server unreachable, course closed); 3: received,
    /// not graded yet (no verdict within --wait, or the server could not grade it).
    Submit(course::SubmitArgs),
    /// Play a course's ladder matches on this machine for its server (with a token from
    /// `arena course worker-token`). Exit status 2: the server refused the worker.
    Worker(course::WorkerArgs),
    /// Show or empty the compile cache (compiled bots kept between runs).
    #[command(subcommand)]
    Cache(cache::CacheCommand),
}

impl Cli {
    /// Whether the command talks to peers over the network (`serve`,
    /// `worker`, `submit`): a peer that goes away must be an error it
    /// handles, never the end of the process, so it keeps SIGPIPE ignored.
    pub fn talks_to_peers(&self) -> bool {
        matches!(
            self.command,
            Command::Serve(_) | Command::Worker(_) | Command::Submit(_)
        )
    }
}

/// Run a parsed command line, writing results to stdout; the exit status
/// to end with (an error is reported by the caller, with status 1).
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Match(args) => matches::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Play(args) => play::run(args),
        Command::Tournament(args) => tournament::run(args),
        Command::Grade(args) => grade::run(args),
        Command::GradeClass(args) => grade_class::run(args),
        Command::Check(args) => return Ok(check::run(args)),
        Command::New(args) => new::run(args),
        Command::Componentize(args) => componentize::run(args),
        Command::View(args) => view::run_view(args),
        Command::Replay(c) => return view::run_replay(c),
        Command::Games => games::run(),
        Command::Course(c) => course::run_course(c),
        Command::Serve(args) => course::run_serve(args),
        Command::Submit(args) => return course::run_submit(args),
        Command::Worker(args) => return course::run_worker(args),
        Command::Cache(c) => cache::run(c),
    }
    .map(|()| ExitCode::SUCCESS)
}

/// clap's error for bad arguments, which spans several lines, as one: what
/// is wrong, with what it lists (the missing arguments), and the help of the
/// command that was typed (`arena new --help`).
pub fn one_line_usage_error(rendered: &str) -> String {
    let mut lines = rendered.lines().map(str::trim_end).skip_while(|l| l.trim().is_empty());
    let head = lines.next().unwrap_or("invalid arguments").trim().to_string();
    let rest: Vec<&str> = lines.collect();
    let mut said = head.clone();
    if head.ends_with(':') {
        let listed: Vec<&str> = rest
            .iter()
            .take_while(|l| l.starts_with(' ') && !l.trim().is_empty())
            .map(|l| l.trim())
            .collect();
        said = format!("{} {}", head, listed.join(", "));
    }
    let command: Vec<&str> = rest
        .iter()
        .find_map(|l| l.trim().strip_prefix("Usage: "))
        .map(|u| {
            u.split_whitespace()
                .take_while(|w| !w.starts_with(['-', '<', '[']))
                .collect()
        })
        .unwrap_or_else(|| vec!["arena"]);
    format!("{said} (see `{} --help`)", command.join(" "))
}
