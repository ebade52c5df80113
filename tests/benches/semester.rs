//! A semester on one server (issue 49 item 5): not a test, it prints the
//! table docs/performance.md ("A semester on one server") quotes. A class
//! of 200 uploads 400 versions through the real upload and grading path
//! (200 first versions, then the rest spread over 14 weeks) while the
//! ladder's work, 5,000,000 matches of 2 games, reaches the server a week
//! at a time; each week's end: database size, server memory, page latency
//! and matches absorbed per second. Sizes: `ARENA_SEMESTER_STUDENTS`,
//! `ARENA_SEMESTER_UPLOADS`, `ARENA_SEMESTER_MATCHES`,
//! `ARENA_SEMESTER_WEEKS`, `ARENA_SEMESTER_WAVE` (matches inserted at once,
//! 100,000); it stops inserting after `ARENA_SEMESTER_SECONDS` (780) and
//! says so, so a run stays within a shared machine's quarter of an hour.
//!
//! ```text
//! bash example-bots/build.sh en-garde/aggressive en-garde/cowardly en-garde/random
//! cargo bench -p arena-tests --bench semester               # release
//! cargo bench --profile dev -p arena-tests --bench semester # the debug build
//! ```

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

fn main() {
    let s = arena_tests::semester::Semester {
        students: env("ARENA_SEMESTER_STUDENTS", 200),
        uploads: env("ARENA_SEMESTER_UPLOADS", 400),
        matches: env("ARENA_SEMESTER_MATCHES", 5_000_000),
        weeks: env("ARENA_SEMESTER_WEEKS", 14),
        wave: env("ARENA_SEMESTER_WAVE", 100_000),
        max_seconds: env("ARENA_SEMESTER_SECONDS", 780) as u64,
    };
    eprintln!("{s:?}");
    let started = std::time::Instant::now();
    let weeks = arena_tests::semester::run(&s, "bench-semester");
    println!("semester: {s:?}");
    println!(
        "| week | uploads | graded in | matches (all) | matches/s | database | files | kept rows | count rows | VmRSS | VmHWM | pages at rest p50 / p99 / max | pages while folding p50 / p99 / max | slowest page (p99) | pages (failed) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|");
    for w in &weeks {
        println!(
            "| {} | {} | {:.0} s | {} ({}) | {:.0} | {:.1} MB | {:.1} MB | {} | {} | {:.1} MB | {:.1} MB | {:.1} / {:.1} / {:.1} ms | {:.1} / {:.1} / {:.1} ms | {} ({:.0} ms) | {} ({}) |",
            w.week,
            w.uploads,
            w.grading_s,
            w.matches,
            w.total,
            w.matches_per_s,
            mb(w.end.db_bytes),
            mb(w.end.files_bytes),
            w.end.kept,
            w.end.counts,
            w.end.rss_kib as f64 * 1.024 / 1e3,
            w.end.hwm_kib as f64 * 1.024 / 1e3,
            w.quiet_ms[0],
            w.quiet_ms[1],
            w.quiet_ms[2],
            w.page_ms[0],
            w.page_ms[1],
            w.page_ms[2],
            w.slowest.0,
            w.slowest.1,
            w.pages,
            w.errors
        );
    }
    println!("in {:.0} s", started.elapsed().as_secs_f64());
}
