//! Helpers for the integration tests: build the example bots and the
//! `arena` binary once, and run matches through the library.

pub mod bulk;
pub mod load;
pub mod loops;
pub mod semester;

use arena::adapters;
use arena::games::IllegalMoves;
use arena::runner::{BotRef, Entrant, GameSetup, MatchOutcome, MatchSpec, run_match};
use arena::sandbox::{Limits, Sandbox};
use std::ffi::OsStr;
use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, OnceLock};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// Build every example bot (once per test process) and return the folder of built components.
pub fn wasm_dir() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let status = Command::new("bash")
                .arg(root().join("example-bots/build.sh"))
                .status()
                .expect("run example-bots/build.sh");
            assert!(status.success(), "building the example bots failed");
            root().join("example-bots/wasm")
        })
        .clone()
}

/// The path of a built example bot, e.g. `bot("en-garde/aggressive")`.
pub fn bot(name: &str) -> PathBuf {
    wasm_dir().join(format!("{name}.wasm"))
}

/// Build the `arena` binary (once per test process) and return its path.
///
/// It is built with the profile, target and target folder of the test that
/// asks, so `cargo test` runs a fresh debug binary and `cargo test
/// --release` a fresh release one, never a missing or stale binary of the
/// other profile. (`CARGO_BIN_EXE_arena` is only set for tests of the
/// package that has the binary, and these tests are a package of their own.)
pub fn arena_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let exe = std::env::current_exe().expect("test executable path");
        let build = BinBuild::matching(&exe, |dir| dir.join("CACHEDIR.TAG").is_file());
        let status = Command::new(env!("CARGO"))
            .args(&build.args)
            .current_dir(root())
            .status()
            .expect("run cargo build");
        assert!(
            status.success(),
            "building arena failed: cargo {}",
            build.args.join(" ")
        );
        build.path
    })
    .clone()
}

/// How to build the `arena` binary to match a test executable, and where it lands.
#[derive(Debug, PartialEq, Eq)]
pub struct BinBuild {
    /// The arguments to `cargo`.
    pub args: Vec<String>,
    /// The binary cargo builds.
    pub path: PathBuf,
}

impl BinBuild {
    /// The build matching the test executable `test_exe`, which cargo puts in
    /// `<target-dir>/[<triple>/]<profile-folder>/deps/`. `is_target_dir`
    /// tells the target folder itself (cargo marks it with `CACHEDIR.TAG`)
    /// from a `<triple>` folder under it, which `--target` adds.
    pub fn matching(test_exe: &Path, is_target_dir: impl Fn(&Path) -> bool) -> BinBuild {
        let profile_dir = test_exe
            .parent()
            .and_then(Path::parent)
            .expect("a test executable lives in <target>/<profile>/deps/");
        let folder = profile_dir
            .file_name()
            .and_then(|f| f.to_str())
            .expect("a profile folder named in UTF-8");
        // Cargo builds the `dev` and `test` profiles into `debug`, `release`
        // and `bench` into `release`, and a custom profile into its own name.
        let profile = if folder == "debug" { "dev" } else { folder };
        let above = profile_dir.parent().expect("the target folder");
        let (target_dir, triple) = match above.parent() {
            Some(parent) if !is_target_dir(above) && is_target_dir(parent) => {
                (parent, above.file_name().and_then(|f| f.to_str()))
            }
            _ => (above, None),
        };
        // `--workspace`: features resolved over every member, as `cargo run`
        // and `cargo test --workspace` do, so wasmtime is built once for all
        // (`-p arena` alone resolves other features and builds it again).
        let mut args: Vec<String> = [
            "build",
            "--quiet",
            "--workspace",
            "--bin",
            "arena",
            "--profile",
            profile,
        ]
        .map(String::from)
        .to_vec();
        args.extend(["--target-dir".to_string(), target_dir.display().to_string()]);
        if let Some(triple) = triple {
            args.extend(["--target".to_string(), triple.to_string()]);
        }
        BinBuild {
            args,
            path: profile_dir.join(format!("arena{}", std::env::consts::EXE_SUFFIX)),
        }
    }
}

