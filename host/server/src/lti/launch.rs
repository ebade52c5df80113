//! The launch: the OIDC login the platform starts ([`login`]), and the
//! id_token it posts back, checked as 1EdTech Security Framework §5.1.3
//! asks ([`launch`]) before anyone is logged in. Each refusal is one
//! [`Refusal`] line for the page and the server's log; none names a token.

use super::platforms::{self, KeyError, Platform};
use super::tool::{Lti, claim};
use crate::db::{Db, hex, new_token, token_hash};
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;
use sha2::{Digest, Sha256};
use sqlx::Row;

/// How long a login may take from the platform's redirect to the launch.
pub const STATE_FOR: u64 = 600;

/// How much clocks may differ between the platform and the server.
pub const SKEW: u64 = 60;

/// The oldest id_token taken (by its `iat`).
pub const ISSUED_WITHIN: u64 = 600;

/// How long the code that opens the course in its own window works.
pub const ENTER_FOR: u64 = 120;

/// Why a login or a launch was refused: one line, for the page and the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn refuse<T>(why: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal(why.into()))
}

fn failed(e: impl std::fmt::Display) -> Refusal {
    Refusal(format!("the server failed: {e}"))
}

/// What the platform sends to start a login (GET query or POST form).
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct LoginRequest {
    /// The platform's issuer.
    #[serde(default)]
    pub iss: String,
    /// Who is logging in, opaque to the tool.
    #[serde(default)]
    pub login_hint: String,
    /// Where the launch should land.
    #[serde(default)]
    pub target_link_uri: String,
    /// The platform's own data for the launch, passed back as it is.
    pub lti_message_hint: Option<String>,
    /// Our client id there.
    pub client_id: Option<String>,
    /// The deployment launching.
    pub lti_deployment_id: Option<String>,
}

/// A login started: where to send the browser, and the secret its cookie keeps.
#[derive(Debug)]
pub struct Started {
    /// The platform's authorisation URL with the request's parameters.
    pub redirect: String,
    /// The browser's secret (the `arena_lti` cookie): the launch must come from the same browser.
    pub browser: String,
}

