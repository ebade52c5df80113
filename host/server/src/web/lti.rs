//! The LTI 1.3 routes: the login the LMS starts, the launch it posts, the
//! one-time link that opens the course in its own window, and the tool's
//! public keys. The checks are in [`crate::lti::launch`]; here is only HTTP.

use super::{App, PERSON, Shared, csrf, internal, page, secure_headers};
use crate::lti::launch::{self, LaunchForm, LoginRequest, Refusal, Role};
use askama::Template;
use axum::extract::{Form, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Json, Redirect, Response};
use tower_sessions::Session;

/// The cookie that binds a login to the browser that started it. It must
/// come back on the platform's cross-site POST, in the LMS's frame too:
/// `SameSite=None; Secure; Partitioned` (CHIPS), which browsers send only
/// over https (or to localhost); see docs/lti.md.
const BROWSER_COOKIE: &str = "arena_lti";

/// The LTI pages may show inside the LMS's frame (which site that is, an
/// LMS does not say: Canvas's issuer is not its pages' origin); they hold
/// no action but the link into the course.
const FRAMED_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                          form-action 'none'; base-uri 'none'";

#[derive(Template)]
#[template(path = "lti_launched.html")]
struct Launched<'a> {
    course: &'a str,
    name: &'a str,
    code: &'a str,
    teacher: bool,
    framed: bool,
}

#[derive(Template)]
#[template(path = "lti_refused.html")]
struct Refused<'a> {
    course: &'a str,
    /// What was refused, as the page's line starts (a filter that
    /// capitalizes would write "the lms").
    what: &'a str,
    why: &'a str,
}

fn framed_page(status: StatusCode, html: String) -> Response {
    let mut r = (status, axum::response::Html(html)).into_response();
    secure_headers(r.headers_mut(), FRAMED_CSP);
    r
}

/// The refusal as a page, and one line in the server's log.
fn refused(app: &App, what: &str, why: &Refusal) -> Response {
    eprintln!("LTI {what} refused: {why}");
    match (Refused {
        course: &app.queue.course.config.name,
        what: match what {
            "registration" => "The registration with the LMS",
            "link" => "The link into the course",
            _ => "The launch from the LMS",
        },
        why: &why.0,
    })
    .render()
    {
        Ok(html) => framed_page(StatusCode::FORBIDDEN, html),
        Err(e) => internal(e),
    }
}

/// `GET /lti/login`: a login the platform starts by a redirect.
pub(super) async fn login_get(State(s): State<Shared>, Query(q): Query<LoginRequest>) -> Response {
    login(&s.0, &q).await
}

/// `POST /lti/login`: a login the platform starts by a form.
pub(super) async fn login_post(State(s): State<Shared>, Form(q): Form<LoginRequest>) -> Response {
    login(&s.0, &q).await
}

async fn login(app: &App, q: &LoginRequest) -> Response {
    match launch::login(&app.lti, &app.queue.db, q).await {
        Ok(started) => {
            let mut r = Redirect::to(&started.redirect).into_response();
            let cookie = format!(
                "{BROWSER_COOKIE}={}; Path=/lti; Max-Age={}; HttpOnly; Secure; SameSite=None; Partitioned",
                started.browser,
                launch::STATE_FOR
            );
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                r.headers_mut().append(header::SET_COOKIE, v);
            }
            secure_headers(r.headers_mut(), FRAMED_CSP);
            r
        }
        Err(why) => refused(app, "login", &why),
    }
}

/// The browser's `arena_lti` cookie, if it sent one.
fn browser_cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == BROWSER_COOKIE)
        .map(|(_, v)| v.to_string())
}

