//! `arena course init` and `arena course roster`: a course folder made
//! from a class list, and the class list changed later.

use crate::course::{
    COURSE_FILE, Course, CourseConfig, FILES_DIR, LimitChanges, RUBRIC_FILE, TEACHER_FILE, TOKENS_FILE,
};
use crate::db::{Db, new_token};
use crate::roster::{self, Student};
use arena_runner::text::csv_field;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What `arena course init` is given.
pub struct InitSpec<'a> {
    /// The folder to make.
    pub dir: &'a Path,
    /// The game.
    pub game: &'a str,
    /// The class list.
    pub roster: &'a Path,
    /// The rubric (the game's default when `None`).
    pub rubric: Option<&'a Path>,
    /// The deadline, RFC 3339.
    pub deadline: Option<String>,
    /// Days late still accepted.
    pub late_days: u32,
    /// The server's address as students reach it.
    pub url: String,
    /// The database (an SQLite file in the folder when `None`).
    pub database: Option<String>,
    /// The course's name (the folder's when `None`).
    pub name: Option<String>,
}

/// What `arena course init` made.
pub struct Made {
    /// Students on the roster.
    pub students: usize,
    /// Those of them with an email address (a Canvas gradebook export has none).
    pub with_email: usize,
    /// The file of their tokens and links.
    pub tokens: PathBuf,
    /// The teacher's login link.
    pub teacher_link: String,
}

/// Make the course folder, its database and the students' secrets.
pub async fn init(spec: &InitSpec<'_>) -> Result<Made, String> {
    let game = arena_runner::runner::entrants::find_game(spec.game).map_err(|e| e.to_string())?;
    let students = roster::read(spec.roster)?;
    let rubric_text = match spec.rubric {
        Some(p) => std::fs::read_to_string(p).map_err(|e| format!("{}: cannot read it ({e})", p.display()))?,
        None => game.default_rubric().to_string(),
    };
    let rubric_name = spec
        .rubric
        .map_or("the default rubric".to_string(), |p| p.display().to_string());
    arena_grading::grade::rubric::parse(&rubric_text, &rubric_name, game)?;
    let dir = spec.dir;
    if dir.exists() && std::fs::read_dir(dir).map(|mut d| d.next().is_some()).unwrap_or(true) {
        return Err(format!(
            "{}: already exists and is not empty; give a new folder (a course is never made over another)",
            dir.display()
        ));
    }
    let config = CourseConfig {
        name: spec.name.clone().unwrap_or_else(|| {
            dir.file_name()
                .map_or("course".into(), |n| n.to_string_lossy().into_owned())
        }),
        game: game.name().to_string(),
        worlds: Vec::new(),
        rubric: RUBRIC_FILE.into(),
        deadline: spec.deadline.clone(),
        late_days: spec.late_days,
        url: spec.url.trim_end_matches('/').to_string(),
        uploads_per_hour: 30,
        limits: LimitChanges::default(),
        ladder: crate::course::LadderConfig::default(),
        rates: crate::course::RateConfig::default(),
        // The folder names its database, so `arena serve DIR` as printed serves it.
        database: spec.database.as_deref().map(|url| crate::course::database_entry(url).0),
    };
    config.deadline()?;
    {
        use std::os::unix::fs::DirBuilderExt;
        // Private from the start: the course holds sessions, tokens and every student's bots.
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir.join(FILES_DIR))
            .map_err(|e| format!("{}: cannot create it ({e})", dir.display()))?;
    }
    let toml = toml::to_string(&config).map_err(|e| e.to_string())?;
    write(
        &dir.join(COURSE_FILE),
        &format!(
            "# The course, as `arena course init` made it. Edit it, then restart `arena serve`.\n\
             # worlds: the world versions a bot may target (none listed: all); limits: changes to\n\
             # the game's default limits (`arena games`): fuel, bank, memory, max_file_bytes.\n{toml}"
        ),
        false,
    )?;
    write(&dir.join(RUBRIC_FILE), &rubric_text, false)?;
    if let Some(url) = &spec.database
        && crate::course::database_entry(url).1
    {
        write(&dir.join(crate::course::DATABASE_URL_FILE), &format!("{url}\n"), true)?;
    }
    let course = Course::open(dir)?;
    course.keep_private()?;
    let db = Db::open(&spec.database.clone().unwrap_or_else(|| course.sqlite_url())).await?;
    course.keep_private()?;
    let teacher = new_token()?;
    db.add_person("teacher", "Teacher", "", true, &teacher, None).await?;
    let teacher_link = format!("{}/login/{teacher}", config.url);
    write(&dir.join(TEACHER_FILE), &format!("{teacher_link}\n"), true)?;
    // The LTI key pair, so the course can be registered in an LMS at once.
    crate::lti::keys::ToolKeys::load_or_make(dir)?;
    let rows = add_students(&course, &db, &students).await?;
    let tokens = dir.join(TOKENS_FILE);
    write(&tokens, &format!("id,name,email,token,link\n{rows}"), true)?;
    Ok(Made {
        students: students.len(),
        with_email: students.iter().filter(|s| !s.email.trim().is_empty()).count(),
        tokens,
        teacher_link,
    })
}

