//! What `arena check` finds out about a bot file before it is submitted:
//! the toolchain that built it, the world it targets, its size, compile time
//! and initial memory, then short games against every house bot with the
//! fuel it used, its log size, any forfeit and illegal move, and whether it
//! is ready. A library call ([`check`]) returning data ([`CheckReport`]),
//! so the command line and a course server report the same thing.
//!
//! By concern: `types.rs` holds what is asked and what is found, this file
//! the loading; `smoke.rs` plays the smoke games and tallies them, `text.rs`
//! writes the report for people, `inspect.rs` reads what a file says
//! about itself (its producers, names and initial memory).

pub mod inspect;
mod smoke;
pub use smoke::games_planned;
mod text;
mod types;

pub use inspect::{Scan, scan, toolchain};
pub use text::size;
pub use types::{CheckError, CheckReport, CheckSpec, ForfeitSeen, SandboxFor};

use crate::loaded::LoadedBot;
use arena_runner::adapters;
use arena_runner::runner::GameDef;
use arena_runner::runner::entrants::names_game;
use arena_sandbox::{LoadError, Sandbox};
use std::path::Path;

/// Check a bot: load it (for `spec.game`, or for the first game it loads
/// for) and play the smoke matches. The caller picks the thread pool
/// (`pool.install(|| check(..))`).
pub fn check(spec: &CheckSpec<'_>) -> Result<CheckReport, CheckError> {
    let (sandbox, bot) = load(spec)?;
    check_loaded(spec, &sandbox, &bot)
}

/// The check of a bot already loaded (by [`load`], or by
/// [`LoadedBot::load`] in `sandbox`): the smoke matches and the report, so
/// a caller that goes on to grade the same file loads it once. The report
/// says the game was found by trying when `spec.game` is `None`.
pub fn check_loaded(spec: &CheckSpec<'_>, sandbox: &Sandbox, bot: &LoadedBot) -> Result<CheckReport, CheckError> {
    smoke::smoke(spec, sandbox, bot)
}

/// Load the bot for the game asked, or for the first game it loads for:
/// the sandbox of that game (made by `spec.sandbox`) and the bot loaded in it.
pub fn load(spec: &CheckSpec<'_>) -> Result<(Sandbox, LoadedBot), CheckError> {
    let mut first_error: Option<LoadError> = None;
    for game in candidates(spec) {
        // The compile cache too: a second check of the same file (a student
        // fixing a warning) takes a fraction of a second, not another compile.
        let sandbox = (spec.sandbox)(game)?;
        match LoadedBot::load(&sandbox, game, spec.bot) {
            Ok(bot) => return Ok((sandbox, bot)),
            Err(e) => {
                // Only the world differs from game to game; any other
                // reason rejects the file for every game.
                let per_game = matches!(
                    e,
                    LoadError::WrongWorld { .. }
                        | LoadError::UnknownVersion { .. }
                        | LoadError::MixedVersions { .. }
                        | LoadError::ForbiddenImport { .. }
                );
                let stop = !per_game;
                first_error.get_or_insert(e);
                if stop {
                    break;
                }
            }
        }
    }
    if let Some(line) = first_error.as_ref().and_then(|e| wrong_game(spec, e)) {
        return Err(CheckError::Rejected(line));
    }
    match first_error {
        Some(e) if spec.game.is_none() && matches!(e, LoadError::WrongWorld { .. }) => {
            let games: Vec<&str> = adapters::GAMES.iter().map(|g| g.name()).collect();
            Err(CheckError::Rejected(format!(
                "{e} (it loads for none of the games: {})",
                games.join(", ")
            )))
        }
        Some(e) => Err(CheckError::Rejected(e.to_string())),
        None => Err(CheckError::Failed(anyhow::anyhow!("no game to check the bot against"))),
    }
}

pub use arena_runner::runner::entrants::{game_of_exports, not_for_game};

/// `arena check`'s fix for a bot of another game, or of none, checked as `game`'s.
fn check_fix(game: &dyn GameDef, bot: &Path) -> impl Fn(Option<&'static dyn GameDef>) -> String {
    let (name, title, bot) = (game.name(), game.title(), bot.display().to_string());
    move |other| match other {
        Some(o) => format!(
            "check it for its game with `arena check --game {} {bot}`, or start a bot for {title} with `arena new --game {name}`",
            o.name()
        ),
        None => {
            format!("start a bot for {title} with `arena new --game {name}` and check the .wasm its build.sh writes")
        }
    }
}

/// A bot that loads for no game asked, named by the game it was built for.
fn wrong_game(spec: &CheckSpec<'_>, e: &LoadError) -> Option<String> {
    let LoadError::WrongWorld { path, .. } = e else {
        return None;
    };
    let bytes = arena_sandbox::read_at_most(spec.bot, arena_sandbox::Limits::default().max_file_bytes).ok()?;
    match spec.game {
        Some(game) => not_for_game(path, &bytes, game, check_fix(game, spec.bot)),
        // Every game was tried: it is for none of them.
        None => match game_of_exports(&bytes) {
            Some(None) => Some(format!(
                "{path}: a WebAssembly component, but not an arena bot (it exports no game's functions); \
                 start a bot with `arena new --game GAME` (one of {}) and check the .wasm its build.sh writes",
                adapters::GAMES.iter().map(|g| g.name()).collect::<Vec<_>>().join(", ")
            )),
            _ => None,
        },
    }
}

/// The games to load the bot for, in turn: the one asked, or every game,
/// those the file names first.
fn candidates(spec: &CheckSpec<'_>) -> Vec<&'static dyn GameDef> {
    match spec.game {
        Some(game) => vec![game],
        None => {
            // Games the file names first, so the usual case compiles once
            // (a hint only, read within the default size limit: loading decides).
            // Only a regular file is read here: a device or a pipe is refused by the load below.
            let limit = arena_sandbox::Limits::default().max_file_bytes;
            let names = std::fs::metadata(spec.bot)
                .is_ok_and(|m| m.is_file())
                .then(|| arena_sandbox::read_at_most(spec.bot, limit).ok())
                .flatten()
                .map(|b| scan(&b).names)
                .unwrap_or_default();
            let (mut named, rest): (Vec<_>, Vec<_>) =
                adapters::GAMES.iter().copied().partition(|g| names_game(&names, *g));
            named.extend(rest);
            named
        }
    }
}
