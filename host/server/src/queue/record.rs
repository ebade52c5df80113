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
    /// The version it is tested against: the one that counted before it.
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
            self.queue_versus(&mut tx, id, &at).await?;
        }
        tx.commit().await.map_err(|e| e.to_string())?;
        Ok(true)
    }

    /// "Is my new version better?": in `tx`, the accepted submission `id`
    /// is tested against the version that counted before it (the student's
    /// choice, else their latest accepted version before the deadline), not
    /// merely the upload before it. An identical file is not played: its
    /// test says so at once. The version tested against is kept on the new
    /// version (`versus_json`, `{"state": "queued", "against": N}`), so the
    /// page says what runs and the job tests that pair whatever counts later.
    async fn queue_versus(&self, tx: &mut sqlx::Transaction<'_, sqlx::Any>, id: i64, at: &str) -> Result<(), String> {
        let me = sqlx::query(
            "SELECT s.person_id, s.version, s.sha256, p.counted, s.versus_json FROM submissions s JOIN people p ON p.id = s.person_id \
             WHERE s.id = $1",
        )
        .bind(id)
        .fetch_optional(&mut **tx)
        .await
        .map_err(|e| e.to_string())?;
        let Some(me) = me else { return Ok(()) };
        let (person, version, sha256, chosen, tested): (i64, i64, String, Option<i64>, Option<String>) = (
            me.try_get(0).unwrap_or_default(),
            me.try_get(1).unwrap_or_default(),
            me.try_get(2).unwrap_or_default(),
            me.try_get(3).ok().flatten(),
            me.try_get(4).ok().flatten(),
        );
        // Tested (or queued) once, when it was first graded: a re-grade
        // changes the rubric's points, not which of two files plays better.
        if tested.is_some() {
            return Ok(());
        }
        // Only accepted versions count (a rejected one, a forfeiting bot
        // included, is never tested against).
        let rows = sqlx::query(
            "SELECT version, sha256, late_days FROM submissions \
             WHERE person_id = $1 AND version < $2 AND state = 'accepted' ORDER BY version DESC",
        )
        .bind(person)
        .bind(version)
        .fetch_all(&mut **tx)
        .await
        .map_err(|e| e.to_string())?;
        let older: Vec<(i64, String, i64)> = rows
            .iter()
            .map(|r| {
                (
                    r.try_get(0).unwrap_or_default(),
                    r.try_get(1).unwrap_or_default(),
                    r.try_get(2).unwrap_or_default(),
                )
            })
            .collect();
        // As `export::counted` decides, among the versions before this one.
        let against = chosen
            .and_then(|c| older.iter().find(|o| o.0 == c))
            .or_else(|| older.iter().find(|o| o.2 == 0))
            .or_else(|| older.first());
        let Some((old, old_sha, _)) = against else {
            return Ok(());
        };
        let json = if *old_sha == sha256 {
            serde_json::json!({
                "verdict": "identical",
                "version": version,
                "against": old,
                "games": 0,
                "sentence": format!(
                    "v{version} is the same file as v{old}, the version that counts: nothing to test, they play alike."
                ),
            })
        } else {
            sqlx::query(
                "INSERT INTO jobs (kind, submission_id, state, priority, created_at) VALUES ('versus', $1, 'queued', 1, $2)",
            )
            .bind(id)
            .bind(at)
            .execute(&mut **tx)
            .await
            .map_err(|e| e.to_string())?;
            serde_json::json!({ "state": "queued", "version": version, "against": old })
        };
        sqlx::query("UPDATE submissions SET versus_json = $1 WHERE id = $2")
            .bind(json.to_string())
            .bind(id)
            .execute(&mut **tx)
            .await
            .map_err(|e| e.to_string())?;
        Ok(())
    }

    /// The two versions a `versus` job of submission `id` tests: the new
    /// one's (SHA-256, version), the one it is tested against (kept on the
    /// new version when its job was queued; for a job an older server
    /// queued, the accepted version before it), and the person.
    pub(super) async fn versus_pair(&self, id: i64) -> Result<Option<VersusPair>, String> {
        let row = sqlx::query("SELECT sha256, version, person_id, versus_json FROM submissions WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.db.pool)
            .await
            .map_err(|e| e.to_string())?;
        let Some(row) = row else { return Ok(None) };
        let (sha256, version, person): (String, i64, i64) = (
            row.try_get(0).unwrap_or_default(),
            row.try_get(1).unwrap_or_default(),
            row.try_get(2).unwrap_or_default(),
        );
        let kept = row
            .try_get::<Option<String>, _>(3)
            .ok()
            .flatten()
            .and_then(|j| serde_json::from_str::<serde_json::Value>(&j).ok())
            .and_then(|j| j["against"].as_i64());
        let old = sqlx::query(
            "SELECT sha256, version FROM submissions WHERE person_id = $1 AND version < $2 AND state = 'accepted' \
             AND ($3 < 0 OR version = $3) ORDER BY version DESC LIMIT 1",
        )
        .bind(person)
        .bind(version)
        .bind(kept.unwrap_or(-1))
        .fetch_optional(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        Ok(old.map(|o| VersusPair {
            new: (sha256, version),
            old: (o.try_get(0).unwrap_or_default(), o.try_get(1).unwrap_or_default()),
            person,
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
        } else {
            // Nothing left to test: the page must not say a test is coming.
            sqlx::query("UPDATE submissions SET versus_json = NULL WHERE id = $1 AND versus_json LIKE '%\"state\":%'")
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(|e| e.to_string())?;
        }
        tx.commit().await.map_err(|e| e.to_string())?;
        Ok(true)
    }

    /// Say on version `id` that its test is running now (its page and the API show it).
    pub(super) async fn versus_running(&self, id: i64) {
        let _ = sqlx::query(
            "UPDATE submissions SET versus_json = REPLACE(versus_json, '\"state\":\"queued\"', '\"state\":\"running\"') \
             WHERE id = $1",
        )
        .bind(id)
        .execute(&self.db.pool)
        .await;
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
