//! `arena tournament`: round robin, double elimination or Swiss, with ratings.

use super::common::{RunArgs, entrant, find_game, setup};
use crate::runner::Entrant;
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
    /// A folder: every .wasm file in it is a bot, named by its file stem.
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

/// Every BOT argument plus every .wasm in --dir (sorted by name, so runs agree).
fn bot_specs(args: &TournamentArgs) -> anyhow::Result<Vec<String>> {
    let mut specs = args.bots.clone();
    if let Some(dir) = &args.dir {
        let entries = std::fs::read_dir(dir).with_context(|| format!("{}: cannot read the folder", dir.display()))?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "wasm"))
            .collect();
        if found.is_empty() {
            bail!("{}: no .wasm files in this folder", dir.display());
        }
        found.sort();
        specs.extend(found.iter().map(|p| p.display().to_string()));
    }
    Ok(specs)
}

/// Run `arena tournament`.
pub fn run(args: TournamentArgs) -> anyhow::Result<()> {
    let game = find_game(&args.game)?;
    let specs = bot_specs(&args)?;
    if specs.len() < 2 {
        bail!("a tournament needs at least two bots, got {}", specs.len());
    }
    let sandbox = args.run.sandbox(game)?;
    let setup = setup(game, &sandbox, args.variant.clone(), args.run.illegal)?;
    let mut entrants: Vec<Entrant> = Vec::new();
    let mut disqualified = Vec::new();
    let pool = args.run.pool()?;
    // Compiling is the slow part of loading: do it on every core, then take
    // the results in the order given so names and seeds do not depend on timing.
    let loaded: Vec<anyhow::Result<Entrant>> =
        pool.install(|| specs.par_iter().map(|spec| entrant(game, &sandbox, spec)).collect());
    for (spec, result) in specs.iter().zip(loaded) {
        match result {
            Ok(mut e) => {
                let base = e.name.clone();
                let mut k = 2;
                while entrants.iter().any(|x| x.name == e.name) {
                    e.name = format!("{base}#{k}");
                    k += 1;
                }
                entrants.push(e);
            }
            Err(err) if !spec.starts_with("house:") => {
                let name = PathBuf::from(spec)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or(spec.clone());
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
    if let Some(e) = s.score {
        return format!("{:.2} [{:.2}-{:.2}]", e.mean, e.ci95[0], e.ci95[1]);
    }
    if let Some(p) = s.mean_position {
        return format!("{p:.2}");
    }
    format!("{}-{}-{}", s.wins, s.draws, s.losses)
}

fn measure_name(report: &TournamentReport) -> &'static str {
    match report.standings.first() {
        Some(s) if s.score.is_some() => "mean score [95% CI]",
        Some(s) if s.mean_position.is_some() => "mean position",
        _ => "won-drew-lost",
    }
}

fn rating(s: &tournament::Standing) -> String {
    s.rating
        .map_or("-".into(), |r| format!("{:.0} [{:.0}-{:.0}]", r.value, r.low, r.high))
}

fn forfeits(s: &tournament::Standing) -> String {
    super::matches::forfeit_list(&s.forfeits)
}

/// The standings as a terminal table, with the reading, disqualifications and bracket.
pub fn table(title: &str, report: &TournamentReport) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{title} {} tournament, seed {}: {} bots, {} games ({} per match)",
        report.format.name(),
        report.seed,
        report.standings.len(),
        report.games_played,
        report.games_per_match
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
    for r in &report.standings {
        let extra = match report.format {
            Format::Swiss => r.match_points.map_or(String::new(), |p| format!("{p}")),
            Format::DoubleElimination => r.placement.clone().unwrap_or_default(),
            Format::RoundRobin => String::new(),
        };
        let _ = writeln!(
            s,
            "{:>4}  {:<width$}  {:>5}  {:>20}  {:>20}  {:>18}  {}",
            r.rank,
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
    if let Some(b) = &report.bracket {
        let _ = writeln!(s);
        s.push_str(&b.render());
    }
    s
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// The standings as CSV, one row per bot.
pub fn csv(report: &TournamentReport) -> String {
    let mut s = String::from(
        "rank,bot,games,wins,draws,losses,points,mean_score,mean_position,rating,rating_low,rating_high,match_points,placement,forfeits\n",
    );
    for r in &report.standings {
        let opt = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v}"));
        let row = [
            r.rank.to_string(),
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
    let mut s = format!(
        "| rank | bot | games | {} | rating [95%] | forfeits |\n|---|---|---|---|---|---|\n",
        measure_name(report)
    );
    for r in &report.standings {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            r.rank,
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
