//! The layers are crates, and the dependency graph keeps them apart: a
//! wrong-direction import does not compile because the crate is not a
//! dependency, and this test fails if someone adds it as one.
//!
//! Read from `cargo metadata`'s resolved graph, so transitive paths count too.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::sync::OnceLock;

mod file_loops;

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

/// Every crate above the sandbox, with the crates it must never reach: the
/// runner plays matches without knowing who uses them; tournaments and
/// grading are siblings; reports render both; the batch runs compose them; the
/// terminal and scaffolding stand beside; only `arena` (the command) sees all.
const ABOVE: &[(&str, &[&str])] = &[
    (
        "arena-runner",
        &[
            "arena-competition",
            "arena-grading",
            "arena-report",
            "arena-terminal",
            "arena-batch",
            "arena-scaffold",
            "arena-server",
            "arena",
        ],
    ),
    (
        "arena-competition",
        &[
            "arena-grading",
            "arena-report",
            "arena-terminal",
            "arena-batch",
            "arena-scaffold",
            "arena-server",
            "arena",
        ],
    ),
    (
        "arena-grading",
        &[
            "arena-competition",
            "arena-report",
            "arena-terminal",
            "arena-batch",
            "arena-scaffold",
            "arena-server",
            "arena",
        ],
    ),
    (
        "arena-report",
        &[
            "arena-terminal",
            "arena-batch",
            "arena-scaffold",
            "arena-server",
            "arena",
        ],
    ),
    (
        "arena-terminal",
        &[
            "arena-competition",
            "arena-grading",
            "arena-report",
            "arena-batch",
            "arena-scaffold",
            "arena-server",
            "arena",
        ],
    ),
    (
        "arena-batch",
        &["arena-terminal", "arena-scaffold", "arena-server", "arena"],
    ),
    // The course server grades, checks and renders through the libraries, never the command.
    ("arena-server", &["arena-terminal", "arena-scaffold", "arena"]),
    (
        "arena-scaffold",
        &[
            "arena-competition",
            "arena-grading",
            "arena-report",
            "arena-terminal",
            "arena-batch",
            "arena-server",
            "arena",
        ],
    ),
];

#[test]
fn the_library_crates_depend_only_downwards() {
    let g = closure();
    for (layer, forbidden) in ABOVE {
        assert_never(g, layer, forbidden);
        assert!(g[*layer].contains("arena-core"), "{layer} speaks the common vocabulary");
    }
    // Progress bars and argument parsing are the command's; the HTML viewer's
    // packing (base64) is the report's. flate2 is below them all now: the
    // runner writes and reads compressed replays (`--replay FILE.gz`).
    let above: [(&str, &[&str]); 2] = [
        ("arena-runner", &["indicatif", "clap", "base64"]),
        ("arena-competition", &["base64"]),
    ];
    for (layer, forbidden) in above {
        assert_never(g, layer, forbidden);
    }
}

/// A host crate added to the workspace and not to [`ABOVE`] would have no
/// direction checked: every `host/` member of the workspace is in the test.
#[test]
fn every_host_crate_is_in_the_graph_test() {
    let manifest = std::fs::read_to_string(arena_tests::root().join("Cargo.toml")).expect("workspace manifest");
    let members: Vec<String> = manifest
        .lines()
        .filter_map(|l| l.trim().strip_prefix("\"host/"))
        .map(|l| l.trim_end_matches(['"', ',']).to_string())
        .collect();
    assert!(members.len() >= 10, "{members:?}");
    let tested: BTreeSet<&str> = ABOVE
        .iter()
        .map(|(c, _)| *c)
        .chain(["arena-core", "arena-games", "arena-sandbox", "arena"])
        .collect();
    for m in members {
        let name = if m == "arena" {
            "arena".to_string()
        } else {
            format!("arena-{m}")
        };
        assert!(
            tested.contains(name.as_str()),
            "{name} is a host crate the graph test does not check"
        );
    }
}

/// No two source files of a host crate import each other in a loop (issue
/// 46): each crate's files form a graph of who names whose items
/// (`file_loops`), and every strongly connected component of two files or
/// more fails, naming its files and its edges. The loops there were when the
/// test was written are gone: most were a `mod.rs` or `lib.rs` that called
/// into its children while they used its items (now a facade, the items in
/// a file of their own), and each game's rules and events naming each
/// other's types (the order of play, which records the events, is in
/// `play.rs`).
#[test]
fn no_two_files_of_a_host_crate_import_each_other_in_a_loop() {
    let host = arena_tests::root().join("host");
    let mut crates: Vec<String> = std::fs::read_dir(&host)
        .expect("host/")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("Cargo.toml").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    crates.sort();
    assert!(crates.len() >= 10, "{crates:?}");
    let mut failures = Vec::new();
    for name in &crates {
        let dir = host.join(name);
        for found in file_loops::loops(&dir) {
            let edges = file_loops::edges_within(&dir, &found);
            failures.push(format!(
                "host/{name}: {} import each other in a loop:\n    {}",
                found.join(", "),
                edges.join("\n    ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The file graph reads real code: the two loops issue 46 named in the
/// CLI are gone, and a loop written into a scratch crate is found.
#[test]
fn the_file_loop_test_finds_a_loop() {
    let dir = std::env::temp_dir().join(format!("arena-file-loops-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("web")).expect("scratch crate");
    let write = |p: &str, s: &str| std::fs::write(src.join(p), s).expect("write");
    write("lib.rs", "//! scratch\nmod web;\nmod pages;\npub use web::State;\n");
    write("web/mod.rs", "mod routes;\npub struct State;\n");
    // routes.rs -> pages.rs -> web/mod.rs -> routes.rs
    write(
        "web/routes.rs",
        "use crate::pages::page; // \"super::x\" in a string is no path\n",
    );
    write("pages.rs", "pub fn page(_: &crate::web::State) {}\n");
    write(
        "web/mod.rs",
        "mod routes;\npub struct State;\nfn r() { routes::go() }\n",
    );
    let found = file_loops::loops(&dir);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(
        found,
        vec![vec![
            "src/pages.rs".to_string(),
            "src/web/mod.rs".into(),
            "src/web/routes.rs".into()
        ]]
    );
    // A facade's re-export is no loop: lib.rs -> web/mod.rs only through `pub use`.
}
