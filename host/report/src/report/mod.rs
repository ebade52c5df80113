//! Reports you can open: `index.html` in the `--out` folder of
//! `arena tournament` and `arena grade-class`, and beside it `replays/*.html`,
//! one replay page (made by [`crate::view::page`]) per chosen match or
//! rubric item: every forfeit (the first [`FORFEITS_SHOWN`] of each bot in
//! each match or item) and a sample game of each. Games are not recorded
//! while a tournament or a grading runs; the chosen units are played again
//! from their `MatchSpec` with `record: true`, and since a game is its seed
//! and its bots, the replay is the game that was scored.
//!
//! The pages are plain HTML tables with inline styles: no script, nothing
//! loaded (their Content-Security-Policy forbids it), so they open from a
//! folder, a zip or a course site alike.

mod class;
pub mod standings;
mod tournament;

pub use class::{ClassPage, ClassReport, class_index, class_pages};
pub use tournament::{tournament_index, tournament_pages};

use anyhow::Context;
use arena_core::Forfeit;
use arena_runner::runner::{GameResult, MatchSpec, Played, play_unit, units, whole_rotations};
pub use arena_runner::text::{csv_field, points};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;

/// Forfeits shown per bot per match (or rubric item); the rest are counted.
pub const FORFEITS_SHOWN: usize = arena_competition::tournament::FORFEITS_KEPT;
/// At most this many replay pages; pages with a forfeit come first.
pub const MAX_PAGES: usize = 300;
/// At most this many bytes of replay pages in all.
pub const MAX_REPLAY_BYTES: usize = 48 << 20;
pub use arena_grading::files::{INDEX, REPLAYS};

/// A replay page to make: chosen games of one match.
pub struct PageJob<'a> {
    /// The page's file name inside `replays/`.
    pub file: String,
    /// What the match is, e.g. `alice vs bob, round robin (10 games)`.
    pub title: String,
    /// The match as it was scored (unrecorded; it is played again recorded).
    pub spec: MatchSpec<'a>,
    /// The games to show, by index, each with what it is and its scored result.
    pub games: Vec<Chosen>,
    /// What was left out (forfeits beyond the cap), for the page's note.
    pub left_out: Option<String>,
    /// Whether it shows a forfeit: such pages come first under the caps.
    pub forfeit: bool,
    /// A page of less interest (a seeding match): last under the caps.
    pub minor: bool,
    /// The one bot (by entrant index) whose viewer the page is made for:
    /// the others' logs and hidden cards are left out, as the course
    /// server shows a student their graded games. `None`: everything, for
    /// the teacher's own offline report.
    pub shown_to: Option<usize>,
}

/// One game chosen for a replay page.
pub struct Chosen {
    /// Its index in the match.
    pub index: usize,
    /// What it is, e.g. `forfeit of alice (trap: ...)`.
    pub what: String,
    /// The result that was scored, to check the replay against.
    pub scored: Option<GameResult>,
    /// Whether it was chosen for a forfeit.
    pub forfeit: bool,
}

/// A replay page written.
#[derive(Debug, Clone)]
pub struct PageLink {
    /// Its address from `index.html`, e.g. `replays/rr-0-1.html`.
    pub href: String,
    /// The games on it, by index in the match.
    pub games: Vec<usize>,
    /// How many of them were chosen for a forfeit.
    pub forfeits: usize,
    /// Its size in bytes.
    pub bytes: usize,
}

/// The replay pages of a report, in the order of their jobs (`None`: left out by a cap).
#[derive(Debug, Default)]
pub struct Replays {
    /// Per job, its page.
    pub pages: Vec<Option<PageLink>>,
    /// Bytes of every page written.
    pub bytes: usize,
    /// Pages left out by [`MAX_PAGES`] or [`MAX_REPLAY_BYTES`].
    pub left_out: usize,
    /// Replays that did not come out as the game scored (should be none).
    pub mismatches: usize,
}

impl Replays {
    /// The sentence an index ends with: how many pages, how big, what was left out.
    pub fn summary(&self) -> String {
        let written = self.pages.iter().flatten().count();
        let mut s = format!(
            "{written} replay page{} in {REPLAYS}/, {} in all",
            if written == 1 { "" } else { "s" },
            size(self.bytes)
        );
        if self.left_out > 0 {
            let _ = write!(
                s,
                "; {} more page{} left out to keep the folder small (at most {MAX_PAGES} pages and {}, pages with a forfeit first)",
                self.left_out,
                if self.left_out == 1 { " was" } else { "s were" },
                size(MAX_REPLAY_BYTES)
            );
        }
        if self.mismatches > 0 {
            let _ = write!(
                s,
                "; warning: {} replay{} did not come out as the game scored (see the page's note)",
                self.mismatches,
                if self.mismatches == 1 { "" } else { "s" }
            );
        }
        s + "."
    }
}

