//! Matches: the same bots over many games, each deal played from every seat.

use super::{BotRef, GameDef, GameSetup, PlayedGame, SetupError};
use crate::games::{EventLines, Forfeit, ForfeitReason, Seat, derive_seed};
use crate::sandbox::{Call, Usage};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::ops::ControlFlow;

/// A bot entered in a match, under the name results show.
#[derive(Debug, Clone)]
pub struct Entrant {
    /// The name shown: the file stem, or `house:NAME`.
    pub name: String,
    /// The bot.
    pub bot: BotRef,
}

/// One game of a match, as reported.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GameResult {
    /// Index of the game in the match, from 0.
    pub index: usize,
    /// The seed of the deal this game was played on.
    pub seed: u64,
    /// For each seat, the index of the bot sitting there.
    pub seats: Vec<usize>,
    /// For each seat, its score.
    pub scores: Vec<i64>,
    /// The winning seat, or null for a draw.
    pub winner: Option<Seat>,
    /// The forfeit that ended the game, if any (with more than two players: the first).
    pub forfeit: Option<Forfeit>,
    /// Every forfeit of the game (games of more than two players go on after one).
    pub forfeits: Vec<Forfeit>,
    /// Finishing positions by seat (1 = first), for games that rank players.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positions: Option<Vec<u32>>,
    /// Per seat, illegal answers the game played on under the course's rule
    /// (written only when there were some).
    #[serde(default, skip_serializing_if = "no_illegal")]
    pub illegal: Vec<u32>,
}

fn no_illegal(counts: &[u32]) -> bool {
    counts.iter().all(|&c| c == 0)
}

/// How a bot placed, in games that rank players.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PositionSummary {
    /// Mean finishing position (1 = first).
    pub mean: f64,
    /// Games finished first (President).
    pub first: u32,
    /// Games finished last (Bum).
    pub last: u32,
}

/// One bot's totals over a match.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BotSummary {
    /// The bot's name.
    pub name: String,
    /// SHA-256 of the wasm file, for wasm bots.
    pub sha256: Option<String>,
    /// Games played.
    pub games: u32,
    /// Games won.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Games drawn.
    pub draws: u32,
    /// Sum of its scores over all games.
    pub points: i64,
    /// Its score per game: mean, spread and 95% confidence interval.
    pub score: crate::stats::Estimate,
    /// Forfeits by reason (every reason listed, zero or not).
    pub forfeits: BTreeMap<String, u32>,
    /// Illegal answers the games played on under the course's rule (under
    /// `--illegal forfeit` they are forfeits with reason `illegal-move`).
    pub illegal_moves: u32,
    /// Finishing positions, for games that rank players.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positions: Option<PositionSummary>,
    /// For wasm bots: fuel per move and how close to the limits it played.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fuel: Option<FuelSummary>,
    /// Games in which it gave an illegal answer (worded by `arena match`,
    /// not in the JSON, where every game's `illegal` says it).
    #[serde(skip)]
    pub illegal_games: u32,
    /// For each forfeit reason, the first game it forfeited that way, in
    /// the order they happened: what `arena match` tells a student.
    #[serde(skip)]
    pub first_forfeits: Vec<FirstForfeit>,
}

/// The first game a bot forfeited for one reason.
#[derive(Debug, Clone, PartialEq)]
pub struct FirstForfeit {
    /// Why.
    pub reason: ForfeitReason,
    /// The game's index in the match.
    pub game: usize,
    /// What happened, in the sandbox's words.
    pub detail: String,
}

/// A whole match, as reported by `arena match --json`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MatchReport {
    /// The game's name.
    pub game: String,
    /// The variant played.
    pub variant: String,
    /// What an illegal move cost: the course's rule or a forfeit.
    pub illegal: crate::games::IllegalMoves,
    /// The match seed.
    pub seed: u64,
    /// Games played.
    pub games: usize,
    /// The limits bots ran under.
    pub limits: crate::sandbox::Limits,
    /// Every game, in order (written before the totals, so `arena match
    /// --json` can stream them as they are played; empty from [`play_match`]).
    pub results: Vec<GameResult>,
    /// Per-bot totals, in the order the bots were given.
    pub bots: Vec<BotSummary>,
}

