//! The rating fit: every finished match among the current versions, folded
//! into counts per pairing and result, fitted at once (Bradley-Terry, or
//! Plackett-Luce at a table); the leaderboard it gives, and each student
//! version's last standing kept for their history.

use super::audit;
use super::counts::Counts;
use super::types::{Board, Current, Row, pseudonym};
use super::{FROZEN, KEEP_EVERY, Ladder, PSEUDONYMS, elapsed, mark};
use crate::course::{now, stamp};
use crate::db::Secret;
use arena_competition::tournament::fit::{FitGame, PRIOR_DRAWS, fit_counted};
use sqlx::Row as _;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

impl Ladder {
    /// Fit the ratings again from every finished match among the current
    /// versions: the matches finished since the last fit are folded into
    /// the counts first ([`Ladder::compact`]), and the fit reads the counts.
    pub async fn fit_now(&self) -> Result<(), String> {
        self.forget_if_disabled();
        let current = self.current().await?;
        let on: std::collections::HashSet<String> = current.iter().map(|c| c.key.clone()).collect();
        let _one = self.folding.lock().await;
        self.compact(&on).await?;
        let through = self.folded.load(std::sync::atomic::Ordering::SeqCst);
        let pseudonyms = self.setting(PSEUDONYMS).await;
        let frozen = self.setting(FROZEN).await;
        let table_game = self.table > 2;
        let counts = self.counts.lock().map(|c| c.clone()).unwrap_or_default();
        let secret = pseudonyms.then(|| self.secret.clone());
        let (mut board, suspects) = tokio::task::spawn_blocking(move || {
            let board = standings(&current, &counts, table_game, secret.as_ref(), frozen);
            let ratings = board.rows.iter().map(|r| (r.key.clone(), r.rating)).collect();
            let suspects = audit::audit_counts(&counts, &ratings);
            (board, suspects)
        })
        .await
        .map_err(|e| e.to_string())?;
        self.judge(&suspects).await;
        board.serial = self.board().serial + 1;
        board.through = through;
        self.keep_standings(&board).await?;
        if let Ok(mut b) = self.board.write() {
            *b = Arc::new(board);
        }
        let _ = self.changed.send(());
        Ok(())
    }

    /// Act on what the statistical check found ([`audit`]): a worker past
    /// [`audit::DISABLE_Z`] is disabled and everything it did goes back (the
    /// next fit is without it); one past [`audit::DOUBT_Z`] is in doubt, once
    /// until it is judged honest again.
    async fn judge(&self, suspects: &[audit::Suspect]) {
        let mut calm: std::collections::HashSet<i64> = self.doubted.lock().map(|d| d.clone()).unwrap_or_default();
        for s in suspects {
            calm.remove(&s.worker);
            if s.z > audit::DISABLE_Z {
                let why = s.why();
                eprintln!("arena serve: worker {} disabled: {why}", s.worker);
                if let Err(e) = self.workers.disable(s.worker, &why).await {
                    eprintln!("arena serve: cannot disable worker {} ({e})", s.worker);
                }
            } else if self.doubted.lock().is_ok_and(|mut d| d.insert(s.worker)) {
                let why = format!(
                    "its ladder results differ from the server's own: {} {:+.2} a match against {:+.2} (z = {:.1})",
                    s.key, s.theirs.1, s.own.1, s.z
                );
                let _ = self.workers.doubt(s.worker, &why).await;
            }
        }
        if let Ok(mut d) = self.doubted.lock() {
            d.retain(|w| !calm.contains(w));
        }
    }

