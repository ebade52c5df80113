//! Bots of a few lines of WebAssembly text: code no compiler emits, written
//! to find operations whose time is not their fuel (`f64.sqrt` in a loop,
//! `memory.fill` of zero bytes, a start function that never returns). Each
//! is a real component for a world of `wit/`, built with wit-component, so
//! it goes through the same loading, linking and fuel as a student's file.

use std::fmt::Write;
use wit_parser::abi::{AbiVariant, WasmType};
use wit_parser::{Function, LiftLowerAbi, ManglingAndAbi, Resolve, WasmExport, WasmExportKind, WasmImport, WorldItem};

/// Where an attack runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// In the body of one export of the world (`choose-move`).
    Export(&'static str),
    /// In `cabi_realloc`, which the host calls to pass a list into the bot.
    Realloc,
    /// In the core module's start function: during instantiation.
    Start,
}

/// A loop that never ends by itself: its body, its locals and what else
/// the module needs (a table, a passive data segment).
#[derive(Debug, Clone)]
pub struct Attack {
    /// A short name for tables and messages.
    pub name: &'static str,
    /// Where it runs.
    pub place: Place,
    /// Locals, as WAT (`(local $x f64)`).
    pub locals: &'static str,
    /// The loop's body, run again and again (WAT instructions; the stack is
    /// empty at its start and must be empty at its end).
    pub body: &'static str,
    /// Module fields besides the generated ones (WAT).
    pub fields: &'static str,
}

impl Attack {
    /// A loop in `choose-move`-like export `export`.
    pub const fn in_export(name: &'static str, export: &'static str, locals: &'static str, body: &'static str) -> Self {
        Attack {
            name,
            place: Place::Export(export),
            locals,
            body,
            fields: "",
        }
    }

    /// The same attack with module fields.
    pub const fn with_fields(mut self, fields: &'static str) -> Self {
        self.fields = fields;
        self
    }

    /// The same attack in another place.
    pub const fn at(mut self, place: Place) -> Self {
        self.place = place;
        self
    }
}

fn wat_type(t: &WasmType) -> &'static str {
    match t {
        WasmType::I32 | WasmType::Pointer | WasmType::Length => "i32",
        WasmType::I64 | WasmType::PointerOrI64 => "i64",
        WasmType::F32 => "f32",
        WasmType::F64 => "f64",
    }
}

fn zero(t: &WasmType) -> &'static str {
    match wat_type(t) {
        "i32" => "(i32.const 0)",
        "i64" => "(i64.const 0)",
        "f32" => "(f32.const 0)",
        _ => "(f64.const 0)",
    }
}

/// Bytes at the start of memory that stay zero: where an export that is
/// not attacked points its results (a zeroed record lifts as a valid value).
const ZEROED: u32 = 1024;
/// Where the bump allocator starts.
const HEAP: u32 = 4096;

fn signature(params: &[WasmType], results: &[WasmType]) -> String {
    let mut s = String::new();
    if !params.is_empty() {
        s.push_str("(param");
        for p in params {
            let _ = write!(s, " {}", wat_type(p));
        }
        s.push(')');
    }
    if !results.is_empty() {
        s.push_str(" (result");
        for r in results {
            let _ = write!(s, " {}", wat_type(r));
        }
        s.push(')');
    }
    s
}

fn looping(attack: &Attack) -> String {
    format!("(loop $again {} (br $again))", attack.body)
}

