//! The finished matches: folded into counts once finished (the counts of
//! the versions on the ladder are all the fit reads, so memory holds them
//! and nothing per match), each row kept in full while a page may link it
//! (its entrants' newest [`KEEP_NEWEST`], and any that was among them less
//! than [`KEEP_FOR`] ago), then deleted.

use super::counts::{Counts, GameKind, Source};
use super::types::Done;
use super::{Ladder, RECOUNT, elapsed, mark};
use crate::course::{now, stamp};
use crate::play::Outcome;
use futures_util::TryStreamExt as _;
use sqlx::Row as _;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

/// Finished matches kept in full per entrant: the newest this many (its
/// ladder page lists its last 20, each of whose games can be watched).
pub const KEEP_NEWEST: usize = 20;

/// A match stays in full this long after it stopped being among one of
/// its entrants' newest [`KEEP_NEWEST`]: a page opened before then may
/// still link it.
pub const KEEP_FOR: Duration = Duration::from_secs(600);

/// Matches folded per transaction: a commit each, and as much memory as
/// their outcomes take while folded (about 1 MB for 10-game matches).
const CHUNK: i64 = 1000;

/// How often the rows no page can link are looked for (each look reads
/// the ids of every kept row).
const PRUNE_EVERY: Duration = Duration::from_secs(30);

/// A finished match from its row (`id, entrants, outcome, finished_at, played_by, verified`);
/// `None` for an outcome that does not read.
fn done_of(r: &sqlx::any::AnyRow) -> Option<Done> {
    let entrants: String = r.try_get(1).unwrap_or_default();
    let outcome = r
        .try_get::<String, _>(2)
        .ok()
        .and_then(|t| serde_json::from_str::<Outcome>(&t).ok())?;
    Some(Done {
        id: r.try_get(0).unwrap_or_default(),
        keys: entrants.split(',').map(String::from).collect(),
        outcome,
        finished_at: r.try_get::<Option<String>, _>(3).ok().flatten().unwrap_or_default(),
        by: r.try_get::<Option<i64>, _>(4).ok().flatten().unwrap_or(0),
        verified: r.try_get::<i64, _>(5).is_ok_and(|v| v != 0),
    })
}

/// What became of a finished ladder match asked for by number.
#[derive(Debug, Clone)]
pub enum Finished {
    /// Kept in full: its games can be watched.
    Kept(Arc<Done>),
    /// Folded into the counts and no longer kept: its result counts.
    Compacted,
    /// No such match.
    Unknown,
}

impl Ladder {
    /// The finished matches that involve `key`, newest first (those kept in full).
    pub async fn matches_of(&self, key: &str, limit: usize) -> Result<Vec<Done>, String> {
        // `_` in a key matches any one character: the exact test follows.
        let rows = sqlx::query(
            "SELECT id, entrants, outcome, finished_at, played_by, verified FROM ladder_matches \
             WHERE state = 'done' AND (',' || entrants || ',') LIKE $1 ORDER BY id DESC LIMIT $2",
        )
        .bind(format!("%,{key},%"))
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        Ok(rows
            .iter()
            .filter_map(done_of)
            .filter(|d| d.keys.iter().any(|k| k == key))
            .collect())
    }

    /// Each opponent's record against `key` (won, drawn, lost from `key`'s
    /// side), over every match among the versions now on the ladder.
    pub fn heads(&self, key: &str) -> std::collections::BTreeMap<String, [u32; 3]> {
        self.counts.lock().map(|c| c.heads(key)).unwrap_or_default()
    }

