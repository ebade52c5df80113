//! One store per bot per game: its WASI context, memory limiter and log;
//! fuel and the time backstop armed for every call; the call itself.

use crate::budget::{Call, Grant, HostWork, Meter, Usage};
use crate::engine::{EPOCH_TICK, Sandbox};
use crate::fault::{Fault, classify};
use crate::host::host_call_hook;
use crate::limiter::Limiter;
use crate::load::BotProgram;
use crate::log::{BotLog, LogContents};
use crate::state::{BotState, Stopped};
use crate::wasi;
use crate::wasi::VirtualClock;
use std::time::{Duration, Instant};
use wasmtime::component::ResourceTable;
use wasmtime::{Store, Trap};
use wasmtime::{StoreContextMut, UpdateDeadline};

/// How many times its CPU-time limit a call may last on the wall clock
/// before the machine, not the bot, is said to have failed it: the bot's
/// thread then had less than a tenth of a core.
pub const STARVED_FACTOR: u32 = 10;

/// The CPU time this thread has used. Other programs and other threads do
/// not add to it, so a loaded machine does not stop a bot sooner.
pub(crate) fn thread_cpu() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec for clock_gettime to write.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
        // Never on Linux; the wall-clock limit still ends the call.
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec.max(0) as u64, ts.tv_nsec.clamp(0, 999_999_999) as u32)
}

/// Epoch ticks in `d`, at least one.
pub(crate) fn ticks_in(d: Duration) -> u64 {
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
pub(crate) fn backstop(mut store: StoreContextMut<'_, BotState>) -> wasmtime::Result<UpdateDeadline> {
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

impl Sandbox {
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

pub(crate) fn arm(store: &mut Store<BotState>, grant: Grant, ticks: u64) -> wasmtime::Result<()> {
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
    pub(crate) store: Store<BotState>,
    pub(crate) bindings: B,
    pub(crate) meter: Meter,
    pub(crate) ticks: u64,
    pub(crate) failed: Option<Fault>,
    pub(crate) mark: u64,
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
