//! The ladder's pages: the leaderboard (live through server-sent events,
//! and as JSON), a student's ladder history with head-to-head results and
//! recent matches whose games replay on request, and the teacher's switches
//! (pseudonyms, freeze).

use super::access::Viewer;
use super::{App, Shared, error, internal, me, page, set_note, shown_time};
use crate::ladder::store::Finished;
use crate::ladder::{Board, FROZEN, Ladder, PSEUDONYMS};
use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Form, Json};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;
use tower_sessions::Session;

/// A leaderboard row as the page shows it.
struct RowView {
    rank: String,
    name: String,
    href: Option<String>,
    rating: String,
    games: u32,
    record: String,
    /// The game kind's own measure (a table's mean position, a solitaire's mean score).
    measure: String,
    version: String,
    submitted: String,
    house: bool,
}

/// What a game's kind calls its results on the board: the record's
/// columns, and the measure beside the rating, if the kind has one.
pub(crate) struct KindWords {
    /// The record column's heading.
    pub record: &'static str,
    /// The measure column's heading.
    pub measure: Option<&'static str>,
    /// What the record's three numbers mean, as a sentence.
    pub means: &'static str,
}

/// The words of `kind` (from the game's registry entry, never its name).
pub(crate) fn kind_words(kind: arena_core::Kind) -> KindWords {
    match kind {
        arena_core::Kind::Duel => KindWords {
            record: "won / drawn / lost",
            measure: None,
            means: "The record counts games won, drawn and lost.",
        },
        arena_core::Kind::Table => KindWords {
            record: "first / between / last",
            measure: Some("mean place"),
            means: "The record counts games finished first, between first and last, and last at the table; \
                    the mean place is 1 for always first.",
        },
        arena_core::Kind::Solitaire => KindWords {
            record: "deals ahead / level / behind",
            measure: Some("mean score"),
            means: "Each bot plays the same deals alone: the record counts the deals on which its score is \
                    ahead of, level with or behind the other's; the mean score a deal is what the rubric grades.",
        },
    }
}

#[derive(Template)]
#[template(path = "leaderboard.html")]
struct BoardPart {
    rows: Vec<RowView>,
    words: KindWords,
    matches: usize,
    games: usize,
    fitted: String,
    frozen: bool,
    pseudonyms: bool,
}

#[derive(Template)]
#[template(path = "ladder.html")]
struct LadderPage<'a> {
    course: &'a str,
    who: String,
    teacher: bool,
    csrf: String,
    /// Every version has its matches: none are played until one changes.
    resting: bool,
    /// How a match is played, in the game kind's words.
    how: String,
    /// When a version stops playing (or that the ladder is frozen).
    until: String,
    pseudonyms: bool,
    frozen: bool,
    board: String,
    note: Option<String>,
    /// What the final tournament's last run said.
    tournament: Option<String>,
    /// Whether its report is published.
    report: bool,
}

/// The leaderboard table for `viewer` (the teacher sees names under
/// pseudonyms), rendered once per fit: a thousand open pages refreshing
/// after a fit cost one rendering, not a thousand.
pub(crate) fn board_html(ladder: &Ladder, board: &Board, teacher: bool) -> Result<Arc<str>, String> {
    let slot = usize::from(teacher);
    if let Ok(r) = ladder.rendered.lock()
        && board.serial > 0
        && r[slot].0 == board.serial
    {
        return Ok(r[slot].1.clone());
    }
    let html: Arc<str> = render_board(ladder, board, teacher)?.into();
    if let Ok(mut r) = ladder.rendered.lock() {
        r[slot] = (board.serial, html.clone());
    }
    Ok(html)
}

