//! arena-server: the course server. Students submit a bot file (from a
//! browser or `arena submit`) and see it checked and graded against the
//! house bots by the course's rubric within seconds; the teacher follows
//! the class and exports grades. See docs/server.md.
//!
//! - [`course`]: the course folder and `course.toml`.
//! - [`roster`]: class lists from Canvas, Moodle, Blackboard or a plain CSV.
//! - [`db`]: SQLite or Postgres through one code path.
//! - [`queue`]: submissions and the durable job queue; [`work`]: what a job does.
//! - [`web`]: the pages and the API; [`serve`]: `arena serve`; [`init`]: `arena course`.

pub mod course;
pub mod db;
pub mod init;
pub mod queue;
pub mod roster;
pub mod serve;
pub mod web;
pub mod work;
