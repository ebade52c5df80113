//! The tournament report: standings, the bracket or the rounds, each bot's
//! matches, and links to the replay pages.

use super::{PageJob, PageLink, Replays, anchor, esc, file_name, html_page, pick, points, replay_link};
use arena_competition::tournament::{
    Bracket, BracketMatch, FORFEITS_KEPT, Format, MatchRecord, TournamentReport, TournamentSpec, match_spec,
};
use arena_core::Kind;
use std::fmt::Write;

/// What a match is, from its id: `round robin`, `Swiss round 2`, `winners' round 1`...
fn label(id: &str, kind: Kind) -> String {
    let mut parts = id.split(':');
    let head = parts.next().unwrap_or("");
    let n = |s: Option<&str>| s.and_then(|x| x.parse::<usize>().ok()).map_or(0, |x| x + 1);
    match head {
        "rr" if kind == Kind::Table => {
            let (round, table) = (n(parts.next()), n(parts.next()));
            format!("round {round}, table {table}")
        }
        "rr" => "round robin".into(),
        "table" => "round robin (one table)".into(),
        "solo" => "leaderboard".into(),
        "seed" => "seeding round robin".into(),
        "swiss" => format!("Swiss round {}", n(parts.next())),
        "GF" => "grand final".into(),
        "GF2" => "grand final reset".into(),
        h if h.starts_with('W') => format!("winners' round {}", &h[1..]),
        h if h.starts_with('L') => format!("losers' round {}", &h[1..]),
        _ => id.to_string(),
    }
}

/// The round a match belongs to in the list of matches (`None`: one list).
fn group(id: &str, kind: Kind) -> String {
    let l = label(id, kind);
    match l.split_once(", table") {
        Some((round, _)) => round.to_string(),
        None => l,
    }
}

fn names(spec: &TournamentSpec<'_>) -> Vec<String> {
    spec.entrants.iter().map(|e| e.name.clone()).collect()
}

/// The match's result in words: `alice 7 - 3 bob`, mean positions, or a mean score.
fn score(m: &MatchRecord, names: &[String], kind: Kind) -> String {
    let name = |local: usize| names.get(m.bots[local]).map_or("?", String::as_str);
    match kind {
        Kind::Duel if m.bots.len() == 2 => {
            let p = m.points();
            format!("{} {} - {} {}", name(0), points(p[0]), points(p[1]), name(1))
        }
        Kind::Table => {
            let pos: Vec<Option<f64>> = m.tally.totals.iter().map(|t| t.mean_position()).collect();
            let list: Vec<String> = (0..m.bots.len())
                .map(|b| format!("{} {}", name(b), pos[b].map_or("-".into(), |x| format!("{x:.2}"))))
                .collect();
            format!("mean position: {}", list.join(", "))
        }
        _ => {
            let s: Vec<Option<f64>> = m.tally.totals.iter().map(|t| t.mean_score()).collect();
            let list: Vec<String> = (0..m.bots.len())
                .map(|b| format!("{} {}", name(b), s[b].map_or("-".into(), |x| format!("{x:.2}"))))
                .collect();
            format!("mean score: {}", list.join(", "))
        }
    }
}

/// Forfeits in a match by bot: `panic 10 (trap 10)`, or `-`.
fn match_forfeits(m: &MatchRecord, names: &[String], only: Option<usize>) -> String {
    // By the bot's place among the entrants, as every list of the report.
    let per: std::collections::BTreeMap<usize, &std::collections::BTreeMap<&'static str, u32>> = m
        .bots
        .iter()
        .zip(&m.tally.totals)
        .filter(|(_, t)| !t.forfeits.is_empty())
        .map(|(&b, t)| (b, &t.forfeits))
        .collect();
    let list: Vec<String> = per
        .iter()
        .filter(|(b, _)| only.is_none_or(|o| o == **b))
        .map(|(b, reasons)| {
            let total: u32 = reasons.values().sum();
            let why: Vec<String> = reasons.iter().map(|(r, c)| format!("{r} {c}")).collect();
            let who = if only.is_some() {
                String::new()
            } else {
                format!("{} ", names.get(*b).map_or("?", String::as_str))
            };
            format!(
                "<span class=\"ff\">{}{total} ({})</span>",
                esc(&who),
                esc(&why.join(", "))
            )
        })
        .collect();
    if list.is_empty() { "-".into() } else { list.join(" ") }
}

