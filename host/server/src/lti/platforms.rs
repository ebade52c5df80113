//! The platforms (LMS installations) that may launch the course, their
//! deployments, and their public keys, fetched from their JWKS URL and
//! cached; a launch signed with a key the cache does not know fetches
//! them again (a platform rotated its key), at most once per
//! [`REFETCH_AFTER`] so a stream of forged `kid`s cannot make the server
//! hammer the platform.

use crate::course::{now, stamp};
use crate::db::Db;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use sqlx::Row;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The least time between two fetches of one platform's keys.
pub const REFETCH_AFTER: Duration = Duration::from_secs(10);

/// The most a platform's JWKS may weigh (a few keys are a few KiB).
const JWKS_BYTES: u64 = 1 << 20;

/// A registered platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Platform {
    /// The database's id.
    pub id: i64,
    /// Its issuer (`iss` of its id_tokens).
    pub issuer: String,
    /// Our client id there (`aud` of its id_tokens).
    pub client_id: String,
    /// Its OIDC authorisation endpoint.
    pub auth_url: String,
    /// Its OAuth 2 token endpoint.
    pub token_url: String,
    /// Its public keys.
    pub jwks_url: String,
    /// The `aud` our client assertions name, when not the token URL.
    pub audience: Option<String>,
}

/// A platform as the teacher copies it from the LMS.
#[derive(Debug, Clone)]
pub struct NewPlatform {
    /// The issuer.
    pub issuer: String,
    /// The client id.
    pub client_id: String,
    /// The deployment ids allowed to launch.
    pub deployments: Vec<String>,
    /// The authorisation endpoint.
    pub auth_url: String,
    /// The token endpoint.
    pub token_url: String,
    /// The keys' URL.
    pub jwks_url: String,
    /// The assertions' audience when not the token URL.
    pub audience: Option<String>,
}

const COLUMNS: &str = "id, issuer, client_id, auth_url, token_url, jwks_url, audience";

fn platform(r: &sqlx::any::AnyRow) -> Platform {
    Platform {
        id: r.try_get(0).unwrap_or_default(),
        issuer: r.try_get(1).unwrap_or_default(),
        client_id: r.try_get(2).unwrap_or_default(),
        auth_url: r.try_get(3).unwrap_or_default(),
        token_url: r.try_get(4).unwrap_or_default(),
        jwks_url: r.try_get(5).unwrap_or_default(),
        audience: r.try_get(6).ok().flatten(),
    }
}

/// Check that `url` is an absolute http(s) URL; `what` names it in the error.
fn url(what: &str, url: &str) -> Result<(), String> {
    match url::Url::parse(url) {
        Ok(u) if u.scheme() == "https" || u.scheme() == "http" => Ok(()),
        _ => Err(format!(
            "{what} `{url}` is not an http(s) URL: copy it whole from the LMS's tool settings"
        )),
    }
}

/// Register a platform, or add deployments and new URLs to one already
/// registered (the same issuer and client id); its id.
pub async fn add(db: &Db, p: &NewPlatform) -> Result<i64, String> {
    if p.issuer.trim().is_empty() || p.client_id.trim().is_empty() {
        return Err("give the platform's issuer and our client id there".into());
    }
    for (what, u) in [
        ("--auth-url", &p.auth_url),
        ("--token-url", &p.token_url),
        ("--jwks-url", &p.jwks_url),
    ] {
        url(what, u)?;
    }
    let existing = sqlx::query("SELECT id FROM lti_platforms WHERE issuer = $1 AND client_id = $2")
        .bind(&p.issuer)
        .bind(&p.client_id)
        .fetch_optional(&db.pool)
        .await
        .map_err(|e| e.to_string())?;
    let id: i64 = match existing {
        Some(r) => {
            let id = r.try_get(0).map_err(|e| e.to_string())?;
            sqlx::query(
                "UPDATE lti_platforms SET auth_url = $1, token_url = $2, jwks_url = $3, audience = $4 WHERE id = $5",
            )
            .bind(&p.auth_url)
            .bind(&p.token_url)
            .bind(&p.jwks_url)
            .bind(&p.audience)
            .bind(id)
            .execute(&db.pool)
            .await
            .map_err(|e| e.to_string())?;
            id
        }
        None => sqlx::query(
            "INSERT INTO lti_platforms (issuer, client_id, auth_url, token_url, jwks_url, audience, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
        )
        .bind(&p.issuer)
        .bind(&p.client_id)
        .bind(&p.auth_url)
        .bind(&p.token_url)
        .bind(&p.jwks_url)
        .bind(&p.audience)
        .bind(stamp(now()))
        .fetch_one(&db.pool)
        .await
        .and_then(|r| r.try_get(0))
        .map_err(|e| e.to_string())?,
    };
    for d in &p.deployments {
        add_deployment(db, id, d).await?;
    }
    Ok(id)
}

