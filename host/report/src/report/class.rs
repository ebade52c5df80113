//! The class report of `arena grade-class`: the gradebook, each student's
//! rubric items with replays, rejected submissions and the class tournament.

use super::{Chosen, PageJob, PageLink, Replays, anchor, esc, html_page, points, replay_link};
use arena_competition::tournament::{TournamentReport, TournamentSpec};
use arena_grading::grade::{GradeReport, Grader, Measure, Rubric};
use arena_runner::runner::{Entrant, GameDef};
use std::fmt::Write;

/// What a class replay page shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassPage {
    /// The student, by index in the graded list.
    pub student: usize,
    /// The rubric item, or `None` for the smoke game that rejected the submission.
    pub item: Option<usize>,
}

/// The replay pages of a class: per student, the smoke game that rejected
/// it, or per rubric item its forfeits (the first few) and its worst game.
pub fn class_pages<'a>(
    grader: &'a Grader<'_>,
    graded: &[(GradeReport, Option<Entrant>)],
) -> Vec<(ClassPage, PageJob<'a>)> {
    let mut jobs = Vec::new();
    for (s, (report, me)) in graded.iter().enumerate() {
        let Some(me) = me else { continue };
        if report.smoke_forfeited {
            jobs.push((ClassPage { student: s, item: None }, smoke_page(grader, report, me)));
            continue;
        }
        for (i, (item, result)) in grader.rubric.items.iter().zip(&report.items).enumerate() {
            if result.status != "graded" || item.measure == Measure::ClassPercentile || result.games == 0 {
                continue;
            }
            let page = ClassPage {
                student: s,
                item: Some(i),
            };
            jobs.push((page, item_page(grader, report, me, i)));
        }
    }
    jobs
}

/// The page of the smoke game whose forfeit rejected a submission.
fn smoke_page<'a>(grader: &'a Grader<'_>, report: &GradeReport, me: &Entrant) -> PageJob<'a> {
    let student = &report.student;
    let spec = grader.smoke_spec(me);
    let against: Vec<&str> = spec.entrants[1..].iter().map(|e| e.name.as_str()).collect();
    PageJob {
        file: arena_grading::grade::smoke_replay_file(&report.folder),
        title: format!(
            "{student} vs {}: the smoke game, whose forfeit rejected the submission",
            against.join(", ")
        ),
        spec,
        games: vec![Chosen {
            index: 0,
            what: String::new(),
            scored: None,
            forfeit: true,
        }],
        left_out: None,
        forfeit: true,
        minor: false,
        shown_to: None,
    }
}

/// The page of one rubric item of a student: its first forfeits and its worst game.
fn item_page<'a>(grader: &'a Grader<'_>, report: &GradeReport, me: &Entrant, i: usize) -> PageJob<'a> {
    let student = &report.student;
    let (item, result) = (&grader.rubric.items[i], &report.items[i]);
    let mut games: Vec<Chosen> = result
        .forfeit_games
        .iter()
        .take(super::FORFEITS_SHOWN)
        .map(|&index| Chosen {
            index,
            what: String::new(),
            scored: None,
            forfeit: true,
        })
        .collect();
    let sample = match result.sample_game {
        Some(g) => (g, "its worst game in this item"),
        None => (0, "a sample game (it lost none)"),
    };
    if !games.iter().any(|c| c.index == sample.0) {
        games.push(Chosen {
            index: sample.0,
            what: sample.1.to_string(),
            scored: None,
            forfeit: false,
        });
    }
    games.sort_by_key(|c| c.index);
    let more = result.forfeit_games.len().saturating_sub(super::FORFEITS_SHOWN);
    PageJob {
        file: format!("{}-item{}.html", report.folder, i + 1),
        title: format!(
            "{}: rubric item {} \"{}\" ({} games)",
            // Every seat named: a solitaire's item plays the student alone,
            // against its baseline's score on the same deals (never "Ann vs :").
            match (item.against.is_empty(), &item.baseline) {
                (false, _) => format!("{student} vs {}", item.against.join(", ")),
                (true, Some(b)) => format!("{student} alone, against {b}'s score on the same deals"),
                (true, None) => format!("{student} alone"),
            },
            i + 1,
            item.name,
            result.games
        ),
        spec: grader.item_spec(i, me, &item.against),
        games,
        left_out: (more > 0).then(|| {
            format!(
                "{more} more forfeit{} of {student} in this item",
                if more == 1 { "" } else { "s" }
            )
        }),
        forfeit: !result.forfeit_games.is_empty(),
        minor: false,
        shown_to: None,
    }
}

