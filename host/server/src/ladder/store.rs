//! The finished matches in memory: those taken here are added as they
//! come, the database is read again now and then for others' (another
//! server's, or after a worker was disabled).

use super::Ladder;
use super::types::Done;
use crate::play::{Job, Outcome};
use sqlx::Row as _;
use std::collections::HashSet;
use std::sync::Arc;

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
        finished_at: r.try_get(3).unwrap_or_default(),
        by: r.try_get::<Option<i64>, _>(4).ok().flatten().unwrap_or(0),
        verified: r.try_get::<i64, _>(5).is_ok_and(|v| v != 0),
    })
}

impl Ladder {
    /// The finished matches of the current versions and house bots that involve `key`, newest first.
    pub fn matches_of(&self, key: &str, limit: usize) -> Vec<Arc<Done>> {
        let done = self.done.lock().map(|d| {
            d.values()
                .rev()
                .filter(|m| m.keys.iter().any(|k| k == key))
                .take(limit)
                .cloned()
                .collect()
        });
        done.unwrap_or_default()
    }

    /// A finished match by id: from memory, else (a match of a version no
    /// longer on the ladder) from the database.
    pub async fn finished(&self, id: i64) -> Result<Option<Arc<Done>>, String> {
        if let Some(d) = self.done.lock().ok().and_then(|d| d.get(&id).cloned()) {
            return Ok(Some(d));
        }
        let row = sqlx::query(
            "SELECT id, entrants, outcome, finished_at, played_by, verified FROM ladder_matches WHERE state = 'done' AND id = $1",
        )
        .bind(id)
        .fetch_optional(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        Ok(row.as_ref().and_then(done_of).map(Arc::new))
    }

    /// A match whose result was just taken here counts at once, without
    /// reading it back from the database; `by` played it (0: a server),
    /// `verified` when a server played it again.
    pub(super) fn count_done(&self, job: &Job, outcome: Outcome, at: &str, generation: u64, by: i64, verified: bool) {
        let done = Done {
            id: job.id,
            keys: job.bots.iter().map(|b| b.key.clone()).collect(),
            outcome,
            finished_at: at.to_string(),
            by,
            verified,
        };
        if let Ok(mut d) = self.done.lock()
            // A worker disabled meanwhile: its results were just sent back.
            && self.workers.generation() == generation
        {
            d.insert(done.id, Arc::new(done));
        }
    }

    /// Read the finished matches among the `current` entrants from the
    /// database: the rows not read before are added, and those no longer
    /// finished (a disabled worker's) or of a version no longer on the
    /// ladder dropped, so memory holds the matches the fit needs, not every
    /// match ever played (a replaced version's are read back one by one,
    /// [`Ladder::finished`]). Results taken by this server are counted as
    /// they come; this takes in those another server sharing the database took.
    pub(super) async fn read_done(&self, current: &HashSet<&str>) -> Result<(), String> {
        let known: Vec<i64> = self
            .done
            .lock()
            .map(|d| d.keys().copied().collect())
            .unwrap_or_default();
        let ids = sqlx::query("SELECT id, entrants FROM ladder_matches WHERE state = 'done' ORDER BY id")
            .fetch_all(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
        let ids: Vec<i64> = ids
            .iter()
            .filter(|r| {
                r.try_get::<String, _>(1)
                    .is_ok_and(|e| e.split(',').all(|k| current.contains(k)))
            })
            .filter_map(|r| r.try_get::<i64, _>(0).ok())
            .collect();
        let new: Vec<i64> = ids
            .iter()
            .copied()
            .filter(|id| known.binary_search(id).is_err())
            .collect();
        let mut fresh = Vec::new();
        for chunk in new.chunks(500) {
            let list: Vec<String> = chunk.iter().map(i64::to_string).collect();
            // Integers the database gave: no one's text reaches this statement.
            let rows = sqlx::query(&format!(
                "SELECT id, entrants, outcome, finished_at, played_by, verified FROM ladder_matches WHERE state = 'done' AND id IN ({})",
                list.join(",")
            ))
            .fetch_all(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
            fresh.extend(rows.iter().filter_map(done_of));
        }
        if let Ok(mut done) = self.done.lock() {
            // Only what was known before the read and is no longer finished
            // goes: a result counted while the ids were read stays.
            done.retain(|id, _| ids.binary_search(id).is_ok() || known.binary_search(id).is_err());
            for d in fresh {
                done.insert(d.id, Arc::new(d));
            }
        }
        Ok(())
    }

    /// A worker was disabled since the finished matches were read: its
    /// results went back to the queue, so every match is read again.
    pub(super) fn forget_if_disabled(&self) {
        use std::sync::atomic::Ordering;
        let now = self.workers.generation();
        if self.seen.swap(now, Ordering::SeqCst) != now {
            if let Ok(mut done) = self.done.lock() {
                done.clear();
            }
            if let Ok(mut r) = self.reread.lock() {
                *r = None;
            }
        }
    }
}
