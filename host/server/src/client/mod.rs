//! The one client of the course server's API, typed with the server's own
//! requests and responses ([`crate::api`]): [`student`] for `arena submit`
//! (the course, an upload, its verdict) and [`worker`] for `arena worker`
//! (hello, claims, heartbeats, results, bot files). The CLI only parses
//! arguments and prints what these return.

use serde::Serialize;
use serde::de::DeserializeOwned;
use std::time::Duration;

pub mod student;
pub mod worker;

/// Why a call did not give what was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The server could not be reached, or its answer could not be read:
    /// one line naming the server and the cause.
    Unreachable(String),
    /// The server answered with a refusal: its status and its one-line reason.
    Refused {
        /// The HTTP status.
        status: u16,
        /// The server's reason (its `error`), or what a refusal of that call means.
        why: String,
    },
    /// The server looked at the file and rejected it (not WebAssembly, or
    /// not for the course's game): one line naming the file, the cause and
    /// the fix. No version was made.
    Rejected(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Unreachable(line) => f.write_str(line),
            Failure::Refused { status, why } => write!(f, "the server answered {status}: {why}"),
            Failure::Rejected(why) => write!(f, "rejected: {why}"),
        }
    }
}

/// A connection to one course server with one token.
#[derive(Clone)]
pub struct Client {
    agent: ureq::Agent,
    server: String,
    auth: String,
}

/// An answer: its status and its body (JSON, `null` when empty or unreadable).
pub type Answer = (u16, serde_json::Value);

impl Client {
    /// A client of the server at `server` (its address, as `arena serve`
    /// printed it) that calls with `token`: the token itself, or the whole
    /// login link a student was mailed (its last part is the token). Calls
    /// give up after 120 s.
    pub fn new(server: &str, token: &str) -> Client {
        let token = token.trim();
        let token = token
            .rsplit_once("/login/")
            .map_or(token, |(_, t)| t)
            .trim_end_matches('/');
        Client {
            agent: ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_global(Some(Duration::from_secs(120)))
                .build()
                .into(),
            server: server.trim_end_matches('/').to_string(),
            auth: format!("Bearer {token}"),
        }
    }

    /// The server's address.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The body of an answer, read as JSON (at most `limit` bytes); `null` when there is none.
    fn body(mut r: ureq::http::Response<ureq::Body>, limit: u64) -> Answer {
        let status = r.status().as_u16();
        let value = if status == 204 {
            serde_json::Value::Null
        } else {
            r.body_mut()
                .with_config()
                .limit(limit)
                .read_json()
                .unwrap_or(serde_json::Value::Null)
        };
        (status, value)
    }

    /// POST `body` as JSON to `path`; `unreachable` words the failure to get an answer.
    fn post<T: Serialize>(&self, path: &str, body: &T) -> Result<Answer, String> {
        let r = self
            .agent
            .post(&format!("{}{path}", self.server))
            .header("Authorization", &self.auth)
            .send_json(body)
            .map_err(|e| format!("{}: cannot reach the course server ({e})", self.server))?;
        Ok(Self::body(r, 64 << 20))
    }

    /// GET `path`; the transport's error as it is.
    fn get(&self, path: &str) -> Result<Answer, ureq::Error> {
        let r = self
            .agent
            .get(&format!("{}{path}", self.server))
            .header("Authorization", &self.auth)
            .call()?;
        Ok(Self::body(r, 64 << 20))
    }
}

/// The server's reason in a refusal's body, or `otherwise`.
fn reason(v: &serde_json::Value, otherwise: &str) -> String {
    v["error"].as_str().unwrap_or(otherwise).to_string()
}

/// An answer's body read as `T`, or `None` when it is something else.
fn typed<T: DeserializeOwned>(v: serde_json::Value) -> Option<T> {
    serde_json::from_value(v).ok()
}
