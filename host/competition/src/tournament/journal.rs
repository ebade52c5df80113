//! The journal: every finished game of a tournament, one JSON line each, so a
//! stopped tournament resumes where it stopped and plays no game twice.

use super::MatchTally;
use crate::runner::GameResult;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A tournament's journal file, `journal.jsonl` in the output folder.
pub struct Journal {
    path: PathBuf,
    /// `None` for a journal kept in memory only.
    file: Option<Mutex<File>>,
    /// What games finished before this run came to, per match: read line by
    /// line into totals, so resuming or merging a million games holds no
    /// more than the matches' totals.
    done: Mutex<HashMap<String, MatchTally>>,
}

/// Fold the game lines of a journal file into `done`, after checking its
/// first line is `header`; returns the games counted and whether the file
/// ends with a whole line.
fn read_into(
    path: &Path,
    header: &Value,
    done: &mut HashMap<String, MatchTally>,
    wrong_header: impl FnOnce() -> String,
) -> Result<(usize, bool), String> {
    let cannot = |e: std::io::Error| format!("{}: cannot read: {e}", path.display());
    let mut file = File::open(path).map_err(cannot)?;
    let whole = match file.seek(SeekFrom::End(-1)) {
        Ok(_) => {
            let mut last = [0u8];
            file.read_exact(&mut last).map_err(cannot)?;
            file.seek(SeekFrom::Start(0)).map_err(cannot)?;
            last[0] == b'\n'
        }
        Err(_) => true,
    };
    let mut lines = BufReader::new(file).lines();
    let first: Option<Value> = lines
        .next()
        .and_then(Result::ok)
        .and_then(|l| serde_json::from_str(&l).ok());
    if first.as_ref() != Some(header) {
        return Err(wrong_header());
    }
    let mut read = 0;
    for line in lines {
        let line = line.map_err(cannot)?;
        // A line cut short by a kill, or damaged, is simply not done yet.
        let Some((id, index, mut result)) = parse(&line) else {
            continue;
        };
        result.index = index;
        let tally = done.entry(id).or_insert_with(|| MatchTally::new(result.seats.len()));
        if tally.add(&result) {
            read += 1;
        }
    }
    Ok((read, whole))
}

impl Journal {
    /// Open (or start) the journal in `dir` for the tournament described by `header`.
    /// A journal of a different tournament is an error, never overwritten.
    pub fn open(dir: &Path, header: &Value) -> Result<Journal, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot create the output folder: {e}", dir.display()))?;
        let path = dir.join("journal.jsonl");
        let mut done = HashMap::new();
        if path.exists() {
            let (_, whole) = read_into(&path, header, &mut done, || {
                format!(
                    "{}: this folder holds another tournament (different game, bots, format or settings); use another --out or delete it",
                    path.display()
                )
            })?;
            // Drop a cut-short last line so new lines start on a line of their own.
            if !whole {
                let repair = |e: std::io::Error| format!("{}: cannot repair: {e}", path.display());
                let text = std::fs::read(&path).map_err(repair)?;
                let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                let file = OpenOptions::new().write(true).open(&path).map_err(repair)?;
                file.set_len(keep as u64).map_err(repair)?;
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
        let done = self.done.get_mut().unwrap_or_else(|e| e.into_inner());
        let (read, _) = read_into(path, header, done, || {
            format!("{}: this journal belongs to another plan", path.display())
        })?;
        Ok(read)
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Games already finished when the journal was opened.
    pub fn finished(&self) -> usize {
        self.done
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .map(|t| t.played)
            .sum()
    }

    /// What an earlier run finished of match `id`, if it fits a match of
    /// `bots` bots and `games` games; handed over, not copied. A tally that
    /// does not fit (a damaged journal) is dropped and the match played again.
    pub fn take(&self, id: &str, bots: usize, games: usize) -> Option<MatchTally> {
        let t = self.done.lock().unwrap_or_else(|e| e.into_inner()).remove(id)?;
        (t.totals.len() == bots && t.within(games)).then_some(t)
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
