//! A ladder whose storage and memory stay flat (issue 48): a million
//! finished matches reach a running `arena serve`, which folds them into
//! counts and deletes the rows no page can link; its resident memory and
//! its database file stay where they were after the first waves, after a
//! restart too, and its standings are the fit over the raw matches.

use crate::ladder::{board, ladder_course_with};
use crate::server::{On, Server, logged_in, serve_with};
use arena_competition::tournament::fit::{FitGame, PRIOR_DRAWS, fit_counted};
use arena_server::db::{Db, WAL_KEPT};
use arena_tests::bulk::{Finished, Mix, block, db_bytes, insert_finished, memory};
use serde_json::Value;
use sqlx::Row as _;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Matches in all, in waves: each wave is inserted, then folded and pruned
/// by the server before the next, as a ladder's results arrive between fits.
const MATCHES: usize = 1_000_000;
const WAVE: usize = 100_000;

/// The students' strengths (Elo) the results are drawn from.
const ELO: [f64; 4] = [1300.0, 1450.0, 1550.0, 1700.0];

/// What the server may hold beyond its memory before the matches: its
/// working set once it folds (a fold holds one chunk of 1,000 outcomes, a
/// prune one page of 5,000 ids; SQLite's page cache is 2 MB per pooled
/// connection and each keeps its prepared statements; the allocator keeps
/// what it freed), measured at 45-65 MiB. 96 MiB is what about 23,000
/// matches took when the ladder kept each in memory (4.3 KB a match), 2%
/// of the million: a memory that grew with the matches would pass it in
/// the first wave.
const MEMORY_MARGIN_KIB: u64 = 96 * 1024;

/// From the third wave to the last: 24 MiB, what 5,700 matches took when
/// kept in memory, where the 700,000 matches between would have taken 3 GB.
const FLAT_MARGIN_KIB: u64 = 24 * 1024;