fn render_board(ladder: &Ladder, board: &Board, teacher: bool) -> Result<String, String> {
    let kind = ladder.player.game.kind();
    let rows = board
        .rows
        .iter()
        .map(|r| RowView {
            rank: if !r.ranked {
                "not ranked".into()
            } else if r.ranks[0] == r.ranks[1] {
                r.rank.to_string()
            } else {
                format!("{} ({}–{})", r.rank, r.ranks[0], r.ranks[1])
            },
            name: if teacher && board.pseudonyms && !r.house {
                format!("{} ({})", r.real_name, r.name)
            } else {
                r.name.clone()
            },
            href: r.person.map(|p| ladder.page_of(p)),
            rating: if r.ranked {
                format!("{:.0} [{:.0}, {:.0}]", r.rating, r.interval[0], r.interval[1])
            } else {
                "no games yet".into()
            },
            games: r.games,
            record: format!("{} / {} / {}", r.wins, r.draws, r.losses),
            measure: match kind {
                arena_core::Kind::Table => r.mean_position.map_or("-".into(), |p| format!("{p:.2}")),
                arena_core::Kind::Solitaire => r.mean_score.map_or("-".into(), |m| format!("{m:.2}")),
                arena_core::Kind::Duel => String::new(),
            },
            version: r.version.map_or("house bot".into(), |v| format!("v{v}")),
            submitted: r.submitted.as_deref().map(shown_time).unwrap_or_default(),
            house: r.house,
        })
        .collect();
    BoardPart {
        rows,
        words: kind_words(kind),
        matches: board.matches,
        games: board.games,
        fitted: if board.fitted_at.is_empty() {
            "not yet".into()
        } else {
            shown_time(&board.fitted_at)
        },
        frozen: board.frozen,
        pseudonyms: board.pseudonyms,
    }
    .render()
    .map_err(|e| e.to_string())
}

async fn viewer(app: &App, session: &Session) -> Result<Viewer, Response> {
    Viewer::of(app, session).await
}

/// `GET /ladder`: the leaderboard.
pub async fn ladder_page(State(s): State<Shared>, session: Session) -> Response {
    let app = &s.0;
    let who = match viewer(app, &session).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    let board = app.ladder.board();
    let note = session
        .remove::<(String, bool)>("note")
        .await
        .ok()
        .flatten()
        .map(|n| n.0);
    let csrf = super::csrf::token(&session).await;
    let rule = &app.queue.course.config.ladder;
    let resting = app.ladder.resting().await;
    let html = board_html(&app.ladder, &board, who.sees_everything()).and_then(|table| {
        LadderPage {
            course: &app.queue.course.config.name,
            who: if who.sees_everything() {
                "teacher".into()
            } else {
                who.person.name.clone()
            },
            teacher: who.sees_everything(),
            csrf,
            resting: resting && !board.frozen,
            how: how_matches_play(&app.ladder, rule.games),
            until: until_when(rule, board.frozen),
            pseudonyms: board.pseudonyms,
            frozen: board.frozen,
            board: table.to_string(),
            note,
            tournament: app.ladder.tournament.lock().ok().and_then(|t| t.1.clone()),
            report: app.ladder.tournament_dir().join("index.html").is_file(),
        }
        .render()
        .map_err(|e| e.to_string())
    });
    match html {
        Ok(html) => page(html),
        Err(e) => internal(e),
    }
}

/// How a ladder match is played, in the game kind's words, with the
/// number of games it really plays (`asked` is `[ladder] games`).
fn how_matches_play(ladder: &Ladder, asked: u32) -> String {
    let games = ladder.games_per_match();
    let rounded = if games as u64 == u64::from(asked) {
        String::new()
    } else {
        format!(" (the course's [ladder] games = {asked}, rounded up to whole seat rotations)")
    };
    match ladder.player.game.kind() {
        arena_core::Kind::Duel => {
            format!("Each match is a duplicate match of {games} games{rounded}: every deal is played from both seats.")
        }
        arena_core::Kind::Table => format!(
            "Each match seats {} bots at a table for {games} games{rounded}: every deal is played from each seat order. \
             A game's result is a place: first, between, or last.",
            ladder.bots_per_match()
        ),
        arena_core::Kind::Solitaire => format!(
            "Each match plays two bots alone on the same {games} deals and compares their scores deal by deal; \
             the house bots are the rubric's baselines."
        ),
    }
}

/// When a version stops playing, by the course's stopping rule, or that
/// the ladder is frozen (then nothing plays).
fn until_when(rule: &crate::course::LadderConfig, frozen: bool) -> String {
    if frozen {
        return "The ladder is frozen: no matches are played and the standings stay as they are until the teacher runs it again.".into();
    }
    let at_least = format!(
        "A new version replaces the old one at once and plays at least {} matches",
        rule.min_matches
    );
    match (rule.rest_width > 0.0, rule.max_matches) {
        (true, 0) => format!(
            "{at_least}, then on until its rating is known within {} Elo points.",
            rule.rest_width
        ),
        (true, max) => format!(
            "{at_least}, then on until its rating is known within {} Elo points, or {max} matches.",
            rule.rest_width
        ),
        (false, 0) => format!("{at_least}, then on without end (this course's ladder never rests)."),
        (false, max) => format!("{at_least}, and {max} at most."),
    }
}

