//! Compiled bots kept on disk between runs.
//!
//! An entry is `<dir>/<key>.cwasm`, where the key is a SHA-256 over the bot
//! file's SHA-256 and everything compiled code depends on: the engine's
//! [`Engine::precompile_compatibility_hash`] (wasmtime's version, the target
//! and its CPU flags, the Cranelift settings, the tunables and wasm features)
//! and this crate's version. The file holds a header (a magic string, the
//! key, the SHA-256 of the artifact) and then the artifact, exactly the bytes
//! `Component::serialize` produced (in the limited compiler process when
//! bots compile in one).
//!
//! An entry is used only when its header names the key asked for and its
//! artifact hashes to the header's checksum; anything else (a torn write, a
//! flipped byte, an entry of another version) is deleted and the bot
//! compiled again. Entries are written to a temporary file in the same
//! folder and renamed into place, so a reader sees a whole entry or none.
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

const MAGIC: &[u8; 16] = b"arena-cwasm-v1\n\0";
const HEADER: usize = MAGIC.len() + 32 + 32;
/// The extension of entries.
pub const EXTENSION: &str = "cwasm";

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

impl DiskCache {
    /// A cache in `dir` for artifacts compiled for `engine`: the folder is
    /// created (for the user alone) when first written to.
    pub fn new(dir: PathBuf, engine: &Engine) -> DiskCache {
        use std::hash::Hash;
        let mut h = ShaHasher(Sha256::new());
        engine.precompile_compatibility_hash().hash(&mut h);
        env!("CARGO_PKG_VERSION").hash(&mut h);
        std::env::consts::ARCH.hash(&mut h);
        std::env::consts::OS.hash(&mut h);
        DiskCache {
            dir,
            engine_hash: h.0.finalize().into(),
            usable: AtomicBool::new(true),
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
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

    /// The verified artifact for the file of SHA-256 `file_hash`, if there
    /// is one. A damaged entry is deleted.
    pub fn load(&self, file_hash: &[u8; 32]) -> Option<Vec<u8>> {
        if !self.usable.load(Ordering::Relaxed) || !owned_by_user(&self.dir) {
            return None;
        }
        let key = self.key(file_hash);
        let path = self.path(&key);
        let bytes = std::fs::read(&path).ok()?;
        match verify(&bytes, &key) {
            Some(artifact) => Some(artifact.to_vec()),
            None => {
                let _ = std::fs::remove_file(&path);
                None
            }
        }
    }

    /// Forget the entry for `file_hash` (its artifact did not load).
    pub fn remove(&self, file_hash: &[u8; 32]) {
        let _ = std::fs::remove_file(self.path(&self.key(file_hash)));
    }

    /// Keep `artifact` for the file of SHA-256 `file_hash`. On failure, warn
    /// once and stop using the cache for the rest of the run.
    pub fn store(&self, file_hash: &[u8; 32], artifact: &[u8]) {
        if !self.usable.load(Ordering::Relaxed) {
            return;
        }
        if let Err(e) = self.try_store(file_hash, artifact) {
            self.usable.store(false, Ordering::Relaxed);
            if !WARNED.swap(true, Ordering::Relaxed) {
                eprintln!(
                    "warning: cannot use the compile cache {}: {e}; running without it",
                    self.dir.display()
                );
            }
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
        let tmp = self.dir.join(format!(".{}.{}.{n}.tmp", hex(&key), std::process::id()));
        let write = || -> std::io::Result<()> {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(MAGIC)?;
            f.write_all(&key)?;
            f.write_all(&Sha256::digest(artifact))?;
            f.write_all(artifact)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &final_path)
        };
        write().map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            e.to_string()
        })
    }
}

/// The artifact of an entry whose header names `key` and whose artifact
/// matches the header's checksum.
fn verify<'a>(bytes: &'a [u8], key: &[u8; 32]) -> Option<&'a [u8]> {
    if bytes.len() < HEADER || &bytes[..MAGIC.len()] != MAGIC {
        return None;
    }
    let (stored_key, rest) = bytes[MAGIC.len()..].split_at(32);
    let (sum, artifact) = rest.split_at(32);
    if stored_key != key || Sha256::digest(artifact).as_slice() != sum {
        return None;
    }
    Some(artifact)
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
}

/// The entries of the cache folder `dir` (none if it does not exist).
pub fn stats(dir: &Path) -> std::io::Result<Stats> {
    let mut stats = Stats::default();
    for path in entries(dir)? {
        stats.entries += 1;
        stats.bytes += std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    }
    Ok(stats)
}

/// Delete every entry (and left-over temporary file) of the cache folder
/// `dir`; returns how many entries there were.
pub fn clear(dir: &Path) -> std::io::Result<u64> {
    let mut n = 0;
    for path in entries(dir)? {
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
        let key = [7u8; 32];
        let artifact = b"compiled".to_vec();
        let mut entry = MAGIC.to_vec();
        entry.extend_from_slice(&key);
        entry.extend_from_slice(&Sha256::digest(&artifact));
        entry.extend_from_slice(&artifact);
        assert_eq!(verify(&entry, &key), Some(&artifact[..]));
        assert_eq!(verify(&entry, &[8u8; 32]), None);
        let mut flipped = entry.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(verify(&flipped, &key), None);
        assert_eq!(verify(&entry[..HEADER - 1], &key), None);
    }
}