/// Wait until the board's fit is at least `serial`; the board.
fn fitted_after(server: &Server, token: &str, serial: u64) -> Value {
    let started = Instant::now();
    loop {
        let b = board(server, token);
        if b["serial"].as_u64().unwrap_or(0) >= serial {
            return b;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "no fit: {b:#}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// What the test expects of each student, from the matches as generated.
#[derive(Default, Clone, Copy, PartialEq, Debug)]
struct Record {
    games: u64,
    wins: u64,
    draws: u64,
    losses: u64,
}

/// One million matches of two games (one deal from both seats, as
/// `[ladder] games = 2` plays them) among four students, inserted as the
/// server's own pool writes finished rows, a wave at a time (a direct bulk
/// insert: a million matches played or even taken through the HTTP API
/// would take hours in a debug build; the rows are the same, the fold is
/// the server's own). After the first wave and after the last, and after a
/// restart: the server's resident memory is within [`MEMORY_MARGIN_KIB`]
/// of what it was before any match, its peak too, and within
/// [`FLAT_MARGIN_KIB`] of what it was after the third wave; the database
/// keeps each student's newest 20 matches in full and its file is no larger
/// after a million matches than after the third wave (freed pages are reused); the
/// board's games, wins, draws and losses are those generated and its
/// ratings the fit over the raw results, the same after the restart.
#[test]
fn a_million_matches_leave_memory_and_the_database_flat() {
    let on = On::Sqlite;
    let rule = "\n[ladder]\ngames = 2\nversus_games = 0\nmin_matches = 20\nrest_width = 100.0\nmax_matches = 200\n";
    let (dir, students) = ladder_course_with(&on, "ladder-million", rule);
    let token = students[0]["token"].clone();
    let url = format!("sqlite://{}", dir.join("course.db").display());
    // Four accepted versions (no file is played: the ladder is frozen, so
    // every match on it is one of this test's).
    let keys: Vec<String> = students_of(&url)
        .into_iter()
        .map(|p| add_version(&url, p, 1, "accepted"))
        .collect();
    execute(&url, "INSERT INTO settings (name, value) VALUES ('frozen', 'on')");
    assert_eq!(keys.len(), ELO.len());
    let server = serve_with(&dir, &on.database());
    // The memory of a server that has fitted its empty ladder and served its
    // board (its first fit: it reads and folds everything there is).
    let b = fitted_after(&server, &token, 1);
    let before = memory(server.pid());
    let empty_db = db_bytes(&dir);
    eprintln!(
        "before: VmRSS {} KiB, VmHWM {} KiB, database {} bytes",
        before.0, before.1, empty_db
    );
    assert!(b["matches"].as_u64() == Some(0), "{b:#}");

    let mut mix = Mix(48);
    let mut records = [Record::default(); 4];
    let mut duels: BTreeMap<(usize, usize, u8), u32> = BTreeMap::new();
    let mut after_third = (0, 0, 0);
    let started = Instant::now();
    for wave in 0..MATCHES / WAVE {
        block(async {
            let db = Db::connect(&url).await.expect("the course's database");
            // Finished a day ago: no page opened since links them.
            insert_finished(&db, WAVE, "2026-11-27T00:00:01Z", || {
                let a = (mix.bits() % 4) as usize;
                let b = (a + 1 + (mix.bits() % 3) as usize) % 4;
                let p = 1.0 / (1.0 + 10f64.powf((ELO[b] - ELO[a]) / 400.0));
                let mut games = Vec::new();
                // Game 1: a in seat 0; game 2: b in seat 0.
                for (seat0, seat1, first) in [(0usize, 1usize, true), (1, 0, false)] {
                    let u = mix.unit();
                    // The entrant a's result: a draw one game in ten.
                    let a_result = if u < 0.1 {
                        1
                    } else if u < 0.1 + 0.9 * p {
                        0
                    } else {
                        2
                    };
                    let (ea, eb) = (&mut records[a], a_result);
                    ea.games += 1;
                    match eb {
                        0 => ea.wins += 1,
                        1 => ea.draws += 1,
                        _ => ea.losses += 1,
                    }
                    let rb = &mut records[b];
                    rb.games += 1;
                    match a_result {
                        0 => rb.losses += 1,
                        1 => rb.draws += 1,
                        _ => rb.wins += 1,
                    }
                    // The winning seat: a sits in seat 0 in the first game.
                    let winner = match (a_result, first) {
                        (1, _) => "null",
                        (0, true) | (2, false) => "0",
                        _ => "1",
                    };
                    // The fit's view: seat 0 against seat 1, in half points of seat 0.
                    let (s0, s1) = if first { (a, b) } else { (b, a) };
                    let halves = match winner {
                        "null" => 1,
                        "0" => 2,
                        _ => 0,
                    };
                    *duels.entry((s0, s1, halves)).or_default() += 1;
                    games.push(format!(
                        "{{\"seats\":[{seat0},{seat1}],\"scores\":[{},{}],\"winner\":{winner}}}",
                        mix.bits() % 12,
                        mix.bits() % 12
                    ));
                }
                Finished::duel(&mut mix, &keys[a], &keys[b], &games)
            })
            .await;
            db.pool.close().await;
        });
        // The server folds the wave and deletes what no page links.
        let waited = Instant::now();
        loop {
            let left: i64 = block(async {
                let db = Db::connect(&url).await.expect("the course's database");
                let n = sqlx::query("SELECT COUNT(*) FROM ladder_matches")
                    .fetch_one(&db.pool)
                    .await
                    .map(|r| r.get(0))
                    .unwrap_or(-1);
                db.pool.close().await;
                n
            });
            if (0..=(20 * keys.len()) as i64).contains(&left) {
                break;
            }
            assert!(
                waited.elapsed() < Duration::from_secs(300),
                "wave {wave}: {left} rows still in the database"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        let (rss, hwm) = memory(server.pid());
        let size = db_bytes(&dir);
        eprintln!(
            "after {} matches ({:.0} s): VmRSS {rss} KiB, VmHWM {hwm} KiB, database {size} bytes",
            (wave + 1) * WAVE,
            started.elapsed().as_secs_f64()
        );
        if wave == 2 {
            after_third = (rss, hwm, size);
        }
    }
    // Every match folded: the fit that folded the last ones counts a million.
    let waited = Instant::now();
    let b = loop {
        let b = board(&server, &token);
        if b["matches"].as_u64() == Some(MATCHES as u64) || waited.elapsed() > Duration::from_secs(120) {
            break b;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let after = memory(server.pid());
    let size = db_bytes(&dir);
    eprintln!(
        "after {MATCHES}: VmRSS {} KiB, VmHWM {} KiB, database {size} bytes",
        after.0, after.1
    );
    assert_eq!(b["matches"].as_u64(), Some(MATCHES as u64), "{b:#}");
    assert_eq!(b["games"].as_u64(), Some(2 * MATCHES as u64));
    let expected = expected_ratings(&duels);
    let check = |b: &Value, when: &str| {
        for (i, key) in keys.iter().enumerate() {
            let row = b["rows"]
                .as_array()
                .and_then(|rows| rows.iter().find(|r| r["key"] == key.as_str()))
                .unwrap_or_else(|| panic!("{when}: no row of {key}: {b:#}"));
            let got = Record {
                games: row["games"].as_u64().unwrap_or(0),
                wins: row["wins"].as_u64().unwrap_or(0),
                draws: row["draws"].as_u64().unwrap_or(0),
                losses: row["losses"].as_u64().unwrap_or(0),
            };
            assert_eq!(got, records[i], "{when}: {key}");
            let rating = row["rating"].as_f64().unwrap_or(0.0);
            assert!(
                (rating - expected[i]).abs() < 1e-6,
                "{when}: {key} rated {rating}, the fit over the raw results {}",
                expected[i]
            );
        }
    };
    check(&b, "after a million matches");
    assert!(
        after.0 <= before.0 + MEMORY_MARGIN_KIB && after.1 <= before.1 + MEMORY_MARGIN_KIB,
        "memory grew with the matches: {before:?} KiB before, {after:?} after"
    );
    assert!(
        after.0 <= after_third.0 + FLAT_MARGIN_KIB,
        "memory grew from the third wave to the tenth: {after_third:?} then {after:?}"
    );
    // Freed pages are reused: the file holds one wave at most, whichever.
    assert!(
        size <= after_third.2 + 4 * 1024 * 1024,
        "the database grew from {} bytes after the third wave to {size} after the tenth",
        after_third.2
    );
    // A match no longer kept answers that it was compacted and counts.
    let mut ann = logged_in(&server, &students[0]["link"]);
    let (status, page, _) = ann.get("/ladder/matches/1/games/1");
    assert_eq!(status, 410, "{page}");
    assert!(
        page.contains("ladder match 1 was compacted: its result is counted"),
        "{page}"
    );
    // A restart reads the counts, not a million matches.
    let board_before = b;
    drop(server);
    let server = serve_with(&dir, &on.database());
    let b = fitted_after(&server, &token, 1);
    let restarted = memory(server.pid());
    eprintln!(
        "after a restart: VmRSS {} KiB, VmHWM {} KiB, database {} bytes",
        restarted.0,
        restarted.1,
        db_bytes(&dir)
    );
    check(&b, "after a restart");
    for (x, y) in board_before["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .zip(b["rows"].as_array().into_iter().flatten())
    {
        assert_eq!(
            (&x["key"], &x["rating"], &x["interval"]),
            (&y["key"], &y["rating"], &y["interval"])
        );
    }
    // No fold to do: a restart holds what an empty ladder held, and the counts.
    assert!(
        restarted.1 <= before.1 + MEMORY_MARGIN_KIB / 4,
        "a restart took {restarted:?} KiB, the empty ladder {before:?}"
    );
    eprintln!("a million matches in {:.0} s", started.elapsed().as_secs_f64());
}

/// The students of the course whose database is `url`, by id.
fn students_of(url: &str) -> Vec<i64> {
    block(async {
        let db = Db::open(url).await.expect("the course's database");
        let people = sqlx::query("SELECT id FROM people WHERE is_teacher = FALSE ORDER BY id")
            .fetch_all(&db.pool)
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        db.pool.close().await;
        people
    })
}

/// Add `person`'s version `version` in `state` (no file: a frozen ladder
/// plays nothing); its ladder key (`s{id}`).
fn add_version(url: &str, person: i64, version: i64, state: &str) -> String {
    block(async {
        let db = Db::open(url).await.expect("the course's database");
        let id: i64 = sqlx::query(
            "INSERT INTO submissions (person_id, version, sha256, size, file_name, submitted_at, state) \
             VALUES ($1, $2, $3, 1000, 'bot.wasm', '2026-11-01T00:00:00Z', $4) RETURNING id",
        )
        .bind(person)
        .bind(version)
        .bind(format!("{person:032x}{version:032x}"))
        .bind(state)
        .fetch_one(&db.pool)
        .await
        .unwrap()
        .get(0);
        db.pool.close().await;
        format!("s{id}")
    })
}

/// Every `ladder_counts` row (entrants, source, kind of row) with its count.
fn count_rows(url: &str) -> BTreeMap<(String, i64, i64, String), i64> {
    block(async {
        let db = Db::connect(url).await.expect("the course's database");
        let rows = sqlx::query("SELECT entrants, played_by, verified, game, n FROM ladder_counts")
            .fetch_all(&db.pool)
            .await
            .expect("the counts");
        db.pool.close().await;
        rows.iter()
            .map(|r| ((r.get(0), r.get(1), r.get(2), r.get(3)), r.get(4)))
            .collect()
    })
}

/// Run `sql` on the course's database.
fn execute(url: &str, sql: &str) {
    block(async {
        let db = Db::connect(url).await.expect("the course's database");
        sqlx::query(sql)
            .execute(&db.pool)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        db.pool.close().await;
    });
}

/// Issue 49 item 5: a version replaced for good (a newer version of its
/// student accepted, and not chosen instead) has the counts of its
/// pairings deleted, so the table grows with the class, not with every
/// upload ever made. Nothing else goes: a version whose successor is still
/// being graded (as every version is during "Re-grade everyone"), one its
/// student chose over a newer one, and the untouched ones keep every count.
#[test]
fn the_counts_of_a_replaced_version_go_and_no_others() {
    let on = On::Sqlite;
    let rule = "\n[ladder]\ngames = 2\nversus_games = 0\nmin_matches = 20\nrest_width = 100.0\nmax_matches = 200\n";
    let (dir, _) = ladder_course_with(&on, "ladder-retire", rule);
    let url = format!("sqlite://{}", dir.join("course.db").display());
    let people = students_of(&url);
    assert_eq!(people.len(), 4);
    let keys: Vec<String> = people.iter().map(|&p| add_version(&url, p, 1, "accepted")).collect();
    // Frozen: every match on the ladder is one of this test's.
    execute(&url, "INSERT INTO settings (name, value) VALUES ('frozen', 'on')");
    let server = serve_with(&dir, &on.database());
    let mut mix = Mix(4905);
    block(async {
        let db = Db::connect(&url).await.expect("the course's database");
        insert_finished(&db, 2_000, "2026-11-27T00:00:01Z", || {
            let a = (mix.bits() % 4) as usize;
            let b = (a + 1 + (mix.bits() % 3) as usize) % 4;
            let winner = ["0", "1", "null"][(mix.bits() % 3) as usize];
            let game = format!("{{\"seats\":[0,1],\"scores\":[1,0],\"winner\":{winner}}}");
            Finished::duel(&mut mix, &keys[a], &keys[b], &[game])
        })
        .await;
        db.pool.close().await;
    });
    let waited = Instant::now();
    let before = loop {
        let rows = count_rows(&url);
        let matches: i64 = rows.iter().filter(|(k, _)| k.3.is_empty()).map(|(_, n)| n).sum();
        if matches == 2_000 {
            break rows;
        }
        assert!(
            waited.elapsed() < Duration::from_secs(300),
            "{matches} of 2,000 matches folded after 5 minutes"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let involves = |entrants: &str, key: &str| entrants.split(',').any(|k| k == key);
    for key in &keys {
        assert!(
            before.keys().filter(|k| k.3.is_empty() && involves(&k.0, key)).count() == 6,
            "{key} met each of the three others from both seats: {before:?}"
        );
    }
    // The first student's new version is being graded; the second's is
    // accepted; the third chose its first version before its second was
    // accepted; the fourth uploads nothing.
    add_version(&url, people[0], 2, "queued");
    add_version(&url, people[1], 2, "accepted");
    execute(&url, &format!("UPDATE people SET counted = 1 WHERE id = {}", people[2]));
    add_version(&url, people[2], 2, "accepted");
    let waited = Instant::now();
    let after = loop {
        let rows = count_rows(&url);
        if !rows.keys().any(|k| involves(&k.0, &keys[1])) {
            break rows;
        }
        assert!(
            waited.elapsed() < Duration::from_secs(300),
            "the counts of {} (replaced) still there after 5 minutes",
            keys[1]
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    let kept: BTreeMap<_, _> = before.into_iter().filter(|(k, _)| !involves(&k.0, &keys[1])).collect();
    assert!(kept.len() >= 3 * 2 * 3, "{kept:?}");
    assert_eq!(after, kept, "every count not of the replaced version, unchanged");
    drop(server);
}

/// The students' ratings from the duels as generated (seat 0, seat 1, half
/// points of seat 0), fitted as the ladder fits, with 1500 the mean.
fn expected_ratings(duels: &BTreeMap<(usize, usize, u8), u32>) -> Vec<f64> {
    let games: Vec<(FitGame, u32)> = duels
        .iter()
        .map(|(&(a, b, h), &n)| {
            (
                FitGame::Duel {
                    a,
                    b,
                    score: f64::from(h) / 2.0,
                },
                n,
            )
        })
        .collect();
    let counted: Vec<(&FitGame, u32)> = games.iter().map(|(g, n)| (g, *n)).collect();
    fit_counted(ELO.len(), &counted, PRIOR_DRAWS)
        .ratings
        .iter()
        .map(|r| r.elo)
        .collect()
}

/// SQLite's write-ahead log left on disk is bounded (found by the semester
/// bench: a log that grew to 98 MB while readers held it back stayed that
/// size beside a 67 MB database). A reader's snapshot keeps 40 MB of writes
/// in the log; once it ends and a checkpoint has copied them back, the next
/// write leaves at most `WAL_KEPT` of it.
#[test]
fn the_write_ahead_log_left_on_disk_is_bounded() {
    let dir = arena_tests::temp("wal-bounded");
    let (file, wal) = (dir.join("course.db"), dir.join("course.db-wal"));
    let url = format!("sqlite://{}?mode=rwc", file.display());
    let size = |f: &std::path::Path| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0);
    block(async {
        let db = Db::connect(&url).await.expect("open the database");
        let run = |sql: &'static str| sqlx::query(sql).execute(&db.pool);
        run("CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB)")
            .await
            .expect("create");
        let mut reader = db.pool.acquire().await.expect("a connection");
        sqlx::query("BEGIN").execute(&mut *reader).await.expect("begin");
        sqlx::query("SELECT COUNT(*) FROM t")
            .fetch_one(&mut *reader)
            .await
            .expect("read");
        for _ in 0..40 {
            run("INSERT INTO t (b) VALUES (zeroblob(1048576))")
                .await
                .expect("insert");
        }
        let grown = size(&wal);
        assert!(
            grown > 2 * WAL_KEPT,
            "the reader should have kept 40 MB in the log: {grown} bytes"
        );
        sqlx::query("COMMIT").execute(&mut *reader).await.expect("end the read");
        drop(reader);
        run("PRAGMA wal_checkpoint(PASSIVE)").await.expect("checkpoint");
        run("INSERT INTO t (b) VALUES (x'00')").await.expect("a write after it");
        let left = size(&wal);
        assert!(
            left <= WAL_KEPT,
            "the log stayed at {left} bytes (it grew to {grown}); at most {WAL_KEPT} should be left"
        );
        db.pool.close().await;
    });
}
