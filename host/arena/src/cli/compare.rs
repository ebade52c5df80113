//! `arena compare`: several bots on the same deals, with confidence intervals.

use super::common::{RunArgs, entrant, entrants, find_game, setup};
use crate::runner::{CompareReport, CompareSpec, run_compare};
use clap::Args;

/// Options of `arena compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The game (see `arena games`).
    #[arg(long)]
    pub game: String,
    /// The bots to compare: .wasm files or house:NAME.
    #[arg(required = true, value_name = "BOT")]
    pub bots: Vec<String>,
    /// For games with opponents: the reference bot every bot plays. In a
    /// duel each bot plays it; at a table game (president) each bot sits with
    /// copies of it in the other seats.
    #[arg(long, value_name = "BOT")]
    pub against: Option<String>,
    /// For table games (president): players at each table, your bot and
    /// N-1 copies of the --against bot [default: 4]. To seat different bots
    /// at one table, use `arena match`.
    #[arg(long, value_name = "N", value_parser = super::parse_positive_u64)]
    pub players: Option<u64>,
    /// Games per bot, on the same deals for every bot.
    #[arg(long, default_value = "1000", allow_hyphen_values = true, value_parser = super::parse_games)]
    pub games: u64,
    /// The seed: the same seed gives the same deals (and `arena match --seed` replays them).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Rules variant.
    #[arg(long)]
    pub variant: Option<String>,
    #[command(flatten)]
    pub run: RunArgs,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Run `arena compare`.
pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    let game = find_game(&args.game)?;
    let sandbox = args.run.sandbox(game)?;
    let setup = setup(game, &sandbox, args.variant.clone(), args.run.illegal)?;
    let entrants = entrants(game, &sandbox, &args.bots)?;
    let against = args
        .against
        .as_deref()
        .map(|a| entrant(game, &sandbox, a))
        .transpose()?;
    let spec = CompareSpec {
        game,
        setup,
        entrants,
        against,
        players: args.players.map(|p| usize::try_from(p).unwrap_or(usize::MAX)),
        games: usize::try_from(args.games).unwrap_or(usize::MAX),
        seed: args.seed,
    };
    let report = args.run.pool()?.install(|| run_compare(spec))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", table(game.title(), &report));
    }
    Ok(())
}

/// The human-readable comparison.
pub fn table(title: &str, report: &CompareReport) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let width = report.bots.iter().map(|b| b.name.len()).max().unwrap_or(3).max(3);
    match (&report.against, report.players) {
        (Some(against), Some(players)) => {
            let _ = writeln!(
                s,
                "{title}, seed {}: {} games per bot at tables of {players}, with {} copies of {against}; each deal from every seat",
                report.seed,
                report.games,
                players - 1
            );
            let _ = writeln!(
                s,
                "mean finishing position: 1 is first, {players} is last; lower is better"
            );
            let _ = writeln!(
                s,
                "{:<width$}  {:>13}  {:>11}  {:>6}  {:>5}  {:>5}  forfeits",
                "bot", "mean position", "95% CI", "sd", "first", "last"
            );
        }
        (None, _) => {
            let _ = writeln!(
                s,
                "{title}, seed {}: {} games per bot, the same decks for every bot",
                report.seed, report.games
            );
            let _ = writeln!(
                s,
                "{:<width$}  {:>10}  {:>15}  {:>6}  forfeits",
                "bot", "mean score", "95% CI", "sd"
            );
        }
        (Some(against), None) => {
            let _ = writeln!(
                s,
                "{title} ({} variant), seed {}: {} games per bot against {against}, each deal from both seats",
                report.variant, report.seed, report.games
            );
            let _ = writeln!(
                s,
                "{:<width$}  {:>8}  {:>15}  {:>6}  {:>14}  forfeits",
                "bot", "win rate", "95% CI", "sd", "won-drew-lost"
            );
        }
    }
    for b in &report.bots {
        let forfeits = super::matches::forfeit_list(&b.forfeits);
        if let Some(p) = &b.positions {
            let ci = format!("{:.2}-{:.2}", b.estimate.ci95[0], b.estimate.ci95[1]);
            let _ = writeln!(
                s,
                "{:<width$}  {:>13.2}  {:>11}  {:>6.2}  {:>5}  {:>5}  {forfeits}",
                b.name, b.estimate.mean, ci, b.estimate.sd, p.first, p.last
            );
            continue;
        }
        match b.record {
            None => {
                let ci = format!("{:.2}-{:.2}", b.estimate.ci95[0], b.estimate.ci95[1]);
                let _ = writeln!(
                    s,
                    "{:<width$}  {:>10.2}  {:>15}  {:>6.2}  {forfeits}",
                    b.name, b.estimate.mean, ci, b.estimate.sd
                );
            }
            Some([w, d, l]) => {
                let pct = |x: f64| format!("{:.1}%", 100.0 * x.clamp(0.0, 1.0));
                let ci = format!("{}-{}", pct(b.estimate.ci95[0]), pct(b.estimate.ci95[1]));
                let record = format!("{w}-{d}-{l}");
                let _ = writeln!(
                    s,
                    "{:<width$}  {:>8}  {:>15}  {:>6.3}  {:>14}  {forfeits}",
                    b.name,
                    pct(b.estimate.mean),
                    ci,
                    b.estimate.sd,
                    record
                );
            }
        }
    }
    s
}
