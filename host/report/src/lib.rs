//! arena-report: the `index.html` and replay pages of tournaments and class
//! grading, and the offline replay viewer.

pub mod report;
pub mod view;

// `view` reaches the runner's replays as `crate::replay`: kept until view
// moves to the real name (`arena_runner::replay`).
use arena_runner::replay;
