//! `arena new`: write a bot project ([`arena_scaffold::create`]) and print what to run next.

use arena_scaffold::Lang;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `arena new`.
#[derive(Debug, Args)]
pub struct NewArgs {
    /// The game the bot plays (see `arena games`).
    #[arg(long)]
    pub game: String,
    /// The language of the project.
    #[arg(long, value_enum)]
    pub lang: Lang,
    /// The folder to create (it must not exist, or be empty).
    pub dir: PathBuf,
}

/// Write the project; print what to run next.
pub fn run(args: NewArgs) -> anyhow::Result<()> {
    print!("{}", arena_scaffold::create(&args.game, args.lang, &args.dir)?.text());
    Ok(())
}
