//! LTI 1.3 (1EdTech LTI Core 1.3, resource link launch): a course is a
//! tool an LMS (Canvas, Moodle, Blackboard, Brightspace) launches. A
//! student clicks the assignment in the LMS and lands on their page,
//! logged in, without a mailed link. See docs/lti.md.
//!
//! - [`keys`]: the tool's own key pair, published at `/lti/jwks`.
//! - [`platforms`]: the registered platforms and their deployments, and their keys, fetched and cached.
//! - [`launch`]: the OIDC login and the launch, every check of the id_token, and who it logs in.
//! - [`ags`]: grades back to the LMS's gradebook, a durable queue of scores.
//! - [`nrps`]: the roster read from the LMS (Names and Role Provisioning Services).
//! - [`register`]: LTI Dynamic Registration (the LMS registers the course from one URL).
//!
//! - [`tool`]: what the server keeps (the keys, the caches) and the claims' names; [`cli`]: `arena course lti`.
//!
//! The pages are in `web/lti.rs`. Each file imports only the ones below it
//! (`keys`, `platforms` and `tool` at the bottom), never this one.

pub mod ags;
pub mod cli;
pub mod keys;
pub mod launch;
pub mod nrps;
pub mod platforms;
pub mod register;
pub mod tool;

pub use cli::{Command, command};
pub use tool::{Lti, ToolUrls, claim};
