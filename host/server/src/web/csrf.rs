//! Forms' CSRF tokens, bound to the session (the synchronizer token
//! pattern): a token is 32 random bytes made at login and kept in the
//! session itself, and a form is taken only with its own session's token,
//! compared in constant time. A double-submit cookie (what `axum_csrf`
//! does) is not bound to the session: another session's cookie-and-token
//! pair passed it (issue 48). No cookie of its own: the session cookie is
//! `HttpOnly`, `SameSite=Strict` and `Secure` behind https.

use super::{PERSON, error};
use axum::http::StatusCode;
use axum::response::Response;
use subtle::ConstantTimeEq as _;
use tower_sessions::Session;

const KEY: &str = "csrf";

/// A fresh token for `session`, replacing any it had: at login, so a token
/// seen before the login is worth nothing after it.
pub(crate) async fn renew(session: &Session) -> Result<(), String> {
    let token = crate::db::new_token()?;
    session.insert(KEY, token).await.map_err(|e| e.to_string())
}

/// The token forms of `session`'s pages carry: empty for a visitor who is
/// not logged in (no page shows them a form, and nothing is stored for them).
pub(crate) async fn token(session: &Session) -> String {
    if let Ok(Some(t)) = session.get::<String>(KEY).await {
        return t;
    }
    // A session logged in before tokens lived in sessions gets one now.
    if matches!(session.get::<i64>(PERSON).await, Ok(Some(_))) && renew(session).await.is_ok() {
        return session.get::<String>(KEY).await.ok().flatten().unwrap_or_default();
    }
    String::new()
}

/// Whether `given` is `session`'s own token.
pub(crate) async fn valid(session: &Session, given: &str) -> bool {
    match session.get::<String>(KEY).await {
        Ok(Some(t)) => !t.is_empty() && bool::from(t.as_bytes().ct_eq(given.as_bytes())),
        _ => false,
    }
}

/// `Ok` when `given` is `session`'s own token, else [`forged`].
pub(crate) async fn check(session: &Session, given: &str) -> Result<(), Response> {
    if valid(session, given).await {
        Ok(())
    } else {
        Err(forged())
    }
}

/// The page that refuses a form without its session's token.
pub(crate) fn forged() -> Response {
    error(
        StatusCode::FORBIDDEN,
        "the form was stale or forged: reload the page and try again",
    )
}
