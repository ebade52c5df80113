//! Cranelift's incremental compilation store, kept on disk beside the
//! artifact cache, so a bot's functions that an earlier bot already had
//! (every componentize-py bot carries the same CPython interpreter) are not
//! compiled again.
//!
//! The store is a folder of segment files, one written by each compile that
//! found something new. A compile reads them all (a few hundred MB at most),
//! looks entries up as Cranelift asks, and writes what it compiled as a new
//! segment: under a temporary name, then renamed, so two compilers at once
//! never see half a file. Every entry carries the SHA-256 of its key and
//! value, checked when it is used: a damaged or truncated entry is a miss,
//! never code. The folder's name holds the engine's fingerprint, so a store
//! of other engine settings or another wasmtime is never read. When the
//! segments pass the size bound, the oldest are deleted; when there are
//! many, a compile merges them into one.

use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use wasmtime::CacheStore;

/// The first bytes of a segment file.
const MAGIC: &[u8; 16] = b"arena-incr-seg1\n";
/// A segment's name ends so; anything else in the folder is ignored.
const SUFFIX: &str = ".seg";
/// An entry's key longer than this is not one Cranelift writes: the rest of the segment is skipped.
const MAX_KEY: usize = 4096;
/// Past this many segments, a compile writes everything it read and
/// compiled as one segment and deletes those it read: every compile reads
/// every segment, and a class of small bots would otherwise leave one tiny
/// file per bot.
const MAX_SEGMENTS: usize = 32;

/// Where an entry is: its segment, the value's start and length, its checksum's start.
#[derive(Debug, Clone, Copy)]
struct At {
    segment: usize,
    key: usize,
    value: usize,
    len: usize,
}

/// An on-disk incremental compilation store (see the module's comment).
#[derive(Debug)]
pub struct DiskStore {
    dir: PathBuf,
    segments: Vec<Vec<u8>>,
    /// The files the segments were read from.
    read: Vec<PathBuf>,
    index: HashMap<Vec<u8>, At>,
    fresh: Mutex<HashMap<Vec<u8>, Vec<u8>>>,
    max_bytes: u64,
    /// Entries found and not found, for the figures in docs/performance.md.
    counts: Mutex<[u64; 2]>,
}

impl DiskStore {
    /// The store in `dir` (created if missing), bounded to `max_bytes` on disk.
    /// An unreadable segment is left out; an unusable folder gives an empty store.
    pub fn open(dir: &Path, max_bytes: u64) -> DiskStore {
        let mut store = DiskStore {
            dir: dir.to_path_buf(),
            segments: Vec::new(),
            read: Vec::new(),
            index: HashMap::new(),
            fresh: Mutex::new(HashMap::new()),
            max_bytes,
            counts: Mutex::new([0, 0]),
        };
        let _ = std::fs::create_dir_all(dir);
        for path in segment_files(dir) {
            let Ok(bytes) = std::fs::read(&path) else { continue };
            if store.add_segment(bytes) {
                store.read.push(path);
            }
        }
        store
    }

    /// Index a segment's entries; whether it is one.
    fn add_segment(&mut self, bytes: Vec<u8>) -> bool {
        if !bytes.starts_with(MAGIC) {
            return false;
        }
        let segment = self.segments.len();
        let mut at = MAGIC.len();
        // Each entry: key length and value length (u32, little-endian), the
        // key, the value, SHA-256 of key and value.
        while let Some(head) = bytes.get(at..at + 8) {
            let klen = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
            let vlen = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as usize;
            let key = at + 8;
            let value = key + klen;
            let end = value.saturating_add(vlen).saturating_add(32);
            if klen > MAX_KEY || end > bytes.len() {
                break;
            }
            self.index.entry(bytes[key..value].to_vec()).or_insert(At {
                segment,
                key,
                value,
                len: vlen,
            });
            at = end;
        }
        self.segments.push(bytes);
        true
    }

