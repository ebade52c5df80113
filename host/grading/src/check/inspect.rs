//! What a bot file says about itself, read without running it: its
//! producers sections (the toolchain that built it), the names it holds
//! and the initial size of its memories.

/// What the file says about itself: producers entries, names, initial memory.
#[derive(Debug, Default, PartialEq)]
pub struct Scan {
    /// `(field, name, version)` of every producers section, e.g. `("language", "Rust", "")`.
    pub producers: Vec<(String, String, String)>,
    /// Import and export names, module and instance names, custom section names.
    pub names: Vec<String>,
    /// Initial size of the memories the core modules define, in bytes.
    pub initial_memory: Option<u64>,
}

/// Read what a component (or core module) says about itself, in it and its
/// nested modules and components; what cannot be parsed is left out.
pub fn scan(bytes: &[u8]) -> Scan {
    use wasmparser::{ComponentName, KnownCustom, Name, Parser, Payload};
    let mut out = Scan::default();
    for payload in Parser::new(0).parse_all(bytes) {
        let Ok(payload) = payload else { break };
        match payload {
            Payload::CustomSection(c) => {
                out.names.push(c.name().to_string());
                match c.as_known() {
                    KnownCustom::Producers(r) => {
                        for field in r.into_iter().flatten() {
                            for v in field.values.into_iter().flatten() {
                                out.producers
                                    .push((field.name.to_string(), v.name.to_string(), v.version.to_string()));
                            }
                        }
                    }
                    KnownCustom::Name(r) => {
                        for n in r.into_iter().flatten() {
                            if let Name::Module { name, .. } = n {
                                out.names.push(name.to_string());
                            }
                        }
                    }
                    KnownCustom::ComponentName(r) => {
                        for n in r.into_iter().flatten() {
                            match n {
                                ComponentName::Component { name, .. } => out.names.push(name.to_string()),
                                ComponentName::CoreModules(m)
                                | ComponentName::CoreInstances(m)
                                | ComponentName::Instances(m)
                                | ComponentName::Components(m) => {
                                    out.names.extend(m.into_iter().flatten().map(|n| n.name.to_string()));
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
            }
            Payload::ImportSection(r) => {
                for i in r.into_iter().flatten() {
                    out.names.push(i.module.to_string());
                }
            }
            Payload::ComponentImportSection(r) => {
                out.names.extend(r.into_iter().flatten().map(|i| i.name.0.to_string()));
            }
            Payload::ComponentExportSection(r) => {
                out.names.extend(r.into_iter().flatten().map(|e| e.name.0.to_string()));
            }
            Payload::MemorySection(r) => {
                for m in r.into_iter().flatten() {
                    let page = 1u64 << m.page_size_log2.unwrap_or(16);
                    let add = m.initial.saturating_mul(page);
                    out.initial_memory = Some(out.initial_memory.unwrap_or(0).saturating_add(add));
                }
            }
            _ => {}
        }
    }
    out.names.sort();
    out.names.dedup();
    out
}

/// The toolchain that built a file, from what [`scan`] found.
pub fn toolchain(scan: &Scan) -> String {
    let strings = || {
        scan.producers
            .iter()
            .flat_map(|(_, n, _)| [n.as_str()])
            .chain(scan.names.iter().map(String::as_str))
    };
    let has = |needle: &str| strings().any(|s| s.contains(needle));
    let version = |name: &str| {
        scan.producers
            .iter()
            .find(|(_, n, _)| n == name)
            .map(|(_, _, v)| v.split_whitespace().next().unwrap_or("").to_string())
    };
    let with_version = |label: &str, name: &str| match version(name) {
        Some(v) if !v.is_empty() => format!("{label} {v}"),
        _ => label.to_string(),
    };
    if has("componentize_qjs_runtime.wasm") || has("componentize-qjs") {
        return with_version("componentize-qjs (JavaScript)", "componentize-qjs");
    }
    let libpython = strings().any(|s| s.contains("libpython3.") && s.contains(".so"));
    if has("component-init-transform") || libpython || has("componentize-py") {
        return with_version("componentize-py (Python)", "componentize-py");
    }
    if has("ComponentizeJS") || has("componentize-js") {
        let v = version("ComponentizeJS").or_else(|| version("componentize-js"));
        return match v {
            Some(v) if !v.is_empty() => format!("ComponentizeJS (JavaScript) {v}"),
            _ => "ComponentizeJS (JavaScript)".to_string(),
        };
    }
    if let Some(c) = c_family(scan, &version) {
        return c;
    }
    if let Some(rust) = rust(scan, &version) {
        return rust;
    }
    let languages: Vec<&str> = scan
        .producers
        .iter()
        .filter(|(f, _, _)| f == "language")
        .map(|(_, n, _)| n.as_str())
        .collect();
    if languages.is_empty() {
        "unknown (no producers section names a known toolchain)".to_string()
    } else {
        format!("unknown toolchain for {}", languages.join(", "))
    }
}

/// A C or C++ bot: its language and the compiler and bindings versions.
fn c_family(scan: &Scan, version: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    // A C bot made a component with the WASI adapter also carries the
    // adapter's Rust producers: the language the bot's code names decides.
    let c_family: Vec<&str> = scan
        .producers
        .iter()
        .filter(|(f, n, _)| f == "language" && (n.starts_with("C9") || n.starts_with("C1") || n.starts_with("C++")))
        .map(|(_, n, _)| n.as_str())
        .collect();
    let first = c_family.first()?;
    let label = if c_family.iter().any(|n| n.starts_with("C++")) {
        "C++"
    } else {
        "C"
    };
    let mut parts = vec![first.to_string()];
    if let Some(v) = version("clang").filter(|v| !v.is_empty()) {
        parts.push(format!("clang {v}"));
    }
    if let Some(v) = version("wit-bindgen-c").filter(|v| !v.is_empty()) {
        parts.push(format!("wit-bindgen-c {v}"));
    }
    Some(format!("{label} ({})", parts.join(", ")))
}

/// A Rust bot: the compiler and bindings versions.
fn rust(scan: &Scan, version: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let rust = scan
        .producers
        .iter()
        .any(|(f, n, _)| (f == "language" && n == "Rust") || n == "rustc" || n == "wit-bindgen-rust");
    if !rust {
        return None;
    }
    let mut parts = Vec::new();
    if let Some(v) = version("rustc").filter(|v| !v.is_empty()) {
        parts.push(format!("rustc {v}"));
    }
    if let Some((_, n, v)) = scan.producers.iter().find(|(_, n, _)| n == "wit-bindgen-rust") {
        parts.push(
            format!("{n} {}", v.split_whitespace().next().unwrap_or(""))
                .trim()
                .to_string(),
        );
    }
    Some(if parts.is_empty() {
        "Rust".to_string()
    } else {
        format!("Rust ({})", parts.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leb(mut n: usize, out: &mut Vec<u8>) {
        loop {
            let b = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(b);
                return;
            }
            out.push(b | 0x80);
        }
    }

    fn string(s: &str, out: &mut Vec<u8>) {
        leb(s.len(), out);
        out.extend_from_slice(s.as_bytes());
    }

    fn section(id: u8, body: &[u8], out: &mut Vec<u8>) {
        out.push(id);
        leb(body.len(), out);
        out.extend_from_slice(body);
    }

    /// A custom `producers` section with these fields and `(name, version)` values.
    fn producers(fields: &[(&str, &[(&str, &str)])]) -> Vec<u8> {
        let mut body = Vec::new();
        string("producers", &mut body);
        leb(fields.len(), &mut body);
        for (field, values) in fields {
            string(field, &mut body);
            leb(values.len(), &mut body);
            for (n, v) in *values {
                string(n, &mut body);
                string(v, &mut body);
            }
        }
        let mut out = Vec::new();
        section(0, &body, &mut out);
        out
    }

    /// A core module named `name`, with one memory of `pages` pages.
    fn module(name: &str, pages: u8) -> Vec<u8> {
        let mut m = b"\0asm\x01\0\0\0".to_vec();
        section(5, &[1, 0, pages], &mut m);
        let mut names = Vec::new();
        string("name", &mut names);
        let mut sub = Vec::new();
        string(name, &mut sub);
        names.push(0);
        leb(sub.len(), &mut names);
        names.extend(sub);
        section(0, &names, &mut m);
        m
    }

    /// A component holding these sections (custom sections or nested modules).
    fn component(parts: &[Vec<u8>]) -> Vec<u8> {
        let mut c = b"\0asm\x0d\0\x01\0".to_vec();
        for p in parts {
            c.extend_from_slice(p);
        }
        c
    }

    fn nested(module: Vec<u8>) -> Vec<u8> {
        let mut out = Vec::new();
        section(1, &module, &mut out);
        out
    }

    #[test]
    fn rust_with_versions() {
        let bytes = component(&[
            producers(&[("processed-by", &[("wit-component", "0.239.0")])]),
            nested(
                [
                    module("my_bot.wasm", 17),
                    producers(&[
                        ("language", &[("Rust", "")]),
                        (
                            "processed-by",
                            &[
                                ("rustc", "1.90.0 (1159e78c4 2025-09-14)"),
                                ("wit-bindgen-rust", "0.46.0"),
                            ],
                        ),
                    ]),
                ]
                .concat(),
            ),
        ]);
        let s = scan(&bytes);
        assert_eq!(s.initial_memory, Some(17 * 65536));
        assert!(s.names.contains(&"my_bot.wasm".to_string()), "{s:?}");
        assert_eq!(toolchain(&s), "Rust (rustc 1.90.0, wit-bindgen-rust 0.46.0)");
    }

    #[test]
    fn rust_stripped_of_its_language() {
        let bytes = component(&[producers(&[(
            "processed-by",
            &[
                ("wit-component", "0.244.0"),
                ("wit-bindgen-rust", "0.45.0"),
                ("wit-bindgen-c", "0.51.0"),
            ],
        )])]);
        assert_eq!(toolchain(&scan(&bytes)), "Rust (wit-bindgen-rust 0.45.0)");
    }

    #[test]
    fn componentize_py_by_module_name() {
        let bytes = component(&[nested(module("libpython3.12.so", 2)), nested(module("main", 1))]);
        let s = scan(&bytes);
        assert_eq!(s.initial_memory, Some(3 * 65536));
        assert_eq!(toolchain(&s), "componentize-py (Python)");
        let bytes = component(&[producers(&[("processed-by", &[("component-init-transform", "0.1")])])]);
        assert_eq!(toolchain(&scan(&bytes)), "componentize-py (Python)");
    }

    #[test]
    fn javascript_toolchains() {
        let bytes = component(&[producers(&[("processed-by", &[("ComponentizeJS", "0.18.1")])])]);
        assert_eq!(toolchain(&scan(&bytes)), "ComponentizeJS (JavaScript) 0.18.1");
        let bytes = component(&[nested(module("componentize_qjs_runtime.wasm", 1))]);
        assert_eq!(toolchain(&scan(&bytes)), "componentize-qjs (JavaScript)");
    }

    #[test]
    fn c_even_with_the_rust_adapter_inside() {
        let bytes = component(&[
            producers(&[("language", &[("C99", "")]), ("processed-by", &[("clang", "14.0.6")])]),
            producers(&[("language", &[("Rust", "")]), ("processed-by", &[("rustc", "1.90.0")])]),
        ]);
        assert_eq!(toolchain(&scan(&bytes)), "C (C99, clang 14.0.6)");
    }

    #[test]
    fn unknown_and_garbage() {
        let bytes = component(&[producers(&[("language", &[("Zig", "")])])]);
        assert_eq!(toolchain(&scan(&bytes)), "unknown toolchain for Zig");
        let s = scan(b"hello, world");
        assert_eq!(s, Scan::default());
        assert!(toolchain(&s).starts_with("unknown"));
    }
}
