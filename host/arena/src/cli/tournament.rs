//! `arena tournament`: round robin, double elimination or Swiss, with ratings.

use super::common::RunArgs;
use crate::report::csv_field;
use crate::runner::Entrant;
use crate::runner::entrants::{entrant, find_game, setup};
use crate::tournament::{self, Engine, Format, Journal, Seeding, TournamentReport, TournamentSpec};
use anyhow::{Context, bail};
use clap::Args;
use rayon::prelude::*;
use serde_json::json;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Options of `arena tournament`.
#[derive(Debug, Args)]
pub struct TournamentArgs {
    /// The game (see `arena games`).
    #[arg(long)]
    pub game: String,
    /// The bots: .wasm files or house:NAME.
    #[arg(value_name = "BOT")]
    pub bots: Vec<String>,
    /// A class folder, read as grading reads it: a folder of .wasm files (named by their stems), a folder
    /// per student, or a Gradescope, Canvas or Moodle export (named as the gradebook names them).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The format.
    #[arg(long, value_enum)]
    pub format: Format,
    /// Games per match (each deal played from every seat).
    #[arg(long, default_value = "10", allow_hyphen_values = true, value_parser = super::parse_games)]
    pub games: u64,
    /// Swiss rounds [default: log2(bots) + 1]; for games of more than two
    /// players, rounds of random tables [default: one per bot].
    #[arg(long, allow_hyphen_values = true, value_parser = super::parse_positive_u64)]
    pub rounds: Option<u64>,
    /// Double elimination seeding: the order given, or a short round robin.
    #[arg(long, value_enum, default_value = "order")]
    pub seeding: Seeding,
    /// The tournament seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Rules variant.
    #[arg(long)]
    pub variant: Option<String>,
    /// Folder for the journal (to resume after a stop) and the standings files.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print the standings as JSON.
    #[arg(long, conflicts_with_all = ["csv", "markdown"])]
    pub json: bool,
    /// Print the standings as CSV.
    #[arg(long, conflicts_with = "markdown")]
    pub csv: bool,
    /// Print the standings as a Markdown table.
    #[arg(long)]
    pub markdown: bool,
    #[command(flatten)]
    pub run: RunArgs,
}

/// The bots to load: each BOT argument, then each student of --dir read
/// as grading reads a class folder (a folder of .wasm files, a folder per
/// student, or a Gradescope, Canvas or Moodle export), named as the
/// gradebook names them; and the students with no usable bot, with why.
type Specs = (Vec<(String, Option<String>)>, Vec<(String, String)>);

fn bot_specs(args: &TournamentArgs) -> anyhow::Result<Specs> {
    let mut specs: Vec<(String, Option<String>)> = args.bots.iter().map(|b| (b.clone(), None)).collect();
    let mut without = Vec::new();
    if let Some(dir) = &args.dir {
        let class = super::common::read_class(dir)?;
        for s in class.submissions {
            match s.bot {
                Ok(chosen) => specs.push((chosen.path.display().to_string(), Some(s.student))),
                Err(why) => without.push((s.student, why)),
            }
        }
    }
    Ok((specs, without))
}