/// One replay page per match: its forfeits (the first few per bot) and a sample game.
/// `prefix` starts each file name (the class report's tournament uses `tournament-`).
pub fn tournament_pages<'a>(spec: &TournamentSpec<'a>, report: &TournamentReport, prefix: &str) -> Vec<PageJob<'a>> {
    let all = names(spec);
    let kind = spec.game.kind();
    report
        .matches
        .iter()
        .map(|m| {
            let local: Vec<String> = m.bots.iter().map(|&b| all[b].clone()).collect();
            let (games, _) = pick(&m.tally.kept, &local, |_| true, None);
            // The tally kept each bot's first forfeits; the rest are counted.
            let more: Vec<(usize, u32)> = m
                .tally
                .totals
                .iter()
                .enumerate()
                .map(|(b, t)| (b, t.forfeit_count().saturating_sub(FORFEITS_KEPT as u32)))
                .filter(|(_, n)| *n > 0)
                .collect();
            let left_out: Vec<String> = more
                .iter()
                .map(|(b, n)| {
                    format!(
                        "{n} more forfeit{} of {} in this match",
                        if *n == 1 { "" } else { "s" },
                        local[*b]
                    )
                })
                .collect();
            let who = if local.len() > 4 {
                format!("{} bots", local.len())
            } else {
                local.join(" vs ")
            };
            // The id keeps names unique; the bots' names say what it is.
            let mut file = format!("{}-{}", m.id, local.join("-vs-"));
            if file.len() > 80 {
                file = m.id.clone();
            }
            PageJob {
                file: format!("{prefix}{}.html", file_name(&file)),
                title: format!(
                    "{who}, {} of the {} {} tournament ({} games, match {})",
                    label(&m.id, kind),
                    spec.game.title(),
                    report.format.name(),
                    m.tally.played,
                    m.id
                ),
                spec: match_spec(spec, m),
                games,
                left_out: (!left_out.is_empty()).then(|| left_out.join(", ")),
                forfeit: m.tally.totals.iter().any(|t| !t.forfeits.is_empty()),
                minor: m.id.starts_with("seed:"),
                shown_to: None,
            }
        })
        .collect()
}

fn page_label(page: Option<&PageLink>) -> String {
    let label = page.map_or(String::new(), |p| super::link_label(p, "game"));
    replay_link(page, &label)
}

/// A bot's result in a two-player match, from its side: `won 7 - 3`.
fn own_result(m: &MatchRecord, bot: usize, report: &TournamentReport) -> Option<String> {
    let me = m.bots.iter().position(|&b| b == bot)?;
    if m.bots.len() != 2 {
        return None;
    }
    let p = m.points();
    let (mine, theirs) = (p[me], p[1 - me]);
    // In the bracket a tied match goes to the better seed: say who went through.
    let bracket_winner = report.bracket.as_ref().and_then(|b| {
        b.winners
            .iter()
            .chain(&b.losers)
            .flatten()
            .chain(&b.grand_final)
            .find(|x| x.id == m.id)
            .and_then(|x| x.winner)
    });
    let word = match (bracket_winner, mine.total_cmp(&theirs)) {
        (Some(w), _) if w == bot => "won",
        (Some(_), _) => "lost",
        (None, std::cmp::Ordering::Greater) => "won",
        (None, std::cmp::Ordering::Less) => "lost",
        (None, std::cmp::Ordering::Equal) => "drew",
    };
    Some(format!("{word} {} - {}", points(mine), points(theirs)))
}