/// What to play.
pub struct MatchSpec<'a> {
    /// The game.
    pub game: &'static dyn GameDef,
    /// Its settings.
    pub setup: GameSetup<'a>,
    /// The bots; as many as the game seats.
    pub entrants: Vec<Entrant>,
    /// Games to play (rounded up to a whole number of seat rotations).
    pub games: usize,
    /// The match seed.
    pub seed: u64,
    /// Whether to keep every event for a replay.
    pub record: bool,
}

/// Most games one match may play: enough for any class, few enough to plan in memory.
pub const MAX_GAMES: usize = 10_000_000;

/// Whether `game` seats `n` bots, or the run's mistake in one line.
pub fn check_seats(game: &dyn GameDef, n: usize) -> Result<(), SetupError> {
    let seats = game.seats();
    if seats.contains(&n) {
        return Ok(());
    }
    let takes = match (*seats.start(), *seats.end()) {
        (1, 1) => "one bot".to_string(),
        (a, b) if a == b => format!("{a} bots"),
        (a, b) => format!("{a} to {b} bots"),
    };
    Err(SetupError::Seats(format!("{} takes {takes}, got {n}", game.name())))
}

impl MatchSpec<'_> {
    /// Whether the match can be played as asked: settings the game accepts,
    /// as many bots as it seats, at most [`MAX_GAMES`] games, and every wasm
    /// bot built for one of the game's worlds. Every way of playing games
    /// (a match, a tournament, a grade, a replay) checks this first, so a
    /// library caller gets the same refusal as the command line.
    pub fn check(&self) -> Result<(), SetupError> {
        self.game.check_setup(&self.setup)?;
        check_seats(self.game, self.entrants.len())?;
        if self.games > MAX_GAMES {
            return Err(SetupError::Games(format!(
                "{} games asked; a match plays at most {MAX_GAMES}",
                self.games
            )));
        }
        for e in &self.entrants {
            if let BotRef::Wasm(program) = &e.bot
                && !self.game.worlds().iter().any(|w| std::ptr::eq(*w, program.world))
            {
                return Err(SetupError::WrongWorld(
                    crate::sandbox::LoadError::WrongWorld {
                        path: program.path.display().to_string(),
                        world: self.game.world().name,
                        expected: self.game.world().exports.join(", "),
                        found: format!("a bot built for {}", program.world.name),
                    }
                    .to_string(),
                ));
            }
        }
        Ok(())
    }
}

/// Everything a match produced: the report and, if recorded, each game's events.
pub struct MatchOutcome {
    /// The report.
    pub report: MatchReport,
    /// Per game, its events (empty when not recorded).
    pub events: Vec<Vec<Value>>,
}

/// Six players: ten cyclic orders in which every ordered pair of neighbours
/// occurs exactly twice (all 120 cycles would make 720 games a set; no five
/// cycles balance six: Tillson, 1980), found by a search and checked by
/// `seat_orders_balance_seats_and_neighbours`.
const SIX: [[usize; 6]; 10] = [
    [0, 1, 2, 3, 4, 5],
    [0, 1, 2, 3, 5, 4],
    [0, 2, 1, 3, 4, 5],
    [0, 2, 1, 5, 4, 3],
    [0, 3, 2, 5, 1, 4],
    [0, 3, 5, 1, 4, 2],
    [0, 4, 1, 5, 3, 2],
    [0, 4, 2, 5, 3, 1],
    [0, 5, 2, 4, 1, 3],
    [0, 5, 2, 4, 3, 1],
];

/// The number of cyclic orders a match of `n` bots uses: for up to five
/// players every one ((n-1)!, so identical bots are exactly exchangeable),
/// for six the balanced ten of [`SIX`].
fn cycles(n: usize) -> usize {
    match n {
        0..=5 => (1..n).product::<usize>().max(1),
        6 => SIX.len(),
        _ => 1,
    }
}