/// The component of `attack` for world `world` of package version `version`
/// (`wit/<version>/`).
pub fn component(version: &str, world: &str, attack: &Attack) -> Vec<u8> {
    let mut resolve = Resolve::default();
    let (pkg, _) = resolve
        .push_dir(crate::root().join("wit").join(version))
        .expect("the wit folder parses");
    let world_id = resolve.select_world(&[pkg], Some(world)).expect("the world exists");
    let mangling = ManglingAndAbi::Legacy(LiftLowerAbi::Sync);
    let mut wat = String::from("(module\n");
    let w = &resolve.worlds[world_id];
    for (key, item) in &w.imports {
        let WorldItem::Interface { id, .. } = item else {
            continue;
        };
        for func in resolve.interfaces[*id].functions.values() {
            let (module, name) = resolve.wasm_import_name(
                mangling,
                WasmImport::Func {
                    interface: Some(key),
                    func,
                },
            );
            let sig = resolve.wasm_signature(AbiVariant::GuestImport, func);
            let _ = writeln!(
                wat,
                "  (import \"{module}\" \"{name}\" (func ${name} {}))",
                signature(&sig.params, &sig.results)
            );
        }
    }
    let _ = writeln!(wat, "  (memory (export \"memory\") 2)");
    let _ = writeln!(wat, "  (global $heap (mut i32) (i32.const {HEAP}))");
    let exports: Vec<&Function> = w
        .exports
        .values()
        .filter_map(|item| match item {
            WorldItem::Function(f) => Some(f),
            _ => None,
        })
        .collect();
    for func in exports {
        let name = resolve.wasm_export_name(
            mangling,
            WasmExport::Func {
                interface: None,
                func,
                kind: WasmExportKind::Normal,
            },
        );
        let sig = resolve.wasm_signature(AbiVariant::GuestExport, func);
        let body = if matches!(attack.place, Place::Export(e) if e == func.name) {
            format!("{} {} unreachable", attack.locals, looping(attack))
        } else if sig.retptr {
            format!("(i32.const {ZEROED})")
        } else {
            sig.results.iter().map(zero).collect::<Vec<_>>().join(" ")
        };
        let _ = writeln!(
            wat,
            "  (func (export \"{name}\") {} {body})",
            signature(&sig.params, &sig.results)
        );
    }
    let realloc = if attack.place == Place::Realloc {
        format!("{} {} unreachable", attack.locals, looping(attack))
    } else {
        // A bump allocator: enough for the few calls these bots live through.
        "(local $at i32) \
         (local.set $at (i32.and (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1))) \
                                 (i32.sub (i32.const 0) (local.get 2)))) \
         (global.set $heap (i32.add (local.get $at) (local.get 3))) \
         (local.get $at)"
            .to_string()
    };
    let _ = writeln!(
        wat,
        "  (func (export \"cabi_realloc\") (param i32 i32 i32 i32) (result i32) {realloc})"
    );
    if attack.place == Place::Start {
        let _ = writeln!(
            wat,
            "  (func $start {} {})\n  (start $start)",
            attack.locals,
            looping(attack)
        );
    }
    let _ = writeln!(wat, "  {}\n)", attack.fields);
    let mut module = wat::parse_str(&wat).unwrap_or_else(|e| panic!("{}: {e}\n{wat}", attack.name));
    wit_component::embed_component_metadata(&mut module, &resolve, world_id, wit_component::StringEncoding::UTF8)
        .expect("component metadata");
    wit_component::ComponentEncoder::default()
        .module(&module)
        .expect("a module wit-component takes")
        .validate(true)
        .encode()
        .unwrap_or_else(|e| panic!("{}: {e:#}", attack.name))
}

/// Write the component of `attack` for En Garde (world 0.2.0) to a file in
/// `dir` and give its path.
pub fn en_garde_file(dir: &std::path::Path, attack: &Attack) -> std::path::PathBuf {
    let path = dir.join(format!("{}.wasm", attack.name));
    std::fs::write(&path, component("0.2.0", "en-garde", attack)).expect("write the bot");
    path
}

