//! What a tournament keeps of a match while its games arrive, in any order
//! and from any shard: totals that do not grow with the games, and the few
//! games its replay page shows. Every total is a sum of integers, so the
//! order the games arrive in never changes a figure, and a game that arrives
//! twice (a unit replayed after a kill) counts once.

use arena_runner::runner::GameResult;
use serde::Serialize;
use std::collections::BTreeMap;

/// Forfeits of each bot kept for the match's replay page (the first, by game index).
pub const FORFEITS_KEPT: usize = 3;

/// One bot's totals over a match.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BotTally {
    /// Games it played.
    pub games: u32,
    /// Games won (two or more players).
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Sum of its scores.
    pub score_sum: i64,
    /// Sum of its squared scores (exact, for the spread of a solitaire score).
    #[serde(skip)]
    pub score_squares: i128,
    /// Sum of its finishing positions, in games that rank players.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position_sum: Option<u64>,
    /// Games that ranked it (the mean position's divisor).
    #[serde(skip)]
    pub positioned: u32,
    /// Forfeits by reason.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub forfeits: BTreeMap<&'static str, u32>,
}

impl BotTally {
    /// Game points: a win 1, a draw ½.
    pub fn points(&self) -> f64 {
        f64::from(self.wins) + 0.5 * f64::from(self.draws)
    }

    /// Every forfeit, whatever the reason.
    pub fn forfeit_count(&self) -> u32 {
        self.forfeits.values().sum()
    }

    /// Mean score, if it played.
    pub fn mean_score(&self) -> Option<f64> {
        (self.games > 0).then(|| self.score_sum as f64 / f64::from(self.games))
    }

    /// Mean finishing position, in games that rank players.
    pub fn mean_position(&self) -> Option<f64> {
        self.position_sum
            .filter(|_| self.positioned > 0)
            .map(|s| s as f64 / f64::from(self.positioned))
    }
}

/// Game indices seen, as sorted, disjoint, non-touching ranges: a match's
/// games mostly arrive in order, so this stays a few ranges long.
#[derive(Debug, Clone, Default, PartialEq)]
struct Seen(Vec<(usize, usize)>);

impl Seen {
    fn contains(&self, i: usize) -> bool {
        let k = self.0.partition_point(|&(_, end)| end <= i);
        self.0.get(k).is_some_and(|&(start, _)| start <= i)
    }

    /// Add `i`; false if it was there.
    fn insert(&mut self, i: usize) -> bool {
        if self.contains(i) {
            return false;
        }
        let k = self.0.partition_point(|&(_, end)| end < i);
        let joins_left = k < self.0.len() && self.0[k].1 == i;
        let joins_right = |k: usize, v: &Vec<(usize, usize)>| k < v.len() && v[k].0 == i + 1;
        if joins_left {
            self.0[k].1 = i + 1;
            if joins_right(k + 1, &self.0) {
                self.0[k].1 = self.0[k + 1].1;
                self.0.remove(k + 1);
            }
        } else if joins_right(k, &self.0) {
            self.0[k].0 = i;
        } else {
            self.0.insert(k, (i, i + 1));
        }
        true
    }
}

/// A match's totals and kept games, built from its games one by one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MatchTally {
    /// Games counted.
    pub played: usize,
    /// Per bot of the match (by its local index), its totals.
    pub totals: Vec<BotTally>,
    /// Two-player games by seating (local bot in seat 0, in seat 1): seat
    /// 0's wins, draws, losses; sorted by seating (two at most, so a list).
    #[serde(skip)]
    pub duels: Vec<((usize, usize), [u32; 3])>,
    /// Games that rank players: how often each finishing order (local bots, first first) came out.
    #[serde(skip)]
    pub orders: BTreeMap<Vec<usize>, u32>,
    /// The games kept whole, by index: each bot's first forfeits, the first
    /// game without a forfeit and the first game of all (a handful, so a list).
    #[serde(skip)]
    pub kept: Vec<GameResult>,
    #[serde(skip)]
    seen: Seen,
}

impl MatchTally {
    /// Nothing counted yet, for a match of `bots` bots.
    pub fn new(bots: usize) -> Self {
        MatchTally {
            played: 0,
            totals: vec![BotTally::default(); bots],
            duels: Vec::new(),
            orders: BTreeMap::new(),
            kept: Vec::new(),
            seen: Seen::default(),
        }
    }

