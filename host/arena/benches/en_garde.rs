//! En Garde: the wasm `aggressive` example bot against its native twin
//! `house:aggressive`, both playing `house:random`.
//!
//! `cargo bench -p arena --bench en_garde` first prints a plain summary
//! measured in one run on one thread:
//!
//! - games per second of 1,000 games wasm `aggressive` vs `house:random`
//!   and of the same 1,000 games (same seeds, same seats) with
//!   `house:aggressive` in its place, and their ratio. Each wasm game gets
//!   a fresh instance, as the runner does. Median of seven timings of each,
//!   interleaved;
//! - the cost of one instantiation, and how the rest of a wasm game splits
//!   into calls across the component boundary;
//! - memory per bot instance, measured two ways (see [`memory`]).
//!
//! Then the criterion benchmarks: the two 1,000-game runs (throughput in
//! games) and `WasmFencer::new`. Set `ARENA_BENCH_SUMMARY=0` to run only the
//! criterion part. The figures go in `docs/performance.md`.

mod common;
use common::wasm;

use arena::adapters::en_garde::{EnGarde, WasmFencer};
use arena::games::en_garde::{Config, Fencer, GameInfo, Move, RoundInfo, View, house_bot, play_game};
use arena::games::{Failure, NoEvents, Outcome, derive_seed};
use arena::runner::instance_seed;
use arena::runner::{GameDef, Seating};
use arena::sandbox::{BotProgram, Limits, Sandbox};
use criterion::{BatchSize, Criterion, Throughput, criterion_group};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Games per run.
const GAMES: u64 = 1000;
/// Game `i` is played with seed `derive_seed(BASE_SEED, i)`.
const BASE_SEED: u64 = 2024;
/// Live instances held at once for the memory measurement.
const HELD: usize = 100;
/// A wasm page.
const PAGE: usize = 64 << 10;

fn load(sandbox: &Sandbox) -> BotProgram {
    sandbox
        .load(&wasm("en-garde/aggressive"), EnGarde.worlds())
        .expect("load the wasm aggressive bot")
}

/// Game `i`: `me` against a fresh `house:random`, seats alternating by game.
fn play_one(i: u64, me: &mut dyn Fencer) -> Outcome {
    let seed = derive_seed(BASE_SEED, i);
    let mut random = house_bot("random").expect("house:random");
    let players: [&mut dyn Fencer; 2] = if my_seat(i) == 0 {
        [me, random.as_mut()]
    } else {
        [random.as_mut(), me]
    };
    play_game(Config::default(), seed, players, &mut NoEvents)
}

/// The seat `me` has in game `i`.
fn my_seat(i: u64) -> usize {
    (i % 2) as usize
}

/// Games `0..games` with a fresh wasm instance each (seeded as the runner
/// seeds it); calls `each` with every outcome.
fn wasm_games(sandbox: &Sandbox, program: &BotProgram, games: u64, mut each: impl FnMut(Outcome)) {
    for i in 0..games {
        let seed = derive_seed(BASE_SEED, i);
        let mut me = fencer(sandbox, program, instance_seed(seed, my_seat(i))).expect("instantiate");
        each(play_one(i, me.player()));
    }
}

/// The same games with `house:aggressive`, a fresh one each game.
fn native_games(games: u64, mut each: impl FnMut(Outcome)) {
    for i in 0..games {
        let mut me = house_bot("aggressive").expect("house:aggressive");
        each(play_one(i, me.as_mut()));
    }
}

fn no_forfeit(outcome: Outcome) {
    assert!(
        outcome.forfeit.is_none(),
        "no forfeits in a benchmark: {:?}",
        outcome.forfeit
    );
    black_box(outcome);
}

fn time(f: impl FnOnce()) -> f64 {
    let started = Instant::now();
    f();
    started.elapsed().as_secs_f64()
}

fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// Counts the calls the game makes into a player.
struct Counting<'a> {
    inner: &'a mut dyn Fencer,
    calls: u64,
}

impl Fencer for Counting<'_> {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        self.calls += 1;
        self.inner.start_game(info)
    }
    fn start_round(&mut self, info: &RoundInfo) -> Result<(), Failure> {
        self.calls += 1;
        self.inner.start_round(info)
    }
    fn choose_move(&mut self, view: &View) -> Result<Move, Failure> {
        self.calls += 1;
        self.inner.choose_move(view)
    }
}

