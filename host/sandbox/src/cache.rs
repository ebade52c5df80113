//! Compiled bots kept on disk between runs.
//!
//! An entry is two files: `<dir>/<key>.cwasm`, exactly the bytes
//! `Component::serialize` produced (in the limited compiler process when
//! bots compile in one), and `<dir>/<key>.sum`, a magic string, the key and
//! the SHA-256 of the artifact. The key is a SHA-256 over the bot file's
//! SHA-256 and everything compiled code depends on: the engine's
//! [`Engine::precompile_compatibility_hash`] (wasmtime's version, the target
//! and its CPU flags, the Cranelift settings, the tunables and wasm features)
//! and this crate's version.
//!
//! The artifact is its own file so that wasmtime can map it
//! (`Component::deserialize_file`) instead of copying it into memory: the
//! compiled interpreter of a Python bot is about 60 MB, and a class of them
//! then costs only the pages that run (docs/performance.md).
//!
//! An entry is used only when its `.sum` names the key asked for and the
//! artifact hashes to its checksum; anything else (a torn write, a flipped
//! byte, an entry of another version) is deleted and the bot compiled
//! again. Each file is written to a temporary file in the same folder and
//! renamed into place, the checksum last, so a reader sees a whole entry or
//! none.
//!
//! The folder is bounded: after each store, the least recently used entries
//! (a load touches its checksum file's modification time) are deleted until
//! the folder holds at most `max_bytes` ([`DEFAULT_MAX_BYTES`] unless set),
//! so a teacher's cache does not grow with every rebuilt bot. Deleting an
//! entry another process has mapped is safe: the mapping keeps the pages.
//!
//! The folder is created for the user alone (mode 0700) and is used only if
//! it belongs to the user running the arena and no one else may write to it:
//! `Component::deserialize` runs what it loads as native code, so whoever may
//! write the folder may run code as the user. A folder that cannot be
//! created or written (read-only, full, someone else's) costs one warning
//! line on stderr, once per process, and the run goes on without the cache.

use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use wasmtime::Engine;

const MAGIC: &[u8; 16] = b"arena-cwasm-v2\n\0";
const HEADER: usize = MAGIC.len() + 32 + 32;
/// The extension of entries' artifacts.
pub const EXTENSION: &str = "cwasm";
/// The extension of entries' checksums.
const SUM: &str = "sum";

/// The cache's size bound unless set: about 40 compiled Python bots, or
/// thousands of Rust ones.
pub const DEFAULT_MAX_BYTES: u64 = 4 << 30;

/// Whether this process has already said that the cache is unusable.
static WARNED: AtomicBool = AtomicBool::new(false);

/// A compile cache in one folder.
#[derive(Debug)]
pub struct DiskCache {
    dir: PathBuf,
    /// Everything but the file that the key depends on.
    engine_hash: [u8; 32],
    /// Off after the first failure to create or write the folder.
    usable: AtomicBool,
    /// The most bytes the folder keeps.
    max_bytes: u64,
}

/// Feeds what `Hash` writes into a SHA-256.
struct ShaHasher(Sha256);

impl std::hash::Hasher for ShaHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
    fn finish(&self) -> u64 {
        0
    }
}

/// What makes compiled code and its fuel counts the same: wasmtime's
/// version, target and settings, this crate's version, the fuel prices, the
/// platform. Two engines with the same hash play every game the same.
pub(crate) fn engine_hash(engine: &Engine) -> [u8; 32] {
    use std::hash::Hash;
    let mut h = ShaHasher(Sha256::new());
    engine.precompile_compatibility_hash().hash(&mut h);
    env!("CARGO_PKG_VERSION").hash(&mut h);
    // Fuel is counted by the compiled code: an artifact compiled under
    // other prices must never load, whatever wasmtime's own hash covers.
    crate::budget::PRICES_VERSION.hash(&mut h);
    crate::budget::operator_cost().hash(&mut h);
    std::env::consts::ARCH.hash(&mut h);
    std::env::consts::OS.hash(&mut h);
    h.0.finalize().into()
}

