//! `arena course`, `arena serve` and `arena submit`: the course server's
//! commands, each a call into `arena_server` plus printing.

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// `arena course ...`.
#[derive(Debug, Subcommand)]
pub enum CourseCommand {
    /// Make a course folder from a class list: course.toml, the rubric, the database, and
    /// tokens.csv with each student's secret login link for you to mail.
    Init(InitArgs),
    /// Change the roster: add students from a class list, take one off, or give one a new link.
    Roster(RosterArgs),
    /// Print a new token for an external worker (`arena worker`), or revoke or list them.
    WorkerToken(WorkerTokenArgs),
    /// Back the course up into a new folder while the server runs: the database as one snapshot
    /// (SQLite's VACUUM INTO, or pg_dump), every file of the course folder, and a manifest of
    /// their SHA-256s.
    Backup(BackupArgs),
    /// Restore a backup into a new course folder, after checking every file against its
    /// manifest (nothing is written if one differs); then `arena serve` the folder.
    Restore(RestoreArgs),
    /// LTI 1.3: print the URLs to give the LMS, register a platform (the values the LMS shows), or
    /// rotate the tool's key.
    Lti(LtiArgs),
}

/// Arguments of `arena course lti`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("platform").multiple(true).requires("add_platform")
    .args(["issuer", "client_id", "deployment_id", "auth_url", "token_url", "jwks_url", "audience"])))]
pub struct LtiArgs {
    /// The course folder.
    pub dir: PathBuf,
    /// Register the platform these flags describe (or add a deployment to it).
    #[arg(long, requires_all = ["issuer", "client_id", "deployment_id", "auth_url", "token_url", "jwks_url"], conflicts_with = "rotate_key")]
    pub add_platform: bool,
    /// The platform's issuer, e.g. https://canvas.instructure.com.
    #[arg(long)]
    pub issuer: Option<String>,
    /// The client id the LMS gave the tool.
    #[arg(long)]
    pub client_id: Option<String>,
    /// A deployment id the LMS gave the tool (repeat for several).
    #[arg(long)]
    pub deployment_id: Vec<String>,
    /// The platform's authorisation (OIDC auth) URL.
    #[arg(long, value_name = "URL")]
    pub auth_url: Option<String>,
    /// The platform's access token URL.
    #[arg(long, value_name = "URL")]
    pub token_url: Option<String>,
    /// The platform's public keyset (JWKS) URL.
    #[arg(long, value_name = "URL")]
    pub jwks_url: Option<String>,
    /// The audience of the tool's token requests, when the LMS names one other than the token URL.
    #[arg(long)]
    pub audience: Option<String>,
    /// Retire the tool's key (published a week more) and sign with a new one.
    #[arg(long)]
    pub rotate_key: bool,
    /// Print a URL to paste into the LMS (LTI Dynamic Registration): the LMS registers the course
    /// itself. It works once, for a day.
    #[arg(long, conflicts_with_all = ["add_platform", "rotate_key"])]
    pub registration_url: bool,
    /// The database, when it is not the folder's SQLite file.
    #[arg(long, value_name = "URL")]
    pub database: Option<String>,
}

/// Arguments of `arena course backup`.
#[derive(Debug, Args)]
pub struct BackupArgs {
    /// The course folder.
    pub dir: PathBuf,
    /// The backup's folder (new, or empty).
    pub out: PathBuf,
    /// The course's Postgres database, when it is not the folder's SQLite file.
    #[arg(long, value_name = "URL")]
    pub database: Option<String>,
}

/// Arguments of `arena course restore`.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The backup's folder (`arena course backup` wrote it).
    pub backup: PathBuf,
    /// The course folder to make (new, or empty).
    pub dir: PathBuf,
    /// An empty Postgres database to restore a Postgres course's database into.
    #[arg(long, value_name = "URL")]
    pub database: Option<String>,
}

/// Arguments of `arena course worker-token`.
#[derive(Debug, Args)]
pub struct WorkerTokenArgs {
    /// The course folder.
    pub dir: PathBuf,
    /// A name for the machine, shown in `--list`.
    #[arg(long, default_value = "worker")]
    pub name: String,
    /// Revoke the worker with this id instead (its calls are refused from then on).
    #[arg(long, value_name = "ID", conflicts_with = "list")]
    pub revoke: Option<i64>,
    /// List the workers, their matches and whether they are disabled.
    #[arg(long)]
    pub list: bool,
    /// The database, when it is not the folder's SQLite file.
    #[arg(long, value_name = "URL")]
    pub database: Option<String>,
}

