//! The sandbox: wasmtime only, and nothing of any game.
//!
//! It configures the engine (fuel, epochs, stack, deterministic floats),
//! loads and checks bot files, compiles each file once per run, creates one
//! store per bot per game with its limits, and turns every failure into a
//! typed [`Fault`]. Callers call into bots through [`Instance::call`].
//!
//! It does not know the bots' WIT package: the caller names the interfaces
//! it provides in a [`HostApi`]. It knows no language either: a trap
//! carries the bot's log, and the caller reads the panic or exception there.
//!
//! One module per concern: `engine` (configuration, pool, linker, epochs),
//! `limits`, `load` (reading, checking, compiling a file; with `load_error`,
//! `shape`, `compile` and `cache`), `state` (what one bot's store holds),
//! `store` (one store per bot per game and its calls), `budget` (fuel per
//! call and the host's fees), `host` (the host functions bots import),
//! `fault` (every failure as a typed [`Fault`]), `limiter`, `log` and
//! `wasi`. This file only declares them and re-exports the public items.

mod budget;
pub mod cache;
pub mod compile;
mod engine;
mod fault;
mod host;
pub mod incremental;
mod limiter;
mod limits;
mod load;
mod load_error;
pub mod log;
pub mod shape;
mod state;
mod store;
pub mod wasi;

pub use budget::{Budget, Call, CallRecord, HOST_CALL_FUEL, PRICES_VERSION, Usage, fuel_amount};
pub use cache::DiskCache;
pub use compile::{ChildCompiler, CompileLimits, Compiler};
pub use engine::{MAX_LIVE_INSTANCES, Sandbox};
pub use fault::{Fault, FaultKind};
pub use host::{HostApi, HostInterface};
pub use limits::{
    BACKSTOP_MARGIN, Limits, MAX_FILE_BYTES, MAX_LOG_BYTES, MAX_MEMORY_BYTES, MAX_STACK_BYTES, MAX_TIMEOUT,
    WORST_NS_PER_FUEL, backstop_for,
};
pub use load::{BotProgram, WorldSpec, not_a_component, not_a_file, read_at_most, top_level_exports};
pub use load_error::LoadError;
pub use state::BotState;
pub use store::{Instance, STARVED_FACTOR};

#[cfg(test)]
mod tests;
