//! Tournaments: round robin, double elimination and Swiss, on top of matches.
//!
//! A tournament is a list of matches, each a set of bots playing a number
//! of games on shared deals with the seats rotated. Every game is a job:
//! jobs run in parallel, each finished game goes to a journal (so a stopped
//! tournament resumes without playing a game twice), and results are
//! assembled in a fixed order so the outcome never depends on `--jobs`.

mod bracket;
mod engine;
pub mod fit;
mod journal;
mod ratings;
mod run;
mod standings;
mod tally;
mod types;

pub use bracket::{Bracket, BracketMatch};
pub use engine::{Engine, match_spec};
pub use journal::Journal;
pub use ratings::Rating;
pub use run::{TournamentReport, planned_matches, run};
pub use standings::{Standing, measure_name, rank_beyond_noise, rank_text};
pub use tally::{BotTally, FORFEITS_KEPT, MatchTally};
pub use types::{Disqualified, Format, MatchRecord, Plan, Seeding, TournamentError, TournamentSpec};
