//! Ratings fitted to every game at once, for bots whose strength does not
//! change: Bradley-Terry for duels (a draw counts as half a win to each
//! side) and Plackett-Luce for finishing orders (a table of n players is
//! n - 1 choices: first among all, second among the rest, ...), which is
//! Bradley-Terry when n = 2. Maximum likelihood by Newton's method on the
//! log-strengths, with 95% intervals from the observed information (the
//! inverse Hessian), on the Elo scale, anchored so the mean of the bots
//! whose games pin them down is 1500; comparisons read the difference of
//! two ratings with its own standard error, which no anchor changes.
//!
//! References: Hunter, "MM algorithms for generalized Bradley-Terry
//! models", Annals of Statistics 32 (2004), for the model and its MM
//! fixed point (used by the tests as an independent check); Rémi Coulom's
//! BayesElo for the prior of one virtual draw per bot against an average
//! opponent, which keeps a perfect record's rating finite. The fit is ours:
//! no maintained crate fits these models with intervals (`skillratings`
//! updates game by game).

use std::collections::HashMap;

/// Elo points per unit of log-strength: a 400-point gap is 10:1 odds.
pub const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// The mean rating.
pub const MEAN_ELO: f64 = 1500.0;

/// One game, as the fit sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum FitGame {
    /// A duel: bots `a` and `b`, and `a`'s score (1 win, 0.5 draw, 0 loss).
    Duel {
        /// One bot.
        a: usize,
        /// The other.
        b: usize,
        /// `a`'s score.
        score: f64,
    },
    /// A table: the bots in finishing order, first first.
    Order(Vec<usize>),
}

/// A fitted rating with its 95% interval, on the Elo scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fitted {
    /// The rating (the anchor bots' mean is 1500, see [`Fit`]).
    pub elo: f64,
    /// Its standard error, in Elo points.
    pub se: f64,
    /// Low end of the 95% interval.
    pub low: f64,
    /// High end of the 95% interval.
    pub high: f64,
    /// It played at least one game: a bot without games has only the prior, so no rank.
    pub played: bool,
    /// It is one of the bots the ratings are anchored on.
    pub anchor: bool,
}

/// Every bot's rating, and the covariance of the ratings, from which the
/// interval of any difference follows whatever the anchor.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// The ratings, in the bots' order.
    pub ratings: Vec<Fitted>,
    /// Covariance of the log-strengths in squared Elo points, row major.
    /// Only differences are read from it, and Var(a - b) is the same under
    /// any anchor, so it is kept as the fit left it.
    cov: Vec<f64>,
}

/// How many standard errors of a difference make it clear: two ratings of
/// equal precision and no covariance are this far apart exactly when their
/// 95% intervals stop overlapping (1.96 x sqrt 2, a 99.4% interval of the
/// difference), which is what "clearly ahead" meant before it was read from
/// differences; being stricter than 95% also keeps the many comparisons of
/// a class from splitting equal bots by chance.
pub const CLEAR_Z: f64 = 1.959_963_984_540_054 * std::f64::consts::SQRT_2;

impl Fit {
    /// Bot `i`'s rating minus bot `j`'s, and its standard error, in Elo points:
    /// Var(i - j) = Var(i) + Var(j) - 2 Cov(i, j), which no anchoring changes.
    pub fn difference(&self, i: usize, j: usize) -> (f64, f64) {
        let n = self.ratings.len();
        let diff = self.ratings[i].elo - self.ratings[j].elo;
        let var = self.cov[i * n + i] + self.cov[j * n + j] - 2.0 * self.cov[i * n + j];
        (diff, var.max(0.0).sqrt())
    }

    /// Bot `i` is clearly ahead of bot `j`: both played, and their
    /// difference is more than [`CLEAR_Z`] of its standard errors above 0.
    pub fn clearly_ahead(&self, i: usize, j: usize) -> bool {
        let (diff, se) = self.difference(i, j);
        self.ratings[i].played && self.ratings[j].played && i != j && diff > CLEAR_Z * se
    }