/// Arguments of `arena worker`.
#[derive(Debug, Args)]
pub struct WorkerArgs {
    /// The course server, e.g. https://bots.cs.example.edu.
    #[arg(long)]
    pub server: String,
    /// The worker token (`arena course worker-token` prints one).
    #[arg(long, allow_hyphen_values = true)]
    pub token: String,
    /// Threads to play on [default: all cores].
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Where bot files and compiled bots are kept [default: the user's cache folder].
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Stop after this many matches [default: never].
    #[arg(long, value_name = "N")]
    pub matches: Option<usize>,
}

/// Arguments of `arena course init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The folder to make (it must not exist, or be empty).
    pub dir: PathBuf,
    /// The game (see `arena games`).
    #[arg(long)]
    pub game: String,
    /// The class list: a CSV exported from Canvas, Moodle or Blackboard, or name,email,id.
    #[arg(long, value_name = "CSV")]
    pub roster: PathBuf,
    /// The rubric [default: the game's, written to DIR/rubric.toml to edit].
    #[arg(long, value_name = "TOML")]
    pub rubric: Option<PathBuf>,
    /// The deadline, e.g. 2026-12-15T23:59:00Z (RFC 3339, with its time zone).
    #[arg(long)]
    pub deadline: Option<String>,
    /// Days after the deadline a version is still taken, marked late.
    #[arg(long, default_value_t = 0)]
    pub late_days: u32,
    /// The address students reach the server at, for their login links.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    pub url: String,
    /// The database [default: DIR/course.db, SQLite]; or postgres://USER@HOST/DB.
    #[arg(long, value_name = "URL")]
    pub database: Option<String>,
    /// The course's name on every page [default: the folder's name].
    #[arg(long)]
    pub name: Option<String>,
}

/// Arguments of `arena course roster`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("change").required(true).args(["add", "remove", "reissue"])))]
pub struct RosterArgs {
    /// The course folder.
    pub dir: PathBuf,
    /// Add the students of this class list who are not on the roster yet.
    #[arg(long, value_name = "CSV")]
    pub add: Option<PathBuf>,
    /// Take the student with this id off the roster (their link stops working).
    #[arg(long, value_name = "ID")]
    pub remove: Option<String>,
    /// Give the student with this id a new login link (the old one stops working).
    #[arg(long, value_name = "ID")]
    pub reissue: Option<String>,
    /// The database, when it is not the folder's SQLite file.
    #[arg(long, value_name = "URL")]
    pub database: Option<String>,
}

/// Arguments of `arena serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The course folder (made by `arena course init`).
    pub dir: PathBuf,
    /// The address to listen on (give --tls-cert and --tls-key, or put a TLS proxy in front, for
    /// students to reach it; see docs/server.md).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// The database, when it is not the folder's SQLite file.
    #[arg(long, value_name = "URL")]
    pub database: Option<String>,
    /// Grading threads of the server's own [default: half the cores, at least one: one on two
    /// cores]. Each grades the next waiting upload first, else checks an external worker's result,
    /// else plays ladder matches, giving way between two matches when an upload comes; pages stay
    /// fast meanwhile. Beside them an upload lane grades students' new uploads only, so a long
    /// grading (bounded by the rubric's grading_minutes) never holds one back. 0: nothing is graded here: uploads and ladder matches wait for external
    /// workers (`arena worker`), the teacher's and the students' pages say so while none is
    /// connected, and the server only checks a sample of the workers' results.
    #[arg(long)]
    pub workers: Option<usize>,
    /// Connections served at once; past it a few more are told the server is full and the rest
    /// are closed (kept below the process's descriptor limit, which is raised to its hard limit).
    #[arg(long, default_value_t = 1024, value_name = "N")]
    pub max_connections: usize,
    /// Serve https with this certificate chain (PEM, e.g. Let's Encrypt's fullchain.pem), read
    /// again when it changes, so a renewed certificate needs no restart.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM, e.g. privkey.pem).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Print a systemd unit that serves this course with these arguments (readiness, watchdog,
    /// restart on failure), then stop; see docs/server.md, "A service".
    #[arg(long)]
    pub print_systemd_unit: bool,
}

