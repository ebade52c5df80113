//! A match's totals, counted game by game as the games arrive, and its
//! report written as it is played (`arena match --json`).

use super::{BotRef, BotSummary, FirstForfeit, FuelSummary, GameResult, MatchReport, MatchSpec, PositionSummary};
use arena_core::ForfeitReason;
use arena_sandbox::{Call, Usage};
use std::collections::BTreeMap;

/// A match's totals, counted game by game in game order: everything its
/// report shows and nothing per game.
pub(super) struct MatchTotals {
    bots: Vec<BotSummary>,
    /// Per bot: games, sum of scores, sum of their squares.
    scores: Vec<(u64, i128, i128)>,
    fuel: Vec<FuelTally>,
    solitaire: bool,
}

impl MatchTotals {
    pub(super) fn new(spec: &MatchSpec<'_>) -> MatchTotals {
        let n = spec.entrants.len();
        let bots = spec
            .entrants
            .iter()
            .map(|e| BotSummary {
                name: e.name.clone(),
                sha256: match &e.bot {
                    BotRef::Wasm(p) => Some(p.sha256.clone()),
                    BotRef::House(_) => None,
                },
                games: 0,
                wins: 0,
                losses: 0,
                draws: 0,
                points: 0,
                score: crate::stats::estimate(&[]),
                positions: None,
                forfeits: ForfeitReason::ALL.iter().map(|r| (r.as_str().to_string(), 0)).collect(),
                illegal_moves: 0,
                fuel: None,
                illegal_games: 0,
                first_forfeits: Vec::new(),
            })
            .collect();
        MatchTotals {
            bots,
            scores: vec![(0, 0, 0); n],
            fuel: vec![FuelTally::default(); n],
            solitaire: n == 1,
        }
    }

    pub(super) fn add(&mut self, result: &GameResult, usage: &[Option<Usage>]) {
        for (seat, &bot) in result.seats.iter().enumerate() {
            if let Some(Some(u)) = usage.get(seat) {
                self.fuel[bot].add(u);
            }
            let summary = &mut self.bots[bot];
            let score = result.scores[seat];
            summary.games += 1;
            summary.points += score;
            let (n, sum, squares) = &mut self.scores[bot];
            *n += 1;
            *sum += i128::from(score);
            *squares += i128::from(score) * i128::from(score);
            match result.winner {
                _ if self.solitaire => {}
                Some(w) if w == seat => summary.wins += 1,
                Some(_) => summary.losses += 1,
                None => summary.draws += 1,
            }
            let illegal = result.illegal.get(seat).copied().unwrap_or(0);
            summary.illegal_moves += illegal;
            summary.illegal_games += u32::from(illegal > 0);
            for f in result.forfeits.iter().filter(|f| f.seat == seat) {
                *summary.forfeits.entry(f.reason.as_str().to_string()).or_default() += 1;
                if !summary.first_forfeits.iter().any(|x| x.reason == f.reason) {
                    summary.first_forfeits.push(FirstForfeit {
                        reason: f.reason,
                        game: result.index,
                        detail: f.detail.clone(),
                    });
                }
            }
            if let Some(p) = result.positions.as_ref().map(|p| p[seat]) {
                let n = result.seats.len() as u32;
                let entry = summary.positions.get_or_insert(PositionSummary {
                    mean: 0.0,
                    first: 0,
                    last: 0,
                });
                entry.mean += f64::from(p);
                entry.first += u32::from(p == 1);
                entry.last += u32::from(p == n);
            }
        }
    }

    pub(super) fn report(mut self, spec: &MatchSpec<'_>) -> MatchReport {
        let per_move = spec.setup.sandbox.limits().fuel;
        for ((summary, &(n, sum, squares)), tally) in self.bots.iter_mut().zip(&self.scores).zip(&self.fuel) {
            summary.fuel = tally.summary(per_move);
            summary.score = crate::stats::estimate_from_sums(n, sum, squares);
            let games = f64::from(summary.games.max(1));
            if let Some(p) = summary.positions.as_mut() {
                p.mean /= games;
            }
        }
        MatchReport {
            bots: self.bots,
            ..spec.empty_report()
        }
    }
}