/// Everything the class report shows.
pub struct ClassReport<'r> {
    /// The game.
    pub game: &'static dyn GameDef,
    /// The rubric.
    pub rubric: &'r Rubric,
    /// Where the rubric came from, for the title.
    pub rubric_name: String,
    /// Games per item.
    pub games: usize,
    /// Every submission, graded or rejected.
    pub graded: &'r [(GradeReport, Option<Entrant>)],
    /// The class replay pages and where they went.
    pub pages: Vec<(ClassPage, Option<PageLink>)>,
    /// The class tournament, with its replay pages.
    pub tournament: Option<(&'r TournamentSpec<'r>, &'r TournamentReport, Vec<Option<PageLink>>)>,
    /// Every replay page, for the size line.
    pub replays: &'r Replays,
}

/// Fuel for people: `500M`, `2G`.
fn fuel(n: u64) -> String {
    match n {
        n if n >= 1_000_000_000 && n % 100_000_000 == 0 => format!("{}G", n as f64 / 1e9),
        n if n >= 1_000_000 && n % 100_000 == 0 => format!("{}M", n as f64 / 1e6),
        n => n.to_string(),
    }
}

fn value(measure: Measure, v: f64) -> String {
    match measure {
        Measure::WinRate => format!("{:.1}%", 100.0 * v),
        Measure::ClassPercentile => format!("{:.0}%", 100.0 * v),
        _ => format!("{v:.2}"),
    }
}

/// `index.html` of `arena grade-class --out DIR`.
pub fn class_index(c: &ClassReport<'_>) -> String {
    let title = format!("{}: class grades", c.game.title());
    let graded = c.graded.iter().filter(|(r, _)| r.status == "graded").count();
    let rejected = c.graded.len() - graded;
    let first = c.graded.first().map(|(r, _)| r);
    let mut s = format!("<h1>{}</h1>\n", esc(&title));
    let _ = writeln!(
        s,
        "<p class=\"meta\">{} submissions ({graded} graded, {rejected} rejected); rubric: {}; seed {}, {} games per item, \
         fuel {} per move, illegal moves: {}, arena {}</p>",
        c.graded.len(),
        esc(&c.rubric_name),
        c.rubric.seed,
        c.games,
        first.map_or(String::from("-"), |r| fuel(r.limits.fuel)),
        match c.rubric.illegal {
            arena_core::IllegalMoves::Course => "the course's rule",
            arena_core::IllegalMoves::Forfeit => "forfeit",
        },
        arena_runner::VERSION
    );
    let mut nav = String::from("<nav><a href=\"#gradebook\">Gradebook</a>");
    if rejected > 0 {
        nav.push_str("<a href=\"#rejected\">Rejected submissions</a>");
    }
    nav.push_str("<a href=\"#students\">Students</a>");
    if c.tournament.is_some() {
        nav.push_str("<a href=\"#tournament\">Class tournament</a>");
    }
    nav.push_str(" <a href=\"gradebook.csv\">gradebook.csv</a></nav>\n");
    s.push_str(&nav);
    let _ = writeln!(
        s,
        "<p>Every student played the house bots on the same deals, from both seats. Each student's section links \
         replay pages that open in a browser, offline: per rubric item, the student's worst game and its forfeits \
         (the first {}), played again from the item's seed, so each is the game that was graded.</p>",
        super::FORFEITS_SHOWN
    );
    s.push_str(&gradebook_section(c));
    if rejected > 0 {
        s.push_str(&rejected_section(c));
    }
    s.push_str(&student_sections(c));
    if let Some((spec, report, pages)) = &c.tournament {
        let _ = writeln!(
            s,
            "<h2 id=\"tournament\">Class tournament</h2>\n<p class=\"meta\">{} {}; {}</p>",
            esc(spec.game.title()),
            esc(report.format.name()),
            esc(&super::tournament::meta(spec, report))
        );
        s.push_str(&super::tournament::sections(spec, report, pages, "t-"));
    }
    let _ = writeln!(s, "<footer>{}</footer>", esc(&c.replays.summary()));
    html_page(&title, &s)
}

