//! Compiling components, where a runaway compile cannot hold the arena.
//!
//! Cranelift cannot be interrupted, and its time and memory are not bounded
//! by the size of the file: one function of 200,000 nested blocks (a 1.4 MB
//! file) takes minutes and half a gigabyte to compile. A [`Compiler::Child`]
//! therefore compiles each untrusted file in a child process (the host's own
//! executable, run with a hidden subcommand that calls [`child_main`]) under
//! a CPU-time and an address-space limit set in the child with `setrlimit`,
//! and a wall-clock deadline after which the parent kills it. The child
//! compiles with exactly the engine configuration of the parent
//! ([`engine_config`]) and writes the compiled artifact to its stdout; the
//! parent loads it with `Component::deserialize`.
//!
//! [`Compiler::InProcess`] compiles in the calling process with no limit:
//! for library users and tests that load only files they trust.

use crate::incremental::DiskStore;
use crate::{Limits, LoadError};
use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use wasmtime::component::Component;
use wasmtime::{Config, Engine};

/// The engine configuration everything compiled depends on: fuel, epochs,
/// the wasm stack, deterministic floats and relaxed SIMD. The sandbox adds
/// its instance allocator (which compiled code does not depend on); a
/// compiler child uses this alone, so what it compiles loads in the sandbox.
pub fn engine_config(limits: &Limits) -> Config {
    let mut config = Config::new();
    config
        .wasm_component_model(true)
        .consume_fuel(true)
        .epoch_interruption(true)
        .max_wasm_stack(limits.stack_bytes)
        // Same floats on every machine: replays and grades must not depend on the CPU.
        .cranelift_nan_canonicalization(true)
        // Name the function (and file and line, where the bot has debug
        // info) in a trap's detail.
        .wasm_backtrace_details(wasmtime::WasmBacktraceDetails::Enable)
        .relaxed_simd_deterministic(true)
        // Fuel costs of bulk operations (see `budget::operator_cost`).
        .operator_cost(crate::budget::operator_cost());
    config
}

/// How a sandbox compiles bot files.
#[derive(Debug, Clone, Default)]
pub enum Compiler {
    /// In the calling process, with no limit on time or memory: only for
    /// files the caller trusts (tests, library use).
    #[default]
    InProcess,
    /// In a child process under [`CompileLimits`]: for untrusted files.
    Child(ChildCompiler),
}

/// A child process that compiles one component: `program args... STACK_BYTES`,
/// with the component on stdin, must call [`child_main`] with `STACK_BYTES`.
#[derive(Debug, Clone)]
pub struct ChildCompiler {
    /// The executable, usually the host's own (`std::env::current_exe()`).
    pub program: PathBuf,
    /// The arguments that make it a compiler, e.g. a hidden subcommand.
    pub args: Vec<OsString>,
    /// Its limits.
    pub limits: CompileLimits,
}

/// What compiling one component may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompileLimits {
    /// CPU time of the child, all its threads together (`RLIMIT_CPU`).
    pub cpu: Duration,
    /// Address space of the child (`RLIMIT_AS`), in bytes.
    pub memory_bytes: u64,
    /// Wall-clock time, after which the parent kills the child.
    pub wall: Duration,
}

impl CompileLimits {
    /// Far above what real bots need: a componentize-py bot of 18 MB takes
    /// 11-13 s of CPU time and about 400 MB to compile, a Rust bot 0.1 s.
    pub const DEFAULT: CompileLimits = CompileLimits {
        cpu: Duration::from_secs(60),
        memory_bytes: 2 << 30,
        wall: Duration::from_secs(600),
    };

    /// `cpu` seconds of CPU time, with a wall clock of ten times that. The
    /// CPU time decides (it is the file's, whatever else the machine runs);
    /// the wall clock only ends a compiler that stalls, and must not end a
    /// normal one on a machine busy with other work (a 20 s Python bot took
    /// over 90 s at a load of 17).
    pub fn with_cpu(self, cpu: Duration) -> CompileLimits {
        CompileLimits {
            cpu,
            wall: cpu * 10,
            ..self
        }
    }
}

impl Default for CompileLimits {
    fn default() -> Self {
        CompileLimits::DEFAULT
    }
}

