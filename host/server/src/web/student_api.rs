//! The students' API (`arena submit`): bearer tokens, JSON in and out.

use super::{App, Shared, api_error};
use crate::api::{CourseInfo, VersionView};
use crate::db::Person;
use crate::queue::{Refused, Submission};
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};

/// The student a request of the students' API comes from, known before its body is read.
#[derive(Debug, Clone)]
pub struct Student(pub Person);

/// The students' API's gate (a route layer): the token is checked before
/// any body is read, so an upload with a bad token costs the server nothing.
pub async fn authenticate(State(s): State<Shared>, mut request: Request, next: Next) -> Response {
    match bearer(&s.0, request.headers()).await {
        Ok(person) => {
            request.extensions_mut().insert(Student(person));
            next.run(request).await
        }
        Err(refused) => refused,
    }
}

/// The person a bearer token names, or the API's one-line refusal.
pub(super) async fn bearer(app: &App, headers: &HeaderMap) -> Result<Person, Response> {
    let refuse = |why: &str| (StatusCode::UNAUTHORIZED, Json(serde_json::json!({ "error": why }))).into_response();
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or_else(|| refuse("no token: give --token (the token in your login email)"))?;
    match app.queue.db.person_by_token(token.trim()).await {
        Ok(Some(p)) if !p.is_teacher => Ok(p),
        Ok(_) => Err(refuse(
            "this token is not (or no longer) a student's: ask your teacher for a new one",
        )),
        Err(e) => Err(api_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("the server failed: {e}"),
        )),
    }
}

/// A version as the API gives it.
pub(super) fn version_view(app: &App, v: &Submission) -> VersionView {
    let json = |s: &Option<String>| -> serde_json::Value {
        s.as_deref()
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or(serde_json::Value::Null)
    };
    VersionView {
        version: v.version,
        sha256: v.sha256.clone(),
        size: v.size,
        submitted: v.submitted_at.clone(),
        late_days: v.late_days,
        state: v.state.clone(),
        accepted: match v.state.as_str() {
            "accepted" => Some(true),
            "rejected" => Some(false),
            _ => None,
        },
        progress: super::grading_words(app, v),
        reason: v.reason.clone(),
        toolchain: v.toolchain.clone(),
        check: json(&v.check_json),
        check_text: v.check_text.clone(),
        grade: json(&v.grade_json),
        grade_text: v.grade_text.clone(),
        score: v.score,
        max_score: v.max_score,
        versus: json(&v.versus_json),
        flags: v.plays_like().map(|h| format!("plays like {h}")).into_iter().collect(),
        url: format!(
            "{}/people/{}/versions/{}",
            app.queue.course.config.url.trim_end_matches('/'),
            v.person,
            v.version
        ),
    }
}

/// What a client checks before it uploads: the course, its game and its limits.
pub(super) async fn api_course(State(s): State<Shared>) -> Response {
    let app = &s.0;
    let c = &app.queue.course.config;
    Json(CourseInfo {
        course: c.name.clone(),
        game: c.game.clone(),
        max_file_bytes: app.grading.max_file_bytes(),
        deadline: c.deadline.clone(),
        late_days: c.late_days,
        uploads_per_hour: c.uploads_per_hour,
        open: !c.frozen_at(crate::course::now()),
    })
    .into_response()
}

pub(super) async fn api_submit(
    State(s): State<Shared>,
    Extension(Student(person)): Extension<Student>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let app = &s.0;
    let name = headers
        .get("x-file-name")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("bot.wasm")
        .to_string();
    match app
        .queue
        .submit(
            person.id,
            &name,
            &body,
            app.grading.max_file_bytes(),
            &|shown, bytes| app.grading.refuse_at_upload(shown, bytes),
        )
        .await
    {
        Ok(Ok(sub)) => (StatusCode::ACCEPTED, Json(version_view(app, &sub))).into_response(),
        // The file itself is rejected: said as a verdict, `rejected`, not as a refusal to listen.
        Ok(Err(Refused::NotABot(why))) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(serde_json::json!({ "error": why, "rejected": true })),
        )
            .into_response(),
        Ok(Err(refused)) => {
            let status = match refused {
                Refused::TooMany(_) => StatusCode::TOO_MANY_REQUESTS,
                Refused::TooBig(_) => StatusCode::PAYLOAD_TOO_LARGE,
                Refused::Frozen | Refused::Empty | Refused::NotABot(_) => StatusCode::UNPROCESSABLE_ENTITY,
                Refused::DiskFull => StatusCode::INSUFFICIENT_STORAGE,
            };
            api_error(status, &refused.to_string())
        }
        Err(e) => api_error(StatusCode::INTERNAL_SERVER_ERROR, &format!("the server failed: {e}")),
    }
}

pub(super) async fn api_version(
    State(s): State<Shared>,
    Extension(Student(person)): Extension<Student>,
    Path(n): Path<i64>,
) -> Response {
    let app = &s.0;
    match app.queue.version(person.id, n).await {
        Ok(Some(v)) => Json(version_view(app, &v)).into_response(),
        Ok(None) => api_error(StatusCode::NOT_FOUND, &format!("no version {n}")),
        Err(e) => api_error(StatusCode::INTERNAL_SERVER_ERROR, &format!("the server failed: {e}")),
    }
}
