//! `arena course backup` and `arena course restore` (issue 49): a course
//! folder and its database copied while the server runs, with a manifest of
//! every file's SHA-256 that a restore checks before it writes anything.
//!
//! The database is copied first, as one consistent snapshot (SQLite's
//! `VACUUM INTO`, which reads one transaction while writers go on;
//! `pg_dump` for Postgres, which does the same), then the folder: a bot
//! file is on disk before the row that names it is committed, so every
//! version the snapshot holds has its file in the backup. What was
//! acknowledged before the backup started is in it.

use crate::course::{COURSE_FILE, Course, DATABASE_FILE};
use crate::db::{Backend, Db, hex, shown_url};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The manifest's name in a backup folder.
pub const MANIFEST: &str = "manifest.json";
/// A Postgres course's database, as `pg_dump --format=custom` wrote it.
pub const PG_DUMP: &str = "course.pgdump";

/// What a backup holds, written last into its folder.
#[derive(Debug, Serialize, Deserialize)]
pub struct Manifest {
    /// The arena that wrote it.
    pub arena: String,
    /// When it was taken (RFC 3339, UTC).
    pub taken_at: String,
    /// `sqlite` (its snapshot is `course.db`) or `postgres` (`course.pgdump`).
    pub database: String,
    /// Every file of the backup but the manifest, by its path in the folder: its SHA-256.
    pub files: BTreeMap<String, String>,
}

/// What a backup or a restore did.
#[derive(Debug)]
pub struct Copied {
    /// Files written.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// The database kind.
    pub database: String,
}

/// Back up the course in `dir` (its database at `database`, else its
/// SQLite file) into the new folder `out`, the database's tables as they
/// are (a backup before an upgrade keeps the old schema).
pub async fn backup(dir: &Path, out: &Path, database: Option<&str>) -> Result<Copied, String> {
    let course = Course::open(dir)?;
    // The database course.toml names, as `arena serve` reads it.
    let named = match database {
        Some(url) => Some(url.to_string()),
        None => course.named_database()?,
    };
    new_private_dir(out)?;
    // An SQLite database named elsewhere (`--database sqlite://...`) is
    // snapshotted as the folder's own would be: the backup holds the
    // course's data, wherever it was served from.
    let sqlite = match named.as_deref() {
        None => {
            let file = dir.join(DATABASE_FILE);
            if !file.is_file() {
                return Err(format!(
                    "{}: no database here; a Postgres course is backed up with --database URL",
                    file.display()
                ));
            }
            Some((course.sqlite_url(), file.display().to_string()))
        }
        Some(url) if url.starts_with("sqlite:") => Some((url.to_string(), shown_url(url))),
        Some(_) => None,
    };
    let kind = match sqlite {
        Some((url, shown)) => {
            let db = Db::connect(&url).await?;
            let snapshot = out.join(DATABASE_FILE);
            sqlx::query("VACUUM INTO $1")
                .bind(snapshot.display().to_string())
                .execute(&db.pool)
                .await
                .map_err(|e| format!("{shown}: cannot copy the database ({e})"))?;
            crate::health::note_backup(&db, out).await?;
            db.pool.close().await;
            "sqlite"
        }
        None => {
            let url = named.as_deref().unwrap_or_default();
            let db = Db::connect(url).await?;
            if db.backend != Backend::Postgres {
                return Err(format!(
                    "database `{}`: give the course's Postgres URL, or none for its SQLite file",
                    shown_url(url)
                ));
            }
            let dump = out.join(PG_DUMP);
            run(
                "pg_dump",
                &[
                    "--format=custom",
                    "--no-owner",
                    "--file",
                    &dump.display().to_string(),
                    "--dbname",
                    url,
                ],
                url,
            )?;
            crate::health::note_backup(&db, out).await?;
            db.pool.close().await;
            "postgres"
        }
    };
    // Earlier backups kept in the folder (before an upgrade) are not backed up again.
    copy_tree(dir, out, &|rel| !is_database_file(rel) && !rel.starts_with("backups/"))?;
    let files = sums(out)?;
    let bytes = files
        .keys()
        .map(|p| std::fs::metadata(out.join(p)).map_or(0, |m| m.len()))
        .sum();
    let manifest = Manifest {
        arena: env!("CARGO_PKG_VERSION").into(),
        taken_at: crate::course::stamp(crate::course::now()),
        database: kind.into(),
        files,
    };
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
    write_private(&out.join(MANIFEST), text.as_bytes())?;
    Ok(Copied {
        files: manifest.files.len(),
        bytes,
        database: manifest.database,
    })
}

