//! The compile cache on disk: a second run does not compile again, a damaged
//! entry is compiled again and never trusted, a cache that cannot be written
//! costs one warning line, and `arena cache clear` empties it.

use arena_tests::{arena, bot_arg, temp};
use std::path::{Path, PathBuf};

/// `arena match` of one en-garde bot against a house bot, with the cache in `dir`, and `extra`.
fn play(dir: &Path, extra: &[&str]) -> std::process::Output {
    let bot = bot_arg("en-garde/aggressive");
    let d = dir.display().to_string();
    let args = [
        &[
            "match",
            "--game",
            "en-garde",
            &bot,
            "house:random",
            "--games",
            "4",
            "--json",
            "--cache-dir",
            &d,
        ][..],
        extra,
    ]
    .concat();
    arena(&args)
}

fn ok(out: &std::process::Output) -> String {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| r.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|x| x == "cwasm"));
    v
}

fn stats(dir: &Path) -> serde_json::Value {
    let d = dir.display().to_string();
    serde_json::from_str(&ok(&arena(&["cache", "stats", "--json", "--cache-dir", &d]))).unwrap()
}

/// A compile limit no child process can meet: 1 ms of CPU time, 1.5 ms of
/// wall clock, less than starting a process takes. A run under it can load
/// the bot only from the cache.
const NO_TIME_TO_COMPILE: [&str; 2] = ["--compile-seconds", "0.001"];

#[test]
fn a_second_run_loads_from_the_cache_without_compiling() {
    let dir = temp("second-run");
    // Without a cache the impossible limit does stop the compile.
    let out = play(
        &dir.join("unused"),
        &[&NO_TIME_TO_COMPILE[..], &["--no-cache"]].concat(),
    );
    assert!(!out.status.success(), "compiled within 1 ms?");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--compile-seconds"));

    let first = ok(&play(&dir, &[]));
    let files = entries(&dir);
    assert_eq!(files.len(), 1, "one entry after the first run");
    let written = std::fs::metadata(&files[0]).unwrap().modified().unwrap();
    assert_eq!(stats(&dir)["entries"], 1);

    let second = play(&dir, &NO_TIME_TO_COMPILE);
    assert_eq!(ok(&second), first, "same results from the cached compile");
    assert!(second.stderr.is_empty(), "{}", String::from_utf8_lossy(&second.stderr));
    assert_eq!(entries(&dir), files);
    assert_eq!(
        std::fs::metadata(&files[0]).unwrap().modified().unwrap(),
        written,
        "entry rewritten"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_corrupted_entry_is_compiled_again_with_the_same_results() {
    let dir = temp("corrupt");
    let first = ok(&play(&dir, &[]));
    let files = entries(&dir);
    assert_eq!(files.len(), 1);
    let good = std::fs::read(&files[0]).unwrap();
    for at in [good.len() / 2, 20, good.len() - 1] {
        let mut bad = good.clone();
        bad[at] ^= 0xff;
        std::fs::write(&files[0], &bad).unwrap();
        // Never trusted: with no time to compile, the damaged entry is refused.
        let refused = play(&dir, &NO_TIME_TO_COMPILE);
        assert!(!refused.status.success(), "a damaged entry (byte {at}) was used");
        // Compiled again, the same results, and a sound entry again.
        let again = play(&dir, &[]);
        assert_eq!(ok(&again), first);
        assert!(again.stderr.is_empty(), "{}", String::from_utf8_lossy(&again.stderr));
        assert_eq!(std::fs::read(&files[0]).unwrap(), good, "entry not rewritten");
    }
    // A truncated entry too.
    std::fs::write(&files[0], &good[..good.len() / 3]).unwrap();
    assert_eq!(ok(&play(&dir, &[])), first);
    assert_eq!(std::fs::read(&files[0]).unwrap(), good);
    std::fs::remove_dir_all(dir).ok();
}

/// One warning line on stderr, and the match plays as without a cache.
fn assert_warns_once_and_plays(cache: &Path, expected: &str) {
    let out = play(cache, &[]);
    let stdout = ok(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "one line, got:\n{stderr}");
    assert!(
        stderr.starts_with("warning: cannot use the compile cache") && stderr.contains("running without it"),
        "{stderr}"
    );
    assert_eq!(stdout, expected);
}

#[test]
fn a_cache_that_cannot_be_written_is_one_warning_and_the_match_plays() {
    let dir = temp("unwritable");
    let expected = ok(&arena(&[
        "match",
        "--game",
        "en-garde",
        &bot_arg("en-garde/aggressive"),
        "house:random",
        "--games",
        "4",
        "--json",
        "--no-cache",
    ]));
    // A folder that cannot be created: its parent is a file.
    std::fs::write(dir.join("file"), b"").unwrap();
    assert_warns_once_and_plays(&dir.join("file/cache"), &expected);

    // A read-only folder (root may write to it anyway: then there is nothing to test).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let ro = dir.join("read-only");
        std::fs::create_dir(&ro).unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o500)).unwrap();
        if std::fs::write(ro.join("probe"), b"").is_err() {
            assert_warns_once_and_plays(&ro, &expected);
            assert!(entries(&ro).is_empty());
        }
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o700)).unwrap();

        // A folder others may write to is not trusted, neither read nor written.
        let shared = dir.join("shared");
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert_warns_once_and_plays(&shared, &expected);
        assert!(entries(&shared).is_empty());
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn cache_clear_empties_it() {
    let dir = temp("clear");
    ok(&play(&dir, &[]));
    let s = stats(&dir);
    assert_eq!(s["entries"], 1);
    assert!(s["bytes"].as_u64().unwrap() > 0);
    assert_eq!(s["dir"], dir.display().to_string());
    let d = dir.display().to_string();
    let out = ok(&arena(&["cache", "clear", "--cache-dir", &d]));
    assert!(out.contains("removed 1 entries"), "{out}");
    assert_eq!(stats(&dir)["entries"], 0);
    assert!(entries(&dir).is_empty());
    // A cache that was never written has no entries, and clearing it is fine.
    let none = dir.join("never");
    assert_eq!(stats(&none)["entries"], 0);
    ok(&arena(&["cache", "clear", "--cache-dir", &none.display().to_string()]));
    // Text output names the folder.
    let text = ok(&arena(&["cache", "stats", "--cache-dir", &d]));
    assert!(
        text.contains(&format!("dir: {d}")) && text.contains("entries: 0"),
        "{text}"
    );
    std::fs::remove_dir_all(dir).ok();
}