/// Memory figures of this process, in KiB, from `/proc/self/smaps_rollup`
/// (exact: it walks the page tables; `VmRSS` in `/proc/self/status` comes
/// from per-CPU counters that may lag by a few hundred KiB).
#[derive(Clone, Copy, Default)]
struct Mem {
    rss: u64,
    pss: u64,
    private: u64,
}

fn mem() -> Mem {
    let text = std::fs::read_to_string("/proc/self/smaps_rollup").unwrap_or_default();
    let field = |name: &str| -> u64 {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    Mem {
        rss: field("Rss:"),
        pss: field("Pss:"),
        private: field("Private_Clean:") + field("Private_Dirty:"),
    }
}

/// Whether the bot plays `games` games without a forfeit when its linear
/// memory is capped at `cap` bytes.
fn fits(cap: usize, games: u64) -> bool {
    let limits = Limits {
        memory_bytes: cap,
        ..Limits::default()
    };
    let Ok(sandbox) = arena::adapters::sandbox(limits) else {
        return false;
    };
    // Loading fails outright when the cap is below the bot's initial memory.
    let Ok(program) = sandbox.load(&wasm("en-garde/aggressive"), EnGarde.worlds()) else {
        return false;
    };
    (0..games).all(|i| {
        let seed = derive_seed(BASE_SEED, i);
        match fencer(&sandbox, &program, instance_seed(seed, my_seat(i))) {
            Ok(mut me) => play_one(i, me.player()).forfeit.is_none(),
            Err(_) => false,
        }
    })
}

/// Memory per bot instance, two ways:
///
/// 1. Peak linear memory: the smallest memory cap (in 64 KiB wasm pages)
///    under which the bot plays all the benchmark's games without a
///    forfeit. The host's API does not expose a store's memory size, but
///    the cap is enforced on every `memory.grow`, so the smallest cap that
///    passes is the largest size the bot's memory reaches (its address
///    space, not what is resident).
/// 2. Resident memory: hold `HELD` live instances at once, each after
///    playing one game, in a fresh sandbox (so no pool slot was touched
///    before), and divide the growth of the process's Rss, Pss and
///    private memory by `HELD`. Rss counts a page shared by several
///    mappings (the copy-on-write image of the bot's data) once per
///    mapping; Pss divides it among them.
fn memory() {
    // 1. Binary search on the cap in pages: `hi` fits, `lo` does not.
    let (mut lo, mut hi) = (0usize, Limits::default().memory_bytes / PAGE);
    assert!(fits(hi * PAGE, GAMES), "the bot must fit the default cap");
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if fits(mid * PAGE, GAMES) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    println!(
        "peak linear memory: {hi} pages = {} KiB (smallest cap that plays all {GAMES} games; the default cap is {} MiB)",
        (hi * PAGE) >> 10,
        Limits::default().memory_bytes >> 20
    );

    // 2. Resident growth while holding HELD instances.
    let sandbox = arena::adapters::sandbox(Limits::default()).expect("sandbox");
    let program = load(&sandbox);
    // One instance and game first, so one-time initialisation is not counted.
    wasm_games(&sandbox, &program, 1, no_forfeit);
    let before = mem();
    let mut held: Vec<WasmFencer> = (0..HELD as u64)
        .map(|i| fencer(&sandbox, &program, instance_seed(derive_seed(BASE_SEED, i), 0)).expect("instance"))
        .collect();
    let instantiated = mem();
    for (i, me) in held.iter_mut().enumerate() {
        no_forfeit(play_one(i as u64, me.player()));
    }
    let played = mem();
    let per = |a: u64, b: u64| b.saturating_sub(a) as f64 / HELD as f64;
    println!("resident memory per live instance ({HELD} held at once, KiB):");
    println!("  {:<32} {:>8} {:>8} {:>8}", "", "Rss", "Pss", "private");
    for (label, m) in [("instantiated", instantiated), ("after one game each", played)] {
        println!(
            "  {:<32} {:>8.1} {:>8.1} {:>8.1}",
            label,
            per(before.rss, m.rss),
            per(before.pss, m.pss),
            per(before.private, m.private)
        );
    }
    drop(held);
}

/// Prints the summary: the twins' games per second and where a wasm game's
/// time goes, one call timed three ways, and memory per instance.
fn summary() {
    let sandbox = arena::adapters::sandbox(Limits::default()).expect("sandbox");
    let program = load(&sandbox);
    let same = same_outcomes(&sandbox, &program);
    let calls_per_game = calls_per_game();
    let (tw, tn, ti) = game_times(&sandbox, &program);
    print_twins(tw, tn, ti, same, calls_per_game);
    print_per_call(per_call(&sandbox, &program));
    memory();
    println!();
}

/// On how many of the seeds the twins have the same outcome (they must
/// play the same games); the wasm bot must never forfeit.
fn same_outcomes(sandbox: &Sandbox, program: &BotProgram) -> usize {
    let mut wasm_outcomes = Vec::new();
    wasm_games(sandbox, program, GAMES, |o| wasm_outcomes.push(o));
    let mut native_outcomes = Vec::new();
    native_games(GAMES, |o| native_outcomes.push(o));
    let same = wasm_outcomes
        .iter()
        .zip(&native_outcomes)
        .filter(|(a, b)| a == b)
        .count();
    assert!(wasm_outcomes.iter().all(|o| o.forfeit.is_none()), "no forfeits");
    same
}

/// Calls into the bot per game.
fn calls_per_game() -> f64 {
    let mut calls = 0;
    for i in 0..GAMES {
        let mut me = house_bot("aggressive").expect("house:aggressive");
        let mut counting = Counting {
            inner: me.as_mut(),
            calls: 0,
        };
        play_one(i, &mut counting);
        calls += counting.calls;
    }
    calls as f64 / GAMES as f64
}

/// Seconds for the wasm games, for the native games, and for one instantiation.
fn game_times(sandbox: &Sandbox, program: &BotProgram) -> (f64, f64, f64) {
    // Games per second: seven timings of each, interleaved, after a warm-up.
    let (mut tw, mut tn) = (Vec::new(), Vec::new());
    for _ in 0..7 {
        tw.push(time(|| wasm_games(sandbox, program, GAMES, no_forfeit)));
        tn.push(time(|| native_games(GAMES, no_forfeit)));
    }
    let (tw, tn) = (median(tw), median(tn));

    // Instantiation (new + drop, as each game pays it), median of five loops.
    let n = 2000;
    let ti = median(
        (0..5)
            .map(|_| time(|| (0..n).for_each(|s| drop(black_box(fencer(sandbox, program, s).expect("instance"))))))
            .collect(),
    ) / n as f64;
    (tw, tn, ti)
}

/// Prints the twins' games per second and how a wasm game's time splits.
fn print_twins(tw: f64, tn: f64, ti: f64, same: usize, calls_per_game: f64) {
    let g = GAMES as f64;
    let (us_w, us_n, us_i) = (tw / g * 1e6, tn / g * 1e6, ti * 1e6);
    let boundary = us_w - us_n - us_i;
    println!("\n== En Garde: wasm aggressive vs its native twin (one thread, median of 7 x {GAMES} games) ==");
    println!("{:<38} {:>10} {:>12}", "", "games/s", "us per game");
    println!(
        "{:<38} {:>10.0} {:>12.2}",
        "wasm aggressive vs house:random",
        g / tw,
        us_w
    );
    println!(
        "{:<38} {:>10.0} {:>12.2}",
        "house:aggressive vs house:random",
        g / tn,
        us_n
    );
    println!(
        "summary: wasm {:.0} games/s, native {:.0} games/s, wasm/native slowdown {:.2}x (aim: within 2x: {})",
        g / tw,
        g / tn,
        tw / tn,
        if tw / tn <= 2.0 { "met" } else { "not met" }
    );
    println!("same outcome on {same}/{GAMES} seeds");
    println!("instantiation (WasmFencer::new + drop): {us_i:.2} us");
    println!(
        "a wasm game = native game {us_n:.2} us + instantiation {us_i:.2} us + the rest {boundary:.2} us \
         over {calls_per_game:.1} calls into the bot = {:.2} us extra per call",
        boundary / calls_per_game
    );
}

/// Prints one choose-move call timed three ways.
fn print_per_call(per: PerCall) {
    let PerCall {
        us: [arena_us, plain_us, hooked_us],
        ratio: [plain_ratio, hooked_ratio],
        spread,
    } = per;
    println!(
        "one choose-move call: arena {arena_us:.3} us, wasmtime alone {plain_us:.3} us: ratio {plain_ratio:.2} \
         (middle half of the rounds {:.2}-{:.2}; aim: at most 1.10); \
         wasmtime with a call hook that does nothing {hooked_us:.3} us: ratio {hooked_ratio:.2}",
        spread[0], spread[1]
    );
}

/// Records the first view, round and game a player is shown.
#[derive(Default)]
struct FirstView {
    game: Option<GameInfo>,
    round: Option<RoundInfo>,
    view: Option<View>,
}

impl Fencer for FirstView {
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure> {
        self.game.get_or_insert_with(|| info.clone());
        Ok(())
    }
    fn start_round(&mut self, info: &RoundInfo) -> Result<(), Failure> {
        self.round.get_or_insert_with(|| info.clone());
        Ok(())
    }
    fn choose_move(&mut self, view: &View) -> Result<Move, Failure> {
        self.view.get_or_insert_with(|| view.clone());
        house_bot("aggressive").expect("house:aggressive").choose_move(view)
    }
}

/// The same `choose-move` call (a view from a real game, converted to the
/// world's types each time) made on a seated wasm bot, and made with
/// wasmtime alone: a plain store with WASI, fuel and an epoch deadline that
/// never come due, the same compiled component, no arena bookkeeping (no
/// budget per call, meter, call hook or log count); and with wasmtime alone
/// again, in a store with a call hook that does nothing (the arena's hook
/// charges host calls: having one at all costs each crossing). [`ROUNDS`]
/// rounds of 20,000 calls each way, interleaved.
fn per_call(sandbox: &Sandbox, program: &BotProgram) -> PerCall {
    assert_eq!(
        program.world.version, "0.2.0",
        "the example bot targets the newest world"
    );
    let mut first = FirstView::default();
    play_one(0, &mut first);
    let (game, round, view) = (first.game.unwrap(), first.round.unwrap(), first.view.unwrap());
    let linker = plain_linker(program);
    let (mut ta, mut tp, mut th) = (Vec::new(), Vec::new(), Vec::new());
    let calls = |hooked: bool| plain_calls(program, &linker, (&game, &round, &view), hooked);
    let arena = || arena_calls(sandbox, program, (&game, &round, &view));
    // The machine's speed drifts by more than the difference measured:
    // each round times the three back to back, and its own ratios count.
    // Which goes first turns with the rounds, so no way always follows another.
    for round in 0..ROUNDS {
        for way in 0..3 {
            match (round + way) % 3 {
                0 => tp.push(calls(false)),
                1 => th.push(calls(true)),
                _ => ta.push(arena()),
            }
        }
    }
    let us = |t: &[f64]| median(t.to_vec()) / CALLS as f64 * 1e6;
    let mut ratios: Vec<f64> = ta.iter().zip(&tp).map(|(a, p)| a / p).collect();
    let hooked: Vec<f64> = ta.iter().zip(&th).map(|(a, h)| a / h).collect();
    ratios.sort_by(f64::total_cmp);
    PerCall {
        us: [us(&ta), us(&tp), us(&th)],
        ratio: [median(ratios.clone()), median(hooked)],
        spread: [ratios[ROUNDS / 4], ratios[ROUNDS - 1 - ROUNDS / 4]],
    }
}

/// The state of a store of wasmtime alone: WASI and nothing of the arena's.
struct Plain {
    wasi: wasmtime_wasi::WasiCtx,
    table: wasmtime::component::ResourceTable,
}

impl wasmtime_wasi::WasiView for Plain {
    fn ctx(&mut self) -> wasmtime_wasi::WasiCtxView<'_> {
        wasmtime_wasi::WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// The game, round and view every timed call is made with.
type Scene<'a> = (&'a GameInfo, &'a RoundInfo, &'a View);

/// A linker of wasmtime alone for the bot: WASI, and the arena's host
/// interface as traps (a call into it would trap; the bot makes none).
fn plain_linker(program: &BotProgram) -> wasmtime::component::Linker<Plain> {
    let component = program.component();
    let mut linker = wasmtime::component::Linker::<Plain>::new(component.engine());
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker).expect("WASI");
    linker
        .define_unknown_imports_as_traps(component)
        .expect("the other imports");
    linker
}

