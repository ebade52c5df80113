//! `arena cache stats|clear`: the compile cache on disk.

use super::common::CacheArgs;
use anyhow::{Context, bail};
use arena_sandbox::cache;
use clap::Subcommand;

/// What to do with the cache.
#[derive(Debug, Subcommand)]
pub enum CacheCommand {
    /// Print the cache folder, its entries and their total size.
    Stats {
        /// The cache.
        #[command(flatten)]
        cache: CacheArgs,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Delete the least recently used entries until the cache holds at most its bound.
    Prune {
        /// The cache (and its bound: --cache-max).
        #[command(flatten)]
        cache: CacheArgs,
    },
    /// Delete every entry: each bot compiles again on its next run.
    Clear {
        /// The cache.
        #[command(flatten)]
        cache: CacheArgs,
    },
}

/// Run a cache subcommand.
pub fn run(command: CacheCommand) -> anyhow::Result<()> {
    match command {
        CacheCommand::Stats { cache, json } => {
            let dir = folder(&cache)?;
            let stats =
                cache::stats(&dir).with_context(|| format!("cannot read the compile cache {}", dir.display()))?;
            if json {
                println!(
                    "{}",
                    serde_json::json!({ "dir": dir.display().to_string(), "entries": stats.entries, "bytes": stats.bytes, "max_bytes": cache.max_bytes()?, "store_bytes": stats.store_bytes })
                );
            } else {
                println!("dir: {}", dir.display());
                println!("entries: {}", stats.entries);
                println!(
                    "bytes: {} ({:.1} MiB)",
                    stats.bytes,
                    stats.bytes as f64 / f64::from(1 << 20)
                );
                let max = cache.max_bytes()?;
                println!(
                    "bound: {max} ({:.1} MiB; least recently used entries go first, --cache-max or ARENA_CACHE_MAX)",
                    max as f64 / f64::from(1 << 20)
                );
                println!(
                    "functions shared between bots: {} ({:.1} MiB; bound {} MiB, oldest go first)",
                    stats.store_bytes,
                    stats.store_bytes as f64 / f64::from(1 << 20),
                    arena_sandbox::compile::STORE_MAX_BYTES >> 20
                );
            }
        }
        CacheCommand::Prune { cache } => {
            let dir = folder(&cache)?;
            let max = cache.max_bytes()?;
            let (n, bytes) = cache::prune(&dir, max, None)
                .with_context(|| format!("cannot prune the compile cache {}", dir.display()))?;
            println!(
                "removed {n} entries ({:.1} MiB) from {}; it holds at most {:.1} MiB",
                bytes as f64 / f64::from(1 << 20),
                dir.display(),
                max as f64 / f64::from(1 << 20)
            );
        }
        CacheCommand::Clear { cache } => {
            let dir = folder(&cache)?;
            let n = cache::clear(&dir).with_context(|| format!("cannot clear the compile cache {}", dir.display()))?;
            println!("removed {n} entries from {}", dir.display());
        }
    }
    Ok(())
}

fn folder(cache: &CacheArgs) -> anyhow::Result<std::path::PathBuf> {
    if cache.no_cache {
        bail!("--no-cache names no cache to show or clear");
    }
    match cache.folder() {
        Some(dir) => Ok(dir),
        None => bail!("no cache folder: set --cache-dir, ARENA_CACHE_DIR, XDG_CACHE_HOME or HOME"),
    }
}
