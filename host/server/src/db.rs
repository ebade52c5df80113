//! The database: SQLite in the course folder (WAL, one file) or Postgres,
//! through one code path (sqlx's `Any` driver, runtime-checked queries with
//! `$n` parameters, which both accept), each with its own migrations.

use crate::course::{now, stamp};
use sha2::{Digest, Sha256};
use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::{AnyPool, Row};

/// Which database a URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// An SQLite file.
    Sqlite,
    /// A Postgres server.
    Postgres,
}

/// The most of SQLite's write-ahead log (`course.db-wal`) left on disk once
/// it starts over: four times what it holds between two automatic
/// checkpoints (1,000 pages of 4 KiB), so a course at its usual pace never
/// cuts it.
pub const WAL_KEPT: u64 = 16 << 20;

/// The course's database.
#[derive(Debug, Clone)]
pub struct Db {
    /// The pool every query runs on.
    pub pool: AnyPool,
    /// What it is.
    pub backend: Backend,
}

/// Where a database's tables stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schema {
    /// The last migration applied (0: a new database).
    pub at: i64,
    /// The last this arena has.
    pub to: i64,
}

/// A person of the course: a student or the teacher.
#[derive(Debug, Clone, PartialEq)]
pub struct Person {
    /// The database's id.
    pub id: i64,
    /// The school's id (`teacher` for the teacher).
    pub school_id: String,
    /// Their name.
    pub name: String,
    /// Their email.
    pub email: String,
    /// Whether this is the teacher.
    pub is_teacher: bool,
    /// The version they chose to count, if they chose.
    pub counted: Option<i64>,
    /// Their Canvas user id, when the roster was Canvas's gradebook export.
    pub canvas_id: Option<String>,
}

/// The columns [`person`] reads, in its order.
const PERSON_COLUMNS: &str = "id, school_id, name, email, is_teacher, counted, canvas_id";

/// The SHA-256 of a login secret, as the database keeps it.
pub fn token_hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A new login secret: 32 random bytes from the operating system, in
/// URL-safe base64 (43 characters); an error when the system gives none.
pub fn new_token() -> Result<String, String> {
    use base64::Engine;
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| format!("the operating system gave no randomness for a login secret ({e})"))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// A course's secret: 32 random bytes made at the course's first start and
/// kept in its database, never sent to anyone. What must be unpredictable
/// from outside is derived from it ([`Secret::derive`]): which of a
/// worker's results are done again, and the pseudonyms of hidden names.
#[derive(Clone)]
pub struct Secret([u8; 32]);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

impl Secret {
    /// A secret of the given bytes (tests).
    pub fn from_bytes(bytes: [u8; 32]) -> Secret {
        Secret(bytes)
    }

    /// A number no one without the secret can tell from `label` and `n`:
    /// HMAC-SHA-256 of both under the secret, its first 8 bytes.
    pub fn derive(&self, label: &str, n: i64) -> u64 {
        use hmac::Mac;
        let Ok(mut mac) = hmac::Hmac::<Sha256>::new_from_slice(&self.0) else {
            return 0;
        };
        mac.update(label.as_bytes());
        mac.update(&n.to_le_bytes());
        let out = mac.finalize().into_bytes();
        let mut first = [0u8; 8];
        first.copy_from_slice(&out[..8]);
        u64::from_le_bytes(first)
    }
}