/// `GET /fragment/ladder`: the table alone, fetched again on each "ladder" event.
pub async fn ladder_fragment(State(s): State<Shared>, session: Session) -> Response {
    let app = &s.0;
    let who = match viewer(app, &session).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    match board_html(&app.ladder, &app.ladder.board(), who.sees_everything()) {
        Ok(html) => page(html.to_string()),
        Err(e) => internal(e),
    }
}

/// `GET /api/leaderboard`: the rows as JSON, for a logged-in browser or a
/// student's token (`Authorization: Bearer`).
pub async fn api_leaderboard(State(s): State<Shared>, session: Session, headers: HeaderMap) -> Response {
    let app = &s.0;
    let person = match me(app, &session).await {
        Some(p) => p,
        None => {
            let token = headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "));
            match token {
                Some(t) => match app.queue.db.person_by_token(t.trim()).await {
                    Ok(Some(p)) => p,
                    Ok(None) => {
                        return (
                            StatusCode::UNAUTHORIZED,
                            Json(serde_json::json!({"error": "this token is not (or no longer) valid"})),
                        )
                            .into_response();
                    }
                    Err(e) => return internal(e),
                },
                None => {
                    return (
                        StatusCode::UNAUTHORIZED,
                        Json(serde_json::json!({"error": "log in, or send your token as Authorization: Bearer TOKEN"})),
                    )
                        .into_response();
                }
            }
        }
    };
    let who = match Viewer::with(app, person).await {
        Ok(who) => who,
        Err(r) => return r,
    };
    let board = app.ladder.board();
    let mut value = serde_json::to_value(&*board).unwrap_or_default();
    if let Some(rows) = value["rows"].as_array_mut() {
        for (row, r) in rows.iter_mut().zip(&board.rows) {
            let Some(pid) = r.person else { continue };
            row["page"] = serde_json::Value::from(app.ladder.page_of(pid));
            if who.sees_everything() {
                row["real_name"] = serde_json::Value::from(r.real_name.clone());
            } else if board.pseudonyms
                && !who.sees_person(pid)
                && let Some(o) = row.as_object_mut()
            {
                // Ids follow roster order and submission order: beside a
                // pseudonym they would tell who it is.
                o.remove("person");
                o.remove("key");
            }
        }
    }
    let mut r = Json(value).into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, header::HeaderValue::from_static("no-store"));
    r
}

/// The CSRF token and the teacher's session of a form the teacher posts, or the refusal.
async fn teacher_form(app: &App, session: &Session, token: &str, what: &str) -> Result<(), Response> {
    super::csrf::check(session, token).await?;
    if !me(app, session).await.is_some_and(|p| p.is_teacher) {
        return Err(error(StatusCode::FORBIDDEN, format!("only the teacher {what}")));
    }
    Ok(())
}

#[derive(Deserialize)]
/// The teacher's switch form.
pub struct SwitchForm {
    authenticity_token: String,
    switch: String,
    on: String,
}

/// `POST /teacher/ladder`: hide or show names, freeze or unfreeze.
pub async fn teacher_switch(State(s): State<Shared>, session: Session, Form(form): Form<SwitchForm>) -> Response {
    let app = &s.0;
    if let Err(r) = teacher_form(app, &session, &form.authenticity_token, "changes the ladder").await {
        return r;
    }
    let name = match form.switch.as_str() {
        "pseudonyms" => PSEUDONYMS,
        "frozen" => FROZEN,
        _ => return error(StatusCode::BAD_REQUEST, "no such switch"),
    };
    let on = form.on == "on";
    if let Err(e) = app.ladder.set(name, on).await {
        return internal(e);
    }
    // The board shows the switch once fitted again; do it now, not at the next result.
    let _ = app.ladder.fit_now().await;
    let note = match (name, on) {
        (PSEUDONYMS, true) => "Names are hidden: students see pseudonyms.",
        (PSEUDONYMS, false) => "Names are shown.",
        (_, true) => "The ladder is frozen: no new matches are played.",
        (_, false) => "The ladder runs again.",
    };
    set_note(&session, note, false).await;
    Redirect::to("/ladder").into_response()
}

/// One recent match as a student's ladder page shows it.
struct MatchView {
    finished: String,
    against: String,
    record: String,
    games: Vec<(String, String)>,
}

