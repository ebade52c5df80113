//! Standings: the ranking, with each bot's record, rating and forfeits, and a
//! short reading of which differences are real and which are noise.

use super::fit::CLEAR_Z;
use super::ratings::Rating;
use super::{Bracket, Format, MatchRecord, TournamentSpec, ratings};
use arena_core::{ForfeitReason, Kind};
use arena_runner::stats::{Estimate, estimate_from_sums};
use serde::Serialize;
use std::collections::BTreeMap;

/// One line of the standings.
#[derive(Debug, Clone, Serialize)]
pub struct Standing {
    /// 1 = first.
    pub rank: usize,
    /// The rank of the first bot of this bot's group: bots the group's
    /// first bot is not clearly ahead of (by the difference of ratings, or
    /// for solitaires the 95% intervals of mean scores) share a group, so
    /// `tier` says where a bot stands beyond noise (equal tiers: too close
    /// to call).
    pub tier: usize,
    /// The bot's name.
    pub name: String,
    /// SHA-256 of its file, for wasm bots.
    pub sha256: Option<String>,
    /// Games played.
    pub games: u32,
    /// Games won (first place at a table).
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Game points: a win 1, a draw ½.
    pub points: f64,
    /// Swiss: match points (a match won 1, drawn ½, a bye 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_points: Option<f64>,
    /// Mean score per game with its interval (solitaires).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<Estimate>,
    /// Mean finishing position (games of more than two players).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_position: Option<f64>,
    /// The rating from every game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<Rating>,
    /// Double elimination: where the bot finished in the bracket.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement: Option<String>,
    /// Forfeits by reason.
    pub forfeits: BTreeMap<String, u32>,
}

impl Standing {
    /// Its main measure as the reports print it: mean score [95% CI],
    /// mean position, or won-drew-lost.
    pub fn measure_text(&self) -> String {
        if let Some(e) = self.score {
            return format!("{:.2} [{:.2} to {:.2}]", e.mean, e.ci95[0], e.ci95[1]);
        }
        if let Some(p) = self.mean_position {
            return format!("{p:.2}");
        }
        format!("{}-{}-{}", self.wins, self.draws, self.losses)
    }

    /// Its rating with the 95% interval as the reports print it, `-` if none.
    pub fn rating_text(&self) -> String {
        self.rating.as_ref().map_or("-".into(), |r| {
            format!("{:.0} [{:.0} to {:.0}]", r.value, r.low, r.high)
        })
    }

    /// Its forfeits as the reports print them, `trap 2, fuel 1` or `-`.
    pub fn forfeits_text(&self) -> String {
        arena_runner::runner::forfeit_list(&self.forfeits)
    }
}

/// The name of the standings' main measure (the header of [`Standing::measure_text`]).
pub fn measure_name(rows: &[Standing]) -> &'static str {
    match rows.first() {
        Some(s) if s.score.is_some() => "mean score [95% CI]",
        Some(s) if s.mean_position.is_some() => "mean position",
        _ => "won-drew-lost",
    }
}

/// Rank the bots of a tournament.
pub fn standings(spec: &TournamentSpec<'_>, matches: &[MatchRecord], bracket: Option<&Bracket>) -> Vec<Standing> {
    let n = spec.entrants.len();
    let kind = spec.game.kind();
    let mut rows = tally(spec, matches);
    let ratings = match kind {
        Kind::Solitaire => None,
        Kind::Duel | Kind::Table => Some(ratings::fitted(n, matches)),
    };
    if let Some(r) = &ratings {
        for (row, rating) in rows.iter_mut().zip(r) {
            row.rating = rating.clone();
        }
    }
    if spec.format == Format::Swiss {
        for (bot, row) in rows.iter_mut().enumerate() {
            row.match_points = Some(swiss_points(bot, n, matches));
        }
    }
    let order = order(spec, &mut rows, bracket);
    let mut ranked: Vec<Standing> = order.into_iter().map(|i| rows[i].clone()).collect();
    for (i, row) in ranked.iter_mut().enumerate() {
        row.rank = i + 1;
    }
    if spec.format == Format::DoubleElimination {
        // The bracket decides the places; bots out in the same losers'
        // round share one (champion, runner-up and third stand alone).
        for i in 0..ranked.len() {
            let same_round = i >= 4
                && ranked[i].placement.is_some()
                && ranked[i].placement.as_deref().map(placement_round)
                    == ranked[i - 1].placement.as_deref().map(placement_round);
            ranked[i].tier = if same_round { ranked[i - 1].tier } else { ranked[i].rank };
        }
    } else {
        set_tiers(&mut ranked);
    }
    ranked
}

