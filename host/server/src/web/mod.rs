//! The web pages and the API: server-rendered HTML that works without
//! JavaScript (`assets/app.js` only refreshes the parts of a page a finished
//! job changed), sessions from login links, CSRF tokens bound to the
//! session on every form ([`csrf`]), and
//! a bearer-token API for `arena submit`.
//!
//! One file per audience: [`student`] (a student's own page and versions),
//! [`version`] (one version: its verdict and replays), [`teacher`] (the
//! class, grades and exports), [`ladder`] (the leaderboard and its games),
//! [`student_api`] (the students' API), [`remote`] (external workers' API), [`lti`] (launches from an LMS); the
//! routes in [`routes`]. What they share is here: the state every handler
//! gets and the response helpers; who may see what is the one rule of
//! [`access`].

use crate::course::Course;
use crate::db::Person;
use crate::ladder::Ladder;
use crate::queue::{Queue, Submission};
use crate::work::Grading;
use crate::workers::Workers;
use axum::Json;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use serde::Deserialize;
use std::sync::Arc;
use tower_sessions::Session;

pub(crate) mod access;
pub(crate) mod csrf;
pub mod ladder;
pub mod limits;
pub mod lti;
pub mod remote;
pub mod routes;
pub mod student;
pub mod student_api;
pub mod teacher;
pub mod version;

/// What every handler shares.
pub struct App {
    /// The course's queue (and through it the database and the course).
    pub queue: Queue,
    /// The course's grading.
    pub grading: Arc<Grading>,
    /// The course's ladder.
    pub ladder: Arc<Ladder>,
    /// The course's external workers.
    pub workers: Arc<Workers>,
    /// Games played again on request at once (as many as grading workers:
    /// a student clicking through replays cannot take the machine).
    pub replaying: Arc<tokio::sync::Semaphore>,
    /// The open event streams, capped per person and in all.
    pub streams: Streams,
    /// The server's own grading threads (`--workers`).
    pub own_threads: usize,
    /// LTI 1.3: the tool's keys and the platforms' ([`crate::lti`]).
    pub lti: Arc<crate::lti::Lti>,
}

/// Event streams a person may hold open at once (a few tabs).
pub const STREAMS_PER_PERSON: usize = 6;

/// The open event streams (each holds a connection for as long as its page
/// is open): at most [`STREAMS_PER_PERSON`] a person and a total, so one
/// student's cookie cannot hold every connection (issue 48).
pub struct Streams {
    total: usize,
    open: std::sync::Mutex<std::collections::HashMap<i64, usize>>,
}

/// One open stream, given back when its page goes.
pub struct StreamSlot {
    app: Arc<App>,
    person: i64,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        if let Ok(mut open) = self.app.streams.open.lock()
            && let Some(n) = open.get_mut(&self.person)
        {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.person);
            }
        }
    }
}

impl Streams {
    /// At most `total` streams in all.
    pub fn new(total: usize) -> Streams {
        Streams {
            total: total.max(STREAMS_PER_PERSON),
            open: std::sync::Mutex::new(std::collections::HashMap::new()),
        }
    }

    /// A stream for `person`, or why not.
    fn open(app: &Arc<App>, person: i64) -> Result<StreamSlot, &'static str> {
        let mut open = app.streams.open.lock().map_err(|_| "the server failed")?;
        if open.values().sum::<usize>() >= app.streams.total {
            return Err(
                "the server has as many live pages open as it can serve: this page will not refresh by itself, reload it later",
            );
        }
        let n = open.entry(person).or_default();
        if *n >= STREAMS_PER_PERSON {
            return Err("you have too many pages of this course open: close some tabs, then reload");
        }
        *n += 1;
        Ok(StreamSlot {
            app: app.clone(),
            person,
        })
    }
}

/// The shared state of the router.
#[derive(Clone)]
pub struct Shared(pub Arc<App>);

const PERSON: &str = "person";

const NOTE: &str = "note";

/// The server's own pages: scripts and styles only from the server, no inline script.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; \
                   form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// A page or fragment of HTML with the server's security headers.
pub(crate) fn page(html: String) -> Response {
    let mut r = Html(html).into_response();
    secure_headers(r.headers_mut(), CSP);
    r
}

/// A viewer page (a replay), with the viewer's own content policy.
pub(crate) fn viewer_response(html: String) -> Response {
    let mut r = Html(html).into_response();
    secure_headers(r.headers_mut(), &viewer_policy());
    r
}

