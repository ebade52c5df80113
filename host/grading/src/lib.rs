//! arena-grading: what `arena check` finds out about a bot file, and
//! grading submissions against house bots by a course's rubric, with the
//! class folders, LMS layouts and Gradescope output around it.

pub mod check;
pub mod files;
pub mod grade;

// The runner's modules under the names the grading code uses.
use arena_games as games;
use arena_runner::{adapters, replay, runner, sandbox, stats, text};