/// Every bot's row with its games, results, points, forfeits and (alone) score.
fn tally(spec: &TournamentSpec<'_>, matches: &[MatchRecord]) -> Vec<Standing> {
    let n = spec.entrants.len();
    let kind = spec.game.kind();
    let mut rows: Vec<Standing> = spec
        .entrants
        .iter()
        .map(|e| Standing {
            rank: 0,
            tier: 0,
            name: e.name.clone(),
            sha256: match &e.bot {
                arena_runner::runner::BotRef::Wasm(p) => Some(p.sha256.clone()),
                arena_runner::runner::BotRef::House(_) => None,
            },
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            points: 0.0,
            match_points: None,
            score: None,
            mean_position: None,
            rating: None,
            placement: None,
            forfeits: ForfeitReason::ALL.iter().map(|r| (r.as_str().to_string(), 0)).collect(),
        })
        .collect();
    // Exact sums: no figure depends on the order the matches are read in.
    let mut scores: Vec<(u64, i128, i128)> = vec![(0, 0, 0); n];
    let mut positions: Vec<(u64, u64)> = vec![(0, 0); n];
    for m in matches.iter().filter(|m| !m.id.starts_with("seed:")) {
        for (&bot, t) in m.bots.iter().zip(&m.tally.totals) {
            let row = &mut rows[bot];
            row.games += t.games;
            let s = &mut scores[bot];
            s.0 += u64::from(t.games);
            s.1 = s.1.saturating_add(i128::from(t.score_sum));
            s.2 = s.2.saturating_add(t.score_squares);
            if let Some(p) = t.position_sum {
                positions[bot].0 += p;
                positions[bot].1 += u64::from(t.positioned);
            }
            if kind != Kind::Solitaire {
                row.wins += t.wins;
                row.draws += t.draws;
                row.losses += t.losses;
            }
            for (reason, count) in &t.forfeits {
                *row.forfeits.entry(reason.to_string()).or_default() += count;
            }
        }
    }
    for (bot, row) in rows.iter_mut().enumerate() {
        row.points = f64::from(row.wins) + 0.5 * f64::from(row.draws);
        if kind == Kind::Solitaire {
            let (count, sum, squares) = scores[bot];
            row.score = Some(estimate_from_sums(count, sum, squares));
        }
        if positions[bot].1 > 0 {
            row.mean_position = Some(positions[bot].0 as f64 / positions[bot].1 as f64);
        }
    }
    rows
}

/// The bots in standings order: by the bracket's placement, by score when
/// alone, else by the rating fitted to every game.
fn order(spec: &TournamentSpec<'_>, rows: &mut [Standing], bracket: Option<&Bracket>) -> Vec<usize> {
    let n = rows.len();
    let kind = spec.game.kind();
    // A bot without games has no rating and comes last.
    let rating = |r: &Standing| r.rating.as_ref().map_or(f64::NEG_INFINITY, |x| x.value);
    let mut order: Vec<usize> = (0..n).collect();
    match (spec.format, bracket) {
        (Format::DoubleElimination, Some(b)) => {
            for (bot, row) in rows.iter_mut().enumerate() {
                row.placement = b.describe(bot);
            }
            // The bracket orders the rounds in which bots went out; inside
            // one round nothing was played between them, so the rating of
            // all their games orders them, and they share the place.
            let place = |bot: usize| b.placement.iter().position(|&x| x == bot).unwrap_or(usize::MAX);
            let round = |bot: usize| {
                b.placement
                    .iter()
                    .position(|&x| x == bot)
                    .filter(|&p| p >= 3)
                    .and(rows[bot].placement.as_deref().map(placement_round))
            };
            order.sort_by(|&x, &y| match (round(x), round(y)) {
                (Some(rx), Some(ry)) if rx == ry => rating(&rows[y]).total_cmp(&rating(&rows[x])).then(x.cmp(&y)),
                _ => place(x).cmp(&place(y)),
            });
        }
        _ if kind == Kind::Solitaire => order.sort_by(|&a, &b| {
            let m = |r: &Standing| r.score.map_or(f64::NEG_INFINITY, |s| s.mean);
            m(&rows[b]).total_cmp(&m(&rows[a])).then(a.cmp(&b))
        }),
        // One order: the rating fitted to every game decides, so rank and
        // rating never disagree (Swiss shows its match points beside it).
        _ => order.sort_by(|&a, &b| rating(&rows[b]).total_cmp(&rating(&rows[a])).then(a.cmp(&b))),
    }
    order
}

/// The standing has something to be judged by: a rating, or for a
/// solitaire a mean score.
fn judged(r: &Standing) -> bool {
    r.rating.is_some() || r.score.is_some()
}