/// Cyclic order `c` of `n` bots, bot 0 first: the `c`-th permutation of the
/// others in lexicographic order (up to five players), or a row of [`SIX`].
fn cycle(c: usize, n: usize) -> Vec<usize> {
    if n == 6 {
        return SIX[c % SIX.len()].to_vec();
    }
    if n > 6 {
        return (0..n).collect();
    }
    let mut rest: Vec<usize> = (1..n).collect();
    let mut order = vec![0];
    let mut c = c;
    for k in (0..rest.len()).rev() {
        let f: usize = (1..=k).product();
        let i = c / f;
        c %= f;
        order.push(rest.remove(i.min(rest.len() - 1)));
    }
    order
}

/// How many seat orders a match of `n` bots cycles through: each cyclic
/// order in each of its `n` rotations, so every bot sits in every seat and
/// has every other bot as its left and right neighbour equally often (3
/// bots: 6 orders, 4: 24, 5: 120, 6: 60). Two bots: the seats swapped.
pub fn seat_orders(n: usize) -> usize {
    let n = n.max(1);
    cycles(n) * n
}

/// Seat order `k` of a match of `n` bots: for each seat, the bot sitting there.
fn seat_order(k: usize, n: usize) -> Vec<usize> {
    let n = n.max(1);
    let order = cycle((k / n) % cycles(n), n);
    let rotation = k % n;
    (0..n).map(|seat| order[(seat + rotation) % n]).collect()
}

/// For game `index` of a match between `n` bots: the deal it is played on,
/// and which bot sits in each seat. Each deal is played once in every seat
/// order of [`seat_orders`], so every bot plays every deal from every seat
/// (and at a table, beside every neighbour on each side equally often).
pub fn seating(match_seed: u64, index: usize, n: usize) -> (u64, Vec<usize>) {
    let m = seat_orders(n);
    let deal = derive_seed(match_seed, (index / m) as u64);
    (deal, seat_order(index % m, n))
}

/// Round `games` up to a whole number of seat-order cycles of `n` bots.
pub fn whole_rotations(games: usize, n: usize) -> usize {
    let m = seat_orders(n);
    games.div_ceil(m).saturating_mul(m)
}

/// The units a match is played in, as game indices: one game each, or for
/// a game whose games chain (President's card exchanges) one seat order's
/// series, in deal order. Every command plays these same units, so a game
/// means the same thing in a match, a grade and a tournament.
pub fn units(spec: &MatchSpec<'_>) -> Vec<Vec<usize>> {
    (0..unit_count(spec)).map(|k| unit(spec, k)).collect()
}

/// How many units [`units`] has, without making them.
pub fn unit_count(spec: &MatchSpec<'_>) -> usize {
    let n = spec.entrants.len().max(1);
    let games = whole_rotations(spec.games, n);
    if spec.game.chained() {
        seat_orders(n).min(games)
    } else {
        games
    }
}

/// Unit `k` of [`units`], made on its own: a reader of a long match holds a
/// few units at a time, not the plan of every game.
pub fn unit(spec: &MatchSpec<'_>, k: usize) -> Vec<usize> {
    let n = spec.entrants.len().max(1);
    if spec.game.chained() {
        (k..whole_rotations(spec.games, n)).step_by(seat_orders(n)).collect()
    } else {
        vec![k]
    }
}

#[cfg(test)]
mod seat_tests {
    use super::*;

    #[test]
    fn seat_orders_balance_seats_and_neighbours() {
        for n in 1..=6 {
            let m = seat_orders(n);
            let mut in_seat = vec![vec![0; n]; n];
            let mut left_of = vec![vec![0; n]; n];
            for k in 0..m {
                let order = seat_order(k, n);
                let mut sorted = order.clone();
                sorted.sort_unstable();
                assert_eq!(
                    sorted,
                    (0..n).collect::<Vec<_>>(),
                    "order {k} of {n} seats every bot once"
                );
                for (seat, &bot) in order.iter().enumerate() {
                    in_seat[bot][seat] += 1;
                    if n > 2 {
                        left_of[bot][order[(seat + 1) % n]] += 1;
                    }
                }
            }
            let each = m / n;
            assert!(in_seat.iter().flatten().all(|&c| c == each), "{n}: seats {in_seat:?}");
            if n > 2 {
                let pairs = m / (n - 1);
                for (a, row) in left_of.iter().enumerate() {
                    for (b, &count) in row.iter().enumerate() {
                        let want = if a == b { 0 } else { pairs };
                        assert_eq!(count, want, "{n}: {a} before {b}");
                    }
                }
            }
        }
        assert_eq!(
            (
                seat_orders(2),
                seat_orders(3),
                seat_orders(4),
                seat_orders(5),
                seat_orders(6)
            ),
            (2, 6, 24, 120, 60)
        );
    }
}

