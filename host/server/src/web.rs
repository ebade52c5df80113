//! The web pages and the API: server-rendered HTML that works without
//! JavaScript (`assets/app.js` only refreshes the parts of a page a finished
//! job changed), sessions from login links, CSRF tokens on every form, and
//! a bearer-token API for `arena submit`.

use crate::course::Course;
use crate::db::Person;
use crate::export::{self, Entry, counted};
use crate::queue::{Finished, Queue, Refused, Submission};
use crate::work::Grading;
use askama::Template;
use axum::extract::{DefaultBodyLimit, FromRef, Multipart, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use axum_csrf::{CsrfConfig, CsrfToken};
use serde::Deserialize;
use std::sync::Arc;
use tower_sessions::Session;

/// What every handler shares.
pub struct App {
    /// The course's queue (and through it the database and the course).
    pub queue: Queue,
    /// The course's grading.
    pub grading: Arc<Grading>,
    /// The course's ladder.
    pub ladder: Arc<crate::ladder::Ladder>,
    /// CSRF tokens' settings and key.
    pub csrf: CsrfConfig,
    /// Games played again on request at once (as many as grading workers:
    /// a student clicking through replays cannot take the machine).
    pub replaying: Arc<tokio::sync::Semaphore>,
}

/// The shared state of the router.
#[derive(Clone)]
pub struct Shared(pub Arc<App>);

impl FromRef<Shared> for CsrfConfig {
    fn from_ref(s: &Shared) -> CsrfConfig {
        s.0.csrf.clone()
    }
}

const PERSON: &str = "person";
const NOTE: &str = "note";
/// The page style and the one script, served by the server itself.
const STYLE: &str = include_str!("../assets/style.css");
const SCRIPT: &str = include_str!("../assets/app.js");
/// The server's own pages: scripts and styles only from the server, no inline script.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; \
                   form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The routes of a course server.
pub fn router(shared: Shared) -> Router {
    let max_body = usize::try_from(shared.0.grading.max_file_bytes())
        .unwrap_or(usize::MAX)
        .saturating_add(64 << 10);
    Router::new()
        .route("/", get(home))
        .route("/login/{token}", get(login))
        .route("/logout", post(logout))
        .route("/upload", post(upload))
        .route("/count", post(count))
        .route("/fragment/versions", get(my_versions_fragment))
        .route("/fragment/class", get(class_fragment))
        .route("/events", get(events))
        .route("/people/{pid}", get(history))
        .route("/people/{pid}/versions/{n}", get(version_page))
        .route("/people/{pid}/versions/{n}/verdict", get(verdict_fragment))
        .route("/people/{pid}/versions/{n}/index.html", get(back_to_version))
        .route("/people/{pid}/versions/{n}/replays/{file}", get(replay))
        .route("/people/{pid}/versions/{n}/items/{i}/games", get(replay_game))
        .route("/teacher/regrade", post(regrade))
        .route("/teacher/gradebook.csv", get(gradebook))
        .route("/teacher/grades-canvas.csv", get(canvas))
        .route("/teacher/class.zip", get(class_zip))
        .route("/people/{pid}/versions/{n}/results.json", get(results_json))
        .route("/ladder", get(crate::ladder_web::ladder_page))
        .route("/fragment/ladder", get(crate::ladder_web::ladder_fragment))
        .route("/ladder/people/{pid}", get(crate::ladder_web::ladder_person))
        .route("/ladder/matches/{id}/games/{g}", get(crate::ladder_web::ladder_game))
        .route("/teacher/ladder", post(crate::ladder_web::teacher_switch))
        .route("/teacher/tournament", post(crate::ladder_web::teacher_tournament))
        .route("/tournament/{*file}", get(crate::ladder_web::tournament_file))
        .route("/api/leaderboard", get(crate::ladder_web::api_leaderboard))
        .route("/api/worker/hello", post(crate::remote::hello))
        .route("/api/worker/claim", post(crate::remote::claim))
        .route("/api/worker/heartbeat", post(crate::remote::heartbeat))
        .route("/api/worker/results", post(crate::remote::results))
        .route("/api/worker/jobs/claim", post(crate::remote::claim_job))
        .route("/api/worker/jobs/result", post(crate::remote::job_result))
        .route("/api/worker/bots/{sha}", get(crate::remote::bot))
        .route("/api/course", get(api_course))
        .route("/api/submissions", post(api_submit))
        .route("/api/submissions/{n}", get(api_version))
        .route(
            "/assets/style.css",
            get(|| async { ([(header::CONTENT_TYPE, "text/css")], STYLE) }),
        )
        .route(
            "/assets/app.js",
            get(|| async { ([(header::CONTENT_TYPE, "text/javascript")], SCRIPT) }),
        )
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(shared)
}

/// A page or fragment of HTML with the server's security headers.
pub(crate) fn page(html: String) -> Response {
    let mut r = Html(html).into_response();
    secure_headers(r.headers_mut(), CSP);
    r
}

/// A viewer page (a replay), with the viewer's own content policy.
pub(crate) fn viewer_response(html: String) -> Response {
    let mut r = Html(html).into_response();
    secure_headers(r.headers_mut(), &arena_report::view::content_security_policy());
    r
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

#[derive(Template)]
#[template(path = "welcome.html")]
struct Welcome<'a> {
    course: &'a str,
    note: Option<String>,
}

async fn home(State(s): State<Shared>, session: Session, csrf: CsrfToken) -> Response {
    let app = &s.0;
    let course = &app.queue.course.config.name;
    let Some(person) = me(app, &session).await else {
        return match (Welcome { course, note: None }).render() {
            Ok(html) => page(html),
            Err(e) => internal(e),
        };
    };
    let token = csrf.authenticity_token().unwrap_or_default();
    let note = take_note(&session).await;
    let html = if person.is_teacher {
        teacher_page(app, &token, note.map(|n| n.0)).await
    } else {
        student_page(app, &person, &token, note).await
    };
    match html {
        Ok(html) => (csrf, page(html)).into_response(),
        Err(e) => internal(e),
    }
}

async fn login(State(s): State<Shared>, session: Session, Path(token): Path<String>) -> Response {
    let app = &s.0;
    match app.queue.db.person_by_token(&token).await {
        Ok(Some(person)) => {
            // A new session id at login: a session fixed before it is worth nothing.
            let _ = session.cycle_id().await;
            if session.insert(PERSON, person.id).await.is_err() {
                return internal("cannot keep the session");
            }
            Redirect::to("/").into_response()
        }
        Ok(None) => {
            let note = Some("This link is not (or no longer) valid: ask your teacher for a new one.".to_string());
            match (Welcome {
                course: &app.queue.course.config.name,
                note,
            })
            .render()
            {
                Ok(html) => (StatusCode::UNAUTHORIZED, page(html)).into_response(),
                Err(e) => internal(e),
            }
        }
        Err(e) => internal(e),
    }
}

#[derive(Deserialize)]
struct CsrfForm {
    authenticity_token: String,
}

async fn logout(session: Session, csrf: CsrfToken, Form(form): Form<CsrfForm>) -> Response {
    if csrf.verify(&form.authenticity_token).is_err() {
        return error(
            StatusCode::FORBIDDEN,
            "the form was stale or forged: reload the page and try again",
        );
    }
    let _ = session.flush().await;
    Redirect::to("/").into_response()
}

async fn upload(State(s): State<Shared>, session: Session, csrf: CsrfToken, mut form: Multipart) -> Response {
    let app = &s.0;
    let Some(person) = me(app, &session).await.filter(|p| !p.is_teacher) else {
        return error(StatusCode::UNAUTHORIZED, "log in with your link to submit");
    };
    let (mut token, mut file) = (None, None);
    loop {
        match form.next_field().await {
            Ok(Some(field)) => match field.name() {
                Some("authenticity_token") => token = field.text().await.ok(),
                Some("bot") => {
                    let name = field.file_name().unwrap_or("bot.wasm").to_string();
                    match field.bytes().await {
                        Ok(bytes) => file = Some((name, bytes)),
                        Err(e) => {
                            return error(
                                StatusCode::PAYLOAD_TOO_LARGE,
                                format!("the upload did not arrive whole: {e}"),
                            );
                        }
                    }
                }
                _ => {}
            },
            Ok(None) => break,
            Err(e) => return error(StatusCode::BAD_REQUEST, format!("the upload did not arrive whole: {e}")),
        }
    }
    if token.as_deref().is_none_or(|t| csrf.verify(t).is_err()) {
        return error(
            StatusCode::FORBIDDEN,
            "the form was stale or forged: reload the page and try again",
        );
    }
    let Some((name, bytes)) = file else {
        return error(StatusCode::BAD_REQUEST, "no file: choose your bot.wasm");
    };
    match app
        .queue
        .submit(person.id, &name, &bytes, app.grading.max_file_bytes())
        .await
    {
        Ok(Ok(sub)) => {
            set_note(
                &session,
                &format!("Version {} received: it is being checked and graded.", sub.version),
                false,
            )
            .await;
            Redirect::to("/").into_response()
        }
        Ok(Err(refused)) => {
            set_note(&session, &format!("Not taken: {refused}."), true).await;
            Redirect::to("/").into_response()
        }
        Err(e) => internal(e),
    }
}

#[derive(Deserialize)]
struct CountForm {
    authenticity_token: String,
    version: i64,
}

async fn count(State(s): State<Shared>, session: Session, csrf: CsrfToken, Form(form): Form<CountForm>) -> Response {
    let app = &s.0;
    if csrf.verify(&form.authenticity_token).is_err() {
        return error(
            StatusCode::FORBIDDEN,
            "the form was stale or forged: reload the page and try again",
        );
    }
    let Some(person) = me(app, &session).await.filter(|p| !p.is_teacher) else {
        return error(StatusCode::UNAUTHORIZED, "log in with your link");
    };
    match app.queue.version(person.id, form.version).await {
        Ok(Some(v)) if v.state == "accepted" => {
            let done = sqlx::query("UPDATE people SET counted = $1 WHERE id = $2")
                .bind(v.version)
                .bind(person.id)
                .execute(&app.queue.db.pool)
                .await;
            if let Err(e) = done {
                return internal(e);
            }
            set_note(&session, &format!("Version {} now counts.", v.version), false).await;
            Redirect::to("/").into_response()
        }
        Ok(_) => error(StatusCode::BAD_REQUEST, "only an accepted version of yours can count"),
        Err(e) => internal(e),
    }
}

/// One row of a versions table.
struct VersionRow {
    version: i64,
    href: String,
    submitted: String,
    late_days: i64,
    size: String,
    toolchain: String,
    sha256: String,
    sha_short: String,
    verdict: String,
    verdict_class: &'static str,
    points: String,
    counted: bool,
    can_count: bool,
}

#[derive(Template)]
#[template(path = "versions.html")]
struct Versions<'a> {
    rows: Vec<VersionRow>,
    csrf: &'a str,
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

fn versions_html(person: &Person, versions: &[Submission], csrf: &str, can_count: bool) -> Result<String, String> {
    let counts = counted(person, versions);
    let rows = versions
        .iter()
        .map(|v| {
            let (verdict, class) = match v.state.as_str() {
                "queued" | "running" => ("checking and grading...".to_string(), "busy"),
                "accepted" => ("accepted".to_string(), "ok"),
                "rejected" => ("rejected".to_string(), "bad"),
                _ => ("the arena failed".to_string(), "bad"),
            };
            VersionRow {
                version: v.version,
                href: format!("/people/{}/versions/{}", person.id, v.version),
                submitted: shown_time(&v.submitted_at),
                late_days: v.late_days,
                size: arena_report::report::size(usize::try_from(v.size).unwrap_or(0)),
                toolchain: v.toolchain.clone().unwrap_or_default(),
                sha256: v.sha256.clone(),
                sha_short: v.sha256.chars().take(12).collect(),
                verdict,
                verdict_class: class,
                points: points_text(v),
                counted: counts == Some(v.version),
                can_count: can_count && v.state == "accepted",
            }
        })
        .collect();
    Versions { rows, csrf }.render().map_err(|e| e.to_string())
}

#[derive(Template)]
#[template(path = "student.html")]
struct StudentPage<'a> {
    course: &'a str,
    name: &'a str,
    game: &'a str,
    deadline: String,
    note: Option<String>,
    bad: bool,
    csrf: &'a str,
    max_size: String,
    versions: String,
    me: i64,
}

