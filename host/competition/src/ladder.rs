//! Ladder matchmaking: who plays whom next on a ladder that never stops.
//!
//! The rule is Halite's and Battlecode's: the entrant with the fewest
//! ladder matches goes first (the newest submission first among equals),
//! and meets an opponent whose rating is within a window that widens with
//! the uncertainty of both ratings, avoiding the opponents of its last few
//! matches while anyone else is in reach. Among those in the window the
//! one with the fewest matches is taken (then the closest rating), so
//! matches spread evenly. House bots are fixed anchors: they are met, never
//! picked first. Deterministic: the same ladder gives the same pairing, so
//! a test or two servers sharing a course agree.

/// One entrant of the ladder, as the scheduler sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entrant {
    /// A stable id (a submission's or a house bot's).
    pub id: i64,
    /// Ladder matches played by this version.
    pub matches: u64,
    /// Its rating (Elo scale).
    pub rating: f64,
    /// The rating's standard error (Elo points); a new version's is large.
    pub se: f64,
    /// When it joined the ladder (any increasing clock): newer goes first among equals.
    pub since: i64,
    /// A house bot: an anchor others are measured against, never picked first.
    pub anchor: bool,
}

/// The window's half-width when both ratings are certain, in Elo points.
pub const BASE_WINDOW: f64 = 100.0;
/// Standard errors added to the window: 2 is a 95% reach for each side.
pub const SE_REACH: f64 = 2.0;
/// The opponents of an entrant's last this-many matches are avoided while others are in reach.
pub const AVOID_RECENT: usize = 3;

/// How far from `a`'s rating `b` may be: the base plus each rating's 95% reach.
pub fn window(a: &Entrant, b: &Entrant) -> f64 {
    BASE_WINDOW + SE_REACH * (a.se + b.se)
}

/// The next match of a ladder of `entrants`: indices into it, the entrant
/// picked first, then its `table - 1` opponents (`table` is 2 for a duel,
/// the table's size for President). `recent` lists past matches by entrant
/// id, oldest first. `None` when no match can be made (fewer than `table`
/// entrants, or none but anchors).
pub fn next(entrants: &[Entrant], recent: &[Vec<i64>], table: usize) -> Option<Vec<usize>> {
    let table = table.max(2);
    if entrants.len() < table {
        return None;
    }
    let first = (0..entrants.len()).filter(|&i| !entrants[i].anchor).min_by(|&i, &j| {
        let (a, b) = (&entrants[i], &entrants[j]);
        a.matches
            .cmp(&b.matches)
            .then(b.since.cmp(&a.since))
            .then(a.id.cmp(&b.id))
    })?;
    let avoid = last_opponents(entrants[first].id, recent);
    let mut chosen = vec![first];
    while chosen.len() < table {
        let pick = opponent(entrants, first, &chosen, &avoid)?;
        chosen.push(pick);
    }
    Some(chosen)
}

/// The ids `id` met in its last [`AVOID_RECENT`] matches.
fn last_opponents(id: i64, recent: &[Vec<i64>]) -> Vec<i64> {
    recent
        .iter()
        .rev()
        .filter(|m| m.contains(&id))
        .take(AVOID_RECENT)
        .flat_map(|m| m.iter().copied().filter(|&o| o != id))
        .collect()
}

