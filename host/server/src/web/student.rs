//! A student's own pages: the login, the upload form, their versions (and
//! the one that counts), and the events that refresh them; the teacher's
//! view of one student's history.

use super::access::allowed;
use super::csrf;
use super::teacher::teacher_page;
use super::{
    App, CsrfForm, PERSON, Shared, deadline_text, error, internal, me, page, points_text, set_note, shown_time,
    take_note,
};
use crate::db::Person;
use crate::export::counted;
use crate::queue::{Finished, Refused, Submission};
use askama::Template;
use axum::Form;
use axum::extract::{Multipart, Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;
use std::collections::BTreeMap;
use tower_sessions::Session;

#[derive(Template)]
#[template(path = "welcome.html")]
pub(super) struct Welcome<'a> {
    course: &'a str,
    note: Option<String>,
}

/// The page a login link answers with: it moves on to `/` by itself.
#[derive(Template)]
#[template(path = "entering.html")]
pub(super) struct Entering<'a> {
    pub(super) course: &'a str,
}

pub(super) async fn home(State(s): State<Shared>, session: Session) -> Response {
    let app = &s.0;
    let course = &app.queue.course.config.name;
    let Some(person) = me(app, &session).await else {
        return match (Welcome { course, note: None }).render() {
            Ok(html) => page(html),
            Err(e) => internal(e),
        };
    };
    let token = csrf::token(&session).await;
    let note = take_note(&session).await;
    let html = if person.is_teacher {
        teacher_page(app, &token, note.map(|n| n.0)).await
    } else {
        student_page(app, &person, &token, note).await
    };
    match html {
        Ok(html) => page(html),
        Err(e) => internal(e),
    }
}

