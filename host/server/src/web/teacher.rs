//! The teacher's pages: the class table, re-grading, and the exports
//! (gradebook, Canvas's file, the class zip).

use super::{App, CSV, CsrfForm, Shared, deadline_text, download, internal, page, points_text, teacher};
use crate::export::{self, Entry};
use crate::health::{self, Health};
use crate::queue::Submission;
use askama::Template;
use axum::Form;
use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use tower_sessions::Session;

/// One student in the teacher's class table.
pub(super) struct ClassRow {
    href: String,
    name: String,
    school_id: String,
    email: String,
    versions: usize,
    counted: String,
    /// The student sent versions and none of them counts.
    none_counts: bool,
    points: String,
    late_days: String,
    flags: String,
    /// Whether the LMS has the current score (LTI), when the student came from one.
    lms: String,
}

#[derive(Template)]
#[template(path = "teacher.html")]
pub(super) struct TeacherPage<'a> {
    course: &'a str,
    game: &'a str,
    deadline: String,
    students: usize,
    submitted: usize,
    note: Option<String>,
    csrf: &'a str,
    class: String,
    /// The server's health: facts, then what to act on.
    health: Vec<String>,
    warnings: Vec<String>,
    /// An LMS launched the course and named its roster: the sync button.
    lms: bool,
}

/// The part of the teacher's page that changes as versions are graded.
#[derive(Template)]
#[template(path = "class.html")]
pub(super) struct ClassPart {
    pending: String,
    /// Counted versions being graded again, said only while they are.
    regrading: Option<String>,
    rows: Vec<ClassRow>,
    /// Some students came from an LMS: the table says what its gradebook has.
    lms: bool,
}

