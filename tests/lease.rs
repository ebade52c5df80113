//! The one lease life cycle of the course server (`arena_server::lease`),
//! tested once for both kinds of work it hands out (grading jobs and ladder
//! matches) on both databases (SQLite in a folder, and a throwaway
//! PostgreSQL cluster): each row is claimed once, only the holder of a
//! lease finishes or gives back its rows, a lease lapses when its end
//! passes unless renewed, a worker's result waits to be checked and is
//! confirmed once, a disabled worker's work all goes back, and a stopped
//! server's leases are recovered as its database allows.

use crate::server::On;
use arena_server::db::{Backend, Db, Secret};
use arena_server::lease::{Finish, Holder, JOBS, Leases, MATCHES, Work, sampled};
use arena_tests::temp;
use sqlx::Row;

fn block<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(f)
}

/// The database of a test: SQLite in a fresh folder, or the Postgres cluster of `on`.
async fn open(on: &On, name: String) -> Db {
    let url = match on {
        On::Sqlite => {
            let dir = temp(&format!("lease-{name}"));
            format!("sqlite://{}?mode=rwc", dir.join("course.db").display())
        }
        On::Postgres(_) => on.database()[1].to_string(),
    };
    Db::open(&url).await.expect("the database opens")
}

/// `n` waiting rows of `work`: ladder matches, or grading jobs of one student's versions.
async fn queue(db: &Db, work: &Work, n: usize) -> Vec<i64> {
    let at = "2026-11-27T00:00:00Z";
    let mut ids = Vec::new();
    let person: Option<i64> = if work.table == "jobs" {
        let row = sqlx::query(
            "INSERT INTO people (school_id, name, token_hash, created_at) VALUES ('s1', 'S', 'h', $1) RETURNING id",
        )
        .bind(at)
        .fetch_one(&db.pool)
        .await
        .unwrap();
        Some(row.try_get(0).unwrap())
    } else {
        None
    };
    for i in 0..n {
        let row = match person {
            Some(p) => {
                let sub: i64 = sqlx::query(
                    "INSERT INTO submissions (person_id, version, sha256, size, file_name, submitted_at, late_days, state) \
                     VALUES ($1, $2, 'x', 1, 'bot.wasm', $3, 0, 'queued') RETURNING id",
                )
                .bind(p)
                .bind(i as i64 + 1)
                .bind(at)
                .fetch_one(&db.pool)
                .await
                .and_then(|r| r.try_get(0))
                .unwrap();
                sqlx::query(
                    "INSERT INTO jobs (kind, submission_id, state, priority, created_at) \
                     VALUES ('grade', $1, 'queued', 0, $2) RETURNING id",
                )
                .bind(sub)
                .bind(at)
                .fetch_one(&db.pool)
                .await
            }
            None => {
                sqlx::query(
                    "INSERT INTO ladder_matches (entrants, games, priority, state, created_at) \
                     VALUES ('house:a,house:b', 2, 0, 'queued', $1) RETURNING id",
                )
                .bind(at)
                .fetch_one(&db.pool)
                .await
            }
        };
        ids.push(row.and_then(|r| r.try_get(0)).unwrap());
    }
    ids
}

/// A row's state, lease token and who did it.
async fn row(db: &Db, work: &Work, id: i64) -> (String, Option<String>, Option<i64>) {
    let r = sqlx::query(&format!(
        "SELECT state, lease, {} FROM {} WHERE id = $1",
        work.by, work.table
    ))
    .bind(id)
    .fetch_one(&db.pool)
    .await
    .unwrap();
    (r.try_get(0).unwrap(), r.try_get(1).unwrap(), r.try_get(2).unwrap())
}

fn ids(claim: &arena_server::lease::Claim) -> Vec<i64> {
    let mut v: Vec<i64> = claim.rows.iter().map(|r| r.try_get(0).unwrap()).collect();
    v.sort();
    v
}

/// Claims take each waiting row once, oldest first; nothing waits: none.
async fn claims_take_each_row_once(db: &Db, work: &'static Work) {
    let rows = queue(db, work, 3).await;
    let leases = Leases::new(db.clone(), work);
    let a = leases
        .claim(Holder::Worker(1), 2, 60, "id")
        .await
        .unwrap()
        .expect("two rows");
    let b = leases
        .claim(Holder::Worker(2), 2, 60, "id")
        .await
        .unwrap()
        .expect("the third");
    assert_eq!(ids(&a), rows[..2].to_vec(), "oldest first, at most `max`");
    assert_eq!(ids(&b), rows[2..].to_vec());
    assert_ne!(a.token, b.token, "each claim has its own token");
    assert!(
        leases.claim(Holder::Server, 5, 60, "id").await.unwrap().is_none(),
        "nothing waits"
    );
    assert_eq!(row(db, work, rows[0]).await.0, work.held);
}