/// The gradebook table: a row per student, a column per rubric item, and the flags.
fn gradebook_section(c: &ClassReport<'_>) -> String {
    let mut s = String::new();
    // The gradebook.
    let _ = write!(
        s,
        "<h2 id=\"gradebook\">Gradebook</h2>\n<div class=\"wide\"><table class=\"gb\"><thead><tr><th>student</th><th class=\"num\">total</th>"
    );
    for item in &c.rubric.items {
        let _ = write!(
            s,
            "<th class=\"num\">{}<br><span class=\"muted\">max {}</span></th>",
            // A line may break after `house:` in a long item name.
            esc(&item.name).replace(':', ":<wbr>"),
            points(item.max_points())
        );
    }
    let _ = writeln!(
        s,
        "<th class=\"num\">forfeits</th><th class=\"num\">illegal moves</th>\
         <th class=\"num\">worst call<br><span class=\"muted\">of the budget</span></th>\
         <th>status</th></tr></thead><tbody>"
    );
    let same = arena_grading::grade::same_files(c.graded.iter().map(|(r, _)| r));
    let same_note = |student: &str| {
        same.get(student).map_or(String::new(), |others| {
            format!(
                "<br><span class=\"why\">identical file to {}</span>",
                esc(&others.join(", "))
            )
        })
    };
    for (r, _) in c.graded {
        let _ = write!(
            s,
            "<tr><td><a href=\"#{}\">{}</a></td><td class=\"num\"><b>{}</b> / {}</td>",
            anchor("student", &r.folder),
            esc(&r.student),
            points(r.total),
            points(r.max_total)
        );
        s.push_str(&item_cells(r));
        s.push_str(&conduct_cells(&r.conduct));
        s.push_str(&status_cell(r, &same_note(&r.student)));
    }
    let _ = writeln!(s, "</tbody></table></div>");
    s
}

/// A student's points per item, marked full or none.
fn item_cells(r: &GradeReport) -> String {
    let mut s = String::new();
    for i in &r.items {
        let class = if i.status == "graded" && i.points >= i.max_points && i.max_points > 0.0 {
            "num good"
        } else if i.status != "pending" && i.points == 0.0 {
            "num bad"
        } else {
            "num"
        };
        let shown = if i.status == "pending" {
            "pending".to_string()
        } else {
            points(i.points)
        };
        let _ = write!(s, "<td class=\"{class}\">{shown}</td>");
    }
    s
}

/// How a student's bot behaved: forfeits (by reason on hover), illegal
/// moves and its worst call's share of the budget.
fn conduct_cells(k: &arena_grading::grade::Conduct) -> String {
    let mut s = String::new();
    if k.games == 0 {
        let _ = write!(
            s,
            "<td class=\"num\">-</td><td class=\"num\">-</td><td class=\"num\">-</td>"
        );
    } else {
        let forfeits = k.total_forfeits();
        let _ = write!(
            s,
            "<td class=\"num{}\" title=\"{}\">{forfeits}</td><td class=\"num\">{}</td><td class=\"num{}\">{}</td>",
            if forfeits > 0 { " bad" } else { "" },
            esc(&k.forfeits_by_reason()),
            k.illegal_moves,
            if k.worst_share_of_budget > 1.0 { " bad" } else { "" },
            esc(&k.worst_share_text())
        );
    }
    s
}