/// Loops of every class of operation a bot can run, each in `choose-move`
/// unless it says otherwise: what `benches/calibrate.rs` measures and
/// `tests/clock.rs` plays.
pub fn catalogue() -> Vec<Attack> {
    const MOVE: &str = "choose-move";
    let table = "(table $t 16 funcref) (elem (table $t) (i32.const 0) func $nothing) (func $nothing) \
                 (type $unit (func))";
    let data = "(data $d \"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\")";
    let elems = "(table $t 70000 funcref) (elem $e func $nothing $nothing $nothing $nothing $nothing $nothing $nothing $nothing) (func $nothing)";
    vec![
        Attack::in_export(
            "typical i32.add",
            MOVE,
            "(local $x i32)",
            "(local.set $x (i32.add (local.get $x) (i32.const 1)))",
        ),
        Attack::in_export(
            "i64 mul-add",
            MOVE,
            "(local $x i64)",
            "(local.set $x (i64.add (i64.mul (local.get $x) (i64.const 3)) (i64.const 1)))",
        ),
        Attack::in_export(
            "f64.sqrt",
            MOVE,
            "(local $x f64)",
            "(local.set $x (f64.sqrt (local.get $x)))",
        ),
        Attack::in_export(
            "f32.sqrt",
            MOVE,
            "(local $x f32)",
            "(local.set $x (f32.sqrt (local.get $x)))",
        ),
        Attack::in_export(
            "f64.div",
            MOVE,
            "(local $x f64)",
            "(local.set $x (f64.div (local.get $x) (f64.const 1.0000001)))",
        ),
        Attack::in_export(
            "f64.min",
            MOVE,
            "(local $x f64)",
            "(local.set $x (f64.min (local.get $x) (f64.const 3)))",
        ),
        Attack::in_export(
            "f64.nearest",
            MOVE,
            "(local $x f64)",
            "(local.set $x (f64.nearest (local.get $x)))",
        ),
        Attack::in_export(
            "i64.div_u",
            MOVE,
            "(local $x i64)",
            "(local.set $x (i64.div_u (i64.const -1) (i64.or (local.get $x) (i64.const 3))))",
        ),
        Attack::in_export(
            "i64.rem_s",
            MOVE,
            "(local $x i64)",
            "(local.set $x (i64.rem_s (i64.const -7777777777) (i64.or (local.get $x) (i64.const 3))))",
        ),
        Attack::in_export(
            "i32.div_s",
            MOVE,
            "(local $x i32)",
            "(local.set $x (i32.div_s (i32.const -7777777) (i32.or (local.get $x) (i32.const 3))))",
        ),
        Attack::in_export(
            "call_indirect",
            MOVE,
            "",
            "(call_indirect $t (type $unit) (i32.const 0))",
        )
        .with_fields(table),
        Attack::in_export(
            "br_table",
            MOVE,
            "(local $x i32)",
            "(block $a (block $b (block $c (br_table $a $b $c (i32.and (local.get $x) (i32.const 3))))) ) (local.set $x (i32.add (local.get $x) (i32.const 1)))",
        ),
        Attack::in_export(
            "i64.load + store",
            MOVE,
            "(local $x i64)",
            "(i64.store (i32.const 2048) (i64.add (i64.load (i32.const 2048)) (i64.const 1)))",
        ),
        Attack::in_export(
            "memory.fill 0 bytes",
            MOVE,
            "",
            "(memory.fill (i32.const 0) (i32.const 0) (i32.const 0))",
        ),
        Attack::in_export(
            "memory.fill 64 KiB",
            MOVE,
            "",
            "(memory.fill (i32.const 65536) (i32.const 7) (i32.const 65536))",
        ),
        Attack::in_export(
            "memory.copy 0 bytes",
            MOVE,
            "",
            "(memory.copy (i32.const 0) (i32.const 8) (i32.const 0))",
        ),
        Attack::in_export(
            "memory.copy 64 KiB",
            MOVE,
            "",
            "(memory.copy (i32.const 65536) (i32.const 0) (i32.const 65536))",
        ),
        Attack::in_export(
            "memory.init 0 bytes",
            MOVE,
            "",
            "(memory.init $d (i32.const 0) (i32.const 0) (i32.const 0))",
        )
        .with_fields(data),
        Attack::in_export(
            "memory.init 64 bytes",
            MOVE,
            "",
            "(memory.init $d (i32.const 2048) (i32.const 0) (i32.const 64))",
        )
        .with_fields(data),
        Attack::in_export("memory.grow 0", MOVE, "", "(drop (memory.grow (i32.const 0)))"),
        Attack::in_export("memory.size", MOVE, "", "(drop (memory.size))"),
        Attack::in_export(
            "table.grow 0",
            MOVE,
            "",
            "(drop (table.grow $t (ref.null func) (i32.const 0)))",
        )
        .with_fields(table),
        Attack::in_export(
            "table.fill 0",
            MOVE,
            "",
            "(table.fill $t (i32.const 0) (ref.null func) (i32.const 0))",
        )
        .with_fields(table),
        Attack::in_export(
            "table.fill 65536",
            MOVE,
            "",
            "(table.fill $t (i32.const 0) (ref.null func) (i32.const 65536))",
        )
        .with_fields(elems),
        Attack::in_export(
            "table.copy 65536",
            MOVE,
            "",
            "(table.copy $t $t (i32.const 0) (i32.const 1) (i32.const 65536))",
        )
        .with_fields(elems),
        Attack::in_export(
            "table.init 0",
            MOVE,
            "",
            "(table.init $t $e (i32.const 0) (i32.const 0) (i32.const 0))",
        )
        .with_fields(elems),
        Attack::in_export(
            "table.init 8",
            MOVE,
            "",
            "(table.init $t $e (i32.const 0) (i32.const 0) (i32.const 8))",
        )
        .with_fields(elems),
        Attack::in_export("log of 0 bytes", MOVE, "", "(call $log (i32.const 0) (i32.const 0))"),
        Attack::in_export("log of 1 byte", MOVE, "", "(call $log (i32.const 2048) (i32.const 1))"),
        Attack::in_export(
            "log of 64 KiB",
            MOVE,
            "",
            "(call $log (i32.const 65536) (i32.const 65536))",
        ),
        Attack::in_export("budget()", MOVE, "", "(call $budget (i32.const 2048))"),
        Attack::in_export("limits()", MOVE, "", "(call $limits (i32.const 2048))"),
        Attack::in_export(
            "typical, in cabi_realloc",
            MOVE,
            "(local $x i32)",
            "(local.set $x (i32.add (local.get $x) (i32.const 1)))",
        )
        .at(Place::Realloc),
        Attack::in_export(
            "typical, in a start function",
            MOVE,
            "(local $x i32)",
            "(local.set $x (i32.add (local.get $x) (i32.const 1)))",
        )
        .at(Place::Start),
        Attack::in_export(
            "f64.sqrt, in a start function",
            MOVE,
            "(local $x f64)",
            "(local.set $x (f64.sqrt (local.get $x)))",
        )
        .at(Place::Start),
    ]
}
