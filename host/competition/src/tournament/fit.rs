//! Ratings fitted to every game at once, for bots whose strength does not
//! change: Bradley-Terry for duels (a draw counts as half a win to each
//! side) and Plackett-Luce for finishing orders (a table of n players is
//! n - 1 choices: first among all, second among the rest, ...), which is
//! Bradley-Terry when n = 2. Maximum likelihood by Newton's method on the
//! log-strengths, with 95% intervals from the observed information (the
//! inverse Hessian), on the Elo scale, anchored so the bots' mean is 1500.
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
    /// The rating (the bots' mean is 1500).
    pub elo: f64,
    /// Its standard error, in Elo points.
    pub se: f64,
    /// Low end of the 95% interval.
    pub low: f64,
    /// High end of the 95% interval.
    pub high: f64,
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
pub fn fit(n: usize, games: &[FitGame], prior_draws: f64) -> Vec<Fitted> {
    let counted: Vec<(&FitGame, u32)> = games.iter().map(|g| (g, 1)).collect();
    fit_counted(n, &counted, prior_draws)
}

/// [`fit`] of games given with how often each came out: the pools add up
/// the same whole and half counts, so the ratings are the same to the bit.
pub fn fit_counted(n: usize, games: &[(&FitGame, u32)], prior_draws: f64) -> Vec<Fitted> {
    if n == 0 {
        return Vec::new();
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
    // Anchor the mean: theta' = theta - mean(theta), so Cov' = A Cov A^T with A = I - J/n.
    let mean = theta.iter().sum::<f64>() / n as f64;
    let row_mean: Vec<f64> = (0..n)
        .map(|i| (0..n).map(|j| cov[i * n + j]).sum::<f64>() / n as f64)
        .collect();
    let all_mean = row_mean.iter().sum::<f64>() / n as f64;
    let z = arena_runner::stats::normal_quantile(0.975);
    (0..n)
        .map(|i| {
            let var = (cov[i * n + i] - 2.0 * row_mean[i] + all_mean).max(0.0);
            let elo = MEAN_ELO + ELO_PER_NAT * (theta[i] - mean);
            let se = ELO_PER_NAT * var.sqrt();
            Fitted {
                elo,
                se,
                low: elo - z * se,
                high: elo + z * se,
            }
        })
        .collect()
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
        let f = fit(2, &duels(&[(0, 1, 1.0, 3), (0, 1, 0.0, 1)]), 0.0);
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
        let ours = fit(3, &games, 0.0);
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
        for (a, b) in fit(2, &orders, 1.0).iter().zip(fit(2, &same, 1.0)) {
            assert!((a.elo - b.elo).abs() < 1e-9 && (a.se - b.se).abs() < 1e-9);
        }
    }

    #[test]
    fn a_perfect_record_stays_finite_with_the_prior() {
        let f = fit(2, &duels(&[(0, 1, 1.0, 50)]), PRIOR_DRAWS);
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
            let f = fit(4, &games, PRIOR_DRAWS);
            let (lo, hi) = f
                .iter()
                .fold((f64::MAX, f64::MIN), |(l, h), x| (l.min(x.elo), h.max(x.elo)));
            spread.push((hi - lo, f[0].se));
        }
        // 16x the games: a quarter of the standard error.
        assert!((spread[1].1 / spread[0].1 - 0.25).abs() < 0.02, "{spread:?}");
        assert!(spread[1].0 < spread[0].0, "{spread:?}");
    }
}