/// SHA-256 of a secret, hex (what the database keeps of it).
fn hashed(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

/// Seconds since 1970.
fn now() -> i64 {
    i64::try_from(super::keys::unix_now()).unwrap_or(i64::MAX)
}

/// Start a login: check the platform and the target, keep a state and a
/// nonce, and send the browser to the platform's authorisation endpoint.
pub async fn login(lti: &Lti, db: &Db, r: &LoginRequest) -> Result<Started, Refusal> {
    if r.iss.is_empty() || r.login_hint.is_empty() || r.target_link_uri.is_empty() {
        return refuse(
            "the LMS started a login without iss, login_hint or target_link_uri: check the tool's login URL in the LMS",
        );
    }
    let Some(p) = platforms::find(db, &r.iss, r.client_id.as_deref())
        .await
        .map_err(Refusal)?
    else {
        return refuse(format!(
            "the LMS `{}` (client id {}) is not registered for this course: the teacher adds it with `arena course lti DIR --add-platform`",
            r.iss,
            r.client_id.as_deref().unwrap_or("not given")
        ));
    };
    let base = lti.urls.target.trim_end_matches('/');
    if r.target_link_uri != base && !r.target_link_uri.starts_with(&format!("{base}/")) {
        return refuse(format!(
            "the launch asks for {}, which is not this course ({}/): set the tool's target link URI in the LMS",
            r.target_link_uri, base
        ));
    }
    if let Some(d) = &r.lti_deployment_id
        && platforms::deployments(db, p.id).await.map_err(failed)? > 0
        && !platforms::deployed(db, p.id, d).await.map_err(failed)?
    {
        return refuse(unknown_deployment(&p, d));
    }
    let state = new_token().map_err(failed)?;
    let nonce = new_token().map_err(failed)?;
    let browser = new_token().map_err(failed)?;
    // Old states go as new ones come: the table holds only logins in flight.
    sqlx::query("DELETE FROM lti_states WHERE expires_at < $1")
        .bind(now())
        .execute(&db.pool)
        .await
        .map_err(failed)?;
    sqlx::query(
        "INSERT INTO lti_states (state_hash, nonce, platform_id, browser_hash, expires_at) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(hashed(&state))
    .bind(&nonce)
    .bind(p.id)
    .bind(hashed(&browser))
    .bind(now() + STATE_FOR as i64)
    .execute(&db.pool)
    .await
    .map_err(failed)?;
    let mut params = vec![
        ("scope", "openid"),
        ("response_type", "id_token"),
        ("response_mode", "form_post"),
        ("prompt", "none"),
        ("client_id", p.client_id.as_str()),
        ("redirect_uri", lti.urls.launch.as_str()),
        ("login_hint", r.login_hint.as_str()),
        ("state", state.as_str()),
        ("nonce", nonce.as_str()),
    ];
    if let Some(h) = &r.lti_message_hint {
        params.push(("lti_message_hint", h));
    }
    let redirect = url::Url::parse_with_params(&p.auth_url, &params).map_err(|e| {
        Refusal(format!(
            "the platform's authorisation URL `{}` is not a URL ({e})",
            p.auth_url
        ))
    })?;
    Ok(Started {
        redirect: redirect.into(),
        browser,
    })
}

fn unknown_deployment(p: &Platform, d: &str) -> String {
    format!(
        "deployment `{d}` of {} is not registered for this course: the teacher adds it with `arena course lti DIR --add-platform --deployment-id {d}` (and the rest as before)",
        p.issuer
    )
}

/// Who a launch is, in the LMS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// An instructor, a teaching assistant, a content developer or an administrator of the course.
    Teacher,
    /// A learner.
    Student,
}

/// The course role of a launch's roles claim: only roles in the course
/// (and a system administrator) count, never institution roles (Canvas
/// names an instructor elsewhere in the school `institution/person#Instructor`
/// on a student's launch).
pub fn role(roles: &[String]) -> Option<Role> {
    const MEMBERSHIP: &str = "http://purl.imsglobal.org/vocab/lis/v2/membership";
    let teaching = ["Instructor", "Administrator", "ContentDeveloper", "TeachingAssistant"];
    let mut student = false;
    for r in roles {
        let (scope, name) = match r.rsplit_once('#') {
            Some((scope, name)) => (scope, name),
            // The short forms (`Instructor`, `Learner`) are course roles.
            None => (MEMBERSHIP, r.as_str()),
        };
        let in_course = scope == MEMBERSHIP || scope.starts_with(&format!("{MEMBERSHIP}/"));
        let system_admin = scope == "http://purl.imsglobal.org/vocab/lis/v2/system/person" && name == "Administrator";
        if (in_course && teaching.contains(&name)) || system_admin {
            return Some(Role::Teacher);
        }
        student |= in_course && name == "Learner";
    }
    student.then_some(Role::Student)
}

/// A launch that passed every check.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The platform.
    pub platform: Platform,
    /// The person in the LMS (`sub`).
    pub sub: String,
    /// Their role in the course.
    pub role: Role,
    /// Their roles as the LMS sent them.
    pub roles: Vec<String>,
    /// Their name, as the LMS shares it ('' if not).
    pub name: String,
    /// Their email ('' if not shared).
    pub email: String,
    /// The school's id of them, when the LMS shares it.
    pub school_id: Option<String>,
    /// Whether the LMS shows the tool in a frame (`document_target` other than `window`).
    pub framed: bool,
    /// The claims, for the services (grades and roster).
    pub claims: Value,
}

/// What the platform posts to the redirect URI.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct LaunchForm {
    /// The signed launch.
    #[serde(default)]
    pub id_token: String,
    /// The state the login sent.
    #[serde(default)]
    pub state: String,
}