    /// Write each student version's standing whose games changed, so it
    /// stays in the student's history after the version leaves the ladder.
    async fn keep_standings(&self, board: &Board) -> Result<(), String> {
        // Every 30 s is enough for a history of versions, and spares a
        // write per version at every fit while results pour in; a version's
        // first games are written at once.
        let due = board.frozen || elapsed(&self.kept, KEEP_EVERY);
        let changed: Vec<&Row> = {
            let Ok(written) = self.written.lock() else {
                return Ok(());
            };
            board
                .rows
                .iter()
                // A version without games has no rating to keep, only the prior.
                .filter(|r| r.person.is_some() && r.ranked && written.get(&r.key) != Some(&r.games))
                .filter(|r| due || written.get(&r.key).is_none_or(|&g| g == 0))
                .collect()
        };
        if due {
            mark(&self.kept);
        }
        if changed.is_empty() {
            return Ok(());
        }
        let mut tx = self.db.pool.begin().await.map_err(|e| e.to_string())?;
        for r in &changed {
            let Some(id) = r.key.strip_prefix('s').and_then(|n| n.parse::<i64>().ok()) else {
                continue;
            };
            let json = serde_json::json!({
                "rating": r.rating, "interval": r.interval, "games": r.games,
                "wins": r.wins, "draws": r.draws, "losses": r.losses,
            });
            sqlx::query("UPDATE submissions SET ladder_json = $1 WHERE id = $2")
                .bind(json.to_string())
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(|e| e.to_string())?;
        }
        tx.commit().await.map_err(|e| e.to_string())?;
        if let Ok(mut written) = self.written.lock() {
            for r in changed {
                written.insert(r.key.clone(), r.games);
            }
        }
        Ok(())
    }

    /// A student's versions on the ladder, oldest first: the version and its
    /// standing (rating, 95% interval, games) when last fitted.
    pub async fn history(&self, person: i64) -> Result<Vec<(i64, f64, [f64; 2], u64)>, String> {
        let rows = sqlx::query(
            "SELECT version, ladder_json FROM submissions WHERE person_id = $1 AND ladder_json IS NOT NULL ORDER BY version",
        )
        .bind(person)
        .fetch_all(&self.db.pool)
        .await
        .map_err(|e| e.to_string())?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                let v: i64 = r.try_get(0).ok()?;
                let j: serde_json::Value = serde_json::from_str(&r.try_get::<String, _>(1).ok()?).ok()?;
                Some((
                    v,
                    j["rating"].as_f64()?,
                    [j["interval"][0].as_f64()?, j["interval"][1].as_f64()?],
                    j["games"].as_u64()?,
                ))
            })
            .collect())
    }
}

/// What the finished matches among the current entrants add up to.
struct Tally {
    /// How often each outcome happened: a pairing and its result, or a finishing order.
    games: Vec<(FitGame, u32)>,
    /// Each entrant's wins, draws and losses (at a table: first, between, last).
    records: Vec<[u32; 3]>,
    /// Each entrant's games.
    played: Vec<u32>,
    /// Each entrant's scores summed over its games, and their games (a solitaire's measure).
    scores: Vec<(f64, u32)>,
    /// Each entrant's finishing positions at a table (1 = first), summed, and their games.
    positions: Vec<(f64, u32)>,
    /// Matches among the current entrants, and their games.
    matches: usize,
    total: usize,
}

