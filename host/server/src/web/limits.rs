//! Rate limits (issue 48), by `tower_governor`: logins and uploads per
//! client address, the students' API per student (their token). Past a
//! limit a request gets 429 with `Retry-After` and a page that says when
//! to try again. The workers' API is the teacher's own machines and has
//! none. Limits are `[rates]` in `course.toml`.

use super::error;
use crate::course::RateConfig;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use sha2::{Digest, Sha256};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tower_governor::governor::{GovernorConfig, GovernorConfigBuilder};
use tower_governor::key_extractor::KeyExtractor;
use tower_governor::{GovernorError, GovernorLayer};

/// Who a request comes from: the peer's address, or, when the peer is
/// this machine (a TLS proxy in front, as docs/server.md sets up), the
/// client the proxy names in `X-Forwarded-For` or `X-Real-IP`. No one
/// from outside can name themselves: only loopback peers are believed.
#[derive(Clone, Copy, Debug)]
pub struct ClientAddress;

impl KeyExtractor for ClientAddress {
    type Key = IpAddr;

    fn extract<T>(&self, req: &Request<T>) -> Result<IpAddr, GovernorError> {
        let peer = req
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip())
            .ok_or(GovernorError::UnableToExtractKey)?;
        if !peer.is_loopback() {
            return Ok(peer);
        }
        let h = req.headers();
        let forwarded = h
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next_back())
            .or_else(|| h.get("x-real-ip").and_then(|v| v.to_str().ok()))
            .and_then(|v| v.trim().parse::<IpAddr>().ok());
        Ok(forwarded.unwrap_or(peer))
    }
}

/// Which student calls the API: their bearer token, hashed (the limiter
/// keeps its keys in memory; no secret is kept in the clear).
#[derive(Clone, Copy, Debug)]
pub struct Student;

impl KeyExtractor for Student {
    type Key = [u8; 16];

    fn extract<T>(&self, req: &Request<T>) -> Result<[u8; 16], GovernorError> {
        let token = req
            .headers()
            .get(header::AUTHORIZATION)
            .map(HeaderValue::as_bytes)
            .ok_or(GovernorError::UnableToExtractKey)?;
        let digest = Sha256::digest(token);
        let mut key = [0u8; 16];
        key.copy_from_slice(&digest[..16]);
        Ok(key)
    }
}

/// A limiter of `per_minute` requests a minute for each key, a minute's
/// worth at once.
fn config<K: KeyExtractor>(key: K, per_minute: u32) -> Arc<GovernorConfig<K, governor::middleware::NoOpMiddleware>> {
    let per_minute = per_minute.max(1);
    let period = Duration::from_secs(60) / per_minute;
    let built = GovernorConfigBuilder::default()
        .period(period.max(Duration::from_micros(1)))
        .burst_size(per_minute)
        .key_extractor(key)
        .finish();
    // Neither the period nor the burst is zero, the only ways `finish` fails.
    Arc::new(built.expect("a rate limit's period and burst are not zero"))
}

/// The page a request past its limit gets: when to try again.
fn refused(e: GovernorError) -> Response<Body> {
    match e {
        GovernorError::TooManyRequests { wait_time, .. } => {
            let wait = wait_time.max(1);
            let mut r = error(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "too many requests from you in a short time: try again in {wait} second{}",
                    if wait == 1 { "" } else { "s" }
                ),
            );
            if let Ok(v) = HeaderValue::from_str(&wait.to_string()) {
                r.headers_mut().insert(header::RETRY_AFTER, v);
            }
            r
        }
        GovernorError::UnableToExtractKey => error(StatusCode::UNAUTHORIZED, "log in with your link"),
        GovernorError::Other { code, msg, .. } => error(code, msg.unwrap_or_default()),
    }
}

/// The course's limiters, and a task that forgets idle keys every minute.
pub struct Limits {
    /// Logins and uploads, per client address.
    pub by_address: Arc<GovernorConfig<ClientAddress, governor::middleware::NoOpMiddleware>>,
    /// The students' API, per student.
    pub by_student: Arc<GovernorConfig<Student, governor::middleware::NoOpMiddleware>>,
}

impl Limits {
    /// The limiters of `rates`; idle keys are forgotten every minute.
    pub fn new(rates: &RateConfig) -> Limits {
        let limits = Limits {
            by_address: config(ClientAddress, rates.logins_per_minute),
            by_student: config(Student, rates.api_per_minute),
        };
        let (a, s) = (limits.by_address.clone(), limits.by_student.clone());
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                loop {
                    tokio::time::sleep(Duration::from_secs(60)).await;
                    a.limiter().retain_recent();
                    s.limiter().retain_recent();
                }
            });
        }
        limits
    }

    /// The layer that limits logins and uploads.
    pub fn addresses(&self) -> GovernorLayer<ClientAddress, governor::middleware::NoOpMiddleware, Body> {
        GovernorLayer::new(self.by_address.clone()).error_handler(refused)
    }

    /// The layer that limits the students' API.
    pub fn students(&self) -> GovernorLayer<Student, governor::middleware::NoOpMiddleware, Body> {
        GovernorLayer::new(self.by_student.clone()).error_handler(refused)
    }
}
