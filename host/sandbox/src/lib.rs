//! The sandbox: wasmtime only, and nothing of any game.
//!
//! It configures the engine (fuel, epochs, stack, deterministic floats),
//! loads and checks bot files, compiles each file once per run, creates one
//! store per bot per game with its limits, and turns every failure into a
//! typed [`Fault`]. Callers call into bots through [`Instance::call`].
//!
//! It does not know the bots' WIT package: the caller names the interfaces
//! it provides in a [`HostApi`].

mod budget;
pub mod cache;
pub mod compile;
mod limiter;
pub mod log;
pub mod shape;
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

/// The limits every bot runs under, per bot and per game. Fuel (about one
/// unit per wasm instruction) decides; the wall clock is only a backstop.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Limits {
    /// Fuel per move (per call for bots of a world with a per-call budget).
    pub fuel: u64,
    /// Fuel bank per game: what a move uses beyond `fuel` comes out of it
    /// (worlds with a banked budget).
    pub bank: u64,
    /// Start allowance: fuel for instantiation and the calls before the
    /// first move, shared by all of them (worlds with a banked budget).
    pub start_fuel: u64,
    /// Time backstop per call, for what fuel cannot price: a call is
    /// stopped when, past this much wall-clock time, it has also used this
    /// much CPU time (the bot's forfeit, `timeout`), or when it has lasted
    /// [`STARVED_FACTOR`] times as long without (the machine's failure).
    #[serde(serialize_with = "secs")]
    pub timeout: Duration,
    /// Largest linear memory a bot may grow to, in bytes.
    pub memory_bytes: usize,
    /// Largest wasm stack, in bytes.
    pub stack_bytes: usize,
    /// Log bytes kept per bot per game (the `log` import plus stdout and stderr).
    pub log_bytes: usize,
    /// Largest bot file accepted, in bytes.
    pub max_file_bytes: u64,
}

fn secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// The longest wall-clock backstop per call.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);
/// The most memory a bot can use: a wasm32 memory addresses at most 4 GiB.
pub const MAX_MEMORY_BYTES: u64 = 4 << 30;
/// The largest wasm stack.
pub const MAX_STACK_BYTES: usize = 64 << 20;
/// The most log bytes kept per bot per game.
pub const MAX_LOG_BYTES: usize = 1 << 20;
/// The largest bot file any limit may allow.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

impl Limits {
    /// The limits when a game declares none and the command line sets none.
    pub const DEFAULT: Limits = Limits {
        fuel: 200_000_000,
        bank: 0,
        start_fuel: 200_000_000,
        timeout: Duration::from_secs(3),
        memory_bytes: 64 << 20,
        stack_bytes: 512 << 10,
        log_bytes: 64 << 10,
        max_file_bytes: 64 << 20,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

impl Limits {
    /// The most fuel one call may use: a move's allowance and the whole
    /// bank, or the start allowance, whichever is more.
    pub fn largest_call(&self) -> u64 {
        self.fuel.saturating_add(self.bank).max(self.start_fuel)
    }

    /// The shortest time limit per call under which fuel still decides
    /// first ([`backstop_for`] the largest call), at most [`MAX_TIMEOUT`].
    pub fn backstop_floor(&self) -> Duration {
        backstop_for(self.largest_call()).min(MAX_TIMEOUT)
    }

    /// Refuse limits that make no sense, in one line naming the flags. The
    /// command line and every file that carries limits (a replay's header)
    /// pass through here, so they accept the same values.
    pub fn check(&self) -> Result<(), String> {
        if self.fuel == 0 {
            return Err("--fuel must be at least 1".into());
        }
        if self.timeout.is_zero() || self.timeout > MAX_TIMEOUT {
            return Err(format!(
                "--timeout {} s: give more than 0 and at most {} seconds",
                self.timeout.as_secs_f64(),
                MAX_TIMEOUT.as_secs()
            ));
        }
        if self.memory_bytes == 0 || self.memory_bytes as u64 > MAX_MEMORY_BYTES {
            return Err(format!(
                "--memory {} bytes: give more than 0 and at most 4G (a wasm32 bot addresses at most 4 GiB)",
                self.memory_bytes
            ));
        }
        if self.stack_bytes == 0 || self.stack_bytes > MAX_STACK_BYTES {
            return Err(format!(
                "a wasm stack of {} bytes: give more than 0 and at most {} MiB",
                self.stack_bytes,
                MAX_STACK_BYTES >> 20
            ));
        }
        if self.log_bytes > MAX_LOG_BYTES {
            return Err(format!(
                "--log-bytes {}: at most {} (1M) per bot per game; a longer log is for a debugger, not a game",
                self.log_bytes, MAX_LOG_BYTES
            ));
        }
        if self.max_file_bytes == 0 || self.max_file_bytes > MAX_FILE_BYTES {
            return Err(format!(
                "--max-file-bytes {}: give more than 0 and at most 1G",
                self.max_file_bytes
            ));
        }
        if self.start_fuel < self.fuel {
            return Err(format!(
                "--start-fuel {} is smaller than the per-move budget --fuel {}; the start allowance covers \
                 instantiation and the first calls, which need at least a move's fuel",
                self.start_fuel, self.fuel
            ));
        }
        Ok(())
    }

    /// The limits as a bot reads them through the host interface.
    fn record(&self) -> HostLimits {
        HostLimits {
            move_fuel: self.fuel,
            bank_fuel: self.bank,
            start_fuel: self.start_fuel,
            memory_bytes: self.memory_bytes as u64,
        }
    }
}

/// `limits` of the host interface (worlds with a banked budget).
#[derive(Debug, Clone, Copy, wasmtime::component::ComponentType, wasmtime::component::Lower)]
#[component(record)]
struct HostLimits {
    #[component(name = "move-fuel")]
    move_fuel: u64,
    #[component(name = "bank-fuel")]
    bank_fuel: u64,
    #[component(name = "start-fuel")]
    start_fuel: u64,
    #[component(name = "memory-bytes")]
    memory_bytes: u64,
}

/// `budget` of the host interface: what is left now, in this call and in the bank.
#[derive(Debug, Clone, Copy, wasmtime::component::ComponentType, wasmtime::component::Lower)]
#[component(record)]
struct HostBudget {
    #[component(name = "call-fuel")]
    call_fuel: u64,
    #[component(name = "bank-fuel")]
    bank_fuel: u64,
}

/// Why a call into a bot failed. The instance is dead afterwards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// The bot trapped: a panic, an `unreachable`, a stack overflow, a bad memory access.
    Trap,
    /// The bot used up its fuel (the deterministic compute budget).
    Fuel,
    /// The bot ran past the wall-clock backstop.
    Timeout,
    /// The bot tried to grow its memory beyond the cap.
    Memory,
    /// The bot answered a value the host cannot read as the world's type
    /// (for example an enum discriminant that does not exist).
    InvalidAnswer,
    /// Not the bot: the machine failed it (the system could not give memory
    /// within the cap). Callers stop the run instead of charging the bot.
    Host,
}

/// A failed call: its kind and what happened, in words for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// The typed kind callers branch on.
    pub kind: FaultKind,
    /// What happened, for people (for example the trap message).
    pub detail: String,
}

impl Fault {
    /// A fault of `kind` with `detail`.
    pub fn new(kind: FaultKind, detail: impl Into<String>) -> Self {
        Fault {
            kind,
            detail: detail.into(),
        }
    }
}

/// What the host offers bots, by name: the sandbox implements the functions
/// but learns the names from its caller, so it knows no WIT package.
#[derive(Debug, Clone, Copy)]
pub struct HostApi {
    /// The bots' package prefix, e.g. `arena:bots/`: interfaces of it that
    /// carry only types are linked as empty instances.
    pub package: &'static str,
    /// Every version of the host interface a bot may import.
    pub interfaces: &'static [HostInterface],
}

