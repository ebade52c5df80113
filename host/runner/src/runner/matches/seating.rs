//! Who sits where: every deal played from every seat order (for a table,
//! balanced cycles in all their rotations), and the units a match is
//! played in.

use super::MatchSpec;
use arena_core::derive_seed;

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
