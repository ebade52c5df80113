//! arena-competition: tournaments between bots (round robin, Swiss,
//! brackets), their fitted ratings and standings, and the journal that
//! lets a stopped tournament resume; the ladder's matchmaking.

pub mod ladder;
pub mod tournament;

// The runner's modules under the names the tournament code uses.
use arena_games as games;
use arena_runner::{runner, stats, text};
