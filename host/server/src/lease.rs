//! One lease life cycle for all the work the server hands out: grading
//! jobs (the `jobs` table) and ladder matches (`ladder_matches`).
//!
//! A row waits (`queued`), is claimed under a lease (a random token, a
//! holder and an end time), is renewed while its holder works, lapses back
//! to the queue when its end passes, and is finished or put back only by
//! the claim whose token it still holds: a holder that stalled past its
//! lease and was overtaken records nothing. A worker's result may wait in
//! `checking` until a server has done the work again ([`Leases::claim_check`],
//! then [`Leases::confirm`], or [`Leases::send_back`] of everything a worker
//! did when it differed). Both tables run this one life cycle; [`Work`]
//! names the columns in which they differ.

use crate::course::{now, stamp};
use crate::db::{Backend, Db, Secret, new_token};
use sqlx::AnyConnection;
use sqlx::any::AnyRow;

/// A table of leased work: the names its rows give the shared life cycle.
#[derive(Debug)]
pub struct Work {
    /// The table.
    pub table: &'static str,
    /// The state of a row someone holds.
    pub held: &'static str,
    /// The column naming who did the work whose result counts.
    pub by: &'static str,
    /// The column that keeps a worker's result while it is checked.
    pub result: &'static str,
    /// Whether the result stays on the row once it counts (a match's
    /// outcome does; a verdict moves onto its submission).
    pub keeps_result: bool,
    /// The worker id the server itself holds rows under (`None`: SQL NULL).
    pub server: Option<i64>,
    /// Whether a claim stamps `started_at`.
    pub stamps_start: bool,
}

/// Grading jobs and version tests.
pub const JOBS: Work = Work {
    table: "jobs",
    held: "running",
    by: "done_by",
    result: "result",
    keeps_result: false,
    server: None,
    stamps_start: true,
};

/// Ladder matches.
pub const MATCHES: Work = Work {
    table: "ladder_matches",
    held: "leased",
    by: "played_by",
    result: "outcome",
    keeps_result: true,
    server: Some(0),
    stamps_start: false,
};

/// Who holds a lease.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    /// This server (or another sharing its database), doing the work itself.
    Server,
    /// An external worker, by id.
    Worker(i64),
}

/// Where a finished row goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// Its result counts.
    Done,
    /// Its result waits until a server has done the work again.
    Checking,
    /// It needed nothing (what it was for is gone): done, by no one.
    Nothing,
}

/// Rows claimed under one lease.
pub struct Claim {
    /// The lease's token: only its holder may finish or put back the rows.
    pub token: String,
    /// The rows, with the columns the claim asked to return.
    pub rows: Vec<AnyRow>,
}

/// The lease life cycle of one kind of work on one database.
#[derive(Debug, Clone)]
pub struct Leases {
    db: Db,
    work: &'static Work,
}

fn db_error(e: sqlx::Error) -> String {
    e.to_string()
}

impl Leases {
    /// The leases of `work` on `db`.
    pub fn new(db: Db, work: &'static Work) -> Leases {
        Leases { db, work }
    }

    fn holder_id(&self, holder: Holder) -> Option<i64> {
        match holder {
            Holder::Server => self.work.server,
            Holder::Worker(id) => Some(id),
        }
    }

    /// At start, give back what a stopped server held. One server owns an
    /// SQLite course, so every lease on it belongs to a process that is gone
    /// (a worker's late result is then refused, and the work is done again);
    /// a Postgres course may be shared by live servers, so only leases that
    /// ran out (or never had an end) go back. Returns how many rows.
    pub async fn recover(&self) -> Result<u64, String> {
        let Work { table, held, .. } = self.work;
        let back = format!(
            "UPDATE {table} SET state = 'queued', worker_id = NULL, lease = NULL, lease_until = NULL WHERE state = '{held}'"
        );
        let done = match self.db.backend {
            Backend::Sqlite => sqlx::query(&back).execute(&self.db.pool).await,
            Backend::Postgres => {
                sqlx::query(&format!("{back} AND (lease_until IS NULL OR lease_until < $1)"))
                    .bind(stamp(now()))
                    .execute(&self.db.pool)
                    .await
            }
        };
        Ok(done.map_err(db_error)?.rows_affected())
    }

    /// Give back every lease whose end passed (a holder that died or lost
    /// the database): the next claim, here or elsewhere, takes the rows.
    pub async fn lapse(&self) -> Result<u64, String> {
        let Work { table, held, .. } = self.work;
        let done = sqlx::query(&format!(
            "UPDATE {table} SET state = 'queued', worker_id = NULL, lease = NULL, lease_until = NULL \
             WHERE state = '{held}' AND lease_until < $1"
        ))
        .bind(stamp(now()))
        .execute(&self.db.pool)
        .await
        .map_err(db_error)?;
        Ok(done.rows_affected())
    }

