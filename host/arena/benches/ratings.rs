//! Fitting ratings to a whole tournament at once (`tournament::fit`): 100
//! bots and 500,000 duels, and 20 bots in 50,000 President tables of 5.

use arena::tournament::fit::{FitGame, PRIOR_DRAWS, fit};
use criterion::{Criterion, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};

fn duels(bots: usize, games: usize) -> Vec<FitGame> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let strength: Vec<f64> = (0..bots).map(|i| i as f64 * 8.0).collect();
    (0..games)
        .map(|_| {
            let a = rng.random_range(0..bots);
            let b = (a + rng.random_range(1..bots)) % bots;
            let p = 1.0 / (1.0 + 10f64.powf((strength[b] - strength[a]) / 400.0));
            let r: f64 = rng.random();
            let score = if r < p * 0.9 {
                1.0
            } else if r < p * 0.9 + 0.1 {
                0.5
            } else {
                0.0
            };
            FitGame::Duel { a, b, score }
        })
        .collect()
}

fn tables(bots: usize, games: usize, size: usize) -> Vec<FitGame> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
    (0..games)
        .map(|_| {
            let mut seats: Vec<usize> = Vec::new();
            while seats.len() < size {
                let b = rng.random_range(0..bots);
                if !seats.contains(&b) {
                    seats.push(b);
                }
            }
            // Stronger (higher index) bots tend to finish first.
            seats.sort_by_key(|&b| std::cmp::Reverse(b * 10 + rng.random_range(0..60)));
            FitGame::Order(seats)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let games = duels(100, 500_000);
    c.bench_function("fit 100 bots, 500,000 duels", |b| {
        b.iter(|| fit(100, &games, PRIOR_DRAWS))
    });
    let orders = tables(20, 50_000, 5);
    c.bench_function("fit 20 bots, 50,000 tables of 5", |b| {
        b.iter(|| fit(20, &orders, PRIOR_DRAWS))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
