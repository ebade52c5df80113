//! arena-server: the course server. Students submit a bot file (from a
//! browser or `arena submit`) and see it checked and graded against the
//! house bots by the course's rubric within seconds; the teacher follows
//! the class and exports grades. See docs/server.md.
//!
//! - [`course`]: the course folder and `course.toml`; [`init`]: `arena course`.
//! - [`roster`]: class lists from Canvas, Moodle, Blackboard or a plain CSV.
//! - [`db`]: SQLite or Postgres through one code path.
//! - [`lease`]: the one lease life cycle of all work handed out (grading jobs and ladder matches).
//! - [`queue`]: submissions and the durable job queue; [`work`]: what a job does.
//! - [`ladder`]: matchmaking, ratings and the ladder's matches; [`play`]: one ladder match.
//! - [`workers`]: external workers, and disabling one whose result differed.
//! - [`pool`]: the server's own threads; [`serve`]: `arena serve`; [`listen`]: connections within bounds (and TLS);
//!   [`systemd`]: readiness, the watchdog, the unit and the request log.
//! - [`export`]: the gradebook, Canvas's import and the class zip; [`ranking`]: the final tournament's places as points; [`backup`]: backup and restore;
//!   [`health`]: the teacher's health panel.
//! - [`lti`]: LTI 1.3, the course as a tool an LMS launches (keys, platforms, the launch's checks).
//! - [`web`]: the pages and the API, one file per audience; [`sessions`]: sessions stored under a hash of their id.
//! - [`api`]: the API's requests and responses; [`client`]: the one client of the API (`arena submit`, `arena worker`).

pub mod api;
pub mod backup;
pub mod client;
pub mod course;
pub mod db;
pub mod export;
pub mod health;
pub mod init;
pub mod ladder;
pub mod lease;
pub mod listen;
pub mod lti;
pub mod play;
pub mod pool;
pub mod queue;
pub mod ranking;
pub mod roster;
pub mod serve;
pub mod sessions;
pub mod systemd;
pub mod web;
pub mod work;
pub mod workers;