/// Check a launch: the state (one use, from the browser that started the
/// login), the id_token's signature (the platform's key), issuer,
/// audience, times and nonce (one use), then the LTI claims.
pub async fn launch(lti: &Lti, db: &Db, form: &LaunchForm, browser: Option<&str>) -> Result<Launch, Refusal> {
    if form.id_token.is_empty() || form.state.is_empty() {
        return refuse("the launch carries no id_token or no state: start it again from the LMS");
    }
    // The state is taken (deleted) whatever follows: it works once.
    let row = sqlx::query("SELECT nonce, platform_id, browser_hash, expires_at FROM lti_states WHERE state_hash = $1")
        .bind(hashed(&form.state))
        .fetch_optional(&db.pool)
        .await
        .map_err(failed)?;
    let Some(row) = row else {
        return refuse("the launch's state is unknown or was used already: start it again from the LMS");
    };
    sqlx::query("DELETE FROM lti_states WHERE state_hash = $1")
        .bind(hashed(&form.state))
        .execute(&db.pool)
        .await
        .map_err(failed)?;
    let nonce: String = row.try_get(0).map_err(failed)?;
    let platform_id: i64 = row.try_get(1).map_err(failed)?;
    let browser_hash: String = row.try_get(2).map_err(failed)?;
    let expires: i64 = row.try_get(3).map_err(failed)?;
    if expires < now() {
        return refuse("the launch took more than 10 minutes from the LMS's login: start it again from the LMS");
    }
    let same_browser = browser.is_some_and(|b| {
        use subtle::ConstantTimeEq;
        bool::from(hashed(b).as_bytes().ct_eq(browser_hash.as_bytes()))
    });
    if !same_browser {
        return refuse(
            "the launch came back to a browser that did not start it, or without its cookie (arena_lti): \
             open the assignment from the LMS again, in a new window if your browser blocks cookies in frames",
        );
    }
    let Some(p) = platforms::by_id(db, platform_id).await.map_err(failed)? else {
        return refuse("the platform of this launch is no longer registered");
    };
    let claims = verified(lti, &p, &form.id_token).await?;
    let times = |name: &str| claims.get(name).and_then(Value::as_i64).unwrap_or(0);
    if times("iat") > now() + SKEW as i64 || times("iat") < now() - ISSUED_WITHIN as i64 {
        return refuse(format!(
            "the id_token was issued at {} (Unix time), too far from the server's clock: check both clocks",
            times("iat")
        ));
    }
    // The nonce: the one this login sent, and never seen before.
    if claims.get("nonce").and_then(Value::as_str) != Some(nonce.as_str()) {
        return refuse("the id_token's nonce is not the one this login sent: start it again from the LMS");
    }
    sqlx::query("DELETE FROM lti_nonces WHERE expires_at < $1")
        .bind(now())
        .execute(&db.pool)
        .await
        .map_err(failed)?;
    let fresh = sqlx::query("INSERT INTO lti_nonces (platform_id, nonce, expires_at) VALUES ($1, $2, $3)")
        .bind(p.id)
        .bind(&nonce)
        .bind(times("exp").max(now()) + SKEW as i64)
        .execute(&db.pool)
        .await;
    // Only a nonce already kept is a replay; any other failure is the server's own.
    if let Err(e) = fresh {
        if e.as_database_error().is_some_and(|d| d.is_unique_violation()) {
            return refuse("this id_token was used already (its nonce is spent): start the launch again from the LMS");
        }
        return Err(failed(e));
    }
    checked_claims(db, p, claims).await
}

