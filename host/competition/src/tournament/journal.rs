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
    file: Mutex<File>,
    done: HashMap<(String, usize), GameResult>,
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
                let Ok(v) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                let (Some(id), Some(index)) = (v["match"].as_str(), v["index"].as_u64()) else {
                    continue;
                };
                if let Ok(result) = serde_json::from_value::<GameResult>(v["result"].clone()) {
                    done.insert((id.to_string(), index as usize), result);
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
            file: Mutex::new(file),
            done,
        })
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Games already finished when the journal was opened.
    pub fn finished(&self) -> usize {
        self.done.len()
    }

    /// A game finished in an earlier run, if its record fits a match of
    /// `bots` bots; a damaged line is ignored and the game played again.
    pub fn get(&self, id: &str, index: usize, bots: usize) -> Option<GameResult> {
        let r = self.done.get(&(id.to_string(), index))?;
        let fits = r.seats.len() == bots
            && r.seats.iter().all(|&b| b < bots)
            && r.scores.len() == bots
            && r.winner.is_none_or(|w| w < bots)
            && r.positions.as_ref().is_none_or(|p| p.len() == bots)
            && r.forfeits.iter().chain(&r.forfeit).all(|f| f.seat < bots);
        fits.then(|| r.clone())
    }

    /// Append a finished game. Each line is written whole, so a kill can cut
    /// at most the last line, which the next run ignores and replays.
    pub fn record(&self, id: &str, index: usize, result: &GameResult) {
        let line = format!("{}\n", json!({"match": id, "index": index, "result": result}));
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        // A full disk loses resumability, not results: the game is still reported.
        let _ = file.write_all(line.as_bytes());
    }
}
