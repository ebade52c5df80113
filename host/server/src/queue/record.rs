//! Recording what a job gave: a verdict onto its version, or a test's
//! result, in the same transaction that finishes the job's lease, so a job
//! counts once and only from whoever still holds it.

use super::Queue;
use crate::course::{now, stamp};
use crate::lease::{Finish, Holder};
use crate::work::{Grading, Verdict, Versus};
use sqlx::Row;
use std::sync::Arc;

/// Who finishes a job, and so what must still hold for the result to count.
#[derive(Debug, Clone, Copy)]
pub enum By<'a> {
    /// Its holder, under the lease's token.
    Lease(Holder, &'a str),
    /// A server that did a worker's job again and got the same result, under the check's token.
    Checked(&'a str),
}

/// The versions a `versus` job tests.
#[derive(Debug, Clone)]
pub struct VersusPair {
    /// The new version's SHA-256 and number.
    pub new: (String, i64),
    /// The accepted version before it.
    pub old: (String, i64),
    /// Whose.
    pub person: i64,
}

impl Queue {
    /// Mark `job` done `by` its holder or a check, in `tx`, keeping
    /// `result` on the row; whether it was still theirs to finish.
    async fn take(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        job: i64,
        by: By<'_>,
        to: Finish,
    ) -> Result<bool, String> {
        match by {
            By::Lease(holder, token) => self.leases.finish(tx, job, holder, token, to, None).await,
            By::Checked(token) => self.leases.confirm(tx, job, token).await,
        }
    }

    /// Record verdict `v` of job `job` (of submission `id`) `by` whoever
    /// finishes it, and mark the job done, in one transaction; with
    /// `versus`, an accepted version is queued for its test against the one
    /// before it. Whether it was taken.
    pub(super) async fn finish_by(
        &self,
        job: i64,
        id: i64,
        v: &Verdict,
        versus: bool,
        by: By<'_>,
    ) -> Result<bool, String> {
        let state = if v.failed {
            "failed"
        } else if v.accepted {
            "accepted"
        } else {
            "rejected"
        };
        let at = stamp(now());
        let json = |v: &Option<serde_json::Value>| v.as_ref().map(|j| j.to_string());
        let mut tx = self.db.pool.begin().await.map_err(|e| e.to_string())?;
        if !self.take(&mut tx, job, by, Finish::Done).await? {
            return Ok(false);
        }
        // Not a cached statement: sqlx 0.8's Any driver declares a NULL
        // double as float4, and Postgres would keep that type for the
        // statement, refusing the next version's score (a float8).
        sqlx::query(
            "UPDATE submissions SET state = $1, toolchain = $2, check_json = $3, check_text = $4, grade_json = $5, \
             grade_text = $6, score = $7, max_score = $8, reason = $9, finished_at = $10 WHERE id = $11",
        )
        .persistent(false)
        .bind(state)
        .bind(&v.toolchain)
        .bind(json(&v.check))
        .bind(&v.check_text)
        .bind(json(&v.grade))
        .bind(&v.grade_text)
        .bind(v.score)
        .bind(v.max_score)
        .bind(&v.reason)
        .bind(&at)
        .bind(id)
        .execute(&mut *tx)
        .await
        .map_err(|e| e.to_string())?;
        if versus && v.accepted && !v.failed {
            // "Is my new version better?": tested against the accepted one before it, if any.
            sqlx::query(
                "INSERT INTO jobs (kind, submission_id, state, priority, created_at) \
                 SELECT 'versus', s.id, 'queued', 1, $1 FROM submissions s WHERE s.id = $2 AND EXISTS \
                 (SELECT 1 FROM submissions o WHERE o.person_id = s.person_id AND o.version < s.version AND o.state = 'accepted')",
            )
            .bind(&at)
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(|e| e.to_string())?;
        }
        tx.commit().await.map_err(|e| e.to_string())?;
        Ok(true)
    }

    /// The two versions a `versus` job of submission `id` tests: the new
    /// one's (SHA-256, version), the one before it, and the person.
    pub(super) async fn versus_pair(&self, id: i64) -> Result<Option<VersusPair>, String> {
        let row = sqlx::query(
            "SELECT s.sha256, s.version, o.sha256, o.version, s.person_id FROM submissions s \
             JOIN submissions o ON o.person_id = s.person_id AND o.version < s.version AND o.state = 'accepted' \
             WHERE s.id = $1 ORDER BY o.version DESC LIMIT 1",
        )
        .bind(id)
        .fetch_optional(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        Ok(row.map(|row| VersusPair {
            new: (row.try_get(0).unwrap_or_default(), row.try_get(1).unwrap_or_default()),
            old: (row.try_get(2).unwrap_or_default(), row.try_get(3).unwrap_or_default()),
            person: row.try_get(4).unwrap_or_default(),
        }))
    }

    /// Keep a test's verdict (JSON) on its version and mark its job done
    /// `by` whoever finishes it; with no verdict, the job needed nothing.
    pub(super) async fn versus_done(
        &self,
        job: i64,
        id: i64,
        json: Option<String>,
        by: By<'_>,
    ) -> Result<bool, String> {
        let mut tx = self.db.pool.begin().await.map_err(|e| e.to_string())?;
        let to = if json.is_some() { Finish::Done } else { Finish::Nothing };
        if !self.take(&mut tx, job, by, to).await? {
            return Ok(false);
        }
        if let Some(json) = json {
            sqlx::query("UPDATE submissions SET versus_json = $1 WHERE id = $2")
                .bind(json)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(|e| e.to_string())?;
        }
        tx.commit().await.map_err(|e| e.to_string())?;
        Ok(true)
    }

    /// Run the test of `pair` here.
    pub(super) async fn run_versus(&self, pair: &VersusPair, grading: &Arc<Grading>) -> Result<Versus, String> {
        let (new, old) = (self.course.file_path(&pair.new.0), self.course.file_path(&pair.old.0));
        let (version, against) = (pair.new.1, pair.old.1);
        let ladder = self.course.config.ladder.clone();
        let grading = grading.clone();
        tokio::task::spawn_blocking(move || {
            grading.versus(
                (&new, version),
                (&old, against),
                ladder.versus_elo,
                ladder.versus_games as usize,
            )
        })
        .await
        .unwrap_or_else(|e| Err(format!("the test's thread ended: {e}")))
    }
}
