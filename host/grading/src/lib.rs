//! arena-grading: what `arena check` finds out about a bot file, and
//! grading submissions against house bots by a course's rubric, with the
//! class folders, LMS layouts and Gradescope output around it.

pub mod check;
pub mod files;
pub mod grade;
pub mod loaded;
