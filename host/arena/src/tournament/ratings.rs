//! Ratings from every game: Glicko-2 for two-player games, Weng-Lin for
//! tables of more, both from the `skillratings` crate.

use super::MatchRecord;
use super::standings::Rating;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, confidence_interval, glicko2};
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};
use skillratings::{MultiTeamOutcome, Outcomes};

/// Glicko-2 over every game in match order: a rating and its 95% interval per bot.
pub fn glicko(n: usize, matches: &[MatchRecord]) -> Vec<Rating> {
    let config = Glicko2Config::new();
    let mut r = vec![Glicko2Rating::new(); n];
    for m in matches {
        for g in &m.results {
            let [a, b] = [m.bots[g.seats[0]], m.bots[g.seats[1]]];
            let outcome = match g.winner {
                Some(0) => Outcomes::WIN,
                Some(_) => Outcomes::LOSS,
                None => Outcomes::DRAW,
            };
            let (na, nb) = glicko2(&r[a], &r[b], &outcome, &config);
            r[a] = na;
            r[b] = nb;
        }
    }
    r.iter()
        .map(|x| {
            let (low, high) = confidence_interval(x);
            Rating {
                value: x.rating,
                low,
                high,
                system: "glicko-2",
            }
        })
        .collect()
}

/// Weng-Lin over every game's finishing positions: a rating and its 95% interval per bot.
pub fn weng_lin(n: usize, matches: &[MatchRecord]) -> Vec<Rating> {
    let config = WengLinConfig::new();
    let mut r = vec![WengLinRating::new(); n];
    for m in matches {
        for g in &m.results {
            let Some(positions) = &g.positions else { continue };
            let teams: Vec<[WengLinRating; 1]> = g.seats.iter().map(|&s| [r[m.bots[s]]]).collect();
            let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
                .iter()
                .zip(positions)
                .map(|(t, &p)| (&t[..], MultiTeamOutcome::new(p as usize)))
                .collect();
            let out = weng_lin_multi_team(&input, &config);
            for (seat, team) in out.iter().enumerate() {
                if let Some(&new) = team.first() {
                    r[m.bots[g.seats[seat]]] = new;
                }
            }
        }
    }
    r.iter()
        .map(|x| Rating {
            value: x.rating,
            low: x.rating - 1.96 * x.uncertainty,
            high: x.rating + 1.96 * x.uncertainty,
            system: "weng-lin",
        })
        .collect()
}
