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
//! The pages are in `web/lti.rs`; the command is `arena course lti`.

pub mod ags;
pub mod keys;
pub mod launch;
pub mod nrps;
pub mod platforms;
pub mod register;

use std::path::Path;
use std::sync::Arc;

/// The URLs of the tool a teacher gives the LMS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolUrls {
    /// OIDC login initiation (the platform starts every launch here).
    pub login: String,
    /// The redirect URI (the platform posts the id_token here).
    pub launch: String,
    /// The tool's public keys.
    pub jwks: String,
    /// The target link URI (what the assignment opens).
    pub target: String,
}

impl ToolUrls {
    /// The URLs of a course served at `base` (`course.toml`'s `url`).
    pub fn at(base: &str) -> ToolUrls {
        let base = base.trim_end_matches('/');
        ToolUrls {
            login: format!("{base}/lti/login"),
            launch: format!("{base}/lti/launch"),
            jwks: format!("{base}/lti/jwks"),
            target: format!("{base}/"),
        }
    }
}

/// What the server keeps for LTI: the tool's keys and the platforms' keys it fetched.
pub struct Lti {
    /// The tool's keys.
    pub keys: keys::ToolKeys,
    /// The platforms' keys, fetched and cached.
    pub platform_keys: platforms::KeyCache,
    /// The course's public address.
    pub urls: ToolUrls,
    /// The course's name (the LMS's gradebook column, when the tool makes one).
    pub course_name: String,
    /// Held while a launch or a roster sync finds or makes a student.
    pub people: tokio::sync::Mutex<()>,
    /// Access tokens to the platforms' services.
    pub tokens: ags::Tokens,
}

impl Lti {
    /// LTI for the course in `dir` served at `base` (the keys made if the course has none).
    pub fn open(dir: &Path, base: &str, name: &str) -> Result<Arc<Lti>, String> {
        Ok(Arc::new(Lti {
            keys: keys::ToolKeys::load_or_make(dir)?,
            platform_keys: platforms::KeyCache::default(),
            urls: ToolUrls::at(base),
            course_name: name.to_string(),
            people: tokio::sync::Mutex::new(()),
            tokens: ags::Tokens::default(),
        }))
    }
}

/// The LTI claims a launch carries, by their full names.
pub mod claim {
    /// The kind of launch (`LtiResourceLinkRequest`).
    pub const MESSAGE_TYPE: &str = "https://purl.imsglobal.org/spec/lti/claim/message_type";
    /// The LTI version (`1.3.0`).
    pub const VERSION: &str = "https://purl.imsglobal.org/spec/lti/claim/version";
    /// The deployment of the tool that launched.
    pub const DEPLOYMENT_ID: &str = "https://purl.imsglobal.org/spec/lti/claim/deployment_id";
    /// The link the student clicked.
    pub const TARGET_LINK_URI: &str = "https://purl.imsglobal.org/spec/lti/claim/target_link_uri";
    /// The resource link (`{id, title}`).
    pub const RESOURCE_LINK: &str = "https://purl.imsglobal.org/spec/lti/claim/resource_link";
    /// The person's roles in the course.
    pub const ROLES: &str = "https://purl.imsglobal.org/spec/lti/claim/roles";
    /// The LMS course (`{id, label, title}`).
    pub const CONTEXT: &str = "https://purl.imsglobal.org/spec/lti/claim/context";
    /// The school's own ids of the person (`person_sourcedid`).
    pub const LIS: &str = "https://purl.imsglobal.org/spec/lti/claim/lis";
    /// Where the launch shows (`document_target`: iframe or window).
    pub const PRESENTATION: &str = "https://purl.imsglobal.org/spec/lti/claim/launch_presentation";
}

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
    let db = crate::db::Db::open(&database.unwrap_or_else(|| course.sqlite_url())).await?;
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