/// `a` is clearly ahead of `b`. Ratings: by the interval of their
/// difference, from the fit's covariance, which no anchoring of the shown
/// ratings changes (see `fit::CLEAR_Z`). Solitaires' mean scores come from
/// separate games, so they are independent: by their 95% intervals.
fn ahead(a: &Standing, b: &Standing) -> bool {
    match (&a.rating, &b.rating, a.score, b.score) {
        (Some(x), Some(y), _, _) => x.clearly_ahead(y).unwrap_or(false),
        (None, None, Some(s), Some(t)) => s.ci95[0] > t.ci95[1],
        _ => false,
    }
}

/// Group the ranked bots: a bot joins the group above while that group's
/// first bot is not clearly ahead of it, and starts a new group otherwise. Comparing with the group's first bot, not
/// the bot just above, keeps a chain of small overlaps from putting a clear
/// winner and a clear loser in one group.
fn set_tiers(rows: &mut [Standing]) {
    let mut leader = 0;
    for i in 0..rows.len() {
        let joins = i > 0 && judged(&rows[leader]) && judged(&rows[i]) && !ahead(&rows[leader], &rows[i]);
        if !joins {
            leader = i;
        }
        rows[i].tier = rows[leader].rank;
    }
}

/// A rank that noise cannot change: one more than the number of bots
/// clearly ahead (see [`ahead`]), whatever the format's order.
/// Byte-identical bots get the same one, and a bot below all others (one
/// that forfeits every game) changes no other bot's.
pub fn rank_beyond_noise(rows: &[Standing], i: usize) -> usize {
    if !judged(&rows[i]) {
        return rows[i].rank;
    }
    1 + rows.iter().filter(|r| ahead(r, &rows[i])).count()
}

/// A double-elimination placement without its note ("out in losers' round
/// 2", whether or not a drawn match decided it).
fn placement_round(placement: &str) -> &str {
    placement.split(" (").next().unwrap_or(placement)
}

/// The rank as the reports print it: `3`, or `=3` when the bot shares its
/// group (within noise of the bot above or below).
pub fn rank_text(rows: &[Standing], i: usize) -> String {
    let shared = rows.iter().filter(|r| r.tier == rows[i].tier).count() > 1;
    if shared {
        format!("={}", rows[i].tier)
    } else {
        rows[i].rank.to_string()
    }
}

fn swiss_points(bot: usize, n: usize, matches: &[MatchRecord]) -> f64 {
    let mut points = 0.0;
    let mut rounds_played = std::collections::BTreeSet::new();
    let mut rounds = std::collections::BTreeSet::new();
    for m in matches {
        let round = m.id.split(':').nth(1).unwrap_or("").to_string();
        rounds.insert(round.clone());
        if let Some(me) = m.bots.iter().position(|&b| b == bot) {
            rounds_played.insert(round);
            let p = m.points();
            let other = p[1 - me];
            points += match p[me].total_cmp(&other) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Less => 0.0,
            };
        }
    }
    // A round without a match was a bye: one point (odd fields only).
    if n % 2 == 1 {
        points += (rounds.len() - rounds_played.len()) as f64;
    }
    points
}

