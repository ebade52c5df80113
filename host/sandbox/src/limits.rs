//! The limits every bot runs under: fuel, bank, memory, time backstop, log
//! and file size, with their bounds and the record bots can read.

use std::time::Duration;

/// The limits every bot runs under, per bot and per game. Fuel (about one
/// unit per wasm instruction) decides; the wall clock is only a backstop.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
    /// [`STARVED_FACTOR`](crate::STARVED_FACTOR) times as long without (the machine's failure).
    #[serde(serialize_with = "secs", deserialize_with = "from_secs")]
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

pub(crate) fn secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

fn from_secs<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let s = <f64 as serde::Deserialize>::deserialize(d)?;
    Duration::try_from_secs_f64(s).map_err(serde::de::Error::custom)
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

/// The most time one unit of fuel took in any loop of the calibration
/// benchmark under these prices, on the reference machine (2 cores of an
/// AMD EPYC, docs/performance.md "Fuel and time"), in nanoseconds, rounded
/// up: a `memory.fill` of zero bytes (0.59-0.63 in three runs), priced at
/// the most wasmtime allows. Time limits are derived from it ([`backstop_for`]).
pub const WORST_NS_PER_FUEL: f64 = 0.65;

/// How many times what a call's fuel takes at [`WORST_NS_PER_FUEL`] its
/// time limit must be at least, so that fuel decides first on a machine at
/// least a quarter as fast as the reference.
pub const BACKSTOP_MARGIN: f64 = 4.0;

/// The smallest time limit per call that lets fuel decide first for a call
/// that may use `fuel`: [`BACKSTOP_MARGIN`] times its time at the worst
/// measured rate, rounded up to whole seconds.
pub fn backstop_for(fuel: u64) -> std::time::Duration {
    let secs = fuel as f64 * WORST_NS_PER_FUEL * BACKSTOP_MARGIN / 1e9;
    std::time::Duration::from_secs(secs.ceil().max(1.0) as u64)
}

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
    pub(crate) fn record(&self) -> HostLimits {
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
pub(crate) struct HostLimits {
    #[component(name = "move-fuel")]
    pub(crate) move_fuel: u64,
    #[component(name = "bank-fuel")]
    pub(crate) bank_fuel: u64,
    #[component(name = "start-fuel")]
    pub(crate) start_fuel: u64,
    #[component(name = "memory-bytes")]
    pub(crate) memory_bytes: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backstops_cover_four_times_the_worst_rate() {
        assert_eq!(backstop_for(700_000_000), std::time::Duration::from_secs(2));
        assert!(backstop_for(88_000_000_000).as_secs_f64() >= 88e9 * WORST_NS_PER_FUEL * 4.0 / 1e9);
        assert_eq!(backstop_for(1), std::time::Duration::from_secs(1));
    }
}