    /// The entry for `key` from the files, if its checksum holds.
    fn stored(&self, key: &[u8]) -> Option<&[u8]> {
        let at = self.index.get(key)?;
        let bytes = self.segments.get(at.segment)?;
        let value = bytes.get(at.value..at.value + at.len)?;
        let sum = bytes.get(at.value + at.len..at.value + at.len + 32)?;
        let mut h = Sha256::new();
        h.update(bytes.get(at.key..at.value)?);
        h.update(value);
        (h.finalize().as_slice() == sum).then_some(value)
    }

    /// Entries found and not found so far.
    pub fn counts(&self) -> [u64; 2] {
        self.counts.lock().map(|c| *c).unwrap_or_default()
    }

    /// Write what was compiled since the store was opened as a new segment,
    /// then delete the oldest segments past the size bound. A store that
    /// cannot be written only makes the next compile slower.
    pub fn save(&self) -> std::io::Result<()> {
        let fresh = std::mem::take(&mut *self.fresh.lock().map_err(|_| std::io::Error::other("poisoned"))?);
        let compact = self.read.len() >= MAX_SEGMENTS;
        if fresh.is_empty() && !compact {
            return Ok(());
        }
        let size = |k: &[u8], v: &[u8]| (k.len() + v.len() + 40) as u64;
        let mut entries: Vec<(&[u8], &[u8])> = fresh.iter().map(|(k, v)| (&k[..], &v[..])).collect();
        if compact {
            // The newest entries whose checksum holds, up to three quarters
            // of the bound: the merged segment must not be pruned at once.
            let mut room = (self.max_bytes / 4 * 3).saturating_sub(entries.iter().map(|(k, v)| size(k, v)).sum());
            let mut stored: Vec<(&Vec<u8>, &At)> = self.index.iter().collect();
            stored.sort_by_key(|(_, at)| std::cmp::Reverse(at.segment));
            for (k, _) in stored {
                if let Some(v) = self.stored(k)
                    && size(k, v) <= room
                {
                    room -= size(k, v);
                    entries.push((k, v));
                }
            }
        }
        // Sorted, so the same compile writes the same file.
        entries.sort_unstable();
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let name = format!("{stamp:024}-{}{SUFFIX}", std::process::id());
        let tmp = self.dir.join(format!(".{name}.tmp"));
        {
            // Written as it goes: no second copy of the entries in memory.
            let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
            w.write_all(MAGIC)?;
            for (k, v) in &entries {
                let (Ok(kl), Ok(vl)) = (u32::try_from(k.len()), u32::try_from(v.len())) else {
                    continue;
                };
                let mut h = Sha256::new();
                h.update(k);
                h.update(v);
                w.write_all(&kl.to_le_bytes())?;
                w.write_all(&vl.to_le_bytes())?;
                w.write_all(k)?;
                w.write_all(v)?;
                w.write_all(&h.finalize())?;
            }
            w.flush()?;
        }
        let written = self.dir.join(&name);
        std::fs::rename(&tmp, &written)?;
        if compact {
            // Another compiler reading one of these now has it in memory already, or misses it.
            for path in &self.read {
                let _ = std::fs::remove_file(path);
            }
        }
        self.prune(&written);
        Ok(())
    }

    /// Delete the oldest segments until the rest fit the bound (never
    /// `keep`, the one just written), and temporary files a killed compiler left.
    fn prune(&self, keep: &Path) {
        let files = segment_files(&self.dir);
        let sizes: Vec<u64> = files
            .iter()
            .map(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
            .collect();
        let mut total: u64 = sizes.iter().sum();
        for (path, size) in files.iter().zip(sizes) {
            if total <= self.max_bytes {
                break;
            }
            if path != keep && std::fs::remove_file(path).is_ok() {
                total -= size;
            }
        }
        let stale = std::time::Duration::from_secs(3600);
        for e in std::fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.')
                && name.ends_with(".tmp")
                && e.metadata()
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > stale))
            {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

/// The segment files of `dir`, oldest first (their names start with the time written).
fn segment_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(SUFFIX) && !n.starts_with('.'))
        })
        .collect();
    files.sort();
    files
}