#[derive(Template)]
#[template(path = "ladder_person.html")]
struct PersonPage<'a> {
    course: &'a str,
    /// The record column's heading, in the game kind's words.
    record_head: &'static str,
    who: String,
    csrf: String,
    name: String,
    now: Option<String>,
    plot: String,
    heads: Vec<(String, u32, String, String)>,
    recent: Vec<MatchView>,
}

/// The student whose ladder page `at` names, as `who` may ask for it: by
/// its opaque handle ([`Ladder::page_of`]), or by database id for the
/// teacher and for one's own page. Another's id is no address for a
/// student (an id follows roster order, and would undo a pseudonym).
async fn person_at(app: &App, who: &Viewer, at: &str) -> Result<Option<crate::db::Person>, String> {
    let pid = match at.parse::<i64>() {
        Ok(pid) if who.sees_person(pid) => Some(pid),
        Ok(_) => None,
        Err(_) => app
            .queue
            .db
            .students()
            .await?
            .iter()
            .map(|p| p.id)
            .find(|&p| app.ladder.page_of(p).ends_with(&format!("/{at}"))),
    };
    match pid {
        Some(pid) => Ok(app.queue.db.person(pid).await?.filter(|p| !p.is_teacher)),
        None => Ok(None),
    }
}

/// `GET /ladder/people/{at}`: a student's ratings over versions, head to head, recent matches.
pub async fn ladder_person(State(s): State<Shared>, session: Session, Path(at): Path<String>) -> Response {
    let app = &s.0;
    let who = match viewer(app, &session).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    let person = match person_at(app, &who, &at).await {
        Ok(Some(p)) => p,
        Ok(None) => {
            return error(
                StatusCode::NOT_FOUND,
                "no such student: open a classmate's page from the leaderboard",
            );
        }
        Err(e) => return internal(e),
    };
    let pid = person.id;
    let board = app.ladder.board();
    let shown = |key: &str| -> String {
        board
            .rows
            .iter()
            .find(|r| r.key == key)
            .map(|r| {
                if who.sees_everything() && !r.house {
                    r.real_name.clone()
                } else {
                    r.name.clone()
                }
            })
            .unwrap_or_else(|| "an earlier version".into())
    };
    let name = who.name_of(pid, &person.name, board.pseudonyms, || app.ladder.pseudonym(pid));
    let row = board.rows.iter().find(|r| r.person == Some(pid));
    let ranked = board.rows.iter().filter(|r| r.ranked).count();
    let now = row.map(|r| {
        if !r.ranked {
            return format!(
                "v{} has no ladder games yet, so it is not ranked.",
                r.version.unwrap_or(0)
            );
        }
        format!(
            "v{} is ranked {} of {}: rating {:.0}, 95% interval {:.0} to {:.0}, after {} games.",
            r.version.unwrap_or(0),
            r.rank,
            ranked,
            r.rating,
            r.interval[0],
            r.interval[1],
            r.games
        )
    });
    let mut history = match app.ladder.history(pid).await {
        Ok(h) => h,
        Err(e) => return internal(e),
    };
    // The version on the ladder is plotted as the table shows it now (its
    // kept standing is written every 30 s); one without games, not at all.
    if let Some(r) = row
        && let Some(v) = r.version
    {
        history.retain(|h| h.0 != v);
        if r.ranked {
            history.push((v, r.rating, r.interval, u64::from(r.games)));
            history.sort_by_key(|h| h.0);
        }
    }
    let (heads, mut recent) = match row {
        Some(r) => match head_to_head(&app.ladder, &r.key, &shown).await {
            Ok(h) => h,
            Err(e) => return internal(e),
        },
        None => (Vec::new(), Vec::new()),
    };
    // Another student's games are theirs to watch, not this one's.
    if !who.sees_person(pid) {
        for m in &mut recent {
            m.games.clear();
        }
    }
    let html = PersonPage {
        course: &app.queue.course.config.name,
        record_head: kind_words(app.ladder.player.game.kind()).record,
        csrf: super::csrf::token(&session).await,
        who: if who.sees_everything() {
            "teacher".into()
        } else {
            who.person.name.clone()
        },
        name,
        now,
        plot: plot(&history),
        heads,
        recent,
    }
    .render();
    match html {
        Ok(html) => page(html),
        Err(e) => internal(e),
    }
}

