//! arena-terminal: people playing the games in a terminal, against a bot or
//! each other, through the runner's adapters.

pub mod human;
