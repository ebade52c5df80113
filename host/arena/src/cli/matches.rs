//! `arena match`: the same bots over many games, seats swapped on the same deals.

use super::common::RunArgs;
use crate::games::Kind;
use crate::replay::ReplayFile;
use crate::runner::entrants::{entrants, find_game, setup};
use crate::runner::{GameDef, MatchReport, MatchSpec, ReportWriter, play_match};
use anyhow::Context;
use clap::Args;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// Options of `arena match`.
#[derive(Debug, Args)]
pub struct MatchArgs {
    /// The game: en-garde, connect-fwar, sugar or president (see `arena games`).
    #[arg(long)]
    pub game: String,
    /// The bots: paths to .wasm components, or house:NAME for a built-in bot.
    #[arg(required = true, value_name = "BOT")]
    pub bots: Vec<String>,
    /// Games to play; rounded up so every deal is played from every seat.
    #[arg(long, default_value = "100", value_parser = super::parse_games)]
    pub games: u64,
    /// The match seed: the same seed and bots give the same games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Rules variant (en-garde: simple or standard).
    #[arg(long)]
    pub variant: Option<String>,
    #[command(flatten)]
    pub run: RunArgs,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Write every event of every game to FILE (JSON lines).
    #[arg(long, value_name = "FILE")]
    pub replay: Option<PathBuf>,
}

/// Run `arena match`.
pub fn run(args: MatchArgs) -> anyhow::Result<()> {
    let game = find_game(&args.game)?;
    crate::runner::check_seats(game, args.bots.len())?;
    let sandbox = args.run.sandbox(game)?;
    let setup = setup(game, &sandbox, args.variant.clone(), args.run.illegal)?;
    let entrants = entrants(game, &sandbox, &args.bots)?;
    let spec = MatchSpec {
        game,
        setup,
        entrants,
        games: usize::try_from(args.games).unwrap_or(usize::MAX),
        seed: args.seed,
        record: args.replay.is_some(),
    };
    // Each game goes to the replay file and the JSON as it is played, so a
    // match of a million games holds one batch of games, not a million
    // (President's chained games are held until the match is played).
    let pool = args.run.pool()?;
    let mut replay = match &args.replay {
        Some(path) => Some((path.as_path(), open_replay(path, &spec)?)),
        None => None,
    };
    let mut json = if args.json {
        Some(
            ReportWriter::start(std::io::BufWriter::new(std::io::stdout()), &spec)
                .context("cannot write the results")?,
        )
    } else {
        None
    };
    let report = play_writing(&spec, &pool, &mut replay, &mut json)?;
    if let Some((path, out)) = replay {
        out.finish()
            .with_context(|| format!("{}: cannot write the replay file", path.display()))?;
    }
    match json {
        Some(j) => {
            j.finish(&report).context("cannot write the results")?;
        }
        None => print!("{}", table(game, &report, args.replay.as_deref())),
    }
    Ok(())
}

/// The replay file of `arena match --replay`, created with its header written.
fn open_replay(path: &Path, spec: &MatchSpec<'_>) -> anyhow::Result<ReplayFile> {
    let mut out =
        ReplayFile::create(path).with_context(|| format!("{}: cannot create the replay file", path.display()))?;
    crate::replay::write_header(&mut out, spec)
        .with_context(|| format!("{}: cannot write the replay file", path.display()))?;
    Ok(out)
}

/// Play the match on `pool`, each game written to the replay file and the
/// JSON as it is played; a match that stopped half-way leaves no half replay.
fn play_writing(
    spec: &MatchSpec<'_>,
    pool: &rayon::ThreadPool,
    replay: &mut Option<(&Path, ReplayFile)>,
    json: &mut Option<ReportWriter<std::io::BufWriter<std::io::Stdout>>>,
) -> anyhow::Result<MatchReport> {
    let mut failed: Option<anyhow::Error> = None;
    let played = pool.install(|| {
        play_match(spec, |played| {
            let written = replay
                .as_mut()
                .map_or(Ok(()), |(path, out)| {
                    crate::replay::write_game(out, &played, &spec.entrants)
                        .with_context(|| format!("{}: cannot write the replay file", path.display()))
                })
                .and_then(|()| {
                    json.as_mut()
                        .map_or(Ok(()), |j| j.result(&played.result).context("cannot write the results"))
                });
            match written {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    failed = Some(e);
                    ControlFlow::Break(())
                }
            }
        })
    });
    match (played, failed) {
        (Ok(report), None) => Ok(report),
        (played, failed) => {
            if let Some((_, out)) = replay.take() {
                out.abandon();
            }
            Err(failed.unwrap_or_else(|| match played {
                Err(e) => e.into(),
                Ok(_) => anyhow::anyhow!("the match stopped"),
            }))
        }
    }
}

