//! `arena componentize`: make a bot component from a core WebAssembly
//! module built for WASI preview 1 (C or C++ with clang and wasi-libc).
//!
//! The module must carry its world in a `component-type` custom section,
//! which the C bindings' `<world>_component_type.o` adds when linked in; its
//! WASI preview-1 imports are adapted to WASI 0.2 with wasmtime's own
//! reactor adapter. This is what `wasm-tools component new --adapt` does,
//! done by the same library (wit-component), so a C bot needs no tool
//! beyond clang and the arena.

use anyhow::{Context, bail};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `arena componentize`.
#[derive(Debug, Args)]
pub struct ComponentizeArgs {
    /// The core module (for example `core.wasm` from `clang --target=wasm32-wasi -mexec-model=reactor`).
    pub module: PathBuf,
    /// Where to write the component.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
}

/// Encode the component and write it.
pub fn run(args: ComponentizeArgs) -> anyhow::Result<()> {
    let shown = args.module.display();
    let module = std::fs::read(&args.module).with_context(|| format!("{shown}: cannot read it"))?;
    if module.len() < 8 || &module[..4] != b"\0asm" {
        bail!("{shown}: not a WebAssembly module; give the .wasm file the compiler wrote");
    }
    if module[4..8] != [1, 0, 0, 0] {
        bail!("{shown}: already a component, not a core module; pass it to the arena as it is");
    }
    let encode = || -> anyhow::Result<Vec<u8>> {
        wit_component::ComponentEncoder::default()
            .validate(true)
            .module(&module)?
            .adapter(
                "wasi_snapshot_preview1",
                wasi_preview1_component_adapter_provider::WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER,
            )?
            .encode()
    };
    let component = encode().map_err(|e| {
        let reason = e.to_string();
        let hint = if reason.contains("component-type") || reason.contains("no type information") {
            "; link the bindings' <world>_component_type.o into the module (see `arena new --lang c`)"
        } else {
            ""
        };
        anyhow::anyhow!(
            "{shown}: cannot make a component of it: {}{hint}",
            reason.lines().next().unwrap_or("")
        )
    })?;
    std::fs::write(&args.output, component).with_context(|| format!("{}: cannot write it", args.output.display()))?;
    Ok(())
}
