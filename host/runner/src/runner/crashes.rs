//! What a trapped bot's log says in its own language: the uncaught
//! exception of an interpreter (Python, JavaScript) or a Rust panic. The
//! sandbox reports a trap with the bot's log; this is where the languages
//! are known, so the forfeit a student reads is their own error, not the
//! `unreachable` it ended in.

use arena_core::{Failure, ForfeitReason};
use arena_sandbox::{Fault, FaultKind};

/// What a sandbox fault means in a game: the forfeit reason a student reads.
/// A trap is told in the bot's own words when its log has them.
pub fn failure(fault: Fault) -> Failure {
    let reason = match fault.kind {
        FaultKind::Trap => ForfeitReason::Trap,
        FaultKind::Fuel => ForfeitReason::Fuel,
        FaultKind::Timeout => ForfeitReason::Timeout,
        FaultKind::Memory => ForfeitReason::Memory,
        FaultKind::InvalidAnswer => ForfeitReason::InvalidAnswer,
        FaultKind::Host => ForfeitReason::Host,
    };
    if fault.kind == FaultKind::Trap
        && let Some(told) = in_own_words(&fault)
    {
        return told;
    }
    Failure::new(reason, fault.detail)
}

/// A trap as the bot's language reported it, if its log holds the report.
fn in_own_words(fault: &Fault) -> Option<Failure> {
    let lines: Vec<&str> = fault.log.iter().map(String::as_str).collect();
    if let Some(exception) = last_exception(&lines) {
        // The interpreter could not get memory within the cap: the reason
        // is `memory`, in the language's own words.
        if exception.starts_with("MemoryError") || exception.contains("out of memory") {
            return Some(Failure::new(
                ForfeitReason::Memory,
                format!(
                    "out of memory: {exception}: the bot needed more than its cap of {} (use less: a list, \
                     string or table far larger than it needs to be?), or raise --memory",
                    arena_sandbox::compile::mib(fault.memory_cap)
                ),
            ));
        }
        // An interpreter's exception ends in a trap whose wasm words help
        // no student; the exception's own line does.
        return Some(Failure::new(
            ForfeitReason::Trap,
            format!("uncaught exception: {exception}"),
        ));
    }
    // A Rust panic says where and why in the bot's own words: those, not
    // the `unreachable` the panic ends in.
    let panic = last_panic(&lines)?;
    let at = panic.find("panicked at").unwrap_or(0);
    Some(Failure::new(ForfeitReason::Trap, panic[at..].to_string()))
}

/// The most recent Rust panic report in `lines` ("panicked at FILE:" and its message), if any.
pub fn last_panic(lines: &[&str]) -> Option<String> {
    let at = lines.iter().rposition(|l| l.contains("panicked at"))?;
    let message = lines.get(at + 1).map(|m| format!(" {m}")).unwrap_or_default();
    Some(format!("{}{message}", lines[at].trim_end()))
}

/// The most recent uncaught exception of an interpreted bot in `lines`,
/// in one line: a Python traceback's last line and innermost frame, the
/// line the JavaScript SDK logs, or what StarlingMonkey or QuickJS print.
/// The latest report wins.
pub fn last_exception(lines: &[&str]) -> Option<String> {
    let sdk = javascript_sdk(lines);
    // The engines print the exception the SDK already logged, with less
    // (StarlingMonkey leaves out its type): the SDK's line wins over them.
    let engines = if sdk.is_some() {
        [None, None]
    } else {
        [starlingmonkey(lines), quickjs(lines)]
    };
    [python(lines), sdk]
        .into_iter()
        .chain(engines)
        .flatten()
        .max_by_key(|(at, _)| *at)
        .map(|(_, what)| what)
}