/// A size for people: `812 KB`, `3.4 MB`.
pub fn size(bytes: usize) -> String {
    if bytes < 1_000_000 {
        format!("{} KB", bytes.div_ceil(1000))
    } else {
        format!("{:.1} MB", bytes as f64 / 1e6)
    }
}

/// The games of a match worth a replay, from its scored results: the first
/// [`FORFEITS_SHOWN`] forfeits of each bot for which `watch(local bot)` holds,
/// and `sample` (or the first game without a forfeit, else game 0).
/// Returns the chosen games and per bot the forfeits left out.
pub fn pick(
    results: &[GameResult],
    names: &[String],
    watch: impl Fn(usize) -> bool,
    sample: Option<(usize, String)>,
) -> (Vec<Chosen>, BTreeMap<usize, usize>) {
    let mut shown: BTreeMap<usize, usize> = BTreeMap::new();
    let mut more: BTreeMap<usize, usize> = BTreeMap::new();
    let mut chosen: BTreeMap<usize, Chosen> = BTreeMap::new();
    for r in results {
        let mut take = false;
        for f in &r.forfeits {
            let Some(&bot) = r.seats.get(f.seat) else { continue };
            if !watch(bot) {
                continue;
            }
            let n = shown.entry(bot).or_default();
            if *n < FORFEITS_SHOWN {
                *n += 1;
                take = true;
            } else {
                *more.entry(bot).or_default() += 1;
            }
        }
        if take {
            chosen.insert(
                r.index,
                Chosen {
                    index: r.index,
                    what: forfeits_text(&r.forfeits, &r.seats, names),
                    scored: Some(r.clone()),
                    forfeit: true,
                },
            );
        }
    }
    let sample = sample.or_else(|| {
        results
            .iter()
            .find(|r| r.forfeits.is_empty())
            .or(results.first())
            .map(|r| (r.index, "a sample game".to_string()))
    });
    if let Some((index, what)) = sample {
        let scored = results.iter().find(|r| r.index == index).cloned();
        chosen.entry(index).or_insert(Chosen {
            index,
            what,
            scored,
            forfeit: false,
        });
    }
    (chosen.into_values().collect(), more)
}