/// The human-readable results of a match, then how close to their fuel
/// limits the wasm bots played.
pub fn table(game: &dyn GameDef, report: &MatchReport, replay: Option<&std::path::Path>) -> String {
    let mut s = results(game, report);
    s.push_str(&fuel_table(report));
    s.push_str(&what_went_wrong(game, report, replay));
    s
}

/// Per bot, in words: its illegal moves, and the first forfeit of each
/// reason with the reason's detail (the exception, the panic, the fuel), so
/// a student need not run `arena check` to learn why a bot crashed.
fn what_went_wrong(game: &dyn GameDef, report: &MatchReport, replay: Option<&std::path::Path>) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    // Where the games and the bots' logs can be seen: the replay written, or how to write one.
    let see = match replay {
        Some(path) => format!("arena view {} shows them", path.display()),
        None => "--replay FILE, then arena view FILE, shows them".to_string(),
    };
    for b in &report.bots {
        if b.illegal_moves > 0 {
            let _ = writeln!(
                s,
                "{} played {} illegal move{} in {} of {} games: under the course's rule, {} ({see})",
                b.name,
                b.illegal_moves,
                if b.illegal_moves == 1 { "" } else { "s" },
                b.illegal_games,
                b.games,
                game.illegal_rule()
            );
        }
        let forfeited = b.forfeits.values().any(|&n| n > 0) && b.fuel.is_some();
        for f in &b.first_forfeits {
            let count = b.forfeits.get(f.reason.as_str()).copied().unwrap_or(1);
            let _ = writeln!(
                s,
                "{} forfeited {count} game{} ({}); the first, game {}: {}",
                b.name,
                if count == 1 { "" } else { "s" },
                f.reason.as_str(),
                f.game,
                f.detail
            );
        }
        if forfeited {
            let _ = writeln!(s, "  ({see}, with {}'s whole log: tracebacks, its own prints)", b.name);
        }
    }
    s
}

pub use crate::sandbox::fuel_amount;

/// Per wasm bot: fuel per move against the per-move budget, start-up, and the bank.
fn fuel_table(report: &MatchReport) -> String {
    use std::fmt::Write;
    let rows: Vec<_> = report
        .bots
        .iter()
        .filter_map(|b| b.fuel.as_ref().map(|f| (b, f)))
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let l = &report.limits;
    let width = rows.iter().map(|(b, _)| b.name.len()).max().unwrap_or(3).max(3);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\nfuel: {} per move, {} bank per game, {} to start (bots built for world 0.1: {} per call)",
        fuel_amount(l.fuel),
        fuel_amount(l.bank),
        fuel_amount(l.start_fuel),
        fuel_amount(l.fuel.saturating_add(l.bank))
    );
    let _ = writeln!(
        s,
        "{:<width$}  {:>10}  {:>10}  {:>13}  {:>10}  {:>14}",
        "bot", "mean/move", "max/move", "max % budget", "max start", "max bank used"
    );
    for (b, f) in rows {
        let _ = writeln!(
            s,
            "{:<width$}  {:>10}  {:>10}  {:>13}  {:>10}  {:>14}",
            b.name,
            fuel_amount(f.mean_per_move.round() as u64),
            fuel_amount(f.max_per_move),
            crate::text::percent(f.worst_share),
            fuel_amount(f.max_start),
            if f.games_using_bank == 0 {
                "0".to_string()
            } else {
                format!("{} ({} games)", fuel_amount(f.max_bank_used), f.games_using_bank)
            }
        );
    }
    s
}

