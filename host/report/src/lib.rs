//! arena-report: the `index.html` and replay pages of tournaments and class
//! grading, and the offline replay viewer.

pub mod report;
pub mod view;

// The layers below under the names the report code uses.
use arena_competition::tournament;
use arena_games as games;
use arena_grading::{files, grade};
use arena_runner::{replay, runner, text};
