//! Entrants from what a user names: a game by name, `house:NAME` or a bot
//! file, and the game's checked settings. The CLI and a server both name
//! bots this way, so both get the same entrants and the same one-line errors.

use crate::adapters;
use crate::runner::{BotRef, Entrant, GameDef, GameSetup};
use anyhow::bail;
use arena_core::IllegalMoves;
use arena_sandbox::Sandbox;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A game by name, or one line listing the games.
pub fn find_game(name: &str) -> anyhow::Result<&'static dyn GameDef> {
    match adapters::game(name) {
        Some(g) => Ok(g),
        None => {
            let known: Vec<&str> = adapters::GAMES.iter().map(|g| g.name()).collect();
            bail!("unknown game `{name}`; games are: {}", known.join(", "))
        }
    }
}

/// The game's settings, checked.
pub fn setup<'a>(
    game: &dyn GameDef,
    sandbox: &'a Sandbox,
    variant: Option<String>,
    illegal: Option<IllegalMoves>,
) -> anyhow::Result<GameSetup<'a>> {
    let setup = GameSetup {
        sandbox,
        variant,
        illegal: illegal.unwrap_or_default(),
    };
    if let Err(e) = game.check_setup(&setup) {
        bail!("{e} for {}; variants are: {}", game.name(), game.variants().join(", "));
    }
    Ok(setup)
}

/// One BOT argument: `house:NAME`, or a path to a .wasm component for the game's world.
pub fn entrant(game: &dyn GameDef, sandbox: &Sandbox, spec: &str) -> anyhow::Result<Entrant> {
    if let Some(name) = spec.strip_prefix("house:") {
        if !game.house_bots().iter().any(|(n, _)| *n == name) {
            let known: Vec<&str> = game.house_bots().iter().map(|(n, _)| *n).collect();
            bail!(
                "{spec}: no house bot `{name}` in {}; house bots are: {}",
                game.name(),
                known.join(", ")
            );
        }
        return Ok(Entrant {
            name: spec.to_string(),
            bot: BotRef::House(name.to_string()),
        });
    }
    let path = PathBuf::from(spec);
    let program = sandbox
        .load(&path, game.worlds())
        .map_err(|e| match wrong_game(&path, &e, game, Some("play")) {
            Some(line) => anyhow::anyhow!(line),
            None => e.into(),
        })?;
    let mut stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| spec.to_string());
    // Every `arena new` project builds `bot.wasm`: name such a bot after
    // its project's folder, so two projects in one match are told apart.
    if stem == "bot"
        && let Some(project) = project_name(&path)
    {
        stem = project;
    }
    Ok(Entrant {
        name: stem,
        bot: BotRef::Wasm(Arc::new(program)),
    })
}

/// The folder name of the `arena new` project (it has a `build.sh`) that
/// `bot_wasm` was built in.
fn project_name(bot_wasm: &std::path::Path) -> Option<String> {
    let folder = std::fs::canonicalize(bot_wasm).ok()?.parent()?.to_path_buf();
    if !folder.join("build.sh").is_file() {
        return None;
    }
    Some(folder.file_name()?.to_string_lossy().into_owned())
}

/// BOT arguments as entrants, with names made unique (`name#2`).
pub fn entrants(game: &dyn GameDef, sandbox: &Sandbox, specs: &[String]) -> anyhow::Result<Vec<Entrant>> {
    let mut out: Vec<Entrant> = Vec::with_capacity(specs.len());
    for spec in specs {
        let mut e = entrant(game, sandbox, spec)?;
        e.name = unique_name(&e.name, &out);
        out.push(e);
    }
    Ok(out)
}

/// `name`, or `name#2`, `name#3`, ... if an entrant of `taken` has it already.
pub fn unique_name(name: &str, taken: &[Entrant]) -> String {
    unique_name_by(name, |n| taken.iter().any(|x| x.name == n))
}

/// `name`, or `name#2`, `name#3`, ...: the first that `is_taken` says is free.
pub fn unique_name_by(name: &str, is_taken: impl Fn(&str) -> bool) -> String {
    let mut unique = name.to_string();
    let mut k = 2;
    while is_taken(&unique) {
        unique = format!("{name}#{k}");
        k += 1;
    }
    unique
}

/// Whether a component exporting `names` exports every function of one
/// of `game`'s worlds (any version).
pub fn names_game(names: &[String], game: &dyn GameDef) -> bool {
    game.worlds()
        .iter()
        .any(|w| w.exports.iter().all(|e| names.iter().any(|n| n == e)))
}

/// Which game of the arena a component's exports are for: the first whose
/// world (any version) it exports every function of; `Some(None)` for a
/// component of no game's world; `None` for bytes that are no component
/// whose exports can be read.
pub fn game_of_exports(bytes: &[u8]) -> Option<Option<&'static dyn GameDef>> {
    let exports = arena_sandbox::top_level_exports(bytes)?;
    Some(adapters::GAMES.iter().copied().find(|g| names_game(&exports, *g)))
}

/// Why the component `bytes` (shown as `shown`) is no bot for `game`, in
/// one line naming the file, the game it was built for (or that it is no
/// arena bot) and the fix `fix` gives for that case (the other game, or
/// none); `None` when it plays `game`, or its exports cannot be read (the
/// loader then says why). One sentence for every command and for the
/// course server's refusal at upload.
pub fn not_for_game(
    shown: &str,
    bytes: &[u8],
    game: &dyn GameDef,
    fix: impl Fn(Option<&'static dyn GameDef>) -> String,
) -> Option<String> {
    let exports = arena_sandbox::top_level_exports(bytes)?;
    if names_game(&exports, game) {
        return None;
    }
    let other = adapters::GAMES.iter().copied().find(|g| names_game(&exports, *g));
    Some(match other {
        Some(other) => format!(
            "{shown}: a bot for {}, not {}; {}",
            other.title(),
            game.title(),
            fix(Some(other))
        ),
        None => format!(
            "{shown}: a WebAssembly component, but not an arena bot (it exports no game's functions); {}",
            fix(None)
        ),
    })
}

/// The one line for a bot at `path` that `game`'s worlds refused (`e`),
/// named by the game it was built for. With a `verb` (`play`) the fix is
/// "{verb} it with `--game OTHER`"; with none the game is not the user's
/// to change (a class graded for one game, whose reports students read),
/// and the fix is a bot for `game`. `None` when `e` is another refusal, or
/// the file cannot be read again (the loader's words stand).
pub fn wrong_game(path: &Path, e: &arena_sandbox::LoadError, game: &dyn GameDef, verb: Option<&str>) -> Option<String> {
    let arena_sandbox::LoadError::WrongWorld { path: shown, .. } = e else {
        return None;
    };
    let bytes = arena_sandbox::read_at_most(path, arena_sandbox::Limits::default().max_file_bytes).ok()?;
    let (title, name) = (game.title(), game.name());
    not_for_game(shown, &bytes, game, |other| match (other, verb) {
        (Some(o), Some(verb)) => format!(
            "{verb} it with `--game {}`, or start a bot for {title} with `arena new --game {name}`",
            o.name()
        ),
        (Some(_), None) => format!(
            "this assignment plays {title}: build the bot for it (`arena new --game {name}` writes a project to start from)"
        ),
        (None, _) => format!("start a bot for {title} with `arena new --game {name}`"),
    })
}