impl CacheStore for DiskStore {
    fn get(&self, key: &[u8]) -> Option<Cow<'_, [u8]>> {
        let found = match self.stored(key) {
            Some(v) => Some(Cow::Borrowed(v)),
            None => self
                .fresh
                .lock()
                .ok()
                .and_then(|f| f.get(key).map(|v| Cow::Owned(v.clone()))),
        };
        if let Ok(mut c) = self.counts.lock() {
            c[usize::from(found.is_none())] += 1;
        }
        found
    }

    fn insert(&self, key: &[u8], value: Vec<u8>) -> bool {
        if key.len() > MAX_KEY || self.index.contains_key(key) {
            return false;
        }
        self.fresh.lock().map(|mut f| f.insert(key.to_vec(), value)).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("arena-incr-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn entries_written_by_one_compile_are_found_by_the_next() {
        let d = dir("roundtrip");
        let s = DiskStore::open(&d, 1 << 20);
        assert!(s.get(b"k1").is_none());
        assert!(s.insert(b"k1", b"v1".to_vec()));
        assert_eq!(
            s.get(b"k1").as_deref(),
            Some(&b"v1"[..]),
            "found within the same compile"
        );
        s.save().unwrap();
        let s = DiskStore::open(&d, 1 << 20);
        assert_eq!(s.get(b"k1").as_deref(), Some(&b"v1"[..]));
        assert!(s.get(b"k2").is_none());
        assert_eq!(s.counts(), [1, 1]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_damaged_or_cut_entry_is_a_miss_and_the_rest_still_load() {
        let d = dir("damaged");
        let s = DiskStore::open(&d, 1 << 20);
        s.insert(b"a", vec![1; 100]);
        s.insert(b"b", vec![2; 100]);
        s.save().unwrap();
        let seg = segment_files(&d).pop().unwrap();
        let mut bytes = std::fs::read(&seg).unwrap();
        // Entries are sorted: "a" first. Flip a byte of its value.
        bytes[MAGIC.len() + 8 + 1 + 50] ^= 0xff;
        std::fs::write(&seg, &bytes).unwrap();
        let s = DiskStore::open(&d, 1 << 20);
        assert!(s.get(b"a").is_none(), "a value whose checksum fails is not used");
        assert_eq!(s.get(b"b").as_deref(), Some(&[2u8; 100][..]));
        // Cut inside "b": "a" is read, "b" is not.
        std::fs::write(&seg, &bytes[..bytes.len() - 10]).unwrap();
        let s = DiskStore::open(&d, 1 << 20);
        assert!(s.get(b"b").is_none());
        // A file that is not a segment is ignored.
        std::fs::write(d.join("x.seg"), b"not a segment").unwrap();
        std::fs::write(
            &seg,
            [&MAGIC[..], &u32::MAX.to_le_bytes(), &u32::MAX.to_le_bytes()].concat(),
        )
        .unwrap();
        let s = DiskStore::open(&d, 1 << 20);
        assert!(s.get(b"a").is_none() && s.get(b"b").is_none());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn many_segments_are_merged_into_one() {
        let d = dir("compact");
        for i in 0..=MAX_SEGMENTS as u8 {
            let s = DiskStore::open(&d, 1 << 20);
            s.insert(&[i], vec![i; 10]);
            s.save().unwrap();
        }
        assert_eq!(
            segment_files(&d).len(),
            1,
            "the compile that found {MAX_SEGMENTS} segments merged them"
        );
        let s = DiskStore::open(&d, 1 << 20);
        for i in 0..=MAX_SEGMENTS as u8 {
            assert_eq!(s.get(&[i]).as_deref(), Some(&vec![i; 10][..]));
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn the_oldest_segments_go_past_the_bound() {
        let d = dir("bound");
        for i in 0..4u8 {
            let s = DiskStore::open(&d, 2500);
            s.insert(&[i], vec![i; 1000]);
            s.save().unwrap();
        }
        let s = DiskStore::open(&d, 2500);
        assert_eq!(segment_files(&d).len(), 2, "two segments of about 1 KB fit 2.5 KB");
        assert!(s.get(&[0]).is_none() && s.get(&[1]).is_none());
        assert!(s.get(&[2]).is_some() && s.get(&[3]).is_some());
        let _ = std::fs::remove_dir_all(&d);
    }
}
