//! `arena worker`: grades a course's uploads and plays its ladder matches
//! on another machine. It says hello (the server refuses another arena or
//! wasmtime version), then takes grading jobs first, one at a time, and
//! else claims batches of matches, each under a lease, keeps the lease alive with
//! heartbeats while it plays, fetches each bot once by SHA-256 (checked,
//! kept in its cache folder), and returns every result with its fuel.

use super::{Answer, Client};
use crate::api::{Beat, Claim, Hello, Lease, RemoteJob, RemoteResult, Result1, Results, Taken, Welcome};
use crate::play::{Job, Player};
use crate::work::Grading;
use arena_runner::runner::settings::RunSettings;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How to run a worker.
pub struct WorkerSpec<'a> {
    /// The course server's address.
    pub server: String,
    /// The worker token (`arena course worker-token`).
    pub token: String,
    /// Threads to play on.
    pub jobs: usize,
    /// Where bot files and compiled bots are kept.
    pub cache: PathBuf,
    /// The program that compiles bot files in a child process.
    pub compiler: Option<PathBuf>,
    /// Stop after this many matches (for tests and trials); none: never.
    pub max_matches: Option<usize>,
    /// Told what the worker does, a line at a time.
    pub say: &'a (dyn Fn(&str) + Sync),
}

/// Why a worker stopped.
#[derive(Debug)]
pub enum Stop {
    /// The server refused it (another version, a bad or disabled token): one line.
    Refused(String),
    /// Something else: one line.
    Failed(String),
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Refused(s) | Stop::Failed(s) => f.write_str(s),
        }
    }
}

fn refusal(status: u16, v: &serde_json::Value) -> Stop {
    let why = v["error"]
        .as_str()
        .unwrap_or("the server refused the worker")
        .to_string();
    if matches!(status, 401 | 403 | 409) {
        Stop::Refused(why)
    } else {
        Stop::Failed(format!("the server answered {status}: {why}"))
    }
}

/// Run a worker until stopped (or after `max_matches`): say hello, then
/// take grading jobs first (students wait for them), else batches of ladder
/// matches, for as long as the server answers.
pub fn run(spec: &WorkerSpec<'_>) -> Result<usize, Stop> {
    let client = Client::new(&spec.server, &spec.token);
    let welcome = hello(&client, spec)?;
    let shift = Shift::new(client, welcome, spec)?;
    let mut played = 0usize;
    let mut idle = Duration::from_millis(250);
    // Grading jobs are asked for at most once a second (and again at once
    // after one came): a batch of short ladder matches takes less.
    let mut jobs_asked: Option<std::time::Instant> = None;
    loop {
        if spec.max_matches.is_some_and(|m| played >= m) {
            return Ok(played);
        }
        if jobs_asked.is_none_or(|t| t.elapsed() >= Duration::from_secs(1)) {
            jobs_asked = Some(std::time::Instant::now());
            if let Some(job) = shift.next_job()? {
                jobs_asked = None;
                idle = Duration::from_millis(250);
                do_job(&shift, &job)?;
                continue;
            }
        }
        match shift.claim()? {
            Claimed::Lease(lease) => {
                idle = Duration::from_millis(250);
                played += shift.play(&lease, played)?;
            }
            Claimed::Nothing => {
                std::thread::sleep(idle);
                // The ladder's queue is empty only for a moment: ask again soon.
                idle = (idle * 2).min(Duration::from_secs(1));
            }
            Claimed::Later => std::thread::sleep(Duration::from_secs(2)),
        }
    }
}

/// Say hello until the server answers (a lab PC may start before the
/// server does, or while it restarts), and read what to play and how.
fn hello(client: &Client, spec: &WorkerSpec<'_>) -> Result<Welcome, Stop> {
    let server = client.server();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    let hello = Hello {
        arena: arena_runner::VERSION.to_string(),
        wasmtime: arena_runner::replay::WASMTIME_VERSION.to_string(),
        jobs: spec.jobs.max(1),
        host,
    };
    let mut wait = Duration::from_secs(1);
    let (status, v) = loop {
        match client.post("/api/worker/hello", &hello) {
            Ok((status, _)) if (500..=599).contains(&status) => (spec.say)(&format!(
                "{server} answered {status}; trying again in {}s",
                wait.as_secs()
            )),
            Ok(x) => break x,
            Err(e) => (spec.say)(&format!("{e}; trying again in {}s", wait.as_secs())),
        }
        std::thread::sleep(wait);
        wait = (wait * 2).min(Duration::from_secs(30));
    };
    if status != 200 {
        return Err(refusal(status, &v));
    }
    serde_json::from_value(v).map_err(|e| Stop::Failed(format!("{server}: an answer the worker cannot read ({e})")))
}

