//! Means, spreads and 95% confidence intervals.

use serde::Serialize;

/// The mean of a sample with its spread and 95% confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    /// Sample size.
    pub n: usize,
    /// Sample mean.
    pub mean: f64,
    /// Sample standard deviation (n - 1 in the denominator).
    pub sd: f64,
    /// 95% confidence interval of the mean: `[low, high]`.
    pub ci95: [f64; 2],
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom (statrs).
pub fn t_975(df: usize) -> f64 {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    match df {
        0 => f64::INFINITY,
        _ => StudentsT::new(0.0, 1.0, df as f64).map_or(f64::INFINITY, |t| t.inverse_cdf(0.975)),
    }
}

/// The standard normal quantile of `p` (statrs): 1.96 for 0.975.
pub fn normal_quantile(p: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, Normal};
    Normal::standard().inverse_cdf(p)
}

/// The standard normal distribution function (statrs).
pub fn normal_cdf(x: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, Normal};
    Normal::standard().cdf(x)
}

/// Estimate the mean of `xs` with a t-based 95% interval.
pub fn estimate(xs: &[f64]) -> Estimate {
    let n = xs.len();
    if n == 0 {
        return Estimate {
            n,
            mean: f64::NAN,
            sd: f64::NAN,
            ci95: [f64::NAN, f64::NAN],
        };
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return Estimate {
            n,
            mean,
            sd: 0.0,
            ci95: [f64::NEG_INFINITY, f64::INFINITY],
        };
    }
    let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    let half = t_975(n - 1) * sd / (n as f64).sqrt();
    Estimate {
        n,
        mean,
        sd,
        ci95: [mean - half, mean + half],
    }
}

/// [`estimate`] of `n` integers given by their sum and the sum of their
/// squares: exact integer sums, so the figure never depends on the order
/// the values were added up in.
pub fn estimate_from_sums(n: u64, sum: i128, squares: i128) -> Estimate {
    if n < 2 {
        let mut e = estimate(&[]);
        if n == 1 {
            e = estimate(&[sum as f64]);
        }
        return e;
    }
    let count = n as f64;
    let mean = sum as f64 / count;
    // n * Σx² - (Σx)², exact while it fits; in floating point past that.
    let spread = i128::from(n)
        .checked_mul(squares)
        .zip(sum.checked_mul(sum))
        .and_then(|(a, b)| a.checked_sub(b))
        .map_or_else(|| count * squares as f64 - (sum as f64).powi(2), |d| d as f64);
    let sd = (spread.max(0.0) / (count * (count - 1.0))).sqrt();
    let half = t_975(n as usize - 1) * sd / count.sqrt();
    Estimate {
        n: n as usize,
        mean,
        sd,
        ci95: [mean - half, mean + half],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textbook_example() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sample sd 2.138; t(7) = 2.365.
        let e = estimate(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(e.mean, 5.0);
        assert!((e.sd - 2.1381).abs() < 1e-4);
        let half = 2.365 * 2.1381 / 8f64.sqrt();
        assert!((e.ci95[0] - (5.0 - half)).abs() < 1e-3 && (e.ci95[1] - (5.0 + half)).abs() < 1e-3);
    }

    #[test]
    fn sums_give_the_textbook_example_too() {
        let xs = [2i128, 4, 4, 4, 5, 5, 7, 9];
        let e = estimate_from_sums(8, xs.iter().sum(), xs.iter().map(|x| x * x).sum());
        let f = estimate(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(e.mean, f.mean);
        assert!((e.sd - f.sd).abs() < 1e-12 && (e.ci95[0] - f.ci95[0]).abs() < 1e-12);
        assert_eq!(estimate_from_sums(1, 3, 9).mean, 3.0);
        assert!(estimate_from_sums(0, 0, 0).mean.is_nan());
    }

    #[test]
    fn quantiles_match_the_printed_tables() {
        // Student's t 97.5% quantiles as printed in every statistics text.
        for (df, t) in [(1, 12.706), (7, 2.365), (30, 2.042), (60, 2.000), (120, 1.980)] {
            assert!((t_975(df) - t).abs() < 5e-4, "t({df}) = {}", t_975(df));
        }
        assert!((t_975(100_000) - 1.960).abs() < 1e-3);
        assert!((normal_quantile(0.975) - 1.959_964).abs() < 1e-6);
        assert!((normal_cdf(1.0) - 0.841_345).abs() < 1e-6);
    }

    #[test]
    fn about_95_percent_of_intervals_cover_the_true_mean() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let trials = 2000;
        let mut covered = 0;
        for _ in 0..trials {
            let xs: Vec<f64> = (0..40).map(|_| rng.random_range(0..=10) as f64).collect();
            let e = estimate(&xs);
            if e.ci95[0] <= 5.0 && 5.0 <= e.ci95[1] {
                covered += 1;
            }
        }
        // Binomial(2000, 0.95) has sd 9.7: allow 4 sd either way.
        assert!((1861..=1939).contains(&covered), "{covered}");
    }
}

/// The Wilson score interval (95%) of a rate `p` observed over `n`
/// independent trials: unlike the normal interval it keeps a width at 0
/// and 1 and at a tie, so "too close to call" still works there.
pub fn wilson(p: f64, n: usize) -> [f64; 2] {
    if n == 0 {
        return [0.0, 1.0];
    }
    let (n, z) = (n as f64, normal_quantile(0.975));
    let z2 = z * z;
    let center = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    [(center - half).max(0.0), (center + half).min(1.0)]
}

/// Likelihood of superiority: the probability that the side with `wins`
/// and `losses` (draws say nothing about it) is the stronger, by the normal
/// approximation cutechess-cli prints: Φ((W - L) / √(W + L)).
pub fn los(wins: u32, losses: u32) -> f64 {
    let (w, l) = (f64::from(wins), f64::from(losses));
    if w + l == 0.0 {
        return 0.5;
    }
    normal_cdf((w - l) / (w + l).sqrt())
}

/// The expected score of a side `elo` points stronger (logistic Elo).
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference that expects `score` (logistic; ±infinity at 1 and 0).
pub fn elo_of_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// A sequential probability ratio test of "at least `elo1` better" (H1)
/// against "at most `elo0` better" (H0), with error rates `alpha` (accepting
/// H1 when H0 holds) and `beta`, as cutechess-cli and fishtest name them.
/// Each observation is the mean score of one paired deal (the deal played
/// from both seats), so the pairing's correlation is kept; the
/// log-likelihood ratio is the normal approximation of the generalized
/// SPRT (Van den Bergh), on the logistic Elo scale.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Sprt {
    /// Elo of H0.
    pub elo0: f64,
    /// Elo of H1.
    pub elo1: f64,
    /// Probability of accepting H1 when H0 is true.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 is true.
    pub beta: f64,
}

