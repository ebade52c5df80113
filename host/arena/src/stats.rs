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

/// Two-sided 97.5% quantiles of Student's t for 1..=30 degrees of freedom.
const T_975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
    2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/// The 97.5% quantile of Student's t with `df` degrees of freedom.
pub fn t_975(df: usize) -> f64 {
    match df {
        0 => f64::INFINITY,
        1..=30 => T_975[df - 1],
        31..=60 => 2.042 - (df - 30) as f64 * (2.042 - 2.000) / 30.0,
        61..=120 => 2.000 - (df - 60) as f64 * (2.000 - 1.980) / 60.0,
        _ => 1.960,
    }
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
    fn large_samples_use_the_normal_quantile() {
        assert_eq!(t_975(10_000), 1.96);
        assert!(t_975(45) < t_975(30) && t_975(45) > t_975(61));
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
