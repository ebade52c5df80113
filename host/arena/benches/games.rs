//! Throughput of wasm bots against their native twins, for every game.
//!
//! `cargo bench -p arena --bench games` first prints a summary table
//! (games per second of each wasm bot and of its house twin, measured in
//! the same run on one thread, and their ratio; instantiation cost; memory
//! per instance), then runs the criterion benchmarks. The figures go in
//! `docs/performance.md`.

mod common;
use common::{rss_kib, wasm};

use arena::adapters;
use arena::adapters::en_garde::{EnGarde, WasmFencer};
use arena::runner::{BotRef, Entrant, GameSetup, MatchSpec, run_match};
use arena::runner::{GameDef, Seating};
use arena::sandbox::{BotProgram, Limits, Sandbox};
use criterion::{Criterion, criterion_group};
use std::sync::Arc;
use std::time::{Duration, Instant};

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

/// Seconds to play `games` games of `game` between `bots`, on one thread.
fn time_match(sandbox: &Sandbox, game: &str, bots: &[&str], games: usize) -> f64 {
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
    secs
}

/// The median of three timings.
fn median3(mut f: impl FnMut() -> f64) -> f64 {
    let mut t = [f(), f(), f()];
    t.sort_by(f64::total_cmp);
    t[1]
}

fn load(sandbox: &Sandbox, name: &str) -> BotProgram {
    sandbox
        .load(&wasm(name), adapters::en_garde::EnGarde.worlds())
        .expect("load")
}

/// One row of the summary: a wasm bot (with fixed opponents) against its house twin.
struct Row {
    game: &'static str,
    label: &'static str,
    bot: &'static str,
    others: &'static [&'static str],
    games: usize,
}

/// The summary's rows, in the order printed.
const ROWS: &[Row] = &[
    Row {
        game: "en-garde",
        label: "aggressive vs house:random",
        bot: "en-garde/aggressive",
        others: &["house:random"],
        games: 1000,
    },
    Row {
        game: "connect-fwar",
        label: "random (10,000 games)",
        bot: "connect-fwar/random",
        others: &[],
        games: 10_000,
    },
    Row {
        game: "connect-fwar",
        label: "basic (10,000 games)",
        bot: "connect-fwar/basic",
        others: &[],
        games: 10_000,
    },
    Row {
        game: "connect-fwar",
        label: "suits (10,000 games)",
        bot: "connect-fwar/suits",
        others: &[],
        games: 10_000,
    },
    Row {
        game: "connect-fwar",
        label: "ranks (10,000 games)",
        bot: "connect-fwar/ranks",
        others: &[],
        games: 10_000,
    },
    Row {
        game: "sugar",
        label: "greedy vs house:random",
        bot: "sugar/greedy",
        others: &["house:random"],
        games: 200,
    },
    Row {
        game: "sugar",
        label: "hunter vs house:random",
        bot: "sugar/hunter",
        others: &["house:random"],
        games: 200,
    },
];

/// Prints the summary: each wasm bot against its house twin, the world
/// versions, the fuel rate, and the cost of an instance in time and memory.
fn summary() {
    let sandbox = arena::adapters::sandbox(Limits::default()).expect("sandbox");
    println!("\n== wasm bots against their native twins (one thread, median of 3) ==");
    println!("{:<46} {:>10} {:>10} {:>8}", "match", "wasm g/s", "native g/s", "ratio");
    for row in ROWS {
        twin_row(&sandbox, row);
    }
    president_tables(&sandbox);

    world_versions(&sandbox);
    fuel_per_second();
    instances(&sandbox);
    println!();
}

/// Prints one row of the summary: the wasm bot and its house twin, each against the row's opponents.
fn twin_row(sandbox: &Sandbox, row: &Row) {
    let house = format!("house:{}", row.bot.rsplit('/').next().unwrap_or(row.bot));
    let lineup = |me: &str| -> Vec<String> {
        std::iter::once(me.to_string())
            .chain(row.others.iter().map(|s| s.to_string()))
            .collect()
    };
    let (w, h) = (lineup(row.bot), lineup(&house));
    let wv: Vec<&str> = w.iter().map(String::as_str).collect();
    let hv: Vec<&str> = h.iter().map(String::as_str).collect();
    let tw = median3(|| time_match(sandbox, row.game, &wv, row.games));
    let th = median3(|| time_match(sandbox, row.game, &hv, row.games));
    let games = row.games as f64;
    println!(
        "{:<46} {:>10.0} {:>10.0} {:>7.2}x",
        format!("{}: {}", row.game, row.label),
        games / tw,
        games / th,
        tw / th
    );
}

