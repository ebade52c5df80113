//! Double elimination: a winners' and a losers' bracket, byes when the
//! field is not a power of two, and a grand final with a bracket reset.

use super::{Engine, MatchRecord, Plan, Seeding, TournamentSpec};
use serde::Serialize;

/// One match in the bracket (a bye when one side is missing).
#[derive(Debug, Clone, Serialize)]
pub struct BracketMatch {
    /// Its id in the journal.
    pub id: String,
    /// The two bots (by index), `None` for a bye.
    pub bots: [Option<usize>; 2],
    /// Game points of each side.
    pub points: [f64; 2],
    /// Who went through.
    pub winner: Option<usize>,
}

/// The whole bracket.
#[derive(Debug, Clone, Serialize)]
pub struct Bracket {
    /// Bot names, by index.
    pub names: Vec<String>,
    /// Seed order: `seeds[0]` is the first seed.
    pub seeds: Vec<usize>,
    /// Winners' bracket rounds.
    pub winners: Vec<Vec<BracketMatch>>,
    /// Losers' bracket rounds.
    pub losers: Vec<Vec<BracketMatch>>,
    /// Grand final, and its reset if the losers' side won the first.
    pub grand_final: Vec<BracketMatch>,
    /// Bots in finishing order (champion first).
    pub placement: Vec<usize>,
}

/// Positions of seeds 1..=size in bracket order, so seed 1 meets seed `size` first.
fn seed_order(size: usize) -> Vec<usize> {
    let mut order = vec![1];
    while order.len() < size {
        let m = order.len() * 2;
        order = order.iter().flat_map(|&s| [s, m + 1 - s]).collect();
    }
    order
}

struct Runner<'a, 'b> {
    spec: &'a TournamentSpec<'a>,
    engine: &'a Engine<'b>,
    seed_rank: Vec<usize>,
    records: Vec<MatchRecord>,
}

impl Runner<'_, '_> {
    /// Play one round of pairings; byes advance without a game. `None` if stopped.
    fn round(&mut self, label: &str, prefix: &str, pairs: &[[Option<usize>; 2]]) -> Option<Vec<BracketMatch>> {
        let plans: Vec<Plan> = pairs
            .iter()
            .enumerate()
            .filter_map(|(i, p)| match *p {
                [Some(a), Some(b)] => Some(Plan {
                    id: format!("{prefix}:{i}"),
                    bots: vec![a, b],
                    games: self.spec.games,
                }),
                _ => None,
            })
            .collect();
        let records = self.engine.play(label, plans)?;
        let mut played = records.iter();
        let mut out = Vec::with_capacity(pairs.len());
        for (i, p) in pairs.iter().enumerate() {
            let m = match *p {
                [Some(a), Some(b)] => {
                    let record = played.next()?;
                    let pts = record.points();
                    // A tie goes to the better seed.
                    let winner = if pts[0] > pts[1] || (pts[0] == pts[1] && self.seed_rank[a] < self.seed_rank[b]) {
                        a
                    } else {
                        b
                    };
                    BracketMatch {
                        id: record.id.clone(),
                        bots: [Some(a), Some(b)],
                        points: [pts[0], pts[1]],
                        winner: Some(winner),
                    }
                }
                [a, b] => BracketMatch {
                    id: format!("{prefix}:{i}"),
                    bots: [a, b],
                    points: [0.0; 2],
                    winner: a.or(b),
                },
            };
            out.push(m);
        }
        self.records.extend(records);
        Some(out)
    }
}

fn loser(m: &BracketMatch) -> Option<usize> {
    match m.bots {
        [Some(a), Some(b)] => Some(if m.winner == Some(a) { b } else { a }),
        _ => None,
    }
}

fn pairs_of(list: &[Option<usize>]) -> Vec<[Option<usize>; 2]> {
    list.chunks(2).map(|c| [c[0], c.get(1).copied().flatten()]).collect()
}

