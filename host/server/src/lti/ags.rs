//! Assignment and Grade Services 2.0: each LMS student's grade goes back
//! to the LMS's gradebook as soon as it exists, and again whenever it
//! changes (a re-grade, another version chosen, the final tournament).
//!
//! A durable queue (`lti_scores`): [`reconcile`] reads each LMS student's
//! grade as the teacher's gradebook has it and queues a score when it
//! differs from the last one queued. It reads the whole class, so it runs
//! only when a grade may have changed (`Queue::grade_may_have_changed`:
//! a verdict, a version chosen, a tournament's points, a roster or a
//! launch from the LMS), once at start, and in a slow sweep for whatever
//! else did (another server on the same Postgres, a roster edit); [`send_due`] sends the
//! waiting scores in order, with an access token from the platform's token
//! endpoint (a client assertion signed with the tool's key), cached until
//! it expires. A score that fails waits (1 s, 2 s, 4 s, … at most 10
//! minutes) and is tried again, across restarts; the waits are cut short
//! when the LMS shows it is up again (the server starts, a launch comes
//! from it, it takes another score), so a gradebook catches up at once
//! rather than up to 10 minutes later. A newer score of the same student
//! supersedes a waiting one, and the LMS's 409 (it holds a newer score
//! than this one, e.g. one typed into its gradebook) ends one for good:
//! its state is `lms-newer`, and the teacher's table says so. Each score's timestamp is when arena queued it, so
//! timestamps only grow and the LMS never takes an older grade for a newer.

use super::platforms::{self, Platform};
use super::tool::{Lti, claim};
use crate::db::{Db, new_token};
use crate::export::{self, Entry};
use crate::queue::Queue;
use serde_json::{Value, json};
use sqlx::Row;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The scopes the tool asks the token endpoint for (grades and the roster).
const SCOPES: &str = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem \
                      https://purl.imsglobal.org/spec/lti-ags/scope/score \
                      https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly";
/// A score's media type.
const SCORE_MEDIA: &str = "application/vnd.ims.lis.v1.score+json";
/// A line item's.
const LINE_ITEM_MEDIA: &str = "application/vnd.ims.lis.v2.lineitem+json";
/// The longest wait between two tries of one score.
const LONGEST_WAIT: i64 = 600;
/// How often the queue is looked at (and the grade changes counted).
const EVERY: Duration = Duration::from_secs(2);
/// How often the class is read even when nothing said a grade changed.
const SWEEP: Duration = Duration::from_secs(60);

