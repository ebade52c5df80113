//! LTI Dynamic Registration 1.0: the teacher pastes one URL into the LMS
//! (`arena course lti DIR --registration-url` makes it, usable once within
//! a day), the LMS opens it with its OpenID configuration and a
//! registration token, and the tool registers itself: it reads the
//! configuration (its issuer must be on the configuration URL's host),
//! posts its own (login, redirect, keys, target, the messages and
//! services it uses), and keeps the client id and deployment the LMS
//! answers, as `--add-platform` would.

use super::launch::Refusal;
use super::platforms::{self, NewPlatform};
use super::tool::{Lti, ToolUrls};
use crate::db::{Db, new_token, token_hash};
use serde_json::{Value, json};

/// How long a registration URL works.
pub const VALID_FOR: i64 = 24 * 3600;

/// The LTI tool configuration's key in a registration.
const TOOL_CONFIGURATION: &str = "https://purl.imsglobal.org/spec/lti-tool-configuration";

/// A new registration URL for the course served at `urls`.
pub async fn new_url(db: &Db, urls: &ToolUrls) -> Result<String, String> {
    let secret = new_token()?;
    sqlx::query("INSERT INTO lti_registrations (secret_hash, expires_at) VALUES ($1, $2)")
        .bind(token_hash(&secret))
        .bind(super::keys::unix_now() as i64 + VALID_FOR)
        .execute(&db.pool)
        .await
        .map_err(|e| e.to_string())?;
    Ok(format!("{}register?k={secret}", urls.login.trim_end_matches("login")))
}

/// What the LMS sends to the registration URL.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct Opened {
    /// The teacher's one-time secret.
    #[serde(default)]
    pub k: String,
    /// The LMS's OpenID configuration URL.
    #[serde(default)]
    pub openid_configuration: String,
    /// The LMS's bearer token for its registration endpoint.
    pub registration_token: Option<String>,
}

fn refuse<T>(why: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal(why.into()))
}

/// Register the course with the LMS that opened the registration URL; the platform's issuer.
pub async fn register(lti: &Lti, db: &Db, o: &Opened) -> Result<String, Refusal> {
    let now = super::keys::unix_now() as i64;
    let known = sqlx::query("SELECT expires_at FROM lti_registrations WHERE secret_hash = $1")
        .bind(token_hash(&o.k))
        .fetch_optional(&db.pool)
        .await
        .map_err(|e| Refusal(e.to_string()))?;
    match known.map(|r| sqlx::Row::try_get::<i64, _>(&r, 0).unwrap_or(0)) {
        Some(until) if until >= now => {}
        Some(_) => {
            return refuse(
                "this registration URL has expired: make a new one with `arena course lti DIR --registration-url`",
            );
        }
        None => {
            return refuse(
                "this registration URL is not (or no longer) the course's: make one with `arena course lti DIR --registration-url`",
            );
        }
    }
    let config_url = url::Url::parse(&o.openid_configuration)
        .map_err(|_| Refusal("the LMS sent no openid_configuration URL: start the registration from the LMS".into()))?;
    let fetched = o.openid_configuration.clone();
    let config: Value = blocking(move |agent| {
        let mut r = agent
            .get(&fetched)
            .header("Accept", "application/json")
            .call()
            .map_err(|e| format!("cannot read the LMS's configuration at {fetched} ({e})"))?;
        if r.status().as_u16() != 200 {
            return Err(format!("the LMS's configuration at {fetched} answered {}", r.status()));
        }
        r.body_mut()
            .with_config()
            .limit(1 << 20)
            .read_json()
            .map_err(|e| format!("the LMS's configuration at {fetched} is not JSON ({e})"))
    })
    .await?;
    let text = |k: &str| config.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let issuer = text("issuer");
    // The issuer must be the configuration's own site: a configuration cannot speak for another LMS.
    let issuer_host = url::Url::parse(&issuer)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string));
    if issuer_host.is_none() || issuer_host.as_deref() != config_url.host_str() {
        return refuse(format!(
            "the LMS's configuration names the issuer `{issuer}`, not on its own host {}",
            config_url.host_str().unwrap_or("")
        ));
    }
    let endpoint = text("registration_endpoint");
    if endpoint.is_empty() {
        return refuse("the LMS's configuration has no registration_endpoint");
    }
    let urls = &lti.urls;
    let domain = url::Url::parse(&urls.target)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default();
    let body = json!({
        "application_type": "web",
        "response_types": ["id_token"],
        "grant_types": ["implicit", "client_credentials"],
        "initiate_login_uri": urls.login,
        "redirect_uris": [urls.launch],
        "client_name": lti.course_name,
        "jwks_uri": urls.jwks,
        "token_endpoint_auth_method": "private_key_jwt",
        "scope": "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem https://purl.imsglobal.org/spec/lti-ags/scope/score https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",
        TOOL_CONFIGURATION: {
            "domain": domain,
            "target_link_uri": urls.target,
            "claims": ["iss", "sub", "name", "given_name", "family_name", "email"],
            "messages": [{"type": "LtiResourceLinkRequest", "target_link_uri": urls.target, "label": lti.course_name}],
        },
    });
    let bearer = o.registration_token.clone();
    let posted = endpoint.clone();
    let answer: Value = blocking(move |agent| {
        let mut req = agent.post(&posted).header("Content-Type", "application/json");
        if let Some(t) = &bearer {
            req = req.header("Authorization", &format!("Bearer {t}"));
        }
        let mut r = req
            .send(body.to_string().as_bytes())
            .map_err(|e| format!("cannot register at the LMS's {posted} ({e})"))?;
        let status = r.status().as_u16();
        let said: Value = r
            .body_mut()
            .with_config()
            .limit(1 << 20)
            .read_json()
            .unwrap_or(Value::Null);
        if !(200..300).contains(&status) {
            return Err(format!(
                "the LMS refused the registration ({status}: {})",
                said["error"]
            ));
        }
        Ok(said)
    })
    .await?;
    let Some(client_id) = answer.get("client_id").and_then(Value::as_str) else {
        return refuse("the LMS's answer to the registration has no client_id");
    };
    let deployment = answer
        .get(TOOL_CONFIGURATION)
        .and_then(|c| c.get("deployment_id"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let platform = NewPlatform {
        issuer: issuer.clone(),
        client_id: client_id.to_string(),
        deployments: deployment.into_iter().collect(),
        auth_url: text("authorization_endpoint"),
        token_url: text("token_endpoint"),
        jwks_url: text("jwks_uri"),
        audience: config
            .get("authorization_server")
            .and_then(Value::as_str)
            .map(str::to_string),
    };
    platforms::add(db, &platform).await.map_err(Refusal)?;
    sqlx::query("DELETE FROM lti_registrations WHERE secret_hash = $1")
        .bind(token_hash(&o.k))
        .execute(&db.pool)
        .await
        .map_err(|e| Refusal(e.to_string()))?;
    Ok(issuer)
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce(&ureq::Agent) -> Result<T, String> + Send + 'static,
) -> Result<T, Refusal> {
    super::ags::call(f).await.map_err(Refusal)?.map_err(Refusal)
}