/// Restore the backup in `from` into the new course folder `dir` (a
/// Postgres course into the empty database `database`), after checking
/// every file against the manifest; nothing is written if one differs.
pub async fn restore(from: &Path, dir: &Path, database: Option<&str>) -> Result<Copied, String> {
    let manifest = check(from)?;
    match (manifest.database.as_str(), database) {
        ("postgres", None) => {
            return Err(format!(
                "{}: a Postgres course's backup; give --database URL of an empty database to restore it into",
                from.display()
            ));
        }
        ("sqlite", Some(_)) => {
            return Err(format!(
                "{}: an SQLite course's backup, restored as a folder with its database file; leave out --database",
                from.display()
            ));
        }
        _ => {}
    }
    new_private_dir(dir)?;
    let skip = |rel: &str| rel == MANIFEST || rel == PG_DUMP;
    copy_tree(from, dir, &|rel| !skip(rel))?;
    if let Some(url) = database {
        let dump = from.join(PG_DUMP);
        run(
            "pg_restore",
            &[
                "--no-owner",
                "--exit-on-error",
                "--dbname",
                url,
                &dump.display().to_string(),
            ],
            url,
        )?;
    }
    // The copy is checked as the backup was: what was restored is what was backed up.
    for (rel, sum) in manifest.files.iter().filter(|(rel, _)| !skip(rel)) {
        if sha256_of(&dir.join(rel))? != *sum {
            return Err(format!(
                "{}: the restored copy differs from the backup; the disk may be failing",
                dir.join(rel).display()
            ));
        }
    }
    // The restored folder names the database it now lives in, not the one
    // backed up: the Postgres one given, or its own course.db.
    crate::course::name_database(dir, database)?;
    Course::open(dir)?.keep_private()?;
    let bytes = manifest
        .files
        .keys()
        .map(|p| std::fs::metadata(from.join(p)).map_or(0, |m| m.len()))
        .sum();
    Ok(Copied {
        files: manifest.files.len(),
        bytes,
        database: manifest.database,
    })
}

/// The manifest of the backup in `from`, every file of it checked.
pub fn check(from: &Path) -> Result<Manifest, String> {
    let path = from.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "{}: cannot read it ({e}); give a folder `arena course backup` wrote",
            path.display()
        )
    })?;
    let manifest: Manifest = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}: not a backup's manifest ({e}); the backup was changed or cut short",
            path.display()
        )
    })?;
    if !manifest.files.contains_key(COURSE_FILE) {
        return Err(format!(
            "{}: lists no {COURSE_FILE}; the backup is incomplete",
            path.display()
        ));
    }
    for (rel, sum) in &manifest.files {
        if !safe_relative(rel) {
            return Err(format!(
                "{}: names `{rel}`, outside the backup; the manifest was edited",
                path.display()
            ));
        }
        let file = from.join(rel);
        let got = sha256_of(&file).map_err(|e| format!("{e}; the backup is incomplete: take another"))?;
        if got != *sum {
            return Err(format!(
                "{}: its SHA-256 is not the manifest's; the backup was changed or damaged: restore another",
                file.display()
            ));
        }
    }
    Ok(manifest)
}

/// A path the manifest may name: relative, plain parts, no `..`.
fn safe_relative(rel: &str) -> bool {
    !rel.is_empty()
        && Path::new(rel)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// `url` without the password of its user part, and that password
/// (decoded), for `PGPASSWORD`.
fn without_password(url: &str) -> (String, Option<String>) {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let password = u
                .password()
                .map(|p| percent_encoding::percent_decode_str(p).decode_utf8_lossy().into_owned());
            let _ = u.set_password(None);
            (u.to_string(), password)
        }
        _ => (url.to_string(), None),
    }
}

