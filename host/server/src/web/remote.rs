//! The API external workers call (`arena worker`): hello (versions and
//! settings), claim (a batch of ladder matches under a lease), heartbeat,
//! results, grading jobs and version tests (one at a time under a lease,
//! and their verdicts), and bot files by SHA-256. A worker's token is its only
//! credential; a worker that runs another engine is refused at its first
//! call, and one whose results do not replay is disabled.

use super::Shared;
use crate::api::Lease;
use crate::api::{Beat, Claim, Hello, RemoteResult, Results, Taken, Welcome};
use crate::ladder::Untaken;
use crate::lease::Holder;
use axum::body::Body;
use axum::extract::Request;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};

/// The refusal of a call the server could not do: 500 and the cause.
fn failed(e: impl std::fmt::Display) -> Response {
    refuse(StatusCode::INTERNAL_SERVER_ERROR, format!("the server failed: {e}"))
}

fn refuse(status: StatusCode, why: impl Into<String>) -> Response {
    (status, Json(serde_json::json!({ "error": why.into() }))).into_response()
}

/// The worker this request comes from, or the response refusing it.
async fn worker(s: &Shared, headers: &HeaderMap) -> Result<i64, Response> {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or_else(|| refuse(StatusCode::UNAUTHORIZED, "no worker token: give --token"))?;
    match s.0.workers.worker(token.trim()).await {
        Ok(Some((id, None))) => Ok(id),
        Ok(Some((_, Some(why)))) => Err(refuse(StatusCode::FORBIDDEN, format!("this worker is disabled: {why}"))),
        Ok(None) => Err(refuse(
            StatusCode::UNAUTHORIZED,
            "this is not a worker token of the course: ask the teacher for one (`arena course worker-token`)",
        )),
        Err(e) => Err(failed(e)),
    }
}

/// The worker a request of the workers' API comes from, known before its body is read.
#[derive(Debug, Clone, Copy)]
pub struct WorkerId(pub i64);

/// The workers' API's gate (a route layer): the token is checked before
/// any body is read, so an unknown caller costs the server no memory.
pub async fn authenticate(State(s): State<Shared>, mut request: Request, next: Next) -> Response {
    match worker(&s, request.headers()).await {
        Ok(id) => {
            // Any call counts as connected: the pages say whether anything grades.
            s.0.ladder.seen(id);
            request.extensions_mut().insert(WorkerId(id));
            next.run(request).await
        }
        Err(refused) => refused,
    }
}

/// `POST /api/worker/hello`.
pub async fn hello(
    State(s): State<Shared>,
    Extension(WorkerId(id)): Extension<WorkerId>,
    Json(hello): Json<Hello>,
) -> Response {
    let (arena, wasmtime) = (arena_runner::VERSION, arena_runner::replay::WASMTIME_VERSION);
    if hello.arena != arena || hello.wasmtime != wasmtime {
        return refuse(
            StatusCode::CONFLICT,
            format!(
                "this worker runs arena {} with wasmtime {}, the server arena {arena} with wasmtime {wasmtime}: \
                 install the server's version on the worker, then start it again",
                hello.arena, hello.wasmtime
            ),
        );
    }
    let app = &s.0;
    app.ladder.heard_from(id, hello.jobs);
    let _ = app
        .workers
        .hello(
            id,
            &format!("{} on {} ({} threads)", hello.arena, hello.host, hello.jobs),
        )
        .await;
    let rubric = match tokio::fs::read_to_string(app.queue.course.rubric_path()).await {
        Ok(t) => t,
        Err(e) => {
            return refuse(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("the server cannot read its rubric: {e}"),
            );
        }
    };
    let config = &app.queue.course.config;
    Json(Welcome {
        rubric,
        worlds: config.worlds.clone(),
        versus: (config.ladder.versus_elo, u64::from(config.ladder.versus_games)),
        worker: id,
        game: app.grading.game.name().to_string(),
        limits: app.queue.course.config.limits.clone(),
        illegal: app.grading.rubric.illegal,
        engine: app.ladder.player.fingerprint(),
        lease_seconds: app.ladder.lease_seconds(),
    })
    .into_response()
}

/// `POST /api/worker/claim`: 200 with a lease, or 204 when nothing waits.
pub async fn claim(
    State(s): State<Shared>,
    Extension(WorkerId(id)): Extension<WorkerId>,
    Json(c): Json<Claim>,
) -> Response {
    if let Some(r) = engine_refusal(&s, &c.engine) {
        return r;
    }
    let ladder = &s.0.ladder;
    ladder.heard_from(id, c.max.div_ceil(2).max(1));
    match ladder
        .claim(Holder::Worker(id), c.max.clamp(1, 64), ladder.lease_seconds())
        .await
    {
        Ok(Lease { matches, .. }) if matches.is_empty() => StatusCode::NO_CONTENT.into_response(),
        Ok(lease) => Json(lease).into_response(),
        Err(e) => failed(e),
    }
}