/// What the report's sections are drawn from.
struct Sections<'r> {
    report: &'r TournamentReport,
    kind: Kind,
    /// Every bot's name, by index.
    all: Vec<String>,
    pages: &'r [Option<PageLink>],
    /// The prefix of every anchor.
    id: &'r str,
}

impl Sections<'_> {
    fn page(&self, m: usize) -> Option<&PageLink> {
        self.pages.get(m).and_then(Option::as_ref)
    }
}

/// The report's sections (standings, bracket or rounds, each bot's matches),
/// with anchors prefixed by `id` so a class report can hold one too.
pub fn sections(spec: &TournamentSpec<'_>, report: &TournamentReport, pages: &[Option<PageLink>], id: &str) -> String {
    let c = Sections {
        report,
        kind: spec.game.kind(),
        all: names(spec),
        pages,
        id,
    };
    let mut s = standings_table(&c);
    s.push_str(&standings_notes(&c));
    if let Some(b) = &report.bracket {
        s.push_str(&bracket(b, report, pages, id));
    }
    s.push_str(&matches_by_round(&c));
    s.push_str(&results_by_bot(&c));
    s
}

/// The standings: every column of the text report, then points.
fn standings_table(c: &Sections<'_>) -> String {
    let (report, kind, id) = (c.report, c.kind, c.id);
    let mut s = String::new();
    let extra = match report.format {
        Format::Swiss => Some("match pts"),
        Format::DoubleElimination => Some("placement"),
        Format::RoundRobin => None,
    };
    let _ = writeln!(s, "<h2 id=\"{id}standings\">Standings</h2>");
    if !report.complete {
        let _ = writeln!(
            s,
            "<p class=\"bad\">The tournament was stopped: these standings are partial.</p>"
        );
    }
    let _ = write!(
        s,
        "<table class=\"standings\"><thead><tr><th class=\"num\">rank</th><th>bot</th><th class=\"num\">games</th><th class=\"num\">{}</th>",
        esc(arena_competition::tournament::measure_name(&report.standings))
    );
    if kind != Kind::Solitaire {
        let _ = write!(s, "<th class=\"num\">points</th>");
    }
    let _ = write!(s, "<th class=\"num\">rating [95%]</th>");
    if let Some(e) = extra {
        let _ = write!(s, "<th>{e}</th>");
    }
    let _ = writeln!(s, "<th>forfeits</th></tr></thead><tbody>");
    for (i, r) in report.standings.iter().enumerate() {
        let _ = write!(
            s,
            "<tr><td class=\"num\">{}</td><td><a href=\"#{}\">{}</a></td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
            arena_competition::tournament::rank_text(&report.standings, i),
            anchor(&format!("{id}bot"), &r.name),
            esc(&r.name),
            r.games,
            esc(&r.measure_text())
        );
        if kind != Kind::Solitaire {
            let _ = write!(s, "<td class=\"num\">{}</td>", points(r.points));
        }
        let _ = write!(s, "<td class=\"num\">{}</td>", esc(&r.rating_text()));
        match report.format {
            Format::Swiss => {
                let _ = write!(
                    s,
                    "<td class=\"num\">{}</td>",
                    r.match_points.map_or(String::new(), |p| format!("{p}"))
                );
            }
            Format::DoubleElimination => {
                let _ = write!(s, "<td>{}</td>", esc(r.placement.as_deref().unwrap_or("")));
            }
            Format::RoundRobin => {}
        }
        let f = r.forfeits_text();
        if f == "-" {
            let _ = writeln!(s, "<td>-</td></tr>");
        } else {
            let _ = writeln!(s, "<td><span class=\"ff\">{}</span></td></tr>", esc(&f));
        }
    }
    let _ = writeln!(s, "</tbody></table>");
    s
}