pub(super) async fn login(State(s): State<Shared>, session: Session, Path(token): Path<String>) -> Response {
    let app = &s.0;
    match app.queue.db.person_by_token(&token).await {
        Ok(Some(person)) => {
            // A new session id at login: a session fixed before it is worth nothing.
            let _ = session.cycle_id().await;
            if session.insert(PERSON, person.id).await.is_err() || csrf::renew(&session).await.is_err() {
                return internal("cannot keep the session");
            }
            // A page that moves on by itself, not a 303: a link clicked in
            // webmail is a cross-site navigation, and Chromium does not send
            // a SameSite=Strict cookie set on it along a redirect, so the
            // student would land logged out; a refresh from this page is a
            // navigation of this site, which sends it.
            match (Entering {
                course: &app.queue.course.config.name,
            })
            .render()
            {
                Ok(html) => page(html).into_response(),
                Err(e) => internal(e),
            }
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

pub(super) async fn logout(session: Session, Form(form): Form<CsrfForm>) -> Response {
    if let Err(r) = csrf::check(&session, &form.authenticity_token).await {
        return r;
    }
    let _ = session.flush().await;
    let mut response = Redirect::to("/").into_response();
    response.extensions_mut().insert(crate::sessions::Ended);
    response
}

pub(super) async fn upload(State(s): State<Shared>, session: Session, mut form: Multipart) -> Response {
    let app = &s.0;
    let Some(person) = me(app, &session).await.filter(|p| !p.is_teacher) else {
        return error(StatusCode::UNAUTHORIZED, "log in with your link to submit");
    };
    // The form's token comes before its file (the page's form orders them
    // so): a forged form is refused before its file is read.
    let (mut checked, mut file) = (false, None);
    loop {
        match form.next_field().await {
            Ok(Some(field)) => match field.name() {
                Some("authenticity_token") => {
                    let token = field.text().await.unwrap_or_default();
                    if let Err(r) = csrf::check(&session, &token).await {
                        return r;
                    }
                    checked = true;
                }
                Some("bot") if !checked => break,
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
    if !checked {
        return csrf::forged();
    }
    let Some((name, bytes)) = file else {
        return error(StatusCode::BAD_REQUEST, "no file: choose your bot.wasm");
    };
    match app
        .queue
        .submit(
            person.id,
            &name,
            &bytes,
            app.grading.max_file_bytes(),
            &|shown, bytes| app.grading.refuse_at_upload(shown, bytes),
        )
        .await
    {
        // The page says "Version N received" for as long as it is checked
        // and graded, from the version's state (never a note that outlives the work).
        Ok(Ok(_)) => Redirect::to("/").into_response(),
        Ok(Err(refused)) => {
            let said = match refused {
                Refused::NotABot(why) => format!("Rejected, not kept: {why}"),
                other => format!("Not taken: {other}."),
            };
            set_note(&session, &said, true).await;
            Redirect::to("/").into_response()
        }
        Err(e) => internal(e),
    }
}

#[derive(Deserialize)]
pub(super) struct CountForm {
    authenticity_token: String,
    version: i64,
}

pub(super) async fn count(State(s): State<Shared>, session: Session, Form(form): Form<CountForm>) -> Response {
    let app = &s.0;
    if let Err(r) = csrf::check(&session, &form.authenticity_token).await {
        return r;
    }
    let Some(person) = me(app, &session).await.filter(|p| !p.is_teacher) else {
        return error(StatusCode::UNAUTHORIZED, "log in with your link");
    };
    // Version 0: no choice, the latest accepted version counts again.
    if form.version == 0 {
        let done = sqlx::query("UPDATE people SET counted = NULL WHERE id = $1")
            .bind(person.id)
            .execute(&app.queue.db.pool)
            .await;
        if let Err(e) = done {
            return internal(e);
        }
        app.queue.grade_may_have_changed();
        set_note(&session, "Your latest accepted version counts again.", false).await;
        return Redirect::to("/").into_response();
    }
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
            app.queue.grade_may_have_changed();
            set_note(&session, &format!("Version {} now counts.", v.version), false).await;
            Redirect::to("/").into_response()
        }
        Ok(_) => error(StatusCode::BAD_REQUEST, "only an accepted version of yours can count"),
        Err(e) => internal(e),
    }
}

/// One row of a versions table.
pub(super) struct VersionRow {
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
pub(super) struct Versions<'a> {
    rows: Vec<VersionRow>,
    csrf: &'a str,
    /// What is being done now, said only while it is being done (the
    /// table updates itself, so this line goes when the work is done).
    busy: Option<String>,
    /// Which rule decides the version that counts, in words.
    rule: String,
    /// The student chose a version, and may go back to "the latest" here.
    can_unchoose: bool,
}

/// [`super::grading_words`] of each version of `versions` that has some, by number.
pub(super) fn busy_words(app: &super::App, versions: &[Submission]) -> BTreeMap<i64, String> {
    versions
        .iter()
        .filter_map(|v| super::grading_words(app, v).map(|w| (v.version, w)))
        .collect()
}

pub(super) fn versions_html(
    person: &Person,
    versions: &[Submission],
    csrf: &str,
    can_count: bool,
    progress: &BTreeMap<i64, String>,
    closed: bool,
) -> Result<String, String> {
    let counts = counted(person, versions);
    let rows = versions
        .iter()
        .map(|v| {
            let (verdict, class) = match v.state.as_str() {
                "queued" | "running" => ("checking and grading...".to_string(), "busy"),
                "checking" => ("graded by a worker, being checked...".to_string(), "busy"),
                "accepted" => ("accepted".to_string(), "ok"),
                "rejected" => ("rejected".to_string(), "bad"),
                _ => ("the arena failed".to_string(), "bad"),
            };
            VersionRow {
                version: v.version,
                href: format!("/people/{}/versions/{}", person.id, v.version),
                submitted: shown_time(&v.submitted_at),
                late_days: v.late_days,
                size: arena_grading::check::size(u64::try_from(v.size).unwrap_or(0)),
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
    let busy = versions
        .iter()
        .filter(|v| matches!(v.state.as_str(), "queued" | "running" | "checking"))
        .map(|v| v.version)
        .collect::<Vec<_>>();
    // The estimate before it starts, then games played and time left.
    let how = |n: &i64| progress.get(n).map_or(String::new(), |w| format!(" Grading: {w}."));
    let busy = match busy.as_slice() {
        [] => None,
        [n] => Some(format!(
            "Version {n} received: it is being checked and graded.{}",
            how(n)
        )),
        [newest, before @ ..] => Some(format!(
            "Version {newest} received: it is being checked and graded (and {} before it).{}",
            if before.len() == 1 {
                "one more".to_string()
            } else {
                format!("{} more", before.len())
            },
            how(newest)
        )),
    };
    let (rule, can_unchoose) = counting_rule(person, versions, counts, can_count, closed);
    Versions {
        rows,
        csrf,
        busy,
        rule,
        can_unchoose,
    }
    .render()
    .map_err(|e| e.to_string())
}

/// The rule in force for `person`'s version that counts (`counts`), in
/// words for them (`own`: on their own page) or for the teacher, and
/// whether they chose it (so may go back to the latest); `closed`: uploads
/// are no longer taken, so none will count later.
fn counting_rule(
    person: &Person,
    versions: &[Submission],
    counts: Option<i64>,
    own: bool,
    closed: bool,
) -> (String, bool) {
    let chosen = person.counted.filter(|c| versions.iter().any(|v| v.version == *c));
    let (you, your) = if own { ("you", "your") } else { ("the student", "their") };
    match (chosen, counts) {
        (Some(c), _) => (
            format!(
                "Version {c} counts because {you} chose it: later versions do not count unless {you} choose them{}.",
                if own {
                    ", or let your latest accepted version count again"
                } else {
                    ""
                }
            ),
            own,
        ),
        (None, Some(c)) => (
            format!(
                "Version {c} counts as {your} latest accepted version before the deadline ({you} chose none){}.",
                if own {
                    "; \"count this one\" on another makes that one count instead"
                } else {
                    ""
                }
            ),
            false,
        ),
        (None, None) if closed => (
            format!("No version counts: none of {your} versions was accepted before uploads closed."),
            false,
        ),
        (None, None) => (
            format!("No version counts yet: {your} latest accepted version before the deadline will."),
            false,
        ),
    }
}

#[derive(Template)]
#[template(path = "student.html")]
pub(super) struct StudentPage<'a> {
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
    /// Uploads are taken now (before the deadline and its late days).
    open: bool,
    /// A version of theirs counts (so it is on the ladder).
    counts: bool,
    /// The teacher froze the ladder.
    frozen: bool,
    /// The course gives late days.
    late: bool,
    /// The server's address, for the terminal's command.
    server: &'a str,
    /// The game's command-line name, for `arena new`.
    game_name: &'a str,
    /// No grading thread and no worker connected: uploads wait.
    nothing_grades: bool,
}

pub(super) async fn student_page(
    app: &App,
    person: &Person,
    csrf: &str,
    note: Option<(String, bool)>,
) -> Result<String, String> {
    let versions = app.queue.versions(person.id).await?;
    let course = &app.queue.course;
    let (note, bad) = note.map_or((None, false), |(n, b)| (Some(n), b));
    let open = !course.config.frozen_at(crate::course::now());
    StudentPage {
        course: &course.config.name,
        name: &person.name,
        game: app.grading.game.title(),
        deadline: deadline_text(course),
        note,
        bad,
        csrf,
        max_size: arena_sandbox::compile::mib(app.grading.max_file_bytes()),
        versions: versions_html(person, &versions, csrf, true, &busy_words(app, &versions), !open)?,
        me: person.id,
        open,
        // On the ladder: the version that counts, once accepted (not while it is graded).
        counts: counted(person, &versions)
            .is_some_and(|c| versions.iter().any(|v| v.version == c && v.state == "accepted")),
        frozen: app.ladder.board().frozen,
        late: course.config.late_days > 0,
        server: course.config.url.trim_end_matches('/'),
        game_name: app.grading.game.name(),
        nothing_grades: app.own_threads == 0 && app.ladder.workers_connected() == 0,
    }
    .render()
    .map_err(|e| e.to_string())
}

pub(super) async fn my_versions_fragment(State(s): State<Shared>, session: Session) -> Response {
    let app = &s.0;
    let Some(person) = me(app, &session).await else {
        return error(StatusCode::UNAUTHORIZED, "log in with your link");
    };
    let token = csrf::token(&session).await;
    let versions = match app.queue.versions(person.id).await {
        Ok(v) => v,
        Err(e) => return internal(e),
    };
    match versions_html(
        &person,
        &versions,
        &token,
        !person.is_teacher,
        &busy_words(app, &versions),
        app.queue.course.config.frozen_at(crate::course::now()),
    ) {
        Ok(html) => page(html),
        Err(e) => internal(e),
    }
}

#[derive(Template)]
#[template(path = "history.html")]
pub(super) struct History<'a> {
    course: &'a str,
    csrf: String,
    name: &'a str,
    school_id: &'a str,
    email: &'a str,
    versions: String,
}

pub(super) async fn history(State(s): State<Shared>, session: Session, Path(pid): Path<i64>) -> Response {
    let app = &s.0;
    let (me, person) = match allowed(app, &session, pid).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    if !me.sees_everything() {
        return Redirect::to("/").into_response();
    }
    let versions = match app.queue.versions(pid).await {
        Ok(v) => v,
        Err(e) => return internal(e),
    };
    let csrf = csrf::token(&session).await;
    let html = versions_html(
        &person,
        &versions,
        "",
        false,
        &busy_words(app, &versions),
        app.queue.course.config.frozen_at(crate::course::now()),
    )
    .and_then(|versions| {
        History {
            course: &app.queue.course.config.name,
            csrf: csrf.clone(),
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

pub(super) async fn events(State(s): State<Shared>, session: Session) -> Response {
    let app = &s.0;
    let me = match super::access::Viewer::of(app, &session).await {
        Ok(me) => me,
        Err(r) => return r,
    };
    let slot = match super::Streams::open(&s.0, me.person.id) {
        Ok(slot) => slot,
        Err(why) => {
            // Closed once answered: a refused stream must not keep its
            // connection for the keep-alive's 10 s (the rerun of issue 48's
            // attacks: 1,100 refused streams of one cookie filled the server).
            let mut refused = error(StatusCode::TOO_MANY_REQUESTS, why);
            refused
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            return refused;
        }
    };
    use tokio::sync::broadcast::error::RecvError;
    let state = (
        app.queue.subscribe(),
        app.ladder.subscribe(),
        app.queue.subscribe_progress(),
        me,
        slot,
    );
    // Two kinds of event: a version of theirs finished (or, for the
    // teacher, anyone's), and the leaderboard was fitted again. The
    // second carries the new table: a class's open leaderboards then
    // ask nothing of the server after a fit.
    let stream = futures_util::stream::unfold(state, |(mut rx, mut board, mut moved, me, slot)| async move {
        loop {
            let event = tokio::select! {
                // A grading of theirs moved on (a percent more of its games):
                // the page fetches its banner again.
                got = moved.recv() => match got {
                    Ok(Finished { person, version }) if me.sees_person(person) => {
                        Event::default().event("progress").data(version.to_string())
                    }
                    Ok(_) | Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return None,
                },
                got = rx.recv() => match got {
                    Ok(Finished { person, version }) if me.sees_person(person) => {
                        Event::default().event("finished").data(version.to_string())
                    }
                    Ok(_) | Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return None,
                },
                got = board.recv() => match got {
                    Ok(()) | Err(RecvError::Lagged(_)) => {
                        let ladder = &slot.app.ladder;
                        match super::ladder::board_html(ladder, &ladder.board(), me.sees_everything()) {
                            Ok(html) => Event::default().event("ladder").data(&*html),
                            Err(_) => Event::default().event("ladder").data("fitted"),
                        }
                    }
                    Err(RecvError::Closed) => return None,
                },
            };
            return Some((Ok::<_, std::convert::Infallible>(event), (rx, board, moved, me, slot)));
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::default()).into_response()
}

#[derive(Template)]
#[template(path = "rules.html")]
struct RulesPage<'a> {
    course: &'a str,
    game: &'a str,
    /// The form token of a logged-in person (for the log-out button).
    csrf: Option<String>,
    rules: String,
}

/// `GET /rules`: the course's game's rules document (ours, from
/// `docs/rules/`), for anyone: a student reads it before writing a bot.
pub(super) async fn rules(State(s): State<Shared>, session: Session) -> Response {
    let app = &s.0;
    let about = app.grading.game.about();
    let mut rules = String::new();
    pulldown_cmark::html::push_html(&mut rules, rule_lines(about.rules));
    let csrf = match me(app, &session).await {
        Some(_) => Some(csrf::token(&session).await),
        None => None,
    };
    let html = RulesPage {
        course: &app.queue.course.config.name,
        game: about.title,
        csrf,
        rules,
    }
    .render();
    match html {
        Ok(html) => page(html),
        Err(e) => internal(e),
    }
}

/// The rules document's Markdown events, each numbered rule on a line of
/// its own: the document starts every rule (`2.1 At the start ...`) on a
/// new line of one paragraph, which Markdown would run together.
fn rule_lines(text: &str) -> impl Iterator<Item = pulldown_cmark::Event<'_>> {
    use pulldown_cmark::Event;
    let numbered = |t: &str| {
        let mut parts = t.splitn(2, ' ');
        parts.next().is_some_and(|n| {
            n.split('.').count() == 2
                && n.split('.')
                    .all(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
        }) && parts.next().is_some()
    };
    let mut events = pulldown_cmark::Parser::new_ext(text, pulldown_cmark::Options::ENABLE_TABLES).peekable();
    std::iter::from_fn(move || {
        let event = events.next()?;
        Some(match (&event, events.peek()) {
            (Event::SoftBreak, Some(Event::Text(next))) if numbered(next) => Event::HardBreak,
            _ => event,
        })
    })
}