/// Play one unit of a match (see [`units`]): its games in order, each with
/// its events if the match is recorded.
pub fn play_unit(spec: &MatchSpec<'_>, unit: &[usize]) -> Result<Vec<Played>, SetupError> {
    // Whoever calls (a match, a tournament, a replay): settings the game
    // cannot use, such as an unknown variant, are an error, never a default.
    spec.check()?;
    let n = spec.entrants.len();
    let Some(&first) = unit.first() else {
        return Ok(Vec::new());
    };
    // Every game of a unit has the same seating: a unit is one rotation.
    let seats = seating(spec.seed, first, n).1;
    let seeds: Vec<u64> = unit.iter().map(|&i| seating(spec.seed, i, n).0).collect();
    let players: Vec<&BotRef> = seats.iter().map(|&b| &spec.entrants[b].bot).collect();
    let played = spec.game.play_series(&spec.setup, &seeds, &players, spec.record)?;
    // The machine failing a bot is no result: stop the run, charge nobody.
    for (&index, (game, _)) in unit.iter().zip(&played) {
        let forfeits = game.outcome.forfeit.iter().chain(&game.outcome.other_forfeits);
        if let Some(f) = forfeits.into_iter().find(|f| f.reason == ForfeitReason::Host) {
            return Err(SetupError::Host(format!(
                "game {index}, {} in seat {}: {}; the game is not scored and the run stops: free memory or run fewer --jobs, then run again",
                spec.entrants[seats[f.seat]].name, f.seat, f.detail
            )));
        }
    }
    Ok(unit
        .iter()
        .zip(seeds)
        .zip(played)
        .map(|((&index, deal), (game, events))| finish_game(spec.record, index, deal, seats.clone(), game, events))
        .collect())
}

/// Play a match. Units run in parallel on rayon's pool; results are the
/// same, bit for bit, whatever the number of threads. An error is the
/// run's mistake (an unknown house bot), found before any game is played.
/// Every game is kept in the outcome: a long match is better played with
/// [`play_match`], which keeps none.
pub fn run_match(spec: &MatchSpec<'_>) -> Result<MatchOutcome, SetupError> {
    let mut results = Vec::new();
    let mut events = Vec::new();
    let mut report = play_match(spec, |played| {
        results.push(played.result);
        events.push(played.events.values());
        ControlFlow::Continue(())
    })?;
    report.results = results;
    Ok(MatchOutcome { report, events })
}

/// Play a match, handing each game to `each` in game order as soon as it
/// and every game before it are played, and return the totals (with no
/// `results`). At most two batches of games are in memory at a time (one
/// handed over while the next plays), so a million games take the memory
/// of a few thousand; the totals are exact
/// integer sums, equal whatever the batches or threads. `each` returning
/// `Break` ends the match there (the totals count the games handed over).
/// A host failure in a later batch (`SetupError::Host`) comes after `each`
/// has had the games before it. Chained games (President) are one batch:
/// their games are held until the whole match is played.
pub fn play_match(
    spec: &MatchSpec<'_>,
    mut each: impl FnMut(Played) -> ControlFlow<()>,
) -> Result<MatchReport, SetupError> {
    spec.check()?;
    let mut tally = MatchTotals::new(spec);
    let count = unit_count(spec);
    // Chained games interleave their units' indices (unit k plays games
    // k, k+m, ...), so game order needs every unit of the match at once:
    // at most one per seat order.
    let batch = if spec.game.chained() {
        count.max(1)
    } else {
        // A recorded game holds its events until it is written: fewer at once.
        let per_thread = if spec.record { 16 } else { 256 };
        per_thread * rayon::current_num_threads().max(1)
    };
    // While `each` takes one batch (writing a replay, say), the pool
    // plays the next: the two overlap. When `each` stops the match, the
    // batch in flight plays no further unit.
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut ready: Vec<Played> = Vec::new();
    let mut first = 0;
    loop {
        let next = (first < count).then(|| first..(first + batch).min(count));
        let mut played = None;
        let mut stopped = false;
        rayon::in_place_scope(|scope| {
            if let Some(range) = next.clone() {
                let (played, stop) = (&mut played, &stop);
                scope.spawn(move |_| *played = Some(play_batch(spec, range, stop)));
            }
            for p in ready.drain(..) {
                tally.add(&p.result, &p.fuel);
                if each(p).is_break() {
                    stopped = true;
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    break;
                }
            }
        });
        match (stopped, next, played) {
            (false, Some(range), Some(played)) => {
                ready = played?;
                first = range.end;
            }
            _ => return Ok(tally.report(spec)),
        }
    }
}

