//! Gradescope's `results.json`, field for field as its autograder spec
//! defines it (<https://gradescope-autograders.readthedocs.io/en/latest/specs/>),
//! and the rubric's `[gradescope]` table that sets its visibility and leaderboard.
//!
//! Only the spec's fields are written: Gradescope ignores or rejects others,
//! so what an audit needs beyond them (the maximum, the seed, the versions,
//! the SHA-256) goes in `extra_data`, which the spec stores as given.

mod results;
mod settings;
#[cfg(test)]
mod tests;

pub use results::results;
pub use settings::{Column, Settings, Source, Visibility};
pub(crate) use settings::{ErrAt, RawSettings, visibilities, visibility};