/// The head-to-head records of the ladder entrant `key` against each
/// opponent (named by `shown`: name, games, record, score), from the
/// folded counts, and its 20 latest matches, from the rows kept in full.
#[allow(clippy::type_complexity)]
async fn head_to_head(
    ladder: &Ladder,
    key: &str,
    shown: &(dyn Fn(&str) -> String + Sync),
) -> Result<(Vec<(String, u32, String, String)>, Vec<MatchView>), String> {
    let mut heads: BTreeMap<String, [u32; 3]> = BTreeMap::new();
    for (other, record) in ladder.heads(key) {
        let h = heads.entry(shown(&other)).or_default();
        for i in 0..3 {
            h[i] += record[i];
        }
    }
    let mut recent = Vec::new();
    for m in ladder.matches_of(key, 20).await? {
        let Some(me_at) = m.keys.iter().position(|x| x == key) else {
            continue;
        };
        let records = m.outcome.records(m.keys.len());
        let mine = records[me_at];
        let others: Vec<String> = m
            .keys
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != me_at)
            .map(|(_, key)| shown(key))
            .collect();
        recent.push(MatchView {
            finished: shown_time(&m.finished_at),
            against: others.join(", "),
            record: format!("{} / {} / {}", mine[0], mine[1], mine[2]),
            // Every game of the match opens from its row.
            games: (0..m.outcome.games.len())
                .map(|g| {
                    (
                        format!("{}", g + 1),
                        format!("/ladder/matches/{}/games/{}?as={me_at}", m.id, g + 1),
                    )
                })
                .collect(),
        });
    }
    let heads = heads
        .into_iter()
        .map(|(name, [w, d, l])| {
            let n = w + d + l;
            let score = if n == 0 {
                "-".into()
            } else {
                format!("{:.0}%", 100.0 * (f64::from(w) + 0.5 * f64::from(d)) / f64::from(n))
            };
            (name, n, format!("{w} / {d} / {l}"), score)
        })
        .collect();
    Ok((heads, recent))
}

/// The ratings of a student's versions as an SVG plot: a dot per version
/// with its 95% interval as a bar (plain SVG attributes: the page's
/// content policy allows no inline style).
fn plot(history: &[(i64, f64, [f64; 2], u64)]) -> String {
    if history.is_empty() {
        return String::new();
    }
    let (w, h, pad) = (640.0, 220.0, 40.0);
    let lo = history.iter().map(|x| x.2[0]).fold(f64::INFINITY, f64::min).min(1400.0);
    let hi = history
        .iter()
        .map(|x| x.2[1])
        .fold(f64::NEG_INFINITY, f64::max)
        .max(1600.0);
    let n = history.len() as f64;
    let x = |i: usize| pad + (w - 2.0 * pad) * if n <= 1.0 { 0.5 } else { i as f64 / (n - 1.0) };
    let y = |v: f64| h - pad + (pad * 2.0 - h) * (v - lo) / (hi - lo).max(1.0);
    let mut svg = format!(
        "<svg id=\"plot\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"rating over versions\" xmlns=\"http://www.w3.org/2000/svg\">\
         <line x1=\"{pad}\" y1=\"{y0:.1}\" x2=\"{x1}\" y2=\"{y0:.1}\" stroke=\"#9aa4b5\" stroke-dasharray=\"4 4\"/>\
         <text x=\"4\" y=\"{yt:.1}\" font-size=\"11\" fill=\"#5b6474\">1500</text>",
        y0 = y(1500.0),
        yt = y(1500.0) + 4.0,
        x1 = w - pad
    );
    let mut points = Vec::new();
    for (i, (v, r, [l, u], games)) in history.iter().enumerate() {
        let (cx, cy) = (x(i), y(*r));
        points.push(format!("{cx:.1},{cy:.1}"));
        svg.push_str(&format!(
            "<line x1=\"{cx:.1}\" y1=\"{:.1}\" x2=\"{cx:.1}\" y2=\"{:.1}\" stroke=\"#2f5fd0\" stroke-width=\"2\"/>\
             <circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"4\" fill=\"#2f5fd0\"><title>v{v}: {r:.0} [{l:.0}, {u:.0}], {games} games</title></circle>\
             <text x=\"{cx:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\" fill=\"#1d2330\">v{v} {r:.0}</text>",
            y(*l),
            y(*u),
            h - 8.0
        ));
    }
    if points.len() > 1 {
        svg.push_str(&format!(
            "<polyline points=\"{}\" fill=\"none\" stroke=\"#2f5fd0\" stroke-opacity=\"0.5\"/>",
            points.join(" ")
        ));
    }
    svg.push_str("</svg>");
    svg
}

