//! The journal: every finished game of a tournament, one JSON line each, so a
//! stopped tournament resumes where it stopped and plays no game twice.

use super::MatchTally;
use arena_runner::runner::GameResult;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
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
    done: Mutex<Done>,
}

/// Finished games per match, by its id and number of bots: a damaged line
/// that names another number of bots never hides the match's good lines.
type Done = HashMap<(String, usize), MatchTally>;

/// Fold the game lines of a journal file into `done`, after checking its
/// first line is `header`; returns the games counted and the length of
/// the file up to its last whole line. Lines are read as bytes, one at a
/// time: a line cut short by a kill (even inside a character) is not done
/// yet, and neither the file nor its text is ever held whole.
fn read_into(
    path: &Path,
    header: &Value,
    done: &mut Done,
    wrong_header: impl FnOnce() -> String,
) -> Result<(usize, u64), String> {
    let cannot = |e: std::io::Error| format!("{}: cannot read: {e}", path.display());
    let mut reader = BufReader::new(File::open(path).map_err(cannot)?);
    let mut line = Vec::new();
    let mut whole = reader.read_until(b'\n', &mut line).map_err(cannot)? as u64;
    let first: Option<Value> = serde_json::from_slice(&line).ok();
    if line.last() != Some(&b'\n') || first.as_ref() != Some(header) {
        return Err(wrong_header());
    }
    let mut read = 0;
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(cannot)?;
        if n == 0 || line.last() != Some(&b'\n') {
            break;
        }
        whole += n as u64;
        // A damaged line is simply not done yet.
        let Some((id, index, mut result)) = parse(&line) else {
            continue;
        };
        result.index = index;
        let bots = result.seats.len();
        let tally = done.entry((id, bots)).or_insert_with(|| MatchTally::new(bots));
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
            let repair = |e: std::io::Error| format!("{}: cannot repair: {e}", path.display());
            if std::fs::metadata(&path).map_err(repair)?.len() > whole {
                let file = OpenOptions::new().write(true).open(&path).map_err(repair)?;
                file.set_len(whole).map_err(repair)?;
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
        let t = self
            .done
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&(id.to_string(), bots))?;
        t.within(games).then_some(t)
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
fn parse(line: &[u8]) -> Option<(String, usize, GameResult)> {
    #[derive(serde::Deserialize)]
    struct Line {
        #[serde(rename = "match")]
        id: String,
        index: usize,
        result: GameResult,
    }
    let l: Line = serde_json::from_slice(line).ok()?;
    Some((l.id, l.index, l.result))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(index: usize, seats: Vec<usize>) -> GameResult {
        GameResult {
            index,
            seed: 7,
            scores: vec![1; seats.len()],
            seats,
            winner: Some(0),
            forfeit: None,
            forfeits: Vec::new(),
            positions: None,
            illegal: Vec::new(),
        }
    }

    fn line(id: &str, g: &GameResult) -> String {
        format!("{}\n", json!({"match": id, "index": g.index, "result": g}))
    }

    #[test]
    fn a_line_cut_inside_a_character_is_dropped_and_a_stray_line_hides_nothing() {
        let dir = std::env::temp_dir().join(format!("arena-journal-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let header = json!({"tournament": "t"});
        let mut text = format!("{header}\n");
        // A damaged line that names three bots comes first; the match has two.
        text += &line("rr:0:1", &game(0, vec![0, 1, 2]));
        for i in 0..4 {
            text += &line("rr:0:1", &game(i, vec![i % 2, 1 - i % 2]));
        }
        let whole = text.len();
        // A kill cut the last line inside "é" (two bytes in UTF-8).
        let mut cut = line("rr:0:1", &game(4, vec![0, 1]))
            .replace("\"seed\"", "\"é\":1,\"seed\"")
            .into_bytes();
        cut.truncate(cut.iter().position(|&b| b == 0xc3).unwrap() + 1);
        let mut bytes = text.into_bytes();
        bytes.extend(cut);
        std::fs::write(dir.join("journal.jsonl"), bytes).unwrap();
        let j = Journal::open(&dir, &header).unwrap();
        assert_eq!(
            std::fs::metadata(dir.join("journal.jsonl")).unwrap().len(),
            whole as u64
        );
        let t = j.take("rr:0:1", 2, 10).expect("the match's good lines");
        assert_eq!(t.played, 4);
        assert!((0..4).all(|i| t.has(i)) && !t.has(4));
        std::fs::remove_dir_all(&dir).ok();
    }
}
