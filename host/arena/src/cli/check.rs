//! `arena check`: what a student runs before submitting a bot: the
//! library's [`arena_grading::check::check`], printed. Exit status 0: ready to
//! submit; 1: it loads but is not ready; 2: rejected, or the arena could not
//! finish the check (one line).

use super::common::RunArgs;
use arena_grading::check::{CheckError, CheckSpec, check};
use arena_runner::runner::entrants::find_game;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `arena check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The bot: a .wasm component.
    #[arg(value_name = "BOT.wasm")]
    pub bot: PathBuf,
    /// The game [default: the one the bot loads for].
    #[arg(long)]
    pub game: Option<String>,
    /// Games against each house bot; rounded up so every deal is played from every seat.
    #[arg(long, default_value = "10", value_parser = super::args::parse_games)]
    pub games: u64,
    /// The match seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Run `arena check`, printing the report; the exit status says whether the bot is ready.
pub fn run(args: CheckArgs) -> ExitCode {
    match report(&args) {
        Ok(r) => {
            if args.json {
                match serde_json::to_string_pretty(&r) {
                    Ok(json) => println!("{json}"),
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::from(2);
                    }
                }
            } else {
                print!("{}", r.text());
            }
            if r.ready { ExitCode::SUCCESS } else { ExitCode::from(1) }
        }
        // A rejected file, or the arena could not finish the check (the
        // machine failed, not the bot): no verdict on the bot, one line.
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn report(args: &CheckArgs) -> Result<arena_grading::check::CheckReport, CheckError> {
    let game = args.game.as_deref().map(find_game).transpose()?;
    let sandbox = |g: &'static dyn arena_runner::runner::GameDef| args.run.sandbox(g);
    let spec = CheckSpec {
        bot: &args.bot,
        game,
        games: usize::try_from(args.games).unwrap_or(usize::MAX),
        seed: args.seed,
        illegal: args.run.illegal,
        sandbox: &sandbox,
        meter: None,
    };
    args.run.pool()?.install(|| check(&spec))
}