/// One version of the host interface.
#[derive(Debug, Clone, Copy)]
pub struct HostInterface {
    /// Its full name, e.g. `arena:bots/host@0.2.0`.
    pub name: &'static str,
    /// Whether it has `budget` and `limits` besides `log`.
    pub budget: bool,
}

/// The world a bot must target: the part of a game's WIT world the sandbox checks.
pub struct WorldSpec {
    /// Full name, for messages: `arena:bots/en-garde@0.1.0`.
    pub name: &'static str,
    /// The package version, e.g. `0.1.0`: a bot importing the package's
    /// interfaces at this version targets this world.
    pub version: &'static str,
    /// How its bots' calls are budgeted.
    pub budget: Budget,
    /// Functions the component must export.
    pub exports: &'static [&'static str],
    /// Type-check the exports against the world's bindings.
    pub typecheck: fn(&InstancePre<BotState>) -> wasmtime::Result<()>,
}

/// Read at most `limit + 1` bytes of a file: enough to tell it is over the
/// limit without holding more than that in memory.
pub fn read_at_most(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// What a path that is not a regular file is, in a student's words.
pub fn not_a_file(meta: &std::fs::Metadata) -> String {
    let t = meta.file_type();
    let what = if t.is_dir() { "a folder" } else { special_file(&t) };
    format!("it is {what}, not a file: a bot is a .wasm file")
}

#[cfg(unix)]
fn special_file(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        "a named pipe"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
fn special_file(_: &std::fs::FileType) -> &'static str {
    "not a regular file"
}

/// Why a bot file was rejected before any game.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("{path}: cannot read the bot file: {reason}")]
    Read {
        /// The file.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The file is over the size limit.
    #[error(
        "{path}: the file is {size} bytes, over the limit of {limit} bytes; strip debug info (`strip = true`, `opt-level = \"s\"` in the release profile) or raise --max-file-bytes"
    )]
    TooBig {
        /// The file.
        path: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Not WebAssembly at all.
    #[error("{path}: not a WebAssembly file (found {found}); {fix}")]
    NotWasm {
        /// The file.
        path: String,
        /// What the first bytes look like.
        found: String,
        /// What to do instead, for the world expected.
        fix: String,
    },
    /// A core module rather than a component.
    #[error(
        "{path}: a core WebAssembly module, not a component; expected a component for world {world}: build for `--target wasm32-wasip2`, or wrap the module with `wasm-tools component new`"
    )]
    CoreModule {
        /// The file.
        path: String,
        /// The expected world.
        world: &'static str,
    },
    /// The bot's memory at start is larger than the memory cap.
    #[error(
        "{path}: the bot starts with {needs} bytes of memory, more than the cap of {cap} bytes per bot; raise --memory (at most 4G), or make the bot start with less (smaller static data, a smaller initial heap)"
    )]
    MemoryTooLarge {
        /// The file.
        path: String,
        /// The bytes its memory starts with.
        needs: u64,
        /// The cap (`--memory`).
        cap: usize,
    },
    /// The component failed validation or compilation.
    #[error("{path}: not a valid WebAssembly component: {reason}")]
    Invalid {
        /// The file.
        path: String,
        /// The validator's reason.
        reason: String,
    },
    /// A component for another world.
    #[error("{path}: a component for another world; expected world {world} (exports {expected}), found {found}")]
    WrongWorld {
        /// The file.
        path: String,
        /// The expected world.
        world: &'static str,
        /// The exports expected.
        expected: String,
        /// What the component has instead.
        found: String,
    },
    /// The component uses the component model's async ABI, which the arena
    /// does not run.
    #[error(
        "{path}: uses the component model's async ABI, which the arena does not run (a bot's calls are synchronous): \
         built with componentize-qjs? add --sync; otherwise build for plain synchronous exports"
    )]
    NeedsAsync {
        /// The file.
        path: String,
    },
    /// The component targets a version of the package the arena does not know.
    #[error(
        "{path}: built for {found}, a version this arena does not know; it runs bots built for versions {supported}: rebuild the bot against one of them (the arena's wit/ folder)"
    )]
    UnknownVersion {
        /// The file.
        path: String,
        /// The package and version it imports.
        found: String,
        /// The versions this arena runs.
        supported: String,
    },
    /// The component imports two versions of the package at once.
    #[error(
        "{path}: imports versions {found} of the bots' package at once; a bot targets one version (this arena runs {supported}): rebuild it against one wit/ folder"
    )]
    MixedVersions {
        /// The file.
        path: String,
        /// The versions it imports.
        found: String,
        /// The versions this arena runs.
        supported: String,
    },
    /// Compiling the component went over a limit (time or memory).
    #[error(
        "{path}: {exceeded} to compile (the limit is {flag}); a bot this large or this deeply nested cannot be run: make it smaller or its code less deeply nested"
    )]
    CompileLimit {
        /// The file.
        path: String,
        /// What it took, e.g. "took more than 60 s".
        exceeded: String,
        /// The command-line flag that sets the limit.
        flag: &'static str,
    },
    /// The code's shape is over a limit measured before compiling
    /// ([`shape`]): the same verdict on every machine.
    #[error(
        "{path}: {reason}; code of this shape takes the compiler minutes on any machine: make the bot smaller or its code less deeply nested"
    )]
    TooComplex {
        /// The file.
        path: String,
        /// What is over which limit.
        reason: String,
    },
    /// The compiler process failed for a reason of its own (not the file's).
    #[error("{path}: the arena could not compile it: {reason}")]
    Compiler {
        /// The file.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// The component imports something the arena does not provide.
    #[error(
        "{path}: imports `{import}`, which the arena does not provide; bots may import only {allowed} and WASI 0.2"
    )]
    ForbiddenImport {
        /// The file.
        path: String,
        /// The import.
        import: String,
        /// What bots may import besides WASI.
        allowed: String,
    },
}

/// A bot file, checked and compiled, ready to instantiate once per game.
pub struct BotProgram {
    /// The file it came from.
    pub path: PathBuf,
    /// SHA-256 of the file, hex.
    pub sha256: String,
    /// The world (and so the version) the file targets.
    pub world: &'static WorldSpec,
    /// Whether loading compiled it (`false`: a compile cache had it).
    pub compiled: bool,
    pre: InstancePre<BotState>,
}

impl std::fmt::Debug for BotProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BotProgram")
            .field("path", &self.path)
            .field("sha256", &self.sha256)
            .field("world", &self.world.name)
            .finish()
    }
}

/// The state of one bot's store: its WASI context, limits and log.
pub struct BotState {
    wasi: WasiCtx,
    table: ResourceTable,
    limiter: Limiter,
    log: BotLog,
    clock: VirtualClock,
    /// The bank as the current call started, for `budget`.
    bank_at_call: u64,
    /// The game's limits, for `limits`.
    limits: HostLimits,
    /// Fuel owed for the host's work for the bot (bytes logged, random bytes).
    work: HostWork,
    /// The fuel left when the host last refused to grow a memory or table
    /// in the current call, to tell a failure that follows it directly.
    refusal: Option<u64>,
    /// What the host call that ran out of fuel would have cost.
    host_charge: Option<u64>,
    /// When the current call first passed its deadline, in wall-clock time
    /// and in this thread's CPU time: the backstop counts CPU time from there.
    backstop_mark: Option<(Instant, Duration)>,
    /// The CPU time a call may use before the backstop stops it.
    cpu_limit: Duration,
    /// Why the backstop stopped the current call, if it did.
    stopped: Option<Stopped>,
}