/// Run the `arena` binary with `args` in the workspace root. The commands
/// that play bots (`match`, `grade`, `check`, `compare`, `tournament`)
/// keep compiled bots in the tests' own cache, [`bot_cache`], never the
/// user's; every other command runs without a cache. A test of a compile
/// itself passes `--no-cache` (or its own `--cache-dir`), which wins.
pub fn arena(args: &[impl AsRef<OsStr>]) -> Output {
    let mut command = Command::new(arena_bin());
    command.args(args).current_dir(root());
    let plays = args
        .first()
        .and_then(|a| a.as_ref().to_str())
        .is_some_and(|a| ["match", "grade", "check", "compare", "tournament"].contains(&a));
    if plays {
        command.env("ARENA_CACHE_DIR", bot_cache()).env_remove("ARENA_NO_CACHE");
    } else {
        command.env("ARENA_NO_CACHE", "1");
    }
    command.output().expect("run arena")
}

/// The compile cache the tests share, `<target>/tmp/bot-cache`: a Python or
/// JavaScript bot (its interpreter takes half a minute of CPU to compile)
/// is compiled once for all the tests that play it, and a later bot of the
/// same language finds the interpreter's functions in its incremental
/// store. A clean checkout starts it empty.
pub fn bot_cache() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("test executable path");
        // Cargo marks the target folder with `CACHEDIR.TAG`.
        let target = exe
            .ancestors()
            .find(|d| d.join("CACHEDIR.TAG").is_file())
            .map_or_else(|| root().join("target"), Path::to_path_buf);
        target.join("tmp/bot-cache")
    })
    .clone()
}

/// Run the `arena` binary, which must succeed, and read what it prints as JSON.
pub fn arena_json(args: &[impl AsRef<OsStr> + Debug]) -> serde_json::Value {
    let out = arena(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// `arena compare --game GAME`, then `rest`, read as JSON.
pub fn compare_json(game: &str, rest: &[&str]) -> serde_json::Value {
    arena_json(&[&["compare", "--game", game, "--json"][..], rest].concat())
}

/// Bad input: exactly one line on stderr containing `expect`, a non-zero exit, no panic.
pub fn assert_one_line_error(args: &[impl AsRef<OsStr> + Debug], expect: &str) {
    let out = arena(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} should fail");
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "{args:?}: one line, got:\n{stderr}"
    );
    assert!(stderr.contains(expect), "{args:?}: expected `{expect}` in: {stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("backtrace"),
        "{stderr}"
    );
}

/// A built example bot as a command-line argument, e.g. `bot_arg("en-garde/aggressive")`.
pub fn bot_arg(name: &str) -> String {
    bot(name).display().to_string()
}

/// A fresh, empty folder for one test: `name` must be unique within the
/// test process.
///
/// It lives under one folder per test process (`arena-tests-PID` in the
/// system's temporary folder) and is removed when the test that asked for it
/// passes; a failed test's folders stay for a look and are named when it
/// fails. A full run made about 290 folders and 3.4 GB: kept, a few runs
/// filled the disk under the next build.
///
/// Two tests (threads) asking for one name would share a folder, and one
/// would remove it under the other: that panics.
pub fn temp(name: &str) -> PathBuf {
    static ASKED: std::sync::Mutex<Vec<(String, std::thread::ThreadId)>> = std::sync::Mutex::new(Vec::new());
    let me = std::thread::current().id();
    let dir = run_folder().join(name);
    let mut asked = ASKED.lock().unwrap_or_else(|e| e.into_inner());
    match asked.iter().find(|(n, _)| n == name) {
        Some((_, other)) if *other != me => {
            panic!("two tests use the folder {name:?} (threads {other:?} and {me:?}): give each its own name")
        }
        Some(_) => {}
        None => asked.push((name.to_string(), me)),
    }
    drop(asked);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a temporary folder");
    FOLDERS.with(|folders| folders.borrow_mut().dirs.push(dir.clone()));
    dir
}

/// This process's folder of test folders, made once; the folders of test
/// processes that have ended (failed tests' folders, a killed run) are
/// removed first, so at most one ended run's folders are ever kept.
fn run_folder() -> &'static Path {
    static RUN: OnceLock<PathBuf> = OnceLock::new();
    RUN.get_or_init(|| {
        let tmp = std::env::temp_dir();
        let ended = |name: &str| {
            name.strip_prefix("arena-tests-")
                .and_then(|pid| pid.parse::<u32>().ok())
                .is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists())
        };
        for entry in std::fs::read_dir(&tmp).into_iter().flatten().flatten() {
            if ended(&entry.file_name().to_string_lossy()) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            previous(info);
            let _ = FOLDERS.try_with(|folders| {
                let mut folders = folders.borrow_mut();
                if !folders.failed && !folders.dirs.is_empty() {
                    eprintln!("this test's folders are kept: {:?}", folders.dirs);
                }
                folders.failed = true;
            });
        }));
        tmp.join(format!("arena-tests-{}", std::process::id()))
    })
}

