//! What `arena submit` asks of the server: the course (before the upload,
//! so a bad token or a file over the limit is said before megabytes are
//! sent), the upload, and the verdict once it is there.

use super::{Client, Failure, reason, typed};
use crate::api::{CourseInfo, VersionView};
use std::time::{Duration, Instant};

impl Client {
    /// The course this token belongs to, with its limits.
    pub fn course(&self) -> Result<CourseInfo, Failure> {
        let server = &self.server;
        let (status, v) = self.get("/api/course").map_err(|e| {
            Failure::Unreachable(format!(
                "{server}: cannot reach the course server ({e}); check --server"
            ))
        })?;
        if status != 200 {
            let why = reason(&v, "the server refused the token");
            return Err(Failure::Refused { status, why });
        }
        typed(v)
            .ok_or_else(|| Failure::Unreachable(format!("{server}: the server answered something else than a course")))
    }

    /// Upload `bytes` as a new version named `name`; the version as received.
    pub fn submit(&self, name: &str, bytes: &[u8]) -> Result<VersionView, Failure> {
        let server = &self.server;
        let r = self
            .agent
            .post(&format!("{server}/api/submissions"))
            .header("Authorization", &self.auth)
            .header("X-File-Name", name)
            .header("Content-Type", "application/wasm")
            .send(bytes)
            .map_err(|e| Failure::Unreachable(format!("{server}: the upload did not get through ({e}); try again")))?;
        let (status, v) = Client::body(r, 64 << 20);
        if status == 422 && v["rejected"] == true {
            return Err(Failure::Rejected(reason(&v, "the server rejected the file")));
        }
        if status != 202 {
            let why = reason(&v, "the server refused the upload");
            return Err(Failure::Refused { status, why });
        }
        typed(v)
            .map(|v| self.answered_on(v))
            .ok_or_else(|| Failure::Unreachable(format!("{server}: the server answered something else than a version")))
    }

    /// Version `n` of the token's student, as it stands.
    pub fn version(&self, n: i64) -> Result<VersionView, Failure> {
        let server = &self.server;
        let (_, v) = self
            .get(&format!("/api/submissions/{n}"))
            .map_err(|e| Failure::Unreachable(format!("{server}: lost the course server ({e})")))?;
        typed(v)
            .map(|v| self.answered_on(v))
            .ok_or_else(|| Failure::Unreachable(format!("{server}: the server answered something else than a verdict")))
    }

    /// `v` with its link on the address this client reached the server
    /// at: the course's configured address may be one the server does not
    /// listen on (a course made for a proxy, served on another port).
    fn answered_on(&self, mut v: VersionView) -> VersionView {
        if let Some(at) = v.url.find("/people/") {
            v.url = format!("{}{}", self.server, &v.url[at..]);
        }
        v
    }

    /// Version `n` once its test against the version that counts has a
    /// verdict (or none is coming), asking every half second until
    /// `until`; `None` when the test still runs then.
    pub fn tested(&self, n: i64, until: Instant) -> Result<Option<VersionView>, Failure> {
        loop {
            let v = self.version(n)?;
            if v.versus.get("state").is_none() {
                return Ok(Some(v));
            }
            if Instant::now() >= until {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// Version `n` once it has its verdict, asking every half second for at
    /// most `wait`; after that, as it then is (still `queued`, `checking` or
    /// `running`: received, not graded yet).
    pub fn verdict(&self, n: i64, wait: Duration) -> Result<VersionView, Failure> {
        self.verdict_told(n, wait, &mut |_| {})
    }

    /// [`Client::verdict`], handing `told` each answer while the
    /// version waits or is graded (its `progress`, say).
    pub fn verdict_told(
        &self,
        n: i64,
        wait: Duration,
        told: &mut dyn FnMut(&VersionView),
    ) -> Result<VersionView, Failure> {
        let started = Instant::now();
        loop {
            std::thread::sleep(Duration::from_millis(500));
            let v = self.version(n)?;
            told(&v);
            match v.state.as_str() {
                "queued" | "running" | "checking" if started.elapsed() < wait => continue,
                // Received, not graded yet: the caller says so (not a failure to submit).
                _ => return Ok(v),
            }
        }
    }
}