/// Add up the folded matches `counts` among `current`: the fit needs only
/// how often each outcome happened, so a ladder's many games collapse into
/// a count per pairing and result (or finishing order).
fn tally(current: &[Current], counts: &Counts, table_game: bool) -> Tally {
    let index: HashMap<&str, usize> = current.iter().enumerate().map(|(i, c)| (c.key.as_str(), i)).collect();
    let mut fitted: BTreeMap<(Vec<usize>, u8), u32> = BTreeMap::new();
    let mut records = vec![[0u32; 3]; current.len()];
    let mut played = vec![0u32; current.len()];
    let mut scores = vec![(0f64, 0u32); current.len()];
    let mut positions = vec![(0f64, 0u32); current.len()];
    let (mut matches, mut total) = (0u64, 0u64);
    for ((entrants, _), b) in &counts.buckets {
        let Some(map) = entrants
            .split(',')
            .map(|k| index.get(k).copied())
            .collect::<Option<Vec<usize>>>()
        else {
            continue;
        };
        matches += b.matches;
        for (&e, &(n, sum)) in &b.sums {
            if let Some(&at) = map.get(e) {
                scores[at].0 += sum;
                scores[at].1 += u32::try_from(n).unwrap_or(u32::MAX);
            }
        }
        for (g, &n) in &b.games {
            let n32 = u32::try_from(n).unwrap_or(u32::MAX);
            total += n;
            for (seat, &e) in g.seats.iter().enumerate() {
                let Some(&at) = map.get(e) else { continue };
                played[at] += n32;
                records[at][g.record(seat)] += n32;
                if let Some(p) = g.positions.as_ref().and_then(|p| p.get(seat)) {
                    positions[at].0 += f64::from(*p) * n as f64;
                    positions[at].1 += n32;
                }
            }
            match &g.positions {
                Some(p) if table_game => {
                    let mut order: Vec<usize> = (0..g.seats.len()).collect();
                    order.sort_by_key(|&s| p.get(s).copied().unwrap_or(u32::MAX));
                    let Some(seats) = order.iter().map(|&s| map.get(g.seats[s]).copied()).collect() else {
                        continue;
                    };
                    *fitted.entry((seats, 3)).or_default() += n32;
                }
                _ if g.seats.len() == 2 => {
                    let halves = match g.winner {
                        Some(0) => 2,
                        Some(_) => 0,
                        None => 1,
                    };
                    let (Some(&a), Some(&b)) = (map.get(g.seats[0]), map.get(g.seats[1])) else {
                        continue;
                    };
                    *fitted.entry((vec![a, b], halves)).or_default() += n32;
                }
                _ => {}
            }
        }
    }
    let games = fitted
        .into_iter()
        .map(|((seats, halves), n)| {
            let g = match halves {
                3 => FitGame::Order(seats),
                h => FitGame::Duel {
                    a: seats[0],
                    b: seats[1],
                    score: f64::from(h) / 2.0,
                },
            };
            (g, n)
        })
        .collect();
    Tally {
        games,
        records,
        played,
        scores,
        positions,
        matches: usize::try_from(matches).unwrap_or(usize::MAX),
        total: usize::try_from(total).unwrap_or(usize::MAX),
    }
}

