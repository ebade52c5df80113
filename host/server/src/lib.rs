//! arena-server: the course server. Students submit a bot file (from a
//! browser or `arena submit`) and see it checked and graded against the
//! house bots by the course's rubric within seconds; the teacher follows
//! the class and exports grades. See docs/server.md.
//!
//! - [`course`]: the course folder and `course.toml`.
//! - [`roster`]: class lists from Canvas, Moodle, Blackboard or a plain CSV.
//! - [`db`]: SQLite or Postgres through one code path.
//! - [`queue`]: submissions and the durable job queue; [`work`]: what a job does.
//! - [`export`]: the gradebook, Canvas's import and the class zip.
//! - [`ladder`]: matchmaking, ratings and the check of external workers; [`play`]: one ladder match.
//! - [`web`]: the pages and the API; [`ladder_web`]: the ladder's pages; [`serve`]: `arena serve`; [`init`]: `arena course`.
//! - [`remote`]: the API external workers call; [`worker`]: `arena worker`, which calls it.

pub mod course;
pub mod db;
pub mod export;
pub mod init;
pub mod ladder;
pub mod ladder_web;
pub mod play;
pub mod queue;
pub mod remote;
pub mod roster;
pub mod serve;
pub mod web;
pub mod work;
pub mod worker;
