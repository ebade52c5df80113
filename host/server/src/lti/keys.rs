//! The tool's own key pair: made once and kept in the course folder
//! (`lti/keys/`, readable by its owner only), published at `/lti/jwks`,
//! and used to sign the client assertions that ask a platform for an
//! access token. A rotated key stays published for [`RETIRED_FOR`] so
//! the assertions a platform is still checking keep verifying.

use jsonwebtoken::jwk::{Jwk, JwkSet, KeyAlgorithm, PublicKeyUse, ThumbprintHash};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use std::path::{Path, PathBuf};

/// Where the keys are, in the course folder.
pub const KEYS_DIR: &str = "lti/keys";

/// The key that signs.
const CURRENT: &str = "current.pem";

/// How long a rotated key stays published (a platform caches our keys for a day or so).
pub const RETIRED_FOR: u64 = 7 * 24 * 3600;

/// The tool's keys: the one that signs and the ones still published.
pub struct ToolKeys {
    signing: EncodingKey,
    kid: String,
    published: JwkSet,
}

impl std::fmt::Debug for ToolKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ToolKeys({}, {} published)", self.kid, self.published.keys.len())
    }
}

impl ToolKeys {
    /// The course's keys, made (2048-bit RSA) when the course has none yet.
    pub fn load_or_make(course_dir: &Path) -> Result<ToolKeys, String> {
        let dir = course_dir.join(KEYS_DIR);
        if !dir.join(CURRENT).exists() {
            make(&dir)?;
        }
        ToolKeys::load(&dir)
    }

    /// Retire the signing key (published for [`RETIRED_FOR`] more) and make a new one; the new key's id.
    pub fn rotate(course_dir: &Path) -> Result<String, String> {
        let dir = course_dir.join(KEYS_DIR);
        let current = dir.join(CURRENT);
        if current.exists() {
            let retired = dir.join(format!("retired-{}.pem", unix_now()));
            std::fs::rename(&current, &retired)
                .map_err(|e| format!("{}: cannot retire the key ({e})", current.display()))?;
        }
        make(&dir)?;
        Ok(ToolKeys::load(&dir)?.kid)
    }

    fn load(dir: &Path) -> Result<ToolKeys, String> {
        let (signing, jwk) = read(&dir.join(CURRENT))?;
        let kid = jwk.common.key_id.clone().unwrap_or_default();
        let mut keys = vec![jwk];
        let now = unix_now();
        for (path, retired_at) in retired(dir) {
            if now.saturating_sub(retired_at) < RETIRED_FOR {
                keys.push(read(&path)?.1);
            } else {
                // Past its time nothing verifies with it: it goes.
                let _ = std::fs::remove_file(&path);
            }
        }
        Ok(ToolKeys {
            signing,
            kid,
            published: JwkSet { keys },
        })
    }

    /// The public keys, as `/lti/jwks` serves them.
    pub fn jwks(&self) -> &JwkSet {
        &self.published
    }

    /// The signing key's id (its RFC 7638 thumbprint).
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// `claims` signed with the current key (RS256, its `kid` in the header).
    pub fn sign(&self, claims: &serde_json::Value) -> Result<String, String> {
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, claims, &self.signing).map_err(|e| format!("cannot sign for the LMS: {e}"))
    }
}

/// The retired keys of `dir` and when each was retired.
fn retired(dir: &Path) -> Vec<(PathBuf, u64)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(PathBuf, u64)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let at = name.strip_prefix("retired-")?.strip_suffix(".pem")?.parse().ok()?;
            Some((e.path(), at))
        })
        .collect();
    found.sort_by_key(|(_, at)| std::cmp::Reverse(*at));
    found
}

/// The key in a PEM file and its public half as a JWK.
fn read(path: &Path) -> Result<(EncodingKey, Jwk), String> {
    let pem = std::fs::read(path).map_err(|e| format!("{}: cannot read the LTI key ({e})", path.display()))?;
    let key = EncodingKey::from_rsa_pem(&pem).map_err(|e| {
        format!(
            "{}: not an RSA private key in PEM ({e}); move it away and `arena course lti DIR --rotate-key` makes a new one",
            path.display()
        )
    })?;
    let mut jwk = Jwk::from_encoding_key(&key, Algorithm::RS256)
        .map_err(|e| format!("{}: cannot publish its public key ({e})", path.display()))?;
    let kid = jwk
        .thumbprint(ThumbprintHash::SHA256)
        .map_err(|e| format!("{}: cannot name its public key ({e})", path.display()))?;
    jwk.common.key_id = Some(kid);
    jwk.common.public_key_use = Some(PublicKeyUse::Signature);
    jwk.common.key_algorithm = Some(KeyAlgorithm::RS256);
    Ok((key, jwk))
}

