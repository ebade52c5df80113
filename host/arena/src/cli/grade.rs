//! `arena grade`: one submission against the house bots, scored by a rubric.

use super::args::parse_games;
use super::common::RunArgs;
use anyhow::Context;
use arena_grading::grade::{self, Grader, Rubric, rubric};
use arena_runner::runner::GameDef;
use arena_runner::runner::entrants::find_game;
use clap::Args;
use std::path::{Path, PathBuf};

/// Options of `arena grade`.
#[derive(Debug, Args)]
pub struct GradeArgs {
    /// The game (see `arena games`).
    #[arg(long)]
    pub game: String,
    /// The submission: a .wasm component, or a folder holding one (its only .wasm, or the one nearest the top).
    #[arg(value_name = "SUBMISSION", required_unless_present = "print_rubric")]
    pub submission: Option<PathBuf>,
    /// Print the rubric (the game's default, or --rubric's once checked) and grade nothing: a start for your own.
    #[arg(long)]
    pub print_rubric: bool,
    /// The rubric (TOML); the game's default rubric otherwise (see docs/grading.md).
    #[arg(long, value_name = "FILE")]
    pub rubric: Option<PathBuf>,
    /// Games per rubric item [default: the rubric's, else 200].
    #[arg(long, allow_hyphen_values = true, value_parser = parse_games)]
    pub games: Option<u64>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write Gradescope's results.json to FILE.
    #[arg(long, value_name = "FILE")]
    pub gradescope: Option<PathBuf>,
    #[command(flatten)]
    pub run: RunArgs,
}

fn load_rubric(game: &dyn GameDef, path: Option<&Path>) -> anyhow::Result<Rubric> {
    match path {
        Some(p) => {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("{}: cannot read the rubric", p.display()))?;
            rubric::parse(&text, &p.display().to_string(), game).map_err(anyhow::Error::msg)
        }
        None => rubric::parse(
            game.default_rubric(),
            &format!("default rubric of {}", game.name()),
            game,
        )
        .map_err(anyhow::Error::msg),
    }
}

fn student_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Run `arena grade`.
pub fn run(args: GradeArgs) -> anyhow::Result<()> {
    let game = find_game(&args.game)?;
    let mut rubric = load_rubric(game, args.rubric.as_deref())?;
    // `--illegal` on the command line wins over the rubric's `illegal`.
    if let Some(illegal) = args.run.illegal {
        rubric.illegal = illegal;
    }
    let Some(submission) = args.submission.clone().filter(|_| !args.print_rubric) else {
        match &args.rubric {
            Some(p) => print!("{}", std::fs::read_to_string(p)?),
            None => print!("{}", game.default_rubric()),
        }
        return Ok(());
    };
    let sandbox = args.run.sandbox(game)?;
    let grader = Grader {
        game,
        sandbox: &sandbox,
        rubric: &rubric,
        games: args.games.map_or(rubric.games, |g| g as usize),
        progress: None,
    };
    let student = student_of(&submission);
    let report = args
        .run
        .pool()?
        .install(|| grader.grade_submission(&student, &submission))?;
    if let Some(why) = &report.chosen_because {
        eprintln!("grading {} ({why})", report.file);
    }
    if let Some(path) = &args.gradescope {
        // No class tournament here: a `class-rating` leaderboard column is left out.
        let json = serde_json::to_string_pretty(&grade::gradescope::results(&report, &rubric, None))?;
        std::fs::write(path, json + "\n").with_context(|| format!("{}: cannot write", path.display()))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.text());
    }
    Ok(())
}