/// The incremental compilation store's bound on disk: CPython's functions
/// and a class's own fit in it many times over, and a compiler child reads
/// it whole (well inside [`CompileLimits::DEFAULT`]'s memory).
pub const STORE_MAX_BYTES: u64 = 256 << 20;

/// Exit status of the child for a component that does not compile (the
/// reason is on stderr), and for a compile that ran out of memory.
const EXIT_INVALID: i32 = 2;
const EXIT_MEMORY: i32 = 3;

/// The child's side: read a component from stdin, compile it with the
/// engine configuration for a wasm stack of `args[0]` bytes, write the
/// compiled artifact to stdout. Returns the exit status.
pub fn child_main(args: &[OsString]) -> i32 {
    // A compiler thread that runs out of memory panics; left alone, the
    // other threads can wait for it forever without using CPU time (only
    // the wall clock would end them). End the whole process at the first
    // panic instead, with its message (no backtrace: capturing one allocates).
    std::panic::set_hook(Box::new(|info| {
        eprintln!("{info}");
        std::process::abort();
    }));
    let Some(stack_bytes) = args
        .first()
        .and_then(|a| a.to_str())
        .and_then(|a| a.parse::<usize>().ok())
    else {
        eprintln!("usage: STACK_BYTES, with the component on stdin (this is the arena's compiler process)");
        return 1;
    };
    let mut bytes = Vec::new();
    if let Err(e) = std::io::stdin().lock().read_to_end(&mut bytes) {
        eprintln!("cannot read the component: {e}");
        return 1;
    }
    let limits = Limits {
        stack_bytes,
        ..Limits::DEFAULT
    };
    let mut config = engine_config(&limits);
    // The functions an earlier bot had come from the store (`incremental.rs`).
    let store = args
        .get(1)
        .map(|dir| Arc::new(DiskStore::open(std::path::Path::new(dir), STORE_MAX_BYTES)));
    if let Some(store) = &store
        && let Err(e) = config.enable_incremental_compilation(store.clone())
    {
        eprintln!("{}", first_line(&e));
        return 1;
    }
    let compiled = Engine::new(&config)
        .and_then(|engine| Component::new(&engine, &bytes))
        .and_then(|component| component.serialize());
    match compiled {
        Ok(artifact) => {
            let mut out = std::io::stdout().lock();
            match out.write_all(&artifact).and_then(|()| out.flush()) {
                Ok(()) => {
                    drop(artifact);
                    // After the artifact is out: the bot's compile is done
                    // whatever becomes of the store, which, if it cannot be
                    // written, only makes the next compile slower.
                    if let Some(store) = &store {
                        let _ = store.save();
                        if std::env::var_os("ARENA_COMPILE_STATS").is_some() {
                            let [hits, misses] = store.counts();
                            eprintln!("incremental store: {hits} functions found, {misses} compiled");
                        }
                    }
                    0
                }
                Err(e) => {
                    eprintln!("cannot write the compiled component: {e}");
                    1
                }
            }
        }
        Err(e) if out_of_memory(&format!("{e:#}")) => {
            eprintln!("{}", first_line(&e));
            EXIT_MEMORY
        }
        Err(e) => {
            eprintln!("{}", first_line(&e));
            EXIT_INVALID
        }
    }
}

/// Compile `bytes` in this process with the engine configuration of
/// `limits` and the incremental store in `store`, and serialize the result
/// (the in-process twin of [`child_main`], for trusted files).
pub(crate) fn artifact_in_process(limits: &Limits, bytes: &[u8], store: &Path) -> wasmtime::Result<Vec<u8>> {
    let store = Arc::new(DiskStore::open(store, STORE_MAX_BYTES));
    let mut config = engine_config(limits);
    config.enable_incremental_compilation(store.clone())?;
    let artifact = Component::new(&Engine::new(&config)?, bytes)?.serialize()?;
    // A store that cannot be written only makes the next compile slower.
    let _ = store.save();
    Ok(artifact)
}

/// Whether a message says memory ran out: Rust's own allocation failure, or
/// `ENOMEM` from the operating system.
fn out_of_memory(text: &str) -> bool {
    [
        "memory allocation of",
        "os error 12",
        "Cannot allocate memory",
        "out of memory",
    ]
    .iter()
    .any(|m| text.contains(m))
}