/// Writes a match's report as `serde_json::to_string_pretty` writes it,
/// each game's result as soon as it is played: `arena match --json` of a
/// million games holds one game, not a million.
pub struct ReportWriter<W: std::io::Write> {
    out: W,
    games: usize,
}

/// The text of `report` pretty-printed, cut where its (empty) results are.
fn around_results(report: &MatchReport) -> std::io::Result<(String, String)> {
    // With its line break and indent: a string in the JSON holds no raw
    // line break, so only the field itself can match.
    const FIELD: &str = "\n  \"results\": []";
    let text = serde_json::to_string_pretty(report)?;
    let at = text
        .find(FIELD)
        .ok_or_else(|| std::io::Error::other("a report always has its results"))?
        + 3;
    let tail = at - 3 + FIELD.len();
    Ok((text[..at].to_string(), text[tail..].to_string()))
}

impl<W: std::io::Write> ReportWriter<W> {
    /// Write the report's header (game, seed, limits) for `spec`.
    pub fn start(mut out: W, spec: &MatchSpec<'_>) -> std::io::Result<Self> {
        let (head, _) = around_results(&spec.empty_report())?;
        out.write_all(head.as_bytes())?;
        out.write_all(b"\"results\": [")?;
        Ok(ReportWriter { out, games: 0 })
    }

    /// Write one game's result, the games in order.
    pub fn result(&mut self, result: &GameResult) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(result)?;
        self.out.write_all(if self.games == 0 { b"\n" } else { b",\n" })?;
        for (i, line) in text.lines().enumerate() {
            if i > 0 {
                self.out.write_all(b"\n")?;
            }
            self.out.write_all(b"    ")?;
            self.out.write_all(line.as_bytes())?;
        }
        self.games += 1;
        Ok(())
    }

    /// Write the totals (`report` from [`play_match`]) and end the object.
    pub fn finish(mut self, report: &MatchReport) -> std::io::Result<W> {
        let (_, tail) = around_results(report)?;
        if self.games > 0 {
            self.out.write_all(b"\n  ")?;
        }
        self.out.write_all(b"]")?;
        self.out.write_all(tail.as_bytes())?;
        self.out.write_all(b"\n")?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Forfeits by reason as every report prints them: `fuel 2, trap 1`, or `-`.
pub fn forfeit_list(forfeits: &BTreeMap<String, u32>) -> String {
    let list: Vec<String> = forfeits
        .iter()
        .filter(|(_, c)| **c > 0)
        .map(|(r, c)| format!("{r} {c}"))
        .collect();
    if list.is_empty() {
        "-".to_string()
    } else {
        list.join(", ")
    }
}

#[derive(Debug, Clone, Default)]
struct FuelTally {
    games: u32,
    moves: u64,
    move_fuel: u128,
    max_move: u64,
    max_start: u64,
    max_bank: u64,
    games_using_bank: u32,
}

impl FuelTally {
    pub(super) fn add(&mut self, u: &Usage) {
        self.games += 1;
        for f in u.moves() {
            self.moves += 1;
            self.move_fuel += u128::from(f);
            self.max_move = self.max_move.max(f);
        }
        let start = u.instantiation
            + u.calls
                .iter()
                .filter(|c| c.call == Call::Start)
                .map(|c| c.fuel)
                .sum::<u64>();
        self.max_start = self.max_start.max(start);
        self.max_bank = self.max_bank.max(u.bank_used);
        self.games_using_bank += u32::from(u.bank_used > 0);
    }

    fn summary(&self, per_move: u64) -> Option<FuelSummary> {
        (self.games > 0).then(|| FuelSummary {
            moves: self.moves,
            mean_per_move: if self.moves == 0 {
                0.0
            } else {
                self.move_fuel as f64 / self.moves as f64
            },
            max_per_move: self.max_move,
            worst_share: self.max_move as f64 / per_move.max(1) as f64,
            max_start: self.max_start,
            max_bank_used: self.max_bank,
            games_using_bank: self.games_using_bank,
        })
    }
}