/// Units `range` of the match, played on the pool: their games in game
/// order (none once `stop` is set).
fn play_batch(
    spec: &MatchSpec<'_>,
    range: std::ops::Range<usize>,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<Vec<Played>, SetupError> {
    let mut played: Vec<Played> = range
        .into_par_iter()
        .map(|k| match stop.load(std::sync::atomic::Ordering::Relaxed) {
            true => Ok(Vec::new()),
            false => play_unit(spec, &unit(spec, k)),
        })
        .collect::<Result<Vec<_>, _>>()?
        .concat();
    played.sort_by_key(|p| p.result.index);
    Ok(played)
}

impl MatchSpec<'_> {
    /// The variant played: the one asked for, or the game's first.
    pub fn variant_name(&self) -> String {
        self.setup
            .variant
            .clone()
            .unwrap_or_else(|| self.game.variants()[0].to_string())
    }

    /// The report's header with no games and no totals yet.
    fn empty_report(&self) -> MatchReport {
        MatchReport {
            game: self.game.name().to_string(),
            variant: self.variant_name(),
            illegal: self.setup.illegal,
            seed: self.seed,
            games: whole_rotations(self.games, self.entrants.len()),
            limits: self.setup.sandbox.limits().clone(),
            results: Vec::new(),
            bots: Vec::new(),
        }
    }
}

/// A match's totals, counted game by game in game order: everything its
/// report shows and nothing per game.
struct MatchTotals {
    bots: Vec<BotSummary>,
    /// Per bot: games, sum of scores, sum of their squares.
    scores: Vec<(u64, i128, i128)>,
    fuel: Vec<FuelTally>,
    solitaire: bool,
}