/// Load an artifact into `engine`.
///
/// SAFETY (the caller's): `artifact` must be bytes `Component::serialize`
/// produced, in this program, for an engine of this configuration: straight
/// from a compiler child's stdout, or a compile-cache entry verified against
/// its key and checksum (see `cache.rs`). wasmtime still checks the version
/// and configuration they were compiled for.
pub(crate) unsafe fn load_artifact(engine: &Engine, shown: &str, artifact: &[u8]) -> Result<Component, LoadError> {
    // SAFETY: as the caller promises, these are bytes wasmtime itself produced.
    unsafe { Component::deserialize(engine, artifact) }.map_err(|e| LoadError::Invalid {
        path: shown.to_string(),
        reason: first_line(&e),
    })
}

/// Map the compiled component in the file `artifact` (no copy: wasmtime
/// maps the file, so only the pages that run take memory).
///
/// # Safety
/// The file must hold bytes wasmtime's `Component::serialize` produced for
/// an engine configured as `engine` is, and must not change while mapped.
pub(crate) unsafe fn map_artifact(engine: &Engine, shown: &str, artifact: &Path) -> Result<Component, LoadError> {
    // SAFETY: as the caller promises.
    unsafe { Component::deserialize_file(engine, artifact) }.map_err(|e| LoadError::Invalid {
        path: shown.to_string(),
        reason: first_line(&e),
    })
}

impl ChildCompiler {
    /// Compile `bytes` (the file `shown`) in a child process under the
    /// limits: the artifact `Component::serialize` made of it there, for
    /// [`load_artifact`].
    /// `store`: the folder of the incremental compilation store to use, if any.
    pub(crate) fn artifact(
        &self,
        limits: &Limits,
        shown: &str,
        bytes: &[u8],
        store: Option<&Path>,
    ) -> Result<Vec<u8>, LoadError> {
        let failed = |reason: String| LoadError::Compiler {
            path: shown.to_string(),
            reason,
        };
        let (waited, artifact, message) = self.exchange(limits, bytes, store).map_err(failed)?;
        self.verdict(shown, waited, artifact, &message)
    }