fn deadline_text(course: &Course) -> String {
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

async fn student_page(app: &App, person: &Person, csrf: &str, note: Option<(String, bool)>) -> Result<String, String> {
    let versions = app.queue.versions(person.id).await?;
    let course = &app.queue.course;
    let (note, bad) = note.map_or((None, false), |(n, b)| (Some(n), b));
    StudentPage {
        course: &course.config.name,
        name: &person.name,
        game: app.grading.game.title(),
        deadline: deadline_text(course),
        note,
        bad,
        csrf,
        max_size: arena_sandbox::compile::mib(app.grading.max_file_bytes()),
        versions: versions_html(person, &versions, csrf, true)?,
        me: person.id,
    }
    .render()
    .map_err(|e| e.to_string())
}

async fn my_versions_fragment(State(s): State<Shared>, session: Session, csrf: CsrfToken) -> Response {
    let app = &s.0;
    let Some(person) = me(app, &session).await else {
        return error(StatusCode::UNAUTHORIZED, "log in with your link");
    };
    let token = csrf.authenticity_token().unwrap_or_default();
    let versions = match app.queue.versions(person.id).await {
        Ok(v) => v,
        Err(e) => return internal(e),
    };
    match versions_html(&person, &versions, &token, !person.is_teacher) {
        Ok(html) => (csrf, page(html)).into_response(),
        Err(e) => internal(e),
    }
}

/// Whom `me` may see: themselves, or anyone for the teacher.
async fn allowed(app: &App, session: &Session, pid: i64) -> Result<(Person, Person), Response> {
    let Some(me) = me(app, session).await else {
        return Err(error(StatusCode::UNAUTHORIZED, "log in with your link"));
    };
    if me.id != pid && !me.is_teacher {
        return Err(error(StatusCode::FORBIDDEN, "that is not yours to see"));
    }
    match app.queue.db.person(pid).await {
        Ok(Some(p)) => Ok((me, p)),
        Ok(None) => Err(error(StatusCode::NOT_FOUND, "no such student")),
        Err(e) => Err(internal(e)),
    }
}

#[derive(Template)]
#[template(path = "history.html")]
struct History<'a> {
    course: &'a str,
    name: &'a str,
    school_id: &'a str,
    email: &'a str,
    versions: String,
}

