//! The capped per-bot log: what a bot passes to `log` and writes to
//! stdout or stderr, kept up to a byte cap per game.

use crate::budget::{HostWork, LOG_BYTE_FUEL};
use bytes::Bytes;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
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
    /// `lines.len()`, readable without the lock: the arena reads it after
    /// every bot call, and the lock would cost that call a few percent.
    count: Arc<AtomicUsize>,
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
                self.count.store(self.lines.len(), Ordering::Relaxed);
            }
            return;
        }
        // An empty line still costs a byte, so a flood of them is capped too.
        self.bytes += end.max(1);
        self.lines.push(line.to_owned());
        self.count.store(self.lines.len(), Ordering::Relaxed);
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
    count: Arc<AtomicUsize>,
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
        let count = Arc::new(AtomicUsize::new(0));
        BotLog {
            inner: Arc::new(Mutex::new(Inner {
                cap,
                count: count.clone(),
                ..Inner::default()
            })),
            count,
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

    /// Every line kept so far and the unterminated one, with a message
    /// logged with newlines split into its lines.
    pub fn recent_lines(&self) -> Vec<String> {
        let inner = self.lock();
        let partial = String::from_utf8_lossy(&inner.partial).into_owned();
        inner
            .lines
            .iter()
            .map(String::as_str)
            .chain(std::iter::once(partial.as_str()))
            .flat_map(str::lines)
            .map(String::from)
            .collect()
    }

    /// Whole lines kept so far.
    pub fn line_count(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }

    /// Take what was logged, flushing any unterminated stdout line.
    pub fn take(&self) -> LogContents {
        let mut inner = self.lock();
        if !inner.partial.is_empty() {
            let line = String::from_utf8_lossy(&inner.partial).into_owned();
            inner.partial.clear();
            inner.push_line(&line);
        }
        inner.count.store(0, Ordering::Relaxed);
        LogContents {
            lines: std::mem::take(&mut inner.lines),
            truncated: inner.truncated,
        }
    }
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

    #[test]
    fn recent_lines_split_multi_line_entries_and_keep_the_unfinished_one() {
        let log = BotLog::new(10_000);
        log.line("one\ntwo");
        log.lock().write_bytes(b"three");
        assert_eq!(log.recent_lines(), ["one", "two", "three"]);
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