/// The refusal of a worker whose engine is not the server's, if it is not.
fn engine_refusal(s: &Shared, engine: &str) -> Option<Response> {
    let mine = s.0.ladder.player.fingerprint();
    (engine != mine).then(|| {
        refuse(
            StatusCode::CONFLICT,
            format!(
                "this worker's engine settings ({}) are not the server's ({}): games would not replay alike; \
                 install the server's arena build on the worker",
                short(engine),
                short(&mine)
            ),
        )
    })
}

/// `POST /api/worker/jobs/claim`: 200 with a grading job or version test under a lease, or 204.
pub async fn claim_job(
    State(s): State<Shared>,
    Extension(WorkerId(id)): Extension<WorkerId>,
    Json(c): Json<Claim>,
) -> Response {
    if let Some(r) = engine_refusal(&s, &c.engine) {
        return r;
    }
    match s.0.queue.claim_remote(id, s.0.ladder.lease_seconds()).await {
        Ok(Some(job)) => Json(job).into_response(),
        Ok(None) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => failed(e),
    }
}

/// `POST /api/worker/jobs/result`: whether the result was taken.
pub async fn job_result(
    State(s): State<Shared>,
    Extension(WorkerId(id)): Extension<WorkerId>,
    Json(r): Json<RemoteResult>,
) -> Response {
    match s.0.queue.finish_remote(id, &r, &s.0.grading).await {
        Ok(taken) => Json(serde_json::json!({ "taken": taken })).into_response(),
        Err(e) => refuse(StatusCode::UNPROCESSABLE_ENTITY, e),
    }
}

fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

/// `POST /api/worker/heartbeat`.
pub async fn heartbeat(
    State(s): State<Shared>,
    Extension(WorkerId(id)): Extension<WorkerId>,
    Json(b): Json<Beat>,
) -> Response {
    let (ladder, queue) = (&s.0.ladder, &s.0.queue);
    let beat = match ladder.heartbeat(id, &b.lease).await {
        Ok(n) => queue
            .heartbeat_remote(id, &b.lease, ladder.lease_seconds())
            .await
            .map(|m| n + m),
        Err(e) => Err(e),
    };
    match beat {
        Ok(n) => Json(serde_json::json!({ "leased": n })).into_response(),
        Err(e) => failed(e),
    }
}

/// `POST /api/worker/results`.
pub async fn results(
    State(s): State<Shared>,
    Extension(WorkerId(id)): Extension<WorkerId>,
    Json(r): Json<Results>,
) -> Response {
    let ladder = &s.0.ladder;
    let mut leased = match ladder.jobs_of_lease(id, &r.lease).await {
        Ok(j) => j,
        Err(e) => return failed(e),
    };
    let mut jobs = Vec::new();
    let mut out = Taken::default();
    for one in r.results.iter().take(256) {
        // A match not held under this lease (late, twice, or someone else's) is not taken.
        match leased.remove(&one.id) {
            Some(j) => jobs.push((j, &one.outcome)),
            None => out.untaken.push(one.id),
        }
    }
    let batch: Vec<_> = jobs.iter().map(|(j, o)| (j, *o)).collect();
    let results = match ladder.finish_many(Holder::Worker(id), &r.lease, &batch).await {
        Ok(r) => r,
        Err(e) => return failed(e),
    };
    let mut malformed = None;
    for ((job, _), result) in batch.iter().zip(results) {
        match result {
            Ok(()) => out.taken.push(job.id),
            Err(Untaken::NotLeased) => out.untaken.push(job.id),
            Err(Untaken::Malformed(why)) => {
                out.untaken.push(job.id);
                malformed.get_or_insert(format!("match {}: {why}", job.id));
            }
        }
    }
    if let Some(why) = malformed {
        // An honest worker returns what the match played: a result that
        // cannot be one puts the rest of its results in doubt.
        let _ =
            s.0.workers
                .doubt(id, &format!("it returned a malformed result ({why})"))
                .await;
        return refuse(StatusCode::UNPROCESSABLE_ENTITY, why);
    }
    Json(out).into_response()
}

/// `GET /api/worker/bots/{sha256}`: a version's file.
pub async fn bot(
    State(s): State<Shared>,
    Extension(WorkerId(id)): Extension<WorkerId>,
    Path(sha): Path<String>,
) -> Response {
    // Only what the worker's work needs: accepted versions, or the one it grades now.
    let Some(path) = s.0.ladder.file(&sha) else {
        return refuse(StatusCode::NOT_FOUND, "no bot file with that SHA-256");
    };
    match s.0.workers.may_fetch(id, &sha).await {
        Ok(true) => {}
        Ok(false) => return refuse(StatusCode::NOT_FOUND, "no bot file with that SHA-256"),
        Err(e) => return failed(e),
    }
    match tokio::fs::File::open(&path).await {
        Ok(f) => (
            [(header::CONTENT_TYPE, "application/wasm")],
            Body::from_stream(tokio_util::io::ReaderStream::new(f)),
        )
            .into_response(),
        Err(e) => refuse(StatusCode::INTERNAL_SERVER_ERROR, format!("cannot read the file: {e}")),
    }
}