/// Arguments of `arena submit`.
#[derive(Debug, Args)]
pub struct SubmitArgs {
    /// The course server, e.g. https://bots.cs.example.edu.
    #[arg(long)]
    pub server: String,
    /// Your token (in the email with your login link).
    // A token is URL-safe base64 and may begin with `-`: a value, not a flag.
    #[arg(long, allow_hyphen_values = true)]
    pub token: String,
    /// The bot file.
    pub bot: PathBuf,
    /// Print the verdict as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Seconds to wait for the verdict; past them the version is still received and graded
    /// later (exit status 3).
    #[arg(long, default_value_t = 900)]
    pub wait: u64,
}

/// Keep glibc's allocator to two arenas in the server, a process that runs
/// for weeks: by default it makes up to eight per core, one for each thread
/// that meets a busy one, and what each arena keeps freed but unreturned
/// grew the server's memory all semester (the semester benchmark, week 5 to
/// week 14: 303 -> 331 MB by default; with two, level at 244-248 MB from
/// week 8; docs/performance.md). `MALLOC_ARENA_MAX`, if set, still decides.
/// Called before any thread starts, so no other arena exists yet.
fn few_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: mallopt only sets a parameter of the allocator; no thread
        // but this one runs yet.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 2);
        }
    }
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the server's threads")
}

/// Run `arena course ...`.
pub fn run_course(command: CourseCommand) -> anyhow::Result<()> {
    let rt = runtime()?;
    match command {
        CourseCommand::Init(a) => {
            let spec = arena_server::init::InitSpec {
                dir: &a.dir,
                game: &a.game,
                roster: &a.roster,
                rubric: a.rubric.as_deref(),
                deadline: a.deadline.clone(),
                late_days: a.late_days,
                url: a.url.clone(),
                database: a.database.clone(),
                name: a.name.clone(),
            };
            let made = rt
                .block_on(arena_server::init::init(&spec))
                .map_err(anyhow::Error::msg)?;
            println!(
                "Made the course in {} with {} student{}.",
                a.dir.display(),
                made.students,
                if made.students == 1 { "" } else { "s" }
            );
            // Only a roster with emails can be mailed from: a Canvas
            // gradebook export has none, so say what to do instead.
            if made.with_email == 0 {
                println!(
                    "Give each student their link: {} (columns id,name,email,token,link; keep it secret); \
                     the roster has no email addresses, so send each link by your LMS's messages (or add an email column and mail them).",
                    made.tokens.display()
                );
            } else {
                println!(
                    "Mail each student their link: {} (columns id,name,email,token,link; keep it secret).",
                    made.tokens.display()
                );
                if made.with_email < made.students {
                    println!(
                        "{} of the {} students have no email address in the roster: give them their link another way.",
                        made.students - made.with_email,
                        made.students
                    );
                }
            }
            println!("Your own link (the teacher's): {}", made.teacher_link);
            println!("Start the server: arena serve {}", a.dir.display());
        }
        CourseCommand::Roster(a) => {
            use arena_server::init::RosterChange;
            let change = match (&a.add, &a.remove, &a.reissue) {
                (Some(csv), _, _) => RosterChange::Add(csv),
                (_, Some(id), _) => RosterChange::Remove(id),
                (_, _, Some(id)) => RosterChange::Reissue(id),
                _ => bail!("give --add CSV, --remove ID or --reissue ID"),
            };
            let lines = rt
                .block_on(arena_server::init::roster(&a.dir, a.database.clone(), change))
                .map_err(anyhow::Error::msg)?;
            for line in lines {
                println!("{line}");
            }
        }
        CourseCommand::WorkerToken(a) => {
            use arena_server::init::WorkerTokens;
            let what = match (a.revoke, a.list) {
                (Some(id), _) => WorkerTokens::Revoke(id),
                (None, true) => WorkerTokens::List,
                (None, false) => WorkerTokens::New(&a.name),
            };
            let new = matches!(what, WorkerTokens::New(_));
            let lines = rt
                .block_on(arena_server::init::worker_tokens(&a.dir, a.database.clone(), what))
                .map_err(anyhow::Error::msg)?;
            for (i, line) in lines.iter().enumerate() {
                // The token alone on stdout, for scripts; how to use it on stderr.
                if new && i > 0 {
                    eprintln!("{line}");
                } else {
                    println!("{line}");
                }
            }
        }
        CourseCommand::Backup(a) => run_backup(&rt, &a)?,
        CourseCommand::Restore(a) => run_restore(&rt, &a)?,
        CourseCommand::Lti(a) => {
            use arena_server::lti::{Command, platforms::NewPlatform};
            let what = if a.add_platform {
                Command::AddPlatform(NewPlatform {
                    issuer: a.issuer.clone().unwrap_or_default(),
                    client_id: a.client_id.clone().unwrap_or_default(),
                    deployments: a.deployment_id.clone(),
                    auth_url: a.auth_url.clone().unwrap_or_default(),
                    token_url: a.token_url.clone().unwrap_or_default(),
                    jwks_url: a.jwks_url.clone().unwrap_or_default(),
                    audience: a.audience.clone(),
                })
            } else if a.rotate_key {
                Command::RotateKey
            } else if a.registration_url {
                Command::RegistrationUrl
            } else {
                Command::Show
            };
            let lines = rt
                .block_on(arena_server::lti::command(&a.dir, a.database.clone(), what))
                .map_err(anyhow::Error::msg)?;
            for line in lines {
                println!("{line}");
            }
        }
    }
    Ok(())
}

