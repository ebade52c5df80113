//! One version of a student's bot: its verdict (check, rubric items,
//! points, the test against the version before it), its replay pages, any
//! graded game played again, and its Gradescope `results.json`.

use super::access::{version_of, version_seen};
use super::{App, Shared, download, error, internal, me, page, points_text, shown_time, viewer_response};
use crate::queue::Submission;
use askama::Template;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Redirect, Response};
use serde::Deserialize;
use tower_sessions::Session;

/// One rubric item as the version page shows it.
pub(super) struct ItemView {
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
pub(super) fn replay_label(file: &str, items: &[ItemView]) -> String {
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
pub(super) struct VerdictView {
    state: String,
    reason: Option<String>,
    points: Option<String>,
    items: Vec<ItemView>,
    replays: Vec<(String, String)>,
    check: Option<String>,
    /// "Is it better than the version before?", in one sentence.
    versus: Option<(String, String)>,
    /// It plays exactly like a house bot, in the report's own words.
    plays_like: Option<String>,
    /// While it waits or is graded: the estimate, or how far it is.
    progress: Option<String>,
}

#[derive(Template)]
#[template(path = "verdict.html")]
pub(super) struct VerdictPart {
    v: VerdictView,
}

#[derive(Template)]
#[template(path = "version.html")]
pub(super) struct VersionPage<'a> {
    course: &'a str,
    csrf: String,
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

pub(super) fn measured(item: &serde_json::Value) -> String {
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

pub(super) fn verdict_view(app: &App, pid: i64, v: &Submission) -> VerdictView {
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
                // The rubric's own words name a command; here it is the
                // teacher's final tournament, whose places are then paid
                // here ([`crate::ranking`]).
                note: if pending {
                    "not counted yet: the final tournament, which the teacher runs once the ladder is frozen, \
                     ranks each student's version that counts"
                        .into()
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
        plays_like: v.plays_like().map(|h| arena_grading::grade::plays_like_note(&h)),
        progress: super::grading_words(app, v),
    }
}

/// The sentence of a version's test against the version that counted
/// before it (or that it waits or runs), and its class.
pub(super) fn versus_sentence(json: &str) -> Option<(String, String)> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    let against = v["against"]
        .as_i64()
        .map_or("the version that counts".to_string(), |a| {
            format!("v{a}, the version that counts")
        });
    if let Some(e) = v["error"].as_str() {
        let against = v["against"]
            .as_i64()
            .map_or("the version that counts".to_string(), |a| format!("v{a}"));
        return Some((format!("The test against {against} could not run: {e}"), "bad".into()));
    }
    // Queued or running: said while it is so (the page updates itself when it is done).
    if let Some(state) = v["state"].as_str() {
        let version = v["version"].as_i64().map_or("It".to_string(), |n| format!("v{n}"));
        let when = if state == "running" {
            "is being tested"
        } else {
            "waits to be tested"
        };
        return Some((
            format!("{version} {when} against {against}: is it stronger? The answer appears here when the test ends."),
            "busy".into(),
        ));
    }
    let class = match v["verdict"].as_str()? {
        "stronger" => "ok",
        "weaker" => "bad",
        _ => "meta",
    };
    Some((v["sentence"].as_str()?.to_string(), class.into()))
}

pub(super) async fn version_page(
    State(s): State<Shared>,
    session: Session,
    Path((pid, n)): Path<(i64, i64)>,
) -> Response {
    let app = &s.0;
    let (person, v) = match version_of(app, &session, pid, n).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let me_is_teacher = me(app, &session).await.is_some_and(|m| m.is_teacher);
    let html = VersionPage {
        course: &app.queue.course.config.name,
        csrf: super::csrf::token(&session).await,
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
        size: arena_grading::check::size(u64::try_from(v.size).unwrap_or(0)),
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

pub(super) async fn verdict_fragment(
    State(s): State<Shared>,
    session: Session,
    Path((pid, n)): Path<(i64, i64)>,
) -> Response {
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

pub(super) async fn back_to_version(Path((pid, n)): Path<(i64, i64)>) -> Redirect {
    Redirect::to(&format!("/people/{pid}/versions/{n}"))
}

pub(super) async fn replay(
    State(s): State<Shared>,
    session: Session,
    Path((pid, n, file)): Path<(i64, i64, String)>,
) -> Response {
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
        Ok(html) => viewer_response(html),
        Err(_) => error(StatusCode::NOT_FOUND, "no such replay"),
    }
}

#[derive(Deserialize)]
pub(super) struct GameQuery {
    game: usize,
}

/// Any graded game, played again and shown in the viewer (`?game=` from 1).
pub(super) async fn replay_game(
    State(s): State<Shared>,
    session: Session,
    Path((pid, n, item)): Path<(i64, i64, usize)>,
    axum::extract::Query(q): axum::extract::Query<GameQuery>,
) -> Response {
    let app = &s.0;
    let (viewer, person, v) = match version_seen(app, &session, pid, n).await {
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
    let everything = viewer.sees_everything();
    let made = tokio::task::spawn_blocking(move || {
        grading.replay_page(&file, &person.name, (item - 1, q.game - 1), &back, everything)
    })
    .await;
    match made {
        Ok(Ok(html)) => viewer_response(html),
        Ok(Err(why)) => error(StatusCode::NOT_FOUND, why),
        Err(e) => internal(e),
    }
}

pub(super) async fn results_json(
    State(s): State<Shared>,
    session: Session,
    Path((pid, n)): Path<(i64, i64)>,
) -> Response {
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

#[cfg(test)]
mod tests {
    use super::versus_sentence;

    #[test]
    fn a_version_test_is_said_while_it_waits_and_runs_and_names_the_version_that_counts() {
        let waits = versus_sentence(r#"{"state":"queued","version":4,"against":2}"#).expect("a sentence");
        assert_eq!(
            waits,
            (
                "v4 waits to be tested against v2, the version that counts: is it stronger? The answer appears here when the test ends.".into(),
                "busy".into()
            )
        );
        let runs = versus_sentence(r#"{"state":"running","version":4,"against":2}"#).expect("a sentence");
        assert!(
            runs.0
                .starts_with("v4 is being tested against v2, the version that counts"),
            "{runs:?}"
        );
        let failed = versus_sentence(r#"{"error":"the file is gone","against":2}"#).expect("a sentence");
        assert_eq!(failed.0, "The test against v2 could not run: the file is gone");
    }
}