    /// Ratings with a diagonal covariance (each its own `se`, no covariance):
    /// for tests of what reads a fit.
    pub fn independent(ratings: Vec<Fitted>) -> Fit {
        let n = ratings.len();
        let mut cov = vec![0.0; n * n];
        for (i, r) in ratings.iter().enumerate() {
            cov[i * n + i] = r.se * r.se;
        }
        Fit { ratings, cov }
    }
}

/// The prior: this many virtual draws of each bot against an opponent of
/// the mean strength (BayesElo uses 2; one is enough to keep every
/// rating finite and is negligible after a few dozen games).
pub const PRIOR_DRAWS: f64 = 1.0;

/// Choices with the same set of bots, pooled: how many, and each bot's share of the wins.
struct Pool {
    bots: Vec<usize>,
    count: f64,
    wins: Vec<f64>,
}

/// Fit `n` bots to `games` with `prior_draws` virtual draws each against the mean.
pub fn fit(n: usize, games: &[FitGame], prior_draws: f64) -> Fit {
    let counted: Vec<(&FitGame, u32)> = games.iter().map(|g| (g, 1)).collect();
    fit_counted(n, &counted, prior_draws)
}

/// [`fit`] of games given with how often each came out: the pools add up
/// the same whole and half counts, so the ratings are the same to the bit.
pub fn fit_counted(n: usize, games: &[(&FitGame, u32)], prior_draws: f64) -> Fit {
    if n == 0 {
        return Fit {
            ratings: Vec::new(),
            cov: Vec::new(),
        };
    }
    // Bot n is the virtual opponent of the prior, held at log-strength 0.
    let ghost = n;
    let mut pools: HashMap<Vec<usize>, Pool> = HashMap::new();
    let mut add = |bots: &[usize], wins: &[f64]| {
        let mut order: Vec<usize> = (0..bots.len()).collect();
        order.sort_by_key(|&k| bots[k]);
        let key: Vec<usize> = order.iter().map(|&k| bots[k]).collect();
        let pool = pools.entry(key.clone()).or_insert_with(|| Pool {
            bots: key,
            count: 0.0,
            wins: vec![0.0; bots.len()],
        });
        pool.count += wins.iter().sum::<f64>();
        for (slot, &k) in order.iter().enumerate() {
            pool.wins[slot] += wins[k];
        }
    };
    for &(g, count) in games {
        let w = f64::from(count);
        match g {
            FitGame::Duel { a, b, score } if a != b => add(&[*a, *b], &[w * score, w * (1.0 - score)]),
            FitGame::Duel { .. } => {}
            FitGame::Order(order) => {
                for k in 0..order.len().saturating_sub(1) {
                    let rest = &order[k..];
                    let mut wins = vec![0.0; rest.len()];
                    wins[0] = w;
                    add(rest, &wins);
                }
            }
        }
    }
    if prior_draws > 0.0 {
        for i in 0..n {
            // `prior_draws` games, each half won by each side.
            add(&[i, ghost], &[prior_draws / 2.0, prior_draws / 2.0]);
        }
    }
    let mut pools: Vec<Pool> = pools.into_values().collect();
    // A fixed order: the sums below then never depend on the hash map's.
    pools.sort_by(|a, b| a.bots.cmp(&b.bots));
    // Without the prior only differences are identified: the information
    // matrix is singular along all-equal shifts, and adding J/n (J all ones)
    // makes it invertible without changing anything the mean-anchored
    // ratings depend on (the pseudo-inverse under a sum-zero constraint).
    let shift = if prior_draws > 0.0 { 0.0 } else { 1.0 / n as f64 };
    let theta = newton(n, &pools, shift);
    let mut info = information(n, &pools, &theta);
    info.iter_mut().for_each(|x| *x += shift);
    let cov = invert_spd(&info, n);
    // Anchor on the bots whose differences the games pin down: theta' =
    // theta - w.theta with w the anchor's weights (summing to 1), so
    // Var(theta'_i) = Var(e_i - w). A bot only the prior holds (no games,
    // or lost every game) has a huge variance that a mean over all bots
    // would spread into every interval; it stays out of the anchor.
    let anchor = anchor(n, &pools);
    let size = anchor.iter().filter(|&&a| a).count() as f64;
    let w: Vec<f64> = anchor.iter().map(|&a| if a { 1.0 / size } else { 0.0 }).collect();
    let level: f64 = theta.iter().zip(&w).map(|(t, w)| t * w).sum();
    let cw: Vec<f64> = (0..n).map(|i| (0..n).map(|j| cov[i * n + j] * w[j]).sum()).collect();
    let wcw: f64 = cw.iter().zip(&w).map(|(c, w)| c * w).sum();
    let played = played(n, &pools);
    let z = arena_runner::stats::normal_quantile(0.975);
    let ratings = (0..n)
        .map(|i| {
            let var = (cov[i * n + i] - 2.0 * cw[i] + wcw).max(0.0);
            let elo = MEAN_ELO + ELO_PER_NAT * (theta[i] - level);
            let se = ELO_PER_NAT * var.sqrt();
            Fitted {
                elo,
                se,
                low: elo - z * se,
                high: elo + z * se,
                played: played[i],
                anchor: anchor[i],
            }
        })
        .collect();
    Fit {
        ratings,
        cov: cov.iter().map(|c| c * ELO_PER_NAT * ELO_PER_NAT).collect(),
    }
}