/// Run a double-elimination bracket. Returns the matches, the bracket and whether it finished.
pub fn double_elimination(spec: &TournamentSpec<'_>, engine: &Engine<'_>) -> (Vec<MatchRecord>, Bracket, bool) {
    let n = spec.entrants.len();
    let names: Vec<String> = spec.entrants.iter().map(|e| e.name.clone()).collect();
    let mut bracket = Bracket {
        names,
        seeds: (0..n).collect(),
        winners: Vec::new(),
        losers: Vec::new(),
        grand_final: Vec::new(),
        placement: Vec::new(),
    };
    let mut runner = Runner {
        spec,
        engine,
        seed_rank: (0..n).collect(),
        records: Vec::new(),
    };
    let finished = play_double_elimination(&mut runner, &mut bracket).is_some();
    (runner.records, bracket, finished)
}

/// Seeding, both brackets, the grand final and the placement; `None` as
/// soon as the engine stops.
fn play_double_elimination(runner: &mut Runner<'_, '_>, bracket: &mut Bracket) -> Option<()> {
    if runner.spec.seeding == Seeding::RoundRobin {
        seed_by_round_robin(runner, bracket)?;
    }
    for (rank, &bot) in bracket.seeds.iter().enumerate() {
        runner.seed_rank[bot] = rank;
    }
    let (wb_champion, wb_losers) = winners_bracket(runner, bracket)?;
    let mut eliminated = Vec::new();
    let lb_champion = losers_bracket(runner, bracket, &wb_losers, &mut eliminated)?;
    let (champion, runner_up) = grand_final(runner, bracket, wb_champion, lb_champion)?;
    bracket.placement.extend(champion);
    bracket.placement.extend(runner_up);
    // Then by how late in the losers' bracket each fell; a tie goes to the better seed.
    eliminated.sort_by_key(|&(bot, round)| (std::cmp::Reverse(round), runner.seed_rank[bot]));
    for (bot, _) in eliminated {
        if !bracket.placement.contains(&bot) {
            bracket.placement.push(bot);
        }
    }
    for &bot in &bracket.seeds {
        if !bracket.placement.contains(&bot) {
            bracket.placement.push(bot);
        }
    }
    Some(())
}

/// Seed by the points of a round robin of two games a pair.
fn seed_by_round_robin(runner: &mut Runner<'_, '_>, bracket: &mut Bracket) -> Option<()> {
    let n = bracket.seeds.len();
    let mut plans = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            plans.push(Plan {
                id: format!("seed:{a}:{b}"),
                bots: vec![a, b],
                games: 2,
            });
        }
    }
    let records = runner.engine.play("seeding round robin", plans)?;
    let mut points = vec![0.0; n];
    for m in &records {
        for (local, p) in m.points().into_iter().enumerate() {
            points[m.bots[local]] += p;
        }
    }
    bracket
        .seeds
        .sort_by(|&a, &b| f64::total_cmp(&points[b], &points[a]).then(a.cmp(&b)));
    runner.records.extend(records);
    Some(())
}

/// The winners' bracket: its champion, and each round's losers.
#[allow(clippy::type_complexity)]
fn winners_bracket(
    runner: &mut Runner<'_, '_>,
    bracket: &mut Bracket,
) -> Option<(Option<usize>, Vec<Vec<Option<usize>>>)> {
    let size = bracket.seeds.len().next_power_of_two();
    let mut current: Vec<Option<usize>> = seed_order(size)
        .iter()
        .map(|&s| bracket.seeds.get(s - 1).copied())
        .collect();
    let mut wb_losers: Vec<Vec<Option<usize>>> = Vec::new();
    let mut round = 1;
    while current.len() > 1 {
        let ms = runner.round(
            &format!("winners' round {round}"),
            &format!("W{round}"),
            &pairs_of(&current),
        )?;
        current = ms.iter().map(|m| m.winner).collect();
        wb_losers.push(ms.iter().map(loser).collect());
        bracket.winners.push(ms);
        round += 1;
    }
    Some((current.first().copied().flatten(), wb_losers))
}