/// Add `students` with new secrets; their rows of `tokens.csv`.
async fn add_students(course: &Course, db: &Db, students: &[Student]) -> Result<String, String> {
    let mut rows = String::new();
    for s in students {
        let token = new_token()?;
        db.add_person(&s.id, &s.name, &s.email, false, &token, s.canvas_id.as_deref())
            .await?;
        rows.push_str(&format!(
            "{},{},{},{token},{}/login/{token}\n",
            csv_field(&s.id),
            csv_field(&s.name),
            csv_field(&s.email),
            course.config.url
        ));
    }
    Ok(rows)
}

/// A change to a course's roster.
pub enum RosterChange<'a> {
    /// Add the students of a class list who are not on the roster yet.
    Add(&'a Path),
    /// Take a student off (by id): they can no longer log in.
    Remove(&'a str),
    /// Give a student a new secret (the old link stops working).
    Reissue(&'a str),
}

/// Change the roster of the course in `dir`; the lines to print.
pub async fn roster(dir: &Path, database: Option<String>, change: RosterChange<'_>) -> Result<Vec<String>, String> {
    let course = Course::open(dir)?;
    let db = Db::open(&course.database_url(database.as_deref())?).await?;
    let tokens = dir.join(TOKENS_FILE);
    match change {
        RosterChange::Add(path) => {
            let known: Vec<String> = db.students().await?.into_iter().map(|p| p.school_id).collect();
            let new: Vec<Student> = roster::read(path)?
                .into_iter()
                .filter(|s| !known.contains(&s.id))
                .collect();
            let rows = add_students(&course, &db, &new).await?;
            append(&tokens, &rows)?;
            Ok(vec![format!(
                "added {} students; their links are at the end of {}",
                new.len(),
                tokens.display()
            )])
        }
        RosterChange::Remove(id) => match db.remove(id).await? {
            true => Ok(vec![format!(
                "{id} is off the roster: their link no longer works (their versions are kept)"
            )]),
            false => Err(format!("no student `{id}` on the roster of {}", dir.display())),
        },
        RosterChange::Reissue(id) => {
            let token = new_token()?;
            if !db.reissue(id, &token).await? {
                return Err(format!("no student `{id}` on the roster of {}", dir.display()));
            }
            let link = format!("{}/login/{token}", course.config.url);
            append(&tokens, &format!("{},,,{token},{link}\n", csv_field(id)))?;
            Ok(vec![format!("{id}'s new link (the old one no longer works): {link}")])
        }
    }
}

/// Write a file; a secret one readable by its owner only.
fn write(path: &Path, text: &str, secret: bool) -> Result<(), String> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if secret {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let _ = secret;
    let mut f = options
        .open(path)
        .map_err(|e| format!("{}: cannot write it ({e})", path.display()))?;
    f.write_all(text.as_bytes())
        .map_err(|e| format!("{}: cannot write it ({e})", path.display()))
}

fn append(path: &Path, text: &str) -> Result<(), String> {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(|e| format!("{}: cannot write it ({e})", path.display()))?;
    f.write_all(text.as_bytes())
        .map_err(|e| format!("{}: cannot write it ({e})", path.display()))
}

/// What `arena course worker-token` does.
pub enum WorkerTokens<'a> {
    /// A new worker token, named for the teacher.
    New(&'a str),
    /// Revoke a worker by id: its calls are refused from then on.
    Revoke(i64),
    /// List the workers.
    List,
}

/// Make, revoke or list the worker tokens of the course in `dir`; the lines to print.
pub async fn worker_tokens(
    dir: &Path,
    database: Option<String>,
    what: WorkerTokens<'_>,
) -> Result<Vec<String>, String> {
    use sqlx::Row;
    let course = Course::open(dir)?;
    let db = Db::open(&course.database_url(database.as_deref())?).await?;
    let at = crate::course::stamp(crate::course::now());
    match what {
        WorkerTokens::New(name) => {
            let token = new_token()?;
            let row =
                sqlx::query("INSERT INTO workers (name, token_hash, created_at) VALUES ($1, $2, $3) RETURNING id")
                    .bind(name)
                    .bind(crate::db::token_hash(&token))
                    .bind(&at)
                    .fetch_one(&db.pool)
                    .await
                    .map_err(|e| e.to_string())?;
            let id: i64 = row.try_get(0).unwrap_or_default();
            Ok(vec![
                token.clone(),
                format!(
                    "worker {id} ({name}): run `arena worker --server {} --token {token}` on the machine that plays; \
                     revoke it with `arena course worker-token {} --revoke {id}`",
                    course.config.url,
                    dir.display()
                ),
            ])
        }
        WorkerTokens::Revoke(id) => {
            let done =
                sqlx::query("UPDATE workers SET disabled_at = $1, reason = 'revoked by the teacher' WHERE id = $2")
                    .bind(&at)
                    .bind(id)
                    .execute(&db.pool)
                    .await
                    .map_err(|e| e.to_string())?;
            if done.rows_affected() != 1 {
                return Err(format!("no worker {id} in {}; `--list` shows them", dir.display()));
            }
            Ok(vec![format!(
                "worker {id} is revoked: its calls are refused from now on"
            )])
        }
        WorkerTokens::List => {
            let rows = sqlx::query(
                "SELECT id, name, created_at, last_seen, engine, matches, disabled_at, reason FROM workers ORDER BY id",
            )
            .fetch_all(&db.pool)
            .await
            .map_err(|e| e.to_string())?;
            if rows.is_empty() {
                return Ok(vec!["no workers yet: `--name NAME` makes a token".into()]);
            }
            Ok(rows
                .iter()
                .map(|r| {
                    let opt = |i: usize| r.try_get::<Option<String>, _>(i).ok().flatten();
                    let state = match (opt(6), opt(7)) {
                        (Some(_), Some(why)) => format!("disabled: {why}"),
                        (Some(_), None) => "disabled".into(),
                        _ => "active".into(),
                    };
                    format!(
                        "worker {} ({}): {} matches, last seen {}, {}, {state}",
                        r.try_get::<i64, _>(0).unwrap_or_default(),
                        r.try_get::<String, _>(1).unwrap_or_default(),
                        r.try_get::<i64, _>(5).unwrap_or_default(),
                        opt(3).unwrap_or_else(|| "never".into()),
                        opt(4).unwrap_or_else(|| "no hello yet".into()),
                    )
                })
                .collect())
        }
    }
}