impl DiskCache {
    /// A cache in `dir` for artifacts compiled for `engine`: the folder is
    /// created (for the user alone) when first written to.
    pub fn new(dir: PathBuf, engine: &Engine) -> DiskCache {
        DiskCache {
            dir,
            engine_hash: engine_hash(engine),
            usable: AtomicBool::new(true),
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }

    /// This cache, keeping at most `max_bytes` (least recently used entries go first).
    pub fn with_max_bytes(mut self, max_bytes: u64) -> DiskCache {
        self.max_bytes = max_bytes;
        self
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The incremental compilation store of this engine (`incremental.rs`),
    /// a folder inside the cache's.
    pub fn store_dir(&self) -> PathBuf {
        let engine = hex(&self.engine_hash);
        self.dir.join(format!("{STORE_PREFIX}{}", &engine[..16]))
    }

    fn key(&self, file_hash: &[u8; 32]) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(b"arena compile cache key\0");
        h.update(file_hash);
        h.update(self.engine_hash);
        h.finalize().into()
    }

    fn path(&self, key: &[u8; 32]) -> PathBuf {
        self.dir.join(format!("{}.{EXTENSION}", hex(key)))
    }

    /// The verified artifact file for the file of SHA-256 `file_hash`, if
    /// there is one; for [`Component::deserialize_file`](wasmtime::component::Component::deserialize_file).
    /// A damaged entry is deleted.
    pub fn load(&self, file_hash: &[u8; 32]) -> Option<PathBuf> {
        if !self.usable.load(Ordering::Relaxed) || !owned_by_user(&self.dir) {
            return None;
        }
        let key = self.key(file_hash);
        let path = self.path(&key);
        let sum = std::fs::read(path.with_extension(SUM)).ok()?;
        if verify(&sum, &key, &path) {
            // Recently used: the last to be evicted.
            if let Ok(f) = std::fs::File::open(path.with_extension(SUM)) {
                let _ = f.set_modified(std::time::SystemTime::now());
            }
            Some(path)
        } else {
            let _ = std::fs::remove_file(&path);
            let _ = std::fs::remove_file(path.with_extension(SUM));
            None
        }
    }

    /// Forget the entry for `file_hash` (its artifact did not load).
    pub fn remove(&self, file_hash: &[u8; 32]) {
        let path = self.path(&self.key(file_hash));
        let _ = std::fs::remove_file(path.with_extension(SUM));
        let _ = std::fs::remove_file(path);
    }

    /// Keep `artifact` for the file of SHA-256 `file_hash`. On failure, warn
    /// once and stop using the cache for the rest of the run.
    pub fn store(&self, file_hash: &[u8; 32], artifact: &[u8]) {
        if !self.usable.load(Ordering::Relaxed) {
            return;
        }
        match self.try_store(file_hash, artifact) {
            Ok(()) => {
                let keep = self.path(&self.key(file_hash));
                let _ = prune(&self.dir, self.max_bytes, Some(&keep));
            }
            Err(e) => self.fail(e),
        }
    }

    /// Warn once and stop using the cache for the rest of the run.
    fn fail(&self, e: String) {
        self.usable.store(false, Ordering::Relaxed);
        if !WARNED.swap(true, Ordering::Relaxed) {
            eprintln!(
                "warning: cannot use the compile cache {}: {e}; running without it",
                self.dir.display()
            );
        }
    }

    fn try_store(&self, file_hash: &[u8; 32], artifact: &[u8]) -> Result<(), String> {
        create_private_dir(&self.dir).map_err(|e| e.to_string())?;
        if !owned_by_user(&self.dir) {
            return Err("the folder is not yours alone (someone else owns it or may write to it)".into());
        }
        let key = self.key(file_hash);
        let final_path = self.path(&key);
        // Unique to this write: threads of one run may compile one file at once.
        static WRITES: AtomicU64 = AtomicU64::new(0);
        let n = WRITES.fetch_add(1, Ordering::Relaxed);
        let tmp = |ext: &str| {
            self.dir
                .join(format!(".{}.{}.{n}.{ext}.tmp", hex(&key), std::process::id()))
        };
        let write = |to: &Path, parts: &[&[u8]]| -> std::io::Result<()> {
            let tmp = tmp(to.extension().and_then(|e| e.to_str()).unwrap_or("part"));
            let result = (|| {
                let mut f = std::fs::File::create(&tmp)?;
                for part in parts {
                    f.write_all(part)?;
                }
                f.sync_all()?;
                std::fs::rename(&tmp, to)
            })();
            if result.is_err() {
                let _ = std::fs::remove_file(&tmp);
            }
            result
        };
        // The checksum last: until it is in place, the entry does not exist.
        let _ = std::fs::remove_file(final_path.with_extension(SUM));
        write(&final_path, &[artifact]).map_err(|e| e.to_string())?;
        write(
            &final_path.with_extension(SUM),
            &[MAGIC, &key, &Sha256::digest(artifact)],
        )
        .map_err(|e| e.to_string())
    }
}

/// Whether the checksum file `sum` names `key` and the artifact at `path`
/// hashes to its checksum (read in pieces, never held whole).
fn verify(sum: &[u8], key: &[u8; 32], path: &Path) -> bool {
    use std::io::Read;
    if sum.len() != HEADER || &sum[..MAGIC.len()] != MAGIC || &sum[MAGIC.len()..MAGIC.len() + 32] != key {
        return false;
    }
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => h.update(&buf[..n]),
            Err(_) => return false,
        }
    }
    h.finalize().as_slice() == &sum[MAGIC.len() + 32..]
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// Whether `dir` belongs to the user running this process and no one else
/// may write to it. A folder that does not exist yet holds nothing.
#[cfg(unix)]
fn owned_by_user(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(dir) {
        // SAFETY: geteuid has no preconditions and cannot fail.
        Ok(m) => m.is_dir() && m.uid() == unsafe { libc::geteuid() } && m.mode() & 0o022 == 0,
        Err(_) => false,
    }
}

