//! Which matches to queue: each pairing as the matchmaker picks it, a new
//! version's first matches before the rest, enough of them waiting for
//! every thread that plays.

use super::types::{Board, Counted, Current};
use super::{FROZEN, Ladder, RECOUNT, elapsed, mark};
use crate::course::{now, stamp};
use arena_competition::ladder::{Entrant as Seeded, next};
use sqlx::Row as _;
use std::collections::HashMap;
use std::time::Duration;

/// Past matches the scheduler reads to avoid rematches.
const RECENT: i64 = 200;

impl Ladder {
    /// Queue matches until `ahead` wait: each pairing as the matchmaker
    /// picks it, a new version's first matches before the rest. Queued
    /// matches of versions no longer on the ladder are dropped.
    pub async fn schedule(&self, ahead: usize) -> Result<usize, String> {
        if self.setting(FROZEN).await {
            return Ok(0);
        }
        // While half the queue still waits, a count is all a round reads
        // (the versions, counts and pairings are read when it tops up, and
        // every 2 s, which also drops matches of replaced versions).
        let waiting: i64 = sqlx::query("SELECT COUNT(*) FROM ladder_matches WHERE state = 'queued'")
            .fetch_one(&self.db.pool)
            .await
            .and_then(|r| r.try_get(0))
            .map_err(|e| e.to_string())?;
        if usize::try_from(waiting).unwrap_or(0) >= ahead / 2 && !elapsed(&self.scheduled, Duration::from_secs(2)) {
            return Ok(0);
        }
        mark(&self.scheduled);
        let current = self.current().await?;
        let keys: HashMap<&str, usize> = current.iter().enumerate().map(|(i, c)| (c.key.as_str(), i)).collect();
        let queued = self.drop_replaced(&keys).await?;
        if queued >= ahead || current.iter().filter(|c| c.person.is_some()).count() == 0 {
            return Ok(0);
        }
        // One board for the rule and for the check that it is fresh: a fit
        // may publish another between the two.
        let board = self.board();
        let (mut seeded, mut recent) = self.seeded(&current, &keys, &board).await?;
        // The stopping rule: a version that has its matches and a narrow
        // enough interval rests (it is still met, never picked first, as a
        // house bot); when all rest, so does the ladder.
        let rule = &self.course.config.ladder;
        let mut wanted: Vec<u64> = seeded
            .iter()
            .map(|e| {
                if e.anchor {
                    0
                } else {
                    rule.wanted(e.matches, 3.92 * e.se)
                }
            })
            .collect();
        for (e, w) in seeded.iter_mut().zip(&wanted) {
            e.anchor |= *w == 0;
        }
        if seeded.iter().all(|e| e.anchor) {
            // Rest only on a board fitted on every result: an interval read
            // while matches were still unplayed or unfitted can widen once
            // they are in (a bot that loses them all), and the ladder would
            // wake again with nothing changed but the timing of the fit.
            let settled = self.settled(&board).await?;
            if let Ok(mut r) = self.resting.lock() {
                *r = settled.then(|| current.iter().map(|c| c.key.clone()).collect());
            }
            return Ok(0);
        }
        if let Ok(mut r) = self.resting.lock() {
            *r = None;
        }
        let mut made = 0;
        let at = stamp(now());
        // One transaction for the batch: one commit, not one per match.
        let mut tx = self.db.pool.begin().await.map_err(|e| e.to_string())?;
        while queued + made < ahead {
            let Some(pick) = next(&seeded, &recent, self.table) else {
                break;
            };
            let priority = i64::from(seeded[pick[0]].matches == 0);
            let entrants: Vec<&str> = pick.iter().map(|&i| current[i].key.as_str()).collect();
            sqlx::query(
                "INSERT INTO ladder_matches (entrants, games, priority, state, created_at) VALUES ($1, $2, $3, 'queued', $4)",
            )
            .bind(entrants.join(","))
            .bind(self.games as i64)
            .bind(priority)
            .bind(&at)
            .execute(&mut *tx)
            .await
            .map_err(|e| e.to_string())?;
            for &i in &pick {
                seeded[i].matches += 1;
                wanted[i] = wanted[i].saturating_sub(1);
                seeded[i].anchor |= wanted[i] == 0;
            }
            recent.push(pick.iter().map(|&i| seeded[i].id).collect());
            made += 1;
        }
        tx.commit().await.map_err(|e| e.to_string())?;
        if made > 0 {
            self.wake.notify_waiters();
        }
        Ok(made)
    }

    /// Every match is played and folded, and `board` (the one the rule
    /// was read on) was fitted after the last fold (the fit holds
    /// [`Ladder::folding`] from its fold to its board, so no fold falls
    /// between what this reads).
    async fn settled(&self, board: &Board) -> Result<bool, String> {
        let _fit = self.folding.lock().await;
        let unfolded: i64 = sqlx::query("SELECT COUNT(*) FROM ladder_matches WHERE folded = 0")
            .fetch_one(&self.db.pool)
            .await
            .and_then(|r| r.try_get(0))
            .map_err(|e| e.to_string())?;
        Ok(unfolded == 0 && board.through == self.folded.load(std::sync::atomic::Ordering::SeqCst))
    }

