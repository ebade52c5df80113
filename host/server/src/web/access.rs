//! The server's one rule of who sees what (docs/server.md, "Privacy").
//! Every page and API route that shows a bot's log, hidden cards, a name or
//! a file asks a [`Viewer`], and nothing else decides:
//!
//! - the teacher sees everything;
//! - a student sees their own pages, versions and files, and their own
//!   bots' logs and hidden cards in any game (an opponent's hand only where
//!   the game's rules reveal it: `GameDef::hide_event`);
//! - of classmates a student sees what the leaderboard shows: a name (a
//!   pseudonym when the teacher hides names), a rating, a record and a
//!   ladder page reached by an opaque handle, never by a database id that
//!   follows roster order.

use super::{App, error, internal, me};
use crate::db::Person;
use crate::queue::Submission;
use axum::http::StatusCode;
use axum::response::Response;
use tower_sessions::Session;

/// Who is looking: a logged-in person, and the ladder entrants that are theirs.
pub(crate) struct Viewer {
    /// The person.
    pub(crate) person: Person,
    /// The ladder keys (`s<version id>`) of their versions; none for the teacher.
    own: Vec<String>,
}

impl Viewer {
    /// The person logged in on `session`, or the refusal (401).
    pub(crate) async fn of(app: &App, session: &Session) -> Result<Viewer, Response> {
        match me(app, session).await {
            Some(person) => Viewer::with(app, person).await,
            None => Err(error(StatusCode::UNAUTHORIZED, "log in with your link")),
        }
    }

    /// `person` as a viewer.
    pub(crate) async fn with(app: &App, person: Person) -> Result<Viewer, Response> {
        let own = if person.is_teacher {
            Vec::new()
        } else {
            app.queue
                .versions(person.id)
                .await
                .map_err(internal)?
                .iter()
                .map(|v| format!("s{}", v.id))
                .collect()
        };
        Ok(Viewer { person, own })
    }

    /// The teacher: every log, hand, name and file.
    pub(crate) fn sees_everything(&self) -> bool {
        self.person.is_teacher
    }

    /// Whether the pages, versions and files of person `pid` are theirs to open.
    pub(crate) fn sees_person(&self, pid: i64) -> bool {
        self.person.is_teacher || self.person.id == pid
    }

    /// [`Viewer::sees_person`], or the refusal (403).
    // The refusal is the handler's response itself, as everywhere in `web`.
    #[allow(clippy::result_large_err)]
    pub(crate) fn may_open(&self, pid: i64) -> Result<(), Response> {
        if self.sees_person(pid) {
            Ok(())
        } else {
            Err(error(StatusCode::FORBIDDEN, "that is not yours to see"))
        }
    }

    /// Whether the ladder entrant `key`'s log, hidden cards and file are
    /// theirs to see (house bots' are the teacher's only).
    pub(crate) fn sees_bot(&self, key: &str) -> bool {
        self.person.is_teacher || self.own.iter().any(|k| k == key)
    }

    /// Whether a match of the entrants `keys` is theirs to watch: one that
    /// a version of theirs played (another's games show their hand and log).
    pub(crate) fn watches(&self, keys: &[&str]) -> bool {
        self.person.is_teacher || keys.iter().any(|k| self.sees_bot(k))
    }

    /// The name of person `pid` (real name `real`) as they may see it: the
    /// real one for the teacher and for themselves, else `pseudonym` when
    /// names are hidden.
    pub(crate) fn name_of(&self, pid: i64, real: &str, hidden: bool, pseudonym: impl FnOnce() -> String) -> String {
        if hidden && !self.sees_person(pid) {
            pseudonym()
        } else {
            real.to_string()
        }
    }
}

/// Person `pid`, if the one logged in may see them ([`access::Viewer`]):
/// who looks, and whom.
pub(crate) async fn allowed(app: &App, session: &Session, pid: i64) -> Result<(Viewer, Person), Response> {
    let viewer = Viewer::of(app, session).await?;
    viewer.may_open(pid)?;
    match app.queue.db.person(pid).await {
        Ok(Some(p)) => Ok((viewer, p)),
        Ok(None) => Err(error(StatusCode::NOT_FOUND, "no such student")),
        Err(e) => Err(internal(e)),
    }
}

/// Version `n` of person `pid`, if the one logged in may see it: who looks, whose, and the version.
pub(crate) async fn version_seen(
    app: &App,
    session: &Session,
    pid: i64,
    n: i64,
) -> Result<(Viewer, Person, Submission), Response> {
    let (viewer, person) = allowed(app, session, pid).await?;
    match app.queue.version(pid, n).await {
        Ok(Some(v)) => Ok((viewer, person, v)),
        Ok(None) => Err(error(StatusCode::NOT_FOUND, format!("there is no version {n}"))),
        Err(e) => Err(internal(e)),
    }
}

pub(crate) async fn version_of(
    app: &App,
    session: &Session,
    pid: i64,
    n: i64,
) -> Result<(Person, Submission), Response> {
    version_seen(app, session, pid, n).await.map(|(_, p, v)| (p, v))
}
