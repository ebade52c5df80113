//! The engine: configuration shared with compiler processes, the pooling
//! allocator sized for the live instances, the linker, the epoch ticker.

use crate::cache::DiskCache;
use crate::compile::Compiler;
use crate::host::{HostApi, link_host_functions};
use crate::limits::Limits;
use crate::state::BotState;
use crate::{cache, compile, limiter, wasi};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use wasmtime::component::{Component, Linker};
use wasmtime::{Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

/// Bot instances alive at once, at most: a game holds one per seat (six at
/// most) for its duration, and each of the `--jobs` threads plays one game at
/// a time, so 1,000 covers 160 threads.
pub const MAX_LIVE_INSTANCES: u32 = 1000;

/// Bytes of each linear memory kept resident between games.
pub(crate) const RESIDENT_BYTES: usize = 2 << 20;

/// How often the epoch ticks; the wall-clock limit is measured in these ticks.
pub(crate) const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Engine, linker, limits and compile cache shared by every bot of a run.
pub struct Sandbox {
    pub(crate) engine: Engine,
    pub(crate) linker: Mutex<Linker<BotState>>,
    pub(crate) limits: Limits,
    pub(crate) host: HostApi,
    pub(crate) cache: Mutex<HashMap<[u8; 32], Component>>,
    pub(crate) compiler: Compiler,
    pub(crate) disk: Option<DiskCache>,
    pub(crate) stop_ticker: Arc<AtomicBool>,
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        self.stop_ticker.store(true, Ordering::Relaxed);
    }
}

impl Sandbox {
    /// The engine's fingerprint, hex: wasmtime's version, target and
    /// settings, the fuel prices and this crate's version. Two sandboxes
    /// with the same fingerprint and limits play every game alike, so a
    /// server can take games from a worker whose fingerprint is its own.
    pub fn fingerprint(&self) -> String {
        cache::engine_hash(&self.engine)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// A sandbox running bots under `limits`.
    pub fn new(limits: Limits, host: HostApi) -> anyhow::Result<Sandbox> {
        // What compiled code depends on, shared with compiler processes.
        let mut config = compile::engine_config(&limits);
        // A fresh instance per game makes instantiation part of the per-game
        // cost: the pooling allocator reuses pre-reserved slots instead of
        // mapping and unmapping memory every time.
        let mut pool = PoolingAllocationConfig::default();
        pool.total_component_instances(MAX_LIVE_INSTANCES)
            .total_core_instances(MAX_LIVE_INSTANCES * 16)
            .total_memories(MAX_LIVE_INSTANCES * 2)
            .total_tables(MAX_LIVE_INSTANCES * 8)
            // Per-component ceilings, so one oversized bot is rejected at load
            // instead of draining the shared pool under other bots' games.
            .max_core_instances_per_component(16)
            .max_memories_per_component(2)
            .max_tables_per_component(8)
            .max_memory_size(limits.memory_bytes)
            .table_elements(limiter::TABLE_ELEMENTS)
            // Resetting a slot with madvise makes every thread's TLB flush: with
            // several threads that kernel time ate the gain of the second core.
            // Keep a bot's few touched pages resident and reset them with memset
            // (only the resident ones where the kernel can say which).
            .linear_memory_keep_resident(RESIDENT_BYTES)
            .table_keep_resident(64 << 10)
            .pagemap_scan(wasmtime::Enabled::Auto)
            // Decommit the rest (pages beyond RESIDENT_BYTES) as each instance
            // is dropped. Batching 32 decommits kept the memory of about 11
            // dropped instances resident per thread: 683 MiB for a bot using
            // 61 MiB, against 73 MiB now (docs/performance.md, "Host memory").
            // Bots within RESIDENT_BYTES have nothing to decommit, so they do
            // not pay for it.
            .decommit_batch_size(1);
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        let engine = Engine::new(&config)?;
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
        wasi::add_virtual_sleep(&mut linker)?;
        link_host_functions(&mut linker, &host)?;
        let stop_ticker = Arc::new(AtomicBool::new(false));
        let ticker_engine = engine.clone();
        let stop = stop_ticker.clone();
        std::thread::Builder::new().name("arena-epoch".into()).spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(EPOCH_TICK);
                ticker_engine.increment_epoch();
            }
        })?;
        Ok(Sandbox {
            engine,
            linker: Mutex::new(linker),
            limits,
            host,
            cache: Mutex::new(HashMap::new()),
            compiler: Compiler::InProcess,
            disk: None,
            stop_ticker,
        })
    }

    /// This sandbox, compiling bot files with `compiler` (in this process
    /// by default; [`Compiler::Child`] for untrusted files).
    pub fn with_compiler(mut self, compiler: Compiler) -> Sandbox {
        self.compiler = compiler;
        self
    }

    /// This sandbox, keeping compiled bots in the folder `dir` between runs
    /// (see `cache.rs`); without it, each run compiles each file once.
    pub fn with_disk_cache(self, dir: PathBuf) -> Sandbox {
        self.with_bounded_disk_cache(dir, cache::DEFAULT_MAX_BYTES)
    }

    /// Like [`Sandbox::with_disk_cache`], keeping at most `max_bytes` in the
    /// folder (the least recently used entries are deleted first).
    pub fn with_bounded_disk_cache(mut self, dir: PathBuf, max_bytes: u64) -> Sandbox {
        self.disk = Some(DiskCache::new(dir, &self.engine).with_max_bytes(max_bytes));
        self
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
}
