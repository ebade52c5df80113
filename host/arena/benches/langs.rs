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

/// Microseconds to make a fresh instance of `spec` (as a game seats it,
/// start fuel paid) and drop it: the median of five runs of 100.
fn instance_us(sandbox: &Sandbox, game: &str, spec: &str) -> f64 {
    let program = sandbox
        .load(&wasm(spec), adapters::game(game).expect("game").worlds())
        .expect("load");
    let mut runs: Vec<f64> = (0..5)
        .map(|_| {
            let started = std::time::Instant::now();
            for seed in 0..100 {
                drop(std::hint::black_box(
                    sandbox.instantiate(&program, seed, |_, _| Ok(())).expect("instantiate"),
                ));
            }
            started.elapsed().as_secs_f64() / 100.0 * 1e6
        })
        .collect();
    runs.sort_by(f64::total_cmp);
    runs[2]
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

/// Fuel per second of the typical arithmetic loop (`hostile/infinite-loop`,
/// which burns its whole move budget): a game at budget F and one at 2F
/// differ by F units of the loop alone, without instantiation or the game.
fn fuel_per_second() -> f64 {
    let def = adapters::game("en-garde").expect("game");
    let game = |fuel: u64| {
        let limits = arena::sandbox::Limits {
            fuel,
            bank: 0,
            start_fuel: fuel,
            timeout: std::time::Duration::from_secs(3600),
            ..def.about().limits.clone()
        };
        let sandbox = adapters::sandbox(limits).expect("sandbox");
        let program = sandbox
            .load(&wasm("hostile/infinite-loop"), def.worlds())
            .expect("load");
        let spec = MatchSpec {
            game: def,
            setup: GameSetup::new(&sandbox),
            entrants: vec![
                Entrant {
                    name: "loop".into(),
                    bot: BotRef::Wasm(Arc::new(program)),
                },
                Entrant {
                    name: "house:random".into(),
                    bot: BotRef::House("random".into()),
                },
            ],
            games: 1,
            seed: 1,
            record: false,
        };
        (0..3)
            .map(|_| {
                let started = Instant::now();
                arena::runner::play_unit(&spec, &[0]).expect("the game is set up right");
                started.elapsed().as_secs_f64()
            })
            .fold(f64::MAX, f64::min)
    };
    let fuel = 1_000_000_000;
    fuel as f64 / (game(2 * fuel) - game(fuel))
}

fn main() {
    build_langs();
    // `ARENA_LANGS_CACHE=DIR` keeps the compiled bots between runs (to
    // profile the games alone); by default each run starts with no cache.
    let kept = std::env::var_os("ARENA_LANGS_CACHE").map(std::path::PathBuf::from);
    let cache = kept
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join(format!("arena-bench-langs-{}", std::process::id())));
    if kept.is_none() {
        let _ = std::fs::remove_dir_all(&cache);
    }
    // `cargo bench --bench langs -- en-garde` plays only the games named.
    let only: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    compile_and_load(&cache, &only);
    games_per_second(&cache, &only);
    if kept.is_none() {
        let _ = std::fs::remove_dir_all(&cache);
    }
}

/// Prints the cold compile and the cached load of one bot of each language
/// (none when games are named on the command line).
fn compile_and_load(cache: &std::path::Path, only: &[String]) {
    println!("\nCompile and load (one file each; the cache is new, then warm)");
    println!(
        "{:<26} {:>12} {:>14} {:>12}",
        "bot", "file", "cold compile", "cached load"
    );
    let compiled: &[&str] = if only.is_empty() {
        &[
            "en-garde/aggressive",
            "en-garde/aggressive-py",
            "en-garde/aggressive-js",
            "en-garde/aggressive-qjs",
        ]
    } else {
        &[]
    };
    for bot in compiled {
        let def = adapters::game("en-garde").expect("game");
        let size = std::fs::metadata(wasm(bot)).map(|m| m.len()).unwrap_or(0);
        let started = Instant::now();
        sandbox("en-garde", cache).load(&wasm(bot), def.worlds()).expect("load");
        let cold = started.elapsed();
        let mut cached = Vec::new();
        for _ in 0..5 {
            let fresh = sandbox("en-garde", cache);
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
}

/// A game's row of twins: game, house bot, its opponents, games to play.
type Case<'a> = (&'a str, &'a str, &'a [&'a str], usize);

/// Prints the games per second and fuel per game of every game's twins.
fn games_per_second(cache: &std::path::Path, only: &[String]) {
    let rate = fuel_per_second();
    println!("\nGames per second (one thread) and fuel per game, same opponents, same run");
    println!(
        "(overhead: µs per game beyond its fuel at {:.1} billion fuel/s, the typical loop's rate;\n \
         instance: µs to make a fresh instance of the bot and drop it, which each game does once)",
        rate / 1e9
    );
    println!(
        "{:<34} {:>8} {:>9} {:>12} {:>8} {:>10} {:>9}",
        "game: twin", "games/s", "x native", "fuel/game", "x Rust", "overhead", "instance"
    );
    // `cargo bench --bench langs -- en-garde python` plays only the games
    // and the twins named (with the native and Rust twins the ratios need).
    const GAMES: &[&str] = &["en-garde", "connect-fwar", "sugar", "president"];
    let cases: &[Case] = &[
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
    let named = |names: &[&str]| only.iter().any(|o| names.iter().any(|n| n.eq_ignore_ascii_case(o)));
    for &case in cases {
        if named(GAMES) && !named(&[case.0]) {
            continue;
        }
        twin_rows(&sandbox(case.0, cache), case, rate, &named);
    }
}

/// Prints one game's rows: each twin of its house bot against the same
/// opponents, skipping the twins not `named` (native and Rust always play).
fn twin_rows(sandbox: &Sandbox, (game, bot, opponents, games): Case, rate: f64, named: &dyn Fn(&[&str]) -> bool) {
    const TWINS: &[&str] = &["Python", "JS"];
    let run = |first: &str, n: usize| {
        let mut bots = vec![first];
        bots.extend_from_slice(opponents);
        measure(sandbox, game, &bots, n)
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
        let first_word = label.split(' ').next().unwrap_or(label);
        if label != "native" && label != "Rust" && named(TWINS) && !named(&[first_word]) {
            continue;
        }
        let (per_second, fuel) = if label == "native" {
            (native, 0.0)
        } else {
            run(&spec, n)
        };
        // Time per game beyond what its fuel takes at the loop's rate:
        // instantiation, resetting memory, the calls and the game.
        let overhead = if label == "native" {
            0.0
        } else {
            (1.0 / per_second - fuel / rate) * 1e6
        };
        println!(
            "{:<34} {:>8.0} {:>8.1}x {:>12.0} {:>7.0}x {:>10.0} {:>9.0}",
            format!("{game}: {bot} {label}"),
            per_second,
            native / per_second,
            fuel,
            if rust_fuel > 0.0 { fuel / rust_fuel } else { 0.0 },
            overhead,
            if label == "native" {
                0.0
            } else {
                instance_us(sandbox, game, &spec)
            }
        );
    }
}