async fn history(State(s): State<Shared>, session: Session, Path(pid): Path<i64>) -> Response {
    let app = &s.0;
    let (me, person) = match allowed(app, &session, pid).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    if !me.is_teacher {
        return Redirect::to("/").into_response();
    }
    let versions = match app.queue.versions(pid).await {
        Ok(v) => v,
        Err(e) => return internal(e),
    };
    let html = versions_html(&person, &versions, "", false).and_then(|versions| {
        History {
            course: &app.queue.course.config.name,
            name: &person.name,
            school_id: &person.school_id,
            email: &person.email,
            versions,
        }
        .render()
        .map_err(|e| e.to_string())
    });
    match html {
        Ok(html) => page(html),
        Err(e) => internal(e),
    }
}

/// One rubric item as the version page shows it.
struct ItemView {
    /// Where its games replay (`?game=N`), when it has games.
    watch: Option<String>,
    /// How many games it played.
    played: u64,
    name: String,
    points: String,
    measured: String,
    games: String,
    note: String,
}

/// What a replay page of a version shows, in words: `bot-item2.html` is
/// the second rubric item's worst game (and its first forfeits).
fn replay_label(file: &str, items: &[ItemView]) -> String {
    let stem = file.trim_end_matches(".html").trim_start_matches("bot-");
    let item = stem
        .strip_prefix("item")
        .and_then(|n| n.parse::<usize>().ok())
        .and_then(|n| items.get(n.wrapping_sub(1)));
    match (stem, item) {
        (_, Some(i)) => format!("{}: its worst game", i.name),
        ("smoke-game", _) => "the smoke game it forfeited".into(),
        _ => stem.replace('-', " "),
    }
}