/// A file of the database (or the secret naming it), never copied with the
/// folder: the database goes in as a snapshot, and a backup, which may leave
/// the machine, holds no password (a restore names its own database).
fn is_database_file(rel: &str) -> bool {
    if rel == crate::course::DATABASE_URL_FILE {
        return true;
    }
    rel == DATABASE_FILE || rel.starts_with(&format!("{DATABASE_FILE}-"))
}

/// Make `dir`, which must not exist or be empty, private to this user.
fn new_private_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    if dir.read_dir().is_ok_and(|mut d| d.next().is_some()) {
        return Err(format!(
            "{}: already exists and is not empty; give a new folder",
            dir.display()
        ));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot make it ({e})", dir.display()))?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| format!("{}: cannot make it private ({e})", dir.display()))
}

/// Copy the files under `from` that `take` takes (by relative path) into
/// `to`, each private to this user and synced, folders 0700.
fn copy_tree(from: &Path, to: &Path, take: &dyn Fn(&str) -> bool) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    for (rel, path) in walk(from)? {
        if !take(&rel) {
            continue;
        }
        let target = to.join(&rel);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: cannot make it ({e})", parent.display()))?;
            let _ = std::fs::set_permissions(parent, std::fs::Permissions::from_mode(0o700));
        }
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            // Gone since the folder was listed (a running server's
            // temporary file): nothing the snapshot needs.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("{}: cannot read it ({e})", path.display())),
        };
        write_private(&target, &bytes)?;
    }
    Ok(())
}

/// Write `bytes` to `path`, mode 0600, synced.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let failed = |e: std::io::Error| format!("{}: cannot write it ({e}); is the disk full?", path.display());
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .map_err(failed)?;
    f.write_all(bytes).and_then(|()| f.sync_all()).map_err(failed)
}

/// Every file under `root`, by its path relative to it (with `/`), in order.
fn walk(root: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let mut out = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: cannot read it ({e})", dir.display()))?;
        for e in entries {
            let e = e.map_err(|e| format!("{}: cannot read it ({e})", dir.display()))?;
            let kind = e.file_type().map_err(|err| format!("{}: {err}", e.path().display()))?;
            let path = e.path();
            if kind.is_dir() {
                todo.push(path);
            } else if kind.is_file() {
                let rel = path
                    .strip_prefix(root)
                    .map_err(|e| e.to_string())?
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push((rel, path));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Every file under `root`: its SHA-256.
fn sums(root: &Path) -> Result<BTreeMap<String, String>, String> {
    walk(root)?
        .into_iter()
        .map(|(rel, path)| Ok((rel, sha256_of(&path)?)))
        .collect()
}

fn sha256_of(path: &Path) -> Result<String, String> {
    let mut f = std::fs::File::open(path).map_err(|e| format!("{}: cannot read it ({e})", path.display()))?;
    let mut h = Sha256::new();
    std::io::copy(&mut f, &mut h).map_err(|e| format!("{}: cannot read it ({e})", path.display()))?;
    Ok(hex(&h.finalize()))
}

/// Run PostgreSQL's `program` with `args`; its first line of complaint when it fails.
fn run(program: &str, args: &[&str], url: &str) -> Result<(), String> {
    // The password goes in the child's environment, not its arguments,
    // which any local user reads in `ps` while a nightly backup runs.
    let (bare, password) = without_password(url);
    let args: Vec<&str> = args
        .iter()
        .map(|a| if *a == url { bare.as_str() } else { *a })
        .collect();
    let mut command = std::process::Command::new(program);
    command.args(&args);
    if let Some(p) = password {
        command.env("PGPASSWORD", p);
    }
    let out = command.output().map_err(|e| {
        format!("{program}: cannot run it ({e}); install PostgreSQL's client programs (Debian: postgresql-client)")
    })?;
    if out.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let first = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("it failed").trim();
    Err(format!("{program} of `{}`: {first}", shown_url(url)))
}