pub(super) async fn teacher_page(app: &App, csrf: &str, note: Option<String>) -> Result<String, String> {
    let (class, students, submitted) = class_part(app).await?;
    let mut health = Health::read(&app.queue.db, &app.queue.course, app.own_threads).await?;
    health.connected = app.ladder.workers_connected();
    let lms = crate::lti::nrps::has_roster(&app.queue.db).await;
    TeacherPage {
        lms,
        health: health_lines(&health),
        warnings: health.warnings(),
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

pub(super) async fn class_fragment(State(s): State<Shared>, session: Session) -> Response {
    let app = &s.0;
    if let Err(r) = teacher(app, &session).await {
        return r;
    }
    match class_part(app).await {
        Ok((html, _, _)) => page(html),
        Err(e) => internal(e),
    }
}

/// The health panel's facts, one line each.
fn health_lines(h: &Health) -> Vec<String> {
    let mut lines = vec![match (&h.oldest, h.waiting) {
        (Some(oldest), n) if n > 0 => format!(
            "{n} upload{} waiting to be graded, the oldest since {}",
            if n == 1 { "" } else { "s" },
            health::shown(oldest)
        ),
        _ => "Nothing waits to be graded.".into(),
    }];
    lines.push(format!(
        "The server grades on {} thread{} of its own.",
        h.own_threads,
        if h.own_threads == 1 { "" } else { "s" }
    ));
    for w in &h.workers {
        lines.push(match (&w.disabled, &w.last_seen) {
            (Some(why), _) => format!("Worker {}: disabled ({why}).", w.name),
            (None, Some(at)) => format!(
                "Worker {}: last heard from {}, {} matches taken{}.",
                w.name,
                health::shown(at),
                w.matches,
                w.doubt
                    .as_ref()
                    .map(|d| format!("; checked as a new worker again since {d}"))
                    .unwrap_or_default()
            ),
            (None, None) => format!("Worker {}: never started.", w.name),
        });
    }
    if let Some(free) = h.disk_free {
        lines.push(format!("{} free on the course's disk.", health::size(free)));
    }
    // No backup at all is a warning above the list (`Health::warnings`), said once.
    if let Some(last) = &h.last_backup {
        let (at, to) = last.split_once(' ').unwrap_or((last, ""));
        lines.push(format!("Last backup {} into {to}.", health::shown(at)));
    }
    lines
}

/// What the teacher must not miss about a student's version that counts:
/// it plays like a house bot, its file is identical to classmates' (the
/// same flags and words as `arena grade-class`).
pub(crate) fn flags(counted: Option<&Submission>, same: &[&str]) -> Vec<String> {
    let mut flags: Vec<String> = counted
        .and_then(Submission::plays_like)
        .map(|h| format!("plays like {h}"))
        .into_iter()
        .collect();
    if !same.is_empty() {
        flags.push(format!("identical file to {}", same.join(", ")));
    }
    flags
}

/// The class table and what waits to be graded; students, and how many have submitted.
pub(super) async fn class_part(app: &App) -> Result<(String, usize, usize), String> {
    let class = export::class(&app.queue).await?;
    let lms = crate::lti::ags::standing(&app.queue.db).await?;
    let rows = class
        .iter()
        .zip(export::same_files(&class))
        .map(
            |(
                Entry {
                    person: p,
                    versions,
                    counted: c,
                },
                same,
            )| {
                ClassRow {
                    href: format!("/people/{}", p.id),
                    name: p.name.clone(),
                    school_id: p.school_id.clone(),
                    email: p.email.clone(),
                    versions: versions.len(),
                    // None counts though some were sent: say why, in red.
                    counted: match (c, versions.first()) {
                        (Some(c), _) if p.counted == Some(c.version) => {
                            format!("v{} ({}, chosen by the student)", c.version, c.state)
                        }
                        (Some(c), _) => format!("v{} ({})", c.version, c.state),
                        (None, Some(n)) => format!("none: v{} {}", n.version, n.state),
                        (None, None) => "-".into(),
                    },
                    none_counts: c.is_none() && !versions.is_empty(),
                    points: c.as_ref().map_or("-".into(), points_text),
                    late_days: c.as_ref().map_or("-".into(), |c| c.late_days.to_string()),
                    flags: flags(c.as_ref(), &same).join("; "),
                    lms: lms.get(&p.id).cloned().unwrap_or_else(|| "-".into()),
                }
            },
        )
        .collect::<Vec<_>>();
    let pending = app.queue.pending().await?;
    let again = app.queue.regrading().await?;
    let regrading = match again {
        0 => None,
        1 => Some("1 counted version is being graded again.".to_string()),
        n => Some(format!("{n} counted versions are being graded again.")),
    };
    let (students, submitted) = (rows.len(), rows.iter().filter(|r| r.versions > 0).count());
    let html = ClassPart {
        lms: !lms.is_empty(),
        pending: if pending > 0 {
            format!(
                "{pending} version{} waiting to be graded (this part updates itself)",
                if pending == 1 { "" } else { "s" }
            )
        } else {
            "nothing waiting to be graded".into()
        },
        rows,
        regrading,
    }
    .render()
    .map_err(|e| e.to_string())?;
    Ok((html, students, submitted))
}

pub(super) async fn regrade(State(s): State<Shared>, session: Session, Form(form): Form<CsrfForm>) -> Response {
    let app = &s.0;
    if let Err(r) = teacher(app, &session).await {
        return r;
    }
    if let Err(r) = super::csrf::check(&session, &form.authenticity_token).await {
        return r;
    }
    let ids: Vec<i64> = match export::class(&app.queue).await {
        Ok(c) => c.into_iter().filter_map(|e| e.counted.map(|c| c.id)).collect(),
        Err(e) => return internal(e),
    };
    match app.queue.regrade(&ids).await {
        // The class part says "N counted versions are being graded again"
        // for as long as they are, from the queue (never a note that outlives the work).
        Ok(_) => Redirect::to("/").into_response(),
        Err(e) => internal(e),
    }
}

pub(super) async fn gradebook(State(s): State<Shared>, session: Session) -> Response {
    let app = &s.0;
    if let Err(r) = teacher(app, &session).await {
        return r;
    }
    match export::class(&app.queue).await {
        Ok(c) => download(export::gradebook_csv(&c), CSV, "gradebook.csv"),
        Err(e) => internal(e),
    }
}

pub(super) async fn canvas(State(s): State<Shared>, session: Session) -> Response {
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
pub(super) async fn class_zip(State(s): State<Shared>, session: Session) -> Response {
    let app = &s.0;
    if let Err(r) = teacher(app, &session).await {
        return r;
    }
    let class = match export::class(&app.queue).await {
        Ok(c) => c,
        Err(e) => return internal(e),
    };
    let course = app.queue.course.clone();
    let paid = crate::ranking::last(&app.queue).await;
    let dir = course.dir.join("exports");
    let made = tokio::task::spawn_blocking(move || -> Result<std::fs::File, String> {
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: cannot create ({e})", dir.display()))?;
        let path = dir.join(format!("class-{}.zip", crate::queue::unique_suffix()));
        let written = export::write_zip(&course, &class, paid.as_ref(), &path);
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

/// `POST /teacher/lti/sync`: read the roster from the LMS now; the page says what changed.
pub(super) async fn lti_sync(State(s): State<Shared>, session: Session, Form(form): Form<CsrfForm>) -> Response {
    let app = &s.0;
    if let Err(r) = teacher(app, &session).await {
        return r;
    }
    if let Err(r) = super::csrf::check(&session, &form.authenticity_token).await {
        return r;
    }
    let synced = crate::lti::nrps::sync_all(&app.lti, &app.queue.db).await;
    // New learners from the LMS may have grades already (a CSV student matched by email).
    app.queue.grade_may_have_changed();
    let note = match synced {
        Ok(found) if found.is_empty() => {
            "No launch from an LMS has named its roster yet: open the assignment from the LMS first.".to_string()
        }
        Ok(found) => found
            .iter()
            .map(|(p, s)| {
                format!(
                    "The roster of {}: {} learners, {} new in the course, {} left or inactive in the LMS.",
                    p.issuer, s.learners, s.joined, s.left
                )
            })
            .collect::<Vec<_>>()
            .join(" "),
        Err(e) => format!("The roster could not be read from the LMS: {e}"),
    };
    super::set_note(&session, &note, false).await;
    Redirect::to("/").into_response()
}
