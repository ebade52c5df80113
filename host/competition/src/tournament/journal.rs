//! The journal: every finished game of a tournament, one JSON line each, so a
//! stopped tournament resumes where it stopped and plays no game twice.

use crate::runner::GameResult;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A tournament's journal file, `journal.jsonl` in the output folder.
pub struct Journal {
    path: PathBuf,
    /// `None` for a journal kept in memory only.
    file: Option<Mutex<File>>,
    /// Games finished before this run, each taken out as the run reads it
    /// back, so a merge does not hold every game twice.
    done: Mutex<HashMap<(String, usize), GameResult>>,
}

impl Journal {
    /// Open (or start) the journal in `dir` for the tournament described by `header`.
    /// A journal of a different tournament is an error, never overwritten.
    pub fn open(dir: &Path, header: &Value) -> Result<Journal, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot create the output folder: {e}", dir.display()))?;
        let path = dir.join("journal.jsonl");
        let mut done = HashMap::new();
        if path.exists() {
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
            let mut lines = text.lines();
            let first: Option<Value> = lines.next().and_then(|l| serde_json::from_str(l).ok());
            if first.as_ref() != Some(header) {
                return Err(format!(
                    "{}: this folder holds another tournament (different game, bots, format or settings); use another --out or delete it",
                    path.display()
                ));
            }
            for line in lines {
                // A line cut short by a kill is simply not done yet.
                if let Some((id, index, result)) = parse(line) {
                    done.insert((id, index), result);
                }
            }
            // Drop a cut-short last line so new lines start on a line of their own.
            if !text.ends_with('\n') {
                let keep = text.rfind('\n').map_or(0, |i| i + 1);
                let file = OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .map_err(|e| format!("{}: cannot repair: {e}", path.display()))?;
                file.set_len(keep as u64)
                    .map_err(|e| format!("{}: cannot repair: {e}", path.display()))?;
            }
        } else {
            let mut file = File::create(&path).map_err(|e| format!("{}: cannot create: {e}", path.display()))?;
            writeln!(file, "{header}").map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        }
        let file = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|e| format!("{}: cannot open for writing: {e}", path.display()))?;
        Ok(Journal {
            path,
            file: Some(Mutex::new(file)),
            done: Mutex::new(done),
        })
    }

    /// A journal kept in memory only: what [`Journal::absorb`] reads in,
    /// for a run that plays nothing itself (merging shards).
    pub fn in_memory() -> Journal {
        Journal {
            path: PathBuf::new(),
            file: None,
            done: Mutex::new(HashMap::new()),
        }
    }

    /// Take in the games of another journal file (a shard's), read line by
    /// line, whose first line must be `header`; returns how many were read.
    /// They count as finished here but are not written to this journal.
    pub fn absorb(&mut self, path: &Path, header: &Value) -> Result<usize, String> {
        use std::io::BufRead;
        let file = File::open(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        let mut lines = std::io::BufReader::new(file).lines();
        let first: Option<Value> = lines
            .next()
            .and_then(Result::ok)
            .and_then(|l| serde_json::from_str(&l).ok());
        if first.as_ref() != Some(header) {
            return Err(format!("{}: this journal belongs to another plan", path.display()));
        }
        let mut read = 0;
        let done = self.done.get_mut().unwrap_or_else(|e| e.into_inner());
        for line in lines {
            let line = line.map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
            let Some((id, index, result)) = parse(&line) else {
                continue;
            };
            done.insert((id, index), result);
            read += 1;
        }
        Ok(read)
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Games already finished when the journal was opened.
    pub fn finished(&self) -> usize {
        self.done.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// A game finished in an earlier run, if its record fits a match of
    /// `bots` bots; a damaged line is ignored and the game played again.
    /// The record is handed over, not copied: each game is read back once.
    pub fn get(&self, id: &str, index: usize, bots: usize) -> Option<GameResult> {
        let r = self
            .done
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&(id.to_string(), index))?;
        let fits = r.seats.len() == bots
            && r.seats.iter().all(|&b| b < bots)
            && r.scores.len() == bots
            && r.winner.is_none_or(|w| w < bots)
            && r.positions.as_ref().is_none_or(|p| p.len() == bots)
            && r.forfeits.iter().chain(&r.forfeit).all(|f| f.seat < bots);
        fits.then_some(r)
    }

    /// Append a finished game. Each line is written whole, so a kill can cut
    /// at most the last line, which the next run ignores and replays.
    pub fn record(&self, id: &str, index: usize, result: &GameResult) {
        let line = format!("{}\n", json!({"match": id, "index": index, "result": result}));
        let Some(file) = &self.file else {
            return;
        };
        let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
        // A full disk loses resumability, not results: the game is still reported.
        let _ = file.write_all(line.as_bytes());
    }
}

/// A game's line: its match, index and result; `None` for a damaged line.
fn parse(line: &str) -> Option<(String, usize, GameResult)> {
    #[derive(serde::Deserialize)]
    struct Line {
        #[serde(rename = "match")]
        id: String,
        index: usize,
        result: GameResult,
    }
    let l: Line = serde_json::from_str(line).ok()?;
    Some((l.id, l.index, l.result))
}