/// What the verdict part of a version page shows.
struct VerdictView {
    state: String,
    reason: Option<String>,
    points: Option<String>,
    items: Vec<ItemView>,
    replays: Vec<(String, String)>,
    check: Option<String>,
    /// "Is it better than the version before?", in one sentence.
    versus: Option<(String, String)>,
}

#[derive(Template)]
#[template(path = "verdict.html")]
struct VerdictPart {
    v: VerdictView,
}

#[derive(Template)]
#[template(path = "version.html")]
struct VersionPage<'a> {
    course: &'a str,
    name: &'a str,
    back: String,
    version: i64,
    file_name: &'a str,
    submitted: String,
    late_days: i64,
    size: String,
    sha256: &'a str,
    live: String,
    v: VerdictView,
}

fn measured(item: &serde_json::Value) -> String {
    let pct = item["measure"]
        .as_str()
        .is_some_and(|m| m.ends_with("rate") || m.ends_with("percentile"));
    let f = |x: f64| {
        if pct {
            format!("{:.1}%", 100.0 * x)
        } else {
            format!("{x:.2}")
        }
    };
    match (item["value"].as_f64(), item["ci95"].as_array()) {
        (Some(v), Some(ci)) if ci.len() == 2 => format!(
            "{} [{} to {}]",
            f(v),
            f(ci[0].as_f64().unwrap_or(v)),
            f(ci[1].as_f64().unwrap_or(v))
        ),
        (Some(v), _) => f(v),
        _ => "-".into(),
    }
}