/// Allow one more deployment of a platform to launch.
pub async fn add_deployment(db: &Db, platform: i64, deployment: &str) -> Result<(), String> {
    let known = sqlx::query("SELECT 1 FROM lti_deployments WHERE platform_id = $1 AND deployment_id = $2")
        .bind(platform)
        .bind(deployment)
        .fetch_optional(&db.pool)
        .await
        .map_err(|e| e.to_string())?;
    if known.is_none() {
        sqlx::query("INSERT INTO lti_deployments (platform_id, deployment_id) VALUES ($1, $2)")
            .bind(platform)
            .bind(deployment)
            .execute(&db.pool)
            .await
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Every registered platform and its deployments.
pub async fn list(db: &Db) -> Result<Vec<(Platform, Vec<String>)>, String> {
    let rows = sqlx::query(&format!("SELECT {COLUMNS} FROM lti_platforms ORDER BY id"))
        .fetch_all(&db.pool)
        .await
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for r in &rows {
        let p = platform(r);
        let deployments =
            sqlx::query("SELECT deployment_id FROM lti_deployments WHERE platform_id = $1 ORDER BY deployment_id")
                .bind(p.id)
                .fetch_all(&db.pool)
                .await
                .map_err(|e| e.to_string())?
                .iter()
                .map(|r| r.try_get::<String, _>(0).unwrap_or_default())
                .collect();
        out.push((p, deployments));
    }
    Ok(out)
}

/// The platform of `issuer` (and `client_id`, when the login names it).
pub async fn find(db: &Db, issuer: &str, client_id: Option<&str>) -> Result<Option<Platform>, String> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM lti_platforms WHERE issuer = $1 ORDER BY id"
    ))
    .bind(issuer)
    .fetch_all(&db.pool)
    .await
    .map_err(|e| e.to_string())?;
    let mut found: Vec<Platform> = rows.iter().map(platform).collect();
    if let Some(c) = client_id {
        found.retain(|p| p.client_id == c);
    }
    match found.len() {
        0 => Ok(None),
        1 => Ok(found.pop()),
        _ => Err(format!(
            "{issuer} is registered with several client ids and the login named none: the LMS must send client_id"
        )),
    }
}

/// The platform with this id.
pub async fn by_id(db: &Db, id: i64) -> Result<Option<Platform>, String> {
    sqlx::query(&format!("SELECT {COLUMNS} FROM lti_platforms WHERE id = $1"))
        .bind(id)
        .fetch_optional(&db.pool)
        .await
        .map(|r| r.as_ref().map(platform))
        .map_err(|e| e.to_string())
}

/// Whether a deployment of the platform may launch.
pub async fn deployed(db: &Db, platform: i64, deployment: &str) -> Result<bool, String> {
    sqlx::query("SELECT 1 FROM lti_deployments WHERE platform_id = $1 AND deployment_id = $2")
        .bind(platform)
        .bind(deployment)
        .fetch_optional(&db.pool)
        .await
        .map(|r| r.is_some())
        .map_err(|e| e.to_string())
}

/// The platforms' keys as last fetched, and when.
#[derive(Default)]
pub struct KeyCache {
    fetched: Mutex<HashMap<i64, (JwkSet, Instant)>>,
}

/// Why a key was not found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyError {
    /// The platform publishes no key with this id (after fetching again).
    Unknown(String),
    /// The platform's keys could not be fetched.
    Unreachable(String),
}

impl KeyCache {
    /// The platform's key `kid`, from the cache or, when unknown there, fetched again.
    pub async fn key(&self, p: &Platform, kid: &str) -> Result<Jwk, KeyError> {
        let recent = {
            let cache = self
                .fetched
                .lock()
                .map_err(|_| KeyError::Unreachable("the server failed".into()))?;
            match cache.get(&p.id) {
                Some((set, _)) if set.find(kid).is_some() => {
                    return set.find(kid).cloned().ok_or(KeyError::Unknown(kid.into()));
                }
                Some((_, at)) => at.elapsed() < REFETCH_AFTER,
                None => false,
            }
        };
        if recent {
            return Err(KeyError::Unknown(kid.into()));
        }
        let url = p.jwks_url.clone();
        let set = tokio::task::spawn_blocking(move || fetch(&url))
            .await
            .map_err(|e| KeyError::Unreachable(e.to_string()))?
            .map_err(KeyError::Unreachable)?;
        let key = set.find(kid).cloned();
        if let Ok(mut cache) = self.fetched.lock() {
            cache.insert(p.id, (set, Instant::now()));
        }
        key.ok_or(KeyError::Unknown(kid.into()))
    }
}

/// A platform's keys from its JWKS URL.
fn fetch(url: &str) -> Result<JwkSet, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(10)))
        .build()
        .into();
    let mut r = agent
        .get(url)
        .header("Accept", "application/json")
        .call()
        .map_err(|e| format!("cannot fetch the platform's keys from {url} ({e})"))?;
    r.body_mut()
        .with_config()
        .limit(JWKS_BYTES)
        .read_json::<JwkSet>()
        .map_err(|e| format!("the platform's keys at {url} are not a JWKS ({e})"))
}

/// How many deployments of the platform are registered.
pub async fn deployments(db: &Db, platform: i64) -> Result<i64, String> {
    sqlx::query("SELECT COUNT(*) FROM lti_deployments WHERE platform_id = $1")
        .bind(platform)
        .fetch_one(&db.pool)
        .await
        .and_then(|r| r.try_get(0))
        .map_err(|e| e.to_string())
}

/// Access tokens by platform, until they expire.
#[derive(Default)]
pub struct Tokens(pub(super) Mutex<HashMap<i64, (String, Instant)>>);