/// The losers' bracket: the first round's losers meet each other, then each
/// later round's losers drop in against the survivors (in reverse order, to
/// delay rematches), and the survivors halve between drops. Returns its
/// champion; `eliminated` gets each bot it put out with the round.
fn losers_bracket(
    runner: &mut Runner<'_, '_>,
    bracket: &mut Bracket,
    wb_losers: &[Vec<Option<usize>>],
    eliminated: &mut Vec<(usize, usize)>,
) -> Option<Option<usize>> {
    let mut lb: Vec<Option<usize>> = wb_losers.first().cloned().unwrap_or_default();
    let mut lround = 1;
    let mut play_lb = |runner: &mut Runner<'_, '_>, pairs: Vec<[Option<usize>; 2]>, bracket: &mut Bracket| {
        let ms = runner.round(&format!("losers' round {lround}"), &format!("L{lround}"), &pairs)?;
        for m in &ms {
            if let Some(l) = loser(m) {
                eliminated.push((l, lround));
            }
        }
        let next: Vec<Option<usize>> = ms.iter().map(|m| m.winner).collect();
        bracket.losers.push(ms);
        lround += 1;
        Some(next)
    };
    if lb.len() > 1 {
        lb = play_lb(runner, pairs_of(&lb), bracket)?;
    }
    for (r, drops) in wb_losers.iter().enumerate().skip(1) {
        let mut drops = drops.clone();
        if r % 2 == 1 {
            drops.reverse();
        }
        let pairs: Vec<[Option<usize>; 2]> = lb.iter().zip(drops.iter()).map(|(&a, &b)| [a, b]).collect();
        lb = play_lb(runner, pairs, bracket)?;
        if lb.len() > 1 {
            lb = play_lb(runner, pairs_of(&lb), bracket)?;
        }
    }
    Some(lb.first().copied().flatten())
}

/// The grand final between the two brackets' champions, with a reset when
/// the losers' side wins (both have then lost once): champion and runner-up.
fn grand_final(
    runner: &mut Runner<'_, '_>,
    bracket: &mut Bracket,
    wb_champion: Option<usize>,
    lb_champion: Option<usize>,
) -> Option<(Option<usize>, Option<usize>)> {
    let (w, l) = match (wb_champion, lb_champion) {
        (Some(w), Some(l)) => (w, l),
        (w, l) => return Some((w.or(l), None)),
    };
    let gf = runner.round("grand final", "GF", &[[Some(w), Some(l)]])?;
    let first = gf[0].winner;
    bracket.grand_final.extend(gf);
    if first != Some(l) {
        return Some((Some(w), Some(l)));
    }
    let reset = runner.round("grand final reset", "GF2", &[[Some(w), Some(l)]])?;
    let champ = reset[0].winner;
    bracket.grand_final.extend(reset);
    Some((champ, if champ == Some(w) { Some(l) } else { Some(w) }))
}

impl Bracket {
    /// Where `bot` finished, in words.
    pub fn describe(&self, bot: usize) -> Option<String> {
        let place = self.placement.iter().position(|&b| b == bot)?;
        let text = self.place_text(bot, place);
        // The match that decided this place was drawn: the seed chose.
        let deciding = if place == 0 {
            self.grand_final.last()
        } else {
            self.winners
                .iter()
                .chain(&self.losers)
                .flatten()
                .chain(&self.grand_final)
                .rfind(|m| m.bots.contains(&Some(bot)) && m.bots.iter().all(Option::is_some) && m.winner != Some(bot))
        };
        Some(match deciding {
            Some(m) if m.points[0] == m.points[1] => format!("{text} (a drawn match: the better seed went through)"),
            _ => text,
        })
    }

    fn place_text(&self, bot: usize, place: usize) -> String {
        match place {
            0 => "champion".to_string(),
            1 => "runner-up".to_string(),
            2 => "third".to_string(),
            _ => {
                let round = self
                    .losers
                    .iter()
                    .enumerate()
                    .find(|(_, ms)| {
                        ms.iter().any(|m| {
                            m.winner != Some(bot) && m.bots.contains(&Some(bot)) && m.bots.iter().all(Option::is_some)
                        })
                    })
                    .map(|(i, _)| i + 1);
                match round {
                    Some(r) => format!("out in losers' round {r}"),
                    None => "out".to_string(),
                }
            }
        }
    }