    /// A finished match by id: kept in full, compacted, or unknown.
    pub async fn finished(&self, id: i64) -> Result<Finished, String> {
        let row = sqlx::query(
            "SELECT id, entrants, outcome, finished_at, played_by, verified, state FROM ladder_matches WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        if let Some(r) = row {
            let state: String = r.try_get(6).unwrap_or_default();
            return Ok(match (state.as_str(), done_of(&r)) {
                ("done", Some(d)) => Finished::Kept(Arc::new(d)),
                _ => Finished::Unknown,
            });
        }
        // Ids only grow: a missing one below the highest was deleted, and
        // only a folded match or a queued one never played is deleted.
        let highest: Option<i64> = sqlx::query("SELECT MAX(id) FROM ladder_matches")
            .fetch_one(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?
            .try_get(0)
            .ok()
            .flatten();
        Ok(if id > 0 && highest.is_some_and(|h| id < h) {
            Finished::Compacted
        } else {
            Finished::Unknown
        })
    }

    /// Fold every finished match not yet folded into `ladder_counts`, oldest
    /// first, a [`CHUNK`] a transaction (so memory holds one chunk, however
    /// many wait); the counts in memory are those of the entrants `on` the
    /// ladder, read again in full when the entrants change, after a worker
    /// was disabled, and every [`RECOUNT`] (another server's folds). Then,
    /// now and then, delete the rows no page can link. Returns the matches folded.
    /// The caller holds [`Ladder::folding`].
    pub(super) async fn compact(&self, on: &HashSet<String>) -> Result<u64, String> {
        let mut folded = 0u64;
        loop {
            let (n, delta) = self.fold_chunk().await?;
            folded += n;
            self.folded.fetch_add(n, std::sync::atomic::Ordering::SeqCst);
            if let Ok(mut c) = self.counts.lock() {
                c.add(&delta, |k| on.contains(k));
            }
            if n < CHUNK as u64 {
                break;
            }
        }
        let changed = self.on.lock().map_or(true, |o| *o != *on);
        if changed || elapsed(&self.reread, RECOUNT) {
            mark(&self.reread);
            if let Err(e) = self.reload(on).await {
                // Read in full again at the next fit, not a minute later.
                if let Ok(mut r) = self.reread.lock() {
                    *r = None;
                }
                return Err(e);
            }
        }
        if folded >= CHUNK as u64 || elapsed(&self.pruned, PRUNE_EVERY) {
            mark(&self.pruned);
            // A failed deletion leaves rows for the next prune: the fit and
            // its board go on (the ladder would otherwise never rest).
            if let Err(e) = self.prune().await {
                eprintln!("arena serve: the ladder cannot delete old match rows ({e})");
            }
            if let Err(e) = self.retire().await {
                eprintln!("arena serve: the ladder cannot delete the counts of replaced versions ({e})");
            }
        }
        Ok(folded)
    }

    /// Fold up to [`CHUNK`] finished matches in one transaction: how many,
    /// and what they added. A match is folded once, whichever server folds
    /// it: the rows are marked and returned by one statement.
    async fn fold_chunk(&self) -> Result<(u64, Counts), String> {
        let lock = match self.db.backend {
            crate::db::Backend::Sqlite => "",
            crate::db::Backend::Postgres => " FOR UPDATE SKIP LOCKED",
        };
        let mut tx = self.db.pool.begin().await.map_err(|e| e.to_string())?;
        let rows = sqlx::query(&format!(
            "UPDATE ladder_matches SET folded = 1 WHERE id IN \
             (SELECT id FROM ladder_matches WHERE folded = 0 AND state = 'done' ORDER BY id LIMIT $1{lock}) \
             AND folded = 0 AND state = 'done' \
             RETURNING id, entrants, outcome, finished_at, played_by, verified"
        ))
        .bind(CHUNK)
        .fetch_all(&mut *tx)
        .await
        .map_err(|e| e.to_string())?;
        let n = rows.len() as u64;
        // An outcome that does not read counts for nothing, as before it was folded.
        let delta = Counts::of(rows.iter().filter_map(done_of).collect::<Vec<_>>().iter());
        drop(rows);
        for ((entrants, source), b) in &delta.buckets {
            let add = |game: String, n: u64, scored: u64, score: f64, squares: f64| {
                sqlx::query(
                    "INSERT INTO ladder_counts (entrants, played_by, verified, game, n, scored, score, squares) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
                     ON CONFLICT (entrants, played_by, verified, game) DO UPDATE SET n = ladder_counts.n + excluded.n, \
                     scored = ladder_counts.scored + excluded.scored, score = ladder_counts.score + excluded.score, \
                     squares = ladder_counts.squares + excluded.squares",
                )
                .bind(entrants.clone())
                .bind(source.by)
                .bind(i64::from(source.verified))
                .bind(game)
                .bind(i64::try_from(n).unwrap_or(i64::MAX))
                .bind(i64::try_from(scored).unwrap_or(i64::MAX))
                .bind(score)
                .bind(squares)
            };
            add(String::new(), b.matches, b.scored, b.score, b.squares)
                .execute(&mut *tx)
                .await
                .map_err(|e| e.to_string())?;
            for (kind, &games) in &b.games {
                add(kind.text(), games, 0, 0.0, 0.0)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| e.to_string())?;
            }
            for (&e, &(games, sum)) in &b.sums {
                add(super::counts::sums_row(e), games, 0, sum, 0.0)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| e.to_string())?;
            }
            for (&e, &(matches, sum, squares)) in &b.places {
                add(super::counts::places_row(e), matches, 0, sum, squares)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| e.to_string())?;
            }
        }
        tx.commit().await.map_err(|e| e.to_string())?;
        Ok((n, delta))
    }

    /// Read the counts of the entrants `on` the ladder in full.
    async fn reload(&self, on: &HashSet<String>) -> Result<(), String> {
        let mut counts = Counts::default();
        // One statement: one consistent view, whatever another server folds
        // meanwhile. Read row by row, not all at once: the table holds every
        // pairing of every version ever on the ladder (235,000 rows for a
        // class of 200 after 100,000 matches), and a reload read whole took
        // hundreds of MB the allocator then kept (the semester benchmark).
        let mut rows =
            sqlx::query("SELECT entrants, played_by, verified, game, n, scored, score, squares FROM ladder_counts")
                .fetch(&self.db.pool);
        while let Some(r) = rows.try_next().await.map_err(|e| e.to_string())? {
            let entrants: String = r.try_get(0).unwrap_or_default();
            if !entrants.split(',').all(|k| on.contains(k)) {
                continue;
            }
            let source = Source {
                by: r.try_get(1).unwrap_or_default(),
                verified: r.try_get::<i64, _>(2).is_ok_and(|v| v != 0),
            };
            let game: String = r.try_get(3).unwrap_or_default();
            let n = u64::try_from(r.try_get::<i64, _>(4).unwrap_or_default()).unwrap_or(0);
            let b = counts.buckets.entry((entrants, source)).or_default();
            if game.is_empty() {
                b.matches += n;
                b.scored += u64::try_from(r.try_get::<i64, _>(5).unwrap_or_default()).unwrap_or(0);
                b.score += r.try_get::<f64, _>(6).unwrap_or_default();
                b.squares += r.try_get::<f64, _>(7).unwrap_or_default();
            } else if let Some(e) = game.strip_prefix('#').and_then(|e| e.parse::<usize>().ok()) {
                let sum = b.sums.entry(e).or_default();
                sum.0 += n;
                sum.1 += r.try_get::<f64, _>(6).unwrap_or_default();
            } else if let Some(e) = game.strip_prefix('%').and_then(|e| e.parse::<usize>().ok()) {
                let p = b.places.entry(e).or_default();
                p.0 += n;
                p.1 += r.try_get::<f64, _>(6).unwrap_or_default();
                p.2 += r.try_get::<f64, _>(7).unwrap_or_default();
            } else if let Ok(kind) = serde_json::from_str::<GameKind>(&game) {
                *b.games.entry(kind).or_default() += n;
            }
        }
        drop(rows);
        if let Ok(mut c) = self.counts.lock() {
            *c = counts;
        }
        if let Ok(mut o) = self.on.lock() {
            *o = on.clone();
        }
        Ok(())
    }

    /// Delete the folded rows no page can link: a row goes once, for each
    /// of its entrants, [`KEEP_NEWEST`] newer matches of that entrant
    /// finished more than [`KEEP_FOR`] ago (so it has not been among the
    /// newest for that long). Returns how many went.
    pub(super) async fn prune(&self) -> Result<u64, String> {
        let cutoff = stamp(now() - time::Duration::seconds(KEEP_FOR.as_secs() as i64));
        let mut keys: HashMap<String, usize> = HashMap::new();
        let mut newer: Vec<usize> = Vec::new();
        let mut deleted = 0u64;
        // Newest first, a page at a time: memory holds one page, however
        // many are kept; a row's fate depends only on newer rows, so each
        // page's rows to delete go before the next page is read.
        let mut below = i64::MAX;
        loop {
            let rows = sqlx::query(
                "SELECT id, entrants, finished_at FROM ladder_matches WHERE folded = 1 AND id < $1 ORDER BY id DESC LIMIT 5000",
            )
            .bind(below)
            .fetch_all(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
            let Some(last) = rows.last() else { break };
            below = last.try_get(0).unwrap_or_default();
            let mut gone: Vec<i64> = Vec::new();
            for r in &rows {
                let id: i64 = r.try_get(0).unwrap_or_default();
                let entrants: String = r.try_get(1).unwrap_or_default();
                let finished: String = r.try_get::<Option<String>, _>(2).ok().flatten().unwrap_or_default();
                let at: Vec<usize> = entrants
                    .split(',')
                    .map(|k| {
                        let next = keys.len();
                        *keys.entry(k.to_string()).or_insert(next)
                    })
                    .collect();
                newer.resize(keys.len(), 0);
                if at.iter().all(|&i| newer[i] >= KEEP_NEWEST) {
                    gone.push(id);
                }
                if finished.as_str() < cutoff.as_str() {
                    for &i in &at {
                        newer[i] += 1;
                    }
                }
            }
            drop(rows);
            for chunk in gone.chunks(500) {
                let list: Vec<String> = chunk.iter().map(i64::to_string).collect();
                // Integers the database gave: no one's text reaches this
                // statement; not kept prepared, since no two lists are alike.
                sqlx::query(&format!(
                    "DELETE FROM ladder_matches WHERE folded = 1 AND id IN ({})",
                    list.join(",")
                ))
                .persistent(false)
                .execute(&self.db.pool)
                .await
                .map_err(|e| e.to_string())?;
            }
            deleted += gone.len() as u64;
        }
        Ok(deleted)
    }

    /// Delete the counts of every pairing of a version replaced for good: a
    /// newer version of its student was accepted and the student did not
    /// choose it. Nothing reads them (the fit, the records, the statistics
    /// and the scheduler read the versions on the ladder), and kept they
    /// grew the table by about 2,400 rows an upload (the semester
    /// benchmark). A version only queued again (a re-grade) is not
    /// replaced: its successor is not accepted meanwhile, so nothing goes.
    /// A replaced version the student chooses again starts from no matches,
    /// as a new one does. Sweeps when a version was replaced, and every
    /// [`KEEP_FOR`] for the matches of replaced versions folded since.
    /// Returns the rows deleted.
    pub(super) async fn retire(&self) -> Result<u64, String> {
        let rows = sqlx::query(
            "SELECT s.id FROM submissions s JOIN people p ON p.id = s.person_id \
             WHERE (p.counted IS NULL OR p.counted <> s.version) AND EXISTS (SELECT 1 FROM submissions t \
             WHERE t.person_id = s.person_id AND t.version > s.version AND t.state = 'accepted')",
        )
        .fetch_all(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        let replaced: HashSet<String> = rows
            .iter()
            .map(|r| format!("s{}", r.try_get::<i64, _>(0).unwrap_or_default()))
            .collect();
        drop(rows);
        {
            let Ok(r) = self.retired.lock() else {
                return Ok(0);
            };
            let due = r.1.is_none_or(|t| t.elapsed() > KEEP_FOR);
            if !due && replaced.is_subset(&r.0) {
                return Ok(0);
            }
        }
        let mut doomed: Vec<String> = Vec::new();
        {
            let mut rows = sqlx::query("SELECT DISTINCT entrants FROM ladder_counts").fetch(&self.db.pool);
            while let Some(r) = rows.try_next().await.map_err(|e| e.to_string())? {
                let entrants: String = r.try_get(0).unwrap_or_default();
                if entrants.split(',').any(|k| replaced.contains(k)) {
                    doomed.push(entrants);
                }
            }
        }
        let mut deleted = 0u64;
        for chunk in doomed.chunks(500) {
            let marks: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
            let sql = format!("DELETE FROM ladder_counts WHERE entrants IN ({})", marks.join(","));
            let mut q = sqlx::query(&sql).persistent(false);
            for e in chunk {
                q = q.bind(e.clone());
            }
            deleted += q
                .execute(&self.db.pool)
                .await
                .map_err(|e| e.to_string())?
                .rows_affected();
        }
        if let Ok(mut r) = self.retired.lock() {
            *r = (replaced, Some(std::time::Instant::now()));
        }
        Ok(deleted)
    }

    /// A worker was disabled since the counts were read: its counts were
    /// deleted and its matches went back to the queue, so they are read again.
    pub(super) fn forget_if_disabled(&self) {
        use std::sync::atomic::Ordering;
        let now = self.workers.generation();
        if self.seen.swap(now, Ordering::SeqCst) != now
            && let Ok(mut r) = self.reread.lock()
        {
            *r = None;
        }
    }
}