/// `POST /lti/launch`: the platform posts the id_token. Once every check
/// passes, the page links into the course with a one-time code (and goes
/// there by itself outside a frame).
pub(super) async fn launch(State(s): State<Shared>, headers: HeaderMap, Form(form): Form<LaunchForm>) -> Response {
    let app = &s.0;
    let db = &app.queue.db;
    let checked = match launch::launch(&app.lti, db, &form, browser_cookie(&headers).as_deref()).await {
        Ok(l) => l,
        Err(why) => return refused(app, "launch", &why),
    };
    let person = match launch::person(&app.lti, db, &checked).await {
        Ok(p) => p,
        Err(why) => return refused(app, "launch", &why),
    };
    // The launch names the LMS's gradebook: grades go back to it.
    if let Err(e) = crate::lti::ags::remember(db, &checked.platform, &checked.claims).await {
        eprintln!("LTI: the launch's gradebook column is not kept: {e}");
    }
    // The person may be newly linked to the LMS, with a grade already.
    app.queue.grade_may_have_changed();
    // A launch shows the LMS is up: scores waiting for it go now, not after their backoff.
    if let Err(e) = crate::lti::ags::due_now(db, Some(checked.platform.id)).await {
        eprintln!("LTI scores: {e}");
    }
    // A teacher's launch reads the LMS's roster (late joiners, leavers), in the background.
    if checked.role == Role::Teacher {
        let (lti, db, queue) = (app.lti.clone(), db.clone(), app.queue.clone());
        tokio::spawn(async move {
            let synced = crate::lti::nrps::sync_all(&lti, &db).await;
            queue.grade_may_have_changed();
            match synced {
                Ok(found) => {
                    for (p, s) in found {
                        eprintln!(
                            "LTI roster of {}: {} learners, {} new, {} left or inactive",
                            p.issuer, s.learners, s.joined, s.left
                        );
                    }
                }
                Err(e) => eprintln!("LTI roster not read: {e}"),
            }
        });
    }
    let code = match launch::enter_code(db, person).await {
        Ok(c) => c,
        Err(why) => return refused(app, "launch", &why),
    };
    let name = match db.person(person).await {
        Ok(Some(p)) => p.name,
        Ok(None) => String::new(),
        Err(e) => return internal(e),
    };
    eprintln!(
        "LTI launch: person {person} ({}) from {}",
        if checked.role == Role::Teacher {
            "teacher"
        } else {
            "student"
        },
        checked.platform.issuer
    );
    let html = Launched {
        course: &app.queue.course.config.name,
        name: &name,
        code: &code,
        teacher: checked.role == Role::Teacher,
        framed: checked.framed,
    }
    .render();
    match html {
        Ok(html) => framed_page(StatusCode::OK, html),
        Err(e) => internal(e),
    }
}

/// `GET /lti/enter/{code}`: the one-time link of a launch logs its person
/// in (a new session, as a login link does) and goes on to their page.
pub(super) async fn enter(State(s): State<Shared>, session: Session, Path(code): Path<String>) -> Response {
    let app = &s.0;
    let person = match launch::enter(&app.queue.db, &code).await {
        Ok(p) => p,
        Err(why) => return refused(app, "link", &why),
    };
    // A new session id at login: a session fixed before it is worth nothing.
    let _ = session.cycle_id().await;
    if session.insert(PERSON, person).await.is_err() || csrf::renew(&session).await.is_err() {
        return internal("cannot keep the session");
    }
    match (super::student::Entering {
        course: &app.queue.course.config.name,
    })
    .render()
    {
        Ok(html) => page(html),
        Err(e) => internal(e),
    }
}

/// `GET /lti/jwks`: the tool's public keys (the current one and those rotated out within a week).
pub(super) async fn jwks(State(s): State<Shared>) -> Response {
    let mut r = Json(s.0.lti.keys.jwks()).into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=3600"));
    r
}

#[derive(Template)]
#[template(path = "lti_registered.html")]
struct Registered<'a> {
    course: &'a str,
    issuer: &'a str,
}

/// `GET /lti/register`: an LMS's Dynamic Registration opens the teacher's registration URL.
pub(super) async fn register(State(s): State<Shared>, Query(q): Query<crate::lti::register::Opened>) -> Response {
    let app = &s.0;
    match crate::lti::register::register(&app.lti, &app.queue.db, &q).await {
        Ok(issuer) => {
            eprintln!("LTI: registered with {issuer} by Dynamic Registration");
            match (Registered {
                course: &app.queue.course.config.name,
                issuer: &issuer,
            })
            .render()
            {
                Ok(html) => framed_page(StatusCode::OK, html),
                Err(e) => internal(e),
            }
        }
        Err(why) => refused(app, "registration", &why),
    }
}