/// Python: "Traceback (most recent call last):", frames indented, then the
/// exception ("KeyError: 'x'") as the first line that is not; with the line
/// where it was found.
fn python(lines: &[&str]) -> Option<(usize, String)> {
    let at = lines.iter().rposition(|l| *l == "Traceback (most recent call last):")?;
    let rest = &lines[at + 1..];
    let end = rest.iter().position(|l| !l.starts_with(' '))?;
    let frame = rest[..end].iter().rev().find_map(|l| python_frame(l));
    // When CPython cannot print the exception (out of memory, say) it
    // dumps the object instead: its type is the exception.
    let exception = if rest[end].starts_with("object address") {
        rest[end..]
            .iter()
            .take(8)
            .find_map(|l| l.strip_prefix("object type name:"))
            .map_or(rest[end].trim(), str::trim)
    } else {
        rest[end].trim()
    };
    Some((
        at,
        match frame {
            Some(frame) => format!("{exception} ({frame})"),
            None => exception.to_string(),
        },
    ))
}

/// The JavaScript SDK's own line, `arena: uncaught ...`.
fn javascript_sdk(lines: &[&str]) -> Option<(usize, String)> {
    let at = lines.iter().rposition(|l| l.starts_with("arena: uncaught "))?;
    Some((at, lines[at]["arena: uncaught ".len()..].to_string()))
}

/// StarlingMonkey (componentize-js): the message, "Stack:", then
/// "  function@file:line:col".
fn starlingmonkey(lines: &[&str]) -> Option<(usize, String)> {
    let at = lines.iter().rposition(|l| *l == "Stack:").filter(|&at| at > 0)?;
    let message = lines[at - 1].trim();
    Some((
        at,
        match lines.get(at + 1).map(|l| l.trim()).filter(|l| !l.is_empty()) {
            Some(frame) => format!("{message} (at {frame})"),
            None => message.to_string(),
        },
    ))
}

/// QuickJS (componentize-qjs): its runtime's panic message quotes the exception.
fn quickjs(lines: &[&str]) -> Option<(usize, String)> {
    let at = lines.iter().rposition(|l| l.contains("Exception { message: Some(\""))?;
    let line = lines[at];
    let message = line.split("message: Some(\"").nth(1)?.split("\"), stack").next()?;
    let frame = line
        .split("stack: Some(\"")
        .nth(1)
        .and_then(|s| s.split("\\n").next())
        .map(|f| f.trim().trim_start_matches("at ").to_string())
        .filter(|f| !f.is_empty());
    Some((
        at,
        match frame {
            Some(frame) => format!("{message} (at {frame})"),
            None => message.to_string(),
        },
    ))
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
    fn the_latest_report_wins() {
        let lines = [
            "arena: uncaught Error: first",
            "Traceback (most recent call last):",
            "  File \"/0/bot.py\", line 2, in f",
            "ValueError: second",
        ];
        assert_eq!(
            last_exception(&lines).as_deref(),
            Some("ValueError: second (bot.py, line 2, in f)")
        );
    }

    #[test]
    fn a_panic_is_its_message_and_place() {
        let lines = ["log", "thread 'main' panicked at src/lib.rs:3:5:", "no move left"];
        assert_eq!(
            last_panic(&lines).as_deref(),
            Some("thread 'main' panicked at src/lib.rs:3:5: no move left")
        );
        let fault = Fault {
            log: lines.iter().map(|l| l.to_string()).collect(),
            ..Fault::new(FaultKind::Trap, "wasm trap: wasm `unreachable` instruction executed")
        };
        assert_eq!(failure(fault).detail, "panicked at src/lib.rs:3:5: no move left");
    }

    #[test]
    fn an_interpreters_memory_error_is_a_memory_forfeit() {
        let fault = Fault {
            log: [
                "Traceback (most recent call last):",
                "  File \"/0/app.py\", line 3, in f",
                "MemoryError",
            ]
            .map(String::from)
            .to_vec(),
            memory_cap: 64 << 20,
            ..Fault::new(FaultKind::Trap, "wasm trap")
        };
        let f = failure(fault);
        assert_eq!(f.reason, ForfeitReason::Memory);
        assert!(
            f.detail.starts_with(
                "out of memory: MemoryError (app.py, line 3, in f): the bot needed more than its cap of 64 MiB"
            ),
            "{}",
            f.detail
        );
    }
}
