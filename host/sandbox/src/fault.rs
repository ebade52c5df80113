//! What a failed call was, in words for people: every wasmtime error a
//! bot can cause becomes a typed [`Fault`]; the caller, who knows the
//! bot's language, may tell a trap in the bot's own words from its log.

use crate::budget::{HOST_CALL_FUEL, LOG_BYTE_FUEL};
use crate::compile::first_line;
use crate::state::BotState;
use crate::state::Stopped;
use crate::{budget, compile};
use wasmtime::component::ResourceTableError;
use wasmtime::{Store, Trap};

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
    /// For a wasm trap: the bot's log when it trapped, one entry per line,
    /// so the caller, who knows the bot's language, can find the panic or
    /// exception the trap ends (the sandbox knows no language).
    pub log: Vec<String>,
    /// The bot's memory cap, in bytes, for saying what an interpreter's
    /// out-of-memory exception means.
    pub memory_cap: u64,
}

impl Fault {
    /// A fault of `kind` with `detail`.
    pub fn new(kind: FaultKind, detail: impl Into<String>) -> Self {
        Fault {
            kind,
            detail: detail.into(),
            log: Vec::new(),
            memory_cap: 0,
        }
    }
}

/// Turn a wasmtime error into the reason the bot forfeits. `in_call`: the
/// error ended a call into the bot (not instantiation), so a value the host
/// could not read is the bot's answer.
///
/// The kind of failure decides first: running out of fuel or time, or
/// overflowing the stack, is reported as such even after a refused memory
/// growth that the bot handled. Only a failure that follows a refusal
/// directly (an allocator's abort) is reported as `memory`.
///
/// Long because the order of its checks is the priority of the reasons
/// (the machine's failure, fuel, time, stack, memory, a trap, an answer):
/// split, that order would be spread over several functions.
pub(crate) fn classify(
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
    if let Some(trap) = trap {
        let mut detail = trap.to_string();
        if let Some(place) = where_trapped(&error) {
            detail = format!("{detail} {place}");
        }
        return Fault {
            log: state.log.recent_lines(),
            memory_cap: state.limiter.cap() as u64,
            ..Fault::new(FaultKind::Trap, detail)
        };
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

/// Why the host could not read a call's result (the canonical ABI's
/// lifting failed: an enum or variant discriminant that does not exist, a
/// string that is not UTF-8, a pointer out of bounds), if that is the error.
/// A failure inside a host function carries a wasm backtrace; the answer is
/// read after the bot's code returned, so its error has none.
pub(crate) fn unreadable_answer(error: &wasmtime::Error) -> Option<String> {
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
pub(crate) fn where_trapped(error: &wasmtime::Error) -> Option<String> {
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
pub(crate) fn host_error(error: &wasmtime::Error) -> String {
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

pub(crate) const TOO_MANY_HANDLES: &str = "the bot kept too many WASI handles (streams, pollables, files) open at once \
     and the host refused another one; drop each handle when you are done with it";

/// How much fuel may pass between a refused growth and a failure for the
/// failure to count as its consequence: enough for an allocator to report
/// the failure and abort, far too little to play on.
pub(crate) const REFUSAL_FOLLOW_FUEL: u64 = 200_000;