/// Finish row `id` as done for `holder` under `token`, on a connection of its own; whether it was.
async fn finish(leases: &Leases, db: &Db, id: i64, token: &str, holder: Holder) -> bool {
    let mut conn = db.pool.acquire().await.unwrap();
    leases
        .finish(&mut conn, id, holder, token, Finish::Done, Some("r"))
        .await
        .unwrap()
}

/// A holder that stalled past its lease, while another claim took the
/// rows, can neither finish nor give them back; the new holder can, once.
async fn only_the_holder_finishes_or_gives_back(db: &Db, work: &'static Work) {
    let rows = queue(db, work, 1).await;
    let leases = Leases::new(db.clone(), work);
    let stalled = leases.claim(Holder::Server, 1, -1, "id").await.unwrap().unwrap();
    assert_eq!(leases.lapse().await.unwrap(), 1, "its end passed: back to the queue");
    assert_eq!(row(db, work, rows[0]).await.0, "queued");
    let holder = leases.claim(Holder::Worker(7), 1, 60, "id").await.unwrap().unwrap();
    assert!(
        !finish(&leases, db, rows[0], &stalled.token, Holder::Server).await,
        "the stalled holder records nothing"
    );
    assert!(
        !leases.put_back(rows[0], &stalled.token).await.unwrap(),
        "nor gives it back"
    );
    assert!(
        !finish(&leases, db, rows[0], &holder.token, Holder::Worker(8)).await,
        "another worker with the token is not its holder"
    );
    assert_eq!(row(db, work, rows[0]).await.1, Some(holder.token.clone()));
    assert!(finish(&leases, db, rows[0], &holder.token, Holder::Worker(7)).await);
    assert_eq!(row(db, work, rows[0]).await, ("done".into(), None, Some(7)));
    assert!(
        !finish(&leases, db, rows[0], &holder.token, Holder::Worker(7)).await,
        "a row is finished once"
    );
}

/// A renewed lease does not lapse; a lease given back waits again.
async fn renewals_keep_a_lease_and_give_back_returns_it(db: &Db, work: &'static Work) {
    let rows = queue(db, work, 2).await;
    let leases = Leases::new(db.clone(), work);
    let claim = leases.claim(Holder::Worker(3), 2, -1, "id").await.unwrap().unwrap();
    assert_eq!(
        leases.renew(Holder::Worker(4), &claim.token, 60).await.unwrap(),
        0,
        "not worker 4's"
    );
    assert_eq!(leases.renew(Holder::Worker(3), &claim.token, 60).await.unwrap(), 2);
    assert_eq!(leases.lapse().await.unwrap(), 0, "renewed: nothing lapses");
    assert!(leases.put_back(rows[1], &claim.token).await.unwrap());
    assert_eq!(row(db, work, rows[1]).await, ("queued".into(), None, None));
    assert_eq!(row(db, work, rows[0]).await.0, work.held, "the other row is still held");
    let again = leases.claim(Holder::Server, 5, 60, "id").await.unwrap().unwrap();
    assert_eq!(ids(&again), vec![rows[1]]);
}

/// A worker's result waits in `checking`; one check claims it, confirms it
/// once (done, by the worker); a disabled worker's work all goes back.
async fn checked_results_confirm_once_and_a_disabled_workers_work_goes_back(db: &Db, work: &'static Work) {
    let rows = queue(db, work, 3).await;
    let leases = Leases::new(db.clone(), work);
    let claim = leases.claim(Holder::Worker(5), 3, 60, "id").await.unwrap().unwrap();
    let mut tx = db.pool.begin().await.unwrap();
    for (id, to) in [(rows[0], Finish::Checking), (rows[1], Finish::Done)] {
        assert!(
            leases
                .finish(&mut tx, id, Holder::Worker(5), &claim.token, to, Some("r"))
                .await
                .unwrap()
        );
    }
    tx.commit().await.unwrap();
    assert_eq!(row(db, work, rows[0]).await.0, "checking");
    let (check, found) = leases
        .claim_check(60, "id")
        .await
        .unwrap()
        .expect("the result to check");
    assert_eq!(found.try_get::<i64, _>(0).unwrap(), rows[0]);
    assert!(
        leases.claim_check(60, "id").await.unwrap().is_none(),
        "one check at a time"
    );
    let mut conn = db.pool.acquire().await.unwrap();
    assert!(
        !leases.confirm(&mut conn, rows[0], &claim.token).await.unwrap(),
        "the check's token, not the worker's"
    );
    assert!(leases.confirm(&mut conn, rows[0], &check).await.unwrap());
    assert!(
        !leases.confirm(&mut conn, rows[0], &check).await.unwrap(),
        "confirmed once"
    );
    assert_eq!(row(db, work, rows[0]).await, ("done".into(), None, Some(5)));
    // Worker 5 is caught: its done, confirmed and still held rows all wait again.
    assert_eq!(leases.send_back(&mut conn, 5).await.unwrap(), 3);
    for id in &rows {
        assert_eq!(row(db, work, *id).await, ("queued".into(), None, None));
    }
}