/// Which bots took part in a game (the prior's virtual games aside).
fn played(n: usize, pools: &[Pool]) -> Vec<bool> {
    let mut out = vec![false; n];
    for pool in pools.iter().filter(|p| p.bots.iter().all(|&i| i < n)) {
        for &i in &pool.bots {
            out[i] = true;
        }
    }
    out
}

/// The bots the ratings are anchored on: the largest group in which every
/// bot has, through a chain of games, both beaten and been beaten by every
/// other (a strongly connected component of "was chosen over"; Hunter's
/// condition for finite maximum-likelihood differences), so its mean rests
/// on the games and not on the prior. Among groups of one size, the first
/// in the order of the condensation (the one the others never beat). When
/// no group has two bots, every bot that played; when none played, all.
fn anchor(n: usize, pools: &[Pool]) -> Vec<bool> {
    // beat[i][j]: i was chosen (or drew) while j was still in the choice.
    let mut beat = vec![false; n * n];
    for pool in pools.iter().filter(|p| p.bots.iter().all(|&i| i < n)) {
        for (k, &i) in pool.bots.iter().enumerate() {
            if pool.wins[k] > 0.0 {
                for &j in pool.bots.iter().filter(|&&j| j != i) {
                    beat[i * n + j] = true;
                }
            }
        }
    }
    let groups = components(n, &beat);
    let played = played(n, pools);
    let largest = groups.iter().map(Vec::len).max().unwrap_or(0);
    let best = groups.iter().find(|g| g.len() == largest && largest >= 2);
    match best {
        Some(g) => (0..n).map(|i| g.contains(&i)).collect(),
        None if played.iter().any(|&p| p) => played,
        None => vec![true; n],
    }
}

/// The strongly connected components of the graph `edge` (n x n, row
/// major), in topological order of their condensation (Kosaraju: a first
/// depth-first pass for finishing order, a second on the reversed graph).
fn components(n: usize, edge: &[bool]) -> Vec<Vec<usize>> {
    let mut seen = vec![false; n];
    let mut finished = Vec::with_capacity(n);
    for start in 0..n {
        if seen[start] {
            continue;
        }
        seen[start] = true;
        let mut stack = vec![(start, 0)];
        while let Some((v, next)) = stack.pop() {
            if let Some(w) = (next..n).find(|&w| edge[v * n + w] && !seen[w]) {
                stack.push((v, w + 1));
                seen[w] = true;
                stack.push((w, 0));
            } else {
                finished.push(v);
            }
        }
    }
    let mut group = vec![usize::MAX; n];
    let mut out: Vec<Vec<usize>> = Vec::new();
    for &root in finished.iter().rev() {
        if group[root] != usize::MAX {
            continue;
        }
        let id = out.len();
        let mut members = vec![root];
        group[root] = id;
        let mut k = 0;
        while k < members.len() {
            let v = members[k];
            k += 1;
            for u in 0..n {
                if edge[u * n + v] && group[u] == usize::MAX {
                    group[u] = id;
                    members.push(u);
                }
            }
        }
        members.sort_unstable();
        out.push(members);
    }
    out
}

