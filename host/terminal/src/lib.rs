//! arena-terminal: people playing the games in a terminal, against a bot or
//! each other, through the runner's adapters.

pub mod human;

// The runner's modules under the names the terminal code uses.
use arena_games as games;
use arena_runner::{adapters, runner, text};
