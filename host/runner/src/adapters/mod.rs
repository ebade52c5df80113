//! Adapters: one folder per game, between the pure rules and the sandbox.
//!
//! Each game's folder holds the game as the runner sees it (`mod.rs`: what
//! the game is, how its players are seated), one bindings module per
//! released world version it supports (`since_v0_1.rs`, converting that
//! version's WIT types to the current rules types) and its default rubric.
//! Terminal play is a layer above (`human/`): adapters know no terminal.
//!
//! Adding a game means adding its folder here and one line in [`GAMES`].

pub mod connect_fwar;
pub mod en_garde;
mod limits;
pub mod president;
pub mod sugar;

pub use limits::{PRESIDENT_LIMITS, TURN_LIMITS};

use crate::runner::GameDef;
use crate::sandbox::{HostApi, HostInterface, Limits, Sandbox};

/// The version of the bots' WIT package `arena:bots` that `since_v0_1` modules bind.
/// A macro, because world and interface names are built from it at compile time.
macro_rules! v0_1 {
    () => {
        "0.1.0"
    };
}
pub(crate) use v0_1;

/// The version of `arena:bots` that `since_v0_2` modules bind: fuel budgets
/// a bot can read, legal moves in every view.
macro_rules! v0_2 {
    () => {
        "0.2.0"
    };
}
pub(crate) use v0_2;

/// One game's world at one version of `arena:bots`: its `bindgen!` bindings
/// (re-exported as `Bindings`) and the `WORLD` the sandbox checks bots
/// against, named and budgeted as that version says.
macro_rules! world {
    ($folder:literal, $world:literal, $version:ident, $budget:ident, $bindings:ident, $indices:ident, [$($export:literal),+]) => {
        mod bindings {
            wasmtime::component::bindgen!({ path: $folder, world: $world });
        }
        pub use bindings::$bindings as Bindings;

        /// The world bots of this version target.
        pub static WORLD: $crate::sandbox::WorldSpec = $crate::sandbox::WorldSpec {
            name: concat!("arena:bots/", $world, "@", $crate::adapters::$version!()),
            version: $crate::adapters::$version!(),
            budget: $crate::sandbox::Budget::$budget,
            exports: &[$($export),+],
            typecheck,
        };

        fn typecheck(pre: &wasmtime::component::InstancePre<$crate::sandbox::BotState>) -> wasmtime::Result<()> {
            bindings::$indices::new(pre).map(|_| ())
        }
    };
}
pub(crate) use world;

/// The versions of `arena:bots` the arena loads, oldest first.
pub const WORLD_VERSIONS: &[&str] = &[v0_1!(), v0_2!()];

/// What the arena offers bots besides WASI: the host interface of every supported version.
pub static HOST_API: HostApi = HostApi {
    package: "arena:bots/",
    interfaces: &[
        HostInterface {
            name: concat!("arena:bots/host@", v0_1!()),
            budget: false,
        },
        HostInterface {
            name: concat!("arena:bots/host@", v0_2!()),
            budget: true,
        },
    ],
};

/// A sandbox for bots of any game, offering the arena's host interface.
pub fn sandbox(limits: Limits) -> anyhow::Result<Sandbox> {
    Sandbox::new(limits, HOST_API)
}

/// Every game the arena plays.
pub static GAMES: &[&dyn GameDef] = &[
    &en_garde::EnGarde,
    &connect_fwar::ConnectFwar,
    &sugar::Sugar,
    &president::President,
];

/// A game by its command-line name.
pub fn game(name: &str) -> Option<&'static dyn GameDef> {
    GAMES.iter().copied().find(|g| g.name() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_world_a_game_loads_is_a_released_version_with_its_wit_folder() {
        let wit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../wit");
        for version in WORLD_VERSIONS {
            assert!(wit.join(version).is_dir(), "wit/{version}/ holds the released package");
        }
        for game in GAMES {
            for world in game.worlds() {
                assert!(
                    WORLD_VERSIONS.contains(&world.version),
                    "{}: world {} is not a released version",
                    game.name(),
                    world.name
                );
            }
            assert_eq!(
                game.world().version,
                *WORLD_VERSIONS.last().expect("a version"),
                "{} is played in the newest world",
                game.name()
            );
        }
    }

    /// Fuel decides first: every game's time limit per call is at least
    /// four times what its largest call takes at the worst measured rate.
    #[test]
    fn every_games_backstop_lets_fuel_decide_first() {
        for game in GAMES {
            let limits = game.default_limits();
            assert!(
                limits.timeout >= limits.backstop_floor(),
                "{}: {} s is under the {} s floor for {} fuel in one call",
                game.name(),
                limits.timeout.as_secs(),
                limits.backstop_floor().as_secs(),
                limits.largest_call()
            );
        }
    }
}
