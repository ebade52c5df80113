//! Helpers for the integration tests: build the example bots and the
//! `arena` binary once, and run matches through the library.

use arena::adapters;
use arena::runner::{BotRef, Entrant, GameSetup, MatchOutcome, MatchSpec, run_match};
use arena::sandbox::{Limits, Sandbox};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// Build every example bot (once per test process) and return the folder of built components.
pub fn wasm_dir() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let status = Command::new("bash")
                .arg(root().join("example-bots/build.sh"))
                .status()
                .expect("run example-bots/build.sh");
            assert!(status.success(), "building the example bots failed");
            root().join("example-bots/wasm")
        })
        .clone()
}

/// The path of a built example bot, e.g. `bot("en-garde/aggressive")`.
pub fn bot(name: &str) -> PathBuf {
    wasm_dir().join(format!("{name}.wasm"))
}

/// Build the `arena` binary (once per test process) and return its path.
pub fn arena_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "-p", "arena", "--bin", "arena"])
            .current_dir(root())
            .status()
            .expect("run cargo build");
        assert!(status.success(), "building arena failed");
        // The test executable lives in <target>/<profile>/deps/.
        let exe = std::env::current_exe().expect("test executable path");
        exe.parent().and_then(Path::parent).expect("target dir").join("arena")
    })
    .clone()
}

/// A committed bot built against an old world version, e.g. `fixture("0.1.0", "en-garde-aggressive")`.
/// These files are never rebuilt: they prove that bots compiled in an
/// earlier week keep loading and playing the same games.
pub fn fixture(version: &str, name: &str) -> PathBuf {
    root().join(format!("tests/fixtures/v{version}/{name}.wasm"))
}

/// A bot argument as the command line takes it: `house:NAME` or a path to a built example.
pub fn entrant(sandbox: &Sandbox, spec: &str) -> Entrant {
    entrant_for("en-garde", sandbox, spec)
}

/// A bot for `game`: `house:NAME`, a built example such as `connect-fwar/basic`,
/// or a committed old build such as `v0.1.0/en-garde-aggressive`.
pub fn entrant_for(game: &str, sandbox: &Sandbox, spec: &str) -> Entrant {
    let game = adapters::game(game).expect("a known game");
    if let Some(name) = spec.strip_prefix("house:") {
        return Entrant {
            name: spec.to_string(),
            bot: BotRef::House(name.to_string()),
        };
    }
    let path = match spec.strip_prefix('v').and_then(|s| s.split_once('/')) {
        Some((version, name)) => fixture(version, name),
        None => bot(spec),
    };
    let program = sandbox.load(&path, game.world()).unwrap_or_else(|e| panic!("{e}"));
    Entrant {
        name: spec.to_string(),
        bot: BotRef::Wasm(Arc::new(program)),
    }
}

/// Play an En Garde match through the library.
pub fn en_garde_match(
    limits: Limits,
    variant: &str,
    bots: [&str; 2],
    games: usize,
    seed: u64,
    record: bool,
) -> MatchOutcome {
    play("en-garde", limits, Some(variant), &bots, games, seed, record)
}

/// Play a match of `game` through the library.
pub fn play(
    game: &str,
    limits: Limits,
    variant: Option<&str>,
    bots: &[&str],
    games: usize,
    seed: u64,
    record: bool,
) -> MatchOutcome {
    let sandbox = arena::adapters::sandbox(limits).expect("sandbox");
    let entrants = bots.iter().map(|b| entrant_for(game, &sandbox, b)).collect();
    let spec = MatchSpec {
        game: adapters::game(game).expect("a known game"),
        setup: GameSetup {
            sandbox: &sandbox,
            variant: variant.map(str::to_string),
        },
        entrants,
        games,
        seed,
        record,
    };
    run_match(&spec).expect("the match is set up right")
}