/// The id_token's claims once its signature, algorithm, issuer, audience,
/// authorised party and expiry are checked against the platform.
async fn verified(lti: &Lti, p: &Platform, token: &str) -> Result<Value, Refusal> {
    let header = jsonwebtoken::decode_header(token)
        .map_err(|e| Refusal(format!("the id_token is not a JWT ({e}): the LMS sent something else")))?;
    if header.alg != Algorithm::RS256 {
        return refuse(format!(
            "the id_token is signed with {:?}, not RS256 as LTI 1.3 requires",
            header.alg
        ));
    }
    let Some(kid) = header.kid.as_deref() else {
        return refuse("the id_token names no key (kid): the LMS must sign with a key of its JWKS");
    };
    let jwk = match lti.platform_keys.key(p, kid).await {
        Ok(k) => k,
        Err(KeyError::Unknown(kid)) => {
            return refuse(format!(
                "the id_token is signed with key `{kid}`, which {} does not publish at {}",
                p.issuer, p.jwks_url
            ));
        }
        Err(KeyError::Unreachable(why)) => return refuse(why),
    };
    let key = DecodingKey::from_jwk(&jwk)
        .map_err(|e| Refusal(format!("the platform's key `{kid}` is not an RSA key ({e})")))?;
    let mut v = Validation::new(Algorithm::RS256);
    v.set_issuer(&[&p.issuer]);
    v.set_audience(&[&p.client_id]);
    v.leeway = SKEW;
    v.set_required_spec_claims(&["exp", "iat", "iss", "aud", "sub"]);
    let data = jsonwebtoken::decode::<Value>(token, &key, &v).map_err(|e| {
        Refusal(match e.kind() {
            ErrorKind::InvalidSignature => format!("the id_token's signature does not verify with {}'s key `{kid}`", p.issuer),
            ErrorKind::ExpiredSignature => "the id_token has expired: start the launch again from the LMS".into(),
            ErrorKind::InvalidAudience => format!(
                "the id_token is for another tool (its aud is not our client id {}): check the client id registered for {}",
                p.client_id, p.issuer
            ),
            ErrorKind::InvalidIssuer => format!("the id_token's issuer is not {}", p.issuer),
            ErrorKind::MissingRequiredClaim(c) => format!("the id_token has no `{c}`"),
            ErrorKind::ImmatureSignature => "the id_token is not valid yet: check both clocks".into(),
            other => format!("the id_token does not verify ({other:?})"),
        })
    })?;
    let claims = data.claims;
    // Several audiences need an authorised party, and it must be us.
    let several = claims.get("aud").and_then(Value::as_array).is_some_and(|a| a.len() > 1);
    match claims.get("azp").and_then(Value::as_str) {
        Some(azp) if azp != p.client_id => {
            return refuse(format!(
                "the id_token's authorised party `{azp}` is not our client id {}",
                p.client_id
            ));
        }
        None if several => return refuse("the id_token names several audiences and no authorised party (azp)"),
        _ => {}
    }
    Ok(claims)
}