/// Prints the summary's President row: a table of wasm bots against the same table of house twins.
fn president_tables(sandbox: &Sandbox) {
    let wasm_table = [
        "president/lowest",
        "president/random",
        "president/lowest",
        "president/random",
    ];
    let house_table = ["house:lowest", "house:random", "house:lowest", "house:random"];
    let tw = median3(|| time_match(sandbox, "president", &wasm_table, 400));
    let th = median3(|| time_match(sandbox, "president", &house_table, 400));
    println!(
        "{:<46} {:>10.0} {:>10.0} {:>7.2}x",
        "president: 4 wasm bots vs 4 house twins",
        400.0 / tw,
        400.0 / th,
        tw / th
    );
}

/// Prints the time to make a fresh instance (one per game) and the memory a live one holds.
fn instances(sandbox: &Sandbox) {
    // Instantiation: a fresh instance per game.
    let program = load(sandbox, "en-garde/aggressive");
    let n = 2000;
    let started = Instant::now();
    for i in 0..n {
        drop(fencer(sandbox, &program, i).expect("instance"));
    }
    let per = started.elapsed() / n as u32;
    println!(
        "\ninstantiation (en-garde/aggressive): {:.1} us per instance",
        per.as_secs_f64() * 1e6
    );

    // Memory: resident memory added by holding many live instances at once.
    let before = rss_kib();
    let held: Vec<WasmFencer> = (0..500)
        .map(|i| fencer(sandbox, &program, i).expect("instance"))
        .collect();
    let after = rss_kib();
    println!(
        "memory: {:.0} KiB resident per live instance (500 held; the cap per bot is {} MiB)",
        after.saturating_sub(before) as f64 / held.len() as f64,
        Limits::default().memory_bytes >> 20
    );
    drop(held);
}

/// The same bots built for world 0.1 (their SDK computes legal moves in
/// wasm) and for world 0.2 (the host sends them in the view), against the
/// native twins, in one run: games per second (timings interleaved, median
/// of five) and fuel per move.
fn world_versions(sandbox: &Sandbox) {
    let rows: [(&str, &[&str], usize); 9] = [
        ("en-garde", &["v0.1.0/en-garde-aggressive", "house:random"], 1000),
        ("en-garde", &["en-garde/aggressive", "house:random"], 1000),
        ("en-garde", &["house:aggressive", "house:random"], 1000),
        ("sugar", &["v0.1.0/sugar-hunter", "house:random"], 200),
        ("sugar", &["sugar/hunter", "house:random"], 200),
        ("sugar", &["house:hunter", "house:random"], 200),
        (
            "president",
            &[
                "v0.1.0/president-lowest",
                "house:random",
                "house:lowest",
                "house:random",
            ],
            400,
        ),
        (
            "president",
            &["president/lowest", "house:random", "house:lowest", "house:random"],
            400,
        ),
        (
            "president",
            &["house:lowest", "house:random", "house:lowest", "house:random"],
            400,
        ),
    ];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); rows.len()];
    for _ in 0..5 {
        for (i, (game, bots, games)) in rows.iter().enumerate() {
            times[i].push(time_match(sandbox, game, bots, *games));
        }
    }
    println!(
        "\n== world 0.1 and 0.2 builds of the same bots against their native twins (one thread, interleaved, median of 5) =="
    );
    println!(
        "{:<58} {:>9} {:>9} {:>13} {:>10}",
        "match", "games/s", "x native", "fuel per move", "max fuel"
    );
    for (i, (game, bots, games)) in rows.iter().enumerate() {
        times[i].sort_by(f64::total_cmp);
        let secs = times[i][2];
        let native = {
            let mut t = times[i - i % 3 + 2].clone();
            t.sort_by(f64::total_cmp);
            t[2]
        };
        let spec = MatchSpec {
            game: adapters::game(game).expect("game"),
            setup: GameSetup::new(sandbox),
            entrants: bots.iter().map(|b| entrant(sandbox, game, b)).collect(),
            games: *games,
            seed: 1,
            record: false,
        };
        let out = run_match(&spec).expect("the match is set up right");
        let (mean, max) = out.report.bots[0]
            .fuel
            .as_ref()
            .map_or((0.0, 0), |f| (f.mean_per_move, f.max_per_move));
        println!(
            "{:<58} {:>9.0} {:>8.2}x {:>13.0} {:>10}",
            format!("{game}: {}", bots[0]),
            *games as f64 / secs,
            secs / native,
            mean,
            max
        );
    }
}

