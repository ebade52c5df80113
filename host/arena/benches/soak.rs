//! Soak: 100,000 games mixing hostile and normal bots in one process, with
//! the process's resident memory (`VmRSS` in `/proc/self/status`) sampled
//! after every batch. Not a timed test: it prints the samples and, after a
//! warm-up of the first fifth of the run (the instance pool filling), compares
//! the mean of the first quarter with the mean of the last. A host that
//! leaks per game (a store, an instance slot, a log buffer, an event)
//! grows steadily; a sound one stays flat once its pools are warm.
//!
//! ```text
//! cargo bench -p arena --bench soak                    # 100,000 games
//! ARENA_SOAK_GAMES=10000 cargo bench -p arena --bench soak
//! RAYON_NUM_THREADS=1 cargo bench -p arena --bench soak
//! ```
//!
//! Each batch plays one match of every game in the mix below (En Garde,
//! ConnectFwar, Sugargame, President; each pairs a hostile bot of the
//! corpus with a normal one, or two normal bots), so every batch does the
//! same work. Reports are dropped after each batch: only the host's own
//! state can grow. Low limits (`FUEL` per move, 16 MiB memory) keep the
//! loops and bombs fast. Build the bots first: `bash example-bots/build.sh`.

mod common;
use common::{root, rss_kib};

use arena::adapters;
use arena::runner::{BotRef, Entrant, GameSetup, MatchSpec, run_match};
use arena::sandbox::{Limits, Sandbox};
use std::sync::Arc;
use std::time::Instant;

/// Fuel per move and at start: enough for the example bots, small enough
/// that an infinite loop ends in about a millisecond.
const FUEL: u64 = 2_000_000;

/// The matches of one batch: game, bots, games per match.
const MIX: &[(&str, &[&str], usize)] = &[
    ("en-garde", &["en-garde/aggressive", "house:random"], 40),
    ("en-garde", &["hostile/infinite-loop", "en-garde/random"], 4),
    ("en-garde", &["hostile/memory-bomb", "en-garde/cowardly"], 4),
    ("en-garde", &["hostile/panic", "house:aggressive"], 4),
    ("en-garde", &["hostile/log-flood", "en-garde/random"], 4),
    ("en-garde", &["hostile/recursion", "en-garde/random"], 4),
    ("en-garde", &["hostile/en-garde-move-exit", "en-garde/random"], 4),
    ("en-garde", &["hostile/en-garde-move-sockets", "en-garde/random"], 4),
    ("en-garde", &["hostile/en-garde-round-panic", "en-garde/random"], 4),
    ("en-garde", &["hostile/bad-discriminant", "en-garde/random"], 4),
    ("connect-fwar", &["connect-fwar/basic"], 10),
    ("connect-fwar", &["hostile/connect-fwar-column-loop"], 2),
    ("connect-fwar", &["hostile/connect-fwar-column-log-flood"], 4),
    ("sugar", &["sugar/greedy", "house:hunter"], 4),
    ("sugar", &["hostile/sugar-action-memory", "sugar/greedy"], 2),
    ("sugar", &["hostile/sugar-place-huge", "sugar/greedy"], 2),
    ("president", &["president/lowest", "house:random", "house:lowest"], 6),
    (
        "president",
        &["hostile/president-play-panic", "president/lowest", "house:random"],
        3,
    ),
    (
        "president",
        &["hostile/president-play-huge", "president/lowest", "house:random"],
        3,
    ),
];

fn main() {
    // `cargo bench` passes `--bench`; a filter argument is ignored.
    let total: usize = std::env::var("ARENA_SOAK_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let limits = Limits {
        fuel: FUEL,
        bank: 0,
        start_fuel: FUEL,
        memory_bytes: 16 << 20,
        log_bytes: 4096,
        ..Limits::default()
    };
    let sandbox = adapters::sandbox(limits).expect("sandbox");
    let batch = load_batch(&sandbox);
    let per_batch: usize = MIX.iter().map(|m| m.2).sum();
    let batches = total.div_ceil(per_batch);
    println!(
        "soak: {batches} batches of {per_batch} games ({} games), {} threads",
        batches * per_batch,
        rayon::current_num_threads()
    );
    let start = Instant::now();
    let (samples, forfeits) = play_batches(&sandbox, &batch, batches, per_batch, start);
    judge(&samples, forfeits, per_batch, start);
}