    /// The bracket as text: each round's matches, then the podium.
    pub fn render(&self) -> String {
        use std::fmt::Write;
        let name = |b: Option<usize>| match b {
            Some(i) => {
                let seed = self.seeds.iter().position(|&s| s == i).map_or(0, |p| p + 1);
                format!("({seed}) {}", self.names[i])
            }
            None => "-".to_string(),
        };
        let width = self.names.iter().map(String::len).max().unwrap_or(4) + 5;
        let line = |s: &mut String, m: &BracketMatch| {
            let _ = match m.bots {
                [Some(_), Some(_)] => writeln!(
                    s,
                    "  {:<width$} {:>5} - {:<5} {:<width$} -> {}",
                    name(m.bots[0]),
                    fmt_points(m.points[0]),
                    fmt_points(m.points[1]),
                    name(m.bots[1]),
                    name(m.winner)
                ),
                _ => writeln!(
                    s,
                    "  {:<width$} bye{:>width$}       -> {}",
                    name(m.bots[0].or(m.bots[1])),
                    "",
                    name(m.winner)
                ),
            };
        };
        let mut s = String::new();
        let _ = writeln!(s, "Winners' bracket");
        s.push_str(&self.tree(&name));
        for (title, rounds) in [
            ("Winners' bracket, match by match", &self.winners),
            ("Losers' bracket", &self.losers),
        ] {
            let _ = writeln!(s, "{title}");
            for (i, ms) in rounds.iter().enumerate() {
                let _ = writeln!(s, " round {}", i + 1);
                for m in ms.iter().filter(|m| m.bots.iter().any(Option::is_some)) {
                    line(&mut s, m);
                }
            }
        }
        if !self.grand_final.is_empty() {
            let _ = writeln!(s, "Grand final");
            for m in &self.grand_final {
                line(&mut s, m);
            }
        }
        let podium: Vec<String> = self
            .placement
            .iter()
            .take(3)
            .enumerate()
            .map(|(i, &b)| format!("{}. {}", i + 1, self.names[b]))
            .collect();
        if !podium.is_empty() {
            let _ = writeln!(s, "Podium: {}", podium.join("   "));
        }
        s
    }
}

impl Bracket {
    /// The winners' bracket as a tree: each round a column, each match joined to its winner.
    fn tree(&self, name: &dyn Fn(Option<usize>) -> String) -> String {
        let rounds = self.winners.len();
        if rounds == 0 {
            return String::new();
        }
        // Column r lists the bots that entered round r; the last column the winner.
        let mut columns: Vec<Vec<String>> = self
            .winners
            .iter()
            .map(|ms| {
                ms.iter()
                    .flat_map(|m| m.bots.iter().map(|&b| if b.is_some() { name(b) } else { "bye".into() }))
                    .collect()
            })
            .collect();
        columns.push(vec![name(self.winners[rounds - 1].first().and_then(|m| m.winner))]);
        let width = columns.iter().flatten().map(|l| l.chars().count()).max().unwrap_or(3) + 4;
        let height = columns[0].len() * 2 - 1;
        let mut grid = vec![vec![' '; width * (rounds + 1)]; height];
        let row = |r: usize, j: usize| j * (1 << (r + 1)) + (1 << r) - 1;
        for (r, column) in columns.iter().enumerate() {
            for (j, label) in column.iter().enumerate() {
                let y = row(r, j);
                let x0 = r * width;
                for (k, ch) in label.chars().enumerate() {
                    grid[y][x0 + k] = ch;
                }
                if r == rounds {
                    continue;
                }
                let end = x0 + width - 2;
                for cell in grid[y].iter_mut().take(end).skip(x0 + label.chars().count() + 1) {
                    *cell = '-';
                }
                grid[y][end] = '+';
                if j % 2 == 1 {
                    let top = row(r, j - 1);
                    let mid = row(r + 1, j / 2);
                    for line in grid.iter_mut().take(y).skip(top + 1) {
                        line[end] = '|';
                    }
                    grid[mid][end] = '+';
                    grid[mid][end + 1] = '-';
                }
            }
        }
        grid.iter()
            .map(|l| format!("  {}\n", l.iter().collect::<String>().trim_end()))
            .collect()
    }
}

use arena_runner::text::points as fmt_points;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_one_meets_the_last_seed_and_seeds_one_and_two_meet_last() {
        assert_eq!(seed_order(8), vec![1, 8, 4, 5, 2, 7, 3, 6]);
        assert_eq!(seed_order(4), vec![1, 4, 2, 3]);
        assert_eq!(seed_order(1), vec![1]);
    }
}
