//! A bot file loaded once for a grading run: read, checked and compiled in
//! its game's sandbox, then handed to the check (`check::check_loaded`),
//! the grading (`grade::Grader::grade_loaded`) and the replay pages, so a
//! run reads and compiles the file once.

use crate::check::inspect::{Scan, scan};
use arena_runner::runner::GameDef;
use arena_sandbox::{BotProgram, LoadError, Sandbox};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A bot file loaded for a game, with what the check reads from its bytes.
/// Its program plays only in the sandbox it was loaded in.
pub struct LoadedBot {
    /// The game it loaded for.
    pub game: &'static dyn GameDef,
    /// The program: checked, compiled, ready to instantiate once per game.
    pub program: Arc<BotProgram>,
    /// How long loading took (reading, checking, compiling or the compile cache).
    pub compile: Duration,
    /// The file's size, in bytes.
    pub file_bytes: u64,
    /// What the file says about itself: producers, names, initial memory.
    pub scan: Scan,
}

impl LoadedBot {
    /// Read, check and compile the bot file at `path` for `game` in
    /// `sandbox`, reading the file once.
    pub fn load(sandbox: &Sandbox, game: &'static dyn GameDef, path: &Path) -> Result<LoadedBot, LoadError> {
        let start = Instant::now();
        let (program, bytes) = sandbox.load_with_bytes(path, game.worlds())?;
        let compile = start.elapsed();
        Ok(LoadedBot {
            game,
            program: Arc::new(program),
            compile,
            file_bytes: bytes.len() as u64,
            scan: scan(&bytes),
        })
    }
}