/// The folders one test thread asked for, removed when the thread ends
/// unless it panicked. (Servers and databases a test starts are stopped by
/// their own guards, dropped before the thread ends.)
#[derive(Default)]
struct Folders {
    dirs: Vec<PathBuf>,
    failed: bool,
}

impl Drop for Folders {
    fn drop(&mut self) {
        if !self.failed {
            for dir in &self.dirs {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }
}

thread_local! {
    static FOLDERS: std::cell::RefCell<Folders> = std::cell::RefCell::default();
}

/// A committed bot built against an old world version, e.g. `fixture("0.1.0", "en-garde-aggressive")`.
/// These files are never rebuilt: they prove that bots compiled in an
/// earlier week keep loading and playing the same games.
pub fn fixture(version: &str, name: &str) -> PathBuf {
    root().join(format!("tests/fixtures/v{version}/{name}.wasm"))
}

/// A bot argument as the command line takes it: `house:NAME` or a path to a built example.
pub fn entrant(sandbox: &Sandbox, spec: &str) -> Entrant {
    entrant_for("en-garde", sandbox, spec)
}

/// A bot for `game`: `house:NAME`, a built example such as `connect-fwar/basic`,
/// or a committed old build such as `v0.1.0/en-garde-aggressive`.
pub fn entrant_for(game: &str, sandbox: &Sandbox, spec: &str) -> Entrant {
    let game = adapters::game(game).expect("a known game");
    if let Some(name) = spec.strip_prefix("house:") {
        return Entrant {
            name: spec.to_string(),
            bot: BotRef::House(name.to_string()),
        };
    }
    let path = match spec.strip_prefix('v').and_then(|s| s.split_once('/')) {
        Some((version, name)) => fixture(version, name),
        None if spec.ends_with(".wasm") => PathBuf::from(spec),
        None => bot(spec),
    };
    let program = sandbox.load(&path, game.worlds()).unwrap_or_else(|e| panic!("{e}"));
    Entrant {
        name: spec.to_string(),
        bot: BotRef::Wasm(Arc::new(program)),
    }
}

/// Play an En Garde match through the library.
pub fn en_garde_match(
    limits: Limits,
    variant: &str,
    bots: [&str; 2],
    games: usize,
    seed: u64,
    record: bool,
) -> MatchOutcome {
    play("en-garde", limits, Some(variant), &bots, games, seed, record)
}

/// Play a match of `game` through the library.
pub fn play(
    game: &str,
    limits: Limits,
    variant: Option<&str>,
    bots: &[&str],
    games: usize,
    seed: u64,
    record: bool,
) -> MatchOutcome {
    play_under(game, limits, variant, IllegalMoves::Course, bots, games, seed, record)
}

/// Play a match of `game` through the library, with `illegal` the rule for illegal moves.
#[allow(clippy::too_many_arguments)]
pub fn play_under(
    game: &str,
    limits: Limits,
    variant: Option<&str>,
    illegal: IllegalMoves,
    bots: &[&str],
    games: usize,
    seed: u64,
    record: bool,
) -> MatchOutcome {
    let sandbox = arena::adapters::sandbox(limits).expect("sandbox");
    let entrants = bots.iter().map(|b| entrant_for(game, &sandbox, b)).collect();
    let spec = MatchSpec {
        game: adapters::game(game).expect("a known game"),
        setup: GameSetup {
            variant: variant.map(str::to_string),
            illegal,
            ..GameSetup::new(&sandbox)
        },
        entrants,
        games,
        seed,
        record,
    };
    try_run(spec).expect("the match is set up right")
}

/// An En Garde match as [`en_garde_match`], or the run's own error (a
/// machine too loaded to give the bots their share of a CPU).
pub fn try_en_garde_match(
    limits: Limits,
    variant: &str,
    bots: [&str; 2],
    games: usize,
    seed: u64,
) -> Result<MatchOutcome, String> {
    let sandbox = arena::adapters::sandbox(limits).expect("sandbox");
    let entrants = bots.iter().map(|b| entrant_for("en-garde", &sandbox, b)).collect();
    try_run(MatchSpec {
        game: adapters::game("en-garde").expect("a known game"),
        setup: GameSetup {
            variant: Some(variant.to_string()),
            ..GameSetup::new(&sandbox)
        },
        entrants,
        games,
        seed,
        record: true,
    })
}

fn try_run(spec: MatchSpec<'_>) -> Result<MatchOutcome, String> {
    run_match(&spec).map_err(|e| format!("{e:?}"))
}

/// Every `href="..."` of an HTML page that is not an anchor within it, unescaped.
pub fn html_links(html: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .filter(|h| !h.starts_with('#'))
        .map(|h| h.replace("&amp;", "&"))
        .collect()
}

/// Text as an HTML page escapes it (`&`, `<`, `>`, `"`, `'`).
pub fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The index a replay page embeds (`<script type="application/json" id="replay-index">`):
/// per game its names, winner and forfeit, and the page's note.
pub fn replay_index(page: &Path) -> serde_json::Value {
    let html = std::fs::read_to_string(page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
    let start = html
        .find("id=\"replay-index\">")
        .unwrap_or_else(|| panic!("{}: no replay index", page.display()))
        + "id=\"replay-index\">".len();
    let end = start + html[start..].find("</script>").expect("the index ends");
    serde_json::from_str(&html[start..end]).expect("the index is JSON")
}

/// Build the Python and JavaScript examples (once per test process).
pub fn lang_bot(name: &str) -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| {
        wasm_dir();
        let status = Command::new("bash")
            .arg(root().join("example-bots/build-langs.sh"))
            .status()
            .expect("run example-bots/build-langs.sh");
        assert!(status.success(), "building the Python and JavaScript examples failed");
    });
    wasm_dir().join(format!("{name}.wasm"))
}

/// Threads that keep every core busy while they live, so that a result
/// that depends on the wall clock would come out differently.
pub struct Load {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Load {
    /// A busy thread per core until dropped.
    pub fn on_all_cores() -> Load {
        use std::sync::atomic::Ordering;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let threads = (0..cores)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 1u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                    }
                })
            })
            .collect();
        Load { stop, threads }
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// A form value percent-encoded as a browser sends it (RFC 3986's unreserved
/// characters kept), for requests the tests build by hand.
pub fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(exe: &str, target_dirs: &[&str]) -> BinBuild {
        BinBuild::matching(Path::new(exe), |d| target_dirs.iter().any(|t| Path::new(t) == d))
    }

    fn flag<'a>(b: &'a BinBuild, name: &str) -> Option<&'a str> {
        let at = b.args.iter().position(|a| a == name)?;
        b.args.get(at + 1).map(String::as_str)
    }

    #[test]
    fn cargo_test_builds_the_dev_binary_next_to_the_tests() {
        let b = build("/w/target/debug/deps/cli-0123", &["/w/target"]);
        assert_eq!(flag(&b, "--profile"), Some("dev"));
        assert_eq!(flag(&b, "--target-dir"), Some("/w/target"));
        assert_eq!(flag(&b, "--target"), None);
        assert_eq!(
            b.path,
            Path::new("/w/target/debug").join(format!("arena{}", std::env::consts::EXE_SUFFIX))
        );
    }

    #[test]
    fn cargo_test_release_builds_the_release_binary_it_runs() {
        let b = build("/w/target/release/deps/cli-0123", &["/w/target"]);
        assert_eq!(flag(&b, "--profile"), Some("release"));
        assert_eq!(b.path.parent(), Some(Path::new("/w/target/release")));
    }

    #[test]
    fn a_custom_profile_target_dir_and_target_are_kept() {
        let b = build("/elsewhere/x86_64-unknown-linux-gnu/ci/deps/cli-0123", &["/elsewhere"]);
        assert_eq!(flag(&b, "--profile"), Some("ci"));
        assert_eq!(flag(&b, "--target-dir"), Some("/elsewhere"));
        assert_eq!(flag(&b, "--target"), Some("x86_64-unknown-linux-gnu"));
        assert_eq!(
            b.path.parent(),
            Some(Path::new("/elsewhere/x86_64-unknown-linux-gnu/ci"))
        );
    }

    #[test]
    fn the_binary_is_built_for_the_profile_this_test_runs_in() {
        let exe = std::env::current_exe().unwrap();
        let bin = arena_bin();
        assert_eq!(bin.parent(), exe.parent().and_then(Path::parent), "same profile folder");
        assert!(bin.is_file(), "{} was built", bin.display());
    }
}
