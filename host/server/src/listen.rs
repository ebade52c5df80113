//! Accepting connections within bounds (issue 48): `axum::serve` has no
//! header timeout and no cap on connections, so 1,100 half-sent requests
//! took every descriptor and the server answered no one. Here each
//! connection is served by hyper's HTTP/1 server with a header read
//! timeout (which also ends an idle keep-alive connection), at most
//! [`Bounds::connections`] are served at once, a few more are told
//! "the server is full" in a 503, and past that a connection is closed at
//! once. When the server is full, the connection that has waited longest
//! without sending a whole request is closed first and hands its room to
//! the newest, so half-sent requests opened again and again cannot keep a
//! client that sends its request at once out. The descriptor limit is
//! raised to the hard limit at start, and the cap kept below it. With a certificate ([`Tls`]) every connection is TLS
//! (rustls), and the certificate is read again when its files change.

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt as _;

/// How long a client may take to send a request's headers, and how long a
/// kept-alive connection may sit idle before its next request.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Descriptors kept for the server's own use (the database, bot files,
/// compiler children, logs) below the process's limit.
const RESERVED_FDS: u64 = 256;

/// Connections past the cap that are still answered "full" (a 503 the
/// browser can show) before new ones are closed unanswered.
const OVERFLOW: usize = 64;

/// How many connections to serve.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// Connections served at once; more wait for one to close.
    pub connections: usize,
}

impl Bounds {
    /// At most `wanted` connections, and fewer when the descriptor limit
    /// (raised to its hard limit first) leaves less room; with what limited it.
    pub fn within_descriptors(wanted: usize) -> (Bounds, Option<String>) {
        let limit = rlimit::increase_nofile_limit(u64::MAX).unwrap_or(1024);
        let room = usize::try_from(limit.saturating_sub(RESERVED_FDS + OVERFLOW as u64)).unwrap_or(usize::MAX);
        if room < wanted {
            let room = room.max(16);
            let why = format!(
                "the process may open {limit} files: serving at most {room} connections (not {wanted}); raise `ulimit -n` for more"
            );
            (Bounds { connections: room }, Some(why))
        } else {
            (Bounds { connections: wanted }, None)
        }
    }
}