#[cfg(not(unix))]
fn owned_by_user(dir: &Path) -> bool {
    dir.is_dir()
}

/// What `arena cache stats` shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Entries in the folder.
    pub entries: u64,
    /// Their total size, in bytes.
    pub bytes: u64,
    /// The incremental compilation stores' size, in bytes (`incremental.rs`).
    pub store_bytes: u64,
}

/// The folders of incremental compilation stores start so.
const STORE_PREFIX: &str = "incremental-";

/// The incremental compilation stores in the cache folder `dir`.
fn stores(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_dir()
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(STORE_PREFIX))
        })
        .collect()
}

/// The entries of the cache folder `dir` (none if it does not exist), and
/// the size of its incremental compilation stores.
pub fn stats(dir: &Path) -> std::io::Result<Stats> {
    let mut stats = Stats::default();
    for store in stores(dir) {
        for e in std::fs::read_dir(store).into_iter().flatten().flatten() {
            stats.store_bytes += e.metadata().map(|m| m.len()).unwrap_or(0);
        }
    }
    for path in entries(dir)? {
        stats.entries += 1;
        stats.bytes += std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        stats.bytes += std::fs::metadata(path.with_extension(SUM))
            .map(|m| m.len())
            .unwrap_or(0);
    }
    Ok(stats)
}

/// Delete the least recently used entries of the cache folder `dir` until it
/// holds at most `max_bytes`, never the entry whose artifact is `keep`;
/// returns the entries and bytes removed.
pub fn prune(dir: &Path, max_bytes: u64, keep: Option<&Path>) -> std::io::Result<(u64, u64)> {
    let mut list: Vec<(std::time::SystemTime, u64, PathBuf)> = Vec::new();
    let mut total = 0;
    for path in entries(dir)? {
        let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        let bytes = size(&path) + size(&path.with_extension(SUM));
        // An entry without a checksum is being written, or torn: the oldest possible.
        let used = std::fs::metadata(path.with_extension(SUM))
            .and_then(|m| m.modified())
            .unwrap_or(std::time::UNIX_EPOCH);
        total += bytes;
        list.push((used, bytes, path));
    }
    list.sort();
    let (mut removed, mut freed) = (0, 0);
    for (_, bytes, path) in list {
        if total <= max_bytes {
            break;
        }
        if Some(path.as_path()) == keep {
            continue;
        }
        let _ = std::fs::remove_file(path.with_extension(SUM));
        if std::fs::remove_file(&path).is_ok() {
            total -= bytes;
            removed += 1;
            freed += bytes;
        }
    }
    Ok((removed, freed))
}

/// Delete every entry (and left-over temporary file) of the cache folder
/// `dir`, and its incremental compilation stores; returns how many entries there were.
pub fn clear(dir: &Path) -> std::io::Result<u64> {
    let mut n = 0;
    for store in stores(dir) {
        std::fs::remove_dir_all(store)?;
    }
    for path in entries(dir)? {
        let _ = std::fs::remove_file(path.with_extension(SUM));
        std::fs::remove_file(&path)?;
        n += 1;
    }
    if let Ok(read) = std::fs::read_dir(dir) {
        for e in read.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') && name.ends_with(".tmp") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    Ok(n)
}

fn entries(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let read = match std::fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for e in read {
        let path = e?.path();
        if path.extension().is_some_and(|x| x == EXTENSION) && path.is_file() {
            out.push(path);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_verified_against_its_key_and_checksum() {
        let dir = std::env::temp_dir().join(format!("arena-cache-verify-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let key = [7u8; 32];
        let artifact = b"compiled".to_vec();
        let path = dir.join("entry.cwasm");
        std::fs::write(&path, &artifact).unwrap();
        let mut sum = MAGIC.to_vec();
        sum.extend_from_slice(&key);
        sum.extend_from_slice(&Sha256::digest(&artifact));
        assert!(verify(&sum, &key, &path));
        assert!(!verify(&sum, &[8u8; 32], &path));
        assert!(!verify(&sum[..HEADER - 1], &key, &path));
        std::fs::write(&path, b"compiled!").unwrap();
        assert!(!verify(&sum, &key, &path));
        std::fs::remove_file(&path).unwrap();
        assert!(!verify(&sum, &key, &path));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