impl Db {
    /// The course's secret, made (from the operating system's randomness)
    /// and kept at the first call; every server sharing the database reads the same.
    pub async fn secret(&self) -> Result<Secret, String> {
        use base64::Engine;
        let engine = base64::engine::general_purpose::STANDARD;
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)
            .map_err(|e| format!("the operating system gave no randomness for the course's secret ({e})"))?;
        // Two servers starting at once: the first one's stays, both read it back.
        sqlx::query("INSERT INTO settings (name, value) VALUES ('secret', $1) ON CONFLICT (name) DO NOTHING")
            .bind(engine.encode(bytes))
            .execute(&self.pool)
            .await
            .map_err(|e| e.to_string())?;
        let kept: String = sqlx::query("SELECT value FROM settings WHERE name = 'secret'")
            .fetch_one(&self.pool)
            .await
            .and_then(|r| r.try_get(0))
            .map_err(|e| e.to_string())?;
        let kept = engine
            .decode(kept.trim())
            .ok()
            .and_then(|b| <[u8; 32]>::try_from(b).ok())
            .ok_or(
                "the course's secret in its database is damaged: delete the `secret` row of `settings` and start again",
            )?;
        Ok(Secret(kept))
    }

    /// Open the database at `url` (`sqlite://...` or `postgres://...`),
    /// making its tables when it is new; refused in one line if a newer
    /// arena made them (see [`Db::schema`]) or an older one did: only
    /// `arena serve` upgrades a course, after backing it up.
    pub async fn open(url: &str) -> Result<Db, String> {
        let db = Db::connect(url).await?;
        let schema = db.schema().await?;
        if schema.at > 0 && schema.at < schema.to {
            return Err(format!(
                "the course's database is at schema {}, made by an older arena (this one, {}, uses {}); serve it once with `arena serve`, which backs the course up and then upgrades it",
                schema.at,
                env!("CARGO_PKG_VERSION"),
                schema.to
            ));
        }
        db.migrate().await?;
        Ok(db)
    }

    /// Open the database at `url` as it is, its tables unchanged.
    pub async fn connect(url: &str) -> Result<Db, String> {
        install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Backend::Postgres
        } else {
            return Err(format!(
                "database `{}`: give sqlite://FILE or postgres://USER@HOST/DB",
                shown_url(url)
            ));
        };
        let mut options = AnyPoolOptions::new().max_connections(if backend == Backend::Sqlite { 4 } else { 8 });
        if backend == Backend::Sqlite {
            options = options.after_connect(|conn, _| {
                Box::pin(async move {
                    // WAL: readers never wait for the writer; a busy writer is
                    // waited for, not an error; FULL: an acknowledged upload
                    // survives a power cut, not only a killed process.
                    // journal_size_limit: a log that grew while readers held
                    // it back is cut to WAL_KEPT when it starts over, instead
                    // of staying at its largest (98 MB beside a 67 MB database
                    // after the semester bench's 5,000,000 matches).
                    let limit = format!("PRAGMA journal_size_limit = {WAL_KEPT}");
                    for pragma in [
                        "PRAGMA journal_mode = WAL",
                        "PRAGMA busy_timeout = 10000",
                        "PRAGMA synchronous = FULL",
                        "PRAGMA foreign_keys = ON",
                        limit.as_str(),
                    ] {
                        sqlx::query(pragma).execute(&mut *conn).await?;
                    }
                    Ok(())
                })
            });
        }
        let pool = options
            .connect(url)
            .await
            .map_err(|e| format!("database `{}`: cannot open it ({e})", shown_url(url)))?;
        Ok(Db { pool, backend })
    }

    /// This arena's migrations for the database's kind.
    fn migrator(&self) -> sqlx::migrate::Migrator {
        match self.backend {
            Backend::Sqlite => sqlx::migrate!("migrations/sqlite"),
            Backend::Postgres => sqlx::migrate!("migrations/postgres"),
        }
    }

    /// The schema the tables are at and the one this arena brings them
    /// to (0 for a new database); an error in one line when a newer arena
    /// made them, since this one would not know its own tables.
    pub async fn schema(&self) -> Result<Schema, String> {
        let known = self.migrator().iter().map(|m| m.version).max().unwrap_or(0);
        // A new database has no table of migrations yet: schema 0.
        let applied: Vec<i64> =
            sqlx::query("SELECT version FROM _sqlx_migrations WHERE success = TRUE ORDER BY version")
                .fetch_all(&self.pool)
                .await
                .map(|rows| rows.iter().filter_map(|r| r.try_get::<i64, _>(0).ok()).collect())
                .unwrap_or_default();
        let at = applied.iter().copied().max().unwrap_or(0);
        if at > known {
            return Err(format!(
                "the course's database is at schema {at}, made by a newer arena than this one ({}, which knows schemas up to {known}); serve it with that arena or a newer one",
                env!("CARGO_PKG_VERSION")
            ));
        }
        Ok(Schema { at, to: known })
    }

    /// Bring the tables up to this arena's schema.
    pub async fn migrate(&self) -> Result<(), String> {
        self.migrator()
            .run(&self.pool)
            .await
            .map_err(|e| format!("the course's database: cannot bring its tables up to date ({e})"))
    }

    /// Add a person with the login secret `token`; an error if their school id is taken.
    pub async fn add_person(
        &self,
        school_id: &str,
        name: &str,
        email: &str,
        teacher: bool,
        token: &str,
        canvas_id: Option<&str>,
    ) -> Result<i64, String> {
        let row = sqlx::query(
            "INSERT INTO people (school_id, name, email, is_teacher, token_hash, created_at, canvas_id) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
        )
        .bind(school_id)
        .bind(name)
        .bind(email)
        .bind(teacher)
        .bind(token_hash(token))
        .bind(stamp(now()))
        .bind(canvas_id)
        .fetch_one(&self.pool)
        .await
        .map_err(|e| format!("cannot add {name} ({school_id}): {e}"))?;
        row.try_get::<i64, _>(0).map_err(|e| e.to_string())
    }

    /// The person whose login secret is `token`, unless removed.
    pub async fn person_by_token(&self, token: &str) -> Result<Option<Person>, String> {
        let hash = token_hash(token);
        let row = sqlx::query(&format!(
            "SELECT {PERSON_COLUMNS}, token_hash FROM people WHERE token_hash = $1 AND removed = FALSE"
        ))
        .bind(&hash)
        .fetch_optional(&self.pool)
        .await
        .map_err(|e| e.to_string())?;
        // The index found the row by its hash; compare in constant time too,
        // so nothing about a near miss shows in the time taken.
        Ok(row
            .filter(|r| {
                use subtle::ConstantTimeEq;
                let stored: String = r.try_get(7).unwrap_or_default();
                bool::from(stored.as_bytes().ct_eq(hash.as_bytes()))
            })
            .map(|r| person(&r)))
    }

    /// The person with this database id.
    pub async fn person(&self, id: i64) -> Result<Option<Person>, String> {
        let row = sqlx::query(&format!(
            "SELECT {PERSON_COLUMNS} FROM people WHERE id = $1 AND removed = FALSE"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(|e| e.to_string())?;
        Ok(row.map(|r| person(&r)))
    }

    /// Every student on the roster, by name.
    pub async fn students(&self) -> Result<Vec<Person>, String> {
        let rows = sqlx::query(&format!(
            "SELECT {PERSON_COLUMNS} FROM people WHERE is_teacher = FALSE AND removed = FALSE ORDER BY name, school_id"
        ))
        .fetch_all(&self.pool)
        .await
        .map_err(|e| e.to_string())?;
        Ok(rows.iter().map(person).collect())
    }

    /// Give the person of `school_id` a new login secret (the old one stops working).
    pub async fn reissue(&self, school_id: &str, token: &str) -> Result<bool, String> {
        let done = sqlx::query("UPDATE people SET token_hash = $1 WHERE school_id = $2 AND removed = FALSE")
            .bind(token_hash(token))
            .bind(school_id)
            .execute(&self.pool)
            .await
            .map_err(|e| e.to_string())?;
        Ok(done.rows_affected() == 1)
    }

    /// Take a student off the roster: they can no longer log in; their
    /// versions stay for the record.
    pub async fn remove(&self, school_id: &str) -> Result<bool, String> {
        let done = sqlx::query("UPDATE people SET removed = TRUE WHERE school_id = $1 AND is_teacher = FALSE")
            .bind(school_id)
            .execute(&self.pool)
            .await
            .map_err(|e| e.to_string())?;
        Ok(done.rows_affected() == 1)
    }
}

/// A yes/no column: BOOLEAN in Postgres, a 0/1 integer in SQLite.
fn flag(r: &sqlx::any::AnyRow, i: usize) -> bool {
    r.try_get::<bool, _>(i)
        .or_else(|_| r.try_get::<i64, _>(i).map(|v| v != 0))
        .unwrap_or(false)
}

fn person(r: &sqlx::any::AnyRow) -> Person {
    Person {
        id: r.try_get(0).unwrap_or_default(),
        school_id: r.try_get(1).unwrap_or_default(),
        name: r.try_get(2).unwrap_or_default(),
        email: r.try_get(3).unwrap_or_default(),
        is_teacher: flag(r, 4),
        counted: r.try_get(5).ok().flatten(),
        canvas_id: r.try_get(6).ok().flatten(),
    }
}

/// A database URL without its password, for messages.
pub fn shown_url(url: &str) -> String {
    let shown = match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let user = &url[scheme + 3..at];
            let user = user.split(':').next().unwrap_or("");
            format!("{}{user}{}", &url[..scheme + 3], &url[at..])
        }
        _ => url.to_string(),
    };
    // A password in the query (`?password=...`) is hidden too.
    match shown.split_once('?') {
        Some((base, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|kv| match kv.split_once('=') {
                    Some((k, _)) if k.ends_with("password") => format!("{k}=***"),
                    _ => kv.to_string(),
                })
                .collect();
            format!("{base}?{}", query.join("&"))
        }
        None => shown,
    }
}
