//! The host functions every bot may import (`log`, and `budget` and
//! `limits` for banked worlds), charged in fuel per call and per byte; and
//! the interfaces toolchains import by default that no bot may use.
//! The interface names come from the caller ([`HostApi`]): no WIT package here.

use crate::budget::{HOST_CALL_FUEL, LOG_BYTE_FUEL};
use crate::state::BotState;
use wasmtime::component::__internal::{CanonicalAbiInfo, InstanceType, InterfaceType, LiftContext};
use wasmtime::component::types::ComponentItem;
use wasmtime::component::{Component, Linker, WasmStr};
use wasmtime::component::{ComponentType, Lift};
use wasmtime::{AsContext, Engine, Trap};
use wasmtime::{CallHook, StoreContextMut};

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

/// `budget` of the host interface: what is left now, in this call and in the bank.
#[derive(Debug, Clone, Copy, wasmtime::component::ComponentType, wasmtime::component::Lower)]
#[component(record)]
pub(crate) struct HostBudget {
    #[component(name = "call-fuel")]
    pub(crate) call_fuel: u64,
    #[component(name = "bank-fuel")]
    pub(crate) bank_fuel: u64,
}

/// A `string` argument left in the bot's memory, with its length in code
/// units (bytes, for the UTF-8 every Rust bot uses), known without reading it.
pub(crate) struct LoggedStr {
    pub(crate) text: WasmStr,
    pub(crate) len: usize,
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
/// implementations noted per byte in [`HostWork`](crate::budget::HostWork).
pub(crate) fn host_call_hook(mut store: StoreContextMut<'_, BotState>, hook: CallHook) -> wasmtime::Result<()> {
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
pub(crate) fn pay(store: &mut StoreContextMut<'_, BotState>, fuel: u64) -> wasmtime::Result<()> {
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

/// Interfaces a toolchain imports by default that no bot may use: they
/// link, so the bot loads, and every call fails inside the bot
/// (componentize-js imports `wasi:http` unless told `-d http`).
pub(crate) const DENIED_AT_CALL: &[&str] = &["wasi:http/"];

/// Link each function of a [`DENIED_AT_CALL`] interface that `component`
/// imports as one that fails when called, and each resource as an opaque
/// host type; an interface already linked (by an earlier bot) is left as is.
pub(crate) fn stub_denied_imports(
    linker: &mut Linker<BotState>,
    engine: &Engine,
    component: &Component,
) -> wasmtime::Result<()> {
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

/// Link the host interface's functions under every name `host` gives.
pub(crate) fn link_host_functions(linker: &mut Linker<BotState>, host: &HostApi) -> wasmtime::Result<()> {
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
    Ok(())
}
