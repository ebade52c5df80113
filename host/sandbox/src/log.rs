//! The capped per-bot log: what a bot passes to `log` and writes to
//! stdout or stderr, kept up to a byte cap per game.

use crate::budget::{HostWork, LOG_BYTE_FUEL};
use bytes::Bytes;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamResult};

#[derive(Debug, Default)]
struct Inner {
    lines: Vec<String>,
    bytes: usize,
    cap: usize,
    truncated: bool,
    partial: Vec<u8>,
}

impl Inner {
    fn push_line(&mut self, line: &str) {
        let room = self.cap.saturating_sub(self.bytes);
        if room == 0 {
            self.truncated = true;
            return;
        }
        let mut end = line.len().min(room);
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        if end < line.len() {
            // The cap falls inside this line: keep its longest prefix that
            // ends on a character boundary, and nothing after it (a later,
            // shorter line would hide that this one was cut).
            self.truncated = true;
            self.bytes = self.cap;
            if end > 0 {
                self.lines.push(line[..end].to_owned());
            }
            return;
        }
        // An empty line still costs a byte, so a flood of them is capped too.
        self.bytes += end.max(1);
        self.lines.push(line.to_owned());
    }

    fn write_bytes(&mut self, bytes: &[u8]) {
        if self.bytes >= self.cap {
            self.truncated = true;
            return;
        }
        for &b in bytes {
            if b == b'\n' {
                let line = String::from_utf8_lossy(&self.partial).into_owned();
                self.partial.clear();
                self.push_line(&line);
            } else if self.partial.len() < self.cap {
                self.partial.push(b);
            } else {
                self.truncated = true;
            }
        }
    }
}

/// A bot's log for one game, shared by the `log` import and stdout/stderr.
#[derive(Debug, Clone)]
pub struct BotLog {
    inner: Arc<Mutex<Inner>>,
}

/// What a bot logged during one game.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct LogContents {
    /// The lines kept, in order.
    pub lines: Vec<String>,
    /// Whether anything was dropped because of the cap.
    pub truncated: bool,
}