/// The answer to a connection past the cap.
fn full() -> Response<Body> {
    let mut r = Response::new(Body::from(
        "The server is full: too many connections are open. Try again in a minute.\n",
    ));
    *r.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    h.insert(header::RETRY_AFTER, HeaderValue::from_static("60"));
    h.insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

/// A certificate and its key, kept in PEM files (as certbot or an ACME
/// client renews them) and read again when either file changes, so a
/// renewed certificate is served without a restart.
pub struct Tls {
    cert: PathBuf,
    key: PathBuf,
    state: Mutex<TlsState>,
}

struct TlsState {
    /// When the files were last looked at, and their times then.
    checked: Instant,
    stamps: (Option<SystemTime>, Option<SystemTime>),
    acceptor: TlsAcceptor,
}

/// How often the certificate's files are looked at.
const TLS_RECHECK: Duration = Duration::from_secs(5);

impl Tls {
    /// Read `cert` and `key`; one line naming the file and the fix when they do not serve.
    pub fn open(cert: &Path, key: &Path) -> Result<Tls, String> {
        let stamps = stamps(cert, key);
        Ok(Tls {
            cert: cert.to_path_buf(),
            key: key.to_path_buf(),
            state: Mutex::new(TlsState {
                checked: Instant::now(),
                stamps,
                acceptor: acceptor(cert, key)?,
            }),
        })
    }

    /// The acceptor of the certificate now in the files (a renewed one
    /// within [`TLS_RECHECK`]); if the new files do not load, the old
    /// certificate is served and the reason said once.
    fn current(&self) -> Option<TlsAcceptor> {
        let mut state = self.state.lock().ok()?;
        if state.checked.elapsed() >= TLS_RECHECK {
            state.checked = Instant::now();
            let now = stamps(&self.cert, &self.key);
            if now != state.stamps {
                state.stamps = now;
                match acceptor(&self.cert, &self.key) {
                    Ok(a) => {
                        state.acceptor = a;
                        eprintln!("arena serve: {}: the certificate was read again", self.cert.display());
                    }
                    Err(e) => eprintln!("arena serve: {e}; the previous certificate is still served"),
                }
            }
        }
        Some(state.acceptor.clone())
    }
}

fn stamps(cert: &Path, key: &Path) -> (Option<SystemTime>, Option<SystemTime>) {
    let at = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    (at(cert), at(key))
}

/// A TLS acceptor of the PEM certificate chain `cert` and private key `key`.
fn acceptor(cert: &Path, key: &Path) -> Result<TlsAcceptor, String> {
    use rustls::pki_types::pem::PemObject as _;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<_, _>>())
        .map_err(|e| {
            format!(
                "{}: cannot read a PEM certificate ({e}); give the certificate chain file (fullchain.pem)",
                cert.display()
            )
        })?;
    if chain.is_empty() {
        return Err(format!(
            "{}: no certificate in it; give the certificate chain file (fullchain.pem)",
            cert.display()
        ));
    }
    let secret = PrivateKeyDer::from_pem_file(key).map_err(|e| {
        format!(
            "{}: cannot read a PEM private key ({e}); give the key file (privkey.pem)",
            key.display()
        )
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, secret)
        .map_err(|e| {
            format!(
                "{}: the key does not serve the certificate {} ({e})",
                key.display(),
                cert.display()
            )
        })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// How long a connection let in by closing a waiting one waits for its room.
const EVICTION: Duration = Duration::from_secs(2);

/// The served connections that have not yet sent a whole request, oldest
/// first (by the order they were let in), each with the way to close it:
/// sent a sender, it closes and hands its permit over.
type Waiting = Arc<Mutex<BTreeMap<u64, oneshot::Sender<oneshot::Sender<OwnedSemaphorePermit>>>>>;

/// The numbers of connections let in, in order.
static LET_IN: AtomicU64 = AtomicU64::new(0);

/// One connection to serve.
struct One {
    app: Router,
    http: hyper::server::conn::http1::Builder,
    remote: std::net::SocketAddr,
    tls: Option<TlsAcceptor>,
    waiting: Waiting,
    watcher: hyper_util::server::graceful::Watcher,
}

impl One {
    /// Serve the connection `socket` holding `permit`; until its first
    /// request's headers are in, a full server may close it for a newer one
    /// (a rerun of issue 48's attacks found that 1,100 half-sent requests
    /// opened again as fast as they were closed kept 62% of page loads from
    /// one address out, each held the whole header timeout).
    async fn serve(self, socket: tokio::net::TcpStream, permit: OwnedSemaphorePermit) {
        let One {
            app,
            http,
            remote,
            tls,
            waiting,
            watcher,
        } = self;
        let id = LET_IN.fetch_add(1, Ordering::Relaxed);
        let (evict, evicted) = oneshot::channel();
        if let Ok(mut w) = waiting.lock() {
            w.insert(id, evict);
        }
        let started = Arc::new(AtomicBool::new(false));
        let service = {
            let (waiting, started) = (waiting.clone(), started.clone());
            TowerToHyperService::new(app.map_request(move |mut r: Request<Incoming>| {
                if !started.swap(true, Ordering::Relaxed)
                    && let Ok(mut w) = waiting.lock()
                {
                    w.remove(&id);
                }
                r.extensions_mut().insert(ConnectInfo(remote));
                r
            }))
        };
        let conn = async move {
            match tls {
                None => {
                    let _ = watcher
                        .watch(http.serve_connection(TokioIo::new(socket), service))
                        .await;
                }
                // A handshake that does not finish in the header time ends the connection.
                Some(tls) => {
                    if let Ok(Ok(stream)) = tokio::time::timeout(HEADER_TIMEOUT, tls.accept(socket)).await {
                        let _ = watcher
                            .watch(http.serve_connection(TokioIo::new(stream), service))
                            .await;
                    }
                }
            }
        };
        tokio::select! {
            () = conn => {}
            // Chosen to make room (only ever while no request has started):
            // closed, and the room handed to the newer connection.
            Ok(to) = evicted => {
                if let Ok(mut w) = waiting.lock() {
                    w.remove(&id);
                }
                let _ = to.send(permit);
                return;
            }
        }
        if let Ok(mut w) = waiting.lock() {
            w.remove(&id);
        }
        drop(permit);
    }
}

/// Serve `app` on `listener` within `bounds` (over TLS when `tls` is
/// given) until `stop` completes, then let the open requests finish (at most 10 s).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    bounds: Bounds,
    tls: Option<Arc<Tls>>,
    stop: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let served = Arc::new(Semaphore::new(bounds.connections.max(1)));
    let refused = Arc::new(Semaphore::new(OVERFLOW));
    let waiting: Waiting = Arc::new(Mutex::new(BTreeMap::new()));
    let graceful = GracefulShutdown::new();
    tokio::pin!(stop);
    loop {
        let (socket, remote) = tokio::select! {
            got = listener.accept() => match got {
                Ok(got) => got,
                // Out of descriptors or a connection reset before it was
                // taken: wait a moment rather than spin.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let _ = socket.set_nodelay(true);
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new()).header_read_timeout(HEADER_TIMEOUT);
        let one = One {
            app: app.clone(),
            http: http.clone(),
            remote,
            tls: tls.as_ref().and_then(|t| t.current()),
            waiting: waiting.clone(),
            watcher: graceful.watcher(),
        };
        if let Ok(permit) = served.clone().try_acquire_owned() {
            tokio::spawn(one.serve(socket, permit));
            continue;
        }
        // Full: the connection that has waited longest without sending a
        // whole request hands its room to this one (a half-sent request
        // held open is the slow way to fill a server).
        let mut handed = None;
        while handed.is_none() {
            let Some((_, evict)) = waiting.lock().ok().and_then(|mut w| w.pop_first()) else {
                break;
            };
            let (give, take) = oneshot::channel();
            // A connection that ended meanwhile no longer listens: the next oldest.
            if evict.send(give).is_ok() {
                handed = Some(take);
            }
        }
        if let Some(take) = handed {
            tokio::spawn(async move {
                if let Ok(Ok(permit)) = tokio::time::timeout(EVICTION, take).await {
                    one.serve(socket, permit).await;
                }
            });
        } else if tls.is_none()
            && let Ok(permit) = refused.clone().try_acquire_owned()
        {
            let io = TokioIo::new(socket);
            http.keep_alive(false);
            let service = hyper::service::service_fn(|_: Request<Incoming>| async { Ok::<_, Infallible>(full()) });
            let conn = http.serve_connection(io, service);
            tokio::spawn(async move {
                let _ = conn.await;
                drop(permit);
            });
        }
        // Else the socket is dropped here: closed unanswered (over TLS too:
        // a "full" page would cost a handshake).
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(Duration::from_secs(10)) => {}
    }
    Ok(())
}