/// A server that stopped: on SQLite (one server per course) every lease
/// is dead; on a shared Postgres only those whose end passed.
async fn a_stopped_servers_leases_are_recovered(on: &On, db: &Db, work: &'static Work) {
    let rows = queue(db, work, 2).await;
    let leases = Leases::new(db.clone(), work);
    leases.claim(Holder::Server, 1, -1, "id").await.unwrap().unwrap();
    leases.claim(Holder::Server, 1, 3600, "id").await.unwrap().unwrap();
    let back = leases.recover().await.unwrap();
    match on {
        On::Sqlite => assert_eq!(back, 2),
        On::Postgres(_) => {
            assert_eq!(back, 1, "another live server may hold the other");
            assert_eq!(row(db, work, rows[1]).await.0, work.held);
        }
    }
    assert_eq!(row(db, work, rows[0]).await.0, "queued");
}

fn the_lease_life_cycle(on: &On) {
    let name = if matches!(on, On::Sqlite) { "sqlite" } else { "pg" };
    block(async {
        for work in [&JOBS, &MATCHES] {
            // A fresh database per case: each starts from an empty queue.
            let fresh = |case: &str| open(on, format!("{name}-{}-{case}", work.table));
            let db = fresh("once").await;
            claims_take_each_row_once(&db, work).await;
            if matches!(on, On::Postgres(_)) {
                wipe(&db).await;
            }
            let db = fresh("holder").await;
            only_the_holder_finishes_or_gives_back(&db, work).await;
            if matches!(on, On::Postgres(_)) {
                wipe(&db).await;
            }
            let db = fresh("renew").await;
            renewals_keep_a_lease_and_give_back_returns_it(&db, work).await;
            if matches!(on, On::Postgres(_)) {
                wipe(&db).await;
            }
            let db = fresh("check").await;
            checked_results_confirm_once_and_a_disabled_workers_work_goes_back(&db, work).await;
            if matches!(on, On::Postgres(_)) {
                wipe(&db).await;
            }
            let db = fresh("recover").await;
            a_stopped_servers_leases_are_recovered(on, &db, work).await;
            if matches!(on, On::Postgres(_)) {
                wipe(&db).await;
            }
        }
    });
}

/// Postgres keeps one database for the whole test: empty it between cases.
async fn wipe(db: &Db) {
    assert_eq!(db.backend, Backend::Postgres);
    for t in ["jobs", "ladder_matches", "submissions", "people"] {
        sqlx::query(&format!("DELETE FROM {t}"))
            .execute(&db.pool)
            .await
            .unwrap();
    }
}

crate::server::on_both!(the_lease_life_cycle);

/// A worker's first results are all checked; after them the share checked
/// falls as first / (earlier + 1) until it reaches the configured
/// percentage, chosen under the course's secret. At its 4th result after
/// 3 first ones 3 in 4 are checked: 15,000 of 20,000 expected, a binomial
/// standard deviation of 61, so [14,700, 15,300] is about five either
/// side. Long after, 2% of 20,000 ids is 400 expected, with a standard
/// deviation of 19.8, so [300, 500] is five deviations either side (a
/// false failure about once in three million runs). Without the secret a
/// worker cannot tell which: two courses' secrets choose sets that share
/// about 2% of their members (about 8 of 400 by chance; at most 40
/// allowed), not the same set.
#[test]
fn the_sample_checks_every_first_result_then_the_set_share_chosen_by_the_secret() {
    let (one, two) = (Secret::from_bytes([1; 32]), Secret::from_bytes([2; 32]));
    assert!((0..3).all(|earlier| sampled(&one, &JOBS, 9, earlier, 3, 0)));
    let fourth = (0..20_000).filter(|&id| sampled(&one, &JOBS, id, 3, 3, 0)).count();
    assert!(
        (14_700..=15_300).contains(&fourth),
        "{fourth} of 20,000 checked at a new worker's 4th result"
    );
    assert!(
        !(0..20_000).any(|id| sampled(&one, &JOBS, id, 10_000_000, 3, 0)),
        "long after the first, 0% checks none"
    );
    assert!(
        (0..1000).all(|id| sampled(&one, &MATCHES, id, 50, 3, 100)),
        "100% checks all"
    );
    let chosen = |secret: &Secret| -> Vec<i64> {
        (0..20_000)
            .filter(|&id| sampled(secret, &MATCHES, id, 1_000_000, 3, 2))
            .collect()
    };
    let (a, b) = (chosen(&one), chosen(&two));
    assert!((300..=500).contains(&a.len()), "{} of 20,000 checked at 2%", a.len());
    let both = a.iter().filter(|id| b.binary_search(id).is_ok()).count();
    assert!(both <= 40, "{both} of {} chosen under both secrets", a.len());
}