#[derive(Deserialize)]
/// Which entrant's game, for a solitaire.
pub struct AsQuery {
    #[serde(default, rename = "as")]
    entrant: Option<usize>,
}

/// `GET /ladder/matches/{id}/games/{g}`: game `g` (from 1) of a finished ladder match, played again.
pub async fn ladder_game(
    State(s): State<Shared>,
    session: Session,
    Path((id, game)): Path<(i64, usize)>,
    Query(q): Query<AsQuery>,
) -> Response {
    let app = &s.0;
    let who = match viewer(app, &session).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    let done = match app.ladder.finished(id).await {
        Ok(Finished::Kept(done)) => done,
        // Not an error: the match counts, only its games are no longer kept.
        Ok(Finished::Compacted) => {
            return error(
                StatusCode::GONE,
                format!(
                    "ladder match {id} was compacted: its result is counted in the ratings, but its games are no longer kept \
                     (each version's newest {} matches stay watchable: open them from its ladder page)",
                    crate::ladder::store::KEEP_NEWEST
                ),
            );
        }
        Ok(Finished::Unknown) => return error(StatusCode::NOT_FOUND, "no such finished ladder match"),
        Err(e) => return internal(e),
    };
    if game == 0 || game > done.outcome.games.len() {
        return error(
            StatusCode::NOT_FOUND,
            format!(
                "the match played {} games: give a number from 1 to {}",
                done.outcome.games.len(),
                done.outcome.games.len()
            ),
        );
    }
    let job = match app.ladder.job_of(id).await {
        Ok(Some(j)) => j,
        Ok(None) => return error(StatusCode::NOT_FOUND, "no such ladder match"),
        Err(e) => return internal(e),
    };
    // A student watches only matches one of their own versions played.
    if !who.watches(&job.bots.iter().map(|b| b.key.as_str()).collect::<Vec<_>>()) {
        return error(
            StatusCode::FORBIDDEN,
            "that match is not yours to watch: open one of your own",
        );
    }
    // A solitaire match is each entrant's own game on one deal: a student
    // opens their own (by default) and never a classmate's, whose drawn
    // cards and moves only that player saw.
    let solitaire = app.ladder.player.game.kind() == arena_core::Kind::Solitaire;
    let own = job.bots.iter().position(|b| who.sees_bot(&b.key)).unwrap_or(0);
    let entrant = q.entrant.unwrap_or(if solitaire { own } else { 0 });
    if solitaire && job.bots.get(entrant).is_some_and(|b| !who.sees_bot(&b.key)) {
        return error(
            StatusCode::FORBIDDEN,
            "that game is a classmate's own, on the same deal as yours: open yours from your ladder page",
        );
    }
    let names = entrant_names(app, &who, &job);
    let readable = seen_bots(app, &who, &job, entrant);
    let Ok(_permit) = app.replaying.clone().acquire_owned().await else {
        return internal("the server is stopping");
    };
    let player = app.ladder.player.clone();
    let course = app.queue.course.clone();
    let note = format!(
        "Ladder match {id}: {}, game {game} of {}, played again on request (the same deal, seed and limits).",
        names.join(" vs "),
        done.outcome.games.len()
    );
    let made = tokio::task::spawn_blocking(move || {
        let files = move |sha: &str| {
            let p = course.file_path(sha);
            p.is_file().then_some(p)
        };
        let bytes = player.replay(&job, &files, &names, game - 1, entrant)?;
        crate::work::viewer_page(&bytes, &note, "/ladder", &|bot| {
            readable.get(bot).copied().unwrap_or(false)
        })
    })
    .await;
    match made {
        Ok(Ok(html)) => super::viewer_response(html),
        Ok(Err(why)) => error(StatusCode::NOT_FOUND, why),
        Err(e) => internal(e),
    }
}

/// The names `who` sees for the entrants of `job`: the teacher the real
/// ones, a student those of the board (pseudonyms when names are hidden).
fn entrant_names(app: &App, who: &Viewer, job: &crate::play::Job) -> Vec<String> {
    let board = app.ladder.board();
    job.bots
        .iter()
        .map(|b| {
            board
                .rows
                .iter()
                .find(|r| r.key == b.key)
                .map(|r| {
                    if who.sees_everything() {
                        r.real_name.clone()
                    } else {
                        r.name.clone()
                    }
                })
                .unwrap_or_else(|| {
                    if who.sees_everything() {
                        b.key.clone()
                    } else {
                        "an earlier version".into()
                    }
                })
        })
        .collect()
}