impl MatchTotals {
    fn new(spec: &MatchSpec<'_>) -> MatchTotals {
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

    fn add(&mut self, result: &GameResult, usage: &[Option<Usage>]) {
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

    fn report(mut self, spec: &MatchSpec<'_>) -> MatchReport {
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

/// Play game `index` of a match again, keeping every event for a replay:
/// its whole unit is replayed, so the replay is exactly the game that was
/// scored (for President, after the same card exchanges).
pub fn play_match_game_recorded(spec: &MatchSpec<'_>, index: usize) -> Result<Played, SetupError> {
    let spec = MatchSpec {
        game: spec.game,
        setup: spec.setup.clone(),
        entrants: spec.entrants.clone(),
        games: spec.games,
        seed: spec.seed,
        record: true,
    };
    let unit = units(&spec)
        .into_iter()
        .find(|u| u.contains(&index))
        .unwrap_or_else(|| vec![index]);
    let played = play_unit(&spec, &unit)?;
    played
        .into_iter()
        .find(|p| p.result.index == index)
        .ok_or_else(|| SetupError::Seats(format!("the match has no game {index}")))
}

fn finish_game(
    record: bool,
    index: usize,
    deal: u64,
    seats: Vec<usize>,
    played: PlayedGame,
    mut events: EventLines,
) -> Played {
    let PlayedGame { outcome, logs, fuel } = played;
    if record {
        for (seat, log) in logs.into_iter().enumerate() {
            if let Some(log) = log {
                let log = RunnerEvent::Log {
                    seat,
                    lines: &log.lines,
                    truncated: log.truncated,
                };
                crate::games::record(&mut events, &log);
            }
        }
        // Each call: its kind, fuel, the index of the first game event after
        // it, and the bot's log lines when it returned (docs/replay-format.md).
        let calls = fuel
            .iter()
            .map(|u| {
                u.as_ref()
                    .map(|u| u.calls.iter().map(|c| (c.call, c.fuel, c.mark, c.log_lines)).collect())
            })
            .collect();
        let per_seat = |f: fn(&Usage) -> u64| fuel.iter().map(|u| u.as_ref().map(f)).collect();
        let usage = RunnerEvent::Fuel {
            per_seat: per_seat(Usage::total),
            instantiation: per_seat(|u| u.instantiation),
            calls,
            bank_used: per_seat(|u| u.bank_used),
        };
        crate::games::record(&mut events, &usage);
    }
    let events = GameEvents {
        game: index,
        lines: events,
    };
    let forfeits = outcome.forfeits().cloned().collect();
    let result = GameResult {
        index,
        seed: deal,
        seats,
        scores: outcome.scores,
        winner: outcome.winner,
        forfeit: outcome.forfeit,
        forfeits,
        positions: outcome.positions,
        // All zeros is written as nothing, so a result read back from a
        // journal or a shard compares equal to the one played.
        illegal: if no_illegal(&outcome.illegal) {
            Vec::new()
        } else {
            outcome.illegal
        },
    };
    Played { result, events, fuel }
}

/// One game as the runner played it: its result, its events (when
/// recorded) and per seat the fuel a wasm bot used.
#[derive(Debug, Clone)]
pub struct Played {
    /// The result.
    pub result: GameResult,
    /// Its events, when the match is recorded.
    pub events: GameEvents,
    /// Per seat, the fuel a wasm bot used, call by call (`None` for house bots).
    pub fuel: Vec<Option<Usage>>,
}

/// One call in a replay's `fuel` event: its kind, fuel, mark and log lines.
type CallLine = (Call, u64, u64, usize);

/// The events the runner adds to every recorded game's own, after them.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "kebab-case", rename_all_fields = "kebab-case")]
enum RunnerEvent<'a> {
    /// What a bot logged in the game.
    Log {
        seat: usize,
        lines: &'a [String],
        truncated: bool,
    },
    /// Per seat, the fuel a wasm bot used (`null` for a house bot).
    Fuel {
        per_seat: Vec<Option<u64>>,
        instantiation: Vec<Option<u64>>,
        calls: Vec<Option<Vec<CallLine>>>,
        bank_used: Vec<Option<u64>>,
    },
}

/// A played game's events as the replay's JSON lines, each object tagged
/// with the game's index (docs/replay-format.md) as it is written out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameEvents {
    game: usize,
    lines: EventLines,
}

impl GameEvents {
    /// Append the JSON lines, `"game"` first in each object, to `out`.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        let prefix = format!("{{\"game\":{}", self.game);
        for line in self.lines.lines() {
            // Every event is a JSON object (`{`, then its fields or `}`);
            // anything else would be written as it is, never dropped.
            match line.strip_prefix(b"{") {
                Some(rest) => {
                    out.extend_from_slice(prefix.as_bytes());
                    if rest.first() != Some(&b'}') {
                        out.push(b',');
                    }
                    out.extend_from_slice(rest);
                }
                None => out.extend_from_slice(line),
            }
            out.push(b'\n');
        }
    }
    /// How many events.
    pub fn len(&self) -> usize {
        self.lines.len()
    }
    /// Whether there are none (the game was not recorded).
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
    /// Each event as a JSON value.
    pub fn values(&self) -> Vec<Value> {
        let mut values = self.lines.values();
        for v in &mut values {
            if let Some(obj) = v.as_object_mut() {
                obj.insert("game".into(), json!(self.game));
            }
        }
        values
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

/// How close to its limits a wasm bot played over a match.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FuelSummary {
    /// Moves counted.
    pub moves: u64,
    /// Mean fuel per move.
    pub mean_per_move: f64,
    /// The most fuel one move used.
    pub max_per_move: u64,
    /// `max_per_move` as a share of the per-move budget (above 1: the bank paid).
    pub worst_share: f64,
    /// The most fuel start-up used in one game (instantiation and start calls).
    pub max_start: u64,
    /// The most fuel drawn from the bank in one game.
    pub max_bank_used: u64,
    /// Games in which the bank was drawn on.
    pub games_using_bank: u32,
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
    fn add(&mut self, u: &Usage) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters;
    use crate::sandbox::Limits;

    fn house_match<'a>(
        game: &'static dyn GameDef,
        sandbox: &'a crate::sandbox::Sandbox,
        variant: &str,
    ) -> MatchSpec<'a> {
        let (bot, _) = game.house_bots()[0];
        let entrant = Entrant {
            name: format!("house:{bot}"),
            bot: BotRef::House(bot.to_string()),
        };
        MatchSpec {
            game,
            setup: GameSetup {
                variant: Some(variant.to_string()),
                ..GameSetup::new(sandbox)
            },
            entrants: vec![entrant; *game.seats().start()],
            games: 2,
            seed: 1,
            record: false,
        }
    }