/// Remember the launch's services: its line item (the AGS claim) for the scores, and its roster's URL (NRPS).
pub async fn remember(db: &Db, p: &Platform, claims: &Value) -> Result<(), String> {
    let none = Value::Null;
    let ags = claims.get(claim::AGS_ENDPOINT).unwrap_or(&none);
    let members = claims
        .get(claim::NRPS_SERVICE)
        .and_then(|n| n.get("context_memberships_url"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let link = claims
        .get(claim::RESOURCE_LINK)
        .and_then(|r| text(r, "id"))
        .unwrap_or_default();
    let (items, item) = (text(ags, "lineitems"), text(ags, "lineitem"));
    if items.is_none() && item.is_none() && members.is_none() {
        return Ok(());
    }
    let updated = sqlx::query(
        "UPDATE lti_line_items SET lineitems_url = $1, lineitem_url = COALESCE($2, lineitem_url), resource_link_id = $3, \
         memberships_url = COALESCE($4, memberships_url) WHERE platform_id = $5",
    )
    .bind(&items)
    .bind(&item)
    .bind(&link)
    .bind(&members)
    .bind(p.id)
    .execute(&db.pool)
    .await
    .map_err(|e| e.to_string())?;
    if updated.rows_affected() == 0 {
        sqlx::query(
            "INSERT INTO lti_line_items (platform_id, lineitems_url, lineitem_url, resource_link_id, memberships_url) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(p.id)
        .bind(&items)
        .bind(&item)
        .bind(&link)
        .bind(&members)
        .execute(&db.pool)
        .await
        .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A student's grade as the LMS gets it.
#[derive(Debug, Clone, PartialEq)]
struct Grade {
    given: f64,
    maximum: f64,
    comment: String,
}

/// The grade of a gradebook row, once there is one to give: the version
/// that counts, graded; or 0 when every version was rejected. Nothing
/// while the version that counts is still being graded.
fn grade(e: &Entry, base: &str) -> Option<Grade> {
    let link = |v: i64| format!("{}/people/{}/versions/{v}", base.trim_end_matches('/'), e.person.id);
    match (&e.counted, e.versions.first()) {
        (Some(c), _) => {
            let (given, maximum) = (c.score?, c.max_score?);
            (c.state == "accepted").then(|| Grade {
                given,
                maximum,
                comment: format!(
                    "Version {} counts: {} of {} points. See it, with its games: {}",
                    c.version,
                    arena_runner::text::points(given),
                    arena_runner::text::points(maximum),
                    link(c.version)
                ),
            })
        }
        (None, Some(n)) if n.state == "rejected" => Some(Grade {
            given: 0.0,
            maximum: n.max_score?,
            comment: format!(
                "No version counts: the newest, version {}, was rejected ({}). See why: {}",
                n.version,
                n.reason.clone().unwrap_or_default(),
                link(n.version)
            ),
        }),
        _ => None,
    }
}

/// Queue a score for every LMS student whose grade differs from the last one queued.
pub async fn reconcile(queue: &Queue, base: &str) -> Result<usize, String> {
    let db = &queue.db;
    let linked = sqlx::query(
        "SELECT u.platform_id, u.sub, u.person_id FROM lti_users u JOIN lti_line_items l ON l.platform_id = u.platform_id \
         JOIN people p ON p.id = u.person_id \
         WHERE p.is_teacher = FALSE AND (l.lineitems_url IS NOT NULL OR l.lineitem_url IS NOT NULL)",
    )
    .fetch_all(&db.pool)
    .await
    .map_err(|e| e.to_string())?;
    if linked.is_empty() {
        return Ok(0);
    }
    let class: HashMap<i64, Entry> = export::class(queue)
        .await?
        .into_iter()
        .map(|e| (e.person.id, e))
        .collect();
    let mut queued = 0;
    for r in &linked {
        let platform: i64 = r.try_get(0).map_err(|e| e.to_string())?;
        let sub: String = r.try_get(1).map_err(|e| e.to_string())?;
        let person: i64 = r.try_get(2).map_err(|e| e.to_string())?;
        let Some(g) = class.get(&person).and_then(|e| grade(e, base)) else {
            continue;
        };
        let last = sqlx::query(
            "SELECT score_given, score_maximum, comment, stamp FROM lti_scores WHERE platform_id = $1 AND sub = $2 \
             ORDER BY id DESC LIMIT 1",
        )
        .bind(platform)
        .bind(&sub)
        .fetch_optional(&db.pool)
        .await
        .map_err(|e| e.to_string())?;
        let (same, previous) = match &last {
            Some(l) => (
                Grade {
                    given: l.try_get(0).unwrap_or(f64::NAN),
                    maximum: l.try_get(1).unwrap_or(f64::NAN),
                    comment: l.try_get(2).unwrap_or_default(),
                } == g,
                l.try_get::<String, _>(3).ok(),
            ),
            None => (false, None),
        };
        if same {
            continue;
        }
        let stamp = after(previous.as_deref());
        // The waiting ones of this student are out of date: this one says more.
        sqlx::query(
            "UPDATE lti_scores SET state = 'superseded' WHERE platform_id = $1 AND sub = $2 AND state = 'waiting'",
        )
        .bind(platform)
        .bind(&sub)
        .execute(&db.pool)
        .await
        .map_err(|e| e.to_string())?;
        sqlx::query(
            "INSERT INTO lti_scores (platform_id, sub, person_id, score_given, score_maximum, comment, stamp, state, next_try_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, 'waiting', 0)",
        )
        .bind(platform)
        .bind(&sub)
        .bind(person)
        .bind(g.given)
        .bind(g.maximum)
        .bind(&g.comment)
        .bind(&stamp)
        .execute(&db.pool)
        .await
        .map_err(|e| e.to_string())?;
        queued += 1;
    }
    Ok(queued)
}

/// Now, with milliseconds, and later than `previous` (AGS: "MUST always be strictly increasing").
fn after(previous: Option<&str>) -> String {
    use time::format_description::well_known::Rfc3339;
    let mut t = time::OffsetDateTime::now_utc();
    t = t.replace_nanosecond(t.millisecond() as u32 * 1_000_000).unwrap_or(t);
    if let Some(p) = previous.and_then(|p| time::OffsetDateTime::parse(p, &Rfc3339).ok())
        && t <= p
    {
        t = p + time::Duration::milliseconds(1);
    }
    t.format(&time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    ))
    .unwrap_or_default()
}

/// What a call to the LMS came to.
enum Sent {
    /// The LMS took the score.
    Taken,
    /// The LMS holds a newer score (409).
    Newer,
    /// It failed: try again later.
    Failed(String),
}

/// Send the scores that are due, in order; how many the LMS took.
pub async fn send_due(lti: &Arc<Lti>, db: &Db) -> Result<usize, String> {
    let now = super::keys::unix_now() as i64;
    let due = sqlx::query(
        "SELECT s.id, s.platform_id, s.sub, s.score_given, s.score_maximum, s.comment, s.stamp, s.attempts \
         FROM lti_scores s WHERE s.state = 'waiting' AND s.next_try_at <= $1 ORDER BY s.id LIMIT 50",
    )
    .bind(now)
    .fetch_all(&db.pool)
    .await
    .map_err(|e| e.to_string())?;
    let mut taken = 0;
    for r in &due {
        let id: i64 = r.try_get(0).map_err(|e| e.to_string())?;
        let platform: i64 = r.try_get(1).map_err(|e| e.to_string())?;
        let Some(p) = platforms::by_id(db, platform).await? else {
            continue;
        };
        let score = json!({
            "userId": r.try_get::<String, _>(2).unwrap_or_default(),
            "scoreGiven": r.try_get::<f64, _>(3).unwrap_or(0.0),
            "scoreMaximum": r.try_get::<f64, _>(4).unwrap_or(0.0),
            "comment": r.try_get::<String, _>(5).unwrap_or_default(),
            "timestamp": r.try_get::<String, _>(6).unwrap_or_default(),
            "activityProgress": "Completed",
            "gradingProgress": "FullyGraded",
        });
        let attempts: i64 = r.try_get(7).unwrap_or(0);
        let outcome = match line_item(lti, db, &p, score["scoreMaximum"].as_f64().unwrap_or(0.0)).await {
            Ok(item) => post_score(lti, &p, &item, &score).await,
            Err(e) => Sent::Failed(e),
        };
        let at = crate::course::stamp(crate::course::now());
        match outcome {
            Sent::Taken => {
                taken += 1;
                // Kept as sent first: a score the LMS took is never sent again.
                sqlx::query("UPDATE lti_scores SET state = 'sent', sent_at = $1, last_error = NULL WHERE id = $2")
                    .bind(&at)
                    .bind(id)
                    .execute(&db.pool)
                    .await
                    .map_err(|e| e.to_string())?;
                // The LMS is up: its other students' waiting scores need not sit out their backoff.
                if let Err(e) = due_now(db, Some(platform)).await {
                    eprintln!("LTI scores: {e}");
                }
            }
            Sent::Newer => {
                // Trying again would be answered the same: the score ends here.
                sqlx::query("UPDATE lti_scores SET state = 'lms-newer', last_error = $1 WHERE id = $2")
                    .bind("the LMS holds a newer score (409)")
                    .bind(id)
                    .execute(&db.pool)
                    .await
                    .map_err(|e| e.to_string())?;
            }
            Sent::Failed(why) => {
                eprintln!("LTI score for the LMS not sent (try {}): {why}", attempts + 1);
                let wait = 1i64 << attempts.clamp(0, 10);
                sqlx::query(
                    "UPDATE lti_scores SET attempts = attempts + 1, next_try_at = $1, last_error = $2 WHERE id = $3",
                )
                .bind(now + wait.min(LONGEST_WAIT))
                .bind(&why)
                .bind(id)
                .execute(&db.pool)
                .await
                .map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(taken)
}

/// Make the waiting scores (of one platform, or all) due now: the LMS is
/// up again, or may be (the server just started).
pub async fn due_now(db: &Db, platform: Option<i64>) -> Result<(), String> {
    // At most once a minute for one LMS: a score it refuses for good (a
    // student it no longer knows) is then tried once a minute while its
    // classmates' scores and launches come, never at every tick.
    static LAST: std::sync::Mutex<Vec<(i64, std::time::Instant)>> = std::sync::Mutex::new(Vec::new());
    if let (Some(p), Ok(mut last)) = (platform, LAST.lock()) {
        match last.iter_mut().find(|(id, _)| *id == p) {
            Some((_, at)) if at.elapsed() < Duration::from_secs(60) => return Ok(()),
            Some((_, at)) => *at = std::time::Instant::now(),
            None => last.push((p, std::time::Instant::now())),
        }
    }
    let waiting = "UPDATE lti_scores SET next_try_at = 0 WHERE state = 'waiting' AND next_try_at > 0";
    match platform {
        Some(p) => {
            sqlx::query(&format!("{waiting} AND platform_id = $1"))
                .bind(p)
                .execute(&db.pool)
                .await
        }
        None => sqlx::query(waiting).execute(&db.pool).await,
    }
    .map_err(|e| e.to_string())?;
    Ok(())
}

/// A blocking HTTP call to the LMS, off the server's threads (15 s at most).
pub(super) async fn call<T: Send + 'static>(f: impl FnOnce(&ureq::Agent) -> T + Send + 'static) -> Result<T, String> {
    tokio::task::spawn_blocking(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(15)))
            .http_status_as_error(false)
            .build()
            .into();
        f(&agent)
    })
    .await
    .map_err(|e| e.to_string())
}

/// An access token for the platform's services, from the cache or the token endpoint.
pub(super) async fn token(lti: &Arc<Lti>, p: &Platform) -> Result<String, String> {
    let tokens = &lti.tokens;
    if let Ok(cache) = tokens.0.lock()
        && let Some((t, until)) = cache.get(&p.id)
        && Instant::now() < *until
    {
        return Ok(t.clone());
    }
    let now = super::keys::unix_now();
    let assertion = lti.keys.sign(&json!({
        "iss": p.client_id,
        "sub": p.client_id,
        "aud": p.audience.clone().unwrap_or_else(|| p.token_url.clone()),
        "iat": now,
        "exp": now + 300,
        "jti": new_token()?,
    }))?;
    let url = p.token_url.clone();
    let answer = call(move |agent| -> Result<Value, String> {
        let mut r = agent
            .post(&url)
            .send_form([
                ("grant_type", "client_credentials"),
                (
                    "client_assertion_type",
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                ),
                ("client_assertion", assertion.as_str()),
                ("scope", SCOPES),
            ])
            .map_err(|e| format!("the LMS's token endpoint {url}: {e}"))?;
        let status = r.status().as_u16();
        let body: Value = r
            .body_mut()
            .with_config()
            .limit(1 << 20)
            .read_json()
            .unwrap_or(Value::Null);
        if status != 200 {
            return Err(format!(
                "the LMS's token endpoint {url} refused the tool ({status}: {})",
                body["error"]
            ));
        }
        Ok(body)
    })
    .await??;
    let Some(t) = answer["access_token"].as_str().map(str::to_string) else {
        return Err(format!(
            "the LMS's token endpoint {} answered no access_token",
            p.token_url
        ));
    };
    let life = answer["expires_in"].as_u64().unwrap_or(3600).saturating_sub(60).max(10);
    if let Ok(mut cache) = tokens.0.lock() {
        cache.insert(p.id, (t.clone(), Instant::now() + Duration::from_secs(life)));
    }
    Ok(t)
}

fn forget_token(tokens: &platforms::Tokens, p: &Platform) {
    if let Ok(mut cache) = tokens.0.lock() {
        cache.remove(&p.id);
    }
}

/// The platform's line item for the course: the launch's, or the one with
/// the course's resource link, or one the tool makes.
async fn line_item(lti: &Arc<Lti>, db: &Db, p: &Platform, maximum: f64) -> Result<String, String> {
    let row =
        sqlx::query("SELECT lineitems_url, lineitem_url, resource_link_id FROM lti_line_items WHERE platform_id = $1")
            .bind(p.id)
            .fetch_optional(&db.pool)
            .await
            .map_err(|e| e.to_string())?
            .ok_or("no launch from this LMS has named its gradebook yet")?;
    if let Ok(Some(item)) = row.try_get::<Option<String>, _>(1) {
        return Ok(item);
    }
    let items: String = row
        .try_get::<Option<String>, _>(0)
        .ok()
        .flatten()
        .ok_or("the LMS offers no gradebook column (no line items URL)")?;
    let link: String = row.try_get(2).unwrap_or_default();
    let bearer = format!("Bearer {}", token(lti, p).await?);
    let label = lti.course_name.clone();
    let (found, link2, items2, bearer2) = (items.clone(), link.clone(), items.clone(), bearer.clone());
    let existing = call(move |agent| -> Result<Option<String>, String> {
        let url =
            url::Url::parse_with_params(&found, &[("resource_link_id", link2.as_str())]).map_err(|e| e.to_string())?;
        let mut r = agent
            .get(url.as_str())
            .header("Authorization", &bearer2)
            .header("Accept", "application/vnd.ims.lis.v2.lineitemcontainer+json")
            .call()
            .map_err(|e| format!("the LMS's line items {items2}: {e}"))?;
        if r.status().as_u16() != 200 {
            return Err(format!("the LMS's line items {items2} answered {}", r.status()));
        }
        let list: Value = r
            .body_mut()
            .with_config()
            .limit(8 << 20)
            .read_json()
            .map_err(|e| e.to_string())?;
        Ok(list.as_array().and_then(|a| {
            a.iter()
                .find(|i| i["resourceLinkId"].as_str() == Some(link2.as_str()) || i["tag"] == "arena")
                .and_then(|i| i["id"].as_str().map(str::to_string))
        }))
    })
    .await??;
    let item = match existing {
        Some(i) => i,
        None => {
            let body = json!({"label": label, "scoreMaximum": maximum, "resourceLinkId": link, "tag": "arena"});
            call(move |agent| -> Result<String, String> {
                let mut r = agent
                    .post(&items)
                    .header("Authorization", &bearer)
                    .header("Content-Type", LINE_ITEM_MEDIA)
                    .send(body.to_string().as_bytes())
                    .map_err(|e| format!("the LMS's line items {items}: {e}"))?;
                let made: Value = r
                    .body_mut()
                    .with_config()
                    .limit(1 << 20)
                    .read_json()
                    .unwrap_or(Value::Null);
                made["id"]
                    .as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("the LMS made no gradebook column ({})", r.status()))
            })
            .await??
        }
    };
    sqlx::query("UPDATE lti_line_items SET lineitem_url = $1 WHERE platform_id = $2")
        .bind(&item)
        .bind(p.id)
        .execute(&db.pool)
        .await
        .map_err(|e| e.to_string())?;
    Ok(item)
}

async fn post_score(lti: &Arc<Lti>, p: &Platform, item: &str, score: &Value) -> Sent {
    let tokens = &lti.tokens;
    let bearer = match token(lti, p).await {
        Ok(t) => format!("Bearer {t}"),
        Err(e) => return Sent::Failed(e),
    };
    // The scores URL is the line item's with /scores added to its path (its query kept).
    let url = match url::Url::parse(item) {
        Ok(mut u) => {
            let path = format!("{}/scores", u.path().trim_end_matches('/'));
            u.set_path(&path);
            u.to_string()
        }
        Err(e) => return Sent::Failed(format!("the line item `{item}` is not a URL ({e})")),
    };
    let body = score.to_string();
    let answer = call(move |agent| {
        agent
            .post(&url)
            .header("Authorization", &bearer)
            .header("Content-Type", SCORE_MEDIA)
            .send(body.as_bytes())
            .map(|r| r.status().as_u16())
            .map_err(|e| format!("the LMS's scores {url}: {e}"))
    })
    .await;
    match answer {
        Ok(Ok(s)) if (200..300).contains(&s) => Sent::Taken,
        Ok(Ok(409)) => Sent::Newer,
        Ok(Ok(s @ (401 | 403))) => {
            forget_token(tokens, p);
            Sent::Failed(format!("the LMS refused the tool's token ({s})"))
        }
        Ok(Ok(s)) => Sent::Failed(format!("the LMS answered {s} to a score")),
        Ok(Err(e)) | Err(e) => Sent::Failed(e),
    }
}

/// Keep the LMS's gradebook current, for as long as the server runs:
/// queue scores when a grade may have changed, send the due ones every few seconds.
pub fn start(lti: Arc<Lti>, queue: Queue) {
    use std::sync::atomic::Ordering;
    tokio::spawn(async move {
        // A restart does not keep a score waiting out a backoff the last run chose.
        if let Err(e) = due_now(&queue.db, None).await {
            eprintln!("LTI scores: {e}");
        }
        // `None`: never read yet, so the first tick reads the class.
        let mut seen: Option<u64> = None;
        let mut swept = Instant::now();
        loop {
            tokio::time::sleep(EVERY).await;
            // At most once a tick however many changes came: a burst of verdicts is one read of the class.
            let changes = queue.grade_changes.load(Ordering::SeqCst);
            if seen != Some(changes) || swept.elapsed() >= SWEEP {
                swept = Instant::now();
                // A failed read is tried again at the next tick, not at the next sweep.
                match reconcile(&queue, &lti.urls.target).await {
                    Ok(_) => seen = Some(changes),
                    Err(e) => eprintln!("LTI scores: {e}"),
                }
            }
            if let Err(e) = send_due(&lti, &queue.db).await {
                eprintln!("LTI scores: {e}");
            }
        }
    });
}

/// Where each LMS student's score stands, by person: what the teacher's class table shows.
pub async fn standing(db: &Db) -> Result<HashMap<i64, String>, String> {
    let rows = sqlx::query(
        "SELECT person_id, state, score_given, score_maximum, last_error, attempts FROM lti_scores s \
         WHERE id = (SELECT MAX(id) FROM lti_scores t WHERE t.platform_id = s.platform_id AND t.sub = s.sub)",
    )
    .fetch_all(&db.pool)
    .await
    .map_err(|e| e.to_string())?;
    let mut out = HashMap::new();
    for r in &rows {
        let person: i64 = r.try_get(0).unwrap_or_default();
        let state: String = r.try_get(1).unwrap_or_default();
        let points = format!(
            "{} / {}",
            arena_runner::text::points(r.try_get(2).unwrap_or(0.0)),
            arena_runner::text::points(r.try_get(3).unwrap_or(0.0))
        );
        let said = match state.as_str() {
            "sent" => format!("has {points}"),
            "superseded" => "has a newer score".to_string(),
            "lms-newer" => format!("keeps a newer score of its own, not {points} (409)"),
            _ => match r.try_get::<Option<String>, _>(4).ok().flatten() {
                Some(why) => format!(
                    "{points} not sent yet ({} tries): {why}",
                    r.try_get::<i64, _>(5).unwrap_or_default()
                ),
                None => format!("{points} being sent"),
            },
        };
        out.insert(person, said);
    }
    // Students from an LMS with no score yet, and those who left it (NRPS).
    let linked = sqlx::query(
        "SELECT u.person_id, u.status FROM lti_users u JOIN people p ON p.id = u.person_id WHERE p.is_teacher = FALSE",
    )
    .fetch_all(&db.pool)
    .await
    .map_err(|e| e.to_string())?;
    for r in &linked {
        let person: i64 = r.try_get(0).unwrap_or_default();
        let status: String = r.try_get(1).unwrap_or_default();
        let score = out.remove(&person).unwrap_or_else(|| "no grade yet".into());
        let said = match status.as_str() {
            "Deleted" => format!("left the LMS course; {score}"),
            "Inactive" => format!("inactive in the LMS; {score}"),
            _ => score,
        };
        out.insert(person, said);
    }
    Ok(out)
}
