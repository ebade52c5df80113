//! arena-batch: a class's grading run as one library call (every
//! submission graded, the class tournament played, every report written),
//! a tournament of given bots with its outputs ([`contest`]), and a round
//! robin cut into shards for other machines ([`shard`]).

pub mod class;
pub mod class_shard;
pub mod contest;
pub mod shard;
pub mod slurm;

// The layers below under the names the class code uses.
use arena_competition::tournament;
use arena_games as games;
use arena_grading::grade;
use arena_report::report;
use arena_runner::{runner, sandbox, text};