/// A few sentences on which neighbours in the standings are clearly apart.
pub fn reading(rows: &[Standing]) -> Vec<String> {
    let shown = |r: &Standing| -> Option<String> {
        if let Some(x) = &r.rating {
            return Some(format!("rating {:.0} [{:.0} to {:.0}]", x.value, x.low, x.high));
        }
        r.score
            .map(|s| format!("mean {:.2} [{:.2} to {:.2}]", s.mean, s.ci95[0], s.ci95[1]))
    };
    let mut out = Vec::new();
    for pair in rows.windows(2).take(8) {
        let (a, b) = (&pair[0], &pair[1]);
        let (Some(at), Some(bt)) = (shown(a), shown(b)) else {
            continue;
        };
        // Ratings are judged by their difference, which the shown intervals
        // (each anchored on the field) do not give: say it.
        let apart = match (&a.rating, &b.rating) {
            (Some(x), Some(y)) => x
                .difference(y)
                .map(|(d, se)| format!(", {d:+.0} Elo apart, ±{:.0}", CLEAR_Z * se))
                .unwrap_or_default(),
            _ => String::new(),
        };
        if ahead(a, b) {
            out.push(format!(
                "{} is clearly ahead of {} ({at} against {bt}{apart}).",
                a.name, b.name
            ));
        } else {
            out.push(format!(
                "{} and {} are within noise of each other ({at} against {bt}{apart}): these games cannot tell them apart.",
                a.name, b.name
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::fit::{Fit, Fitted};
    use super::*;

    fn row(rank: usize, fit: &std::sync::Arc<Fit>) -> Standing {
        let f = fit.ratings[rank - 1];
        Standing {
            rank,
            tier: 0,
            name: format!("bot{rank}"),
            sha256: None,
            games: 8,
            wins: 0,
            draws: 0,
            losses: 0,
            points: 0.0,
            match_points: None,
            score: None,
            mean_position: None,
            rating: Some(Rating {
                value: f.elo,
                low: f.low,
                high: f.high,
                system: "bradley-terry",
                index: rank - 1,
                fit: fit.clone(),
            }),
            placement: None,
            forfeits: BTreeMap::new(),
        }
    }

    #[test]
    fn a_chain_of_overlaps_does_not_group_a_clear_winner_with_a_clear_loser() {
        // The middle bot overlaps both neighbours; first and last do not
        // overlap (independent ratings: a difference is clear exactly
        // when the 95% intervals of equal standard errors do not overlap).
        let rated = |elo: f64, se: f64| Fitted {
            elo,
            se,
            low: elo - 1.96 * se,
            high: elo + 1.96 * se,
            played: true,
            anchor: true,
        };
        let fit = std::sync::Arc::new(Fit::independent(vec![
            rated(1898.0, 186.0),
            rated(1500.0, 186.0),
            rated(1102.0, 186.0),
        ]));
        let mut rows = vec![row(1, &fit), row(2, &fit), row(3, &fit)];
        set_tiers(&mut rows);
        assert_eq!(rows.iter().map(|r| r.tier).collect::<Vec<_>>(), [1, 1, 3]);
        assert_eq!(
            (rank_text(&rows, 0), rank_text(&rows, 2)),
            ("=1".to_string(), "3".to_string())
        );
        // Beyond noise: only the first is clearly ahead of the last.
        assert_eq!(
            (0..3).map(|i| rank_beyond_noise(&rows, i)).collect::<Vec<_>>(),
            [1, 1, 2]
        );
    }

    /// Rows of the standings for the ratings of `fit`, in rating order, tiered.
    fn ranked(fit: &std::sync::Arc<Fit>) -> Vec<Standing> {
        let mut order: Vec<usize> = (0..fit.ratings.len()).collect();
        order.sort_by(|&a, &b| fit.ratings[b].elo.total_cmp(&fit.ratings[a].elo));
        let mut rows: Vec<Standing> = order
            .iter()
            .enumerate()
            .map(|(place, &i)| {
                let mut r = row(i + 1, fit);
                r.rank = place + 1;
                r
            })
            .collect();
        set_tiers(&mut rows);
        rows
    }

    #[test]
    fn a_bot_that_forfeits_every_game_moves_no_tier_or_rank_for_points() {
        // Six bots, two pairs of equals, 40 games a pairing drawn from the
        // model; then the same games and a seventh bot that lost 40 to each.
        use super::super::fit::{FitGame, PRIOR_DRAWS, fit};
        use rand::{Rng, SeedableRng};
        let strengths = [0.0, 0.0, -150.0, -150.0, -300.0, -700.0];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut games = Vec::new();
        for a in 0..6 {
            for b in a + 1..6 {
                let p = 1.0 / (1.0 + 10f64.powf((strengths[b] - strengths[a]) / 400.0));
                for _ in 0..40 {
                    let score = f64::from(u8::from(rng.random_bool(p)));
                    games.push(FitGame::Duel { a, b, score });
                }
            }
        }
        let six = std::sync::Arc::new(fit(6, &games, PRIOR_DRAWS));
        for a in 0..6 {
            games.extend(std::iter::repeat_n(FitGame::Duel { a: 6, b: a, score: 0.0 }, 40));
        }
        let seven = std::sync::Arc::new(fit(7, &games, PRIOR_DRAWS));
        let (before, after) = (ranked(&six), ranked(&seven));
        assert_eq!(after[6].name, "bot7", "the broken bot is last");
        let tiers = |rows: &[Standing]| {
            rows.iter()
                .take(6)
                .map(|r| (r.name.clone(), r.tier))
                .collect::<Vec<_>>()
        };
        assert_eq!(tiers(&before), tiers(&after));
        let points = |rows: &[Standing]| (0..6).map(|i| rank_beyond_noise(rows, i)).collect::<Vec<_>>();
        assert_eq!(points(&before), points(&after));
        // Not every bot shares one tier: the games separate some of them,
        // so the equality above is not that of an all-equal field.
        assert!(before.iter().any(|r| r.tier > 1), "{:?}", tiers(&before));
        assert!(
            rank_beyond_noise(&after, 6) > 1,
            "someone is clearly ahead of the broken bot"
        );
    }
}
