//! arena-batch: runs over many bots at once. A class's grading run as one
//! library call (every submission graded, the class tournament played,
//! every report written: [`class`]), a tournament of given bots with its
//! outputs ([`contest`]), and both cut into shards for other machines
//! ([`shard`] for a tournament's round robin, [`class_shard`] for a class,
//! [`slurm`] for the job scripts of a Slurm cluster).
//!
//! The layers below are named by their crates (`arena_runner::runner`,
//! `arena_grading::grade`, ...): no alias here hides where a name lives.

pub mod class;
pub mod class_shard;
pub mod contest;
pub mod shard;
pub mod slurm;
