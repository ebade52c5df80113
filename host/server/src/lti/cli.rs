//! `arena course lti`: the URLs a teacher gives the LMS, registering a
//! platform, a Dynamic Registration URL, rotating the key.

use super::tool::ToolUrls;
use super::{keys, platforms, register};
use std::path::Path;

/// What `arena course lti` does.
pub enum Command {
    /// Print the tool's URLs and the registered platforms.
    Show,
    /// Register a platform (or add its deployments).
    AddPlatform(platforms::NewPlatform),
    /// Retire the tool's key and make a new one.
    RotateKey,
    /// A URL for an LMS's Dynamic Registration (usable once, for a day).
    RegistrationUrl,
}

/// Run `arena course lti` on the course in `dir`; the lines to print.
pub async fn command(dir: &Path, database: Option<String>, what: Command) -> Result<Vec<String>, String> {
    let course = crate::course::Course::open(dir)?;
    // The database the course names (never a new empty SQLite file beside a
    // Postgres course, where the server would not find the platform).
    let db = crate::db::Db::open(&course.database_url(database.as_deref())?).await?;
    let urls = ToolUrls::at(&course.config.url);
    let mut lines = Vec::new();
    match what {
        Command::Show => {}
        Command::AddPlatform(p) => {
            let id = platforms::add(&db, &p).await?;
            lines.push(format!(
                "platform {id} ({}, client id {}) may launch the course from deployment{} {}",
                p.issuer,
                p.client_id,
                if p.deployments.len() == 1 { "" } else { "s" },
                p.deployments.join(", ")
            ));
        }
        Command::RegistrationUrl => {
            let url = register::new_url(&db, &urls).await?;
            lines.push(format!(
                "Paste this URL into the LMS's tool registration (Moodle: \"Tool URL\" under \"LTI Advantage\"; Canvas: an LTI Registration's \"Dynamic Registration\"); it works once, for a day: {url}"
            ));
        }
        Command::RotateKey => {
            let kid = keys::ToolKeys::rotate(dir)?;
            lines.push(format!(
                "the tool signs with a new key, `{kid}`; the old one stays published at {} for {} days",
                urls.jwks,
                keys::RETIRED_FOR / 86400
            ));
        }
    }
    let keys = keys::ToolKeys::load_or_make(dir)?;
    if !course.config.url.starts_with("https://") {
        lines.push(format!(
            "note: the course's address {} is not https: an LMS needs https tool URLs, and browsers send the launch's cookie only over https (set `url` in course.toml; see docs/lti.md)",
            course.config.url
        ));
    }
    lines.push("Give the LMS these (LTI 1.3 tool settings):".into());
    lines.push(format!("  OpenID Connect login URL (initiate login): {}", urls.login));
    lines.push(format!("  Redirect URI(s):                           {}", urls.launch));
    lines.push(format!("  Target link URI (launch URL):              {}", urls.target));
    lines.push(format!("  Public keyset URL (JWKS):                  {}", urls.jwks));
    lines.push(format!("  The tool's key id:                         {}", keys.kid()));
    let registered = platforms::list(&db).await?;
    if registered.is_empty() {
        lines.push("No platform is registered yet: add one with --add-platform and the values the LMS shows.".into());
    }
    for (p, deployments) in registered {
        lines.push(format!(
            "platform {}: {} client id {}, deployments {}",
            p.id,
            p.issuer,
            p.client_id,
            if deployments.is_empty() {
                "none".into()
            } else {
                deployments.join(", ")
            }
        ));
    }
    Ok(lines)
}