/// The bots left out of the tournament, and how to read the standings.
fn standings_notes(c: &Sections<'_>) -> String {
    let (report, id) = (c.report, c.id);
    let mut s = String::new();
    if !report.disqualified.is_empty() {
        let _ = writeln!(
            s,
            "<h3 id=\"{id}disqualified\">Disqualified (not in the tournament)</h3><table><thead><tr><th>bot</th><th>reason</th></tr></thead><tbody>"
        );
        for d in &report.disqualified {
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td class=\"why\">{}</td></tr>",
                esc(&d.name),
                esc(&d.reason)
            );
        }
        let _ = writeln!(s, "</tbody></table>");
    }
    if !report.reading.is_empty() {
        let _ = writeln!(s, "<h3>Reading the standings</h3><ul class=\"reading\">");
        for line in &report.reading {
            let _ = writeln!(s, "<li>{}</li>", esc(line));
        }
        let _ = writeln!(s, "</ul>");
    }
    s
}

/// Every match, by round (a bracket is drawn on its own, so only the
/// seeding round robin of double elimination is listed for it).
fn matches_by_round(c: &Sections<'_>) -> String {
    let (report, kind, id, all) = (c.report, c.kind, c.id, &c.all);
    let mut s = String::new();
    let listed: Vec<usize> = (0..report.matches.len())
        .filter(|&m| report.bracket.is_none() || report.matches[m].id.starts_with("seed:"))
        .collect();
    if !listed.is_empty() {
        let title = match report.format {
            Format::Swiss => "Swiss rounds",
            Format::DoubleElimination => "Seeding round robin",
            Format::RoundRobin if kind == Kind::Solitaire => "Games",
            Format::RoundRobin => "Matches",
        };
        let _ = writeln!(s, "<h2 id=\"{id}matches\">{title}</h2>");
        let mut current = String::new();
        // A two-player round robin's matches are all `round robin`: no column for it.
        let with_label = !(report.format == Format::RoundRobin && kind != Kind::Table);
        for &m in &listed {
            let rec = &report.matches[m];
            let g = group(&rec.id, kind);
            if g != current {
                if !current.is_empty() {
                    let _ = writeln!(s, "</tbody></table>");
                }
                if (listed.len() > 1 && report.format != Format::RoundRobin) || kind == Kind::Table {
                    let _ = writeln!(s, "<h3>{}</h3>", esc(&capital(&g)));
                }
                let _ = writeln!(
                    s,
                    "<table><thead><tr>{}<th>result</th><th>forfeits</th><th>replay</th></tr></thead><tbody>",
                    if with_label { "<th>match</th>" } else { "" }
                );
                current = g;
            }
            let _ = writeln!(
                s,
                "<tr>{}<td>{}</td><td>{}</td><td>{}</td></tr>",
                if with_label {
                    format!("<td>{}</td>", esc(&label(&rec.id, kind)))
                } else {
                    String::new()
                },
                esc(&score(rec, all, kind)),
                match_forfeits(rec, all, None),
                page_label(c.page(m))
            );
        }
        let _ = writeln!(s, "</tbody></table>");
    }
    s
}