/// One batch's matches: game, entrants, games per match.
type Batch = Vec<(&'static str, Vec<Entrant>, usize)>;

/// The entrants of every match of [`MIX`], each wasm bot loaded once.
fn load_batch(sandbox: &Sandbox) -> Batch {
    let mut programs = std::collections::HashMap::new();
    let mut entrants = |game: &str, spec: &str| -> Entrant {
        let bot = match spec.strip_prefix("house:") {
            Some(name) => BotRef::House(name.to_string()),
            None => {
                let program = programs.entry(spec.to_string()).or_insert_with(|| {
                    let path = root().join("example-bots/wasm").join(format!("{spec}.wasm"));
                    let game = adapters::game(game).expect("game");
                    Arc::new(
                        sandbox
                            .load(&path, game.worlds())
                            .unwrap_or_else(|e| panic!("{e} (build the bots first: bash example-bots/build.sh)")),
                    )
                });
                BotRef::Wasm(program.clone())
            }
        };
        Entrant {
            name: spec.to_string(),
            bot,
        }
    };
    MIX.iter()
        .map(|&(game, bots, games)| (game, bots.iter().map(|b| entrants(game, b)).collect::<Vec<_>>(), games))
        .collect()
}

/// Plays `batches` batches, printing the resident memory now and then:
/// the sample after each batch, and the forfeits of all the games.
fn play_batches(
    sandbox: &Sandbox,
    batch: &Batch,
    batches: usize,
    per_batch: usize,
    start: Instant,
) -> (Vec<u64>, usize) {
    let mut samples = Vec::with_capacity(batches);
    let mut forfeits = 0usize;
    for b in 0..batches {
        for (i, (game, entrants, games)) in batch.iter().enumerate() {
            let spec = MatchSpec {
                game: adapters::game(game).expect("game"),
                setup: GameSetup::new(sandbox),
                entrants: entrants.clone(),
                games: *games,
                seed: (b * MIX.len() + i) as u64,
                record: false,
            };
            let out = run_match(&spec).expect("match");
            forfeits += out.report.results.iter().map(|r| r.forfeits.len()).sum::<usize>();
        }
        samples.push(rss_kib());
        if b % (batches / 20).max(1) == 0 || b + 1 == batches {
            println!(
                "  after {:>7} games ({:>6.1} s): RSS {:>7} KiB",
                (b + 1) * per_batch,
                start.elapsed().as_secs_f64(),
                samples[b]
            );
        }
    }
    (samples, forfeits)
}

/// Prints whether the resident memory stayed flat after the warm-up.
fn judge(samples: &[u64], forfeits: usize, per_batch: usize, start: Instant) {
    let batches = samples.len();
    // The instance pool warms up first: each slot a bot lands in keeps its
    // first pages resident, and slots are taken as games need them. Judge
    // flatness after the first fifth of the run.
    let mean = |s: &[u64]| s.iter().sum::<u64>() as f64 / s.len() as f64;
    let steady = &samples[samples.len() / 5..];
    let quarter = (steady.len() / 4).max(1);
    let first = mean(&steady[..quarter]);
    let last = mean(&steady[steady.len() - quarter..]);
    let peak = samples.iter().max().copied().unwrap_or(0);
    println!(
        "soak: {} games in {:.1} s, {forfeits} forfeits; RSS after {} games (warm-up) {} KiB; \
         then mean first quarter {:.0} KiB, last quarter {:.0} KiB ({:+.2}%), peak {peak} KiB",
        batches * per_batch,
        start.elapsed().as_secs_f64(),
        samples.len() / 5 * per_batch,
        samples[samples.len() / 5],
        first,
        last,
        (last - first) / first * 100.0
    );
    println!(
        "soak: {}",
        if last <= first * 1.02 {
            "flat (last quarter within 2% of the first)"
        } else {
            "GROWING: look for a leak"
        }
    );
}