/// Why the time backstop stopped a call: the CPU time it used and the
/// wall-clock time it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stopped {
    /// The bot had the CPU for the whole limit without running out of fuel.
    Cpu { cpu: Duration, wall: Duration },
    /// The machine gave the bot too little of a CPU to reach its limit.
    Starved { cpu: Duration, wall: Duration },
}

/// How many times its CPU-time limit a call may last on the wall clock
/// before the machine, not the bot, is said to have failed it: the bot's
/// thread then had less than a tenth of a core.
pub const STARVED_FACTOR: u32 = 10;

/// The CPU time this thread has used. Other programs and other threads do
/// not add to it, so a loaded machine does not stop a bot sooner.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec for clock_gettime to write.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
        // Never on Linux; the wall-clock limit still ends the call.
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec.max(0) as u64, ts.tv_nsec.clamp(0, 999_999_999) as u32)
}

/// Epoch ticks in `d`, at least one.
fn ticks_in(d: Duration) -> u64 {
    (d.as_nanos().div_ceil(EPOCH_TICK.as_nanos()) as u64).max(1)
}

/// Called on the bot's thread when a call's deadline passes. The first
/// deadline comes after the limit in wall-clock time; from then on the call
/// is stopped once it has also used the limit in CPU time (the bot's doing),
/// or when the machine has starved it of the CPU for [`STARVED_FACTOR`]
/// times the limit (the machine's). Reading the CPU time costs a system
/// call (about 0.4 us), so it is read here, never on every call: a bot
/// gets at least the limit in CPU time, and on an idle machine is stopped
/// after twice the limit.
fn backstop(mut store: StoreContextMut<'_, BotState>) -> wasmtime::Result<UpdateDeadline> {
    let state = store.data_mut();
    let Some((since, cpu_at_mark)) = state.backstop_mark else {
        state.backstop_mark = Some((Instant::now(), thread_cpu()));
        return Ok(UpdateDeadline::Continue(ticks_in(state.cpu_limit)));
    };
    let cpu = thread_cpu().saturating_sub(cpu_at_mark);
    let wall = since.elapsed() + state.cpu_limit;
    if cpu >= state.cpu_limit {
        state.stopped = Some(Stopped::Cpu { cpu, wall });
        return Err(Trap::Interrupt.into());
    }
    if wall >= state.cpu_limit.saturating_mul(STARVED_FACTOR) {
        state.stopped = Some(Stopped::Starved { cpu, wall });
        return Err(Trap::Interrupt.into());
    }
    Ok(UpdateDeadline::Continue(ticks_in(state.cpu_limit - cpu)))
}

impl WasiView for BotState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl VirtualClockView for BotState {
    fn clock(&self) -> &VirtualClock {
        &self.clock
    }
}

/// Engine, linker, limits and compile cache shared by every bot of a run.
pub struct Sandbox {
    engine: Engine,
    linker: Mutex<Linker<BotState>>,
    limits: Limits,
    host: HostApi,
    cache: Mutex<HashMap<[u8; 32], Component>>,
    compiler: Compiler,
    disk: Option<DiskCache>,
    stop_ticker: Arc<AtomicBool>,
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        self.stop_ticker.store(true, Ordering::Relaxed);
    }
}