/// A student's status: graded (with what is flagged), or rejected in short.
fn status_cell(r: &GradeReport, same_note: &str) -> String {
    let mut s = String::new();
    match r.reason_for_student(None) {
        Some(reason) => {
            // The reason in full is in the rejected table; here it would make every row tall.
            // Without the file's name, which the row already names.
            let name = std::path::Path::new(&r.file).file_name().map(|n| n.to_string_lossy());
            let cause = name
                .and_then(|n| reason.strip_prefix(n.as_ref()))
                .map_or(reason.as_str(), |rest| rest.trim_start_matches(": "));
            let short: String = cause.chars().take(28).collect();
            let more = if short.len() < cause.len() { "..." } else { "" };
            let _ = writeln!(
                s,
                "<td class=\"why nw\" title=\"{}\"><a href=\"#rejected\">rejected</a>: {}{more}</td></tr>",
                esc(&reason),
                esc(&short)
            );
        }
        None => {
            let plays_like = r.plays_like.as_deref().map_or(String::new(), |house| {
                format!("<br><span class=\"why\">plays like {}</span>", esc(house))
            });
            // One flag per line: the cell wraps instead of widening the table.
            let _ = writeln!(
                s,
                "<td><span class=\"ok\">graded</span>{}{plays_like}</td></tr>",
                same_note
            );
        }
    }
    s
}

/// The rejected submissions, each with its reason and the smoke game's page.
fn rejected_section(c: &ClassReport<'_>) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<h2 id=\"rejected\">Rejected submissions</h2>\n<p>A rejected submission scores zero on every item; \
         the reason says what to fix.</p>\n<table><thead><tr><th>student</th><th>reason</th><th>replay</th></tr></thead><tbody>"
    );
    for (n, (r, _)) in c.graded.iter().enumerate().filter(|(_, (r, _))| r.status != "graded") {
        let link = match page_of(c, n, None) {
            Some(page) => replay_link(page, "the smoke game"),
            None => "-".to_string(),
        };
        let _ = writeln!(
            s,
            "<tr><td><a href=\"#{}\">{}</a></td><td class=\"why\">{}</td><td>{link}</td></tr>",
            anchor("student", &r.folder),
            esc(&r.student),
            esc(&r.reason_for_student(None).unwrap_or_default()),
        );
    }
    let _ = writeln!(s, "</tbody></table>");
    s
}

/// Each student's section: file, conduct, flags, and each item with its replays.
fn student_sections(c: &ClassReport<'_>) -> String {
    let same = arena_grading::grade::same_files(c.graded.iter().map(|(r, _)| r));
    let mut s = String::new();
    let _ = writeln!(s, "<h2 id=\"students\">Students</h2>");
    for (n, (r, _)) in c.graded.iter().enumerate() {
        s.push_str(&student_header(c, n, r, same.get(&r.student)));
        let _ = writeln!(
            s,
            "<table><thead><tr><th>item</th><th class=\"num\">points</th><th class=\"num\">measured [95% CI]</th>\
             <th class=\"num\">games</th><th>verdict</th><th>replay</th></tr></thead><tbody>"
        );
        for (i, item) in r.items.iter().enumerate() {
            s.push_str(&item_row(c, n, r, i, item));
        }
        let _ = writeln!(s, "</tbody></table>");
    }
    s
}

