//! `arena play`: a person plays a game in the terminal: alone, against one bot, or at a table of bots.

use super::common::RunArgs;
use anyhow::bail;
use arena_runner::runner::entrants::{entrants, find_game, setup};
use arena_terminal::human::{Terminal, locale_is_utf8};
use clap::Args;

/// Options of `arena play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The game (see `arena games`).
    #[arg(long)]
    pub game: String,
    /// An opponent: a .wasm file or house:NAME (for games with opponents);
    /// repeat it for each opponent at a table (President: 1 to 5).
    #[arg(long, value_name = "BOT")]
    pub vs: Vec<String>,
    /// Rules variant.
    #[arg(long)]
    pub variant: Option<String>,
    /// The deal; by default a new one each time (the seed is printed so you can replay it).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Your seat (0 moves first in En Garde's first round and in Sugargame; in President the 4 of Diamonds leads).
    #[arg(long, default_value_t = 0)]
    pub seat: usize,
    /// Draw in ASCII only (suits as letters S H C D, plain grid lines) even on a UTF-8 terminal.
    #[arg(long)]
    pub ascii: bool,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Run `arena play`.
pub fn run(args: PlayArgs) -> anyhow::Result<()> {
    let game = find_game(&args.game)?;
    if !arena_terminal::human::can_play(game) {
        bail!(
            "{} cannot be played by a person yet; games you can play: {}",
            game.name(),
            playable().join(", ")
        );
    }
    let sandbox = args.run.sandbox(game)?;
    let setup = setup(game, &sandbox, args.variant.clone(), args.run.illegal)?;
    let opponents: Vec<_> = entrants(game, &sandbox, &args.vs)?
        .into_iter()
        .map(|e| (e.name, e.bot))
        .collect();
    // The host may read its own clock; only bots are denied one.
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(1)
    });
    let unicode = !args.ascii && locale_is_utf8();
    let stdin = std::io::stdin();
    let term = Terminal::new(Box::new(stdin.lock()), Box::new(std::io::stdout()), unicode);
    term.say(&format!(
        "{} - seed {seed} (play this deal again with --seed {seed})",
        game.title()
    ));
    if let Err(e) = arena_terminal::human::play(game, &setup, seed, term.clone(), args.seat, &opponents) {
        bail!("{e}");
    }
    if term.has_left() {
        term.say("You left the game.");
    }
    Ok(())
}

/// The games a person can play, in the order `arena games` lists them.
fn playable() -> Vec<&'static str> {
    arena_runner::adapters::GAMES
        .iter()
        .filter(|g| arena_terminal::human::can_play(**g))
        .map(|g| g.name())
        .collect()
}
