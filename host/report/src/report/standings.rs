//! A tournament's standings as text: the terminal table, CSV, Markdown,
//! and the files `arena tournament --out` writes. The command line and a
//! class run write the same text.

use super::csv_field;
use anyhow::Context;
use arena_competition::tournament::{self, Format, TournamentReport};

/// Write the standings in every format beside each other in `dir`.
pub fn write_outputs(dir: &std::path::Path, title: &str, report: &TournamentReport) -> anyhow::Result<()> {
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).with_context(|| format!("{}: cannot write", path.display()))
    };
    write("standings.json", serde_json::to_string_pretty(report)? + "\n")?;
    write("standings.csv", csv(report))?;
    write("standings.md", markdown(report))?;
    write("standings.txt", table(title, report))?;
    if let Some(b) = &report.bracket {
        write("bracket.txt", b.render())?;
    }
    Ok(())
}

fn measure(s: &tournament::Standing) -> String {
    s.measure_text()
}

fn measure_name(report: &TournamentReport) -> &'static str {
    tournament::measure_name(&report.standings)
}

fn rating(s: &tournament::Standing) -> String {
    s.rating_text()
}

fn forfeits(s: &tournament::Standing) -> String {
    s.forfeits_text()
}

/// The standings as a terminal table, with the reading, disqualifications and bracket.
pub fn table(title: &str, report: &TournamentReport) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    // Tables of different sizes play different numbers of games (whole sets of seat orders).
    let mut per_size: std::collections::BTreeMap<usize, usize> = std::collections::BTreeMap::new();
    for m in &report.matches {
        per_size.insert(m.bots.len(), m.tally.played);
    }
    let per_match = if per_size.len() > 1 {
        per_size
            .iter()
            .map(|(size, games)| format!("{games} per table of {size}"))
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        format!("{} per match", report.games_per_match)
    };
    let _ = writeln!(
        s,
        "{title} {} tournament, seed {}: {} bots, {} games ({per_match})",
        report.format.name(),
        report.seed,
        report.standings.len(),
        report.games_played,
    );
    let width = report.standings.iter().map(|r| r.name.len()).max().unwrap_or(3).max(3);
    let extra = match report.format {
        Format::Swiss => "match pts",
        Format::DoubleElimination => "placement",
        Format::RoundRobin => "",
    };
    let _ = writeln!(
        s,
        "{:>4}  {:<width$}  {:>5}  {:>20}  {:>20}  {:>18}  forfeits",
        "rank",
        "bot",
        "games",
        measure_name(report),
        "rating [95%]",
        extra
    );
    for (i, r) in report.standings.iter().enumerate() {
        let extra = extra_column(report, r);
        let _ = writeln!(
            s,
            "{:>4}  {:<width$}  {:>5}  {:>20}  {:>20}  {:>18}  {}",
            arena_competition::tournament::rank_text(&report.standings, i),
            r.name,
            r.games,
            measure(r),
            rating(r),
            extra,
            forfeits(r)
        );
    }
    for d in &report.disqualified {
        let _ = writeln!(s, "disqualified: {}: {}", d.name, d.reason);
    }
    if !report.reading.is_empty() {
        let _ = writeln!(s);
        for line in &report.reading {
            let _ = writeln!(s, "{line}");
        }
    }
    if report.format == Format::Swiss {
        s.push_str(&swiss_rounds(report));
    }
    if let Some(b) = &report.bracket {
        let _ = writeln!(s);
        s.push_str(&b.render());
    }
    s
}

/// Each Swiss round's pairings with their game points, and the bye.
fn swiss_rounds(report: &TournamentReport) -> String {
    use std::fmt::Write;
    let names = |m: &arena_competition::tournament::MatchRecord, k: usize| {
        m.bots
            .get(k)
            .and_then(|&b| report.entrants.get(b))
            .cloned()
            .unwrap_or_else(|| "?".into())
    };
    let mut rounds: std::collections::BTreeMap<u64, Vec<String>> = std::collections::BTreeMap::new();
    for m in &report.matches {
        let round = m.id.split(':').nth(1).and_then(|r| r.parse().ok()).unwrap_or(0);
        let p = m.points();
        let fmt = |x: f64| {
            if x.fract() == 0.0 {
                format!("{x:.0}")
            } else {
                format!("{x}")
            }
        };
        rounds.entry(round).or_default().push(format!(
            "{} {}-{} {}",
            names(m, 0),
            fmt(p.first().copied().unwrap_or(0.0)),
            fmt(p.get(1).copied().unwrap_or(0.0)),
            names(m, 1)
        ));
    }
    let mut s = String::from("\nrounds (game points):\n");
    for (round, pairings) in rounds {
        let _ = writeln!(s, "  round {} (swiss:{round}): {}", round + 1, pairings.join(", "));
    }
    s
}

/// Swiss match points or the double-elimination placement, as the text table shows them.
fn extra_column(report: &TournamentReport, r: &arena_competition::tournament::Standing) -> String {
    match report.format {
        Format::Swiss => r.match_points.map_or(String::new(), |p| format!("{p}")),
        Format::DoubleElimination => r.placement.clone().unwrap_or_default(),
        Format::RoundRobin => String::new(),
    }
}

/// The standings as CSV, one row per bot.
pub fn csv(report: &TournamentReport) -> String {
    let mut s = String::from(
        "rank,tier,bot,games,wins,draws,losses,points,mean_score,mean_position,rating,rating_low,rating_high,match_points,placement,forfeits\n",
    );
    for r in &report.standings {
        let opt = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v}"));
        let row = [
            r.rank.to_string(),
            r.tier.to_string(),
            csv_field(&r.name),
            r.games.to_string(),
            r.wins.to_string(),
            r.draws.to_string(),
            r.losses.to_string(),
            r.points.to_string(),
            opt(r.score.map(|e| e.mean)),
            opt(r.mean_position),
            opt(r.rating.as_ref().map(|x| x.value)),
            opt(r.rating.as_ref().map(|x| x.low)),
            opt(r.rating.as_ref().map(|x| x.high)),
            opt(r.match_points),
            csv_field(r.placement.as_deref().unwrap_or("")),
            csv_field(&forfeits(r)),
        ];
        s.push_str(&row.join(","));
        s.push('\n');
    }
    s
}

/// The standings as a Markdown table.
pub fn markdown(report: &TournamentReport) -> String {
    // Every column of the text table, the format's own included.
    let extra = match report.format {
        Format::Swiss => "match pts",
        Format::DoubleElimination => "placement",
        Format::RoundRobin => "",
    };
    let (extra_head, extra_rule) = if extra.is_empty() {
        (String::new(), "")
    } else {
        (format!(" {extra} |"), "---|")
    };
    let mut s = format!(
        "| rank | bot | games | {} | rating [95%] |{extra_head} forfeits |\n|---|---|---|---|---|{extra_rule}---|\n",
        measure_name(report)
    );
    for (i, r) in report.standings.iter().enumerate() {
        let extra_cell = if extra.is_empty() {
            String::new()
        } else {
            format!(" {} |", extra_column(report, r).replace('|', "\\|"))
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} |{extra_cell} {} |\n",
            arena_competition::tournament::rank_text(&report.standings, i),
            r.name.replace('|', "\\|"),
            r.games,
            measure(r),
            rating(r),
            forfeits(r)
        ));
    }
    for d in &report.disqualified {
        s.push_str(&format!("\nDisqualified: **{}**: {}\n", d.name, d.reason));
    }
    s
}