/// `forfeit of alice (trap: detail)`, for each forfeit of a game.
pub fn forfeits_text(forfeits: &[Forfeit], seats: &[usize], names: &[String]) -> String {
    forfeits
        .iter()
        .map(|f| {
            let name = seats
                .get(f.seat)
                .and_then(|&b| names.get(b))
                .map_or("?", String::as_str);
            let detail = one_line(&f.detail, 120);
            if detail.is_empty() {
                format!("forfeit of {name} ({})", f.reason)
            } else {
                format!("forfeit of {name} ({}: {detail})", f.reason)
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The first line of `text`, at most `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    if line.chars().count() > max {
        format!("{}...", line.chars().take(max).collect::<String>())
    } else {
        line.to_string()
    }
}

/// Make and write the pages of `jobs` in `dir/replays/`, within the caps:
/// pages with a forfeit first, then the others in order. Runs on the
/// current rayon pool. Pages an earlier run left in the folder are removed.
pub fn write_replays(dir: &Path, jobs: &[PageJob<'_>]) -> anyhow::Result<Replays> {
    let folder = dir.join(REPLAYS);
    std::fs::create_dir_all(&folder).with_context(|| format!("{}: cannot create", folder.display()))?;
    if let Ok(entries) = std::fs::read_dir(&folder) {
        for e in entries.filter_map(Result::ok) {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "html") {
                let _ = std::fs::remove_file(p);
            }
        }
    }
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| (!jobs[i].forfeit, jobs[i].minor, i));
    order.truncate(MAX_PAGES);
    let made: Vec<(usize, anyhow::Result<(String, bool)>)> =
        order.par_iter().map(|&i| (i, make_page(&jobs[i]))).collect();
    let mut out = Replays {
        pages: vec![None; jobs.len()],
        bytes: 0,
        left_out: jobs.len() - made.len(),
        mismatches: 0,
    };
    for (i, page) in made {
        let (html, same) = page?;
        if out.bytes + html.len() > MAX_REPLAY_BYTES {
            out.left_out += 1;
            continue;
        }
        let path = folder.join(&jobs[i].file);
        std::fs::write(&path, &html).with_context(|| format!("{}: cannot write", path.display()))?;
        out.bytes += html.len();
        out.mismatches += usize::from(!same);
        out.pages[i] = Some(PageLink {
            href: format!("{REPLAYS}/{}", jobs[i].file),
            games: jobs[i].games.iter().map(|c| c.index).collect(),
            forfeits: jobs[i].games.iter().filter(|c| c.forfeit).count(),
            bytes: html.len(),
        });
    }
    Ok(out)
}

/// One page: the job's games played again, recorded; and whether each
/// came out as the game that was scored.
fn make_page(job: &PageJob<'_>) -> anyhow::Result<(String, bool)> {
    let spec = MatchSpec {
        game: job.spec.game,
        setup: job.spec.setup.clone(),
        entrants: job.spec.entrants.clone(),
        games: job.spec.games,
        seed: job.spec.seed,
        record: true,
    };
    let wanted: BTreeSet<usize> = job.games.iter().map(|c| c.index).collect();
    let mut played: BTreeMap<usize, Played> = BTreeMap::new();
    for unit in units(&spec).iter().filter(|u| u.iter().any(|g| wanted.contains(g))) {
        for p in play_unit(&spec, unit).with_context(|| format!("replaying {}", job.title))? {
            if wanted.contains(&p.result.index) {
                played.insert(p.result.index, p);
            }
        }
    }
    let n = spec.entrants.len();
    let variant = spec
        .setup
        .variant
        .clone()
        .unwrap_or_else(|| spec.game.variants()[0].to_string());
    let header = arena_runner::replay::match_header(
        spec.game.name(),
        &variant,
        spec.setup.illegal,
        spec.seed,
        whole_rotations(spec.games, n),
        spec.setup.sandbox.limits(),
        &spec.entrants,
    );
    let games: Vec<Vec<serde_json::Value>> = played
        .values()
        .map(|p| {
            let lines = arena_runner::replay::game_lines(&p.result, &p.events.values(), &spec.entrants);
            match job.shown_to {
                // What one bot's viewer may see, decided with the header (which names the game).
                Some(bot) => {
                    let mut all = Vec::with_capacity(lines.len() + 1);
                    all.push(header.clone());
                    all.extend(lines);
                    arena_runner::replay::for_viewer(&mut all, &|b| b == bot);
                    all.split_off(1)
                }
                None => lines,
            }
        })
        .collect();
    let names: Vec<String> = spec.entrants.iter().map(|e| e.name.clone()).collect();
    let (note, same) = page_note(job, &played, &names);
    let (html, _) = crate::view::page_in_report(&header, &games, Some(&note), "../index.html");
    Ok((html, same))
}

/// The note above a replay page: what it shows, what each game is (games
/// that are the same thing share one sentence), a game that came out other
/// than scored, and what was left out. `false` when a game differed.
fn page_note(job: &PageJob<'_>, played: &BTreeMap<usize, Played>, names: &[String]) -> (String, bool) {
    let mut note = format!("{}.", job.title);
    let mut same = true;
    // Games that are the same thing (a bot that forfeits every game the
    // same way) share one sentence: `Games 0, 1, 2: forfeit of ...`.
    let mut whats: Vec<(String, Vec<usize>)> = Vec::new();
    let mut warnings = String::new();
    for c in &job.games {
        // A game chosen for its forfeit says which, from the game played again.
        let what = match played.get(&c.index) {
            Some(p) if c.what.is_empty() && !p.result.forfeits.is_empty() => {
                forfeits_text(&p.result.forfeits, &p.result.seats, names)
            }
            Some(_) if c.what.is_empty() => "a game without a forfeit when played again".to_string(),
            _ => c.what.clone(),
        };
        match whats.iter_mut().find(|(w, _)| *w == what) {
            Some((_, games)) => games.push(c.index),
            None => whats.push((what, vec![c.index])),
        }
        match (played.get(&c.index), &c.scored) {
            (Some(p), Some(scored)) if &p.result != scored => {
                same = false;
                let _ = write!(
                    warnings,
                    " Warning: played again, game {} did not come out as the game scored.",
                    c.index
                );
            }
            (None, _) => {
                let _ = write!(warnings, " (Game {} is not in this match.)", c.index);
            }
            _ => {}
        }
    }
    for (what, games) in &whats {
        let list: Vec<String> = games.iter().map(usize::to_string).collect();
        let _ = write!(
            note,
            " Game{} {}: {what}.",
            if games.len() == 1 { "" } else { "s" },
            list.join(", ")
        );
    }
    note.push_str(&warnings);
    if let Some(left) = &job.left_out {
        let _ = write!(note, " Not shown: {left}.");
    }
    (note, same)
}

/// Text for HTML: `&`, `<`, `>`, `"` and `'` escaped.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A file name from free text (a match id, a student id): letters, digits, `-`, `_`, `.`.
pub fn file_name(text: &str) -> String {
    let s: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let s = s.trim_start_matches('.').to_string();
    if s.is_empty() { "page".into() } else { s }
}

/// An anchor id from free text.
pub fn anchor(prefix: &str, text: &str) -> String {
    // Letters of every script stay: students named 李雷 and 韩梅 need two anchors.
    let id: String = text
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("{prefix}-{id}")
}

/// What a link to a replay page says: `replay: 3 forfeits`, `replay: game 4`.
pub fn link_label(page: &PageLink, sample: &str) -> String {
    let others = page.games.len() - page.forfeits.min(page.games.len());
    let f = match page.forfeits {
        0 => String::new(),
        1 => "1 forfeit".to_string(),
        n => format!("{n} forfeits"),
    };
    match (f.is_empty(), others) {
        (true, _) => format!("replay: {sample} {}", page.games.first().copied().unwrap_or(0)),
        (false, 0) => format!("replay: {f}"),
        (false, _) => format!("replay: {f}, {sample}"),
    }
}

/// A link to a replay page, or a note that it was left out.
pub fn replay_link(page: Option<&PageLink>, label: &str) -> String {
    match page {
        Some(p) => format!("<a href=\"{}\">{}</a>", esc(&p.href), esc(label)),
        None => "<span class=\"muted\">left out (cap)</span>".to_string(),
    }
}

const CSS: &str = "
:root{color-scheme:light}
body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;margin:0 auto;max-width:1180px;padding:20px 28px 60px;color:#1d2330;background:#fff}
h1{font-size:1.7em;margin:.2em 0 .1em}
h2{font-size:1.3em;margin:1.8em 0 .5em;border-bottom:2px solid #e3e6ee;padding-bottom:.2em}
h3{font-size:1.08em;margin:1.3em 0 .3em}
p{margin:.4em 0}
.meta{color:#4a5263;margin:.2em 0 .8em}
nav{margin:.6em 0 1em;padding:.5em .8em;background:#f4f6fa;border-radius:6px}
nav a{margin-right:1.1em}
table{border-collapse:collapse;margin:.5em 0 1em;font-variant-numeric:tabular-nums}
th,td{padding:4px 10px;border-bottom:1px solid #e3e6ee;text-align:left;vertical-align:top}
th{background:#f4f6fa;font-weight:600;white-space:nowrap}
.num{text-align:right;white-space:nowrap}
tbody tr:hover td{background:#fafbfd}
a{color:#1a56c4}
.muted{color:#7a8194}
.bad{color:#a8001c;font-weight:600}
.good{color:#1b7a2f;font-weight:600}
.ff{display:inline-block;background:#fde8ea;color:#8a0016;border-radius:8px;padding:0 7px;font-size:.88em}
.ok{display:inline-block;background:#e6f4ea;color:#1b5e2c;border-radius:8px;padding:0 7px;font-size:.88em}
.why{color:#8a0016}
.wide{overflow-x:auto}
.gb th{white-space:normal;max-width:8em}
.gb td:last-child{min-width:12em}
.nw{white-space:nowrap}
ul.reading{margin:.3em 0 1em 1.2em;padding:0}
details{margin:.25em 0;border:1px solid #e3e6ee;border-radius:6px;padding:.3em .8em}
details[open]{padding-bottom:.6em}
summary{cursor:pointer;font-weight:600}
.bracket{display:flex;gap:14px;overflow-x:auto;align-items:flex-start;padding-bottom:6px}
.round{min-width:200px}
.round h4{margin:.2em 0 .4em;font-size:.95em;color:#4a5263}
.match{border:1px solid #cfd5e2;border-radius:6px;margin:0 0 10px;padding:3px 8px;background:#fbfcfe}
.match div{display:flex;justify-content:space-between;gap:10px}
.match .w{font-weight:700}
.match .l{color:#6a7183}
.match .foot{font-size:.85em;color:#6a7183;border-top:1px dashed #dde2ec;margin-top:2px;padding-top:1px}
.seed{color:#8a91a3;font-size:.85em;margin-right:4px}
footer{margin-top:2.5em;color:#6a7183;font-size:.9em;border-top:1px solid #e3e6ee;padding-top:.6em}
@media print{nav{display:none}details{border:none}}
";

/// A whole page: `title`, then `body`; inline styles, no script, nothing loaded.
pub fn html_page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<meta name=\"generator\" content=\"arena {}\">\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n",
        arena_runner::VERSION,
        esc(title)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_text_are_safe_in_html_and_file_names() {
        assert_eq!(esc("<a href=\"x\">'&"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;");
        assert_eq!(file_name("rr:0:1"), "rr-0-1");
        assert_eq!(file_name("../etc/passwd"), "-etc-passwd");
        assert_eq!(file_name(""), "page");
    }
}