impl BotLog {
    /// An empty log that keeps at most `cap` bytes.
    pub fn new(cap: usize) -> Self {
        BotLog {
            inner: Arc::new(Mutex::new(Inner {
                cap,
                ..Inner::default()
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A poisoned lock only means a writer panicked mid-append; the text is still usable.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Append one line.
    pub fn line(&self, line: &str) {
        self.lock().push_line(line);
    }

    /// Whether the cap is reached, so that nothing more will be kept; a
    /// full log is marked truncated, since the caller drops what it had.
    pub fn full(&self) -> bool {
        let mut inner = self.lock();
        if inner.bytes >= inner.cap {
            inner.truncated = true;
            return true;
        }
        false
    }

    /// The most recent Rust panic report in the log ("panicked at FILE:" and its message), if any.
    pub fn last_panic(&self) -> Option<String> {
        let inner = self.lock();
        let partial = String::from_utf8_lossy(&inner.partial).into_owned();
        let mut lines: Vec<&str> = inner.lines.iter().map(String::as_str).collect();
        lines.push(&partial);
        let at = lines.iter().rposition(|l| l.contains("panicked at"))?;
        let message = lines.get(at + 1).map(|m| format!(" {m}")).unwrap_or_default();
        Some(format!("{}{message}", lines[at].trim_end()))
    }

    /// The most recent uncaught exception of an interpreted bot, in one
    /// line: a Python traceback's last line and innermost frame, the line
    /// the JavaScript SDK logs, or what StarlingMonkey or QuickJS print.
    pub fn last_exception(&self) -> Option<String> {
        let inner = self.lock();
        let partial = String::from_utf8_lossy(&inner.partial).into_owned();
        // A message logged with newlines is one entry: look at its lines.
        let lines: Vec<&str> = inner
            .lines
            .iter()
            .map(String::as_str)
            .chain(std::iter::once(partial.as_str()))
            .flat_map(str::lines)
            .collect();
        last_exception(&lines)
    }

    /// Whole lines kept so far.
    pub fn line_count(&self) -> usize {
        self.lock().lines.len()
    }

    /// Take what was logged, flushing any unterminated stdout line.
    pub fn take(&self) -> LogContents {
        let mut inner = self.lock();
        if !inner.partial.is_empty() {
            let line = String::from_utf8_lossy(&inner.partial).into_owned();
            inner.partial.clear();
            inner.push_line(&line);
        }
        LogContents {
            lines: std::mem::take(&mut inner.lines),
            truncated: inner.truncated,
        }
    }
}

/// See [`BotLog::last_exception`]; the latest report in `lines` wins.
fn last_exception(lines: &[&str]) -> Option<String> {
    let found = |at: Option<usize>, what: Option<String>| at.zip(what);
    // Python: "Traceback (most recent call last):", frames indented, then
    // the exception ("KeyError: 'x'") as the first line that is not.
    let python = lines.iter().rposition(|l| *l == "Traceback (most recent call last):");
    let python = found(
        python,
        python.and_then(|at| {
            let rest = &lines[at + 1..];
            let end = rest.iter().position(|l| !l.starts_with(' '))?;
            let frame = rest[..end].iter().rev().find_map(|l| python_frame(l));
            // When CPython cannot print the exception (out of memory, say)
            // it dumps the object instead: its type is the exception.
            let exception = if rest[end].starts_with("object address") {
                rest[end..]
                    .iter()
                    .take(8)
                    .find_map(|l| l.strip_prefix("object type name:"))
                    .map_or(rest[end].trim(), str::trim)
            } else {
                rest[end].trim()
            };
            Some(match frame {
                Some(frame) => format!("{exception} ({frame})"),
                None => exception.to_string(),
            })
        }),
    );
    // The JavaScript SDK's own line.
    let sdk = lines.iter().rposition(|l| l.starts_with("arena: uncaught "));
    let sdk = found(sdk, sdk.map(|at| lines[at]["arena: uncaught ".len()..].to_string()));
    // StarlingMonkey: the message, "Stack:", then "  function@file:line:col".
    let spider = lines.iter().rposition(|l| *l == "Stack:").filter(|&at| at > 0);
    let spider = found(
        spider,
        spider.map(
            |at| match lines.get(at + 1).map(|l| l.trim()).filter(|l| !l.is_empty()) {
                Some(frame) => format!("{} (at {frame})", lines[at - 1].trim()),
                None => lines[at - 1].trim().to_string(),
            },
        ),
    );
    // QuickJS (componentize-qjs): its runtime's panic message quotes it.
    let quick = lines.iter().rposition(|l| l.contains("Exception { message: Some(\""));
    let quick = found(
        quick,
        quick.and_then(|at| {
            let line = lines[at];
            let message = line.split("message: Some(\"").nth(1)?.split("\"), stack").next()?;
            let frame = line
                .split("stack: Some(\"")
                .nth(1)
                .and_then(|s| s.split("\\n").next())
                .map(|f| f.trim().trim_start_matches("at ").to_string())
                .filter(|f| !f.is_empty());
            Some(match frame {
                Some(frame) => format!("{message} (at {frame})"),
                None => message.to_string(),
            })
        }),
    );
    // The engines print the exception the SDK already logged, with less
    // (StarlingMonkey leaves out its type): the SDK's line wins over them.
    let engines = if sdk.is_some() { [None, None] } else { [spider, quick] };
    [python, sdk]
        .into_iter()
        .chain(engines)
        .flatten()
        .max_by_key(|(at, _)| *at)
        .map(|(_, what)| what)
}

/// `File "/0/bot.py", line 4, in choose_move` as `bot.py, line 4, in choose_move`
/// (componentize-py names each source folder /0, /1, ...).
fn python_frame(line: &str) -> Option<String> {
    let rest = line.trim().strip_prefix("File \"")?;
    let (file, rest) = rest.split_once('"')?;
    let file = file.trim_start_matches('/');
    let file = match file.split_once('/') {
        Some((root, path)) if root.chars().all(|c| c.is_ascii_digit()) => path,
        _ => file,
    };
    Some(format!("{file}{rest}"))
}

/// stdout or stderr of a bot, writing into its [`BotLog`].
/// Every byte written is charged to the bot's [`HostWork`], kept or not.
#[derive(Clone)]
pub struct LogStream {
    log: BotLog,
    work: HostWork,
}

impl LogStream {
    /// A stream appending to `log`, charging each byte to `work`.
    pub fn new(log: BotLog, work: HostWork) -> Self {
        LogStream { log, work }
    }

    fn write_bytes(&self, bytes: &[u8]) {
        self.work.owe((bytes.len() as u64).saturating_mul(LOG_BYTE_FUEL));
        self.log.lock().write_bytes(bytes);
    }
}

impl IsTerminal for LogStream {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for LogStream {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }
    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for LogStream {
    async fn ready(&mut self) {}
}

impl OutputStream for LogStream {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.write_bytes(&bytes);
        Ok(())
    }
    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }
    fn check_write(&mut self) -> StreamResult<usize> {
        // Always accept a full buffer: text beyond the cap is dropped, never an error.
        Ok(64 * 1024)
    }
}

impl tokio::io::AsyncWrite for LogStream {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.write_bytes(buf);
        Poll::Ready(Ok(buf.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The lines below are what componentize-py 0.25, the JavaScript SDK,
    // componentize-js 0.23 and componentize-qjs 0.4 wrote for a bot that
    // threw in choose-move (copied from real logs).
    #[test]
    fn finds_the_exception_of_each_interpreter() {
        let python = [
            "Traceback (most recent call last):",
            "  File \"/1/arena_bot/en_garde.py\", line 66, in choose_move",
            "  File \"/0/sdk.py\", line 4, in choose_move",
            "KeyError: 'missing key'",
            "",
            "thread '<unnamed>' (1) panicked at runtime/src/lib.rs:1280:25:",
            "Python function threw an unexpected exception",
        ];
        assert_eq!(
            last_exception(&python).as_deref(),
            Some("KeyError: 'missing key' (sdk.py, line 4, in choose_move)")
        );
        // CPython out of memory: it dumps the exception object instead of printing it.
        let memory = [
            "Traceback (most recent call last):",
            "  File \"/0/arena_bot/en_garde.py\", line 64, in choose_move",
            "  File \"/0/app.py\", line 10, in choose_move",
            "object address  : 0x4817a8",
            "object refcount : 2",
            "object type     : 0x373230",
            "object type name: MemoryError",
            "object repr     : MemoryError()",
            "lost sys.stderr",
            "",
            "thread '<unnamed>' (1) panicked at runtime/src/lib.rs:1280:25:",
        ];
        assert_eq!(
            last_exception(&memory).as_deref(),
            Some("MemoryError (app.py, line 10, in choose_move)")
        );
        let sdk = ["arena: uncaught TypeError: null has no properties (at chooseMove@bot.js:40:26)"];
        assert_eq!(
            last_exception(&sdk).as_deref(),
            Some("TypeError: null has no properties (at chooseMove@bot.js:40:26)")
        );
        let spider = [
            "raw boom",
            "Stack:",
            "  chooseMove@raw.js:3:63",
            "",
            "Redirecting call to abort()",
        ];
        assert_eq!(
            last_exception(&spider).as_deref(),
            Some("raw boom (at chooseMove@raw.js:3:63)")
        );
        let quick = [
            "thread '<unnamed>' (1) panicked at crates/runtime/src/interpreter.rs:51:31:",
            r#"Failed to call 'chooseMove': Exception(Exception { message: Some("raw boom"), stack: Some("    at chooseMove (/raw.js:3:67)\n") })"#,
        ];
        assert_eq!(
            last_exception(&quick).as_deref(),
            Some("raw boom (at chooseMove (/raw.js:3:67))")
        );
        assert_eq!(
            last_exception(&["just a log line", "panicked at src/lib.rs:3:5:"]),
            None
        );
    }

    #[test]
    fn the_sdk_line_wins_over_the_engine_printing_the_same_exception() {
        let lines = [
            "arena: uncaught TypeError: x is null (at chooseMove@bot.js:4:7)",
            "x is null",
            "Stack:",
            "  chooseMove@bot.js:4:7",
        ];
        assert_eq!(
            last_exception(&lines).as_deref(),
            Some("TypeError: x is null (at chooseMove@bot.js:4:7)")
        );
    }

    #[test]
    fn the_latest_report_wins_and_multi_line_entries_are_split() {
        let log = BotLog::new(10_000);
        log.line("arena: uncaught Error: first");
        log.line("Traceback (most recent call last):\n  File \"/0/bot.py\", line 2, in f\nValueError: second");
        assert_eq!(
            log.last_exception().as_deref(),
            Some("ValueError: second (bot.py, line 2, in f)")
        );
    }

    #[test]
    fn keeps_lines_up_to_the_cap_and_marks_truncation() {
        let log = BotLog::new(10);
        log.line("hello");
        log.line("world!!");
        log.line("more");
        let got = log.take();
        assert_eq!(got.lines, vec!["hello".to_string(), "world".to_string()]);
        assert!(got.truncated);
    }

    #[test]
    fn stdout_bytes_split_into_lines() {
        let log = BotLog::new(100);
        log.lock().write_bytes(b"a\nbc");
        log.lock().write_bytes(b"d\ne");
        let got = log.take();
        assert_eq!(got.lines, vec!["a", "bcd", "e"]);
        assert!(!got.truncated);
    }

    #[test]
    fn stream_writes_are_charged_per_byte_even_beyond_the_cap() {
        let log = BotLog::new(4);
        let work = HostWork::default();
        let mut out = LogStream::new(log.clone(), work.clone());
        out.write(Bytes::from_static(b"abcdef\n")).unwrap();
        out.write(Bytes::from_static(b"more\n")).unwrap();
        assert_eq!(work.take(), 12 * LOG_BYTE_FUEL);
        assert!(log.full());
        assert!(log.take().truncated);
    }

    #[test]
    fn cuts_on_a_char_boundary() {
        let log = BotLog::new(4);
        log.line("ééé");
        assert_eq!(log.take().lines, vec!["éé"]);
    }

    #[test]
    fn a_cap_inside_the_first_character_keeps_no_empty_line() {
        // 4 bytes fit, then 1 byte of room: "é" (2 bytes) cannot start there.
        let log = BotLog::new(5);
        log.line("abcd");
        log.line("éa");
        log.line("z");
        let got = log.take();
        assert_eq!(got.lines, vec!["abcd"]);
        assert!(got.truncated);
    }

    #[test]
    fn stdout_cut_inside_a_character_keeps_the_whole_characters_before_it() {
        // "aé€" is 1 + 2 + 3 bytes; a cap of 5 falls inside "€".
        let log = BotLog::new(5);
        log.lock().write_bytes("aé€\n".as_bytes());
        let got = log.take();
        assert_eq!(got.lines, vec!["aé"]);
        assert!(got.truncated);
    }
}