/// Where a test stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SprtDecision {
    /// Not yet decided.
    Continue,
    /// H0: not better by elo1 (at most elo0).
    AcceptH0,
    /// H1: better by at least elo1.
    AcceptH1,
}

impl Sprt {
    /// A test of H0 "at most `elo0`" against H1 "at least `elo1`" with
    /// error rates `alpha` and `beta`, or why those make no test (as a flag
    /// of `arena compare` would name it).
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, String> {
        if elo1.partial_cmp(&elo0) != Some(std::cmp::Ordering::Greater) {
            return Err(format!(
                "--elo1 ({elo1}) must be above --elo0 ({elo0}): H1 says \"better by at least elo1\""
            ));
        }
        for (name, v) in [("--alpha", alpha), ("--beta", beta)] {
            if !(0.0 < v && v < 0.5) {
                return Err(format!("{name} {v}: an error rate between 0 and 0.5, such as 0.05"));
            }
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// Observations (paired deals) before the test may decide.
    pub const MIN_PAIRS: f64 = 30.0;

    /// The bounds of the log-likelihood ratio: accept H0 at or below the
    /// first, H1 at or above the second.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of observations with this `count`, `sum` and `sum_sq`.
    pub fn llr(&self, count: f64, sum: f64, sum_sq: f64) -> f64 {
        // The variance is estimated from the sample, which is unreliable at
        // first; deciding only after MIN_PAIRS keeps the error rates (see the
        // simulation test).
        if count < Self::MIN_PAIRS {
            return 0.0;
        }
        let mean = sum / count;
        // The variance of one observation; a floor keeps a run of identical
        // outcomes (identical deterministic bots: every deal drawn) finite.
        let var = (sum_sq / count - mean * mean).max(1e-6);
        let (s0, s1) = (score_of_elo(self.elo0), score_of_elo(self.elo1));
        count * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    /// The decision for this log-likelihood ratio.
    pub fn decide(&self, llr: f64) -> SprtDecision {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtDecision::AcceptH1
        } else if llr <= lower {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

#[cfg(test)]
mod sprt_tests {
    use super::*;

    #[test]
    fn wilson_intervals_keep_their_width_at_the_ends() {
        // Textbook values: 0 of 10 gives [0, 0.2775]; 10 of 10 [0.7225, 1].
        let [lo, hi] = wilson(0.0, 10);
        assert!(lo.abs() < 1e-12 && (hi - 0.2775).abs() < 1e-4, "{lo} {hi}");
        let [lo, hi] = wilson(1.0, 10);
        assert!((lo - 0.7225).abs() < 1e-4 && (hi - 1.0).abs() < 1e-12, "{lo} {hi}");
        // 50 of 100: 0.5 +- 0.0962, a tie with room either side.
        let [lo, hi] = wilson(0.5, 100);
        assert!((lo - 0.4038).abs() < 1e-3 && (hi - 0.5962).abs() < 1e-3, "{lo} {hi}");
    }

    #[test]
    fn los_and_elo_as_cutechess_prints_them() {
        // 60 wins, 40 losses: (60-40)/10 = 2 standard deviations.
        assert!((los(60, 40) - normal_cdf(2.0)).abs() < 1e-12);
        assert_eq!(los(5, 5), 0.5);
        assert!((elo_of_score(0.75) - 190.848).abs() < 1e-3);
        assert!((score_of_elo(elo_of_score(0.6)) - 0.6).abs() < 1e-12);
    }

    #[test]
    fn sprt_bounds_and_direction() {
        let t = Sprt {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let (lo, hi) = t.bounds();
        assert!((hi - 19f64.ln()).abs() < 1e-12 && (lo + 19f64.ln()).abs() < 1e-12);
        // Scores well above H1's: the ratio grows with the sample.
        let n = 400.0;
        let (mean, sd) = (0.56, 0.3);
        let llr = t.llr(n, n * mean, n * (sd * sd + mean * mean));
        assert!(llr > 0.0 && t.llr(4.0 * n, 4.0 * n * mean, 4.0 * n * (sd * sd + mean * mean)) > 3.9 * llr);
        // At exactly H0's score the ratio falls.
        assert!(t.llr(n, n * 0.5, n * (0.09 + 0.25)) < 0.0);
    }

    /// Over many simulated tests of identical sides, H1 is accepted about
    /// alpha of the time or less (the approximation is conservative for
    /// discrete scores), and of a side 30 Elo stronger, H0 about beta.
    #[test]
    fn error_rates_hold_in_simulation() {
        use rand::{Rng, SeedableRng};
        let t = Sprt {
            elo0: 0.0,
            elo1: 30.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut run = |elo: f64| {
            // Win probability among decided games, so the expected score is elo's.
            let p = (score_of_elo(elo) - 0.1) / 0.8;
            let (mut n, mut sum, mut sq) = (0.0, 0.0, 0.0);
            for _ in 0..200_000 {
                // A paired deal: two games with 20% draws.
                let game = |rng: &mut rand_chacha::ChaCha8Rng| {
                    let r: f64 = rng.random();
                    if r < 0.2 {
                        0.5
                    } else if r < 0.2 + 0.8 * p {
                        1.0
                    } else {
                        0.0
                    }
                };
                let x = (game(&mut rng) + game(&mut rng)) / 2.0;
                n += 1.0;
                sum += x;
                sq += x * x;
                match t.decide(t.llr(n, sum, sq)) {
                    SprtDecision::Continue => {}
                    d => return d,
                }
            }
            SprtDecision::Continue
        };
        let trials = 400;
        let false_h1 = (0..trials).filter(|_| run(0.0) == SprtDecision::AcceptH1).count();
        let false_h0 = (0..trials).filter(|_| run(30.0) == SprtDecision::AcceptH0).count();
        eprintln!("simulated SPRT: H1 wrongly {false_h1}/{trials}, H0 wrongly {false_h0}/{trials}");
        // Binomial(400, 0.05): mean 20, sd 4.4; allow 3 sd above.
        assert!(false_h1 <= 33, "H1 wrongly accepted {false_h1} of {trials}");
        assert!(false_h0 <= 33, "H0 wrongly accepted {false_h0} of {trials}");
    }
}
