//! The ladder under a class's load (issue 29's load test), on loopback:
//! not a test, it prints the figures docs/performance.md ("The ladder")
//! quotes. 200 students with 2 versions each, 10,000 ladder matches played
//! by the server's own pool and 2 external workers, 1,000 open
//! leaderboards; then `arena tournament` on the same bots (every student's
//! version on the ladder and the house anchors, 10 games a pairing) for the
//! throughput ratio. Sizes: `ARENA_LADDER_STUDENTS`, `ARENA_LADDER_MATCHES`,
//! `ARENA_LADDER_CLIENTS`, `ARENA_LADDER_WORKERS`, `ARENA_LADDER_TOURNAMENTS`
//! (runs of the tournament, 3; the median is compared), `ARENA_LADDER_STEADY`
//! (seconds of play measured once every leaderboard is open, at least 30); it stops after
//! `ARENA_LADDER_SECONDS` (600) of play even if fewer matches finished.
//!
//! ```text
//! bash example-bots/build.sh en-garde/aggressive en-garde/cowardly en-garde/random
//! cargo bench -p arena-tests --bench ladder
//! ```

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let load = arena_tests::load::Load {
        students: env("ARENA_LADDER_STUDENTS", 200),
        matches: env("ARENA_LADDER_MATCHES", 10_000),
        clients: env("ARENA_LADDER_CLIENTS", 1000),
        workers: env("ARENA_LADDER_WORKERS", 2),
        // As many games a pairing as a ladder match plays.
        tournament_games: 10,
        tournament_runs: env("ARENA_LADDER_TOURNAMENTS", 3),
        steady_seconds: env("ARENA_LADDER_STEADY", 30) as u64,
        max_seconds: env("ARENA_LADDER_SECONDS", 600) as u64,
    };
    eprintln!("{load:?}");
    let r = arena_tests::load::run(&load, "bench-ladder");
    println!("ladder load: {load:?}");
    println!(
        "  matches finished {}, games {}, in {:.0} s",
        r.matches, r.games, r.seconds
    );
    println!(
        "  lost {}, doubled {}, by workers {}, checked by replay {}",
        r.lost, r.doubled, r.by_workers, r.verified
    );
    println!(
        "  leaderboard page p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms ({} pages)",
        r.page_ms[0], r.page_ms[1], r.page_ms[2], r.pages
    );
    println!(
        "  open leaderboards: {} tables brought by events (largest {} bytes); fewest events seen by one {}; errors {}",
        r.fragments, r.fragment_bytes, r.fewest_events, r.errors
    );
    println!(
        "  server RSS peak {:.0} MiB, at the end {:.0} MiB",
        r.rss_mib[0], r.rss_mib[1]
    );
    println!(
        "  ladder {:.0} games/s; arena tournament {:.0} games/s (median of {:.0?}) on the same bots and cores: ratio {:.2}",
        r.ladder_games_per_s,
        r.tournament_games_per_s,
        r.tournament_runs_per_s,
        r.ladder_games_per_s / r.tournament_games_per_s.max(1e-9)
    );
}