/// Run `arena course backup`: the library call, then one line of what it wrote.
fn run_backup(rt: &tokio::runtime::Runtime, a: &BackupArgs) -> anyhow::Result<()> {
    let done = rt
        .block_on(arena_server::backup::backup(&a.dir, &a.out, a.database.as_deref()))
        .map_err(anyhow::Error::msg)?;
    println!(
        "{}: backed up {} ({} database, {} files, {:.1} MB, each SHA-256 in {})",
        a.out.display(),
        a.dir.display(),
        done.database,
        done.files,
        done.bytes as f64 / 1e6,
        arena_server::backup::MANIFEST
    );
    Ok(())
}

/// Run `arena course restore`: the library call, then how to serve what it made.
fn run_restore(rt: &tokio::runtime::Runtime, a: &RestoreArgs) -> anyhow::Result<()> {
    let done = rt
        .block_on(arena_server::backup::restore(&a.backup, &a.dir, a.database.as_deref()))
        .map_err(anyhow::Error::msg)?;
    // The restored folder names its database (course.toml), so the command needs no --database.
    let serve = format!("arena serve {}", a.dir.display());
    println!(
        "{}: restored from {} ({} database, {} files checked against the manifest); serve it with: {serve}",
        a.dir.display(),
        a.backup.display(),
        done.database,
        done.files
    );
    Ok(())
}

/// Run `arena worker` until stopped: 2 when the server refuses it, with one line.
pub fn run_worker(a: WorkerArgs) -> anyhow::Result<ExitCode> {
    let compiler = std::env::current_exe().context("cannot find the arena executable to compile bots with")?;
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let cache = a
        .cache
        .or_else(|| env("ARENA_CACHE_DIR").map(|d| d.join("worker")))
        .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("arena").join("worker")))
        .or_else(|| env("HOME").map(|d| d.join(".cache").join("arena").join("worker")))
        .context("no cache folder: give --cache DIR")?;
    let say = |line: &str| eprintln!("{line}");
    let spec = arena_server::client::worker::WorkerSpec {
        server: a.server.clone(),
        token: a.token.clone(),
        jobs: a
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        cache,
        compiler: Some(compiler),
        max_matches: a.matches,
        say: &say,
    };
    match arena_server::client::worker::run(&spec) {
        Ok(n) => {
            eprintln!("{n} matches played; stopping as asked");
            Ok(ExitCode::SUCCESS)
        }
        Err(arena_server::client::worker::Stop::Refused(why)) => {
            eprintln!("arena worker: {}: {why}", a.server);
            Ok(ExitCode::from(2))
        }
        Err(arena_server::client::worker::Stop::Failed(why)) => bail!("{why}"),
    }
}

