//! The state of one bot's store: its WASI context, limiter, log, clock and
//! the fuel and time bookkeeping of the call under way.

use crate::budget::HostWork;
use crate::limiter::Limiter;
use crate::limits::HostLimits;
use crate::log::BotLog;
use crate::wasi::{VirtualClock, VirtualClockView};
use std::time::{Duration, Instant};
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

/// The state of one bot's store: its WASI context, limits and log.
pub struct BotState {
    pub(crate) wasi: WasiCtx,
    pub(crate) table: ResourceTable,
    pub(crate) limiter: Limiter,
    pub(crate) log: BotLog,
    pub(crate) clock: VirtualClock,
    /// The bank as the current call started, for `budget`.
    pub(crate) bank_at_call: u64,
    /// The game's limits, for `limits`.
    pub(crate) limits: HostLimits,
    /// Fuel owed for the host's work for the bot (bytes logged, random bytes).
    pub(crate) work: HostWork,
    /// The fuel left when the host last refused to grow a memory or table
    /// in the current call, to tell a failure that follows it directly.
    pub(crate) refusal: Option<u64>,
    /// What the host call that ran out of fuel would have cost.
    pub(crate) host_charge: Option<u64>,
    /// When the current call first passed its deadline, in wall-clock time
    /// and in this thread's CPU time: the backstop counts CPU time from there.
    pub(crate) backstop_mark: Option<(Instant, Duration)>,
    /// The CPU time a call may use before the backstop stops it.
    pub(crate) cpu_limit: Duration,
    /// Why the backstop stopped the current call, if it did.
    pub(crate) stopped: Option<Stopped>,
}

/// Why the time backstop stopped a call: the CPU time it used and the
/// wall-clock time it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stopped {
    /// The bot had the CPU for the whole limit without running out of fuel.
    Cpu { cpu: Duration, wall: Duration },
    /// The machine gave the bot too little of a CPU to reach its limit.
    Starved { cpu: Duration, wall: Duration },
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
