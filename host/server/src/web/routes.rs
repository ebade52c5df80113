//! The routes of a course server: every page and API call, and the handler of each.

use super::limits::{Limits, count_failures};
use super::{Shared, ladder, lti, remote, student, student_api, teacher, version};
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::header;
use axum::middleware::from_fn_with_state;
use axum::routing::{get, post};

/// The page style and the one script, served by the server itself.
const STYLE: &str = include_str!("../../assets/style.css");

const SCRIPT: &str = include_str!("../../assets/app.js");

/// The server's icon: browsers ask for `/favicon.ico` on every first visit,
/// and a 404 there fills the log (an SVG, which every current browser takes).
const ICON: &str = include_str!("../../assets/favicon.svg");

/// The most a form of the pages may send (a login-free page's forms are a few fields).
const FORM_BODY: usize = 64 << 10;

/// The most a worker's call may send: a batch's results (at most 256
/// matches, each its games and fuel) or a grading verdict.
const WORKER_BODY: usize = 8 << 20;

/// The routes of a course server. Each kind of route has its own body
/// limit, the two APIs check their token in a route layer, before any
/// handler reads a body, and logins, uploads and the students' API have
/// rate limits ([`super::limits`]).
pub fn router(shared: Shared) -> Router {
    let upload_body = usize::try_from(shared.0.grading.max_file_bytes())
        .unwrap_or(usize::MAX)
        .saturating_add(64 << 10);
    let limits = Limits::new(&shared.0.queue.course.config.rates);
    let logins = Router::new()
        .route("/login/{token}", get(student::login))
        .route("/lti/login", get(lti::login_get).post(lti::login_post))
        .route("/lti/launch", post(lti::launch))
        .route("/lti/enter/{code}", get(lti::enter))
        .route("/lti/register", get(lti::register))
        .route_layer(limits.addresses())
        .layer(DefaultBodyLimit::max(FORM_BODY));
    let pages = Router::new()
        .route("/", get(student::home))
        .route("/logout", post(student::logout))
        .route("/rules", get(student::rules))
        .route("/lti/jwks", get(lti::jwks))
        .route("/count", post(student::count))
        .route("/fragment/versions", get(student::my_versions_fragment))
        .route("/fragment/class", get(teacher::class_fragment))
        .route("/events", get(student::events))
        .route("/people/{pid}", get(student::history))
        .route("/people/{pid}/versions/{n}", get(version::version_page))
        .route("/people/{pid}/versions/{n}/verdict", get(version::verdict_fragment))
        .route("/people/{pid}/versions/{n}/index.html", get(version::back_to_version))
        .route("/people/{pid}/versions/{n}/replays/{file}", get(version::replay))
        .route("/people/{pid}/versions/{n}/items/{i}/games", get(version::replay_game))
        .route("/teacher/regrade", post(teacher::regrade))
        .route("/teacher/lti/sync", post(teacher::lti_sync))
        .route("/teacher/gradebook.csv", get(teacher::gradebook))
        .route("/teacher/grades-canvas.csv", get(teacher::canvas))
        .route("/teacher/class.zip", get(teacher::class_zip))
        .route("/people/{pid}/versions/{n}/results.json", get(version::results_json))
        .route("/ladder", get(ladder::ladder_page))
        .route("/fragment/ladder", get(ladder::ladder_fragment))
        .route("/ladder/people/{pid}", get(ladder::ladder_person))
        .route("/ladder/matches/{id}/games/{g}", get(ladder::ladder_game))
        .route("/teacher/ladder", post(ladder::teacher_switch))
        .route("/teacher/tournament", post(ladder::teacher_tournament))
        .route("/tournament/{*file}", get(ladder::tournament_file))
        .route("/api/leaderboard", get(ladder::api_leaderboard))
        .route(
            "/assets/style.css",
            get(|| async { ([(header::CONTENT_TYPE, "text/css")], STYLE) }),
        )
        .route(
            "/favicon.ico",
            get(|| async {
                (
                    [
                        (header::CONTENT_TYPE, "image/svg+xml"),
                        (header::CACHE_CONTROL, "public, max-age=86400"),
                    ],
                    ICON,
                )
            }),
        )
        .route(
            "/assets/app.js",
            get(|| async { ([(header::CONTENT_TYPE, "text/javascript")], SCRIPT) }),
        )
        .layer(DefaultBodyLimit::max(FORM_BODY));
    let upload = Router::new()
        .route("/upload", post(student::upload))
        .route_layer(limits.addresses())
        .layer(DefaultBodyLimit::max(upload_body));
    let students = Router::new()
        .route("/api/course", get(student_api::api_course))
        .route("/api/submissions", post(student_api::api_submit))
        .route("/api/submissions/{n}", get(student_api::api_version))
        // The token is checked first (the outer layer), then counted.
        .route_layer(limits.students())
        .route_layer(from_fn_with_state(shared.clone(), student_api::authenticate))
        .route_layer(from_fn_with_state(limits.failures.clone(), count_failures))
        .layer(DefaultBodyLimit::max(upload_body));
    let workers = Router::new()
        .route("/api/worker/hello", post(remote::hello))
        .route("/api/worker/claim", post(remote::claim))
        .route("/api/worker/heartbeat", post(remote::heartbeat))
        .route("/api/worker/results", post(remote::results))
        .route("/api/worker/jobs/claim", post(remote::claim_job))
        .route("/api/worker/jobs/result", post(remote::job_result))
        .route("/api/worker/bots/{sha}", get(remote::bot))
        .route_layer(from_fn_with_state(shared.clone(), remote::authenticate))
        .route_layer(from_fn_with_state(limits.failures.clone(), count_failures))
        .layer(DefaultBodyLimit::max(WORKER_BODY));
    pages
        .merge(logins)
        .merge(upload)
        .merge(students)
        .merge(workers)
        .with_state(shared)
}
