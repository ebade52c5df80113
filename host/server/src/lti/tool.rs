//! What the server keeps for LTI (the tool's keys, the platforms' keys and
//! tokens it fetched, the course's URLs) and the names of the claims.

use super::{keys, platforms};
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
    pub tokens: platforms::Tokens,
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
            tokens: platforms::Tokens::default(),
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
    /// Assignment and Grade Services (`{scope, lineitems, lineitem}`).
    pub const AGS_ENDPOINT: &str = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint";
    /// Names and Role Provisioning Services (`{context_memberships_url}`).
    pub const NRPS_SERVICE: &str = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice";
    /// The LMS course (`{id, label, title}`).
    pub const CONTEXT: &str = "https://purl.imsglobal.org/spec/lti/claim/context";
    /// The school's own ids of the person (`person_sourcedid`).
    pub const LIS: &str = "https://purl.imsglobal.org/spec/lti/claim/lis";
    /// Where the launch shows (`document_target`: iframe or window).
    pub const PRESENTATION: &str = "https://purl.imsglobal.org/spec/lti/claim/launch_presentation";
}
