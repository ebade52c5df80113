//! Every integration test of the arena, one module per area, in one test
//! binary: wasmtime and the host are linked once, not once per area (as
//! ripgrep's `tests/tests.rs` does). Run one area with
//! `cargo test -p arena-tests --test main <area>::`.

mod attacks;
mod backup;
mod browser;
mod budget;
mod cache;
mod check;
mod cli;
mod cluster;
mod compaction;
mod compile;
mod connect_fwar;
mod corpus;
mod events;
mod failures;
mod faults;
mod fixtures;
mod forgery;
mod fuzz;
mod grade;
mod gradescope;
mod hostile;
mod illegal;
mod ladder;
mod langs;
mod layers;
mod lease;
mod lms;
mod lti;
mod play;
mod president;
mod ratings;
mod registry;
mod server;
mod sugar;
mod tournament;
mod twins;
mod view;
mod walkthrough;
