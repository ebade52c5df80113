//! What every benchmark needs: the workspace's paths, built bots, and the
//! process's resident memory.

// Each benchmark uses only some of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The workspace root: this crate lives in `host/arena/`.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("workspace root")
        .to_path_buf()
}

/// A built bot, e.g. `en-garde/aggressive` (built first if missing), or
/// `v0.1.0/NAME`, a committed build for world 0.1 that is never rebuilt.
pub fn wasm(name: &str) -> PathBuf {
    if let Some(old) = name.strip_prefix("v0.1.0/") {
        return root().join("tests/fixtures/v0.1.0").join(format!("{old}.wasm"));
    }
    let path = root().join("example-bots/wasm").join(format!("{name}.wasm"));
    if !path.exists() {
        let ok = std::process::Command::new("bash")
            .arg(root().join("example-bots/build.sh"))
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "building the example bots failed");
    }
    path
}

/// Resident memory of this process, in KiB (`VmRSS`; 0 where /proc is missing).
pub fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}