/// Run `arena serve` until Ctrl-C.
pub fn run_serve(a: ServeArgs) -> anyhow::Result<()> {
    few_malloc_arenas();
    let rt = runtime()?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let compiler = std::env::current_exe().context("cannot find the arena executable to compile bots with")?;
    if a.print_systemd_unit {
        let dir =
            std::path::absolute(&a.dir).with_context(|| format!("{}: cannot name the folder", a.dir.display()))?;
        let mut listen = a.listen.to_string();
        if let (Some(cert), Some(key)) = (&a.tls_cert, &a.tls_key) {
            listen.push_str(&format!(
                " --tls-cert {} --tls-key {}",
                std::path::absolute(cert)?.display(),
                std::path::absolute(key)?.display()
            ));
        }
        let user = std::env::var("USER").unwrap_or_else(|_| "arena".into());
        print!("{}", arena_server::systemd::unit(&compiler, &dir, &listen, &user));
        return Ok(());
    }
    let dir = a.dir.display().to_string();
    let scheme = if a.tls_cert.is_some() { "https" } else { "http" };
    let ready = move |addr: SocketAddr| {
        eprintln!("serving {dir} at {scheme}://{addr} (Ctrl-C stops it)");
    };
    let spec = arena_server::serve::ServeSpec {
        dir: &a.dir,
        listen: a.listen,
        database: a.database.clone(),
        workers: a.workers.unwrap_or((cores / 2).max(1)),
        compiler: Some(compiler),
        max_connections: a.max_connections,
        tls: a.tls_cert.clone().zip(a.tls_key.clone()),
        ready: &ready,
    };
    rt.block_on(arena_server::serve::serve(spec))
        .map_err(anyhow::Error::msg)
}

