//! What the ladder's parts share: the leaderboard, the entrants now on the
//! ladder, a finished match, a lease on matches and why a result was not taken.

use crate::db::Secret;
use crate::play::Outcome;
use serde::Serialize;
use std::collections::HashMap;

/// One row of the leaderboard.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Row {
    /// The rank (1 = best).
    pub rank: usize,
    /// The ranks the differences allow: best and worst (equal when no one
    /// is within noise); `[0, 0]` when not ranked.
    pub ranks: [usize; 2],
    /// It has games: a version without any has only the prior, so no rank
    /// (it is listed last, and its rating only steers matchmaking).
    pub ranked: bool,
    /// `s<submission id>` or `house:<name>`.
    pub key: String,
    /// The student's database id; none for a house bot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub person: Option<i64>,
    /// The name shown (a pseudonym when the teacher hides names).
    pub name: String,
    /// The student's own name (the teacher always sees it).
    #[serde(skip)]
    pub real_name: String,
    /// The rating (Elo scale, 1500 the mean of the versions whose games pin them down).
    pub rating: f64,
    /// Its 95% interval.
    pub interval: [f64; 2],
    /// Games played by this version on the ladder.
    pub games: u32,
    /// Its mean score a game (a solitaire's measure, what its rubric grades); none without games.
    pub mean_score: Option<f64>,
    /// Its mean finishing position at a table (1 = first); none elsewhere or without games.
    pub mean_position: Option<f64>,
    /// Games won, drawn and lost (at a table: first, between, last; a
    /// solitaire: deals on which its score beat, tied or trailed the other's).
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
    /// The version on the ladder; none for a house bot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
    /// When that version was submitted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submitted: Option<String>,
    /// A house bot.
    pub house: bool,
}

/// The leaderboard as last fitted.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Board {
    /// Best first.
    pub rows: Vec<Row>,
    /// Ladder matches whose games count (among the current versions).
    pub matches: usize,
    /// Their games.
    pub games: usize,
    /// When it was fitted.
    pub fitted_at: String,
    /// Names are hidden.
    pub pseudonyms: bool,
    /// No new matches.
    pub frozen: bool,
    /// Counts the fits: a page rendered from one board is rendered once.
    pub serial: u64,
    /// The matches this server had folded when it was fitted.
    #[serde(skip)]
    pub through: u64,
}

/// An entrant now on the ladder.
#[derive(Debug, Clone)]
pub(crate) struct Current {
    pub(crate) key: String,
    pub(crate) person: Option<i64>,
    pub(crate) name: String,
    pub(crate) version: Option<i64>,
    pub(crate) submitted: Option<String>,
    pub(crate) id: i64,
}

/// A finished match, as the ladder keeps it in memory.
#[derive(Debug, Clone)]
pub struct Done {
    /// The match's id.
    pub id: i64,
    /// Its entrants' keys.
    pub keys: Vec<String>,
    /// What it gave.
    pub outcome: Outcome,
    /// When it finished.
    pub finished_at: String,
    /// Who played the result that counts: a worker's id, or 0 for a server.
    pub by: i64,
    /// A server played a worker's result again and got the same.
    pub verified: bool,
}

/// The scheduler's count of matches per entrant, kept up to date by reading
/// only the rows added since (every server's); read in full again now and
/// then, which also takes in rows another server dropped or committed late.
#[derive(Default)]
pub(crate) struct Counted {
    /// The highest row id read.
    pub(crate) last: i64,
    /// Matches per entrant key.
    pub(crate) counts: HashMap<String, u64>,
    /// When the counts were last read in full.
    pub(crate) full: Option<std::time::Instant>,
}

/// Why a result was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Untaken {
    /// The lease expired or its result already came.
    NotLeased,
    /// It does not fit the match.
    Malformed(String),
}

/// The opaque part of student `person`'s ladder page address
/// (`/ladder/people/HANDLE`), drawn from the course's secret: a database id
/// follows roster order and would undo a pseudonym. It begins with a
/// letter, so no handle ever reads as an id.
pub fn handle(secret: &Secret, person: i64) -> String {
    format!("p{:016x}", secret.derive("ladder-page", person))
}

/// A stable, friendly name for a student whose name is hidden: an
/// adjective, an animal and a number, all drawn from the course's secret,
/// so nothing in it (not the number either) tells who it is. With 230,400
/// names a class of 200 has two students of one name about once in twelve
/// courses; the leaderboard then tells them apart by their rows.
pub fn pseudonym(secret: &Secret, person: i64) -> String {
    const ADJECTIVES: [&str; 16] = [
        "Amber", "Brisk", "Calm", "Daring", "Eager", "Fleet", "Gentle", "Hardy", "Keen", "Lucky", "Merry", "Nimble",
        "Quiet", "Rapid", "Steady", "Witty",
    ];
    const ANIMALS: [&str; 16] = [
        "Badger", "Crane", "Dolphin", "Falcon", "Gecko", "Heron", "Ibex", "Jackal", "Koala", "Lynx", "Marten", "Newt",
        "Otter", "Puffin", "Raven", "Stoat",
    ];
    let h = secret.derive("pseudonym", person);
    format!(
        "{} {} {}",
        ADJECTIVES[(h % 16) as usize],
        ANIMALS[((h >> 8) % 16) as usize],
        100 + (h >> 16) % 900
    )
}