    /// Claim up to `max` waiting rows (highest priority, then oldest) for
    /// `holder`, for `seconds`, returning the columns `returning` names.
    /// Two claims never take the same row (one writer on SQLite, `SKIP
    /// LOCKED` on Postgres). `None` when nothing waits.
    pub async fn claim(
        &self,
        holder: Holder,
        max: usize,
        seconds: i64,
        returning: &str,
    ) -> Result<Option<Claim>, String> {
        self.claim_only(holder, max, seconds, returning, "").await
    }

    /// [`Leases::claim`] of the waiting rows that also meet `only` (an SQL
    /// condition of this program's, such as `AND kind = 'grade'`; never a
    /// user's text).
    pub async fn claim_only(
        &self,
        holder: Holder,
        max: usize,
        seconds: i64,
        returning: &str,
        only: &'static str,
    ) -> Result<Option<Claim>, String> {
        let Work { table, held, .. } = self.work;
        let token = new_token()?;
        let lock = match self.db.backend {
            Backend::Sqlite => "",
            Backend::Postgres => " FOR UPDATE SKIP LOCKED",
        };
        let start = if self.work.stamps_start {
            ", started_at = $5"
        } else {
            ""
        };
        let sql = format!(
            "UPDATE {table} SET state = '{held}', attempts = attempts + 1, worker_id = $1, lease = $2, \
             lease_until = $3{start} WHERE id IN \
             (SELECT id FROM {table} WHERE state = 'queued'{only} ORDER BY priority DESC, id LIMIT $4{lock}) \
             RETURNING {returning}"
        );
        let at = now();
        let mut query = sqlx::query(&sql)
            .bind(self.holder_id(holder))
            .bind(&token)
            .bind(stamp(at + time::Duration::seconds(seconds)))
            .bind(max.max(1) as i64);
        if self.work.stamps_start {
            query = query.bind(stamp(at));
        }
        let rows = query.fetch_all(&self.db.pool).await.map_err(db_error)?;
        Ok((!rows.is_empty()).then_some(Claim { token, rows }))
    }

    /// Extend `holder`'s lease `token` by `seconds` from now; how many rows
    /// it still holds (0: it lapsed and was taken, or was finished).
    pub async fn renew(&self, holder: Holder, token: &str, seconds: i64) -> Result<u64, String> {
        let Work { table, held, .. } = self.work;
        let whose = match holder {
            Holder::Server => "",
            Holder::Worker(_) => " AND worker_id = $3",
        };
        let sql = format!("UPDATE {table} SET lease_until = $1 WHERE state = '{held}' AND lease = $2{whose}");
        let mut query = sqlx::query(&sql)
            .bind(stamp(now() + time::Duration::seconds(seconds)))
            .bind(token);
        if let Holder::Worker(id) = holder {
            query = query.bind(id);
        }
        Ok(query.execute(&self.db.pool).await.map_err(db_error)?.rows_affected())
    }

    /// Renew the server's lease `token` every third of `seconds` until the
    /// returned guard is dropped (the work ended, however it ended) or the
    /// lease is no longer held.
    pub fn keep(&self, token: &str, seconds: i64) -> Kept {
        let (leases, token) = (self.clone(), token.to_string());
        Kept(tokio::spawn(async move {
            loop {
                tokio::time::sleep(std::time::Duration::from_secs((seconds as u64 / 3).max(1))).await;
                match leases.renew(Holder::Server, &token, seconds).await {
                    Ok(0) => return,
                    Ok(_) => {}
                    Err(e) => eprintln!("arena serve: cannot renew a lease on {} ({e})", leases.work.table),
                }
            }
        }))
    }

    /// Put row `id`, held under `token`, back in the queue; whether it was
    /// (a lease that lapsed and was claimed again is not the holder's to give back).
    pub async fn put_back(&self, id: i64, token: &str) -> Result<bool, String> {
        let Work { table, held, .. } = self.work;
        let done = sqlx::query(&format!(
            "UPDATE {table} SET state = 'queued', worker_id = NULL, lease = NULL, lease_until = NULL \
             WHERE id = $1 AND state = '{held}' AND lease = $2"
        ))
        .bind(id)
        .bind(token)
        .execute(&self.db.pool)
        .await
        .map_err(db_error)?;
        Ok(done.rows_affected() == 1)
    }