/// A copy of `bot` made a different file (another SHA-256, so another cache
/// entry) by a custom section at its end, which changes nothing compiled.
fn variant(bot: &str, dir: &Path, tag: u8) -> String {
    let mut bytes = std::fs::read(arena_tests::bot(bot)).unwrap();
    // Custom section (id 0) of 3 bytes: a 1-byte name "t" and one byte.
    bytes.extend_from_slice(&[0, 3, 1, b't', tag]);
    let path = dir.join(format!("variant-{tag}.wasm"));
    std::fs::write(&path, bytes).unwrap();
    path.display().to_string()
}

#[test]
fn the_cache_keeps_to_its_bound_and_evicts_the_least_recently_used() {
    let dir = temp("bounded");
    let files = temp("bounded-files");
    let d = dir.display().to_string();
    let [a, b, c] = [1, 2, 3].map(|t| variant("en-garde/aggressive", &files, t));
    let run = |bot: &str, extra: &[&str]| {
        let args = [
            &[
                "match",
                "--game",
                "en-garde",
                bot,
                "house:random",
                "--games",
                "2",
                "--cache-dir",
                &d,
            ][..],
            extra,
        ]
        .concat();
        arena(&args)
    };
    ok(&run(&a, &[]));
    let one = stats(&dir)["bytes"].as_u64().unwrap();
    ok(&run(&b, &[]));
    assert_eq!(stats(&dir)["bytes"].as_u64().unwrap(), 2 * one, "copies compile alike");
    // a is used again (from the cache: there is no time to compile), so b is now the oldest.
    ok(&run(&a, &NO_TIME_TO_COMPILE));
    // Room for two and a half entries: storing c evicts exactly b.
    let cap = (2 * one + one / 2).to_string();
    ok(&run(&c, &["--cache-max", &cap]));
    assert_eq!(entries(&dir).len(), 2);
    assert_eq!(stats(&dir)["bytes"].as_u64().unwrap(), 2 * one);
    ok(&run(&a, &NO_TIME_TO_COMPILE));
    ok(&run(&c, &NO_TIME_TO_COMPILE));
    let evicted = run(&b, &NO_TIME_TO_COMPILE);
    assert!(
        !evicted.status.success(),
        "b was evicted: it had to compile, with no time to"
    );
    // `cache prune` applies a smaller bound now: the least recently used (a) goes.
    let d2 = d.clone();
    let out = ok(&arena(&[
        "cache",
        "prune",
        "--cache-dir",
        &d2,
        "--cache-max",
        &one.to_string(),
    ]));
    assert!(out.contains("removed 1 entries"), "{out}");
    ok(&run(&c, &NO_TIME_TO_COMPILE));
    assert!(!run(&a, &NO_TIME_TO_COMPILE).status.success());
    let shown = stats(&dir);
    assert_eq!(
        shown["max_bytes"].as_u64().unwrap(),
        4 << 30,
        "the default bound: {shown}"
    );
}

