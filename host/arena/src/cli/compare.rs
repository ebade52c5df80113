//! `arena compare`: several bots on the same deals, with confidence intervals.

use super::common::RunArgs;
use anyhow::bail;
use arena_games::Kind;
use arena_runner::runner::entrants::{entrant, entrants, find_game, setup};
use arena_runner::runner::{CompareReport, CompareSpec, HeadReport, HeadSpec, run_compare, run_head_to_head};
use arena_runner::stats::{Sprt, SprtDecision};
use clap::Args;
use std::io::IsTerminal;

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
    #[arg(long, value_name = "N", value_parser = super::args::parse_positive_u64)]
    pub players: Option<u64>,
    /// Games per bot, on the same deals for every bot [default: 1000]; with --sprt, the most to
    /// play before calling the test inconclusive [default: 20000].
    #[arg(long, allow_hyphen_values = true, value_parser = super::args::parse_games)]
    pub games: Option<u64>,
    /// Two bots of a duel, no --against: play them head to head on paired deals until a sequential
    /// probability ratio test decides whether the first is at least --elo1 better (H1) or not (H0).
    #[arg(long)]
    pub sprt: bool,
    /// SPRT: the Elo difference of H0 ("not better").
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true, requires = "sprt")]
    pub elo0: f64,
    /// SPRT: the Elo difference of H1 ("better by at least this").
    #[arg(long, default_value_t = 20.0, allow_hyphen_values = true, requires = "sprt")]
    pub elo1: f64,
    /// SPRT: the chance of accepting H1 when H0 holds.
    #[arg(long, default_value_t = 0.05, requires = "sprt")]
    pub alpha: f64,
    /// SPRT: the chance of accepting H0 when H1 holds.
    #[arg(long, default_value_t = 0.05, requires = "sprt")]
    pub beta: f64,
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
    if game.kind() == Kind::Duel && args.against.is_none() && entrants.len() == 2 {
        return head_to_head(&args, game, setup, entrants);
    }
    if args.sprt {
        bail!("--sprt compares two bots of a two-player game head to head: give exactly two bots and no --against");
    }
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
        games: usize::try_from(args.games.unwrap_or(1000)).unwrap_or(usize::MAX),
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

/// `arena compare NEW OLD` in a duel: head to head, with --sprt sequentially.
fn head_to_head(
    args: &CompareArgs,
    game: &'static dyn arena_runner::runner::GameDef,
    setup: arena_runner::runner::GameSetup<'_>,
    entrants: Vec<arena_runner::runner::Entrant>,
) -> anyhow::Result<()> {
    let sprt = args
        .sprt
        .then(|| Sprt::new(args.elo0, args.elo1, args.alpha, args.beta))
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let games = args.games.unwrap_or(if sprt.is_some() { 20_000 } else { 1000 });
    let [new, old]: [arena_runner::runner::Entrant; 2] = entrants
        .try_into()
        .map_err(|_| anyhow::anyhow!("head to head takes two bots"))?;
    let spec = HeadSpec {
        game,
        setup,
        bots: [new, old],
        games: usize::try_from(games).unwrap_or(usize::MAX),
        seed: args.seed,
        sprt,
    };
    let live = std::io::stderr().is_terminal() && !args.json;
    let mut progress = |played: usize, llr: Option<f64>| {
        if live {
            match (llr, sprt) {
                (Some(llr), Some(t)) => {
                    let (lo, hi) = t.bounds();
                    eprint!("\r{played} games, LLR {llr:.2} (accept H0 at {lo:.2}, H1 at {hi:.2})   ");
                }
                _ => eprint!("\r{played} games   "),
            }
        }
    };
    let report = args.run.pool()?.install(|| run_head_to_head(spec, &mut progress))?;
    if live {
        eprint!("\r{:60}\r", "");
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", head_table(game.title(), &report));
    }
    Ok(())
}