/// A fresh instance of the bot with wasmtime alone (with a call hook that
/// does nothing if `hooked`), its game and round started.
fn plain_seat(
    program: &BotProgram,
    linker: &wasmtime::component::Linker<Plain>,
    (game, round, _): Scene,
    hooked: bool,
) -> (wasmtime::Store<Plain>, arena::adapters::en_garde::since_v0_2::Bindings) {
    use arena::adapters::en_garde::since_v0_2::{Bindings, wit_game_info, wit_round_info};
    let component = program.component();
    let state = Plain {
        wasi: wasmtime_wasi::WasiCtx::builder().build(),
        table: wasmtime::component::ResourceTable::new(),
    };
    let mut store = wasmtime::Store::new(component.engine(), state);
    if hooked {
        store.call_hook(|_, _| Ok(()));
    }
    store.set_fuel(u64::MAX / 4).expect("fuel");
    store.set_epoch_deadline(u64::MAX / 4);
    let plain = Bindings::instantiate(&mut store, component, linker).expect("instantiate with wasmtime alone");
    plain
        .call_start_game(&mut store, wit_game_info(game))
        .expect("start-game");
    plain
        .call_start_round(&mut store, &wit_round_info(round))
        .expect("start-round");
    (store, plain)
}

/// Calls timed in each round, each way.
const CALLS: usize = 20_000;
/// Calls made on one seat before a fresh one is made. A game makes a few
/// dozen calls, and the arena records each one (the meter's usage). A
/// single seat called 100,000 times would time that record growing to
/// megabytes, which no game has: every SEAT_CALLS calls the arena's seat,
/// and wasmtime's instance alike, is a fresh one, made and started outside
/// the timing.
const SEAT_CALLS: usize = 100;