/// A student's heading: points, file, how it was chosen, conduct, identical
/// files and a rejection.
fn student_header(c: &ClassReport<'_>, n: usize, r: &GradeReport, same: Option<&Vec<String>>) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<h3 id=\"{}\">{} <span class=\"muted\">{} / {} points</span></h3>",
        anchor("student", &r.folder),
        esc(&r.student),
        points(r.total),
        points(r.max_total)
    );
    let _ = writeln!(
        s,
        "<p class=\"meta\">file {}, SHA-256 {}</p>",
        esc(&r.file),
        esc(r.sha256.as_deref().unwrap_or("-"))
    );
    if let Some(why) = &r.chosen_because {
        let _ = writeln!(s, "<p class=\"meta\">Chosen from several .wasm files: {}</p>", esc(why));
    }
    if let Some(conduct) = r.conduct.describe() {
        let _ = writeln!(s, "<p class=\"meta\">Conduct over {}</p>", esc(&conduct));
    }
    if let Some(others) = same {
        let _ = writeln!(
            s,
            "<p class=\"why\">Byte-identical to the file of {} (same SHA-256). Only identical bytes are flagged; this is not a plagiarism detector.</p>",
            esc(&others.join(", "))
        );
    }
    if let Some(reason) = &r.reason {
        let link = match page_of(c, n, None) {
            Some(page) => format!(" ({})", replay_link(page, "watch the smoke game")),
            None => String::new(),
        };
        let _ = writeln!(s, "<p class=\"why\">Rejected: {}{link}</p>", esc(reason));
    }
    s
}

/// One rubric item of a student: points, measure with its interval, games,
/// verdict and the replay to watch.
fn item_row(
    c: &ClassReport<'_>,
    n: usize,
    r: &GradeReport,
    i: usize,
    item: &arena_grading::grade::ItemResult,
) -> String {
    let mut s = String::new();
    let measured = match (item.value, item.ci95) {
        (Some(v), Some(ci)) => format!(
            "{} [{} to {}]",
            value(item.measure, v),
            value(item.measure, ci[0]),
            value(item.measure, ci[1])
        ),
        (Some(v), None) => value(item.measure, v),
        _ => "-".into(),
    };
    // Only a bot that played the tournament has matches to link to.
    let entered = c
        .tournament
        .as_ref()
        .is_some_and(|(_, t, _)| t.standings.iter().any(|x| x.name == r.student));
    let replay = if item.measure == Measure::ClassPercentile && entered {
        format!(
            "<a href=\"#{}\">its tournament matches</a>",
            anchor("t-bot", &r.student)
        )
    } else {
        match page_of(c, n, Some(i)) {
            Some(page) => {
                let sample = if item.sample_game.is_some() {
                    "worst game"
                } else {
                    "game"
                };
                let label = page.map_or(String::new(), |p| super::link_label(p, sample));
                let forfeits = item.forfeit_games.len();
                let mut link = replay_link(page, &label);
                if forfeits > 0 {
                    link = format!(
                        "<span class=\"ff\">{forfeits} forfeit{}</span> {link}",
                        if forfeits == 1 { "" } else { "s" }
                    );
                }
                link
            }
            None => "-".into(),
        }
    };
    let _ = writeln!(
        s,
        "<tr><td>{}{}</td><td class=\"num\">{} / {}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td>{replay}</td></tr>",
        esc(&item.name),
        if item.visible {
            ""
        } else {
            " <span class=\"muted\">(hidden from students)</span>"
        },
        if item.status == "pending" {
            "-".into()
        } else {
            points(item.points)
        },
        points(item.max_points),
        esc(&measured),
        if item.games == 0 {
            "-".to_string()
        } else {
            item.games.to_string()
        },
        esc(&item.note)
    );
    s
}

/// The replay page of a student's item (`None`: the smoke game), if one was made.
fn page_of<'a>(c: &'a ClassReport<'_>, student: usize, item: Option<usize>) -> Option<Option<&'a super::PageLink>> {
    c.pages
        .iter()
        .find(|(p, _)| p.student == student && p.item == item)
        .map(|(_, link)| link.as_ref())
}
