//! WASI with no ambient authority: what a bot built for `wasm32-wasip2`
//! may import, made deterministic and harmless.
//!
//! No preopened directories, no environment, no arguments, no sockets. The
//! clocks are virtual (they start at a fixed instant and advance by a fixed
//! step per reading, and a sleep advances them without waiting), randomness
//! comes from the game's seed, and stdout/stderr go to the bot's capped log.

use super::budget::{HostWork, RANDOM_BYTE_FUEL};
use super::log::{BotLog, LogStream};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use wasmtime::component::{Linker, Resource};
use wasmtime_wasi::p2::{DynPollable, Pollable, subscribe};
use wasmtime_wasi::{HostMonotonicClock, HostWallClock, WasiCtx, WasiCtxBuilder, WasiView};

/// 2024-01-01T00:00:00Z: the instant every bot's wall clock starts from.
const WALL_CLOCK_START: Duration = Duration::from_secs(1_704_067_200);
/// How far the virtual clocks advance at each reading: one microsecond.
const TICK_NANOS: u64 = 1_000;

/// A clock shared by the wall and monotonic views of one bot instance.
#[derive(Clone, Default)]
pub struct VirtualClock {
    nanos: Arc<AtomicU64>,
}

impl VirtualClock {
    fn read(&self) -> u64 {
        self.nanos.fetch_add(TICK_NANOS, Ordering::Relaxed)
    }
    fn advance(&self, nanos: u64) {
        self.nanos.fetch_add(nanos, Ordering::Relaxed);
    }
}

impl HostMonotonicClock for VirtualClock {
    fn resolution(&self) -> u64 {
        TICK_NANOS
    }
    fn now(&self) -> u64 {
        self.read()
    }
}

impl HostWallClock for VirtualClock {
    fn resolution(&self) -> Duration {
        Duration::from_nanos(TICK_NANOS)
    }
    fn now(&self) -> Duration {
        WALL_CLOCK_START + Duration::from_nanos(self.read())
    }
}

/// A seeded ChaCha generator in the shape WASI's random interfaces want;
/// each byte it makes is charged to the bot's [`HostWork`].
struct SeededRandom(ChaCha8Rng, HostWork);

impl rand_core_wasi::TryRng for SeededRandom {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        self.1.owe(4 * RANDOM_BYTE_FUEL);
        Ok(rand::RngCore::next_u32(&mut self.0))
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        self.1.owe(8 * RANDOM_BYTE_FUEL);
        Ok(rand::RngCore::next_u64(&mut self.0))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.1.owe((dst.len() as u64).saturating_mul(RANDOM_BYTE_FUEL));
        rand::RngCore::fill_bytes(&mut self.0, dst);
        Ok(())
    }
}

/// Build the WASI context of one bot instance: nothing granted, everything
/// seeded, and the work of writing and of making random bytes charged to `work`.
pub fn deterministic_ctx(seed: u64, clock: &VirtualClock, log: &BotLog, work: &HostWork) -> WasiCtx {
    let mut builder = WasiCtxBuilder::new();
    builder
        .stdout(LogStream::new(log.clone(), work.clone()))
        .stderr(LogStream::new(log.clone(), work.clone()))
        .wall_clock(clock.clone())
        .monotonic_clock(clock.clone())
        .secure_random(SeededRandom(ChaCha8Rng::seed_from_u64(seed), work.clone()))
        .insecure_random(SeededRandom(ChaCha8Rng::seed_from_u64(seed ^ 0x1), work.clone()))
        .insecure_random_seed(u128::from(seed) << 64 | u128::from(!seed))
        .max_random_size(1 << 20)
        .allow_tcp(false)
        .allow_udp(false)
        .allow_ip_name_lookup(false);
    builder.build()
}

/// A pollable that is ready at once: a virtual sleep.
struct Ready;

#[wasmtime_wasi::async_trait]
impl Pollable for Ready {
    async fn ready(&mut self) {}
}

/// Access to the parts of a store's state the clock overrides need.
pub trait VirtualClockView: WasiView {
    /// The instance's virtual clock.
    fn clock(&self) -> &VirtualClock;
}

/// Replace the monotonic clock's `subscribe-*` functions so that a bot that
/// sleeps advances its virtual clock instead of blocking the host thread,
/// where neither fuel nor epochs could stop it.
pub fn add_virtual_sleep<T: VirtualClockView + 'static>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let mut inst = linker.instance("wasi:clocks/monotonic-clock@0.2.12")?;
    inst.func_wrap("subscribe-duration", |mut store, (nanos,): (u64,)| {
        let state = store.data_mut();
        state.clock().advance(nanos);
        Ok((ready_pollable(state)?,))
    })?;
    inst.func_wrap("subscribe-instant", |mut store, (when,): (u64,)| {
        let state = store.data_mut();
        let now = state.clock().nanos.load(Ordering::Relaxed);
        state.clock().advance(when.saturating_sub(now));
        Ok((ready_pollable(state)?,))
    })?;
    linker.allow_shadowing(false);
    Ok(())
}

fn ready_pollable<T: WasiView>(state: &mut T) -> wasmtime::Result<Resource<DynPollable>> {
    let table = state.ctx().table;
    let ready = table.push(Ready)?;
    subscribe(table, ready)
}