/// What a worker works with once the server welcomed it.
struct Shift<'a> {
    client: Client,
    welcome: Welcome,
    spec: &'a WorkerSpec<'a>,
    player: Player,
    grading: Grading,
    /// The engine's fingerprint, sent with every claim.
    engine: String,
    /// Bot files, by SHA-256.
    files: PathBuf,
    pool: rayon::ThreadPool,
}

/// What a claim of ladder matches gave.
enum Claimed {
    /// Matches under a lease.
    Lease(Lease),
    /// None wait.
    Nothing,
    /// The server could not answer now: ask again in a while.
    Later,
}

impl<'a> Shift<'a> {
    /// Set up to play and grade as the server's `welcome` says.
    fn new(client: Client, welcome: Welcome, spec: &'a WorkerSpec<'a>) -> Result<Shift<'a>, Stop> {
        let server = client.server().to_string();
        let game = arena_runner::runner::entrants::find_game(&welcome.game).map_err(|e| Stop::Failed(e.to_string()))?;
        let settings = RunSettings {
            fuel: welcome.limits.fuel,
            bank: welcome.limits.bank,
            memory: welcome.limits.memory,
            max_file_bytes: welcome.limits.max_file_bytes,
            cache_dir: Some(spec.cache.join("compiled")),
            cache_max: 4 << 30,
            compiler: spec.compiler.clone(),
            jobs: Some(spec.jobs as u64),
            ..RunSettings::default()
        };
        let player = Player::new(game, &settings, welcome.illegal).map_err(Stop::Failed)?;
        let grading = Grading::from_parts(
            &welcome.game,
            &welcome.rubric,
            &format!("{server}'s rubric"),
            settings.clone(),
            &welcome.worlds,
        )
        .map_err(Stop::Failed)?;
        (spec.say)(&format!(
            "worker {} of {server}: {} on {} threads",
            welcome.worker,
            game.title(),
            spec.jobs.max(1)
        ));
        let files = spec.cache.join("bots");
        std::fs::create_dir_all(&files)
            .map_err(|e| Stop::Failed(format!("{}: cannot create it ({e})", files.display())))?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(spec.jobs.max(1))
            .build()
            .map_err(|e| Stop::Failed(e.to_string()))?;
        Ok(Shift {
            engine: player.fingerprint(),
            client,
            welcome,
            spec,
            player,
            grading,
            files,
            pool,
        })
    }

    /// A claim: enough matches to keep every thread busy for a while (a
    /// claim, its fetches and its results are a few requests whatever the batch).
    fn claim_body(&self) -> Claim {
        Claim {
            engine: self.engine.clone(),
            max: 48 * self.spec.jobs.max(1),
        }
    }

    /// The next grading job or version test, if one waits.
    fn next_job(&self) -> Result<Option<RemoteJob>, Stop> {
        match self.client.post("/api/worker/jobs/claim", &self.claim_body()) {
            Ok((200, v)) => serde_json::from_value(v).map(Some).map_err(|e| {
                Stop::Failed(format!(
                    "{}: an answer the worker cannot read ({e})",
                    self.client.server()
                ))
            }),
            Ok((status @ (401 | 403 | 409), v)) => Err(refusal(status, &v)),
            Ok(_) | Err(_) => Ok(None),
        }
    }

    /// Claim a batch of ladder matches.
    fn claim(&self) -> Result<Claimed, Stop> {
        let (status, v) = match self.client.post("/api/worker/claim", &self.claim_body()) {
            Ok(x) => x,
            Err(e) => {
                // The server may be restarting: wait and ask again.
                (self.spec.say)(&format!("{e}; trying again"));
                return Ok(Claimed::Later);
            }
        };
        match status {
            204 => Ok(Claimed::Nothing),
            200 => serde_json::from_value(v).map(Claimed::Lease).map_err(|e| {
                Stop::Failed(format!(
                    "{}: an answer the worker cannot read ({e})",
                    self.client.server()
                ))
            }),
            500..=599 => Ok(Claimed::Later),
            _ => Err(refusal(status, &v)),
        }
    }

    /// Play a leased batch (its bots fetched first, heartbeats while it
    /// plays) and send its results; how many were taken (`before` were taken earlier).
    fn play(&self, lease: &Lease, before: usize) -> Result<usize, Stop> {
        let say = self.spec.say;
        let fetched = lease
            .matches
            .iter()
            .flat_map(|job| job.bots.iter().filter_map(|b| b.sha256.as_deref()))
            .try_for_each(|sha| fetch(&self.client, &self.files, sha));
        if let Err(e) = fetched {
            // The lease runs out and its matches go back to the queue.
            say(&format!("{e}; trying again"));
            std::thread::sleep(Duration::from_secs(2));
            return Ok(0);
        }
        // Heartbeats while the batch plays: the lease must outlive its slowest match.
        let beat = Heartbeat::start(&self.client, &lease.lease, self.welcome.lease_seconds);
        let file_of = |sha: &str| {
            let p = self.files.join(format!("{sha}.wasm"));
            p.is_file().then_some(p)
        };
        let outcomes: Vec<(i64, Result<crate::play::Outcome, String>)> = self.pool.install(|| {
            lease
                .matches
                .par_iter()
                .map(|job: &Job| (job.id, self.player.play(job, &file_of)))
                .collect()
        });
        drop(beat);
        let mut results = Vec::new();
        for (id, o) in outcomes {
            match o {
                Ok(outcome) => results.push(Result1 { id, outcome }),
                // The lease runs out and the match goes back to the queue.
                Err(e) => say(&format!("match {id} could not be played here: {e}")),
            }
        }
        let sent = Results {
            lease: lease.lease.clone(),
            results,
        };
        let Some((status, v)) = send_results(&self.client, &sent, self.welcome.lease_seconds, say) else {
            say("the server could not be reached while the lease lasted: the batch will be played again");
            return Ok(0);
        };
        if status != 200 {
            return Err(refusal(status, &v));
        }
        let taken: Taken = serde_json::from_value(v).unwrap_or_default();
        say(&format!(
            "{} matches played and taken ({} in all){}",
            taken.taken.len(),
            before + taken.taken.len(),
            if taken.untaken.is_empty() {
                String::new()
            } else {
                format!("; {} came too late and were not taken", taken.untaken.len())
            }
        ));
        Ok(taken.taken.len())
    }
}