/// The human-readable head to head.
pub fn head_table(title: &str, r: &HeadReport) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let pct = |x: f64| format!("{:.1}%", 100.0 * x.clamp(0.0, 1.0));
    // A perfect score has no finite Elo: the report's number is clamped there.
    let elo = |e: f64| {
        if e.abs() < 3000.0 {
            format!("{:+.0}", e + 0.0)
        } else if e > 0.0 {
            "+inf".to_string()
        } else {
            "-inf".to_string()
        }
    };
    let _ = writeln!(
        s,
        "{title} ({} variant), seed {}: {} vs {}, {} games ({} deals, each from both seats)",
        r.variant,
        r.seed,
        r.new,
        r.old,
        r.games,
        r.games / 2
    );
    let [w, d, l] = r.record;
    let _ = writeln!(
        s,
        "{}: {w}-{d}-{l} (won-drew-lost), score {} (95% CI {} to {}), Elo {} (95% CI {} to {}), LOS {}",
        r.new,
        pct(r.score.mean),
        pct(r.score.ci95[0]),
        pct(r.score.ci95[1]),
        elo(r.elo[0]),
        elo(r.elo[1]),
        elo(r.elo[2]),
        pct(r.los)
    );
    for (i, f) in r.forfeits.iter().enumerate() {
        if !f.is_empty() {
            let _ = writeln!(
                s,
                "forfeits of {}: {}",
                if i == 0 { &r.new } else { &r.old },
                super::matches::forfeit_list(f)
            );
        }
    }
    if let Some(t) = &r.sprt {
        let head = format!(
            "SPRT elo0={} elo1={} alpha={} beta={}",
            t.test.elo0, t.test.elo1, t.test.alpha, t.test.beta
        );
        let verdict = match t.decision {
            SprtDecision::AcceptH1 => format!(
                "H1 accepted: {} is at least {} Elo better than {}",
                r.new, t.test.elo1, r.old
            ),
            SprtDecision::AcceptH0 => format!(
                "H0 accepted: {} is not {} Elo better than {} (at most {})",
                r.new, t.test.elo1, r.old, t.test.elo0
            ),
            SprtDecision::Continue => {
                "inconclusive: the game cap came first (raise --games, or accept that the difference is small)"
                    .to_string()
            }
        };
        let _ = writeln!(
            s,
            "{head}: {verdict}, after {} games (LLR {:.2}; H0 at {:.2}, H1 at {:.2})",
            r.games, t.llr, t.bounds.0, t.bounds.1
        );
    }
    s
}

/// The human-readable comparison.
pub fn table(title: &str, report: &CompareReport) -> String {
    use std::fmt::Write;
    let width = report.bots.iter().map(|b| b.name.len()).max().unwrap_or(3).max(3);
    let mut s = table_head(title, report, width);
    for b in &report.bots {
        let forfeits = super::matches::forfeit_list(&b.forfeits);
        if let Some(p) = &b.positions {
            let ci = format!("{:.2} to {:.2}", b.estimate.ci95[0], b.estimate.ci95[1]);
            let _ = writeln!(
                s,
                "{:<width$}  {:>13.2}  {:>11}  {:>6.2}  {:>5}  {:>5}  {forfeits}",
                b.name, b.estimate.mean, ci, b.estimate.sd, p.first, p.last
            );
            continue;
        }
        match b.record {
            None => {
                let ci = format!("{:.2} to {:.2}", b.estimate.ci95[0], b.estimate.ci95[1]);
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
                    "{:<width$}  {:>8}  {:>15}  {:>6.3}  {:>14}  {:>6}  {forfeits}",
                    b.name,
                    pct(b.estimate.mean),
                    ci,
                    b.estimate.sd,
                    record,
                    b.los.map_or_else(String::new, pct)
                );
            }
        }
    }
    s
}

/// The comparison's title line and column heads: a table game's positions,
/// a solitaire game's scores, or a duel's win rates.
fn table_head(title: &str, report: &CompareReport, width: usize) -> String {
    use std::fmt::Write;
    let mut s = String::new();
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
                "{:<width$}  {:>8}  {:>15}  {:>6}  {:>14}  {:>6}  forfeits",
                "bot", "win rate", "95% CI", "sd", "won-drew-lost", "LOS"
            );
        }
    }
    s
}
