//! The sandbox's unit tests: faults, limits and loading, on real stores.

use crate::budget::HostWork;
use crate::compile::first_line;
use crate::fault::REFUSAL_FOLLOW_FUEL;
use crate::fault::{Fault, FaultKind, classify, host_error};
use crate::host::pay;
use crate::limiter::Limiter;
use crate::limits::Limits;
use crate::log::BotLog;
use crate::state::BotState;
use crate::wasi::VirtualClock;
use crate::{budget, wasi};
use std::time::Duration;
use wasmtime::WasmBacktrace;
use wasmtime::component::{ResourceTable, ResourceTableError};
use wasmtime::{Engine, Store, Trap};

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

/// A trap carries the bot's log and memory cap, for the caller that
/// knows the bot's language to tell it in its own words (an interpreter
/// out of memory within the cap, a Rust panic): the sandbox knows none.
#[test]
fn a_trap_carries_the_log_and_the_cap_and_no_language() {
    let mut store = bot_store(1000);
    store.data_mut().log = BotLog::new(4096);
    let lines = [
        "Traceback (most recent call last):",
        "  File \"/0/app.py\", line 10, in choose_move",
        "object type name: MemoryError",
    ];
    for line in lines {
        store.data().log.line(line);
    }
    let fault = kind(wasmtime::Error::new(Trap::UnreachableCodeReached), &store);
    assert_eq!(fault.kind, FaultKind::Trap);
    assert!(
        fault
            .detail
            .starts_with("wasm trap: wasm `unreachable` instruction executed"),
        "{}",
        fault.detail
    );
    assert_eq!(fault.log, lines);
    assert_eq!(fault.memory_cap, 1 << 20);
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