fn verdict_view(app: &App, pid: i64, v: &Submission) -> VerdictView {
    let grade: Option<serde_json::Value> = v.grade_json.as_deref().and_then(|g| serde_json::from_str(g).ok());
    let items = grade
        .as_ref()
        .and_then(|g| g["items"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .enumerate()
        .map(|(k, i)| {
            let pending = i["status"] == "pending";
            let played = i["games"].as_u64().unwrap_or(0);
            ItemView {
                watch: (played > 0 && v.state == "accepted")
                    .then(|| format!("/people/{pid}/versions/{}/items/{}/games", v.version, k + 1)),
                played,
                name: i["name"].as_str().unwrap_or("").to_string(),
                points: if pending {
                    format!(
                        "pending / {}",
                        i["max_points"].as_f64().map_or("-".into(), arena_runner::text::points)
                    )
                } else {
                    format!(
                        "{} / {}",
                        i["points"].as_f64().map_or("-".into(), arena_runner::text::points),
                        i["max_points"].as_f64().map_or("-".into(), arena_runner::text::points)
                    )
                },
                measured: measured(i),
                games: i["games"].as_u64().map_or("-".into(), |g| g.to_string()),
                // The rubric's own words name a command; here it is the course's end.
                note: if pending {
                    "not counted yet: the class tournament at the end of the course ranks it".into()
                } else {
                    i["note"].as_str().unwrap_or("").to_string()
                },
            }
        })
        .collect::<Vec<_>>();
    let dir = app.queue.pages_dir(v.id).join(arena_report::report::REPLAYS);
    let mut replays: Vec<(String, String)> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.ends_with(".html"))
                .map(|n| {
                    (
                        replay_label(&n, &items),
                        format!("/people/{pid}/versions/{}/replays/{n}", v.version),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    replays.sort_by(|a, b| a.1.cmp(&b.1));
    VerdictView {
        state: v.state.clone(),
        reason: v.reason.clone(),
        points: v.score.map(|_| points_text(v)),
        items,
        replays,
        check: v.check_text.clone(),
        versus: v.versus_json.as_deref().and_then(versus_sentence),
    }
}

/// The sentence of a version's test against the one before it, and its class.
fn versus_sentence(json: &str) -> Option<(String, String)> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    if let Some(e) = v["error"].as_str() {
        return Some((
            format!("The test against your previous version could not run: {e}"),
            "bad".into(),
        ));
    }
    let class = match v["verdict"].as_str()? {
        "stronger" => "ok",
        "weaker" => "bad",
        _ => "meta",
    };
    Some((v["sentence"].as_str()?.to_string(), class.into()))
}

async fn version_of(app: &App, session: &Session, pid: i64, n: i64) -> Result<(Person, Submission), Response> {
    let (_, person) = allowed(app, session, pid).await?;
    match app.queue.version(pid, n).await {
        Ok(Some(v)) => Ok((person, v)),
        Ok(None) => Err(error(StatusCode::NOT_FOUND, format!("there is no version {n}"))),
        Err(e) => Err(internal(e)),
    }
}

async fn version_page(State(s): State<Shared>, session: Session, Path((pid, n)): Path<(i64, i64)>) -> Response {
    let app = &s.0;
    let (person, v) = match version_of(app, &session, pid, n).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let me_is_teacher = me(app, &session).await.is_some_and(|m| m.is_teacher);
    let html = VersionPage {
        course: &app.queue.course.config.name,
        name: &person.name,
        back: if me_is_teacher {
            format!("/people/{pid}")
        } else {
            "/".into()
        },
        version: v.version,
        file_name: &v.file_name,
        submitted: shown_time(&v.submitted_at),
        late_days: v.late_days,
        size: arena_report::report::size(usize::try_from(v.size).unwrap_or(0)),
        sha256: &v.sha256,
        live: format!("/people/{pid}/versions/{n}/verdict"),
        v: verdict_view(app, pid, &v),
    }
    .render();
    match html {
        Ok(html) => page(html),
        Err(e) => internal(e),
    }
}

async fn verdict_fragment(State(s): State<Shared>, session: Session, Path((pid, n)): Path<(i64, i64)>) -> Response {
    let app = &s.0;
    match version_of(app, &session, pid, n).await {
        Ok((_, v)) => match (VerdictPart {
            v: verdict_view(app, pid, &v),
        })
        .render()
        {
            Ok(html) => page(html),
            Err(e) => internal(e),
        },
        Err(r) => r,
    }
}

async fn back_to_version(Path((pid, n)): Path<(i64, i64)>) -> Redirect {
    Redirect::to(&format!("/people/{pid}/versions/{n}"))
}

async fn replay(State(s): State<Shared>, session: Session, Path((pid, n, file)): Path<(i64, i64, String)>) -> Response {
    let app = &s.0;
    // A page name is letters, digits, `-`, `_` and `.`: never a path.
    if file.is_empty()
        || file.starts_with('.')
        || !file.ends_with(".html")
        || !file.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        return error(StatusCode::NOT_FOUND, "no such replay");
    }
    let v = match version_of(app, &session, pid, n).await {
        Ok((_, v)) => v,
        Err(r) => return r,
    };
    let path = app
        .queue
        .pages_dir(v.id)
        .join(arena_report::report::REPLAYS)
        .join(&file);
    match tokio::fs::read_to_string(&path).await {
        Ok(html) => {
            let mut r = Html(html).into_response();
            secure_headers(r.headers_mut(), &arena_report::view::content_security_policy());
            r
        }
        Err(_) => error(StatusCode::NOT_FOUND, "no such replay"),
    }
}

#[derive(Deserialize)]
struct GameQuery {
    game: usize,
}

/// Any graded game, played again and shown in the viewer (`?game=` from 1).
async fn replay_game(
    State(s): State<Shared>,
    session: Session,
    Path((pid, n, item)): Path<(i64, i64, usize)>,
    axum::extract::Query(q): axum::extract::Query<GameQuery>,
) -> Response {
    let app = &s.0;
    let (person, v) = match version_of(app, &session, pid, n).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    if v.state != "accepted" || item == 0 || q.game == 0 {
        return error(
            StatusCode::NOT_FOUND,
            "no such game: only an accepted version's graded games replay",
        );
    }
    let Ok(_permit) = app.replaying.clone().acquire_owned().await else {
        return internal("the server is stopping");
    };
    let grading = app.grading.clone();
    let file = app.queue.course.file_path(&v.sha256);
    let back = format!("/people/{pid}/versions/{n}");
    let made =
        tokio::task::spawn_blocking(move || grading.replay_page(&file, &person.name, item - 1, q.game - 1, &back))
            .await;
    match made {
        Ok(Ok(html)) => viewer_response(html),
        Ok(Err(why)) => error(StatusCode::NOT_FOUND, why),
        Err(e) => internal(e),
    }
}

async fn events(State(s): State<Shared>, session: Session) -> Response {
    let app = &s.0;
    let Some(me) = me(app, &session).await else {
        return error(StatusCode::UNAUTHORIZED, "log in with your link");
    };
    use tokio::sync::broadcast::error::RecvError;
    let state = (app.queue.subscribe(), app.ladder.subscribe(), me, s.clone());
    // Two kinds of event: a version of theirs finished (or, for the
    // teacher, anyone's), and the leaderboard was fitted again. The
    // second carries the new table: a class's open leaderboards then
    // ask nothing of the server after a fit.
    let stream = futures_util::stream::unfold(state, |(mut rx, mut board, me, s)| async move {
        loop {
            let event = tokio::select! {
                got = rx.recv() => match got {
                    Ok(Finished { person, version }) if me.is_teacher || person == me.id => {
                        Event::default().event("finished").data(version.to_string())
                    }
                    Ok(_) | Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return None,
                },
                got = board.recv() => match got {
                    Ok(()) | Err(RecvError::Lagged(_)) => {
                        let ladder = &s.0.ladder;
                        match crate::ladder_web::board_html(ladder, &ladder.board(), me.is_teacher) {
                            Ok(html) => Event::default().event("ladder").data(&*html),
                            Err(_) => Event::default().event("ladder").data("fitted"),
                        }
                    }
                    Err(RecvError::Closed) => return None,
                },
            };
            return Some((Ok::<_, std::convert::Infallible>(event), (rx, board, me, s)));
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::default()).into_response()
}

/// One student in the teacher's class table.
struct ClassRow {
    href: String,
    name: String,
    school_id: String,
    email: String,
    versions: usize,
    counted: String,
    points: String,
    late_days: String,
    flags: String,
}

#[derive(Template)]
#[template(path = "teacher.html")]
struct TeacherPage<'a> {
    course: &'a str,
    game: &'a str,
    deadline: String,
    students: usize,
    submitted: usize,
    note: Option<String>,
    csrf: &'a str,
    class: String,
}

/// The part of the teacher's page that changes as versions are graded.
#[derive(Template)]
#[template(path = "class.html")]
struct ClassPart {
    pending: String,
    rows: Vec<ClassRow>,
}

async fn teacher_page(app: &App, csrf: &str, note: Option<String>) -> Result<String, String> {
    let (class, students, submitted) = class_part(app).await?;
    TeacherPage {
        course: &app.queue.course.config.name,
        game: app.grading.game.title(),
        deadline: deadline_text(&app.queue.course),
        students,
        submitted,
        note,
        csrf,
        class,
    }
    .render()
    .map_err(|e| e.to_string())
}

async fn class_fragment(State(s): State<Shared>, session: Session) -> Response {
    let app = &s.0;
    if let Err(r) = teacher(app, &session).await {
        return r;
    }
    match class_part(app).await {
        Ok((html, _, _)) => page(html),
        Err(e) => internal(e),
    }
}

/// The class table and what waits to be graded; students, and how many have submitted.
async fn class_part(app: &App) -> Result<(String, usize, usize), String> {
    let class = export::class(&app.queue).await?;
    let mut by_sha: std::collections::BTreeMap<&str, Vec<&str>> = std::collections::BTreeMap::new();
    for Entry {
        person: p, counted: c, ..
    } in &class
    {
        if let Some(c) = c {
            by_sha.entry(c.sha256.as_str()).or_default().push(p.name.as_str());
        }
    }
    let rows = class
        .iter()
        .map(
            |Entry {
                 person: p,
                 versions,
                 counted: c,
             }| {
                let same: Vec<&str> = c
                    .as_ref()
                    .and_then(|c| by_sha.get(c.sha256.as_str()))
                    .map(|names| names.iter().copied().filter(|n| *n != p.name).collect())
                    .unwrap_or_default();
                ClassRow {
                    href: format!("/people/{}", p.id),
                    name: p.name.clone(),
                    school_id: p.school_id.clone(),
                    email: p.email.clone(),
                    versions: versions.len(),
                    counted: c
                        .as_ref()
                        .map_or("-".into(), |c| format!("v{} ({})", c.version, c.state)),
                    points: c.as_ref().map_or("-".into(), points_text),
                    late_days: c.as_ref().map_or("-".into(), |c| c.late_days.to_string()),
                    flags: if same.is_empty() {
                        String::new()
                    } else {
                        format!("identical file to {}", same.join(", "))
                    },
                }
            },
        )
        .collect::<Vec<_>>();
    let pending = app.queue.pending().await?;
    let (students, submitted) = (rows.len(), rows.iter().filter(|r| r.versions > 0).count());
    let html = ClassPart {
        pending: if pending > 0 {
            format!(
                "{pending} version{} waiting to be graded (this part updates itself)",
                if pending == 1 { "" } else { "s" }
            )
        } else {
            "nothing waiting to be graded".into()
        },
        rows,
    }
    .render()
    .map_err(|e| e.to_string())?;
    Ok((html, students, submitted))
}

async fn teacher(app: &App, session: &Session) -> Result<Person, Response> {
    match me(app, session).await {
        Some(p) if p.is_teacher => Ok(p),
        Some(_) => Err(error(StatusCode::FORBIDDEN, "only the teacher may do that")),
        None => Err(error(StatusCode::UNAUTHORIZED, "log in with your link")),
    }
}

async fn regrade(State(s): State<Shared>, session: Session, csrf: CsrfToken, Form(form): Form<CsrfForm>) -> Response {
    let app = &s.0;
    if let Err(r) = teacher(app, &session).await {
        return r;
    }
    if csrf.verify(&form.authenticity_token).is_err() {
        return error(
            StatusCode::FORBIDDEN,
            "the form was stale or forged: reload the page and try again",
        );
    }
    let ids: Vec<i64> = match export::class(&app.queue).await {
        Ok(c) => c.into_iter().filter_map(|e| e.counted.map(|c| c.id)).collect(),
        Err(e) => return internal(e),
    };
    match app.queue.regrade(&ids).await {
        Ok(n) => {
            set_note(
                &session,
                &if n == 1 {
                    "1 counted version is being graded again.".to_string()
                } else {
                    format!("{n} counted versions are being graded again.")
                },
                false,
            )
            .await;
            Redirect::to("/").into_response()
        }
        Err(e) => internal(e),
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

async fn gradebook(State(s): State<Shared>, session: Session) -> Response {
    let app = &s.0;
    if let Err(r) = teacher(app, &session).await {
        return r;
    }
    match export::class(&app.queue).await {
        Ok(c) => download(export::gradebook_csv(&c), CSV, "gradebook.csv"),
        Err(e) => internal(e),
    }
}

async fn canvas(State(s): State<Shared>, session: Session) -> Response {
    let app = &s.0;
    if let Err(r) = teacher(app, &session).await {
        return r;
    }
    match export::class(&app.queue).await {
        Ok(c) => download(
            export::canvas_csv(&c, &app.queue.course.config.name),
            CSV,
            arena_grading::files::CANVAS_GRADES,
        ),
        Err(e) => internal(e),
    }
}

/// The class zip, written to a file that is unlinked once open (a class of
/// Python bots is gigabytes: it is streamed, never held in memory).
async fn class_zip(State(s): State<Shared>, session: Session) -> Response {
    let app = &s.0;
    if let Err(r) = teacher(app, &session).await {
        return r;
    }
    let class = match export::class(&app.queue).await {
        Ok(c) => c,
        Err(e) => return internal(e),
    };
    let course = app.queue.course.clone();
    let dir = course.dir.join("exports");
    let made = tokio::task::spawn_blocking(move || -> Result<std::fs::File, String> {
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: cannot create ({e})", dir.display()))?;
        let path = dir.join(format!("class-{}.zip", crate::queue::unique_suffix()));
        let written = export::write_zip(&course, &class, &path);
        let file = written.and_then(|()| std::fs::File::open(&path).map_err(|e| e.to_string()));
        let _ = std::fs::remove_file(&path);
        file
    })
    .await;
    match made {
        Ok(Ok(file)) => {
            let stream = tokio_util::io::ReaderStream::new(tokio::fs::File::from_std(file));
            download(axum::body::Body::from_stream(stream), "application/zip", "class.zip")
        }
        Ok(Err(e)) => internal(e),
        Err(e) => internal(e),
    }
}

async fn results_json(State(s): State<Shared>, session: Session, Path((pid, n)): Path<(i64, i64)>) -> Response {
    let app = &s.0;
    let v = match version_of(app, &session, pid, n).await {
        Ok((_, v)) => v,
        Err(r) => return r,
    };
    match tokio::fs::read(app.queue.pages_dir(v.id).join(crate::work::RESULTS_FILE)).await {
        Ok(bytes) => download(bytes, "application/json", "results.json"),
        Err(_) => error(StatusCode::NOT_FOUND, "this version has no grade (yet)"),
    }
}

/// The person a bearer token names, or the API's one-line refusal.
async fn bearer(app: &App, headers: &HeaderMap) -> Result<Person, Response> {
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

/// The API's one-line error, as JSON.
fn api_error(status: StatusCode, why: &str) -> Response {
    (status, Json(serde_json::json!({ "error": why }))).into_response()
}

/// A version as the API gives it.
fn version_json(app: &App, v: &Submission) -> serde_json::Value {
    let json = |s: &Option<String>| -> serde_json::Value {
        s.as_deref()
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or(serde_json::Value::Null)
    };
    serde_json::json!({
        "version": v.version,
        "sha256": v.sha256,
        "size": v.size,
        "submitted": v.submitted_at,
        "late_days": v.late_days,
        "state": v.state,
        "accepted": match v.state.as_str() { "accepted" => Some(true), "rejected" => Some(false), _ => None },
        "reason": v.reason,
        "toolchain": v.toolchain,
        "check": json(&v.check_json),
        "check_text": v.check_text,
        "grade": json(&v.grade_json),
        "grade_text": v.grade_text,
        "score": v.score,
        "max_score": v.max_score,
        "versus": json(&v.versus_json),
        "url": format!("{}/people/{}/versions/{}", app.queue.course.config.url.trim_end_matches('/'), v.person, v.version),
    })
}

/// What a client checks before it uploads: the course, its game and its limits.
async fn api_course(State(s): State<Shared>, headers: HeaderMap) -> Response {
    let app = &s.0;
    if let Err(r) = bearer(app, &headers).await {
        return r;
    }
    let c = &app.queue.course.config;
    Json(serde_json::json!({
        "course": c.name,
        "game": c.game,
        "max_file_bytes": app.grading.max_file_bytes(),
        "deadline": c.deadline,
        "late_days": c.late_days,
        "uploads_per_hour": c.uploads_per_hour,
        "open": !c.frozen_at(crate::course::now()),
    }))
    .into_response()
}

async fn api_submit(State(s): State<Shared>, headers: HeaderMap, body: axum::body::Bytes) -> Response {
    let app = &s.0;
    let person = match bearer(app, &headers).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    let name = headers
        .get("x-file-name")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("bot.wasm")
        .to_string();
    match app
        .queue
        .submit(person.id, &name, &body, app.grading.max_file_bytes())
        .await
    {
        Ok(Ok(sub)) => (StatusCode::ACCEPTED, Json(version_json(app, &sub))).into_response(),
        Ok(Err(refused)) => {
            let status = match refused {
                Refused::TooMany(_) => StatusCode::TOO_MANY_REQUESTS,
                Refused::TooBig(_) => StatusCode::PAYLOAD_TOO_LARGE,
                Refused::Frozen | Refused::Empty => StatusCode::UNPROCESSABLE_ENTITY,
            };
            api_error(status, &refused.to_string())
        }
        Err(e) => api_error(StatusCode::INTERNAL_SERVER_ERROR, &format!("the server failed: {e}")),
    }
}

async fn api_version(State(s): State<Shared>, headers: HeaderMap, Path(n): Path<i64>) -> Response {
    let app = &s.0;
    let person = match bearer(app, &headers).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    match app.queue.version(person.id, n).await {
        Ok(Some(v)) => Json(version_json(app, &v)).into_response(),
        Ok(None) => api_error(StatusCode::NOT_FOUND, &format!("no version {n}")),
        Err(e) => api_error(StatusCode::INTERNAL_SERVER_ERROR, &format!("the server failed: {e}")),
    }
}
