//! The layers are crates, and the dependency graph keeps them apart: a
//! wrong-direction import does not compile because the crate is not a
//! dependency, and this test fails if someone adds it as one.
//!
//! Read from `cargo metadata`'s resolved graph, so transitive paths count too.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::sync::OnceLock;

/// The triple of this machine, so the graph is the one that builds here.
fn host_triple() -> String {
    let out = Command::new("rustc").arg("-vV").output().expect("run rustc -vV");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc names its host")
        .to_string()
}

/// Package name -> names of its normal (non-dev, non-build) dependencies, transitively.
fn closure() -> &'static BTreeMap<String, BTreeSet<String>> {
    static GRAPH: OnceLock<BTreeMap<String, BTreeSet<String>>> = OnceLock::new();
    GRAPH.get_or_init(read_graph)
}

fn read_graph() -> BTreeMap<String, BTreeSet<String>> {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--filter-platform", &host_triple()])
        .current_dir(arena_tests::root())
        .output()
        .expect("run cargo metadata");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let name_of: BTreeMap<&str, &str> = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| (p["id"].as_str().unwrap_or(""), p["name"].as_str().unwrap_or("")))
        .collect();
    let mut direct: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for node in meta["resolve"]["nodes"].as_array().expect("resolve nodes") {
        let name = name_of[node["id"].as_str().unwrap_or("")].to_string();
        let deps = node["deps"].as_array().expect("deps").iter().filter(|d| {
            d["dep_kinds"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k["kind"].is_null()))
        });
        let entry = direct.entry(name).or_default();
        for d in deps {
            entry.insert(name_of[d["pkg"].as_str().unwrap_or("")].to_string());
        }
    }
    let mut all = BTreeMap::new();
    for name in direct.keys() {
        let mut seen = BTreeSet::new();
        let mut todo = vec![name.clone()];
        while let Some(n) = todo.pop() {
            for d in direct.get(&n).into_iter().flatten() {
                if seen.insert(d.clone()) {
                    todo.push(d.clone());
                }
            }
        }
        all.insert(name.clone(), seen);
    }
    all
}

fn assert_never(graph: &BTreeMap<String, BTreeSet<String>>, layer: &str, forbidden: &[&str]) {
    let deps = graph.get(layer).unwrap_or_else(|| panic!("no crate {layer}"));
    for f in forbidden {
        assert!(!deps.contains(*f), "{layer} depends on {f}, against the layering");
    }
}

#[test]
fn the_vocabulary_depends_on_no_layer_and_no_runtime() {
    let g = closure();
    assert_never(
        g,
        "arena-core",
        &["arena-games", "arena-sandbox", "arena", "wasmtime", "wasmtime-wasi"],
    );
}

#[test]
fn the_games_are_pure_rules_without_wasmtime() {
    let g = closure();
    assert_never(
        g,
        "arena-games",
        &["arena-sandbox", "arena", "wasmtime", "wasmtime-wasi"],
    );
    assert!(
        g["arena-games"].contains("arena-core"),
        "games speak the common vocabulary"
    );
}

#[test]
fn the_sandbox_knows_no_game_and_no_vocabulary() {
    let g = closure();
    assert_never(g, "arena-sandbox", &["arena-core", "arena-games", "arena"]);
}

#[test]
fn the_bot_sdk_uses_the_rules_not_the_host() {
    let g = closure();
    assert_never(g, "arena-bot-sdk", &["arena-sandbox", "arena", "wasmtime"]);
}