    /// Start the child under the limits, give it `bytes`, and collect how
    /// it ended, what it wrote (at most the memory limit) and its messages.
    fn exchange(
        &self,
        limits: &Limits,
        bytes: &[u8],
        store: Option<&Path>,
    ) -> Result<(Waited, Vec<u8>, Vec<u8>), String> {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .arg(limits.stack_bytes.to_string())
            .args(store)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        set_limits(&mut command, &self.limits);
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.program.display()))?;
        let (mut stdin, mut stdout, mut stderr) = match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
            (Some(i), Some(o), Some(e)) => (i, o, e),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("cannot talk to the compiler process".into());
            }
        };
        // The child holds the whole artifact in memory before writing it, so
        // it cannot be larger than the child's address space.
        let most = self.limits.memory_bytes;
        Ok(std::thread::scope(|s| {
            s.spawn(move || {
                ignore_sigpipe_on_this_thread();
                // A child that dies early closes its stdin: the write fails, and
                // how the child ended says why.
                let _ = stdin.write_all(bytes);
            });
            let out = s.spawn(move || {
                let mut artifact = Vec::new();
                // Dropping the pipe after `most` bytes stops a runaway child.
                let _ = (&mut stdout).take(most.saturating_add(1)).read_to_end(&mut artifact);
                artifact
            });
            let err = s.spawn(move || {
                let mut message = Vec::new();
                let _ = (&mut stderr).take(64 << 10).read_to_end(&mut message);
                message
            });
            let waited = wait(&mut child, self.limits.wall);
            let artifact = out.join().unwrap_or_default();
            let message = err.join().unwrap_or_default();
            (waited, artifact, message)
        }))
    }

    /// What the child's end means: the artifact, or which limit the file
    /// met, or the compiler's own failure.
    fn verdict(&self, shown: &str, waited: Waited, artifact: Vec<u8>, message: &[u8]) -> Result<Vec<u8>, LoadError> {
        let failed = |reason: String| LoadError::Compiler {
            path: shown.to_string(),
            reason,
        };
        let most = self.limits.memory_bytes;
        let message = String::from_utf8_lossy(message);
        // The child's own line or a panic's message, not a backtrace's note.
        let last = message
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty() && !l.starts_with("note:") && !l.starts_with("stack backtrace"))
            .unwrap_or("")
            .trim();
        let limit = |exceeded: String, flag: &'static str| LoadError::CompileLimit {
            path: shown.to_string(),
            exceeded,
            flag,
        };
        let too_slow = || {
            limit(
                format!("took more than {} s", self.limits.cpu.as_secs_f64()),
                "--compile-seconds",
            )
        };
        let too_big = || {
            limit(
                format!("needed more than {} of memory", mib(self.limits.memory_bytes)),
                "--compile-memory",
            )
        };
        let status = match waited {
            Waited::Exited(status) => status,
            // The file's fault only if it used up its CPU time. A limit under
            // a second is met only here: RLIMIT_CPU counts whole seconds and
            // the kernel's count of CPU time moves in ticks of 10 ms.
            Waited::Deadline(used)
                if self.limits.cpu < Duration::from_secs(1) || used.is_some_and(|u| u >= self.limits.cpu) =>
            {
                return Err(too_slow());
            }
            Waited::Deadline(_) => {
                return Err(failed(format!(
                    "compiling took more than {} s of wall-clock time without using up its {} s of CPU time: \
                     the machine is too busy (or the compiler stalled); run again when it is less loaded",
                    self.limits.wall.as_secs_f64(),
                    self.limits.cpu.as_secs_f64()
                )));
            }
            Waited::Error(e) => return Err(failed(format!("lost the compiler process: {e}"))),
        };
        if status.success() {
            if artifact.len() as u64 > most {
                return Err(too_big());
            }
            return Ok(artifact);
        }
        match (status.code(), signal(&status)) {
            (Some(EXIT_INVALID), _) => Err(LoadError::Invalid {
                path: shown.to_string(),
                reason: last.to_string(),
            }),
            (Some(EXIT_MEMORY), _) => Err(too_big()),
            (_, Some(libc::SIGXCPU | libc::SIGKILL)) => Err(too_slow()),
            _ if out_of_memory(&message) => Err(too_big()),
            (_, Some(libc::SIGABRT)) if last.is_empty() => Err(too_big()),
            (code, sig) => Err(failed(match (last, code, sig) {
                ("", Some(code), _) => format!("the compiler process failed with status {code}"),
                ("", None, Some(sig)) => format!("the compiler process was stopped by signal {sig}"),
                _ => format!("the compiler process failed: {last}"),
            })),
        }
    }
}

/// A size in whole MiB (or GiB), as limits are written in messages.
pub fn mib(bytes: u64) -> String {
    if bytes >= 1 << 30 && bytes.is_multiple_of(1 << 30) {
        format!("{} GiB", bytes >> 30)
    } else {
        format!("{} MiB", bytes.div_ceil(1 << 20))
    }
}

enum Waited {
    Exited(ExitStatus),
    /// Killed at the wall-clock deadline, having used this much CPU time (when known).
    Deadline(Option<Duration>),
    Error(std::io::Error),
}

/// The CPU time a live process has used, all its threads together (Linux's
/// `/proc/<pid>/stat`, fields 14 and 15, in clock ticks).
fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields follow the last `)`.
    let fields: Vec<&str> = stat.get(stat.rfind(')')? + 2..)?.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // SAFETY: sysconf only reads a system setting.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (per_second > 0).then(|| Duration::from_secs_f64(ticks as f64 / per_second as f64))
}

/// Wait for the child until `deadline` from now, then kill it.
fn wait(child: &mut Child, deadline: Duration) -> Waited {
    let start = Instant::now();
    let mut step = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Waited::Exited(status),
            Ok(None) => {}
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Waited::Error(e);
            }
        }
        if start.elapsed() >= deadline {
            // The child is not reaped yet, so its id is still its own.
            let cpu = cpu_time(child.id());
            let _ = child.kill();
            let _ = child.wait();
            return Waited::Deadline(cpu);
        }
        std::thread::sleep(step);
        step = (step * 2).min(Duration::from_millis(20));
    }
}