/// Run `arena submit`: 0 accepted, 1 rejected, 2 anything else (one line).
pub fn run_submit(a: SubmitArgs) -> anyhow::Result<ExitCode> {
    use arena_server::client::{Client, Failure};
    let bytes = std::fs::read(&a.bot).with_context(|| format!("{}: cannot read it", a.bot.display()))?;
    let client = Client::new(&a.server, &a.token);
    let server = client.server();
    let name = a
        .bot
        .file_name()
        .map_or("bot.wasm".into(), |n| n.to_string_lossy().into_owned());
    // Ask first: a bad token or a file over the limit is said before megabytes are sent.
    let info = client.course().map_err(|f| match f {
        Failure::Refused { why, .. } => anyhow::anyhow!("{server}: {why}"),
        other => anyhow::anyhow!("{other}"),
    })?;
    if !info.open {
        bail!(
            "{server}: the course is closed: {}; no more versions are taken (ask your teacher)",
            match (&info.deadline, info.late_days) {
                (Some(d), 0) => format!("its deadline, {d}, is over"),
                (Some(d), n) => format!(
                    "its deadline, {d}, and its {n} late day{} are over",
                    if n == 1 { "" } else { "s" }
                ),
                (None, _) => "the teacher closed it".to_string(),
            }
        );
    }
    if bytes.len() as u64 > info.max_file_bytes {
        bail!(
            "{}: the file is larger than {} bytes, the most a bot may be in this course; build it in release mode (see `arena new`)",
            a.bot.display(),
            info.max_file_bytes
        );
    }
    // Said before the upload, as the page says it: a late version is marked late.
    let late = info.late_days_now();
    if late > 0 {
        eprintln!(
            "the deadline, {}, has passed: this version will be marked {late} day{} late (versions up to {} late day{} are taken)",
            info.deadline.as_deref().unwrap_or(""),
            if late == 1 { "" } else { "s" },
            info.late_days,
            if info.late_days == 1 { "" } else { "s" }
        );
    }
    let sent = match client.submit(&name, &bytes) {
        Ok(sent) => sent,
        // Rejected in the upload's own answer (not WebAssembly, another
        // game's bot): a verdict, exit 1, though no version was made.
        Err(Failure::Rejected(why)) => {
            if a.json {
                let said =
                    serde_json::json!({ "accepted": false, "state": "rejected", "reason": why, "version": null });
                println!("{}", serde_json::to_string_pretty(&said)?);
            } else {
                println!("rejected: {why}");
            }
            return Ok(ExitCode::from(1));
        }
        Err(Failure::Refused { why, .. }) => bail!("{}: {why}", a.bot.display()),
        Err(other) => bail!("{other}"),
    };
    if !a.json {
        eprintln!(
            "submitted {} as version {} (SHA-256 {}); waiting for the verdict...",
            a.bot.display(),
            sent.version,
            sent.sha256
        );
    }
    let until = std::time::Instant::now() + Duration::from_secs(a.wait);
    // The estimate, then each step of the grading's progress, once each.
    let mut said = String::new();
    let mut tell = |v: &arena_server::api::VersionView| {
        if let Some(p) = v.progress.as_ref().filter(|p| !a.json && **p != said) {
            eprintln!("grading: {p}");
            said = p.clone();
        }
    };
    let mut verdict = client
        .verdict_told(sent.version, Duration::from_secs(a.wait), &mut tell)
        .map_err(|f| anyhow::anyhow!("{f}"))?;
    let graded = !matches!(verdict.state.as_str(), "queued" | "running" | "checking");
    if !graded {
        // Received and kept: only its verdict is not there yet.
        if a.json {
            println!("{}", serde_json::to_string_pretty(&verdict)?);
        } else {
            println!(
                "received as version {}, not graded yet ({}) after {} s of waiting; its verdict will appear at {}",
                verdict.version,
                verdict.state,
                a.wait,
                if verdict.url.is_empty() {
                    server
                } else {
                    verdict.url.as_str()
                }
            );
        }
        return Ok(ExitCode::from(SUBMIT_NOT_GRADED_YET));
    }
    // "Is it stronger than the version that counts?": waited for within
    // the same --wait, and said either way.
    let mut testing = None;
    if verdict.versus.get("state").is_some() {
        if !a.json {
            eprintln!(
                "testing it against v{}, the version that counts...",
                verdict.versus["against"].as_i64().unwrap_or(0)
            );
        }
        match client.tested(sent.version, until).map_err(|f| anyhow::anyhow!("{f}"))? {
            Some(v) => verdict = v,
            None => testing = Some(verdict.versus["against"].as_i64().unwrap_or(0)),
        }
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&verdict)?);
    } else {
        print_verdict(&verdict, testing);
        if verdict.late_days > 0 {
            println!(
                "Version {} came {} day{} after the deadline: it is marked late.",
                verdict.version,
                verdict.late_days,
                if verdict.late_days == 1 { "" } else { "s" }
            );
        }
    }
    Ok(match verdict.state.as_str() {
        "accepted" => ExitCode::SUCCESS,
        "rejected" => ExitCode::from(1),
        // `failed`: received, but the server could not grade it.
        _ => ExitCode::from(SUBMIT_NOT_GRADED_YET),
    })
}

/// `arena submit`'s exit status for a version the server received and
/// keeps but has not graded (still waiting after `--wait` seconds, or the
/// server could not grade it): not 2, which means nothing was submitted.
pub const SUBMIT_NOT_GRADED_YET: u8 = 3;

/// A verdict as `arena submit` prints it: the check's and the grade's
/// reports, the test against the version that counts (or, as `testing`,
/// the version it still runs against), then the link.
fn print_verdict(v: &arena_server::api::VersionView, testing: Option<i64>) {
    if let Some(check) = &v.check_text {
        print!("{check}");
    }
    if let Some(grade) = &v.grade_text {
        println!();
        print!("{grade}");
    }
    let reason = v.reason.as_deref().unwrap_or("");
    match v.state.as_str() {
        "rejected" => println!("rejected: {reason}"),
        "failed" => println!("the server could not grade it: {reason}"),
        _ => {}
    }
    if let Some(sentence) = v.versus["sentence"].as_str() {
        println!("{sentence}");
    } else if let Some(e) = v.versus["error"].as_str() {
        println!("The test against the version that counts could not run: {e}");
    }
    if let Some(against) = testing {
        println!(
            "The test against v{against}, the version that counts, still runs: its result will appear on the page below."
        );
    }
    // Only a graded version has replays (its games); a file rejected by the check has none.
    if v.grade.is_null() {
        println!("See it: {}", v.url);
    } else {
        println!("See it with its replays: {}", v.url);
    }
}