/// Seconds for [`CALLS`] choose-move calls with wasmtime alone.
fn plain_calls(program: &BotProgram, linker: &wasmtime::component::Linker<Plain>, scene: Scene, hooked: bool) -> f64 {
    use arena::adapters::en_garde::since_v0_2::wit_view;
    (0..CALLS / SEAT_CALLS)
        .map(|_| {
            let (mut store, bindings) = plain_seat(program, linker, scene, hooked);
            time(|| {
                for _ in 0..SEAT_CALLS {
                    black_box(
                        bindings
                            .call_choose_move(&mut store, &wit_view(scene.2, true))
                            .expect("a move"),
                    );
                }
            })
        })
        .sum::<f64>()
}

/// Seconds for [`CALLS`] choose-move calls through the arena's seat.
fn arena_calls(sandbox: &Sandbox, program: &BotProgram, (game, round, view): Scene) -> f64 {
    (0..CALLS / SEAT_CALLS)
        .map(|_| {
            let mut seated = fencer(sandbox, program, 1).expect("instantiate");
            seated.player().start_game(game).expect("start-game");
            seated.player().start_round(round).expect("start-round");
            time(|| {
                for _ in 0..SEAT_CALLS {
                    black_box(seated.player().choose_move(view).expect("a move"));
                }
            })
        })
        .sum::<f64>()
}

