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
    pub name: String,
    /// Where it runs.
    pub place: Place,
    /// Locals, as WAT (`(local $x f64)`).
    pub locals: String,
    /// Instructions run once before the loop (setting locals up).
    pub prelude: String,
    /// The loop's body, run again and again (WAT instructions; the stack is
    /// empty at its start and must be empty at its end).
    pub body: String,
    /// Module fields besides the generated ones (WAT).
    pub fields: String,
}

impl Attack {
    /// A loop in `choose-move`-like export `export`.
    pub fn in_export(
        name: impl Into<String>,
        export: &'static str,
        locals: impl Into<String>,
        body: impl Into<String>,
    ) -> Self {
        Attack {
            name: name.into(),
            place: Place::Export(export),
            locals: locals.into(),
            prelude: String::new(),
            body: body.into(),
            fields: String::new(),
        }
    }

    /// The same attack with module fields.
    pub fn with_fields(mut self, fields: impl Into<String>) -> Self {
        self.fields = fields.into();
        self
    }

    /// The same attack with instructions run once before its loop.
    pub fn with_prelude(mut self, prelude: impl Into<String>) -> Self {
        self.prelude = prelude.into();
        self
    }

    /// The same attack in another place.
    pub fn at(mut self, place: Place) -> Self {
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
    format!("{} (loop $again {} (br $again))", attack.prelude, attack.body)
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
    let file: String = attack
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let path = dir.join(format!("{file}.wasm"));
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
    let mut all = vec![
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
    ];
    // One float operation per pass: the value crosses the loop's fuel and
    // epoch checks, which may spill it, so a pass can take longer than the
    // same operation in a chain.
    for (name, ty, op) in [
        ("f64.neg", "f64", "(f64.neg (local.get $x))"),
        ("f64.add", "f64", "(f64.add (local.get $x) (local.get $y))"),
        ("f32.mul", "f32", "(f32.mul (local.get $x) (local.get $y))"),
        ("f64.ceil", "f64", "(f64.ceil (local.get $x))"),
        (
            "f64.convert_i64_s",
            "f64",
            "(f64.convert_i64_s (i64.trunc_sat_f64_s (local.get $x)))",
        ),
        ("f64x2.add", "v128", "(f64x2.add (local.get $x) (local.get $y))"),
        ("f32x4.min", "v128", "(f32x4.min (local.get $x) (local.get $y))"),
    ] {
        all.push(Attack::in_export(
            format!("{name}, one per pass"),
            MOVE,
            format!("(local $x {ty}) (local $y {ty})"),
            format!("(local.set $x {op})"),
        ));
    }
    // The same, with the value on the stack as the loop's parameter: the
    // fewest operations a pass can have.
    for (name, ty, op) in [
        ("f64.neg", "f64", "(f64.neg)"),
        ("f64.add", "f64", "(local.get $y) (f64.add)"),
        ("select of f64", "f64", "(local.get $y) (local.get $c) (select)"),
        ("v128.not", "v128", "(v128.not)"),
        ("i32x4.add", "v128", "(local.get $y) (i32x4.add)"),
        (
            "f32x4.relaxed_madd",
            "v128",
            "(local.get $y) (local.get $y) (f32x4.relaxed_madd)",
        ),
        ("f64.copysign", "f64", "(local.get $y) (f64.copysign)"),
        ("f64.div", "f64", "(local.get $y) (f64.div)"),
    ] {
        all.push(
            Attack::in_export(
                format!("{name}, carried as the loop's parameter"),
                MOVE,
                format!("(local $x {ty}) (local $y {ty}) (local $c i32)"),
                format!("(local.get $x) (loop $pass (param {ty}) {op} (br $pass))"),
            )
            .with_prelude("(local.set $c (global.get $gc))")
            .with_fields("(global $gc (mut i32) (i32.const 1))"),
        );
    }
    all.push(Attack::in_export("call", MOVE, "", "(call $nothing)").with_fields("(func $nothing)"));
    all.push(
        Attack::in_export("return_call (endless tail calls)", MOVE, "", "(call $spin)")
            .with_fields("(func $spin (return_call $spin))"),
    );
    all.extend(bulk_with_opaque_lengths());
    all.extend(chains());
    all.push(pointer_chase());
    all
}

/// Operations in each pass of a chain's loop: enough that the loop's own
/// fuel (a `local.get`, a `local.set` and a `br`) is a small share.
const CHAIN: usize = 16;

/// A dependent chain of `CHAIN` operations of value type `ty`: each takes
/// the previous result as its first operand, so they run one after the
/// other, as slowly as the operation's latency allows (the worst case for
/// its price; independent operations overlap). `op` wraps an expression in
/// one operation; `$y` (of type `ty`) and `$n` (an `i32`) are set once
/// from mutable globals, so the compiler cannot fold them.
fn chain(name: String, ty: &str, x: &str, y: &str, op: impl Fn(&str) -> String) -> Attack {
    let mut e = "(local.get $x)".to_string();
    for _ in 0..CHAIN {
        e = op(&e);
    }
    Attack::in_export(
        name,
        "choose-move",
        format!("(local $x {ty}) (local $y {ty}) (local $n i32)"),
        format!("(local.set $x {e})"),
    )
    .with_prelude("(local.set $x (global.get $gx)) (local.set $y (global.get $gy)) (local.set $n (global.get $gn))")
    .with_fields(format!(
        "(global $gx (mut {ty}) ({ty}.const {x})) (global $gy (mut {ty}) ({ty}.const {y})) (global $gn (mut i32) (i32.const 3))"
    ))
}

fn v128(x: &str) -> String {
    format!("i64x2 {x} {x}")
}

/// A chain of every numeric operation whose result can feed its own first
/// operand, in plain and vector (SIMD) form, conversions as round trips.
pub fn chains() -> Vec<Attack> {
    let mut out = Vec::new();
    for ty in ["f64", "f32"] {
        for op in ["abs", "neg", "ceil", "floor", "trunc", "nearest", "sqrt"] {
            out.push(chain(format!("{ty}.{op} chain"), ty, "2", "1", |e| {
                format!("({ty}.{op} {e})")
            }));
        }
        for op in ["add", "sub", "mul", "div", "min", "max", "copysign"] {
            out.push(chain(format!("{ty}.{op} chain"), ty, "2", "1.0000001", |e| {
                format!("({ty}.{op} {e} (local.get $y))")
            }));
        }
    }
    // Subnormal operands stay subnormal: x * 1, x / 1, x + -0.
    for (op, y) in [("mul", "1"), ("div", "1"), ("add", "-0")] {
        out.push(chain(format!("f64.{op} subnormal chain"), "f64", "1e-310", y, |e| {
            format!("(f64.{op} {e} (local.get $y))")
        }));
    }
    out.push(chain(
        "f64.sqrt subnormal chain".into(),
        "f64",
        "1e-310",
        "1e-155",
        |e| format!("(f64.mul (f64.sqrt {e}) (local.get $y))"),
    ));
    let round_trips = [
        (
            "i64.trunc_f64_s + f64.convert_i64_s",
            "(f64.convert_i64_s (i64.trunc_f64_s {e}))",
        ),
        (
            "i64.trunc_sat_f64_u + f64.convert_i64_u",
            "(f64.convert_i64_u (i64.trunc_sat_f64_u {e}))",
        ),
        (
            "i32.trunc_f64_u + f64.convert_i32_u",
            "(f64.convert_i32_u (i32.trunc_f64_u {e}))",
        ),
        (
            "f32.demote_f64 + f64.promote_f32",
            "(f64.promote_f32 (f32.demote_f64 {e}))",
        ),
        (
            "i64.reinterpret_f64 + f64.reinterpret_i64",
            "(f64.reinterpret_i64 (i64.reinterpret_f64 {e}))",
        ),
    ];
    for (name, form) in round_trips {
        out.push(chain(format!("{name} chain"), "f64", "2", "1", |e| {
            form.replace("{e}", e)
        }));
    }
    for ty in ["i32", "i64"] {
        let mut unary = vec!["clz", "ctz", "popcnt", "extend8_s", "extend16_s"];
        if ty == "i64" {
            unary.push("extend32_s");
        } else {
            unary.push("eqz");
        }
        for op in unary {
            out.push(chain(format!("{ty}.{op} chain"), ty, "12345", "1", |e| {
                format!("({ty}.{op} {e})")
            }));
        }
        let binary = [
            ("add", "1"),
            ("sub", "1"),
            ("mul", "3"),
            ("div_s", "1"),
            ("div_u", "1"),
            ("rem_s", "1000000007"),
            ("rem_u", "1000000007"),
            ("and", "-1"),
            ("or", "1"),
            ("xor", "1"),
            ("shl", "1"),
            ("shr_s", "1"),
            ("shr_u", "1"),
            ("rotl", "1"),
            ("rotr", "1"),
        ];
        for (op, y) in binary {
            out.push(chain(format!("{ty}.{op} chain"), ty, "-7777777", y, |e| {
                format!("({ty}.{op} {e} (local.get $y))")
            }));
        }
        let wrap = if ty == "i64" {
            "(i64.extend_i32_u (i32.wrap_i64 {e}))"
        } else {
            "(i32.wrap_i64 (i64.extend_i32_s {e}))"
        };
        out.push(chain(format!("{ty} wrap/extend chain"), ty, "5", "1", |e| {
            wrap.replace("{e}", e)
        }));
        out.push(chain(format!("{ty} select chain"), ty, "5", "1", |e| {
            format!("(select {e} (local.get $y) (local.get $n))")
        }));
    }
    for op in ["lt_u", "ge_s", "eq"] {
        out.push(chain(format!("i32.{op} chain"), "i32", "5", "1", |e| {
            format!("(i32.{op} {e} (local.get $y))")
        }));
    }
    out.push(chain("i32.load chain (one address)".into(), "i32", "0", "0", |e| {
        format!("(i32.load {e})")
    }));
    out.push(chain("f64.load chain (one address)".into(), "i32", "0", "0", |e| {
        format!("(i32.trunc_f64_u (f64.load {e}))")
    }));
    out.push(chain("i32.store + load chain".into(), "i32", "0", "0", |e| {
        format!("(i32.store (i32.const 64) {e}) (i32.load (i32.const 64))")
    }));
    let vector_unary = [
        "f64x2.sqrt",
        "f32x4.sqrt",
        "f64x2.nearest",
        "f32x4.ceil",
        "f64x2.floor",
        "f32x4.abs",
        "i8x16.popcnt",
        "i8x16.abs",
        "i64x2.abs",
        "i64x2.neg",
        "v128.not",
        "f32x4.convert_i32x4_u",
        "f32x4.convert_i32x4_s",
        "i32x4.trunc_sat_f32x4_u",
        "i32x4.trunc_sat_f32x4_s",
        "f64x2.convert_low_i32x4_u",
        "i32x4.trunc_sat_f64x2_u_zero",
        "i32x4.trunc_sat_f64x2_s_zero",
        "f32x4.demote_f64x2_zero",
        "f64x2.promote_low_f32x4",
        "i16x8.extend_high_i8x16_u",
        "i64x2.extend_low_i32x4_s",
        "i32x4.extadd_pairwise_i16x8_s",
        "i16x8.extadd_pairwise_i8x16_u",
        "i32x4.relaxed_trunc_f32x4_u",
        "i32x4.relaxed_trunc_f64x2_u_zero",
    ];
    for op in vector_unary {
        out.push(chain(
            format!("{op} chain"),
            "v128",
            &v128("0x4000000000000000"),
            &v128("1"),
            |e| format!("({op} {e})"),
        ));
    }
    let vector_binary = [
        "f64x2.div",
        "f32x4.div",
        "f64x2.mul",
        "f32x4.add",
        "f64x2.min",
        "f32x4.max",
        "f32x4.pmin",
        "f64x2.lt",
        "i64x2.mul",
        "i32x4.mul",
        "i16x8.mul",
        "i8x16.swizzle",
        "i8x16.narrow_i16x8_s",
        "i16x8.narrow_i32x4_u",
        "i16x8.q15mulr_sat_s",
        "i32x4.dot_i16x8_s",
        "i64x2.extmul_low_i32x4_u",
        "i16x8.extmul_high_i8x16_s",
        "i8x16.avgr_u",
        "i8x16.add_sat_s",
        "i8x16.min_u",
        "i64x2.gt_s",
        "i64x2.eq",
        "i8x16.gt_u",
        "v128.andnot",
        "f32x4.relaxed_min",
        "f64x2.relaxed_max",
        "i8x16.relaxed_swizzle",
        "i16x8.relaxed_q15mulr_s",
        "i16x8.relaxed_dot_i8x16_i7x16_s",
    ];
    for op in vector_binary {
        out.push(chain(
            format!("{op} chain"),
            "v128",
            &v128("0x3ff0000000000001"),
            &v128("0x3ff0000000000001"),
            |e| format!("({op} {e} (local.get $y))"),
        ));
    }
    for op in ["i8x16.shl", "i8x16.shr_s", "i64x2.shr_s", "i16x8.shr_u", "i32x4.shl"] {
        out.push(chain(
            format!("{op} chain"),
            "v128",
            &v128("0x1234567"),
            &v128("1"),
            |e| format!("({op} {e} (local.get $n))"),
        ));
    }
    for op in [
        "f32x4.relaxed_madd",
        "f64x2.relaxed_nmadd",
        "v128.bitselect",
        "i8x16.relaxed_laneselect",
        "i32x4.relaxed_dot_i8x16_i7x16_add_s",
    ] {
        out.push(chain(
            format!("{op} chain"),
            "v128",
            &v128("0x3ff0000000000001"),
            &v128("0x3ff0000000000001"),
            |e| format!("({op} {e} (local.get $y) (local.get $y))"),
        ));
    }
    let vector_other = [
        (
            "i8x16.shuffle",
            "(i8x16.shuffle 15 3 9 0 1 2 4 31 16 17 5 6 7 8 10 11 {e} (local.get $y))",
        ),
        ("f64x2.extract_lane + splat", "(f64x2.splat (f64x2.extract_lane 1 {e}))"),
        ("i8x16.replace_lane", "(i8x16.replace_lane 7 {e} (local.get $n))"),
        ("i8x16.bitmask + splat", "(i8x16.splat (i8x16.bitmask {e}))"),
        ("i64x2.all_true + splat", "(i32x4.splat (i64x2.all_true {e}))"),
        (
            "v128.load64_splat chain",
            "(v128.load64_splat (i32.wrap_i64 (i64x2.extract_lane 0 {e})))",
        ),
    ];
    for (name, form) in vector_other {
        out.push(chain(format!("{name} chain"), "v128", &v128("0"), &v128("0"), |e| {
            form.replace("{e}", e)
        }));
    }
    out
}

/// Bulk memory and table operations whose length the compiler cannot see
/// (a local set from a global): constant lengths of 0 are folded away.
pub fn bulk_with_opaque_lengths() -> Vec<Attack> {
    let table = "(table $t 16 funcref) (elem $e func $nothing $nothing) (func $nothing)";
    let data = "(data $d \"0123456789abcdef\")";
    let forms = [
        (
            "memory.fill",
            "(memory.fill (i32.const 64) (i32.const 0) (local.get $n))",
            "",
        ),
        (
            "memory.copy",
            "(memory.copy (i32.const 64) (i32.const 128) (local.get $n))",
            "",
        ),
        (
            "memory.init",
            "(memory.init $d (i32.const 64) (i32.const 0) (local.get $n))",
            data,
        ),
        (
            "table.fill",
            "(table.fill $t (i32.const 0) (ref.null func) (local.get $n))",
            table,
        ),
        (
            "table.copy",
            "(table.copy $t $t (i32.const 0) (i32.const 4) (local.get $n))",
            table,
        ),
        (
            "table.init",
            "(table.init $t $e (i32.const 0) (i32.const 0) (local.get $n))",
            table,
        ),
        ("memory.grow", "(drop (memory.grow (local.get $n)))", ""),
        (
            "table.grow",
            "(drop (table.grow $t (ref.null func) (local.get $n)))",
            table,
        ),
    ];
    let mut out = Vec::new();
    for n in [0, 1] {
        for (op, body, fields) in forms {
            let unit = if op.starts_with("table") { "element" } else { "byte" };
            let unit = if op.ends_with("grow") { "page or element" } else { unit };
            out.push(
                Attack::in_export(
                    format!("{op} of {n} {unit}, opaque length"),
                    "choose-move",
                    "(local $n i32)",
                    body,
                )
                .with_prelude("(local.set $n (global.get $gn))")
                .with_fields(format!("{fields} (global $gn (mut i32) (i32.const {n}))")),
            );
        }
    }
    out
}

/// A pointer chase through 32 MiB: every load's address is the previous
/// load's value, in an order no prefetcher follows (a full-period linear
/// congruential walk over 8M words), so nearly every load waits for main
/// memory. No price of a load can cover this without making every honest
/// load dear: it is what the time backstop is for.
pub fn pointer_chase() -> Attack {
    let base = 131_072;
    let words = 8 << 20;
    let prelude = format!(
        "(drop (memory.grow (i32.const 512))) \
         (loop $fill \
           (i32.store (i32.add (i32.const {base}) (i32.shl (local.get $i) (i32.const 2))) \
             (i32.add (i32.const {base}) (i32.shl (i32.and (i32.add (i32.mul (local.get $i) (i32.const 1664525)) \
               (i32.const 1013904223)) (i32.const {mask})) (i32.const 2)))) \
           (local.set $i (i32.add (local.get $i) (i32.const 1))) \
           (br_if $fill (i32.lt_u (local.get $i) (i32.const {words})))) \
         (local.set $x (i32.const {base}))",
        mask = words - 1
    );
    let mut e = "(local.get $x)".to_string();
    for _ in 0..CHAIN {
        e = format!("(i32.load {e})");
    }
    Attack::in_export(
        "i32.load chain through 32 MiB (cache misses)",
        "choose-move",
        "(local $x i32) (local $i i32)",
        format!("(local.set $x {e})"),
    )
    .with_prelude(prelude)
}

#[cfg(test)]
mod tests {
    /// Every attack is valid WebAssembly and a component of its world, so
    /// the benchmark and the clock tests measure what they name.
    #[test]
    fn every_attack_is_a_valid_component() {
        for attack in super::catalogue() {
            let bytes = super::component("0.2.0", "en-garde", &attack);
            assert!(bytes.len() > 100, "{}", attack.name);
        }
    }
}
