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
//! `limits`, `load` (reading, checking, compiling a file; with `shape`,
//! `compile` and `cache`), `store` (one store per bot per game and its
//! calls), `budget` (fuel per call and the host's fees), `host` (the host
//! functions bots import), `fault` (every failure as a typed [`Fault`]),
//! `limiter`, `log` and `wasi`. The modules share the crate's imports below.

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
pub mod log;
pub mod shape;
mod store;
pub mod wasi;

pub use budget::{
    BACKSTOP_MARGIN, Budget, Call, CallRecord, HOST_CALL_FUEL, PRICES_VERSION, Usage, WORST_NS_PER_FUEL, backstop_for,
    fuel_amount,
};
use budget::{Grant, HostWork, LOG_BYTE_FUEL, Meter};
pub use cache::DiskCache;
pub use compile::{ChildCompiler, CompileLimits, Compiler};
use limiter::Limiter;
use log::{BotLog, LogContents};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wasi::{VirtualClock, VirtualClockView};
use wasmtime::component::__internal::{CanonicalAbiInfo, InstanceType, InterfaceType, LiftContext};
use wasmtime::component::types::ComponentItem;
use wasmtime::component::{Component, InstancePre, Linker, ResourceTable, ResourceTableError, WasmStr};
use wasmtime::component::{ComponentType, Lift};
use wasmtime::{AsContext, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store, Trap};
use wasmtime::{CallHook, StoreContextMut, UpdateDeadline};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

/// Bot instances alive at once, at most: a game holds one per seat (six at
/// most) for its duration, and each of the `--jobs` threads plays one game at
/// a time, so 1,000 covers 160 threads.
pub const MAX_LIVE_INSTANCES: u32 = 1000;

/// Bytes of each linear memory kept resident between games.
const RESIDENT_BYTES: usize = 2 << 20;

/// How often the epoch ticks; the wall-clock limit is measured in these ticks.
const EPOCH_TICK: Duration = Duration::from_millis(10);

pub use engine::*;
pub use fault::*;
pub use host::*;
pub use limits::*;
pub use load::*;
pub use store::*;

#[cfg(test)]
mod tests;