/// Log-likelihood, its gradient and the information matrix (minus the
/// Hessian) at `theta`; the prior's virtual opponent is bot `n`, fixed at 0.
fn terms(n: usize, pools: &[Pool], theta: &[f64], with_info: bool) -> (f64, Vec<f64>, Vec<f64>) {
    let t = |i: usize| if i < n { theta[i] } else { 0.0 };
    let mut ll = 0.0;
    let mut grad = vec![0.0; n];
    let mut info = if with_info { vec![0.0; n * n] } else { Vec::new() };
    for pool in pools {
        let top = pool.bots.iter().map(|&i| t(i)).fold(f64::NEG_INFINITY, f64::max);
        let weights: Vec<f64> = pool.bots.iter().map(|&i| (t(i) - top).exp()).collect();
        let sum: f64 = weights.iter().sum();
        let p: Vec<f64> = weights.iter().map(|w| w / sum).collect();
        ll -= pool.count * (top + sum.ln());
        for (k, &i) in pool.bots.iter().enumerate() {
            ll += pool.wins[k] * t(i);
            if i < n {
                grad[i] += pool.wins[k] - pool.count * p[k];
            }
        }
        if with_info {
            for (k, &i) in pool.bots.iter().enumerate().filter(|(_, i)| **i < n) {
                for (l, &j) in pool.bots.iter().enumerate().filter(|(_, j)| **j < n) {
                    let d = if k == l { p[k] } else { 0.0 };
                    info[i * n + j] += pool.count * (d - p[k] * p[l]);
                }
            }
        }
    }
    (ll, grad, info)
}

fn information(n: usize, pools: &[Pool], theta: &[f64]) -> Vec<f64> {
    terms(n, pools, theta, true).2
}

/// Newton's method with step halving: the log-likelihood is concave, and
/// with the prior strictly so, so it converges from all-equal strengths.
fn newton(n: usize, pools: &[Pool], shift: f64) -> Vec<f64> {
    let mut theta = vec![0.0; n];
    let (mut ll, _, _) = terms(n, pools, &theta, false);
    for _ in 0..100 {
        let (_, grad, mut info) = terms(n, pools, &theta, true);
        info.iter_mut().for_each(|x| *x += shift);
        let step = solve_spd(&info, n, &grad);
        let mut scale = 1.0;
        let mut improved = false;
        for _ in 0..30 {
            let next: Vec<f64> = theta.iter().zip(&step).map(|(t, s)| t + scale * s).collect();
            let (next_ll, _, _) = terms(n, pools, &next, false);
            if next_ll >= ll - 1e-12 {
                let gain = next_ll - ll;
                theta = next;
                ll = next_ll;
                improved = gain > 1e-10;
                break;
            }
            scale /= 2.0;
        }
        if !improved || step.iter().all(|s| (s * scale).abs() < 1e-10) {
            break;
        }
    }
    theta
}

/// Cholesky factor of a symmetric positive definite `n`x`n` matrix (row
/// major); a pivot that is not positive (a bot without games and no prior)
/// is treated as tiny, which gives that bot a huge interval, as it should.
fn cholesky(m: &[f64], n: usize) -> Vec<f64> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = (0..j).map(|k| l[i * n + k] * l[j * n + k]).sum();
            if i == j {
                l[i * n + i] = (m[i * n + i] - s).max(1e-12).sqrt();
            } else {
                l[i * n + j] = (m[i * n + j] - s) / l[j * n + j];
            }
        }
    }
    l
}

fn solve_with(l: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; n];
    for i in 0..n {
        let s: f64 = (0..i).map(|k| l[i * n + k] * y[k]).sum();
        y[i] = (b[i] - s) / l[i * n + i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| l[k * n + i] * x[k]).sum();
        x[i] = (y[i] - s) / l[i * n + i];
    }
    x
}

fn solve_spd(m: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    solve_with(&cholesky(m, n), n, b)
}

fn invert_spd(m: &[f64], n: usize) -> Vec<f64> {
    let l = cholesky(m, n);
    let mut inv = vec![0.0; n * n];
    for j in 0..n {
        let mut e = vec![0.0; n];
        e[j] = 1.0;
        for (i, x) in solve_with(&l, n, &e).into_iter().enumerate() {
            inv[i * n + j] = x;
        }
    }
    inv
}