    /// Whether every game counted has an index below `games`.
    pub fn within(&self, games: usize) -> bool {
        self.seen.0.last().is_none_or(|&(_, end)| end <= games)
    }

    /// Whether game `index` is counted.
    pub fn has(&self, index: usize) -> bool {
        self.seen.contains(index)
    }

    /// Whether `r` can be a game of this match: every seat, score, winner,
    /// position and forfeit names one of its bots.
    pub fn fits(&self, r: &GameResult) -> bool {
        let bots = self.totals.len();
        r.seats.len() == bots
            && r.index < usize::MAX
            && r.seats.iter().all(|&b| b < bots)
            && r.scores.len() == bots
            && r.winner.is_none_or(|w| w < bots)
            && r.positions.as_ref().is_none_or(|p| p.len() == bots)
            && r.forfeits.iter().chain(&r.forfeit).all(|f| f.seat < bots)
    }

    /// Count game `r` (once: a game counted before, or one that does not
    /// fit the match, is left out); returns whether it was counted.
    pub fn add(&mut self, r: &GameResult) -> bool {
        if !self.fits(r) || !self.seen.insert(r.index) {
            return false;
        }
        self.played += 1;
        let seats = r.seats.len();
        for (seat, &local) in r.seats.iter().enumerate() {
            let t = &mut self.totals[local];
            t.games += 1;
            t.score_sum = t.score_sum.saturating_add(r.scores[seat]);
            t.score_squares = t
                .score_squares
                .saturating_add(i128::from(r.scores[seat]) * i128::from(r.scores[seat]));
            if let Some(p) = &r.positions {
                *t.position_sum.get_or_insert(0) += u64::from(p[seat]);
                t.positioned += 1;
            }
            if seats > 1 {
                match r.winner {
                    Some(w) if w == seat => t.wins += 1,
                    Some(_) => t.losses += 1,
                    None => t.draws += 1,
                }
            }
            for f in r.forfeits.iter().filter(|f| f.seat == seat) {
                *t.forfeits.entry(f.reason.as_str()).or_default() += 1;
            }
        }
        match &r.positions {
            Some(positions) if seats > 2 => {
                let mut order: Vec<usize> = (0..seats).collect();
                order.sort_by_key(|&s| positions[s]);
                *self
                    .orders
                    .entry(order.into_iter().map(|s| r.seats[s]).collect())
                    .or_default() += 1;
            }
            _ if seats == 2 => {
                let seating = (r.seats[0], r.seats[1]);
                let at = match self.duels.binary_search_by_key(&seating, |d| d.0) {
                    Ok(at) => at,
                    Err(at) => {
                        self.duels.insert(at, (seating, [0; 3]));
                        at
                    }
                };
                self.duels[at].1[match r.winner {
                    Some(0) => 0,
                    None => 1,
                    Some(_) => 2,
                }] += 1;
            }
            _ => {}
        }
        self.keep(r);
        true
    }

    /// Keep `r` whole if the replay page may show it, and let go of a game it displaces.
    fn keep(&mut self, r: &GameResult) {
        let forfeiters =
            |g: &GameResult| -> Vec<usize> { g.forfeits.iter().filter_map(|f| g.seats.get(f.seat).copied()).collect() };
        // Most games are neither first, nor the first clean one, nor among a
        // bot's first forfeits: they are not copied at all.
        let at = self.kept.partition_point(|g| g.index < r.index);
        let before = &self.kept[..at];
        let wanted = self.kept.first().is_none_or(|f| r.index < f.index)
            || (r.forfeits.is_empty() && !before.iter().any(|g| g.forfeits.is_empty()))
            || forfeiters(r)
                .into_iter()
                .any(|b| before.iter().filter(|g| forfeiters(g).contains(&b)).count() < FORFEITS_KEPT);
        if !wanted {
            return;
        }
        self.kept.insert(at, r.clone());
        let mut shown = vec![0usize; self.totals.len()];
        let clean = self.kept.iter().position(|g| g.forfeits.is_empty());
        let mut k = 0;
        self.kept.retain(|g| {
            let mut take = k == 0 || Some(k) == clean;
            for b in forfeiters(g) {
                if shown[b] < FORFEITS_KEPT {
                    shown[b] += 1;
                    take = true;
                }
            }
            k += 1;
            take
        });
        // A tournament holds one tally per match: no spare room in each.
        self.kept.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena_core::{Forfeit, ForfeitReason};
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};