/// Heartbeats for a lease while a batch or job runs; they stop when it is
/// dropped, at once: a batch of short matches does not wait out a beat's sleep.
struct Heartbeat {
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Heartbeat {
    fn start(client: &Client, lease: &str, lease_seconds: i64) -> Heartbeat {
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let (beater, lease) = (client.clone(), lease.to_string());
        let every = Duration::from_secs((lease_seconds / 4).max(1) as u64);
        let thread = std::thread::spawn(move || {
            // Beat every `every` until the sender is dropped.
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                let _ = beater.post("/api/worker/heartbeat", &Beat { lease: lease.clone() });
            }
        });
        Heartbeat {
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Do a grading job or version test the server handed over, and send its verdict.
fn do_job(shift: &Shift<'_>, job: &RemoteJob) -> Result<(), Stop> {
    let Shift {
        client,
        grading,
        files,
        welcome,
        ..
    } = shift;
    let (cache, say) = (&shift.spec.cache, shift.spec.say);
    let mut result = RemoteResult {
        job: job.job,
        lease: job.lease.clone(),
        verdict: None,
        versus: None,
        error: None,
    };
    let shas = std::iter::once(job.sha256.as_str()).chain(job.against.iter().map(|(sha, _)| sha.as_str()));
    let fetched: Result<Vec<PathBuf>, String> = shas
        .map(|sha| fetch(client, files, sha).map(|()| files.join(format!("{sha}.wasm"))))
        .collect();
    let beat = Heartbeat::start(client, &job.lease, welcome.lease_seconds);
    match fetched {
        Err(e) => result.error = Some(e),
        Ok(paths) if job.kind == "versus" => {
            let (Some(new), Some(old), Some((_, against))) = (paths.first(), paths.get(1), &job.against) else {
                return Err(Stop::Failed(format!(
                    "job {}: a test without the version it is against",
                    job.job
                )));
            };
            say(&format!(
                "job {}: testing {}'s v{} against v{against}",
                job.job, job.student, job.version
            ));
            let (margin, games) = welcome.versus;
            match grading.versus((new, job.version), (old, *against), margin, games as usize) {
                Ok(v) => result.versus = Some(v),
                Err(e) => result.error = Some(e),
            }
        }
        Ok(paths) => {
            say(&format!("job {}: grading {}'s v{}", job.job, job.student, job.version));
            let pages = cache.join(format!("pages-{}", crate::queue::unique_suffix()));
            let verdict = grading.run(&paths[0], &job.file_name, &job.student, &pages);
            let _ = std::fs::remove_dir_all(&pages);
            if verdict.failed {
                result.error = verdict.reason.clone().or(Some("the arena failed".into()));
            } else {
                result.verdict = Some(verdict);
            }
        }
    }
    drop(beat);
    match send_job_result(client, &result, welcome.lease_seconds, say) {
        Some((200, v)) if v["taken"] == true => say(&format!("job {}: verdict taken", job.job)),
        Some((200, _)) => say(&format!("job {}: the verdict came too late and was not taken", job.job)),
        Some((status @ (401 | 403 | 409), v)) => return Err(refusal(status, &v)),
        Some((status, v)) => say(&format!(
            "job {}: the server answered {status}: {}",
            job.job, v["error"]
        )),
        None => say(&format!(
            "job {}: the server could not be reached; it will be done again",
            job.job
        )),
    }
    Ok(())
}

fn send_job_result(
    client: &Client,
    sent: &RemoteResult,
    lease_seconds: i64,
    say: &(dyn Fn(&str) + Sync),
) -> Option<Answer> {
    let until = std::time::Instant::now() + Duration::from_secs(lease_seconds.max(1) as u64);
    loop {
        match client.post("/api/worker/jobs/result", sent) {
            Ok(x) => return Some(x),
            Err(_) if std::time::Instant::now() >= until => return None,
            Err(e) => {
                say(&format!("{e}; sending the verdict again"));
                std::thread::sleep(Duration::from_secs(2));
            }
        }
    }
}

/// Send a batch's results, asking again while the server cannot be
/// reached, for as long as the lease lasts (after that they would not be taken).
fn send_results(client: &Client, sent: &Results, lease_seconds: i64, say: &(dyn Fn(&str) + Sync)) -> Option<Answer> {
    let until = std::time::Instant::now() + Duration::from_secs(lease_seconds.max(1) as u64);
    loop {
        match client.post("/api/worker/results", sent) {
            Ok(x) => return Some(x),
            Err(_) if std::time::Instant::now() >= until => return None,
            Err(e) => {
                say(&format!("{e}; sending the results again"));
                std::thread::sleep(Duration::from_secs(2));
            }
        }
    }
}

/// The bot file `sha` in `dir`, fetched from the server if it is not there,
/// and kept only if its bytes have that SHA-256.
fn fetch(client: &Client, dir: &Path, sha: &str) -> Result<(), String> {
    if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("the server named a file by `{sha}`, which is no SHA-256"));
    }
    let path = dir.join(format!("{sha}.wasm"));
    if path.is_file() {
        return Ok(());
    }
    let mut r = client
        .agent
        .get(&format!("{}/api/worker/bots/{sha}", client.server))
        .header("Authorization", &client.auth)
        .call()
        .map_err(|e| format!("{}: cannot fetch bot {sha} ({e})", client.server))?;
    if r.status().as_u16() != 200 {
        return Err(format!("{}: bot {sha} answered {}", client.server, r.status()));
    }
    let bytes = r
        .body_mut()
        .with_config()
        .limit(1 << 30)
        .read_to_vec()
        .map_err(|e| format!("{}: bot {sha} did not arrive whole ({e})", client.server))?;
    let got: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    if got != sha {
        return Err(format!("bot {sha} arrived with SHA-256 {got}: not kept"));
    }
    let tmp = dir.join(format!(".fetch-{}", crate::queue::unique_suffix()));
    std::fs::write(&tmp, &bytes).map_err(|e| format!("{}: cannot write ({e})", tmp.display()))?;
    std::fs::rename(&tmp, &path).map_err(|e| format!("{}: cannot write ({e})", path.display()))
}