#[cfg(test)]
mod tests {
    use super::*;

    fn duels(list: &[(usize, usize, f64, usize)]) -> Vec<FitGame> {
        list.iter()
            .flat_map(|&(a, b, score, times)| std::iter::repeat_n(FitGame::Duel { a, b, score }, times))
            .collect()
    }

    #[test]
    fn two_bots_by_hand() {
        // A beats B 3 times of 4: strengths 3:1, 400 log10(3) = 190.8 Elo
        // apart; the variance of the log-odds is 1/(N p (1-p)) = 4/3.
        let f = fit(2, &duels(&[(0, 1, 1.0, 3), (0, 1, 0.0, 1)]), 0.0).ratings;
        let gap = f[0].elo - f[1].elo;
        assert!((gap - 400.0 * 3f64.log10()).abs() < 1e-6, "{gap}");
        assert!(((f[0].elo + f[1].elo) / 2.0 - MEAN_ELO).abs() < 1e-9);
        let se_gap = ELO_PER_NAT * (4.0f64 / 3.0).sqrt();
        assert!((f[0].se - se_gap / 2.0).abs() < 1e-6, "{}", f[0].se);
    }

    /// Hunter's MM iteration for Bradley-Terry with half-point draws, run to
    /// its fixed point: an independent route to the same maximum.
    fn mm(n: usize, games: &[FitGame]) -> Vec<f64> {
        let mut g = vec![1.0; n];
        for _ in 0..20_000 {
            let mut next = vec![0.0; n];
            for (i, slot) in next.iter_mut().enumerate() {
                let (mut w, mut d) = (0.0, 0.0);
                for game in games {
                    if let FitGame::Duel { a, b, score } = *game {
                        if a == i {
                            w += score;
                            d += 1.0 / (g[a] + g[b]);
                        } else if b == i {
                            w += 1.0 - score;
                            d += 1.0 / (g[a] + g[b]);
                        }
                    }
                }
                *slot = w / d;
            }
            let geo = (next.iter().map(|x: &f64| x.ln()).sum::<f64>() / n as f64).exp();
            g = next.iter().map(|x| x / geo).collect();
        }
        g.iter().map(|x| MEAN_ELO + ELO_PER_NAT * x.ln()).collect()
    }

    #[test]
    fn three_bots_match_the_mm_fixed_point() {
        let games = duels(&[
            (0, 1, 1.0, 7),
            (0, 1, 0.0, 3),
            (0, 1, 0.5, 2),
            (1, 2, 1.0, 6),
            (1, 2, 0.0, 4),
            (0, 2, 1.0, 8),
            (0, 2, 0.5, 4),
            (0, 2, 0.0, 1),
        ]);
        let ours = fit(3, &games, 0.0).ratings;
        for (a, b) in ours.iter().zip(mm(3, &games)) {
            assert!((a.elo - b).abs() < 1e-6, "{} vs {b}", a.elo);
        }
        assert!(ours[0].elo > ours[1].elo && ours[1].elo > ours[2].elo);
    }

    #[test]
    fn a_table_of_two_is_a_duel() {
        let orders = vec![
            FitGame::Order(vec![0, 1]),
            FitGame::Order(vec![0, 1]),
            FitGame::Order(vec![1, 0]),
        ];
        let same = duels(&[(0, 1, 1.0, 2), (0, 1, 0.0, 1)]);
        for (a, b) in fit(2, &orders, 1.0).ratings.iter().zip(fit(2, &same, 1.0).ratings) {
            assert!((a.elo - b.elo).abs() < 1e-9 && (a.se - b.se).abs() < 1e-9);
        }
    }

    #[test]
    fn a_perfect_record_stays_finite_with_the_prior() {
        let f = fit(2, &duels(&[(0, 1, 1.0, 50)]), PRIOR_DRAWS).ratings;
        assert!(f[0].elo.is_finite() && f[0].elo > f[1].elo + 300.0, "{:?}", f);
        assert!(f.iter().all(|x| x.se.is_finite() && x.se > 0.0));
    }

