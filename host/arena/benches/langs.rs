//! Bots in Python and JavaScript against their Rust and native twins.
//!
//! `cargo bench -p arena --bench langs` prints, for every game, the games
//! per second and fuel per game of each house bot's twins (native, Rust,
//! Python, JavaScript on SpiderMonkey and on QuickJS), all measured in one
//! run on one thread against the same opponents; and for one bot of each
//! language the cold compile and the cached load. The figures go in
//! `docs/performance.md`. Needs the toolchains of `example-bots/build-langs.sh`.

mod common;
use common::{root, wasm};

use arena::adapters;
use arena::runner::{BotRef, Entrant, GameSetup, MatchSpec, run_match};
use arena::sandbox::Sandbox;
use std::sync::Arc;
use std::time::Instant;

fn build_langs() {
    wasm("en-garde/aggressive");
    let ok = std::process::Command::new("bash")
        .arg(root().join("example-bots/build-langs.sh"))
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "building the Python and JavaScript examples failed");
}

fn sandbox(game: &str, cache: &std::path::Path) -> Sandbox {
    let limits = adapters::game(game).expect("game").about().limits.clone();
    adapters::sandbox(limits)
        .expect("sandbox")
        .with_disk_cache(cache.to_path_buf())
}

fn entrant(sandbox: &Sandbox, game: &str, spec: &str) -> Entrant {
    let def = adapters::game(game).expect("game");
    let bot = match spec.strip_prefix("house:") {
        Some(name) => BotRef::House(name.to_string()),
        None => BotRef::Wasm(Arc::new(sandbox.load(&wasm(spec), def.worlds()).expect("load"))),
    };
    Entrant {
        name: spec.to_string(),
        bot,
    }
}

/// Games per second on one thread, and the first bot's fuel per game.
fn measure(sandbox: &Sandbox, game: &str, bots: &[&str], games: usize) -> (f64, f64) {
    let spec = MatchSpec {
        game: adapters::game(game).expect("game"),
        setup: GameSetup::new(sandbox),
        entrants: bots.iter().map(|b| entrant(sandbox, game, b)).collect(),
        games,
        seed: 1,
        record: false,
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    let started = Instant::now();
    let out = pool.install(|| run_match(&spec)).expect("the match is set up right");
    let secs = started.elapsed().as_secs_f64();
    assert!(
        out.report.results.iter().all(|r| r.forfeit.is_none()),
        "no forfeits in a benchmark"
    );
    let fuel = out.report.bots[0].fuel.as_ref().map_or(0.0, |f| {
        f.mean_per_move * f.moves as f64 / f64::from(out.report.bots[0].games)
    });
    (games as f64 / secs, fuel)
}

fn main() {
    build_langs();
    let cache = std::env::temp_dir().join(format!("arena-bench-langs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);

    println!("\nCompile and load (one file each; the cache is new, then warm)");
    println!(
        "{:<26} {:>12} {:>14} {:>12}",
        "bot", "file", "cold compile", "cached load"
    );
    for bot in [
        "en-garde/aggressive",
        "en-garde/aggressive-py",
        "en-garde/aggressive-js",
        "en-garde/aggressive-qjs",
    ] {
        let def = adapters::game("en-garde").expect("game");
        let size = std::fs::metadata(wasm(bot)).map(|m| m.len()).unwrap_or(0);
        let started = Instant::now();
        sandbox("en-garde", &cache)
            .load(&wasm(bot), def.worlds())
            .expect("load");
        let cold = started.elapsed();
        let mut cached = Vec::new();
        for _ in 0..5 {
            let fresh = sandbox("en-garde", &cache);
            let started = Instant::now();
            fresh.load(&wasm(bot), def.worlds()).expect("load");
            cached.push(started.elapsed());
        }
        cached.sort();
        println!(
            "{bot:<26} {:>9.1} MB {:>12.2} s {:>9.1} ms",
            size as f64 / 1e6,
            cold.as_secs_f64(),
            cached[2].as_secs_f64() * 1e3
        );
    }

    println!("\nGames per second (one thread) and fuel per game, same opponents, same run");
    println!(
        "{:<28} {:>10} {:>9} {:>14} {:>10}",
        "game: twin", "games/s", "x native", "fuel/game", "x Rust"
    );
    let cases: &[(&str, &str, &[&str], usize)] = &[
        ("en-garde", "aggressive", &["house:random"], 200),
        ("connect-fwar", "basic", &[], 400),
        ("sugar", "greedy", &["house:hunter"], 20),
        (
            "president",
            "lowest",
            &["house:random", "house:lowest", "house:random"],
            24,
        ),
    ];
    for &(game, bot, opponents, games) in cases {
        let sandbox = sandbox(game, &cache);
        let run = |first: &str, n: usize| {
            let mut bots = vec![first];
            bots.extend_from_slice(opponents);
            measure(&sandbox, game, &bots, n)
        };
        let (native, _) = run(&format!("house:{bot}"), games * 4);
        let (_, rust_fuel) = run(&format!("{game}/{bot}"), games);
        for (label, spec, n) in [
            ("native", format!("house:{bot}"), games * 4),
            ("Rust", format!("{game}/{bot}"), games * 4),
            ("Python", format!("{game}/{bot}-py"), games),
            ("JS (SpiderMonkey)", format!("{game}/{bot}-js"), games),
            ("JS (QuickJS)", format!("{game}/{bot}-qjs"), games),
        ] {
            let (per_second, fuel) = if label == "native" {
                (native, 0.0)
            } else {
                run(&spec, n)
            };
            println!(
                "{:<28} {:>10.0} {:>8.1}x {:>14.0} {:>9.0}x",
                format!("{game}: {bot} {label}"),
                per_second,
                native / per_second,
                fuel,
                if rust_fuel > 0.0 { fuel / rust_fuel } else { 0.0 }
            );
        }
    }
    let _ = std::fs::remove_dir_all(&cache);
}
