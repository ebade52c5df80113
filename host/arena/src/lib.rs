//! arena: run untrusted game-playing bots, compiled to WebAssembly
//! components, safely, fairly and reproducibly.
//!
//! Each concern is a crate of its own, so a dependency in the wrong
//! direction does not compile (docs/architecture.md draws the graph):
//! - [`arena_core`]: the common vocabulary (seats, seeds, outcomes, failures, events).
//! - [`games`] (`arena-games`): pure rules and house bots, no wasmtime.
//! - [`sandbox`] (`arena-sandbox`): wasmtime, limits and loading, no games.
//! - `arena-runner`: [`adapters`], [`runner`], [`replay`], [`verify`], [`stats`], [`text`].
//! - `arena-competition`: [`tournament`].
//! - `arena-grading`: [`check`], [`grade`], [`files`].
//! - `arena-report`: [`report`], [`view`].
//! - `arena-terminal`: [`human`].
//! - `arena-batch` ([`batch`]): [`class`].
//! - `arena-scaffold` ([`scaffold`]): `arena new`.
//!
//! This crate is the `arena` command: [`cli`] parses arguments, calls one
//! of those libraries and prints.

pub mod cli;

pub use arena_batch::{self as batch, class};
pub use arena_competition::tournament;
pub use arena_games as games;
pub use arena_grading::{check, files, grade};
pub use arena_report::{report, view};
pub use arena_runner::{VERSION, adapters, replay, runner, sandbox, stats, text, verify};
pub use arena_scaffold as scaffold;
pub use arena_server as server;
pub use arena_terminal::human;