/// Each bot's matches, in the order of the standings.
fn results_by_bot(c: &Sections<'_>) -> String {
    let (report, kind, id, all) = (c.report, c.kind, c.id, &c.all);
    let index_of = |name: &str| all.iter().position(|n| n == name).unwrap_or(usize::MAX);
    let mut s = String::new();
    let _ = writeln!(s, "<h2 id=\"{id}bots\">Results by bot</h2>");
    for r in &report.standings {
        let b = index_of(&r.name);
        let _ = writeln!(
            s,
            "<h3 id=\"{}\">{}. {} <span class=\"muted\">{} {}, {} games{}</span></h3>",
            anchor(&format!("{id}bot"), &r.name),
            r.rank,
            esc(&r.name),
            esc(arena_competition::tournament::measure_name(&report.standings)),
            esc(&r.measure_text()),
            r.games,
            r.placement
                .as_deref()
                .map_or(String::new(), |p| format!(", {}", esc(p)))
        );
        let duel = kind == Kind::Duel;
        let _ = writeln!(
            s,
            "<table><thead><tr><th>match</th>{}<th>result</th><th>its forfeits</th><th>replay</th></tr></thead><tbody>",
            if duel { "<th>opponent</th>" } else { "" }
        );
        for (m, rec) in report.matches.iter().enumerate().filter(|(_, m)| m.bots.contains(&b)) {
            let opponent = rec
                .bots
                .iter()
                .filter(|&&o| o != b)
                .map(|&o| all[o].as_str())
                .collect::<Vec<_>>()
                .join(", ");
            let result = own_result(rec, b, report).unwrap_or_else(|| score(rec, all, kind));
            let _ = writeln!(
                s,
                "<tr><td>{}</td>{}<td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&label(&rec.id, kind)),
                if duel {
                    format!("<td>{}</td>", esc(&opponent))
                } else {
                    String::new()
                },
                esc(&result),
                match_forfeits(rec, all, Some(b)),
                page_label(c.page(m))
            );
        }
        let _ = writeln!(s, "</tbody></table>");
    }
    s
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// The double-elimination bracket: each round a column of match boxes.
fn bracket(b: &Bracket, report: &TournamentReport, pages: &[Option<PageLink>], id: &str) -> String {
    let name = |i: usize| b.names.get(i).map_or("?", String::as_str);
    let boxed = |m: &BracketMatch| match_box(b, m, report, pages);
    let column = |title: &str, ms: &[BracketMatch]| -> String {
        let body: String = ms.iter().map(boxed).collect();
        if body.is_empty() {
            return String::new();
        }
        format!("<div class=\"round\"><h4>{}</h4>{body}</div>", esc(title))
    };
    let mut s = format!(
        "<h2 id=\"{id}bracket\">Bracket</h2>\n<p class=\"meta\">Each match is {} games on shared deals with the seats swapped; \
         a tied match goes to the better seed (in brackets). Two match losses and a bot is out.</p>\n",
        report.games_per_match
    );
    let rounds = |title: &str, list: &[Vec<BracketMatch>]| -> String {
        let cols: String = list
            .iter()
            .enumerate()
            .map(|(i, ms)| column(&format!("{title} round {}", i + 1), ms))
            .collect();
        cols
    };
    let _ = writeln!(
        s,
        "<h3>Winners' bracket</h3><div class=\"bracket\">{}</div>",
        rounds("Winners'", &b.winners)
    );
    if !b.losers.is_empty() {
        let _ = writeln!(
            s,
            "<h3>Losers' bracket</h3><div class=\"bracket\">{}</div>",
            rounds("Losers'", &b.losers)
        );
    }
    if !b.grand_final.is_empty() {
        let cols: String = b
            .grand_final
            .iter()
            .enumerate()
            .map(|(i, m)| {
                column(
                    if i == 0 {
                        "Grand final"
                    } else {
                        "Reset (the losers' side won the first)"
                    },
                    std::slice::from_ref(m),
                )
            })
            .collect();
        let _ = writeln!(s, "<h3>Grand final</h3><div class=\"bracket\">{cols}</div>");
    }
    let podium: Vec<String> = b
        .placement
        .iter()
        .take(3)
        .enumerate()
        .map(|(i, &bot)| format!("{}. {}", i + 1, esc(name(bot))))
        .collect();
    if !podium.is_empty() {
        let _ = writeln!(s, "<p><b>Podium:</b> {}</p>", podium.join(" &nbsp; "));
    }
    s
}

/// One match of the bracket as a box: both bots with their seeds and
/// points, the winner and the replay; a bye; nothing for an empty slot.
fn match_box(b: &Bracket, m: &BracketMatch, report: &TournamentReport, pages: &[Option<PageLink>]) -> String {
    let seed = |i: usize| b.seeds.iter().position(|&s| s == i).map_or(0, |p| p + 1);
    let name = |i: usize| b.names.get(i).map_or("?", String::as_str);
    let mut s = String::from("<div class=\"match\">");
    match m.bots {
        [Some(x), Some(y)] => {
            for (side, bot) in [x, y].into_iter().enumerate() {
                let class = if m.winner == Some(bot) { "w" } else { "l" };
                let _ = write!(
                    s,
                    "<div class=\"{class}\"><span><span class=\"seed\">({})</span>{}</span><span>{}</span></div>",
                    seed(bot),
                    esc(name(bot)),
                    points(m.points[side])
                );
            }
            let at = report.matches.iter().position(|r| r.id == m.id);
            let link = match at {
                Some(i) => page_label(pages.get(i).and_then(Option::as_ref)),
                None => String::new(),
            };
            let tie = if m.points[0] == m.points[1] {
                " (tie: better seed)"
            } else {
                ""
            };
            let _ = write!(
                s,
                "<div class=\"foot\"><span>winner: {}{tie}</span><span>{link}</span></div>",
                esc(m.winner.map_or("-", name))
            );
        }
        [one, other] => match one.or(other) {
            Some(bot) => {
                let _ = write!(
                    s,
                    "<div class=\"w\"><span><span class=\"seed\">({})</span>{}</span><span class=\"muted\">bye</span></div><div class=\"foot\"><span>winner: {} (bye)</span></div>",
                    seed(bot),
                    esc(name(bot)),
                    esc(name(bot))
                );
            }
            None => return String::new(),
        },
    }
    s.push_str("</div>");
    s
}

/// The title line of a tournament: game, format, bots, games, seed.
pub fn meta(spec: &TournamentSpec<'_>, report: &TournamentReport) -> String {
    format!(
        "{} bots, {} games ({} per match), seed {}, variant {}, illegal moves: {}, arena {}",
        report.standings.len(),
        report.games_played,
        report.games_per_match,
        report.seed,
        spec.setup.variant.as_deref().unwrap_or_else(|| spec.game.variants()[0]),
        match spec.setup.illegal {
            arena_core::IllegalMoves::Course => "the course's rule",
            arena_core::IllegalMoves::Forfeit => "forfeit",
        },
        arena_runner::VERSION
    )
}

/// `index.html` of `arena tournament --out DIR`.
pub fn tournament_index(spec: &TournamentSpec<'_>, report: &TournamentReport, replays: &Replays) -> String {
    let title = format!("{} {} tournament", spec.game.title(), report.format.name());
    let mut body = format!(
        "<h1>{}</h1>\n<p class=\"meta\">{}</p>\n",
        esc(&title),
        esc(&meta(spec, report))
    );
    let mut nav = vec![("standings", "Standings")];
    if report.bracket.is_some() {
        nav.push(("bracket", "Bracket"));
    }
    if report.bracket.is_none() || report.matches.iter().any(|m| m.id.starts_with("seed:")) {
        nav.push(("matches", "Matches"));
    }
    nav.push(("bots", "Results by bot"));
    let _ = writeln!(
        body,
        "<nav>{} <a href=\"standings.txt\">standings.txt</a> <a href=\"standings.csv\">standings.csv</a> <a href=\"standings.json\">standings.json</a></nav>",
        nav.iter()
            .map(|(a, t)| format!("<a href=\"#{a}\">{t}</a>"))
            .collect::<String>()
    );
    let _ = writeln!(
        body,
        "<p>Each replay page opens in a browser, offline, and animates the games it holds: every forfeit \
         (the first {} of each bot in each match) and a sample game of each match, played again from the \
         match's seed, so each is the game that was scored.</p>",
        super::FORFEITS_SHOWN
    );
    body.push_str(&sections(spec, report, &replays.pages, ""));
    let _ = writeln!(body, "<footer>{}</footer>", esc(&replays.summary()));
    html_page(&title, &body)
}