/// Cranelift's incremental store beside the cache (sandbox `incremental.rs`):
/// a second Python bot compiles with the functions the first one left
/// there (the CPython interpreter both carry), and plays exactly as it does
/// compiled on its own: the same results and the same fuel, move by move.
#[test]
fn a_second_python_bot_reuses_the_first_ones_functions_and_plays_the_same() {
    let shared = temp("incremental");
    let alone = temp("incremental-alone");
    let first = arena_tests::lang_bot("en-garde/aggressive-py").display().to_string();
    let second = arena_tests::lang_bot("en-garde/cowardly-py").display().to_string();
    let run = |dir: &Path, bot: &str| -> serde_json::Value {
        let d = dir.display().to_string();
        let out = ok(&arena(&[
            "match",
            "--game",
            "en-garde",
            bot,
            "house:random",
            "--games",
            "4",
            "--json",
            "--cache-dir",
            &d,
        ]));
        serde_json::from_str(&out).unwrap()
    };
    run(&shared, &first);
    let filled = stats(&shared)["store_bytes"].as_u64().unwrap();
    assert!(
        filled > 1 << 20,
        "the first Python bot filled the store: {filled} bytes"
    );
    let with_store = run(&shared, &second);
    let added = stats(&shared)["store_bytes"].as_u64().unwrap() - filled;
    assert!(
        added < filled / 4,
        "most of the second bot's functions were the first one's: it added {added} bytes to {filled}"
    );
    let on_its_own = run(&alone, &second);
    assert_eq!(
        with_store["bots"], on_its_own["bots"],
        "the same games, fuel and forfeits"
    );
    // `arena cache clear` empties the store too.
    ok(&arena(&[
        "cache",
        "clear",
        "--cache-dir",
        &shared.display().to_string(),
    ]));
    assert_eq!(stats(&shared)["store_bytes"].as_u64(), Some(0));
    std::fs::remove_dir_all(shared).ok();
    std::fs::remove_dir_all(alone).ok();
}

/// A library sandbox with a disk cache compiles in its own process (no
/// compiler child), and still keeps compiled functions in the incremental
/// store: a second bot finds there what the first left (the SDK and the
/// standard library both carry), and plays as it does compiled alone.
#[test]
fn a_library_sandbox_with_a_disk_cache_reuses_functions_too() {
    use arena::adapters;
    use arena::runner::{BotRef, Entrant, GameSetup, MatchSpec, run_match};
    let shared = temp("library-store");
    let alone = temp("library-store-alone");
    let def = adapters::game("en-garde").expect("en-garde");
    let sandbox = |dir: &Path| {
        adapters::sandbox(def.about().limits.clone())
            .expect("sandbox")
            .with_disk_cache(dir.to_path_buf())
    };
    let play = |dir: &Path, bot: &str| {
        let sandbox = sandbox(dir);
        let program = sandbox
            .load(&arena_tests::bot(bot), def.worlds())
            .expect("an example bot loads");
        let spec = MatchSpec {
            game: def,
            setup: GameSetup::new(&sandbox),
            entrants: vec![
                Entrant {
                    name: bot.into(),
                    bot: BotRef::Wasm(std::sync::Arc::new(program)),
                },
                Entrant {
                    name: "house:random".into(),
                    bot: BotRef::House("random".into()),
                },
            ],
            games: 4,
            seed: 7,
            record: false,
        };
        run_match(&spec).expect("the match is set up right").report.results
    };
    play(&shared, "en-garde/aggressive");
    let filled = stats(&shared)["store_bytes"].as_u64().unwrap();
    assert!(filled > 0, "the first bot's functions are in the store");
    let with_store = play(&shared, "en-garde/cowardly");
    let added = stats(&shared)["store_bytes"].as_u64().unwrap() - filled;
    assert!(
        added < filled,
        "the second bot shares functions with the first: it added {added} bytes to {filled}"
    );
    assert_eq!(with_store, play(&alone, "en-garde/cowardly"), "the same games");
}