impl Sandbox {
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
        // The message stays in the bot's memory (`LoggedStr`) until it is
        // paid for, per byte passed; it is checked as UTF-8 only while the
        // log has room, so a full log costs the host nothing per byte.
        for interface in host.interfaces {
            let mut instance = linker.instance(interface.name)?;
            instance.func_wrap(
                "log",
                |mut store: wasmtime::StoreContextMut<'_, BotState>, (message,): (LoggedStr,)| {
                    pay(&mut store, (message.len as u64).saturating_mul(LOG_BYTE_FUEL))?;
                    if store.data().log.full() {
                        return Ok(());
                    }
                    let store = store.as_context();
                    let text = message.text.to_str(&store)?;
                    store.data().log.line(&text);
                    Ok(())
                },
            )?;
            if interface.budget {
                // The store's fuel is exact at a host call: what is left of the
                // call's allowance is what lies above the bank.
                instance.func_wrap("budget", |store: wasmtime::StoreContextMut<'_, BotState>, (): ()| {
                    let left = store.get_fuel()?;
                    let bank = store.data().bank_at_call;
                    Ok((HostBudget {
                        call_fuel: left.saturating_sub(bank),
                        bank_fuel: left.min(bank),
                    },))
                })?;
                instance.func_wrap("limits", |store: wasmtime::StoreContextMut<'_, BotState>, (): ()| {
                    Ok((store.data().limits,))
                })?;
            }
        }
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

    /// Read, check and compile a bot file for one of `worlds` (the versions
    /// of one game's world, oldest first): the version of the package the
    /// file imports picks the world.
    pub fn load(&self, path: &Path, worlds: &[&'static WorldSpec]) -> Result<BotProgram, LoadError> {
        self.load_checked(path, worlds).map_err(|e| match e {
            // wasmtime says this in its own words; say it in the student's.
            LoadError::Invalid { path, reason } => match initial_memory_over_cap(&reason) {
                Some(needs) => LoadError::MemoryTooLarge {
                    path,
                    needs,
                    cap: self.limits.memory_bytes,
                },
                None if reason.contains("requires the component model async feature") => LoadError::NeedsAsync { path },
                None => LoadError::Invalid { path, reason },
            },
            other => other,
        })
    }

    fn load_checked(&self, path: &Path, worlds: &[&'static WorldSpec]) -> Result<BotProgram, LoadError> {
        let Some(&newest) = worlds.last() else {
            return Err(LoadError::Invalid {
                path: path.display().to_string(),
                reason: "the game names no world to check the bot against".into(),
            });
        };
        let world = newest;
        let shown = path.display().to_string();
        let read_err = |e: std::io::Error| LoadError::Read {
            path: shown.clone(),
            reason: match e.kind() {
                std::io::ErrorKind::PermissionDenied => {
                    "permission denied (whoever runs the arena must be able to read it: chmod a+r)".to_string()
                }
                std::io::ErrorKind::NotFound => "there is no such file".to_string(),
                _ => e.to_string(),
            },
        };
        let meta = std::fs::metadata(path).map_err(read_err)?;
        // A device, pipe or socket (or a link to one) reports no size and
        // can be read forever or block: only a regular file is a bot file.
        if !meta.is_file() {
            return Err(LoadError::Read {
                path: shown,
                reason: not_a_file(&meta),
            });
        }
        let size = meta.len();
        if size > self.limits.max_file_bytes {
            return Err(LoadError::TooBig {
                path: shown,
                size,
                limit: self.limits.max_file_bytes,
            });
        }
        let bytes = read_at_most(path, self.limits.max_file_bytes).map_err(read_err)?;
        // The file grew between the size check and the read.
        if bytes.len() as u64 > self.limits.max_file_bytes {
            return Err(LoadError::TooBig {
                path: shown,
                size: bytes.len() as u64,
                limit: self.limits.max_file_bytes,
            });
        }
        if bytes.len() < 8 || &bytes[..4] != b"\0asm" {
            let (found, fix) = describe_non_wasm(path, &bytes, world.name);
            return Err(LoadError::NotWasm {
                path: shown,
                found,
                fix,
            });
        }
        if bytes[4..8] == [1, 0, 0, 0] {
            return Err(LoadError::CoreModule {
                path: shown,
                world: world.name,
            });
        }
        let hash: [u8; 32] = Sha256::digest(&bytes).into();
        let (component, compiled) = self.compile(&shown, &hash, &bytes)?;
        let world = self.pick_world(&shown, &component, worlds)?;
        self.check_world(&shown, &component, world)?;
        let mut linker = self.linker.lock().unwrap_or_else(|e| e.into_inner());
        stub_denied_imports(&mut linker, &self.engine, &component).map_err(|e| self.link_error(&shown, &e))?;
        let pre = linker
            .instantiate_pre(&component)
            .map_err(|e| self.link_error(&shown, &e))?;
        (world.typecheck)(&pre).map_err(|e| LoadError::WrongWorld {
            path: shown.clone(),
            world: world.name,
            expected: world.exports.join(", "),
            found: format!("exports of other types ({})", first_line(&e)),
        })?;
        let sha256 = hash.iter().map(|b| format!("{b:02x}")).collect();
        Ok(BotProgram {
            path: path.to_path_buf(),
            sha256,
            world,
            compiled,
            pre,
        })
    }

    /// Compile once per file per run: in this process, or in a child
    /// process under limits (see `compile.rs`).
    /// Whether it was compiled now (`false`: it came from a cache).
    fn compile(&self, shown: &str, hash: &[u8; 32], bytes: &[u8]) -> Result<(Component, bool), LoadError> {
        if let Some(c) = self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(hash) {
            return Ok((c.clone(), false));
        }
        let (component, compiled) = self.compile_uncached(shown, hash, bytes)?;
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(*hash, component.clone());
        Ok((component, compiled))
    }

    /// Compile from the disk cache, or compile and keep the result there.
    fn compile_uncached(&self, shown: &str, hash: &[u8; 32], bytes: &[u8]) -> Result<(Component, bool), LoadError> {
        if let Some(disk) = &self.disk
            && let Some(artifact) = disk.load(hash)
        {
            // SAFETY: the entry's checksum file names this file and engine, and
            // the artifact hashes to the checksum this program wrote with it:
            // these are the bytes a compile of this program serialized, in a
            // folder only this user may write (cache.rs).
            match unsafe { compile::map_artifact(&self.engine, shown, &artifact) } {
                Ok(c) => return Ok((c, false)),
                // Never trusted further: forget it and compile again.
                Err(_) => disk.remove(hash),
            }
        }
        let invalid = |e: wasmtime::Error| LoadError::Invalid {
            path: shown.to_string(),
            reason: first_line(&e),
        };
        if let Some(reason) = shape::measure(bytes).and_then(|s| s.over_limit()) {
            return Err(LoadError::TooComplex {
                path: shown.to_string(),
                reason,
            });
        }
        match &self.compiler {
            Compiler::InProcess => {
                let component = Component::new(&self.engine, bytes).map_err(invalid)?;
                if let Some(disk) = &self.disk
                    && let Ok(artifact) = component.serialize()
                {
                    disk.store(hash, &artifact);
                }
                Ok((component, true))
            }
            Compiler::Child(child) => {
                let artifact = child.artifact(&self.limits, shown, bytes)?;
                // Kept on disk, the artifact is mapped from there, as on later
                // runs: a first run of a class holds no interpreter in memory
                // that it does not run either.
                if let Some(disk) = &self.disk {
                    disk.store(hash, &artifact);
                    // SAFETY: as for any verified entry (above).
                    if let Some(path) = disk.load(hash)
                        && let Ok(c) = unsafe { compile::map_artifact(&self.engine, shown, &path) }
                    {
                        return Ok((c, true));
                    }
                    disk.remove(hash);
                }
                // SAFETY: the child is this program's own executable, which just
                // compiled them with `Component::serialize` for an engine of the
                // same configuration, and they went straight from its stdout into
                // memory here, never through a file anyone else can write.
                unsafe { compile::load_artifact(&self.engine, shown, &artifact) }.map(|c| (c, true))
            }
        }
    }

    /// The world of the package version the component imports: one version,
    /// and one the arena supports (a component importing nothing of the
    /// package is checked against the newest).
    fn pick_world(
        &self,
        shown: &str,
        component: &Component,
        worlds: &[&'static WorldSpec],
    ) -> Result<&'static WorldSpec, LoadError> {
        let ty = component.component_type();
        let mut versions: Vec<String> = ty
            .imports(&self.engine)
            .filter(|(name, _)| name.starts_with(self.host.package))
            .filter_map(|(name, _)| name.rsplit_once('@').map(|(_, v)| v.to_string()))
            .collect();
        versions.sort();
        versions.dedup();
        let supported = || worlds.iter().map(|w| w.version).collect::<Vec<_>>().join(", ");
        let package = self.host.package.trim_end_matches('/');
        match versions.as_slice() {
            [] => worlds.last().copied().ok_or_else(|| LoadError::Invalid {
                path: shown.to_string(),
                reason: "no world to check against".into(),
            }),
            [v] => worlds
                .iter()
                .copied()
                .find(|w| w.version == v)
                .ok_or_else(|| LoadError::UnknownVersion {
                    path: shown.to_string(),
                    found: format!("{package}@{v}"),
                    supported: supported(),
                }),
            many => Err(LoadError::MixedVersions {
                path: shown.to_string(),
                found: many.join(" and "),
                supported: supported(),
            }),
        }
    }

    fn check_world(&self, shown: &str, component: &Component, world: &WorldSpec) -> Result<(), LoadError> {
        let ty = component.component_type();
        let exports: Vec<String> = ty.exports(&self.engine).map(|(name, _)| name.to_string()).collect();
        if world.exports.iter().any(|e| !exports.iter().any(|x| x == e)) {
            let found = if exports.is_empty() {
                "no exports".to_string()
            } else {
                format!("exports {}", exports.join(", "))
            };
            return Err(LoadError::WrongWorld {
                path: shown.to_string(),
                world: world.name,
                expected: world.exports.join(", "),
                found,
            });
        }
        for (name, item) in ty.imports(&self.engine) {
            if name.starts_with("wasi:") || self.host.interfaces.iter().any(|i| i.name == name) {
                continue;
            }
            // A world's shared types arrive as an import of an interface with
            // no functions; give it an empty instance, it grants nothing.
            let types_only = name.starts_with(self.host.package)
                && match &item.ty {
                    ComponentItem::ComponentInstance(inst) => inst
                        .exports(&self.engine)
                        .all(|(_, e)| matches!(e.ty, ComponentItem::Type(_) | ComponentItem::Resource(_))),
                    _ => false,
                };
            if !types_only {
                return Err(LoadError::ForbiddenImport {
                    path: shown.to_string(),
                    import: name.to_string(),
                    allowed: self.allowed_imports(),
                });
            }
            let mut linker = self.linker.lock().unwrap_or_else(|e| e.into_inner());
            if linker.instance(name).is_err() {
                // Already defined by an earlier bot: nothing to add.
            }
        }
        Ok(())
    }

    /// Why linking failed, in the words of [`LoadError::ForbiddenImport`]
    /// when the component imports a WASI or host interface (or a function of
    /// one) that the arena does not link, rather than wasmtime's "not found
    /// in the linker".
    fn link_error(&self, shown: &str, error: &wasmtime::Error) -> LoadError {
        let messages: Vec<String> = error.chain().map(|e| e.to_string()).collect();
        let quoted = |m: &str| m.split('`').nth(1).map(str::to_string);
        let import = messages
            .iter()
            .find(|m| m.starts_with("component imports ") && m.contains("not found in the linker"))
            .and_then(|m| quoted(m));
        match import {
            Some(name) => {
                let member = messages
                    .iter()
                    .find(|m| m.starts_with("instance export `"))
                    .and_then(|m| quoted(m));
                LoadError::ForbiddenImport {
                    path: shown.to_string(),
                    import: match member {
                        Some(f) => format!("{name}#{f}"),
                        None => name,
                    },
                    allowed: self.allowed_imports(),
                }
            }
            None => LoadError::Invalid {
                path: shown.to_string(),
                reason: first_line(error),
            },
        }
    }

    fn allowed_imports(&self) -> String {
        self.host
            .interfaces
            .iter()
            .map(|i| i.name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A fresh instance of `program` for one game, with its own store, limits,
    /// log and seeded WASI. `bind` looks up the world's exports.
    /// Instantiation is paid from the start allowance (or a call's budget,
    /// for worlds budgeted per call).
    pub fn instantiate<B>(
        &self,
        program: &BotProgram,
        seed: u64,
        bind: impl FnOnce(&mut Store<BotState>, &wasmtime::component::Instance) -> wasmtime::Result<B>,
    ) -> Result<Instance<B>, Fault> {
        let log = BotLog::new(self.limits.log_bytes);
        let clock = VirtualClock::default();
        let work = HostWork::default();
        let state = BotState {
            wasi: wasi::deterministic_ctx(seed, &clock, &log, &work),
            table: ResourceTable::new(),
            limiter: Limiter::new(self.limits.memory_bytes, work.clone()),
            log,
            clock,
            bank_at_call: 0,
            limits: self.limits.record(),
            work,
            refusal: None,
            host_charge: None,
            backstop_mark: None,
            cpu_limit: self.limits.timeout,
            stopped: None,
        };
        let mut store = Store::new(&self.engine, state);
        store.limiter(|s| &mut s.limiter);
        store.call_hook(host_call_hook);
        store.epoch_deadline_callback(backstop);
        let ticks = ticks_in(self.limits.timeout);
        let mut meter = Meter::new(program.world.budget, &self.limits);
        let grant = meter.grant(Call::Start);
        let result = arm(&mut store, grant, ticks)
            .and_then(|()| program.pre.instantiate(&mut store))
            .and_then(|instance| bind(&mut store, &instance));
        let used = grant.fuel() - store.get_fuel().unwrap_or(0);
        match result {
            Ok(bindings) => {
                meter.charge(None, grant, used);
                Ok(Instance {
                    store,
                    bindings,
                    meter,
                    ticks,
                    failed: None,
                    mark: 0,
                })
            }
            Err(e) => Err(classify(e, &store, false, || meter.exhausted(None, grant))),
        }
    }
}

/// A `string` argument left in the bot's memory, with its length in code
/// units (bytes, for the UTF-8 every Rust bot uses), known without reading it.
struct LoggedStr {
    text: WasmStr,
    len: usize,
}

// SAFETY: the same type and ABI as `WasmStr`, which does the lifting.
unsafe impl ComponentType for LoggedStr {
    type Lower = <WasmStr as ComponentType>::Lower;
    const ABI: CanonicalAbiInfo = <WasmStr as ComponentType>::ABI;

    fn typecheck(ty: &InterfaceType, types: &InstanceType<'_>) -> wasmtime::Result<()> {
        <WasmStr as ComponentType>::typecheck(ty, types)
    }
}

// SAFETY: delegates to `WasmStr`, which checks the string lies in bounds.
unsafe impl Lift for LoggedStr {
    fn linear_lift_from_flat(cx: &mut LiftContext<'_>, ty: InterfaceType, src: &Self::Lower) -> wasmtime::Result<Self> {
        let text = WasmStr::linear_lift_from_flat(cx, ty, src)?;
        let len = src[1].get_u32() as usize;
        Ok(LoggedStr { text, len })
    }

    fn linear_lift_from_memory(cx: &mut LiftContext<'_>, ty: InterfaceType, bytes: &[u8]) -> wasmtime::Result<Self> {
        let text = WasmStr::linear_lift_from_memory(cx, ty, bytes)?;
        let len = bytes
            .get(4..8)
            .and_then(|b| b.try_into().ok())
            .map_or(0, |b: [u8; 4]| u32::from_le_bytes(b) as usize);
        Ok(LoggedStr { text, len })
    }
}

/// Charge host work in fuel at every crossing into the host: a flat
/// [`HOST_CALL_FUEL`] on the way in (imports and runtime calls such as
/// `memory.grow` alike), and on the way out what the host's own
/// implementations noted per byte in [`HostWork`].
fn host_call_hook(mut store: StoreContextMut<'_, BotState>, hook: CallHook) -> wasmtime::Result<()> {
    match hook {
        CallHook::CallingHost => pay(&mut store, HOST_CALL_FUEL),
        CallHook::ReturningFromHost => {
            if store.data_mut().limiter.take_refused() {
                let left = store.get_fuel()?;
                store.data_mut().refusal = Some(left);
            }
            let owed = store.data().work.take();
            pay(&mut store, owed)
        }
        CallHook::CallingWasm | CallHook::ReturningFromWasm => Ok(()),
    }
}

/// Take `fuel` out of the store's fuel; when less is left, the bot is out of
/// fuel, exactly as if its own code had used it up.
fn pay(store: &mut StoreContextMut<'_, BotState>, fuel: u64) -> wasmtime::Result<()> {
    if fuel == 0 {
        return Ok(());
    }
    let left = store.get_fuel()?;
    if left < fuel {
        store.set_fuel(0)?;
        if left > 0 {
            store.data_mut().host_charge = Some(fuel);
        }
        return Err(Trap::OutOfFuel.into());
    }
    store.set_fuel(left - fuel)
}

/// How much fuel may pass between a refused growth and a failure for the
/// failure to count as its consequence: enough for an allocator to report
/// the failure and abort, far too little to play on.
const REFUSAL_FOLLOW_FUEL: u64 = 200_000;

fn arm(store: &mut Store<BotState>, grant: Grant, ticks: u64) -> wasmtime::Result<()> {
    store.set_fuel(grant.fuel())?;
    let state = store.data_mut();
    state.refusal = None;
    state.host_charge = None;
    state.stopped = None;
    state.backstop_mark = None;
    state.limiter.take_refused();
    state.work.take();
    store.data_mut().bank_at_call = grant.bank;
    store.set_epoch_deadline(ticks);
    Ok(())
}

/// One bot instance playing one game.
pub struct Instance<B> {
    store: Store<BotState>,
    bindings: B,
    meter: Meter,
    ticks: u64,
    failed: Option<Fault>,
    mark: u64,
}

impl<B> Instance<B> {
    /// Set the mark the next calls are recorded with: the caller's own
    /// position (a game's count of events), so its record can place each
    /// call, its fuel and its log lines.
    pub fn set_mark(&mut self, mark: u64) {
        self.mark = mark;
    }

    /// Call into the bot under the budget of a call of kind `call` and a
    /// fresh deadline. After a failure the instance is dead: every later
    /// call returns the same failure.
    pub fn call<R>(
        &mut self,
        call: Call,
        f: impl FnOnce(&B, &mut Store<BotState>) -> wasmtime::Result<R>,
    ) -> Result<R, Fault> {
        if let Some(failure) = &self.failed {
            return Err(failure.clone());
        }
        let grant = self.meter.grant(call);
        let result = arm(&mut self.store, grant, self.ticks).and_then(|()| f(&self.bindings, &mut self.store));
        let used = grant.fuel() - self.store.get_fuel().unwrap_or(0);
        let log_lines = self.store.data().log.line_count();
        self.meter.charge_call(call, grant, used, self.mark, log_lines);
        result.map_err(|e| {
            let failure = classify(e, &self.store, true, || self.meter.exhausted(Some(call), grant));
            self.failed = Some(failure.clone());
            failure
        })
    }

    /// Take what the bot logged so far.
    pub fn take_log(&self) -> LogContents {
        self.store.data().log.take()
    }

    /// What the bot logged and the fuel it used, for the game's record.
    pub fn report(&self) -> (LogContents, Usage) {
        (self.take_log(), self.meter.usage.clone())
    }
}

/// The bytes a memory starts with, when wasmtime refused it for being over
/// the pool's cap ("memory has a minimum byte size of N which exceeds the limit").
fn initial_memory_over_cap(reason: &str) -> Option<u64> {
    let (_, rest) = reason.split_once("minimum byte size of ")?;
    rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

/// Turn a wasmtime error into the reason the bot forfeits. `in_call`: the
/// error ended a call into the bot (not instantiation), so a value the host
/// could not read is the bot's answer.
///
/// The kind of failure decides first: running out of fuel or time, or
/// overflowing the stack, is reported as such even after a refused memory
/// growth that the bot handled. Only a failure that follows a refusal
/// directly (an allocator's abort) is reported as `memory`.
fn classify(
    error: wasmtime::Error,
    store: &Store<BotState>,
    in_call: bool,
    out_of_fuel: impl FnOnce() -> String,
) -> Fault {
    let state = store.data();
    let trap = error.downcast_ref::<Trap>();
    if let Some(why) = state.limiter.system_failed() {
        return Fault::new(
            FaultKind::Host,
            format!(
                "the machine could not give the bot memory within its cap of {} ({why}); this is not the bot's fault",
                compile::mib(state.limiter.cap() as u64)
            ),
        );
    }
    match trap {
        Some(Trap::OutOfFuel) => {
            let mut detail = out_of_fuel();
            if let Some(cost) = state.host_charge {
                detail = format!(
                    "{detail}; the fuel ran out in a call to the host, whose work would have cost {cost} \
                     (each host call costs {HOST_CALL_FUEL}, each byte logged or written {LOG_BYTE_FUEL}, \
                     each byte of randomness the host makes {}, and it makes 4 per byte of `get-random-bytes`)",
                    budget::RANDOM_BYTE_FUEL
                );
            }
            return Fault::new(FaultKind::Fuel, detail);
        }
        Some(Trap::Interrupt) => {
            return match state.stopped {
                Some(Stopped::Starved { cpu, wall }) => Fault::new(
                    FaultKind::Host,
                    format!(
                        "the machine is too loaded: in {:.1} s of one call it gave the bot only {:.2} s of a CPU, \
                         less than a tenth (other programs, or more --jobs than cores); this is not the bot's \
                         fault: run again on a less loaded machine",
                        wall.as_secs_f64(),
                        cpu.as_secs_f64()
                    ),
                ),
                Some(Stopped::Cpu { cpu, .. }) => Fault::new(
                    FaultKind::Timeout,
                    format!(
                        "used {:.1} s of CPU time in one call without running out of fuel (the limit is {:.1} s): \
                         only code whose time fuel cannot price does this, such as memory reads that miss the \
                         cache one after another",
                        cpu.as_secs_f64(),
                        state.cpu_limit.as_secs_f64()
                    ),
                ),
                None => Fault::new(FaultKind::Timeout, "ran past the time limit per call"),
            };
        }
        Some(Trap::StackOverflow) => {
            return Fault::new(FaultKind::Trap, "stack overflow (unbounded recursion?)");
        }
        _ => {}
    }
    let fuel_now = store.get_fuel().unwrap_or(0);
    let after_refusal = state.limiter.refused()
        || state
            .refusal
            .is_some_and(|at| at.saturating_sub(fuel_now) <= REFUSAL_FOLLOW_FUEL);
    if after_refusal {
        return Fault::new(
            FaultKind::Memory,
            format!(
                "tried to grow memory beyond the cap of {} (all memories and tables together)",
                compile::mib(state.limiter.cap() as u64)
            ),
        );
    }
    if trap.is_some()
        && let Some(exception) = state.log.last_exception()
    {
        // The interpreter could not get memory within the cap: the reason
        // is `memory`, in the language's own words.
        if exception.starts_with("MemoryError") || exception.contains("out of memory") {
            return Fault::new(
                FaultKind::Memory,
                format!(
                    "out of memory: {exception}: the bot needed more than its cap of {} (use less: a list, \
                     string or table far larger than it needs to be?), or raise --memory",
                    compile::mib(state.limiter.cap() as u64)
                ),
            );
        }
        // An interpreter's exception ends in a trap whose wasm words help
        // no student; the exception's own line does.
        return Fault::new(FaultKind::Trap, format!("uncaught exception: {exception}"));
    }
    if let Some(trap) = trap {
        // A Rust panic says where and why in the bot's own words: those,
        // not the `unreachable` the panic ends in.
        if let Some(panic) = state.log.last_panic() {
            let at = panic.find("panicked at").unwrap_or(0);
            return Fault::new(FaultKind::Trap, panic[at..].to_string());
        }
        let mut detail = trap.to_string();
        if let Some(place) = where_trapped(&error) {
            detail = format!("{detail} {place}");
        }
        return Fault::new(FaultKind::Trap, detail);
    }
    if in_call && let Some(reason) = unreadable_answer(&error) {
        return Fault::new(
            FaultKind::InvalidAnswer,
            format!(
                "answered a value the host cannot read as the world's type: {reason}; \
                 was the bot built with the arena's WIT files and an up-to-date SDK?"
            ),
        );
    }
    if let Some(exit) = error.downcast_ref::<wasmtime_wasi::I32Exit>() {
        return Fault::new(FaultKind::Trap, format!("the bot exited with status {}", exit.0));
    }
    Fault::new(FaultKind::Trap, host_error(&error))
}

/// Interfaces a toolchain imports by default that no bot may use: they
/// link, so the bot loads, and every call fails inside the bot
/// (componentize-js imports `wasi:http` unless told `-d http`).
const DENIED_AT_CALL: &[&str] = &["wasi:http/"];

/// Link each function of a [`DENIED_AT_CALL`] interface that `component`
/// imports as one that fails when called, and each resource as an opaque
/// host type; an interface already linked (by an earlier bot) is left as is.
fn stub_denied_imports(linker: &mut Linker<BotState>, engine: &Engine, component: &Component) -> wasmtime::Result<()> {
    use wasmtime::component::ResourceType;
    use wasmtime_wasi::p2::{DynInputStream, DynOutputStream, DynPollable, IoError};
    // A denied interface uses WASI's own resources (`use wasi:io/streams.{input-stream}`):
    // those must be the host types WASI links them as, found by identity.
    let ty = component.component_type();
    let imports: Vec<_> = ty.imports(engine).collect();
    let mut wasi_resources: Vec<(ResourceType, ResourceType)> = Vec::new();
    for (name, item) in &imports {
        let ComponentItem::ComponentInstance(instance) = &item.ty else {
            continue;
        };
        for (member, item) in instance.exports(engine) {
            let ComponentItem::Resource(ty) = item.ty else {
                continue;
            };
            let host = match (name.split('@').next().unwrap_or(name), member) {
                ("wasi:io/streams", "input-stream") => ResourceType::host::<DynInputStream>(),
                ("wasi:io/streams", "output-stream") => ResourceType::host::<DynOutputStream>(),
                ("wasi:io/poll", "pollable") => ResourceType::host::<DynPollable>(),
                ("wasi:io/error", "error") => ResourceType::host::<IoError>(),
                _ => continue,
            };
            wasi_resources.push((ty, host));
        }
    }
    for (name, item) in imports {
        if !DENIED_AT_CALL.iter().any(|p| name.starts_with(p)) {
            continue;
        }
        let ComponentItem::ComponentInstance(instance) = item.ty else {
            continue;
        };
        let mut linked = linker.instance(name)?;
        for (member, item) in instance.exports(engine) {
            let result = match item.ty {
                ComponentItem::ComponentFunc(_) => {
                    let what = format!("{name}#{member}");
                    linked.func_new(member, move |_, _, _, _| {
                        wasmtime::bail!(
                            "the bot called `{what}`: bots have no network, so this always fails \
                             (code that fetches or serves HTTP cannot run in a game)"
                        )
                    })
                }
                ComponentItem::Resource(ty) => match wasi_resources.iter().find(|(r, _)| *r == ty) {
                    Some(&(_, host)) => linked.resource(member, host, |_, _| Ok(())),
                    None => linked.resource(member, ResourceType::host::<()>(), |_, _| Ok(())),
                },
                _ => Ok(()),
            };
            // Defined by an earlier bot importing the same interface: keep it.
            if let Err(e) = result
                && !e.to_string().contains("defined twice")
            {
                return Err(e);
            }
        }
    }
    Ok(())
}

/// Why the host could not read a call's result (the canonical ABI's
/// lifting failed: an enum or variant discriminant that does not exist, a
/// string that is not UTF-8, a pointer out of bounds), if that is the error.
/// A failure inside a host function carries a wasm backtrace; the answer is
/// read after the bot's code returned, so its error has none.
fn unreadable_answer(error: &wasmtime::Error) -> Option<String> {
    if error.downcast_ref::<wasmtime::WasmBacktrace>().is_some()
        || error.downcast_ref::<wasmtime_wasi::I32Exit>().is_some()
    {
        return None;
    }
    const LIFT_FAILURES: &[&str] = &[
        "discriminant",
        "out of bounds of memory",
        "not aligned",
        "invalid",
        "utf-8",
        "byte length too large",
    ];
    let root = error.root_cause().to_string();
    let lower = root.to_lowercase();
    LIFT_FAILURES.iter().any(|p| lower.contains(p)).then_some(root)
}

/// Where the bot's own code trapped: the innermost frame that is not the
/// language's runtime (panic machinery, allocator, bindings), by its
/// demangled name from the component's name section, with the source file
/// and line where the bot carries debug info. `None` for stripped bots.
fn where_trapped(error: &wasmtime::Error) -> Option<String> {
    const RUNTIME: &[&str] = &[
        "core::",
        "std::",
        "alloc::",
        "<core::",
        "<std::",
        "<alloc::",
        "__rust",
        "rust_panic",
        "rust_begin_unwind",
        "wit_bindgen",
        "abort",
        "dlmalloc",
        "__rdl",
        "__rg",
    ];
    let backtrace = error.downcast_ref::<wasmtime::WasmBacktrace>()?;
    let (frame, name) = backtrace.frames().iter().find_map(|f| {
        let name = format!("{:#}", rustc_demangle::demangle(f.func_name()?));
        (!RUNTIME.iter().any(|r| name.starts_with(r))).then_some((f, name))
    })?;
    let place = frame
        .symbols()
        .iter()
        .find_map(|s| Some(format!(" ({}:{})", s.file()?, s.line()?)))
        .unwrap_or_default();
    Some(format!("in `{name}`{place}"))
}

/// A failure the host raised while the bot ran (not a trap of the bot's own
/// code): what it means for the bot, then the most specific message in the
/// error's chain, which is where wasmtime and WASI say what went wrong.
fn host_error(error: &wasmtime::Error) -> String {
    let cause = first_line(error);
    let root = error.root_cause().to_string();
    let table = error.downcast_ref::<ResourceTableError>();
    let meaning = match table {
        Some(ResourceTableError::Full) => Some(TOO_MANY_HANDLES),
        Some(ResourceTableError::NotPresent) => {
            Some("the bot used a WASI handle that was already closed or never existed")
        }
        Some(ResourceTableError::WrongType) => Some("the bot passed a WASI handle of the wrong kind"),
        Some(ResourceTableError::HasChildren) => {
            Some("the bot closed a WASI handle while handles made from it (streams, pollables) were still open")
        }
        None if root.contains("cannot allocate another handle") => Some(TOO_MANY_HANDLES),
        None if root.contains("unknown handle index") => {
            Some("the bot used a handle that was already closed or never existed")
        }
        None => None,
    };
    match meaning {
        Some(meaning) => format!("{meaning} (host error: {cause})"),
        None => format!("the arena had to stop the bot: {cause}"),
    }
}

const TOO_MANY_HANDLES: &str = "the bot kept too many WASI handles (streams, pollables, files) open at once \
     and the host refused another one; drop each handle when you are done with it";

/// The error's chain on one line, outermost first, each part's first line:
/// a wasm backtrace (a context wasmtime adds, spread over many lines) and
/// other empty parts are left out, so the line always names the cause.
fn first_line(error: &wasmtime::Error) -> String {
    let parts: Vec<String> = error
        .chain()
        .filter_map(|e| {
            e.to_string()
                .lines()
                .next()
                .map(|l| l.trim().trim_end_matches(':').to_string())
        })
        .filter(|l| !l.is_empty() && !l.starts_with("error while executing at wasm backtrace"))
        .collect();
    let mut line = String::new();
    for part in parts {
        // `Error::context` often repeats the inner message in the outer one.
        if !line.contains(&part) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&part);
        }
    }
    if line.is_empty() {
        line.push_str("unknown error");
    }
    line
}

fn describe_non_wasm(path: &Path, bytes: &[u8], world: &str) -> (String, String) {
    let build = format!(
        "expected a component for world {world}: build the bot first with its project's build command \
         (`./build.sh` in a project of `arena new`, for Rust, Python, JavaScript and C) and pass the .wasm it writes"
    );
    let source = |language: &str, how: &str| {
        (
            format!("{language} source"),
            format!(
                "the arena runs the built .wasm file, not the source: build it with {how} (`arena new --lang ... DIR` writes a project whose README has the command), then pass the .wasm"
            ),
        )
    };
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    match extension.as_str() {
        "py" => return source("Python", "componentize-py"),
        "js" | "mjs" | "ts" => return source("JavaScript", "componentize-js"),
        "rs" => return source("Rust", "`cargo build --release --target wasm32-wasip2`"),
        "wat" => {
            return (
                "WebAssembly text".into(),
                format!("{build}; a .wat file must be assembled and made a component"),
            );
        }
        _ => {}
    }
    if text.contains("WitWorld") || (text.contains("def ") && text.contains("import ")) {
        return source("Python", "componentize-py");
    }
    if text.contains("export function") || text.contains("export const") {
        return source("JavaScript", "componentize-js");
    }
    let found = if bytes.is_empty() {
        "an empty file".into()
    } else if bytes.starts_with(b"\x7fELF") {
        "a native ELF executable".into()
    } else if bytes.starts_with(b"PK") {
        "a zip archive".into()
    } else if bytes
        .iter()
        .take(64)
        .all(|b| b.is_ascii() && (!b.is_ascii_control() || b.is_ascii_whitespace()))
    {
        "text".into()
    } else {
        let head: Vec<String> = bytes.iter().take(4).map(|b| format!("{b:02x}")).collect();
        format!("bytes {}", head.join(" "))
    };
    (found, build)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasmtime::WasmBacktrace;

    /// An error as wasmtime returns it from a call whose host function
    /// failed: the host's error, with the wasm backtrace added as context.
    fn from_a_call(error: wasmtime::Error) -> wasmtime::Error {
        let store = Store::new(&Engine::default(), ());
        error.context(WasmBacktrace::force_capture(&store))
    }

    #[test]
    fn too_many_wasi_handles_is_said_in_words_not_as_a_backtrace_header() {
        let error = from_a_call(wasmtime::Error::from(ResourceTableError::Full));
        assert!(
            format!("{error:#}").starts_with("error while executing at wasm backtrace:"),
            "the error is built as wasmtime builds it"
        );
        let detail = host_error(&error);
        assert!(!detail.contains("wasm backtrace"), "{detail}");
        assert!(detail.contains("too many WASI handles"), "{detail}");
        assert!(detail.contains("drop each handle"), "{detail}");
        assert!(detail.contains("resource table has no free keys"), "{detail}");
        assert_eq!(detail.lines().count(), 1, "{detail}");
    }

    #[test]
    fn any_host_error_names_its_root_cause() {
        let error = from_a_call(wasmtime::Error::msg(
            "cannot allocate another handle: store handle limit exceeded",
        ));
        let detail = host_error(&error);
        assert!(detail.contains("too many WASI handles"), "{detail}");
        assert!(detail.contains("store handle limit exceeded"), "{detail}");

        let error = from_a_call(wasmtime::Error::msg("something odd in the host").context("calling `choose-move`"));
        let detail = host_error(&error);
        assert!(detail.contains("something odd in the host"), "{detail}");
        assert!(detail.contains("calling `choose-move`"), "{detail}");
        assert!(!detail.contains("wasm backtrace"), "{detail}");
    }

    /// A store like a bot's, with `fuel` and a memory cap of 1 MiB, for classifying errors.
    fn bot_store(fuel: u64) -> Store<BotState> {
        let mut config = wasmtime::Config::new();
        config.consume_fuel(true);
        let engine = Engine::new(&config).unwrap();
        let log = BotLog::new(100);
        let clock = VirtualClock::default();
        let work = HostWork::default();
        let state = BotState {
            wasi: wasi::deterministic_ctx(1, &clock, &log, &work),
            table: ResourceTable::new(),
            limiter: Limiter::new(1 << 20, work.clone()),
            log,
            clock,
            bank_at_call: 0,
            limits: Limits::DEFAULT.record(),
            work,
            refusal: None,
            host_charge: None,
            backstop_mark: None,
            cpu_limit: Duration::from_secs(1),
            stopped: None,
        };
        let mut store = Store::new(&engine, state);
        store.set_fuel(fuel).unwrap();
        store
    }

    fn kind(error: wasmtime::Error, store: &Store<BotState>) -> Fault {
        classify(error, store, true, || "ran out of fuel".into())
    }

    #[test]
    fn an_answer_the_host_cannot_read_is_an_invalid_answer_not_a_trap() {
        let store = bot_store(1000);
        let fault = kind(wasmtime::Error::msg("unexpected discriminant: 7"), &store);
        assert_eq!(fault.kind, FaultKind::InvalidAnswer);
        assert!(fault.detail.contains("unexpected discriminant: 7"), "{}", fault.detail);
        // The same words from inside a host function (it carries a wasm
        // backtrace) are the bot's bad call, not its answer.
        let fault = kind(from_a_call(wasmtime::Error::msg("unexpected discriminant: 7")), &store);
        assert_eq!(fault.kind, FaultKind::Trap);
        // And during instantiation there is no answer yet.
        let fault = classify(
            wasmtime::Error::msg("unexpected discriminant: 7"),
            &store,
            false,
            String::new,
        );
        assert_eq!(fault.kind, FaultKind::Trap);
    }

    /// An interpreter that runs out of memory within the cap says so in its
    /// own words: the reason is `memory`, with the file and line.
    #[test]
    fn pythons_memory_error_is_a_memory_forfeit_in_pythons_words() {
        let mut store = bot_store(1000);
        store.data_mut().log = BotLog::new(4096);
        for line in [
            "Traceback (most recent call last):",
            "  File \"/0/app.py\", line 10, in choose_move",
            "object address  : 0x4817a8",
            "object type name: MemoryError",
            "object repr     : MemoryError()",
        ] {
            store.data().log.line(line);
        }
        let fault = kind(wasmtime::Error::new(Trap::UnreachableCodeReached), &store);
        assert_eq!(fault.kind, FaultKind::Memory);
        assert_eq!(
            fault.detail,
            "out of memory: MemoryError (app.py, line 10, in choose_move): the bot needed more than its cap of \
             1 MiB (use less: a list, string or table far larger than it needs to be?), or raise --memory"
        );
    }

    #[test]
    fn a_growth_the_system_failed_is_the_machines_failure_not_a_memory_forfeit() {
        use wasmtime::ResourceLimiter;
        let mut store = bot_store(1_000_000);
        // Within the cap, so the limiter allows it; then the system fails it.
        assert!(store.data_mut().limiter.memory_growing(0, 1 << 16, None).unwrap());
        store
            .data_mut()
            .limiter
            .memory_grow_failed(wasmtime::Error::msg("Cannot allocate memory (os error 12)"))
            .unwrap();
        let fault = kind(Trap::UnreachableCodeReached.into(), &store);
        assert_eq!(fault.kind, FaultKind::Host, "{}", fault.detail);
        assert!(fault.detail.contains("not the bot's fault"), "{}", fault.detail);
    }

    #[test]
    fn a_refused_growth_is_the_reason_only_for_the_failure_that_follows_it() {
        use wasmtime::ResourceLimiter;
        // Refused, then an abort right away: memory.
        let mut store = bot_store(1_000_000);
        assert!(!store.data_mut().limiter.memory_growing(0, 2 << 20, None).unwrap());
        let fault = kind(Trap::UnreachableCodeReached.into(), &store);
        assert_eq!(fault.kind, FaultKind::Memory, "{}", fault.detail);
        assert!(fault.detail.contains("cap of 1 MiB"), "{}", fault.detail);
        // Refused and handled, then out of fuel: fuel.
        let fault = kind(Trap::OutOfFuel.into(), &store);
        assert_eq!(fault.kind, FaultKind::Fuel);
        // Refused long before an unrelated trap: the trap.
        let mut store = bot_store(1_000_000);
        store.data_mut().refusal = Some(1_000_000);
        store.set_fuel(1_000_000 - 2 * REFUSAL_FOLLOW_FUEL).unwrap();
        let fault = kind(Trap::UnreachableCodeReached.into(), &store);
        assert_eq!(fault.kind, FaultKind::Trap, "{}", fault.detail);
        // Refused shortly before it: memory.
        store.data_mut().refusal = Some(1_000_000 - 2 * REFUSAL_FOLLOW_FUEL + 1000);
        let fault = kind(Trap::UnreachableCodeReached.into(), &store);
        assert_eq!(fault.kind, FaultKind::Memory, "{}", fault.detail);
    }

    #[test]
    fn running_out_of_fuel_in_a_host_call_says_what_the_host_work_cost() {
        let mut store = bot_store(0);
        store.data_mut().host_charge = Some(1 << 20);
        let fault = kind(from_a_call(Trap::OutOfFuel.into()), &store);
        assert_eq!(fault.kind, FaultKind::Fuel);
        assert!(
            fault
                .detail
                .starts_with("ran out of fuel; the fuel ran out in a call to the host"),
            "{}",
            fault.detail
        );
        assert!(fault.detail.contains("1048576"), "{}", fault.detail);
    }

    #[test]
    fn a_host_charge_takes_fuel_and_fails_as_out_of_fuel_when_too_little_is_left() {
        let mut store = bot_store(1000);
        pay(&mut wasmtime::AsContextMut::as_context_mut(&mut store), 400).unwrap();
        assert_eq!(store.get_fuel().unwrap(), 600);
        let error = pay(&mut wasmtime::AsContextMut::as_context_mut(&mut store), 601).unwrap_err();
        assert_eq!(error.downcast_ref::<Trap>(), Some(&Trap::OutOfFuel));
        assert_eq!(store.get_fuel().unwrap(), 0);
        assert_eq!(store.data().host_charge, Some(601));
    }

    #[test]
    fn table_grow_is_not_charged_per_element_requested() {
        let cost = budget::operator_cost();
        assert_eq!(cost.variable.table_grow_per_element, 0);
        // Bytes of bulk memory operations stay one unit each.
        assert_eq!(cost.variable.memory_fill_per_byte, 1);
        assert_eq!(cost.variable.memory_copy_per_byte, 1);
    }

    #[test]
    fn first_line_keeps_the_chain_on_one_line() {
        let error = wasmtime::Error::msg("inner").context("outer");
        assert_eq!(first_line(&error), "outer: inner");
        assert_eq!(first_line(&from_a_call(wasmtime::Error::msg(""))), "unknown error");
    }
}
