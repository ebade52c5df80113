//! The person's terminal, the same in every game: prompts out, answers in,
//! and the answers that ask for help or leave.

use arena_core::{Failure, ForfeitReason};
use std::cell::{Cell, RefCell};
use std::io::{BufRead, Write};
use std::rc::Rc;

/// The person's terminal: where prompts go and answers come from. Clones
/// share the streams and whether the person has left.
#[derive(Clone)]
pub struct Terminal {
    inner: Rc<RefCell<Io>>,
    left: Rc<Cell<bool>>,
    /// Whether to draw suit symbols and other non-ASCII characters.
    pub unicode: bool,
}

struct Io {
    input: Box<dyn BufRead>,
    output: Box<dyn Write>,
}

impl Terminal {
    /// A terminal over the given streams.
    pub fn new(input: Box<dyn BufRead>, output: Box<dyn Write>, unicode: bool) -> Self {
        Terminal {
            inner: Rc::new(RefCell::new(Io { input, output })),
            left: Rc::new(Cell::new(false)),
            unicode,
        }
    }

    /// The person leaves the game (typed `q`, or closed the input): remember
    /// it, and give the failure that forfeits their seat.
    pub fn leave(&self) -> Failure {
        self.left.set(true);
        Failure::new(ForfeitReason::InvalidAnswer, "the player left")
    }

    /// Whether the person left the game before its end.
    pub fn has_left(&self) -> bool {
        self.left.get()
    }

    /// Print text (no newline added).
    pub fn print(&self, text: &str) {
        let mut io = self.inner.borrow_mut();
        // A closed terminal is not worth a crash: the game ends at the next read.
        let _ = io.output.write_all(text.as_bytes());
        let _ = io.output.flush();
    }

    /// Print a line.
    pub fn say(&self, line: &str) {
        self.print(&format!("{line}\n"));
    }

    /// Show `prompt` and read one line; `None` when the input has ended.
    pub fn ask(&self, prompt: &str) -> Option<String> {
        self.print(prompt);
        let mut line = String::new();
        match self.inner.borrow_mut().input.read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim().to_string()),
        }
    }
}

/// Whether an answer asks for help (the rules and what may be played now):
/// `?`, `h`, `help` or `rules`, the same in every game.
pub fn asks_for_help(answer: &str) -> bool {
    matches!(answer.to_ascii_lowercase().as_str(), "?" | "h" | "help" | "rules")
}

/// Whether an answer leaves the game: `q`, `quit` or `exit`, the same in every game.
pub fn asks_to_leave(answer: &str) -> bool {
    matches!(answer.to_ascii_lowercase().as_str(), "q" | "quit" | "exit")
}

/// Whether the locale says the terminal speaks UTF-8 (`LC_ALL`, then `LC_CTYPE`, then `LANG`).
pub fn locale_is_utf8() -> bool {
    let locale = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .filter_map(|k| std::env::var(k).ok())
        .find(|v| !v.is_empty())
        .unwrap_or_default()
        .to_ascii_lowercase();
    locale.contains("utf-8") || locale.contains("utf8")
}