#[cfg(unix)]
fn signal(status: &ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(status)
}

#[cfg(not(unix))]
fn signal(_: &ExitStatus) -> Option<i32> {
    None
}

/// Set the child's CPU-time and address-space limits, and no core file, between fork and exec.
#[cfg(unix)]
fn set_limits(command: &mut Command, limits: &CompileLimits) {
    use std::os::unix::process::CommandExt;
    let cpu = (limits.cpu.as_secs() + u64::from(limits.cpu.subsec_nanos() > 0)).max(1);
    let memory = limits.memory_bytes;
    macro_rules! set {
        ($resource:expr, $soft:expr, $hard:expr) => {{
            let limit = libc::rlimit {
                rlim_cur: $soft as libc::rlim_t,
                rlim_max: $hard as libc::rlim_t,
            };
            // SAFETY: `limit` is a valid rlimit that lives across the call.
            if unsafe { libc::setrlimit($resource, &limit) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }};
    }
    let pre_exec = move || {
        // SIGXCPU at `cpu` seconds, SIGKILL a second later if that is caught.
        set!(libc::RLIMIT_CPU, cpu, cpu + 1);
        set!(libc::RLIMIT_AS, memory, memory);
        set!(libc::RLIMIT_CORE, 0, 0);
        Ok(())
    };
    // SAFETY: the closure runs in the forked child before exec and calls only
    // `setrlimit`, which is async-signal-safe; it allocates nothing and takes no lock.
    unsafe {
        command.pre_exec(pre_exec);
    }
}

#[cfg(not(unix))]
fn set_limits(_: &mut Command, _: &CompileLimits) {}

/// Make a write to a closed pipe fail with `EPIPE` on this thread instead of
/// killing the process (the `arena` binary restores the default SIGPIPE,
/// which ends the process). SIGPIPE from a write goes to the writing thread.
#[cfg(unix)]
fn ignore_sigpipe_on_this_thread() {
    // SAFETY: plain signal-mask calls on this thread's own mask, with valid pointers.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

#[cfg(not(unix))]
fn ignore_sigpipe_on_this_thread() {}

/// The error's chain on one line, outermost first, each part's first line:
/// a wasm backtrace (a context wasmtime adds, spread over many lines) and
/// other empty parts are left out, so the line always names the cause.
pub(crate) fn first_line(error: &wasmtime::Error) -> String {
    let parts: Vec<String> = error
        .chain()
        .filter_map(|e| {
            e.to_string()
                .lines()
                .next()
                .map(|l| l.trim().trim_end_matches(':').to_string())
        })
        .filter(|l| !l.is_empty() && !l.starts_with("error while executing at wasm backtrace"))
        .collect();
    let mut line = String::new();
    for part in parts {
        // `Error::context` often repeats the inner message in the outer one.
        if !line.contains(&part) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&part);
        }
    }
    if line.is_empty() {
        line.push_str("unknown error");
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_said_in_whole_units() {
        assert_eq!(mib(2 << 30), "2 GiB");
        assert_eq!(mib(300 << 20), "300 MiB");
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_process_cpu_time_is_read_while_it_runs() {
        // Spin until the reading grows past what the process had: on a
        // loaded machine that takes longer, never forever.
        let before = cpu_time(std::process::id()).expect("this process's CPU time");
        let start = std::time::Instant::now();
        let mut x = 0u64;
        let mut used = before;
        while used < before + Duration::from_millis(20) && start.elapsed() < Duration::from_secs(60) {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_add(1));
            }
            used = cpu_time(std::process::id()).expect("this process's CPU time");
        }
        assert!(used >= before + Duration::from_millis(20), "{before:?} then {used:?}");
        assert_eq!(cpu_time(u32::MAX), None);
    }

    #[test]
    fn the_wall_clock_follows_the_cpu_limit() {
        let l = CompileLimits::DEFAULT.with_cpu(Duration::from_secs(2));
        assert_eq!(l.wall, Duration::from_secs(20));
        assert_eq!(
            CompileLimits::DEFAULT.with_cpu(Duration::from_secs(60)),
            CompileLimits::DEFAULT
        );
        assert_eq!(l.memory_bytes, CompileLimits::DEFAULT.memory_bytes);
    }
}