    /// A duel's game `index`: seats swap every game; seat `forfeits` (if any) forfeits.
    fn game(index: usize, winner: Option<usize>, forfeits: Option<usize>) -> GameResult {
        let seats = if index.is_multiple_of(2) {
            vec![0, 1]
        } else {
            vec![1, 0]
        };
        let f = forfeits.map(|seat| Forfeit {
            seat,
            reason: ForfeitReason::Trap,
            detail: format!("game {index}"),
        });
        GameResult {
            index,
            seed: index as u64,
            seats,
            scores: vec![index as i64 % 7, -(index as i64 % 5)],
            winner: f.as_ref().map(|f| 1 - f.seat).or(winner),
            forfeit: f.clone(),
            forfeits: f.into_iter().collect(),
            positions: None,
            illegal: Vec::new(),
        }
    }

    fn games(n: usize, seed: u64) -> Vec<GameResult> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..n)
            .map(|i| {
                let winner = [Some(0), Some(1), None][rng.random_range(0..3)];
                let forfeit = (rng.random_range(0..4) == 0).then(|| rng.random_range(0..2));
                game(i, winner, forfeit)
            })
            .collect()
    }

    fn tally(games: &[GameResult]) -> MatchTally {
        let mut t = MatchTally::new(2);
        for g in games {
            t.add(g);
        }
        t
    }

    #[test]
    fn the_order_games_arrive_in_and_repeats_change_nothing() {
        let all = games(200, 1);
        let inorder = tally(&all);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        let mut shuffled: Vec<GameResult> = all.iter().chain(&all[50..120]).cloned().collect();
        shuffled.shuffle(&mut rng);
        assert_eq!(tally(&shuffled), inorder);
        assert_eq!(inorder.played, 200);
        let wins: u32 = inorder.totals.iter().map(|t| t.wins).sum();
        let decided = all.iter().filter(|g| g.winner.is_some()).count() as u32;
        assert_eq!(wins, decided, "one win per decided game");
        assert_eq!(inorder.totals[0].draws, 200 - decided);
    }

    #[test]
    fn it_keeps_the_games_a_replay_page_shows_and_no_others() {
        let all = games(300, 3);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let mut shuffled = all.clone();
        shuffled.shuffle(&mut rng);
        let t = tally(&shuffled);
        // Independently: each bot's first three forfeits, the first clean game, game 0.
        let mut want = std::collections::BTreeSet::from([0]);
        want.insert(all.iter().find(|g| g.forfeits.is_empty()).unwrap().index);
        for bot in 0..2 {
            let of_bot = all.iter().filter(|g| g.forfeits.iter().any(|f| g.seats[f.seat] == bot));
            want.extend(of_bot.take(FORFEITS_KEPT).map(|g| g.index));
        }
        assert_eq!(
            t.kept
                .iter()
                .map(|g| g.index)
                .collect::<std::collections::BTreeSet<_>>(),
            want
        );
        for g in &t.kept {
            assert_eq!(g, &all[g.index], "kept whole");
        }
    }

    #[test]
    fn a_game_that_does_not_fit_the_match_is_left_out() {
        let mut t = MatchTally::new(2);
        let mut g = game(0, Some(0), None);
        g.seats = vec![0, 2];
        assert!(!t.add(&g));
        g.seats = vec![0, 1];
        g.winner = Some(5);
        assert!(!t.add(&g));
        assert_eq!(t.played, 0);
        assert!(t.add(&game(7, None, None)) && t.within(8) && !t.within(7));
    }

    #[test]
    fn seen_ranges_join_and_answer() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut seen = Seen::default();
        let mut set = std::collections::BTreeSet::new();
        for _ in 0..2000 {
            let i = rng.random_range(0..300);
            assert_eq!(seen.insert(i), set.insert(i));
        }
        for i in 0..310 {
            assert_eq!(seen.contains(i), set.contains(&i), "{i}");
        }
        assert!(
            seen.0.windows(2).all(|w| w[0].1 < w[1].0),
            "disjoint, not touching: {:?}",
            seen.0
        );
    }
}