/// The LTI claims of a verified id_token: a resource link launch of LTI
/// 1.3.0 from a registered deployment, by a person with a course role.
async fn checked_claims(db: &Db, p: Platform, claims: Value) -> Result<Launch, Refusal> {
    let text = |name: &str| claims.get(name).and_then(Value::as_str).unwrap_or("").to_string();
    let kind = text(claim::MESSAGE_TYPE);
    if kind != "LtiResourceLinkRequest" {
        return refuse(format!(
            "the LMS sent a `{kind}` message; this tool takes resource link launches (LtiResourceLinkRequest)"
        ));
    }
    if text(claim::VERSION) != "1.3.0" {
        return refuse(format!("the launch is LTI `{}`, not 1.3.0", text(claim::VERSION)));
    }
    let deployment = text(claim::DEPLOYMENT_ID);
    if !platforms::deployed(db, p.id, &deployment).await.map_err(failed)? {
        // A platform registered by Dynamic Registration without a deployment
        // (some LMSs name it only at the first launch) takes the first one.
        if deployment.is_empty() || platforms::deployments(db, p.id).await.map_err(failed)? > 0 {
            return refuse(unknown_deployment(&p, &deployment));
        }
        platforms::add_deployment(db, p.id, &deployment).await.map_err(failed)?;
        eprintln!(
            "LTI: {} launched from its first deployment, `{deployment}`, now registered",
            p.issuer
        );
    }
    if claims
        .get(claim::RESOURCE_LINK)
        .and_then(|r| r.get("id"))
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        return refuse("the launch names no resource link: add the tool to the course as an assignment (a link)");
    }
    let sub = text("sub");
    if sub.is_empty() {
        return refuse("the launch is anonymous (no sub): log in to the LMS first");
    }
    let roles: Vec<String> = claims
        .get(claim::ROLES)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default();
    let Some(role) = role(&roles) else {
        return refuse(format!(
            "your role in the LMS course ({}) is neither a learner nor a teacher of it: ask the teacher to enrol you",
            if roles.is_empty() {
                "none".to_string()
            } else {
                roles.join(", ")
            }
        ));
    };
    let name = match text("name") {
        n if !n.trim().is_empty() => n,
        _ => format!("{} {}", text("given_name"), text("family_name"))
            .trim()
            .to_string(),
    };
    let framed = claims
        .get(claim::PRESENTATION)
        .and_then(|l| l.get("document_target"))
        .and_then(Value::as_str)
        != Some("window");
    let school_id = claims
        .get(claim::LIS)
        .and_then(|l| l.get("person_sourcedid"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    Ok(Launch {
        platform: p,
        sub,
        role,
        roles,
        name,
        email: text("email"),
        school_id,
        framed,
        claims,
    })
}

/// The person a launch logs in: the teacher for a teaching role; for a
/// learner, the one this platform's `sub` was before, else the roster's
/// student with the launch's email (a course started from a CSV), else a
/// new student. A student taken off the roster is refused.
pub async fn person(lti: &Lti, db: &Db, l: &Launch) -> Result<i64, Refusal> {
    // One at a time: a launch and a roster sync never both make one student.
    let _one = lti.people.lock().await;
    let id = match &l.role {
        Role::Teacher => teacher(db).await?,
        Role::Student => {
            let member = Member {
                sub: l.sub.clone(),
                name: l.name.clone(),
                email: l.email.clone(),
                school_id: l.school_id.clone(),
            };
            student(db, l.platform.id, &member).await?
        }
    };
    if db.person(id).await.map_err(Refusal)?.is_none() {
        return refuse("you were taken off this course's roster: ask your teacher");
    }
    let at = crate::course::stamp(crate::course::now());
    let roles = l.roles.join(" ");
    let updated = sqlx::query("UPDATE lti_users SET person_id = $1, roles = $2, status = 'Active', seen_at = $3 WHERE platform_id = $4 AND sub = $5")
        .bind(id)
        .bind(&roles)
        .bind(&at)
        .bind(l.platform.id)
        .bind(&l.sub)
        .execute(&db.pool)
        .await
        .map_err(failed)?;
    if updated.rows_affected() == 0 {
        sqlx::query("INSERT INTO lti_users (platform_id, sub, person_id, roles, status, seen_at) VALUES ($1, $2, $3, $4, 'Active', $5)")
            .bind(l.platform.id)
            .bind(&l.sub)
            .bind(id)
            .bind(&roles)
            .bind(&at)
            .execute(&db.pool)
            .await
            .map_err(failed)?;
    }
    Ok(id)
}

/// A person of the LMS course, as a launch or its roster names them.
#[derive(Debug, Clone)]
pub struct Member {
    /// The LMS's id of them (`sub`, NRPS's `user_id`).
    pub sub: String,
    /// Their name ('' if not shared).
    pub name: String,
    /// Their email ('' if not shared).
    pub email: String,
    /// The school's id, when shared.
    pub school_id: Option<String>,
}

/// The student an LMS user is: the one linked before, else the one roster
/// student with their email who came from no LMS yet, else a new one.
/// The caller holds `Lti::people` and links them in `lti_users`.
pub async fn student(db: &Db, platform: i64, m: &Member) -> Result<i64, Refusal> {
    let linked = sqlx::query("SELECT person_id FROM lti_users WHERE platform_id = $1 AND sub = $2")
        .bind(platform)
        .bind(&m.sub)
        .fetch_optional(&db.pool)
        .await
        .map_err(failed)?
        .and_then(|r| r.try_get::<i64, _>(0).ok());
    if let Some(id) = linked {
        return Ok(id);
    }
    match by_email(db, &m.email).await? {
        Some(id) => Ok(id),
        None => new_student(db, platform, m).await,
    }
}

async fn teacher(db: &Db) -> Result<i64, Refusal> {
    sqlx::query("SELECT id FROM people WHERE is_teacher = TRUE ORDER BY id LIMIT 1")
        .fetch_optional(&db.pool)
        .await
        .map_err(failed)?
        .and_then(|r| r.try_get::<i64, _>(0).ok())
        .ok_or_else(|| Refusal("the course has no teacher account".into()))
}

/// The one roster student with this email who came from no LMS yet.
async fn by_email(db: &Db, email: &str) -> Result<Option<i64>, Refusal> {
    if email.trim().is_empty() {
        return Ok(None);
    }
    let rows = sqlx::query(
        "SELECT id FROM people WHERE is_teacher = FALSE AND LOWER(email) = LOWER($1) \
         AND id NOT IN (SELECT person_id FROM lti_users)",
    )
    .bind(email.trim())
    .fetch_all(&db.pool)
    .await
    .map_err(failed)?;
    Ok(match rows.as_slice() {
        [one] => one.try_get::<i64, _>(0).ok(),
        _ => None,
    })
}

/// A student the LMS's launch brings (the roster had no such email).
async fn new_student(db: &Db, platform: i64, l: &Member) -> Result<i64, Refusal> {
    // The school's id when the LMS shares one no one on the roster has; else one from the LMS's own.
    let mut school_id = l
        .school_id
        .clone()
        .unwrap_or_else(|| format!("lti-{platform}-{}", l.sub));
    let taken = sqlx::query("SELECT 1 FROM people WHERE school_id = $1")
        .bind(&school_id)
        .fetch_optional(&db.pool)
        .await
        .map_err(failed)?
        .is_some();
    if taken {
        school_id = format!("lti-{platform}-{}", l.sub);
    }
    let name = if l.name.is_empty() {
        format!("LMS student {}", l.sub.chars().take(8).collect::<String>())
    } else {
        l.name.clone()
    };
    // A login secret no one is ever shown: this student comes in through the LMS.
    let token = new_token().map_err(failed)?;
    db.add_person(&school_id, &name, &l.email, false, &token, None)
        .await
        .map_err(Refusal)
}

/// A one-time code that logs `person` in at `/lti/enter/{code}` within [`ENTER_FOR`].
pub async fn enter_code(db: &Db, person: i64) -> Result<String, Refusal> {
    let code = new_token().map_err(failed)?;
    sqlx::query("DELETE FROM lti_enter WHERE expires_at < $1")
        .bind(now())
        .execute(&db.pool)
        .await
        .map_err(failed)?;
    sqlx::query("INSERT INTO lti_enter (code_hash, person_id, expires_at) VALUES ($1, $2, $3)")
        .bind(token_hash(&code))
        .bind(person)
        .bind(now() + ENTER_FOR as i64)
        .execute(&db.pool)
        .await
        .map_err(failed)?;
    Ok(code)
}

/// The person a code logs in, once: the code is spent whether or not it is still fresh.
pub async fn enter(db: &Db, code: &str) -> Result<i64, Refusal> {
    let hash = token_hash(code);
    let row = sqlx::query("SELECT person_id, expires_at FROM lti_enter WHERE code_hash = $1")
        .bind(&hash)
        .fetch_optional(&db.pool)
        .await
        .map_err(failed)?;
    sqlx::query("DELETE FROM lti_enter WHERE code_hash = $1")
        .bind(&hash)
        .execute(&db.pool)
        .await
        .map_err(failed)?;
    match row {
        Some(r) if r.try_get::<i64, _>(1).unwrap_or(0) >= now() => r.try_get(0).map_err(failed),
        Some(_) => refuse("this link to open the course has expired: open the assignment from the LMS again"),
        None => refuse("this link to open the course was used already: open the assignment from the LMS again"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles(r: &[&str]) -> Option<Role> {
        role(&r.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn only_course_roles_make_a_teacher() {
        let m = "http://purl.imsglobal.org/vocab/lis/v2/membership#";
        assert_eq!(roles(&[&format!("{m}Learner")]), Some(Role::Student));
        assert_eq!(roles(&[&format!("{m}Instructor")]), Some(Role::Teacher));
        assert_eq!(
            roles(&["http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"]),
            Some(Role::Teacher)
        );
        assert_eq!(roles(&["Learner"]), Some(Role::Student));
        assert_eq!(roles(&["Instructor"]), Some(Role::Teacher));
        // Canvas: an instructor elsewhere in the school who is a learner here.
        assert_eq!(
            roles(&[
                "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor",
                &format!("{m}Learner")
            ]),
            Some(Role::Student)
        );
        assert_eq!(
            roles(&["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"]),
            None
        );
        assert_eq!(roles(&[&format!("{m}Mentor")]), None);
        assert_eq!(
            roles(&["http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator"]),
            Some(Role::Teacher)
        );
    }
}