/// Run `arena tournament`.
pub fn run(args: TournamentArgs) -> anyhow::Result<()> {
    let game = find_game(&args.game)?;
    let (specs, without) = bot_specs(&args)?;
    if specs.len() < 2 {
        bail!("a tournament needs at least two bots, got {}", specs.len());
    }
    let sandbox = args.run.sandbox(game)?;
    let setup = setup(game, &sandbox, args.variant.clone(), args.run.illegal)?;
    let mut entrants: Vec<Entrant> = Vec::new();
    let mut disqualified = Vec::new();
    for (name, why) in without {
        eprintln!("disqualified {name}: {why}");
        disqualified.push((name, why));
    }
    let pool = args.run.pool()?;
    // Compiling is the slow part of loading: do it on every core, then take
    // the results in the order given so names and seeds do not depend on timing.
    let loaded: Vec<anyhow::Result<Entrant>> = pool.install(|| {
        specs
            .par_iter()
            .map(|(spec, _)| entrant(game, &sandbox, spec))
            .collect()
    });
    for ((spec, student), result) in specs.iter().zip(loaded) {
        match result {
            Ok(mut e) => {
                if let Some(student) = student {
                    e.name.clone_from(student);
                }
                let base = e.name.clone();
                let mut k = 2;
                while entrants.iter().any(|x| x.name == e.name) {
                    e.name = format!("{base}#{k}");
                    k += 1;
                }
                entrants.push(e);
            }
            Err(err) if !spec.starts_with("house:") => {
                let name = student.clone().unwrap_or_else(|| {
                    PathBuf::from(spec)
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or(spec.clone())
                });
                eprintln!("disqualified {name}: {err:#}");
                disqualified.push((name, format!("{err:#}")));
            }
            Err(err) => return Err(err),
        }
    }
    let spec = TournamentSpec {
        game,
        setup,
        entrants,
        disqualified,
        format: args.format,
        games: usize::try_from(args.games).unwrap_or(usize::MAX),
        rounds: args.rounds.map(|r| r as usize),
        seeding: args.seeding,
        seed: args.seed,
    };
    let journal = match &args.out {
        Some(dir) => {
            let header = json!({
                "type": "tournament", "arena-version": crate::VERSION, "game": game.name(),
                "variant": spec.setup.variant, "illegal": spec.setup.illegal, "format": spec.format, "seed": spec.seed, "games": spec.games,
                "rounds": spec.rounds, "seeding": spec.seeding, "limits": sandbox.limits(),
                "bots": spec.entrants.iter().map(|e| json!({"name": e.name, "sha256": match &e.bot {
                    crate::runner::BotRef::Wasm(p) => Some(p.sha256.clone()),
                    crate::runner::BotRef::House(_) => None,
                }})).collect::<Vec<_>>(),
            });
            let journal = Journal::open(dir, &header).map_err(anyhow::Error::msg)?;
            if journal.finished() > 0 {
                eprintln!(
                    "resuming: {} finished games found in {}",
                    journal.finished(),
                    journal.path().display()
                );
            }
            Some(journal)
        }
        None => None,
    };
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // If a handler is already set (tests calling in-process), Ctrl-C keeps its default.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed));
    }
    let engine = Engine::new(&spec, journal, stop.clone(), std::io::stderr().is_terminal());
    let report = pool.install(|| tournament::run(&spec, &engine))?;
    if !report.complete {
        let kept = match &args.out {
            Some(dir) => format!(
                "finished games are kept in {}; run the same command again to continue",
                dir.join("journal.jsonl").display()
            ),
            None => "no --out folder was given, so nothing was kept".to_string(),
        };
        bail!("stopped after {} new games: {kept}", engine.games_played());
    }
    if let Some(dir) = &args.out {
        write_outputs(dir, game.title(), &report)?;
        let jobs = crate::report::tournament_pages(&spec, &report, "");
        let replays = pool.install(|| crate::report::write_replays(dir, &jobs))?;
        let index = dir.join(crate::report::INDEX);
        std::fs::write(&index, crate::report::tournament_index(&spec, &report, &replays))
            .with_context(|| format!("{}: cannot write", index.display()))?;
        eprintln!("wrote {}: {}", index.display(), replays.summary());
    }
    let text = if args.json {
        serde_json::to_string_pretty(&report)? + "\n"
    } else if args.csv {
        csv(&report)
    } else if args.markdown {
        markdown(&report)
    } else {
        table(game.title(), &report)
    };
    print!("{text}");
    Ok(())
}

fn write_outputs(dir: &std::path::Path, title: &str, report: &TournamentReport) -> anyhow::Result<()> {
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
        per_size.insert(m.bots.len(), m.results.len());
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
            crate::tournament::rank_text(&report.standings, i),
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
    let names = |m: &crate::tournament::MatchRecord, k: usize| {
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
fn extra_column(report: &TournamentReport, r: &crate::tournament::Standing) -> String {
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
            opt(r.rating.map(|x| x.value)),
            opt(r.rating.map(|x| x.low)),
            opt(r.rating.map(|x| x.high)),
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
            crate::tournament::rank_text(&report.standings, i),
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
