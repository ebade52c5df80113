//! `arena serve`: open a course, start its graders, and serve its pages
//! until interrupted.

use crate::course::Course;
use crate::db::{Backend, Db};
use crate::ladder::Ladder;
use crate::listen::{self, Bounds, Tls};
use crate::pool;
use crate::queue::Queue;
use crate::sessions::HashedIds;
use crate::systemd;
use crate::web::routes::router;
use crate::web::{App, Shared, Streams};
use crate::work::Grading;
use crate::workers::Workers;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower_sessions::cookie::SameSite;
use tower_sessions::{Expiry, SessionManagerLayer, SessionStore};

/// How to serve a course.
pub struct ServeSpec<'a> {
    /// The course folder.
    pub dir: &'a Path,
    /// Where to listen.
    pub listen: SocketAddr,
    /// The database (the folder's SQLite file when `None`).
    pub database: Option<String>,
    /// The server's own pool: grading jobs and ladder matches run at once
    /// (0: none, every job waits for external workers).
    pub workers: usize,
    /// The program that compiles bot files in a child process.
    pub compiler: Option<PathBuf>,
    /// Connections served at once (kept below the descriptor limit).
    pub max_connections: usize,
    /// A certificate chain and its key (PEM files): serve https, reading
    /// them again when they change.
    pub tls: Option<(PathBuf, PathBuf)>,
    /// Told once the server listens (its address).
    pub ready: &'a (dyn Fn(SocketAddr) + Sync),
}

/// Serve the course until Ctrl-C or SIGTERM.
pub async fn serve(spec: ServeSpec<'_>) -> Result<(), String> {
    let tls = match &spec.tls {
        Some((cert, key)) => Some(Arc::new(Tls::open(cert, key)?)),
        None => None,
    };
    let (bounds, limited) = Bounds::within_descriptors(spec.max_connections);
    if let Some(why) = limited {
        eprintln!("arena serve: {why}");
    }
    let course = Arc::new(Course::open(spec.dir)?);
    course.keep_private()?;
    let grading = Arc::new(Grading::new(&course, spec.compiler.clone())?);
    let url = course.database_url(spec.database.as_deref())?;
    let named = (!url.starts_with("sqlite:")).then_some(url.as_str());
    let db = upgraded(spec.dir, &url, named).await?;
    // SQLite gives its journal files the database's mode: set it once they exist.
    course.keep_private()?;
    let secret = db.secret().await?;
    let workers = Arc::new(Workers::new(db.clone(), secret.clone()));
    let queue = Queue::new(db.clone(), course.clone(), workers.clone()).await?;
    let ladder = Arc::new(Ladder::new(db.clone(), course.clone(), &grading, workers.clone(), secret).await?);
    ladder.start(spec.workers);
    if spec.workers == 0 {
        pool::start_checker(queue.clone(), ladder.clone(), grading.clone());
    } else {
        pool::start(spec.workers, queue.clone(), ladder.clone(), grading.clone());
        pool::start_upload_lane(queue.clone(), grading.clone());
    }
    let lti = crate::lti::Lti::open(spec.dir, &course.config.url, &course.config.name)?;
    crate::lti::ags::start(lti.clone(), queue.clone());
    let shared = Shared(Arc::new(App {
        queue,
        grading,
        ladder,
        workers,
        replaying: Arc::new(tokio::sync::Semaphore::new(spec.workers.max(1))),
        // Half the connections at most hold event streams: pages still load.
        streams: Streams::new(bounds.connections / 2),
        own_threads: spec.workers,
        lti,
    }));
    let secure = tls.is_some() || course.config.url.starts_with("https:");
    let listen = Listen {
        at: spec.listen,
        bounds,
        tls,
    };
    match db.backend {
        Backend::Sqlite => {
            let pool = sqlx::SqlitePool::connect(&url)
                .await
                .map_err(|e| format!("sessions: {e}"))?;
            let store = tower_sessions_sqlx_store::SqliteStore::new(pool);
            store.migrate().await.map_err(|e| format!("sessions: {e}"))?;
            run(listen, shared, HashedIds(store), secure, spec.ready).await
        }
        Backend::Postgres => {
            let pool = sqlx::PgPool::connect(&url)
                .await
                .map_err(|e| format!("sessions: {e}"))?;
            let store = tower_sessions_sqlx_store::PostgresStore::new(pool);
            store.migrate().await.map_err(|e| format!("sessions: {e}"))?;
            run(listen, shared, HashedIds(store), secure, spec.ready).await
        }
    }
}

/// The course's database with its tables at this arena's schema: a course
/// made by an older arena is backed up (into `DIR/backups/`) before its
/// tables are changed, and one made by a newer one is refused in one line.
async fn upgraded(dir: &Path, url: &str, database: Option<&str>) -> Result<Db, String> {
    let db = Db::connect(url).await?;
    let schema = db.schema().await?;
    if schema.at > 0 && schema.at < schema.to {
        let out = dir.join("backups").join(format!(
            "before-schema-{}-{}",
            schema.to,
            crate::course::stamp(crate::course::now()).replace(':', "")
        ));
        crate::backup::backup(dir, &out, database).await.map_err(|e| {
            format!(
                "the course was made by an older arena and is not upgraded, since it could not be backed up first: {e}"
            )
        })?;
        db.migrate().await?;
        eprintln!(
            "arena serve: the course's database went from schema {} to {}; the course as it was is backed up in {}",
            schema.at,
            schema.to,
            out.display()
        );
    } else {
        db.migrate().await?;
    }
    Ok(db)
}

/// Where and how to listen.
struct Listen {
    at: SocketAddr,
    bounds: Bounds,
    tls: Option<Arc<Tls>>,
}

async fn run<S: SessionStore + Clone>(
    listen: Listen,
    shared: Shared,
    store: S,
    secure: bool,
    ready: &(dyn Fn(SocketAddr) + Sync),
) -> Result<(), String> {
    // HttpOnly, SameSite=Strict, Secure behind TLS; a month without a visit ends a session.
    let sessions = SessionManagerLayer::new(store)
        .with_name(crate::sessions::COOKIE)
        .with_http_only(true)
        .with_same_site(SameSite::Strict)
        .with_secure(secure)
        .with_expiry(Expiry::OnInactivity(tower_sessions::cookie::time::Duration::days(30)));
    // A body that stops arriving for 30 s ends its request.
    let app = router(shared)
        .layer(sessions)
        .layer(axum::middleware::from_fn(crate::sessions::keep_cookie))
        .layer(axum::middleware::from_fn(systemd::log_request))
        .layer(tower_http::timeout::RequestBodyTimeoutLayer::new(
            std::time::Duration::from_secs(30),
        ));
    let listener = tokio::net::TcpListener::bind(listen.at)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", listen.at))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    ready(addr);
    systemd::ready();
    let served = listen::serve(listener, app, listen.bounds, listen.tls, stopped()).await;
    systemd::stopping();
    served.map_err(|e| e.to_string())
}

/// Completes at Ctrl-C or SIGTERM (what `systemctl stop` sends).
async fn stopped() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
