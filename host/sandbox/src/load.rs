//! Loading a bot file: read within the size limit, tell a file that is no
//! component in a student's words, compile once (in a child process and
//! through the caches), and check its world, imports and exports.

use crate::budget::Budget;
use crate::compile::Compiler;
use crate::compile::first_line;
use crate::engine::Sandbox;
use crate::host::stub_denied_imports;
use crate::load_error::LoadError;
use crate::state::BotState;
use crate::{compile, shape};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use wasmtime::component::types::ComponentItem;
use wasmtime::component::{Component, InstancePre};

/// The world a bot must target: the part of a game's WIT world the sandbox checks.
pub struct WorldSpec {
    /// Full name, for messages: `arena:bots/en-garde@0.1.0`.
    pub name: &'static str,
    /// The package version, e.g. `0.1.0`: a bot importing the package's
    /// interfaces at this version targets this world.
    pub version: &'static str,
    /// How its bots' calls are budgeted.
    pub budget: Budget,
    /// Functions the component must export.
    pub exports: &'static [&'static str],
    /// Type-check the exports against the world's bindings.
    pub typecheck: fn(&InstancePre<BotState>) -> wasmtime::Result<()>,
}

/// Read at most `limit + 1` bytes of a file: enough to tell it is over the
/// limit without holding more than that in memory.
pub fn read_at_most(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// What a path that is not a regular file is, in a student's words.
pub fn not_a_file(meta: &std::fs::Metadata) -> String {
    let t = meta.file_type();
    let what = if t.is_dir() { "a folder" } else { special_file(&t) };
    format!("it is {what}, not a file: a bot is a .wasm file")
}

#[cfg(unix)]
pub(crate) fn special_file(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        "a named pipe"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
pub(crate) fn special_file(_: &std::fs::FileType) -> &'static str {
    "not a regular file"
}

/// A bot file, checked and compiled, ready to instantiate once per game.
pub struct BotProgram {
    /// The file it came from.
    pub path: PathBuf,
    /// SHA-256 of the file, hex.
    pub sha256: String,
    /// The world (and so the version) the file targets.
    pub world: &'static WorldSpec,
    /// Whether loading compiled it (`false`: a compile cache had it).
    pub compiled: bool,
    pub(crate) pre: InstancePre<BotState>,
}

impl BotProgram {
    /// The compiled component, for benchmarks that call it with wasmtime alone.
    pub fn component(&self) -> &wasmtime::component::Component {
        self.pre.component()
    }
}

impl std::fmt::Debug for BotProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BotProgram")
            .field("path", &self.path)
            .field("sha256", &self.sha256)
            .field("world", &self.world.name)
            .finish()
    }
}

