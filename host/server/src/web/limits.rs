//! Rate limits (issue 48), by `tower_governor`: logins and uploads per
//! client address, the students' API per student (their token). Past a
//! limit a request gets 429 with `Retry-After` and a page that says when
//! to try again. The workers' API is the teacher's own machines and has
//! none, but a wrong token on either API counts against its address
//! ([`Failures`]) as a login link does. Limits are `[rates]` in `course.toml`.

use super::error;
use crate::course::RateConfig;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use axum::response::IntoResponse as _;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
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

/// Wrong tokens on the APIs, per client address (found by the rerun of
/// issue 48's attacks: a bad bearer token was answered 401 as often as
/// asked, about as many guesses a second as login links were before they
/// had a limit). Each address has a bucket of `per_minute` failures that
/// refills at that rate; while it is empty every call of that address to
/// the APIs, right token or not, is refused with 429 before its token is
/// looked up, so guessing costs the server nothing and gains nothing. A
/// student or worker that never sends a wrong token never meets it, and
/// a classroom behind one address shares only its wrong tokens.
pub struct Failures {
    per_minute: f64,
    /// Each address's failures left (negative: blocked) and when they were counted.
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl Failures {
    fn new(per_minute: u32) -> Failures {
        Failures {
            per_minute: f64::from(per_minute.max(1)),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// The bucket of `ip` refilled to now: failures left.
    fn left(&self, buckets: &mut HashMap<IpAddr, (f64, Instant)>, ip: IpAddr) -> f64 {
        let now = Instant::now();
        let b = buckets.entry(ip).or_insert((self.per_minute, now));
        let refilled = b.0 + now.duration_since(b.1).as_secs_f64() * self.per_minute / 60.0;
        *b = (refilled.min(self.per_minute), now);
        b.0
    }

    /// Seconds until `ip` may call again, if it is blocked now.
    fn blocked(&self, ip: IpAddr) -> Option<u64> {
        let mut buckets = self.buckets.lock().ok()?;
        if !buckets.contains_key(&ip) {
            return None;
        }
        let left = self.left(&mut buckets, ip);
        (left < 0.0).then(|| (-left * 60.0 / self.per_minute).ceil().max(1.0) as u64)
    }

    /// Count a wrong token of `ip`; seconds to wait if that emptied its bucket.
    fn failed(&self, ip: IpAddr) -> Option<u64> {
        let mut buckets = self.buckets.lock().ok()?;
        let left = self.left(&mut buckets, ip) - 1.0;
        if let Some(b) = buckets.get_mut(&ip) {
            b.0 = left;
        }
        (left < 0.0).then(|| (-left * 60.0 / self.per_minute).ceil().max(1.0) as u64)
    }

    /// Forget the addresses whose bucket is full again.
    fn forget_idle(&self) {
        if let Ok(mut buckets) = self.buckets.lock() {
            let full = self.per_minute;
            let rate = full / 60.0;
            buckets.retain(|_, b| b.0 + b.1.elapsed().as_secs_f64() * rate < full);
        }
    }
}

/// The API's answer to an address past its wrong tokens: 429, when to try again.
fn too_many_failures(wait: u64) -> axum::response::Response {
    let mut r = (
        StatusCode::TOO_MANY_REQUESTS,
        axum::Json(serde_json::json!({
            "error": format!(
                "too many wrong tokens from your address: try again in {wait} second{}",
                if wait == 1 { "" } else { "s" }
            )
        })),
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(&wait.to_string()) {
        r.headers_mut().insert(header::RETRY_AFTER, v);
    }
    r
}

/// The route layer of both APIs, outside their token check: an address
/// past its wrong tokens is refused before the token is looked up, and a
/// 401 counts against its address.
pub async fn count_failures(
    axum::extract::State(f): axum::extract::State<Arc<Failures>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let ip = ClientAddress.extract(&request).ok();
    if let Some(wait) = ip.and_then(|ip| f.blocked(ip)) {
        return too_many_failures(wait);
    }
    let response = next.run(request).await;
    if response.status() == StatusCode::UNAUTHORIZED
        && let Some(wait) = ip.and_then(|ip| f.failed(ip))
    {
        return too_many_failures(wait);
    }
    response
}

/// The course's limiters, and a task that forgets idle keys every minute.
pub struct Limits {
    /// Logins and uploads, per client address.
    pub by_address: Arc<GovernorConfig<ClientAddress, governor::middleware::NoOpMiddleware>>,
    /// The students' API, per student.
    pub by_student: Arc<GovernorConfig<Student, governor::middleware::NoOpMiddleware>>,
    /// Wrong tokens on the APIs, per client address (as many as logins).
    pub failures: Arc<Failures>,
}

impl Limits {
    /// The limiters of `rates`; idle keys are forgotten every minute.
    pub fn new(rates: &RateConfig) -> Limits {
        let limits = Limits {
            by_address: config(ClientAddress, rates.logins_per_minute),
            by_student: config(Student, rates.api_per_minute),
            failures: Arc::new(Failures::new(rates.logins_per_minute)),
        };
        let (a, s, f) = (
            limits.by_address.clone(),
            limits.by_student.clone(),
            limits.failures.clone(),
        );
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                loop {
                    tokio::time::sleep(Duration::from_secs(60)).await;
                    a.limiter().retain_recent();
                    s.limiter().retain_recent();
                    f.forget_idle();
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