    /// Drop the queued matches of entrants no longer on the ladder (`keys`:
    /// the current ones); how many queued matches remain.
    async fn drop_replaced(&self, keys: &HashMap<&str, usize>) -> Result<usize, String> {
        let waiting = sqlx::query("SELECT id, entrants FROM ladder_matches WHERE state = 'queued'")
            .fetch_all(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
        let mut queued = 0usize;
        for r in &waiting {
            let entrants: String = r.try_get(1).unwrap_or_default();
            if entrants.split(',').all(|k| keys.contains_key(k)) {
                queued += 1;
                continue;
            }
            let id: i64 = r.try_get(0).unwrap_or_default();
            let gone = sqlx::query("DELETE FROM ladder_matches WHERE id = $1 AND state = 'queued'")
                .bind(id)
                .execute(&self.db.pool)
                .await
                .is_ok_and(|d| d.rows_affected() == 1);
            // A dropped match no longer counts for its entrants.
            if let (true, Ok(mut c)) = (gone, self.counted.lock())
                && id <= c.last
            {
                for k in entrants.split(',') {
                    if let Some(n) = c.counts.get_mut(k) {
                        *n = n.saturating_sub(1);
                    }
                }
            }
        }
        Ok(queued)
    }

    /// What the matchmaker needs of the `current` entrants (`keys`: their
    /// index by key): each one's matches so far, rating and its standard
    /// error, and the recent pairings (by entrant id, oldest first).
    async fn seeded(
        &self,
        current: &[Current],
        keys: &HashMap<&str, usize>,
        board: &Board,
    ) -> Result<(Vec<Seeded>, Vec<Vec<i64>>), String> {
        let counts = self.match_counts().await?;
        let recent_rows = sqlx::query("SELECT entrants FROM ladder_matches ORDER BY id DESC LIMIT $1")
            .bind(RECENT)
            .fetch_all(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
        let recent: Vec<Vec<i64>> = recent_rows
            .iter()
            .rev()
            .map(|r| {
                let e: String = r.try_get(0).unwrap_or_default();
                e.split(',')
                    .filter_map(|k| keys.get(k).map(|&i| current[i].id))
                    .collect()
            })
            .collect();
        let rated: HashMap<&str, (f64, f64)> = board
            .rows
            .iter()
            .map(|r| (r.key.as_str(), (r.rating, (r.interval[1] - r.interval[0]) / 3.92)))
            .collect();
        let seeded = current
            .iter()
            .map(|c| {
                let (rating, se) = rated.get(c.key.as_str()).copied().unwrap_or((1500.0, 350.0));
                Seeded {
                    id: c.id,
                    matches: counts.get(&c.key).copied().unwrap_or(0),
                    rating,
                    se,
                    since: c.id.max(0),
                    anchor: c.person.is_none(),
                }
            })
            .collect();
        Ok((seeded, recent))
    }

    /// Matches per entrant key, every match counted once: only the rows
    /// added since the last call are read, all of them (and the folded
    /// counts) once a [`RECOUNT`].
    async fn match_counts(&self) -> Result<HashMap<String, u64>, String> {
        let last = {
            let mut c = self.counted.lock().map_err(|e| e.to_string())?;
            if c.full.is_none_or(|t| t.elapsed() > RECOUNT) {
                *c = Counted {
                    full: Some(std::time::Instant::now()),
                    ..Counted::default()
                };
            }
            c.last
        };
        // In full: the folded matches from their counts, the rest row by
        // row, and the highest id, in one statement (one consistent view
        // while a fold moves rows into the counts); then the rows added since.
        let rows = if last == 0 {
            sqlx::query(
                "SELECT 0, entrants, n FROM ladder_counts WHERE game = '' \
                 UNION ALL SELECT id, entrants, 1 FROM ladder_matches WHERE folded = 0 \
                 UNION ALL SELECT COALESCE(MAX(id), 0), '', 0 FROM ladder_matches",
            )
            .fetch_all(&self.db.pool)
            .await
        } else {
            sqlx::query("SELECT id, entrants, 1 FROM ladder_matches WHERE id > $1 ORDER BY id")
                .bind(last)
                .fetch_all(&self.db.pool)
                .await
        }
        .map_err(|e| e.to_string())?;
        let mut c = self.counted.lock().map_err(|e| e.to_string())?;
        if last == 0 && c.last != 0 {
            // Another call counted meanwhile.
            return Ok(c.counts.clone());
        }
        let mut highest = c.last;
        // Another call may have read these rows meanwhile: count each once.
        for r in &rows {
            let id: i64 = r.try_get(0).unwrap_or_default();
            let n: i64 = r.try_get(2).unwrap_or_default();
            if last != 0 && id <= c.last {
                continue;
            }
            highest = highest.max(id);
            let entrants: String = r.try_get(1).unwrap_or_default();
            if entrants.is_empty() {
                continue;
            }
            for k in entrants.split(',') {
                *c.counts.entry(k.to_string()).or_default() += u64::try_from(n).unwrap_or(0);
            }
        }
        c.last = highest;
        Ok(c.counts.clone())
    }
}