impl Sandbox {
    /// Read, check and compile a bot file for one of `worlds` (the versions
    /// of one game's world, oldest first): the version of the package the
    /// file imports picks the world.
    pub fn load(&self, path: &Path, worlds: &[&'static WorldSpec]) -> Result<BotProgram, LoadError> {
        self.load_with_bytes(path, worlds).map(|(program, _)| program)
    }

    /// [`Sandbox::load`], and the file's bytes as it read them, for a
    /// caller that reads more from the file (`arena check` its producers)
    /// without reading it a second time.
    pub fn load_with_bytes(
        &self,
        path: &Path,
        worlds: &[&'static WorldSpec],
    ) -> Result<(BotProgram, Vec<u8>), LoadError> {
        self.load_checked(path, worlds).map_err(|e| match e {
            // wasmtime says this in its own words; say it in the student's.
            LoadError::Invalid { path, reason } => match initial_memory_over_cap(&reason) {
                Some(needs) => LoadError::MemoryTooLarge {
                    path,
                    needs,
                    cap: self.limits.memory_bytes,
                },
                None if reason.contains("requires the component model async feature") => LoadError::NeedsAsync { path },
                None => LoadError::Invalid { path, reason },
            },
            other => other,
        })
    }

    fn load_checked(&self, path: &Path, worlds: &[&'static WorldSpec]) -> Result<(BotProgram, Vec<u8>), LoadError> {
        let Some(&newest) = worlds.last() else {
            return Err(LoadError::Invalid {
                path: path.display().to_string(),
                reason: "the game names no world to check the bot against".into(),
            });
        };
        let shown = path.display().to_string();
        let bytes = self.read_component(path, &shown, newest)?;
        let hash: [u8; 32] = Sha256::digest(&bytes).into();
        let (component, compiled) = self.compile(&shown, &hash, &bytes)?;
        let world = self.pick_world(&shown, &component, worlds)?;
        self.check_world(&shown, &component, world)?;
        let mut linker = self.linker.lock().unwrap_or_else(|e| e.into_inner());
        stub_denied_imports(&mut linker, &self.engine, &component).map_err(|e| self.link_error(&shown, &e))?;
        let pre = linker
            .instantiate_pre(&component)
            .map_err(|e| self.link_error(&shown, &e))?;
        (world.typecheck)(&pre).map_err(|e| LoadError::WrongWorld {
            path: shown.clone(),
            world: world.name,
            expected: world.exports.join(", "),
            found: format!("exports of other types ({})", first_line(&e)),
        })?;
        let sha256 = hash.iter().map(|b| format!("{b:02x}")).collect();
        let program = BotProgram {
            path: path.to_path_buf(),
            sha256,
            world,
            compiled,
            pre,
        };
        Ok((program, bytes))
    }

    /// Read the file at `path` (`shown` in messages) within the size limit,
    /// and refuse what is no component: another kind of file (said against
    /// the game's newest world, `world`) or a core module.
    fn read_component(&self, path: &Path, shown: &str, world: &'static WorldSpec) -> Result<Vec<u8>, LoadError> {
        let shown = shown.to_string();
        let read_err = |e: std::io::Error| LoadError::Read {
            path: shown.clone(),
            reason: match e.kind() {
                std::io::ErrorKind::PermissionDenied => {
                    "permission denied (whoever runs the arena must be able to read it: chmod a+r)".to_string()
                }
                std::io::ErrorKind::NotFound => "there is no such file".to_string(),
                _ => e.to_string(),
            },
        };
        let meta = std::fs::metadata(path).map_err(read_err)?;
        // A device, pipe or socket (or a link to one) reports no size and
        // can be read forever or block: only a regular file is a bot file.
        if !meta.is_file() {
            return Err(LoadError::Read {
                path: shown,
                reason: not_a_file(&meta),
            });
        }
        let size = meta.len();
        if size > self.limits.max_file_bytes {
            return Err(LoadError::TooBig {
                path: shown,
                size,
                limit: self.limits.max_file_bytes,
            });
        }
        let bytes = read_at_most(path, self.limits.max_file_bytes).map_err(read_err)?;
        // The file grew between the size check and the read.
        if bytes.len() as u64 > self.limits.max_file_bytes {
            return Err(LoadError::TooBig {
                path: shown,
                size: bytes.len() as u64,
                limit: self.limits.max_file_bytes,
            });
        }
        match not_a_component(path, &shown, &bytes, world.name) {
            Some(e) => Err(e),
            None => Ok(bytes),
        }
    }

    /// Compile once per file per run: in this process, or in a child
    /// process under limits (see `compile.rs`).
    /// Whether it was compiled now (`false`: it came from a cache).
    fn compile(&self, shown: &str, hash: &[u8; 32], bytes: &[u8]) -> Result<(Component, bool), LoadError> {
        if let Some(c) = self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(hash) {
            return Ok((c.clone(), false));
        }
        let (component, compiled) = self.compile_uncached(shown, hash, bytes)?;
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(*hash, component.clone());
        Ok((component, compiled))
    }

    /// Compile from the disk cache, or compile and keep the result there.
    fn compile_uncached(&self, shown: &str, hash: &[u8; 32], bytes: &[u8]) -> Result<(Component, bool), LoadError> {
        if let Some(disk) = &self.disk
            && let Some(artifact) = disk.load(hash)
        {
            // SAFETY: the entry's checksum file names this file and engine, and
            // the artifact hashes to the checksum this program wrote with it:
            // these are the bytes a compile of this program serialized, in a
            // folder only this user may write (cache.rs).
            match unsafe { compile::map_artifact(&self.engine, shown, &artifact) } {
                Ok(c) => return Ok((c, false)),
                // Never trusted further: forget it and compile again.
                Err(_) => disk.remove(hash),
            }
        }
        let invalid = |e: wasmtime::Error| LoadError::Invalid {
            path: shown.to_string(),
            reason: first_line(&e),
        };
        if let Some(reason) = shape::measure(bytes).and_then(|s| s.over_limit()) {
            return Err(LoadError::TooComplex {
                path: shown.to_string(),
                reason,
            });
        }
        match &self.compiler {
            Compiler::InProcess => {
                let Some(disk) = &self.disk else {
                    return Component::new(&self.engine, bytes).map_err(invalid).map(|c| (c, true));
                };
                // With a disk cache, the functions an earlier bot had come
                // from its incremental store, as in a compiler child: an
                // engine of the same configuration with the store compiles,
                // and this sandbox's engine loads what it serialized.
                let artifact = compile::artifact_in_process(&self.limits, bytes, &disk.store_dir()).map_err(invalid)?;
                disk.store(hash, &artifact);
                // SAFETY: `artifact_in_process` just serialized these bytes, in
                // this program, for an engine of this configuration; they never
                // went through a file anyone else can write.
                unsafe { compile::load_artifact(&self.engine, shown, &artifact) }.map(|c| (c, true))
            }
            Compiler::Child(child) => {
                let store = self.disk.as_ref().map(|d| d.store_dir());
                let artifact = child.artifact(&self.limits, shown, bytes, store.as_deref())?;
                // Kept on disk, the artifact is mapped from there, as on later
                // runs: a first run of a class holds no interpreter in memory
                // that it does not run either.
                if let Some(disk) = &self.disk {
                    disk.store(hash, &artifact);
                    // SAFETY: as for any verified entry (above).
                    if let Some(path) = disk.load(hash)
                        && let Ok(c) = unsafe { compile::map_artifact(&self.engine, shown, &path) }
                    {
                        return Ok((c, true));
                    }
                    disk.remove(hash);
                }
                // SAFETY: the child is this program's own executable, which just
                // compiled them with `Component::serialize` for an engine of the
                // same configuration, and they went straight from its stdout into
                // memory here, never through a file anyone else can write.
                unsafe { compile::load_artifact(&self.engine, shown, &artifact) }.map(|c| (c, true))
            }
        }
    }

    /// The world of the package version the component imports: one version,
    /// and one the arena supports (a component importing nothing of the
    /// package is checked against the newest).
    fn pick_world(
        &self,
        shown: &str,
        component: &Component,
        worlds: &[&'static WorldSpec],
    ) -> Result<&'static WorldSpec, LoadError> {
        let ty = component.component_type();
        let mut versions: Vec<String> = ty
            .imports(&self.engine)
            .filter(|(name, _)| name.starts_with(self.host.package))
            .filter_map(|(name, _)| name.rsplit_once('@').map(|(_, v)| v.to_string()))
            .collect();
        versions.sort();
        versions.dedup();
        let supported = || worlds.iter().map(|w| w.version).collect::<Vec<_>>().join(", ");
        let package = self.host.package.trim_end_matches('/');
        match versions.as_slice() {
            [] => worlds.last().copied().ok_or_else(|| LoadError::Invalid {
                path: shown.to_string(),
                reason: "no world to check against".into(),
            }),
            [v] => worlds
                .iter()
                .copied()
                .find(|w| w.version == v)
                .ok_or_else(|| LoadError::UnknownVersion {
                    path: shown.to_string(),
                    found: format!("{package}@{v}"),
                    supported: supported(),
                }),
            many => Err(LoadError::MixedVersions {
                path: shown.to_string(),
                found: many.join(" and "),
                supported: supported(),
            }),
        }
    }

    fn check_world(&self, shown: &str, component: &Component, world: &WorldSpec) -> Result<(), LoadError> {
        let ty = component.component_type();
        let exports: Vec<String> = ty.exports(&self.engine).map(|(name, _)| name.to_string()).collect();
        if world.exports.iter().any(|e| !exports.iter().any(|x| x == e)) {
            let found = if exports.is_empty() {
                "no exports".to_string()
            } else {
                format!("exports {}", exports.join(", "))
            };
            return Err(LoadError::WrongWorld {
                path: shown.to_string(),
                world: world.name,
                expected: world.exports.join(", "),
                found,
            });
        }
        for (name, item) in ty.imports(&self.engine) {
            if name.starts_with("wasi:") || self.host.interfaces.iter().any(|i| i.name == name) {
                continue;
            }
            // A world's shared types arrive as an import of an interface with
            // no functions; give it an empty instance, it grants nothing.
            let types_only = name.starts_with(self.host.package)
                && match &item.ty {
                    ComponentItem::ComponentInstance(inst) => inst
                        .exports(&self.engine)
                        .all(|(_, e)| matches!(e.ty, ComponentItem::Type(_) | ComponentItem::Resource(_))),
                    _ => false,
                };
            if !types_only {
                return Err(LoadError::ForbiddenImport {
                    path: shown.to_string(),
                    import: name.to_string(),
                    allowed: self.allowed_imports(),
                });
            }
            let mut linker = self.linker.lock().unwrap_or_else(|e| e.into_inner());
            if linker.instance(name).is_err() {
                // Already defined by an earlier bot: nothing to add.
            }
        }
        Ok(())
    }

    /// Why linking failed, in the words of [`LoadError::ForbiddenImport`]
    /// when the component imports a WASI or host interface (or a function of
    /// one) that the arena does not link, rather than wasmtime's "not found
    /// in the linker".
    fn link_error(&self, shown: &str, error: &wasmtime::Error) -> LoadError {
        let messages: Vec<String> = error.chain().map(|e| e.to_string()).collect();
        let quoted = |m: &str| m.split('`').nth(1).map(str::to_string);
        let import = messages
            .iter()
            .find(|m| m.starts_with("component imports ") && m.contains("not found in the linker"))
            .and_then(|m| quoted(m));
        match import {
            Some(name) => {
                let member = messages
                    .iter()
                    .find(|m| m.starts_with("instance export `"))
                    .and_then(|m| quoted(m));
                LoadError::ForbiddenImport {
                    path: shown.to_string(),
                    import: match member {
                        Some(f) => format!("{name}#{f}"),
                        None => name,
                    },
                    allowed: self.allowed_imports(),
                }
            }
            None => LoadError::Invalid {
                path: shown.to_string(),
                reason: first_line(error),
            },
        }
    }

    fn allowed_imports(&self) -> String {
        self.host
            .interfaces
            .iter()
            .map(|i| i.name)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Why `bytes` (the file at `path`, `shown` in messages) is no component
/// at all, from its first eight bytes: another kind of file (said against
/// the world `world`), or a core module. Cheap enough to answer an upload
/// with before it is kept.
pub fn not_a_component(path: &Path, shown: &str, bytes: &[u8], world: &'static str) -> Option<LoadError> {
    if bytes.len() < 8 || &bytes[..4] != b"\0asm" {
        let (found, fix) = describe_non_wasm(path, bytes, world);
        return Some(LoadError::NotWasm {
            path: shown.to_string(),
            found,
            fix,
        });
    }
    if bytes[4..8] == [1, 0, 0, 0] {
        return Some(LoadError::CoreModule {
            path: shown.to_string(),
            world,
        });
    }
    None
}

/// The names a component exports at its top level (a world's functions),
/// read without validating or compiling it; `None` when it does not parse
/// (the validator then says why, in its words, when it is loaded).
pub fn top_level_exports(bytes: &[u8]) -> Option<Vec<String>> {
    use wasmparser::{Parser, Payload};
    let mut names = Vec::new();
    // Nested modules and components come inline, each from its `Version`
    // to its `End`: only the outermost one's exports are the world's.
    let mut depth = 0usize;
    for payload in Parser::new(0).parse_all(bytes) {
        match payload.ok()? {
            Payload::Version { .. } => depth += 1,
            Payload::End(_) => depth = depth.saturating_sub(1),
            Payload::ComponentExportSection(exports) if depth == 1 => {
                for export in exports {
                    names.push(export.ok()?.name.name.to_string());
                }
            }
            _ => {}
        }
    }
    Some(names)
}

/// The bytes a memory starts with, when wasmtime refused it for being over
/// the pool's cap ("memory has a minimum byte size of N which exceeds the limit").
pub(crate) fn initial_memory_over_cap(reason: &str) -> Option<u64> {
    let (_, rest) = reason.split_once("minimum byte size of ")?;
    rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

pub(crate) fn describe_non_wasm(path: &Path, bytes: &[u8], world: &str) -> (String, String) {
    let build = format!(
        "expected a component for world {world}: build the bot first with its project's build command \
         (`./build.sh` in a project of `arena new`, for Rust, Python, JavaScript and C) and pass the .wasm it writes"
    );
    let source = |language: &str, how: &str| {
        (
            format!("{language} source"),
            format!(
                "the arena runs the built .wasm file, not the source: build it with {how} (`arena new --lang ... DIR` writes a project whose README has the command), then pass the .wasm"
            ),
        )
    };
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    match extension.as_str() {
        "py" => return source("Python", "componentize-py"),
        "js" | "mjs" | "ts" => return source("JavaScript", "componentize-js"),
        "rs" => return source("Rust", "`cargo build --release --target wasm32-wasip2`"),
        "wat" => {
            return (
                "WebAssembly text".into(),
                format!("{build}; a .wat file must be assembled and made a component"),
            );
        }
        _ => {}
    }
    if text.contains("WitWorld") || (text.contains("def ") && text.contains("import ")) {
        return source("Python", "componentize-py");
    }
    if text.contains("export function") || text.contains("export const") {
        return source("JavaScript", "componentize-js");
    }
    let found = if bytes.is_empty() {
        "an empty file".into()
    } else if bytes.starts_with(b"\x7fELF") {
        "a native ELF executable".into()
    } else if bytes.starts_with(b"PK") {
        "a zip archive".into()
    } else if bytes
        .iter()
        .take(64)
        .all(|b| b.is_ascii() && (!b.is_ascii_control() || b.is_ascii_whitespace()))
    {
        "text".into()
    } else {
        let head: Vec<String> = bytes.iter().take(4).map(|b| format!("{b:02x}")).collect();
        format!("bytes {}", head.join(" "))
    };
    (found, build)
}