    /// Finish row `id`, held by `holder` under `token`, in `conn` (a
    /// transaction that records what the work gave), keeping `result` on
    /// the row; whether the holder still held it (a row is finished once).
    pub async fn finish(
        &self,
        conn: &mut AnyConnection,
        id: i64,
        holder: Holder,
        token: &str,
        to: Finish,
        result: Option<&str>,
    ) -> Result<bool, String> {
        let Work {
            table,
            held,
            by,
            result: kept,
            ..
        } = self.work;
        let state = match to {
            Finish::Checking => "checking",
            Finish::Done | Finish::Nothing => "done",
        };
        let whose = match holder {
            Holder::Server => "",
            Holder::Worker(_) => " AND worker_id = $6",
        };
        let sql = format!(
            "UPDATE {table} SET state = '{state}', finished_at = $1, {by} = $2, {kept} = $3, lease = NULL, \
             lease_until = NULL WHERE id = $4 AND state = '{held}' AND lease = $5{whose}"
        );
        let done_by = if to == Finish::Nothing {
            None
        } else {
            self.holder_id(holder)
        };
        let mut query = sqlx::query(&sql)
            .bind(stamp(now()))
            .bind(done_by)
            .bind(result)
            .bind(id)
            .bind(token);
        if let Holder::Worker(w) = holder {
            query = query.bind(w);
        }
        Ok(query.execute(conn).await.map_err(db_error)?.rows_affected() == 1)
    }

    /// Claim the oldest result waiting to be checked for `hold` seconds
    /// (another server sharing the database leaves it alone meanwhile),
    /// returning the columns `returning` names; with the check's token.
    pub async fn claim_check(&self, hold: i64, returning: &str) -> Result<Option<(String, AnyRow)>, String> {
        let table = self.work.table;
        let token = new_token()?;
        let lock = match self.db.backend {
            Backend::Sqlite => "",
            Backend::Postgres => " FOR UPDATE SKIP LOCKED",
        };
        let at = now();
        let row = sqlx::query(&format!(
            "UPDATE {table} SET lease = $1, lease_until = $3 WHERE id = \
             (SELECT id FROM {table} WHERE state = 'checking' AND (lease_until IS NULL OR lease_until < $2) \
             ORDER BY id LIMIT 1{lock}) RETURNING {returning}"
        ))
        .bind(&token)
        .bind(stamp(at))
        .bind(stamp(at + time::Duration::seconds(hold)))
        .fetch_optional(&self.db.pool)
        .await
        .map_err(db_error)?;
        Ok(row.map(|r| (token, r)))
    }

    /// A checked result was the same when done again: row `id` (checked
    /// under `token`) is done and verified, by the worker that did it;
    /// whether it was still waiting.
    pub async fn confirm(&self, conn: &mut AnyConnection, id: i64, token: &str) -> Result<bool, String> {
        let Work {
            table,
            by,
            result,
            keeps_result,
            ..
        } = self.work;
        let clear = if *keeps_result {
            String::new()
        } else {
            format!(", {result} = NULL")
        };
        let done = sqlx::query(&format!(
            "UPDATE {table} SET state = 'done', verified = 1, {by} = worker_id, lease = NULL, lease_until = NULL{clear} \
             WHERE id = $1 AND state = 'checking' AND lease = $2"
        ))
        .bind(id)
        .bind(token)
        .execute(conn)
        .await
        .map_err(db_error)?;
        Ok(done.rows_affected() == 1)
    }

    /// Send everything `worker` did or holds back to the queue (a result of
    /// its differed when done again: none of its results is trusted).
    pub async fn send_back(&self, conn: &mut AnyConnection, worker: i64) -> Result<u64, String> {
        let Work {
            table,
            held,
            by,
            result,
            ..
        } = self.work;
        let done = sqlx::query(&format!(
            "UPDATE {table} SET state = 'queued', {result} = NULL, finished_at = NULL, {by} = NULL, verified = 0, \
             lease = NULL, lease_until = NULL, worker_id = NULL \
             WHERE {by} = $1 OR (worker_id = $1 AND state IN ('{held}', 'checking'))"
        ))
        .bind(worker)
        .execute(conn)
        .await
        .map_err(db_error)?;
        Ok(done.rows_affected())
    }
}

/// Stops the renewals of a lease ([`Leases::keep`]) when dropped.
#[derive(Debug)]
pub struct Kept(tokio::task::JoinHandle<()>);

impl Drop for Kept {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Whether a worker's result of row `id` of `work` is done again by a
/// server: all of a worker's first `first` results (it has had `earlier`
/// taken), then a share that falls as `first / (earlier + 1)` (a new
/// worker is checked more: after 5 first results, 5 in 6, then 1 in 2 at
/// its 10th, 1 in 10 at its 50th) until it reaches `percent` in a hundred;
/// chosen under the course's secret once the result is in, so a worker
/// cannot tell which of its results will be checked (ids and seeds it is
/// handed decide nothing).
pub fn sampled(secret: &Secret, work: &Work, id: i64, earlier: i64, first: u32, percent: u32) -> bool {
    let earlier = u64::try_from(earlier).unwrap_or(0);
    // Shares in parts of a million: the falling share stays exact to a
    // millionth long after a percentage would have rounded it away.
    let falling = u64::from(first).saturating_mul(1_000_000) / (earlier + 1);
    let share = falling.max(u64::from(percent).saturating_mul(10_000));
    secret.derive(work.table, id) % 1_000_000 < share
}