/// The viewer's content policy, and no framing by another site (a
/// policy in a page's own `<meta>` cannot say that: only a header can).
pub(crate) fn viewer_policy() -> String {
    format!(
        "{}; frame-ancestors 'none'",
        arena_report::view::content_security_policy()
    )
}

pub(crate) fn secure_headers(h: &mut HeaderMap, csp: &str) {
    if let Ok(v) = HeaderValue::from_str(csp) {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

/// An error page: what went wrong, in one line.
pub(crate) fn error(status: StatusCode, why: impl Into<String>) -> Response {
    let why = why.into();
    (status, page(format!(
        "<!doctype html><meta charset=utf-8><link rel=stylesheet href=/assets/style.css><main><h1>{}</h1><p>{}</p><p><a href=\"/\">back</a></p></main>",
        status.canonical_reason().unwrap_or("Error"),
        arena_report::report::esc(&why)
    )))
        .into_response()
}

pub(crate) fn internal(e: impl std::fmt::Display) -> Response {
    error(StatusCode::INTERNAL_SERVER_ERROR, format!("the server failed: {e}"))
}

pub(crate) async fn me(app: &App, session: &Session) -> Option<Person> {
    let id: i64 = session.get(PERSON).await.ok().flatten()?;
    app.queue.db.person(id).await.ok().flatten()
}

async fn take_note(session: &Session) -> Option<(String, bool)> {
    session.remove::<(String, bool)>(NOTE).await.ok().flatten()
}

pub(crate) async fn set_note(session: &Session, note: &str, bad: bool) {
    let _ = session.insert(NOTE, (note.to_string(), bad)).await;
}

#[derive(Deserialize)]
struct CsrfForm {
    authenticity_token: String,
}

/// A time as pages show it: `2026-11-25 14:03 UTC`.
pub(crate) fn shown_time(stamp: &str) -> String {
    stamp
        .get(..16)
        .map_or_else(|| stamp.to_string(), |t| format!("{} UTC", t.replace('T', " ")))
}

fn points_text(v: &Submission) -> String {
    match (v.score, v.max_score) {
        (Some(s), Some(m)) => format!("{} / {}", arena_runner::text::points(s), arena_runner::text::points(m)),
        _ => "-".into(),
    }
}

fn deadline_text(course: &Course) -> String {
    if course.config.frozen_at(crate::course::now()) {
        let d = course.config.deadline.as_deref().map(shown_time).unwrap_or_default();
        // Late days are named only where the course gives some.
        return if course.config.late_days > 0 {
            format!("The deadline ({d}) and its late days are over: no more uploads are taken.")
        } else {
            format!("The deadline ({d}) is over: no more uploads are taken.")
        };
    }
    match (&course.config.deadline, course.config.late_days) {
        (None, _) => "No deadline.".into(),
        (Some(d), 0) => format!("Deadline {}.", shown_time(d)),
        (Some(d), n) => format!(
            "Deadline {}; versions up to {n} day{} late are taken and marked late.",
            shown_time(d),
            if n == 1 { "" } else { "s" }
        ),
    }
}

async fn teacher(app: &App, session: &Session) -> Result<Person, Response> {
    match me(app, session).await {
        Some(p) if p.is_teacher => Ok(p),
        Some(_) => Err(error(StatusCode::FORBIDDEN, "only the teacher may do that")),
        None => Err(error(StatusCode::UNAUTHORIZED, "log in with your link")),
    }
}

/// A file to save, with the server's headers.
fn download(body: impl IntoResponse, kind: &'static str, name: &'static str) -> Response {
    let mut r = body.into_response();
    let h = r.headers_mut();
    secure_headers(h, CSP);
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    r
}

const CSV: &str = "text/csv; charset=utf-8";

/// The API's one-line error, as JSON.
fn api_error(status: StatusCode, why: &str) -> Response {
    (status, Json(serde_json::json!({ "error": why }))).into_response()
}

/// How the grading of `v` goes, in words, while it waits or runs: the
/// estimate before it starts ("up to 362 games, at most 15 minutes (the
/// course's grading budget)"), then the games played of those planned and
/// the time left, from the grading's progress hook on this server.
pub(crate) fn grading_words(app: &App, v: &crate::queue::Submission) -> Option<String> {
    match v.state.as_str() {
        "queued" => Some(app.grading.estimate().estimate_words()),
        "running" => Some(
            app.queue
                .progress_of(v.id)
                .unwrap_or_else(|| app.grading.estimate())
                .words(),
        ),
        _ => None,
    }
}