/// A new 2048-bit key as `dir/current.pem`, mode 600 in a folder of mode 700.
fn make(dir: &Path) -> Result<(), String> {
    use rsa::pkcs8::{EncodePrivateKey, LineEnding};
    use std::io::Write;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot make it ({e})", dir.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for d in [dir, dir.parent().unwrap_or(dir)] {
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| format!("{}: cannot make it private ({e})", d.display()))?;
        }
    }
    let key = rsa::RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 2048)
        .map_err(|e| format!("cannot make the LTI key pair ({e})"))?;
    let pem = key
        .to_pkcs8_pem(LineEnding::LF)
        .map_err(|e| format!("cannot write the LTI key ({e})"))?;
    // Written whole under another name, then renamed: a crash leaves no half key.
    let path = dir.join(CURRENT);
    let part = dir.join("current.pem.part");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut f = options
        .open(&part)
        .map_err(|e| format!("{}: cannot write the LTI key ({e})", part.display()))?;
    f.write_all(pem.as_bytes())
        .and_then(|()| f.sync_all())
        .map_err(|e| format!("{}: cannot write the LTI key ({e})", part.display()))?;
    std::fs::rename(&part, &path).map_err(|e| format!("{}: cannot write the LTI key ({e})", path.display()))
}

/// Seconds since 1970.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("arena-lti-keys-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_signed_assertion_verifies_against_the_published_keys_and_the_key_is_private() {
        let dir = temp("sign");
        let keys = ToolKeys::load_or_make(&dir).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(KEYS_DIR).join(CURRENT))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let token = keys
            .sign(&serde_json::json!({"iss": "c1", "sub": "c1", "aud": "t", "exp": unix_now() + 60}))
            .unwrap();
        let header = jsonwebtoken::decode_header(&token).unwrap();
        let jwk = keys.jwks().find(header.kid.as_deref().unwrap()).unwrap();
        let mut v = jsonwebtoken::Validation::new(Algorithm::RS256);
        v.set_audience(&["t"]);
        let back =
            jsonwebtoken::decode::<serde_json::Value>(&token, &jsonwebtoken::DecodingKey::from_jwk(jwk).unwrap(), &v)
                .unwrap();
        assert_eq!(back.claims["sub"], "c1");
        // Published keys carry no private part.
        let json = serde_json::to_string(keys.jwks()).unwrap();
        for private in ["\"d\"", "\"p\"", "\"q\"", "\"dp\"", "\"dq\"", "\"qi\"", "PRIVATE"] {
            assert!(!json.contains(private), "{json}");
        }
        // The same key at the next start.
        assert_eq!(ToolKeys::load_or_make(&dir).unwrap().kid(), keys.kid());
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn a_rotated_key_stays_published_beside_the_new_one() {
        let dir = temp("rotate");
        let old = ToolKeys::load_or_make(&dir).unwrap().kid().to_string();
        let new = ToolKeys::rotate(&dir).unwrap();
        assert_ne!(old, new);
        let keys = ToolKeys::load_or_make(&dir).unwrap();
        assert_eq!(keys.kid(), new);
        let kids: Vec<_> = keys
            .jwks()
            .keys
            .iter()
            .filter_map(|k| k.common.key_id.clone())
            .collect();
        assert_eq!(kids, vec![new.clone(), old.clone()]);
        // Past its week the old key is no longer published.
        let retired = retired(&dir.join(KEYS_DIR));
        let long_ago = dir
            .join(KEYS_DIR)
            .join(format!("retired-{}.pem", unix_now() - RETIRED_FOR - 1));
        std::fs::rename(&retired[0].0, long_ago).unwrap();
        let kids: Vec<_> = ToolKeys::load_or_make(&dir)
            .unwrap()
            .jwks()
            .keys
            .iter()
            .filter_map(|k| k.common.key_id.clone())
            .collect();
        assert_eq!(kids, vec![new]);
        std::fs::remove_dir_all(dir).ok();
    }
}