    #[test]
    fn an_unknown_variant_is_an_error_in_every_game_never_the_default() {
        let sandbox = adapters::sandbox(Limits::default()).unwrap();
        for &game in adapters::GAMES {
            let spec = house_match(game, &sandbox, "epee");
            match run_match(&spec) {
                Err(SetupError::UnknownVariant(v)) => assert_eq!(v, "epee", "{}", game.name()),
                Err(e) => panic!("{}: {e}", game.name()),
                Ok(_) => panic!("{} played an unknown variant", game.name()),
            }
            assert!(
                matches!(play_unit(&spec, &[0]), Err(SetupError::UnknownVariant(_))),
                "{}: a tournament's unit",
                game.name()
            );
            for &known in game.variants() {
                let report = run_match(&house_match(game, &sandbox, known)).unwrap().report;
                assert_eq!(report.variant, known);
            }
        }
    }

    /// Every game's house bots in turn at one table, over more games than a
    /// batch of [`play_match`] holds.
    fn mixed_match<'a>(
        game: &'static dyn GameDef,
        sandbox: &'a crate::sandbox::Sandbox,
        games: usize,
    ) -> MatchSpec<'a> {
        let house = game.house_bots();
        let seats = (*game.seats().start()).max(2).min(*game.seats().end());
        MatchSpec {
            game,
            setup: GameSetup::new(sandbox),
            entrants: (0..seats)
                .map(|i| {
                    let (bot, _) = house[i % house.len()];
                    Entrant {
                        name: format!("house:{bot}#{i}"),
                        bot: BotRef::House(bot.to_string()),
                    }
                })
                .collect(),
            games,
            seed: 7,
            record: false,
        }
    }

    #[test]
    fn recorded_lines_are_each_games_typed_events_tagged_with_its_index_first() {
        let sandbox = adapters::sandbox(Limits::default()).unwrap();
        for &game in adapters::GAMES {
            let spec = MatchSpec {
                record: true,
                ..mixed_match(game, &sandbox, 12)
            };
            let mut games = 0;
            play_match(&spec, |p| {
                let mut text = Vec::new();
                p.events.write_to(&mut text);
                let tag = format!("{{\"game\":{},\"type\":", p.result.index);
                let lines: Vec<Value> = text
                    .strip_suffix(b"\n")
                    .unwrap()
                    .split(|&b| b == b'\n')
                    .map(|l| {
                        assert!(
                            l.starts_with(tag.as_bytes()),
                            "{}: {}",
                            game.name(),
                            String::from_utf8_lossy(l)
                        );
                        serde_json::from_slice(l).unwrap()
                    })
                    .collect();
                assert_eq!(lines, p.events.values(), "{}", game.name());
                assert_eq!(lines.len(), p.events.len());
                let (runner, own): (Vec<&Value>, Vec<&Value>) =
                    lines.iter().partition(|v| v["type"] == "fuel" || v["type"] == "log");
                assert_eq!(
                    runner.len(),
                    1,
                    "{}: one fuel line, no logs from house bots",
                    game.name()
                );
                assert!(own.len() > 1, "{}", game.name());
                for line in own {
                    assert_eq!(game.check_event(line), Ok(()), "{}: {line}", game.name());
                }
                games += 1;
                ControlFlow::Continue(())
            })
            .unwrap();
            assert_eq!(games, 12, "{}", game.name());
        }
    }

    #[test]
    fn a_streamed_report_is_the_kept_one_byte_for_byte_whatever_the_threads() {
        let sandbox = adapters::sandbox(Limits::default()).unwrap();
        for &game in adapters::GAMES {
            // Past two batches of two threads (512 units each; 768 on
            // three) for games of one unit per game.
            let spec = mixed_match(game, &sandbox, if game.chained() { 240 } else { 1_100 });
            let kept = run_match(&spec).unwrap().report;
            let expected = serde_json::to_string_pretty(&kept).unwrap() + "\n";
            for threads in [1, 3] {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                let streamed = pool.install(|| {
                    let mut writer = ReportWriter::start(Vec::new(), &spec).unwrap();
                    let mut next = 0;
                    let totals = play_match(&spec, |p| {
                        assert_eq!(p.result.index, next, "{}: games in order", game.name());
                        next += 1;
                        writer.result(&p.result).unwrap();
                        ControlFlow::Continue(())
                    })
                    .unwrap();
                    assert_eq!(next, kept.games);
                    String::from_utf8(writer.finish(&totals).unwrap()).unwrap()
                });
                assert_eq!(streamed, expected, "{} on {threads} threads", game.name());
            }
        }
    }

    #[test]
    fn totals_counted_as_games_arrive_match_the_games() {
        let sandbox = adapters::sandbox(Limits::default()).unwrap();
        for &game in adapters::GAMES {
            let report = run_match(&mixed_match(game, &sandbox, 600)).unwrap().report;
            for (i, bot) in report.bots.iter().enumerate() {
                let mine: Vec<(usize, &GameResult)> = report
                    .results
                    .iter()
                    .filter_map(|r| r.seats.iter().position(|&b| b == i).map(|seat| (seat, r)))
                    .collect();
                let scores: Vec<f64> = mine.iter().map(|(s, r)| r.scores[*s] as f64).collect();
                let two_pass = crate::stats::estimate(&scores);
                assert_eq!(bot.games as usize, mine.len());
                assert_eq!(bot.points, mine.iter().map(|(s, r)| r.scores[*s]).sum::<i64>());
                assert_eq!(bot.score.mean, two_pass.mean, "{}: integer sums are exact", game.name());
                assert!((bot.score.sd - two_pass.sd).abs() <= 1e-12 * two_pass.sd.max(1.0));
                if !game.chained() && *game.seats().end() > 1 {
                    let wins = mine.iter().filter(|(s, r)| r.winner == Some(*s)).count();
                    assert_eq!(bot.wins as usize, wins, "{}", game.name());
                }
            }
        }
    }

    #[test]
    fn a_match_each_stops_ends_there_and_counts_only_the_games_handed_over() {
        let sandbox = adapters::sandbox(Limits::default()).unwrap();
        for &game in adapters::GAMES {
            // Stopped inside the second batch of two threads (512 units).
            let (games, stop_after) = if game.chained() { (240, 130) } else { (1_100, 700) };
            let spec = mixed_match(game, &sandbox, games);
            let kept = run_match(&spec).unwrap().report;
            let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
            let (handed, totals) = pool.install(|| {
                let mut handed = 0;
                let totals = play_match(&spec, |_| {
                    handed += 1;
                    if handed == stop_after {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                })
                .unwrap();
                (handed, totals)
            });
            assert_eq!(handed, stop_after, "{}: no game after the stop", game.name());
            let first = &kept.results[..stop_after];
            for (i, bot) in totals.bots.iter().enumerate() {
                let mine: Vec<(usize, &GameResult)> = first
                    .iter()
                    .filter_map(|r| r.seats.iter().position(|&b| b == i).map(|seat| (seat, r)))
                    .collect();
                assert_eq!(bot.games as usize, mine.len(), "{}: bot {i}", game.name());
                assert_eq!(
                    bot.points,
                    mine.iter().map(|(s, r)| r.scores[*s]).sum::<i64>(),
                    "{}: bot {i}'s points are those of the games before the stop",
                    game.name()
                );
            }
        }
    }
}
