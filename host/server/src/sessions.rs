//! Sessions kept under a hash of their id (issue 48): the session store
//! (tower-sessions' SQLite or Postgres table) holds SHA-256 of each
//! cookie's id, never the id itself, so whoever reads the database (a
//! backup, a shared Postgres) cannot log in as the teacher with what they
//! read. The cookie's id is a random 128-bit number, so its hash cannot be
//! turned back into it.

use sha2::{Digest, Sha256};
use tower_sessions::session::{Id, Record};
use tower_sessions::session_store::{Result, SessionStore};

/// A session store that keeps every session under the hash of its id.
#[derive(Debug, Clone)]
pub struct HashedIds<S>(pub S);

/// The id a session is stored under.
fn stored(id: &Id) -> Id {
    let digest = Sha256::digest(id.0.to_le_bytes());
    let mut half = [0u8; 16];
    half.copy_from_slice(&digest[..16]);
    Id(i128::from_le_bytes(half))
}

#[async_trait::async_trait]
impl<S: SessionStore + Clone> SessionStore for HashedIds<S> {
    async fn create(&self, record: &mut Record) -> Result<()> {
        // A new id for the rare id whose hash is taken, as the stores do.
        loop {
            let key = stored(&record.id);
            if self.0.load(&key).await?.is_none() {
                let mut kept = record.clone();
                kept.id = key;
                return self.0.save(&kept).await;
            }
            record.id = Id::default();
        }
    }

    async fn save(&self, record: &Record) -> Result<()> {
        let mut kept = record.clone();
        kept.id = stored(&record.id);
        self.0.save(&kept).await
    }

    async fn load(&self, id: &Id) -> Result<Option<Record>> {
        Ok(self.0.load(&stored(id)).await?.map(|mut r| {
            r.id = *id;
            r
        }))
    }

    async fn delete(&self, id: &Id) -> Result<()> {
        self.0.delete(&stored(id)).await
    }
}

/// The session cookie's name.
pub const COOKIE: &str = "arena_session";

/// Marks a response that ends its session (logout): only such a response
/// may clear the session cookie.
#[derive(Debug, Clone, Copy)]
pub struct Ended;

/// Keeps the session cookie unless the response ended its session.
///
/// tower-sessions clears the cookie of any request whose session is not in
/// the store. A login gives the browser a new session and deletes the old
/// one, so a request the old page sent just before (a poll, an event
/// stream) comes back after the login's answer and clears the new cookie:
/// the student who just followed their link lands logged out (seen in the
/// class walkthrough, with a tab that logs in one student after another).
/// A cookie naming no session is harmless, so it stays until a logout.
pub async fn keep_cookie(request: axum::extract::Request, next: axum::middleware::Next) -> axum::response::Response {
    let mut response = next.run(request).await;
    if response.extensions().get::<Ended>().is_some() {
        return response;
    }
    let headers = response.headers_mut();
    let kept: Vec<_> = headers
        .get_all(axum::http::header::SET_COOKIE)
        .iter()
        .filter(|v| !clears_session(v))
        .cloned()
        .collect();
    if kept.len() < headers.get_all(axum::http::header::SET_COOKIE).iter().count() {
        headers.remove(axum::http::header::SET_COOKIE);
        for v in kept {
            headers.append(axum::http::header::SET_COOKIE, v);
        }
    }
    response
}

/// A `Set-Cookie` that clears the session cookie (what tower-sessions sends
/// for a session it no longer has).
fn clears_session(value: &axum::http::HeaderValue) -> bool {
    let Ok(text) = value.to_str() else { return false };
    let Ok(cookie) = tower_sessions::cookie::Cookie::parse(text) else {
        return false;
    };
    cookie.name() == COOKIE
        && (cookie.value().is_empty() || cookie.max_age().is_some_and(|a| a.is_zero() || a.is_negative()))
}