/// For each bot of a ladder game's replay (a solitaire's: the one entrant
/// asked for), whether `who` may see its log and hidden cards ([`Viewer::sees_bot`]).
fn seen_bots(app: &App, who: &Viewer, job: &crate::play::Job, entrant: usize) -> Vec<bool> {
    let solitaire = app.ladder.player.game.kind() == arena_core::Kind::Solitaire;
    let replayed = job.bots.iter().skip(if solitaire { entrant } else { 0 });
    replayed
        .take(if solitaire { 1 } else { usize::MAX })
        .map(|b| who.sees_bot(&b.key))
        .collect()
}

#[derive(Deserialize)]
/// The teacher's form that starts the final tournament.
pub struct TournamentForm {
    authenticity_token: String,
    format: String,
    games: usize,
}

/// `POST /teacher/tournament`: the final tournament of a frozen ladder.
pub async fn teacher_tournament(
    State(s): State<Shared>,
    session: Session,
    Form(form): Form<TournamentForm>,
) -> Response {
    use arena_competition::tournament::Format;
    let app = &s.0;
    if let Err(r) = teacher_form(app, &session, &form.authenticity_token, "runs the final tournament").await {
        return r;
    }
    if !app.ladder.setting(FROZEN).await {
        return error(
            StatusCode::CONFLICT,
            "freeze the ladder first: the final tournament plays the versions on it when it froze",
        );
    }
    let format = match form.format.as_str() {
        // The formats `arena grade-class --tournament` plays again: the
        // class zip's command reproduces the ranking points.
        "round-robin" => Format::RoundRobin,
        "double-elimination" => Format::DoubleElimination,
        _ => {
            return error(
                StatusCode::BAD_REQUEST,
                "choose round-robin or double-elimination (the formats `arena grade-class --tournament` plays again)",
            );
        }
    };
    if !(1..=10_000).contains(&form.games) {
        return error(StatusCode::BAD_REQUEST, "games per match: a number from 1 to 10000");
    }
    match app
        .ladder
        .start_tournament(app.grading.clone(), app.queue.clone(), format, form.games)
        .await
    {
        Ok(()) => {
            set_note(
                &session,
                "The final tournament started: its report appears here when it is done.",
                false,
            )
            .await;
            Redirect::to("/ladder").into_response()
        }
        Err(e) => error(StatusCode::CONFLICT, e),
    }
}

/// `GET /tournament/{*file}`: the final tournament's report and replays, for anyone logged in.
pub async fn tournament_file(State(s): State<Shared>, session: Session, Path(file): Path<String>) -> Response {
    let app = &s.0;
    let who = match viewer(app, &session).await {
        Ok(who) => who,
        Err(r) => return r,
    };
    // The report's replay pages carry every bot's own log: a student's
    // strategy notes are not their classmates' to read (issue 47).
    if !who.sees_everything() && file.starts_with(arena_report::report::REPLAYS) {
        return error(
            StatusCode::FORBIDDEN,
            "the final tournament's replays show every bot's own log, so only the teacher opens them; \
             watch your own games on your ladder page",
        );
    }
    // Names of the report's own files: letters, digits, `-_.` and one folder level; never `..`.
    let ok = !file.is_empty()
        && !file.contains("..")
        && !file.starts_with('/')
        && file.split('/').count() <= 2
        && file.chars().all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c));
    if !ok {
        return error(StatusCode::NOT_FOUND, "no such page of the tournament");
    }
    let path = app.ladder.tournament_dir().join(&file);
    let kind = match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("csv") => "text/csv; charset=utf-8",
        Some("json") => "application/json",
        Some("txt" | "md") => "text/plain; charset=utf-8",
        _ => return error(StatusCode::NOT_FOUND, "no such page of the tournament"),
    };
    match tokio::fs::read(&path).await {
        Ok(bytes) => {
            let mut r = ([(header::CONTENT_TYPE, kind)], bytes).into_response();
            super::secure_headers(r.headers_mut(), &super::viewer_policy());
            r
        }
        Err(_) => error(StatusCode::NOT_FOUND, "the final tournament has not been published"),
    }
}