/// Rounds of the per-call timing.
const ROUNDS: usize = 21;

/// One bot call timed three ways ([`per_call`]).
struct PerCall {
    /// Median µs per call: through the arena, wasmtime alone, wasmtime with a call hook.
    us: [f64; 3],
    /// Median of the rounds' ratios: the arena over wasmtime alone, and over the hooked store.
    ratio: [f64; 2],
    /// The middle half of the rounds' ratios over wasmtime alone.
    spread: [f64; 2],
}

fn benches(c: &mut Criterion) {
    let sandbox = arena::adapters::sandbox(Limits::default()).expect("sandbox");
    let program = load(&sandbox);

    let mut g = c.benchmark_group("en_garde_1000_games");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Elements(GAMES));
    g.bench_function("wasm aggressive vs house random", |b| {
        b.iter(|| wasm_games(&sandbox, &program, GAMES, no_forfeit))
    });
    g.bench_function("house aggressive vs house random", |b| {
        b.iter(|| native_games(GAMES, no_forfeit))
    });
    g.finish();

    let mut g = c.benchmark_group("en_garde_instantiate");
    g.sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements(1));
    let mut seed = 0;
    g.bench_function("WasmFencer::new", |b| {
        b.iter_batched(
            || (),
            |()| {
                seed += 1;
                fencer(&sandbox, &program, seed).expect("instance")
            },
            // At most 200 live at once: the pool holds 1,000 instances.
            BatchSize::NumIterations(200),
        )
    });
    g.bench_function("WasmFencer::new + drop", |b| {
        b.iter(|| {
            seed += 1;
            drop(black_box(fencer(&sandbox, &program, seed).expect("instance")))
        })
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