/// How much fuel a compute-bound Rust bot burns per second of this
/// machine: the figure that turns a course's time limit ("3 seconds per
/// move") into a fuel budget. The bot is `hostile/infinite-loop` (an
/// arithmetic loop that never answers); each game ends when its first call
/// runs out of `FUEL`, so the time per game is the time to burn `FUEL`.
fn fuel_per_second() {
    const FUEL: u64 = 2_000_000_000;
    let limits = Limits {
        fuel: FUEL,
        timeout: Duration::from_secs(600),
        ..Limits::default()
    };
    let sandbox = arena::adapters::sandbox(limits).expect("sandbox");
    let spec = MatchSpec {
        game: adapters::game("en-garde").expect("game"),
        setup: GameSetup::new(&sandbox),
        entrants: vec![
            entrant(&sandbox, "en-garde", "hostile/infinite-loop"),
            entrant(&sandbox, "en-garde", "house:random"),
        ],
        games: 2,
        seed: 1,
        record: false,
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    let secs = median3(|| {
        let started = Instant::now();
        let out = pool.install(|| run_match(&spec)).expect("the match is set up right");
        let secs = started.elapsed().as_secs_f64();
        assert!(
            out.report
                .results
                .iter()
                .all(|r| r.forfeit.as_ref().is_some_and(|f| f.reason.as_str() == "fuel"))
        );
        secs / out.report.results.len() as f64
    });
    let per_second = FUEL as f64 / secs;
    println!(
        "fuel per second, compute-bound Rust bot (one thread, median of 3): {:.0}M ({:.2} s for {}M)",
        per_second / 1e6,
        secs,
        FUEL / 1_000_000
    );
}

fn benches(c: &mut Criterion) {
    let sandbox = arena::adapters::sandbox(Limits::default()).expect("sandbox");
    let program = load(&sandbox, "en-garde/aggressive");
    let mut g = c.benchmark_group("en-garde");
    g.sample_size(20).measurement_time(Duration::from_secs(3));
    g.bench_function("instantiate wasm aggressive", |b| {
        let mut seed = 0;
        b.iter(|| {
            seed += 1;
            fencer(&sandbox, &program, seed).expect("instance")
        })
    });
    g.bench_function("10 games wasm aggressive vs house random", |b| {
        b.iter(|| time_match(&sandbox, "en-garde", &["en-garde/aggressive", "house:random"], 10))
    });
    g.bench_function("10 games house aggressive vs house random", |b| {
        b.iter(|| time_match(&sandbox, "en-garde", &["house:aggressive", "house:random"], 10))
    });
    g.finish();
}

criterion_group!(group, benches);

fn main() {
    // `cargo test --benches` runs this too: keep that quick by skipping the summary.
    if std::env::args().any(|a| a == "--bench") && std::env::var("ARENA_BENCH_SUMMARY").as_deref() != Ok("0") {
        summary();
    }
    group();
    Criterion::default().configure_from_args().final_summary();
}

/// A fresh wasm En Garde player, as the runner seats one.
fn fencer(
    sandbox: &arena::sandbox::Sandbox,
    program: &arena::sandbox::BotProgram,
    seed: u64,
) -> Result<WasmFencer, arena::games::Failure> {
    EnGarde::wasm(sandbox, program, seed)
}