    #[test]
    fn intervals_shrink_with_games_and_cover_identical_bots() {
        // Four identical bots: every game a coin flip.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut spread = Vec::new();
        for per_pair in [100, 1600] {
            let mut games = Vec::new();
            for a in 0..4 {
                for b in a + 1..4 {
                    for _ in 0..per_pair {
                        games.push(FitGame::Duel {
                            a,
                            b,
                            score: f64::from(u8::from(rng.random_bool(0.5))),
                        });
                    }
                }
            }
            let f = fit(4, &games, PRIOR_DRAWS).ratings;
            let (lo, hi) = f
                .iter()
                .fold((f64::MAX, f64::MIN), |(l, h), x| (l.min(x.elo), h.max(x.elo)));
            spread.push((hi - lo, f[0].se));
        }
        // 16x the games: a quarter of the standard error.
        assert!((spread[1].1 / spread[0].1 - 0.25).abs() < 0.02, "{spread:?}");
        assert!(spread[1].0 < spread[0].0, "{spread:?}");
    }

    /// Duels among bots of the given true strengths (Elo), `per_pair` games
    /// per pairing, drawn from the model with a fixed seed.
    fn simulated(strengths: &[f64], per_pair: usize, seed: u64) -> Vec<FitGame> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut games = Vec::new();
        for a in 0..strengths.len() {
            for b in a + 1..strengths.len() {
                let p = 1.0 / (1.0 + 10f64.powf((strengths[b] - strengths[a]) / 400.0));
                for _ in 0..per_pair {
                    let score = f64::from(u8::from(rng.random_bool(p)));
                    games.push(FitGame::Duel { a, b, score });
                }
            }
        }
        games
    }

    #[test]
    fn a_difference_has_the_two_bot_formula() {
        // Two bots, A 3 wins of 4: the log-odds' variance is 1/(N p (1-p)) = 4/3.
        let two = fit(2, &duels(&[(0, 1, 1.0, 3), (0, 1, 0.0, 1)]), 0.0);
        let (gap, se) = two.difference(0, 1);
        assert!((gap - 400.0 * 3f64.log10()).abs() < 1e-6, "{gap}");
        assert!((se - ELO_PER_NAT * (4.0f64 / 3.0).sqrt()).abs() < 1e-6, "{se}");
    }

    #[test]
    fn a_difference_s_standard_error_matches_a_parametric_bootstrap() {
        // Three bots 0, -100 and -250 Elo, 120 games a pairing: refit 400
        // samples drawn from the fitted strengths and compare the spread of
        // each difference with the standard error the covariance gives.
        // The bootstrap's own error on a standard deviation from 400
        // samples is about 1/sqrt(800) = 3.5%, so 12% is over 3 of them.
        let truth = [0.0, -100.0, -250.0];
        let fitted = fit(3, &simulated(&truth, 120, 1), PRIOR_DRAWS);
        let centre: Vec<f64> = fitted.ratings.iter().map(|r| r.elo).collect();
        let mut diffs = [Vec::new(), Vec::new(), Vec::new()];
        for seed in 0..400 {
            let again = fit(3, &simulated(&centre, 120, 100 + seed), PRIOR_DRAWS);
            for (k, &(i, j)) in [(0, 1), (0, 2), (1, 2)].iter().enumerate() {
                diffs[k].push(again.difference(i, j).0);
            }
        }
        for (k, &(i, j)) in [(0, 1), (0, 2), (1, 2)].iter().enumerate() {
            let n = diffs[k].len() as f64;
            let mean = diffs[k].iter().sum::<f64>() / n;
            let sd = (diffs[k].iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
            let se = fitted.difference(i, j).1;
            assert!(
                (sd / se - 1.0).abs() < 0.12,
                "{i}-{j}: bootstrap {sd:.1}, covariance {se:.1}"
            );
        }
    }

    #[test]
    fn a_bot_that_loses_every_game_moves_no_other_interval() {
        // Four bots in a round robin; then the same games and a fifth bot
        // that lost all of its 100 games against each of them (a forfeit
        // every time). Only the prior holds its rating, near 250 while the
        // others are 1227 to 1655: the weakest of them was expected to
        // lose about 100 x 10^(-977/400) = 0.36 of its 100 games against
        // it, the only trace such games leave (without the prior it would
        // be none), which moves that bot by about half an Elo point and
        // the others less. So nothing of the others may move by 1 Elo
        // (measured: 0.76 at most, an interval's end), and no comparison
        // may change; anchored on all five, as before, every interval
        // was several times wider.
        let base = simulated(&[0.0, -60.0, -120.0, -400.0], 200, 3);
        let mut with = base.clone();
        for a in 0..4 {
            with.extend(std::iter::repeat_n(FitGame::Duel { a: 4, b: a, score: 0.0 }, 100));
        }
        let (four, five) = (fit(4, &base, PRIOR_DRAWS), fit(5, &with, PRIOR_DRAWS));
        assert!(five.ratings[4].played && !five.ratings[4].anchor);
        let mut moved = 0.0f64;
        for i in 0..4 {
            let (a, b) = (four.ratings[i], five.ratings[i]);
            moved = moved
                .max((a.elo - b.elo).abs())
                .max((a.low - b.low).abs())
                .max((a.high - b.high).abs());
            for j in 0..4 {
                let (d4, s4) = four.difference(i, j);
                let (d5, s5) = five.difference(i, j);
                moved = moved.max((d4 - d5).abs()).max((s4 - s5).abs());
                assert_eq!(four.clearly_ahead(i, j), five.clearly_ahead(i, j), "{i} {j}");
            }
            assert!(!five.clearly_ahead(4, i));
        }
        assert!(
            moved < 1.0,
            "moved by {moved} Elo: {:?} vs {:?}",
            four.ratings,
            five.ratings
        );
        // The broken bot is clearly behind the best bot, and its own interval is wide.
        assert!(five.clearly_ahead(0, 4), "{:?}", five.difference(0, 4));
        assert!(five.ratings[4].se > 10.0 * five.ratings[0].se, "{:?}", five.ratings);
        // Anchored on every bot instead, the old way, the broken bot's
        // variance reached everyone: the first bot's se as it was then.
        let n = 5;
        let old_var = (0..n)
            .map(|j| {
                let e = |k: usize| f64::from(u8::from(k == 0)) - 1.0 / n as f64;
                (0..n).map(|k| e(j) * e(k) * five.cov[j * n + k]).sum::<f64>()
            })
            .sum::<f64>();
        assert!(
            old_var.sqrt() > 3.0 * five.ratings[0].se,
            "{} vs {}",
            old_var.sqrt(),
            five.ratings[0].se
        );
    }

    #[test]
    fn a_bot_without_games_is_not_played_and_moves_nothing() {
        let base = simulated(&[0.0, -100.0, -200.0], 100, 5);
        let (three, four) = (fit(3, &base, PRIOR_DRAWS), fit(4, &base, PRIOR_DRAWS));
        assert!(!four.ratings[3].played && !four.ratings[3].anchor);
        for i in 0..3 {
            assert!(four.ratings[i].played && four.ratings[i].anchor);
            assert!((three.ratings[i].elo - four.ratings[i].elo).abs() < 1e-6);
            assert!((three.ratings[i].se - four.ratings[i].se).abs() < 1e-6);
            assert!(!four.clearly_ahead(i, 3) && !four.clearly_ahead(3, i));
        }
    }

    #[test]
    fn the_anchor_is_the_largest_group_that_beat_and_lost_to_each_other() {
        // 0 and 1 trade wins, 2 and 3 trade wins, 0 and 1 beat 2 and 3 in
        // every game: two groups of two, the winners' is the anchor.
        let games = duels(&[
            (0, 1, 1.0, 5),
            (0, 1, 0.0, 5),
            (2, 3, 1.0, 5),
            (2, 3, 0.0, 5),
            (0, 2, 1.0, 5),
            (1, 3, 1.0, 5),
        ]);
        let f = fit(4, &games, PRIOR_DRAWS);
        let anchored: Vec<bool> = f.ratings.iter().map(|r| r.anchor).collect();
        assert_eq!(anchored, [true, true, false, false]);
        assert!(((f.ratings[0].elo + f.ratings[1].elo) / 2.0 - MEAN_ELO).abs() < 1e-6);
    }
}