/// The results of a match: wins and points, scores, or finishing positions.
fn results(game: &dyn GameDef, report: &MatchReport) -> String {
    match game.kind() {
        Kind::Solitaire => solitaire_results(game, report),
        Kind::Table => table_results(game, report),
        Kind::Duel => duel_results(game, report),
    }
}

/// A game played alone: each bot's mean score with its interval.
fn solitaire_results(game: &dyn GameDef, report: &MatchReport) -> String {
    use std::fmt::Write;
    let title = game.title();
    let mut s = String::new();
    let width = report.bots.iter().map(|b| b.name.len()).max().unwrap_or(3).max(3);
    let _ = writeln!(s, "{title}, seed {}: {} games", report.seed, report.games);
    let _ = writeln!(
        s,
        "{:<width$}  {:>6}  {:>10}  {:>15}  {:>6}  forfeits",
        "bot", "games", "mean score", "95% CI", "sd"
    );
    for b in &report.bots {
        let ci = format!("{:.2} to {:.2}", b.score.ci95[0], b.score.ci95[1]);
        let _ = writeln!(
            s,
            "{:<width$}  {:>6}  {:>10.2}  {:>15}  {:>6.2}  {}",
            b.name,
            b.games,
            b.score.mean,
            ci,
            b.score.sd,
            forfeit_list(&b.forfeits)
        );
    }
    s
}

/// A table game: each bot's mean position and how often it was first and last.
fn table_results(game: &dyn GameDef, report: &MatchReport) -> String {
    use std::fmt::Write;
    let title = game.title();
    let n = report.bots.len().max(1);
    let mut s = String::new();
    let width = report.bots.iter().map(|b| b.name.len()).max().unwrap_or(3).max(3);
    let _ = writeln!(
        s,
        "{title}, seed {}: {} games at a table of {n}, {} deals each played in {} seat orders (every seat, and every neighbour on each side, equally often)",
        report.seed,
        report.games,
        report.games / crate::runner::seat_orders(n),
        crate::runner::seat_orders(n)
    );
    // The places as the game names them (President: president, bum), each
    // column at least five wide.
    let [first_place, last_place] = game.about().places;
    let (first_width, last_width) = (first_place.len().max(5), last_place.len().max(5));
    let _ = writeln!(
        s,
        "{:<width$}  {:>6}  {:>13}  {:>first_width$}  {:>last_width$}  forfeits",
        "bot", "games", "mean position", first_place, last_place
    );
    for b in &report.bots {
        let (mean, first, last) = b
            .positions
            .as_ref()
            .map_or((f64::NAN, 0, 0), |p| (p.mean, p.first, p.last));
        let _ = writeln!(
            s,
            "{:<width$}  {:>6}  {:>13.2}  {:>first_width$}  {:>last_width$}  {}",
            b.name,
            b.games,
            mean,
            first,
            last,
            forfeit_list(&b.forfeits)
        );
    }
    s
}

/// A duel: each bot's wins, losses, draws and points.
fn duel_results(game: &dyn GameDef, report: &MatchReport) -> String {
    use std::fmt::Write;
    let title = game.title();
    let n = report.bots.len().max(1);
    let mut s = String::new();
    let width = report.bots.iter().map(|b| b.name.len()).max().unwrap_or(3).max(3);
    let _ = writeln!(
        s,
        "{title} ({} variant), seed {}: {} games, {} deal{} each played from {} seats",
        report.variant,
        report.seed,
        report.games,
        report.games / n,
        if report.games / n == 1 { "" } else { "s" },
        n
    );
    let _ = writeln!(
        s,
        "{:<width$}  {:>6}  {:>5}  {:>6}  {:>5}  {:>6}  forfeits",
        "bot", "games", "wins", "losses", "draws", "points"
    );
    for b in &report.bots {
        let _ = writeln!(
            s,
            "{:<width$}  {:>6}  {:>5}  {:>6}  {:>5}  {:>6}  {}",
            b.name,
            b.games,
            b.wins,
            b.losses,
            b.draws,
            b.points,
            forfeit_list(&b.forfeits)
        );
    }
    s
}

pub use crate::runner::forfeit_list;