/// The best opponent for `first` not yet `chosen`: in the window and not
/// met lately if anyone is; else the window doubled until someone is; a
/// recent opponent only when no one else is left.
fn opponent(entrants: &[Entrant], first: usize, chosen: &[usize], avoid: &[i64]) -> Option<usize> {
    let me = &entrants[first];
    let free: Vec<usize> = (0..entrants.len()).filter(|i| !chosen.contains(i)).collect();
    let fresh: Vec<usize> = free
        .iter()
        .copied()
        .filter(|&i| !avoid.contains(&entrants[i].id))
        .collect();
    let pool = if fresh.is_empty() { &free } else { &fresh };
    let gap = |i: usize| (entrants[i].rating - me.rating).abs();
    let mut widen = 1.0;
    loop {
        let best = pool
            .iter()
            .copied()
            .filter(|&i| gap(i) <= widen * window(me, &entrants[i]))
            .min_by(|&i, &j| {
                entrants[i]
                    .matches
                    .cmp(&entrants[j].matches)
                    .then(gap(i).total_cmp(&gap(j)))
                    .then(entrants[i].id.cmp(&entrants[j].id))
            });
        match best {
            Some(i) => return Some(i),
            None if pool.is_empty() => return None,
            None => widen *= 2.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ladder(ratings: &[f64], se: f64) -> Vec<Entrant> {
        ratings
            .iter()
            .enumerate()
            .map(|(i, &r)| Entrant {
                id: i as i64,
                matches: 0,
                rating: r,
                se,
                since: 0,
                anchor: false,
            })
            .collect()
    }

    /// Play `rounds` pairings, counting matches as the server would.
    fn run(entrants: &mut [Entrant], rounds: usize, table: usize) -> Vec<Vec<i64>> {
        let mut recent = Vec::new();
        for _ in 0..rounds {
            let m = next(entrants, &recent, table).expect("a match");
            for &i in &m {
                entrants[i].matches += 1;
            }
            recent.push(m.iter().map(|&i| entrants[i].id).collect());
        }
        recent
    }

    #[test]
    fn matches_spread_evenly_over_the_entrants() {
        // 30 bots spread over 1,200 Elo points, ratings certain (a narrow window).
        let ratings: Vec<f64> = (0..30).map(|i| 900.0 + 40.0 * f64::from(i)).collect();
        let mut l = ladder(&ratings, 10.0);
        run(&mut l, 3000, 2);
        let (lo, hi) = (
            l.iter().map(|e| e.matches).min().unwrap(),
            l.iter().map(|e| e.matches).max().unwrap(),
        );
        // 3,000 duels are 200 matches each on average.
        assert!(hi - lo <= 3, "matches from {lo} to {hi}");
    }

    #[test]
    fn no_pair_meets_again_while_another_opponent_is_in_reach() {
        let mut l = ladder(&[1500.0, 1510.0, 1520.0, 1530.0, 1540.0, 1550.0], 50.0);
        let played = run(&mut l, 600, 2);
        for w in played.windows(2) {
            let same = |m: &Vec<i64>| {
                let mut m = m.clone();
                m.sort();
                m
            };
            assert_ne!(same(&w[0]), same(&w[1]), "a rematch at once: {:?}", w);
        }
    }

    #[test]
    fn the_window_widens_with_uncertainty() {
        // A new version (large se) may meet a far opponent; a settled one may not.
        let settled = Entrant {
            id: 0,
            matches: 0,
            rating: 1500.0,
            se: 10.0,
            since: 0,
            anchor: false,
        };
        let far = Entrant {
            id: 1,
            rating: 1900.0,
            ..settled.clone()
        };
        let near = Entrant {
            id: 2,
            rating: 1580.0,
            matches: 50,
            ..settled.clone()
        };
        let m = next(&[settled.clone(), far.clone(), near.clone()], &[], 2).unwrap();
        assert_eq!(m, vec![0, 2], "only the near one is in a settled window");
        let new = Entrant { se: 150.0, ..settled };
        let m = next(&[new, far, near], &[], 2).unwrap();
        assert_eq!(
            m,
            vec![0, 1],
            "an uncertain rating reaches the far one, who has fewer matches"
        );
    }

    #[test]
    fn anchors_are_met_but_never_picked_first_and_new_versions_go_first() {
        let mut l = ladder(&[1500.0, 1500.0, 1500.0], 200.0);
        l[0].anchor = true;
        l[2].since = 10;
        let m = next(&l, &[], 2).unwrap();
        assert_eq!(m[0], 2, "the newest version first");
        let only_anchors: Vec<Entrant> = l
            .iter()
            .map(|e| Entrant {
                anchor: true,
                ..e.clone()
            })
            .collect();
        assert_eq!(next(&only_anchors, &[], 2), None);
    }

    #[test]
    fn a_table_of_four_takes_four_distinct_entrants() {
        let mut l = ladder(&[1400.0, 1450.0, 1500.0, 1550.0, 1600.0, 1650.0, 1700.0], 80.0);
        let played = run(&mut l, 700, 4);
        for m in &played {
            let mut s = m.clone();
            s.sort();
            s.dedup();
            assert_eq!(s.len(), 4, "{m:?}");
        }
        let counts: Vec<u64> = l.iter().map(|e| e.matches).collect();
        assert!(
            counts.iter().max().unwrap() - counts.iter().min().unwrap() <= 4,
            "{counts:?}"
        );
    }
}
