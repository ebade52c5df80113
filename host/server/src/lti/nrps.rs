//! Names and Role Provisioning Services 2.0: the roster read from the LMS.
//! A teacher's launch and the teacher's "Sync the roster from the LMS"
//! read the course's members; learners who joined late become students
//! (or are matched to the CSV roster by email), and those who left the LMS
//! course, or are inactive there, are marked so on the teacher's table
//! (their versions stay; taking them off is the teacher's choice).

use super::launch::{Member, student};
use super::platforms::{self, Platform};
use super::tool::Lti;
use crate::db::Db;
use serde_json::Value;
use sqlx::Row;
use std::collections::HashSet;
use std::sync::Arc;

/// A membership container's media type.
const MEDIA: &str = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json";
/// The most pages of members read (an LMS pages by 10 to 100).
const PAGES: usize = 200;

/// What a sync found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Synced {
    /// Learners in the LMS course.
    pub learners: usize,
    /// Learners who were not in the course before.
    pub joined: usize,
    /// Learners who left the LMS course or are inactive there.
    pub left: usize,
}

/// Read every platform's roster that a launch named; what each found.
pub async fn sync_all(lti: &Arc<Lti>, db: &Db) -> Result<Vec<(Platform, Synced)>, String> {
    let rows = sqlx::query("SELECT platform_id, memberships_url FROM lti_line_items WHERE memberships_url IS NOT NULL")
        .fetch_all(&db.pool)
        .await
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for r in &rows {
        let id: i64 = r.try_get(0).map_err(|e| e.to_string())?;
        let url: String = r.try_get(1).map_err(|e| e.to_string())?;
        if let Some(p) = platforms::by_id(db, id).await? {
            let synced = sync(lti, db, &p, &url).await?;
            out.push((p, synced));
        }
    }
    Ok(out)
}

/// Read one platform's roster from `url` and bring the course's up to it.
pub async fn sync(lti: &Arc<Lti>, db: &Db, p: &Platform, url: &str) -> Result<Synced, String> {
    let members = fetch(lti, p, url).await?;
    let _one = lti.people.lock().await;
    let at = crate::course::stamp(crate::course::now());
    let mut synced = Synced::default();
    let mut present = HashSet::new();
    for m in &members {
        let Some(sub) = m["user_id"].as_str().filter(|s| !s.is_empty()) else {
            continue;
        };
        let roles: Vec<String> = m["roles"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default();
        if super::launch::role(&roles) != Some(super::launch::Role::Student) {
            continue;
        }
        present.insert(sub.to_string());
        let status = m["status"].as_str().unwrap_or("Active");
        synced.learners += 1;
        let known = sqlx::query("SELECT 1 FROM lti_users WHERE platform_id = $1 AND sub = $2")
            .bind(p.id)
            .bind(sub)
            .fetch_optional(&db.pool)
            .await
            .map_err(|e| e.to_string())?
            .is_some();
        if known {
            sqlx::query("UPDATE lti_users SET status = $1 WHERE platform_id = $2 AND sub = $3")
                .bind(status)
                .bind(p.id)
                .bind(sub)
                .execute(&db.pool)
                .await
                .map_err(|e| e.to_string())?;
        } else {
            let text = |k: &str| m[k].as_str().unwrap_or("").to_string();
            let member = Member {
                sub: sub.to_string(),
                name: match text("name") {
                    n if !n.trim().is_empty() => n,
                    _ => format!("{} {}", text("given_name"), text("family_name"))
                        .trim()
                        .to_string(),
                },
                email: text("email"),
                school_id: m["lis_person_sourcedid"]
                    .as_str()
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            };
            let person = student(db, p.id, &member).await.map_err(|r| r.0)?;
            sqlx::query(
                "INSERT INTO lti_users (platform_id, sub, person_id, roles, status, seen_at) VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(p.id)
            .bind(sub)
            .bind(person)
            .bind(roles.join(" "))
            .bind(status)
            .bind(&at)
            .execute(&db.pool)
            .await
            .map_err(|e| e.to_string())?;
            synced.joined += 1;
        }
        if status != "Active" {
            synced.left += 1;
        }
    }
    // Learners linked before and absent now left the LMS course.
    let linked = sqlx::query(
        "SELECT u.sub FROM lti_users u JOIN people p ON p.id = u.person_id \
         WHERE u.platform_id = $1 AND p.is_teacher = FALSE",
    )
    .bind(p.id)
    .fetch_all(&db.pool)
    .await
    .map_err(|e| e.to_string())?;
    for r in &linked {
        let sub: String = r.try_get(0).unwrap_or_default();
        if !present.contains(&sub) {
            sqlx::query("UPDATE lti_users SET status = 'Deleted' WHERE platform_id = $1 AND sub = $2")
                .bind(p.id)
                .bind(&sub)
                .execute(&db.pool)
                .await
                .map_err(|e| e.to_string())?;
            synced.left += 1;
        }
    }
    Ok(synced)
}

/// Every member the LMS lists, following its `Link: <…>; rel="next"` pages.
async fn fetch(lti: &Arc<Lti>, p: &Platform, url: &str) -> Result<Vec<Value>, String> {
    let bearer = format!("Bearer {}", super::ags::token(lti, p).await?);
    let first = url.to_string();
    super::ags::call(move |agent| -> Result<Vec<Value>, String> {
        let mut members = Vec::new();
        let mut next = Some(first);
        for _ in 0..PAGES {
            let Some(url) = next.take() else { break };
            let mut r = agent
                .get(&url)
                .header("Authorization", &bearer)
                .header("Accept", MEDIA)
                .call()
                .map_err(|e| format!("the LMS's roster {url}: {e}"))?;
            if r.status().as_u16() != 200 {
                return Err(format!("the LMS's roster {url} answered {}", r.status()));
            }
            next = r
                .headers()
                .get_all("link")
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .find(|l| l.contains("rel=\"next\""))
                .and_then(|l| l.split('<').nth(1))
                .and_then(|l| l.split('>').next())
                .map(str::to_string);
            let page: Value = r
                .body_mut()
                .with_config()
                .limit(16 << 20)
                .read_json()
                .map_err(|e| format!("the LMS's roster {url} is not a membership container ({e})"))?;
            members.extend(page["members"].as_array().cloned().unwrap_or_default());
        }
        Ok(members)
    })
    .await?
}

/// Whether a launch named an LMS roster (the teacher's page offers the sync).
pub async fn has_roster(db: &Db) -> bool {
    sqlx::query("SELECT 1 FROM lti_line_items WHERE memberships_url IS NOT NULL")
        .fetch_optional(&db.pool)
        .await
        .is_ok_and(|r| r.is_some())
}