/// The leaderboard of `current` from the folded matches `counts`.
fn standings(
    current: &[Current],
    counts: &Counts,
    table_game: bool,
    pseudonyms: Option<&Secret>,
    frozen: bool,
) -> Board {
    let t = tally(current, counts, table_game);
    let counted: Vec<(&FitGame, u32)> = t.games.iter().map(|(g, n)| (g, *n)).collect();
    let fit = fit_counted(current.len(), &counted, PRIOR_DRAWS);
    let fitted = &fit.ratings;
    // Versions without games have only the prior: not ranked, listed last.
    let ranked = fitted.iter().filter(|f| f.played).count();
    let mut order: Vec<usize> = (0..current.len()).collect();
    order.sort_by(|&a, &b| {
        fitted[b]
            .played
            .cmp(&fitted[a].played)
            .then(fitted[b].elo.total_cmp(&fitted[a].elo))
            .then(current[a].key.cmp(&current[b].key))
    });
    let rows = order
        .iter()
        .enumerate()
        .map(|(rank, &i)| {
            let f = fitted[i];
            // Certainly above: others whose difference from this one is
            // clear (from the fit's covariance, whatever the anchor).
            let above = (0..fitted.len()).filter(|&o| fit.clearly_ahead(o, i)).count();
            let below = (0..fitted.len()).filter(|&o| fit.clearly_ahead(i, o)).count();
            let c = &current[i];
            Row {
                rank: rank + 1,
                ranks: if f.played { [above + 1, ranked - below] } else { [0, 0] },
                ranked: f.played,
                key: c.key.clone(),
                person: c.person,
                name: match (c.person, pseudonyms) {
                    (Some(p), Some(secret)) => pseudonym(secret, p),
                    _ => c.name.clone(),
                },
                real_name: c.name.clone(),
                rating: f.elo,
                interval: [f.low, f.high],
                games: t.played[i],
                mean_score: (t.scores[i].1 > 0).then(|| t.scores[i].0 / f64::from(t.scores[i].1)),
                mean_position: (t.positions[i].1 > 0).then(|| t.positions[i].0 / f64::from(t.positions[i].1)),
                wins: t.records[i][0],
                draws: t.records[i][1],
                losses: t.records[i][2],
                version: c.version,
                submitted: c.submitted.clone(),
                house: c.person.is_none(),
            }
        })
        .collect();
    Board {
        rows,
        matches: t.matches,
        games: t.total,
        fitted_at: stamp(now()),
        pseudonyms: pseudonyms.is_some(),
        frozen,
        serial: 0,
        through: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ladder::types::Done;
    use crate::play::{Game, Outcome};

    /// The leaderboard from the matches themselves, folded here.
    fn standings_of(current: &[Current], done: &[Arc<Done>], table_game: bool) -> Board {
        standings(current, &Counts::of(done.iter().map(|d| &**d)), table_game, None, false)
    }

    /// The fit's counts from the raw matches, one match and one game at a
    /// time, as the ladder read them before it folded any (the reference).
    fn raw_tally(current: &[Current], done: &[Arc<Done>], table_game: bool) -> Tally {
        let index: HashMap<&str, usize> = current.iter().enumerate().map(|(i, c)| (c.key.as_str(), i)).collect();
        let mut counts: BTreeMap<(Vec<usize>, u8), u32> = BTreeMap::new();
        let mut records = vec![[0u32; 3]; current.len()];
        let mut played = vec![0u32; current.len()];
        let mut scores = vec![(0f64, 0u32); current.len()];
        let mut positions = vec![(0f64, 0u32); current.len()];
        let (mut matches, mut total) = (0, 0);
        for d in done {
            let Some(map) = d
                .keys
                .iter()
                .map(|k| index.get(k.as_str()).copied())
                .collect::<Option<Vec<usize>>>()
            else {
                continue;
            };
            matches += 1;
            total += d.outcome.games.len();
            for (e, r) in d.outcome.records(map.len()).iter().enumerate() {
                for k in 0..3 {
                    records[map[e]][k] += r[k];
                }
            }
            for g in &d.outcome.games {
                for (seat, &e) in g.seats.iter().enumerate() {
                    played[map[e]] += 1;
                    scores[map[e]].0 += g.scores.get(seat).copied().unwrap_or(0) as f64;
                    scores[map[e]].1 += 1;
                    if let Some(p) = g.positions.as_ref().and_then(|p| p.get(seat)) {
                        positions[map[e]].0 += f64::from(*p);
                        positions[map[e]].1 += 1;
                    }
                }
                match &g.positions {
                    Some(p) if table_game => {
                        let mut order: Vec<usize> = (0..g.seats.len()).collect();
                        order.sort_by_key(|&s| p.get(s).copied().unwrap_or(u32::MAX));
                        *counts
                            .entry((order.iter().map(|&s| map[g.seats[s]]).collect(), 3))
                            .or_default() += 1;
                    }
                    _ if g.seats.len() == 2 => {
                        let halves = match g.winner {
                            Some(0) => 2,
                            Some(_) => 0,
                            None => 1,
                        };
                        *counts
                            .entry((vec![map[g.seats[0]], map[g.seats[1]]], halves))
                            .or_default() += 1;
                    }
                    _ => {}
                }
            }
        }
        let games = counts
            .into_iter()
            .map(|((seats, halves), n)| {
                let g = match halves {
                    3 => FitGame::Order(seats),
                    h => FitGame::Duel {
                        a: seats[0],
                        b: seats[1],
                        score: f64::from(h) / 2.0,
                    },
                };
                (g, n)
            })
            .collect();
        Tally {
            games,
            records,
            scores,
            positions,
            played,
            matches,
            total,
        }
    }

    /// A table game of 4 at seats rotated by `turn`, finishing in the order `places` (by entrant).
    fn table(id: i64, keys: [i64; 4], places: [[u32; 4]; 2], by: i64) -> Arc<Done> {
        let games = (0..8)
            .map(|g| {
                let seats: Vec<usize> = (0..4).map(|s| (s + g) % 4).collect();
                let by_entrant = places[g % 2];
                Game {
                    positions: Some(seats.iter().map(|&e| by_entrant[e]).collect()),
                    winner: seats.iter().position(|&e| by_entrant[e] == 1),
                    seats,
                    scores: vec![0; 4],
                    forfeits: Vec::new(),
                }
            })
            .collect();
        Arc::new(Done {
            id,
            keys: keys.iter().map(|k| format!("s{k}")).collect(),
            outcome: Outcome {
                games,
                fuel: vec![0; 4],
            },
            finished_at: String::new(),
            by,
            verified: false,
        })
    }

    #[test]
    fn the_fit_over_the_counts_is_the_fit_over_the_raw_matches_to_the_bit() {
        // Duels with draws, both seat orders, three sources; and tables
        // with tied places, a version off the ladder in some matches.
        let mut done = Vec::new();
        for i in 0..300i64 {
            let (a, b) = (1 + i % 4, 1 + (i * 7 + 1) % 5);
            if a == b {
                continue;
            }
            let mut d = (*duel(i, a, b, (i % 11) as usize, 10)).clone();
            d.outcome.games[(i % 10) as usize].winner = None;
            d.outcome.games[((i + 3) % 10) as usize].seats = vec![1, 0];
            d.by = i % 3;
            d.verified = i % 5 == 0;
            done.push(Arc::new(d));
        }
        let four: Vec<Current> = (1..=4).map(entrant).collect();
        let raw = raw_tally(&four, &done, false);
        let folded = tally(&four, &Counts::of(done.iter().map(|d| &**d)), false);
        assert_eq!((raw.matches, raw.total), (folded.matches, folded.total));
        assert_eq!((&raw.records, &raw.played), (&folded.records, &folded.played));
        assert_eq!(raw.games, folded.games);
        let from_raw = fit_counted(
            4,
            &raw.games.iter().map(|(g, n)| (g, *n)).collect::<Vec<_>>(),
            PRIOR_DRAWS,
        );
        let board = standings_of(&four, &done, false);
        for (i, c) in four.iter().enumerate() {
            let row = board.rows.iter().find(|r| r.key == c.key).expect("a row");
            assert_eq!(row.rating.to_bits(), from_raw.ratings[i].elo.to_bits(), "{}", c.key);
            assert_eq!(
                [row.interval[0].to_bits(), row.interval[1].to_bits()],
                [from_raw.ratings[i].low.to_bits(), from_raw.ratings[i].high.to_bits()]
            );
        }
        let tables: Vec<Arc<Done>> = (0..40)
            .map(|i| table(i, [1, 2, 3, 1 + (i % 2) * 3], [[1, 2, 3, 4], [2, 1, 3, 3]], i % 2))
            .collect();
        let raw = raw_tally(&four, &tables, true);
        let folded = tally(&four, &Counts::of(tables.iter().map(|d| &**d)), true);
        assert_eq!((raw.matches, raw.total), (folded.matches, folded.total));
        assert_eq!((&raw.records, &raw.played), (&folded.records, &folded.played));
        assert_eq!(raw.games, folded.games);
        // Head to head from the counts: each match's record, added up.
        let counts = Counts::of(done.iter().map(|d| &**d));
        let heads = counts.heads("s1");
        let mut expected: BTreeMap<String, [u32; 3]> = BTreeMap::new();
        for d in done.iter().filter(|d| d.keys.iter().all(|k| k != "s5")) {
            let Some(me) = d.keys.iter().position(|k| k == "s1") else {
                continue;
            };
            let mine = d.outcome.records(2)[me];
            let h = expected.entry(d.keys[1 - me].clone()).or_default();
            for k in 0..3 {
                h[k] += mine[k];
            }
        }
        let heads_on: BTreeMap<String, [u32; 3]> = heads.into_iter().filter(|(k, _)| k != "s5").collect();
        assert_eq!(heads_on, expected);
    }

    fn entrant(i: i64) -> Current {
        Current {
            key: format!("s{i}"),
            person: Some(i),
            name: format!("student {i}"),
            version: Some(1),
            submitted: None,
            id: i,
        }
    }

    /// A match of `a` against `b`: `a` wins `wins` of `games`, `b` the rest.
    fn duel(id: i64, a: i64, b: i64, wins: usize, games: usize) -> Arc<Done> {
        let games = (0..games)
            .map(|g| Game {
                seats: vec![0, 1],
                scores: vec![0, 0],
                winner: Some(usize::from(g >= wins)),
                positions: None,
                forfeits: Vec::new(),
            })
            .collect();
        Arc::new(Done {
            id,
            keys: vec![format!("s{a}"), format!("s{b}")],
            outcome: Outcome {
                games,
                fuel: vec![0, 0],
            },
            finished_at: String::new(),
            by: 0,
            verified: false,
        })
    }

    #[test]
    fn a_version_without_games_is_not_ranked_and_one_that_forfeits_moves_no_other() {
        // Students 1 to 3 trade wins over 600 games a pairing; student 4
        // has no games yet; student 5 (the second board) lost all of its
        // 600 games against each. Student 4 is not ranked and counts in
        // no one's rank range; student 5 moves no one's rating or
        // interval end by 1 Elo (what its games leave through the prior,
        // see `fit.rs`) and no one's rank range at all.
        let mut done = vec![
            duel(1, 1, 2, 360, 600),
            duel(2, 2, 3, 330, 600),
            duel(3, 1, 3, 400, 600),
        ];
        let four: Vec<Current> = (1..=4).map(entrant).collect();
        let before = standings_of(&four, &done, false);
        let last = &before.rows[3];
        assert_eq!((last.key.as_str(), last.ranked, last.ranks), ("s4", false, [0, 0]));
        let rated: Vec<&Row> = before.rows.iter().filter(|r| r.ranked).collect();
        assert_eq!(rated.len(), 3);
        assert!(rated.iter().all(|r| r.ranks[1] <= 3), "{rated:?}");
        // 1 beat 3 400 to 200: clearly ahead, so 1's worst rank is not 3.
        assert_eq!(rated[0].key, "s1");
        assert!(rated[0].ranks[1] < 3, "{:?}", rated[0]);
        for (id, s) in (1..=3).enumerate() {
            done.push(duel(10 + id as i64, s, 5, 600, 600));
        }
        let five: Vec<Current> = (1..=5).map(entrant).collect();
        let after = standings_of(&five, &done, false);
        assert_eq!(after.rows[3].key, "s5");
        assert!(after.rows[3].ranked);
        for r in &rated {
            let a = after.rows.iter().find(|x| x.key == r.key).expect("still there");
            assert_eq!((a.rank, a.ranks), (r.rank, r.ranks), "{r:?} then {a:?}");
            for (x, y) in [
                (r.rating, a.rating),
                (r.interval[0], a.interval[0]),
                (r.interval[1], a.interval[1]),
            ] {
                assert!((x - y).abs() < 1.0, "{} moved from {x} to {y}", r.key);
            }
        }
    }
}
