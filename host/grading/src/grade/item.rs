//! One rubric item graded: its match played, each game folded into one
//! number per deal (or per game) as it is played, the estimate and its
//! verdict in words, and the digest of every outcome that tells whether a
//! submission plays like a house bot.

use super::{Conduct, Grader, Item, ItemResult, Measure, house};
use arena_runner::runner::{Entrant, GameResult, MatchSpec, SetupError, play_match};
use arena_runner::stats::{Estimate, estimate};
use sha2::{Digest, Sha256};
use std::ops::ControlFlow;

/// How every game of a match ended, by seat (scores, winner, positions),
/// folded in game order into one SHA-256: two bots play alike in an item
/// when its digests are equal. A digest, not the list, so that grading
/// holds no memory per game.
#[derive(Default)]
struct Outcomes(Sha256);

impl Outcomes {
    fn add(&mut self, r: &GameResult) {
        let h = &mut self.0;
        h.update((r.scores.len() as u64).to_le_bytes());
        for s in &r.scores {
            h.update(s.to_le_bytes());
        }
        match r.winner {
            Some(w) => {
                h.update([1]);
                h.update((w as u64).to_le_bytes());
            }
            None => h.update([0]),
        }
        match &r.positions {
            Some(p) => {
                h.update([1]);
                h.update((p.len() as u64).to_le_bytes());
                for x in p {
                    h.update(x.to_le_bytes());
                }
            }
            None => h.update([0]),
        }
    }

    fn digest(self) -> [u8; 32] {
        self.0.finalize().into()
    }
}

/// An item graded: its result, its worst game (badness, index), and the
/// digest of its games' outcomes (none for an item the class tournament grades).
type GradedItem = (ItemResult, Option<(f64, usize)>, Option<[u8; 32]>);

/// The digest of how every game of a match ended ([`Outcomes`]), played
/// without keeping its games.
fn outcomes(spec: &MatchSpec<'_>) -> Result<[u8; 32], SetupError> {
    let mut outcomes = Outcomes::default();
    play_match(spec, |played| {
        outcomes.add(&played.result);
        ControlFlow::Continue(())
    })?;
    Ok(outcomes.digest())
}

impl Grader<'_> {
    /// The house bot that, in the submission's seat, plays every game of
    /// every item to the same result: the submission plays like it.
    pub(super) fn plays_like(&self, games: &[(usize, [u8; 32])]) -> Result<Option<String>, SetupError> {
        if games.is_empty() {
            return Ok(None);
        }
        'house: for (name, _) in self.game.house_bots() {
            let bot = house(&format!("house:{name}"));
            for (index, mine) in games {
                let item = &self.rubric.items[*index];
                if outcomes(&self.item_spec(*index, &bot, &item.against))? != *mine {
                    continue 'house;
                }
            }
            return Ok(Some(format!("house:{name}")));
        }
        Ok(None)
    }

    /// Grade one item: its match played, each game folded in as it ends.
    /// Each game is counted by `meter`, which stops the item past the budget.
    pub(super) fn grade_item(
        &self,
        index: usize,
        item: &Item,
        me: &Entrant,
        meter: &super::budget::Meter<'_>,
    ) -> Result<GradedItem, SetupError> {
        let mut result = ItemResult {
            name: item.name.clone(),
            measure: item.measure,
            against: item.against.iter().chain(&item.baseline).cloned().collect(),
            value: None,
            ci95: None,
            games: 0,
            points: 0.0,
            max_points: item.max_points(),
            visible: item.visible,
            visibility: item.visibility,
            status: "graded",
            note: String::new(),
            forfeit_games: Vec::new(),
            sample_game: None,
            conduct: None,
        };
        if item.measure == Measure::ClassPercentile {
            result.status = "pending";
            result.note = "graded by the class tournament (grade-class --tournament)".into();
            return Ok((result, None, None));
        }
        let spec = self.item_spec(index, me, &item.against);
        let mut games = ItemGames::new(item.measure);
        let report = meter.play(&spec, |played| games.add(&played.result))?;
        games.end_deal();
        result.conduct = report.bots.first().map(Conduct::of);
        let samples = self.less_baseline(index, item, games.by_deal, std::mem::take(&mut games.samples))?;
        let e = item_estimate(item.measure, &samples, spec.entrants.len());
        result.games = games.games;
        result.forfeit_games = games.forfeit_games;
        result.value = Some(e.mean);
        result.ci95 = Some(e.ci95);
        result.points = item.points(e.mean);
        result.note = verdict(item, &e, games.games);
        result.sample_game = games.worst.map(|(_, g)| g);
        Ok((result, games.worst, Some(games.digest.digest())))
    }

    /// An item scored against a house baseline (not by deal): each game's
    /// score less the baseline's in the same deal and seat.
    fn less_baseline(
        &self,
        index: usize,
        item: &Item,
        by_deal: bool,
        samples: Vec<f64>,
    ) -> Result<Vec<f64>, SetupError> {
        let (false, Some(b)) = (by_deal, &item.baseline) else {
            return Ok(samples);
        };
        let mut k = 0;
        let mut less = Vec::with_capacity(samples.len());
        play_match(&self.item_spec(index, &house(b), &[]), |played| {
            if let Some(own) = samples.get(k) {
                less.push(own - played.result.scores[0] as f64);
            }
            k += 1;
            ControlFlow::Continue(())
        })?;
        Ok(less)
    }
}

/// What an item's games leave behind as they are played: one number per
/// deal (or per game), never the games themselves.
struct ItemGames {
    measure: Measure,
    /// Whether a sample is a deal's mean (a rate or a position: the deal
    /// is the independent unit) rather than one game's value.
    by_deal: bool,
    samples: Vec<f64>,
    /// The values of the deal being played.
    deal: Vec<f64>,
    /// The submission's worst game: how bad, and its index (the one shown).
    worst: Option<(f64, usize)>,
    digest: Outcomes,
    games: usize,
    /// Games in which the submission forfeited, by index.
    forfeit_games: Vec<usize>,
}

impl ItemGames {
    fn new(measure: Measure) -> ItemGames {
        ItemGames {
            measure,
            by_deal: matches!(measure, Measure::WinRate | Measure::MeanPosition),
            samples: Vec::new(),
            deal: Vec::new(),
            worst: None,
            digest: Outcomes::default(),
            games: 0,
            forfeit_games: Vec::new(),
        }
    }

    /// One game, in game order.
    fn add(&mut self, r: &GameResult) {
        self.games += 1;
        self.digest.add(r);
        if r.forfeits.iter().any(|f| r.seats[f.seat] == 0) {
            self.forfeit_games.push(r.index);
        }
        if let Some(b) = badness(self.measure, r)
            && self.worst.is_none_or(|(w, _)| b > w)
        {
            self.worst = Some((b, r.index));
        }
        if self.by_deal {
            self.deal.push(value(self.measure, r));
            if self.deal.len() == arena_runner::runner::seat_orders(r.seats.len().max(1)) {
                self.end_deal();
            }
        } else {
            self.samples.push(value(self.measure, r));
        }
    }

    /// The deal being played ends (at the last game, even if cut short).
    fn end_deal(&mut self) {
        if !self.deal.is_empty() {
            self.samples.push(deal_mean(&self.deal));
            self.deal.clear();
        }
    }
}

/// The seat the submission (entrant 0) played in.
fn mine(r: &GameResult) -> usize {
    r.seats.iter().position(|&b| b == 0).unwrap_or(0)
}

/// A game's sample: a win (1, a draw 0.5), a position, or a score.
fn value(measure: Measure, r: &GameResult) -> f64 {
    match measure {
        Measure::WinRate => score_of_win(r, mine(r)),
        Measure::MeanPosition => r.positions.as_ref().map_or(f64::NAN, |p| f64::from(p[mine(r)])),
        _ => r.scores[0] as f64,
    }
}

/// How bad a game was for the submission (its worst game is the one shown);
/// `None` for a game that was not bad (a duel not lost).
fn badness(measure: Measure, r: &GameResult) -> Option<f64> {
    match measure {
        Measure::WinRate => {
            let s = mine(r);
            (r.winner.is_some_and(|w| w != s)).then(|| (r.scores[1 - s] - r.scores[s]) as f64 + 1000.0)
        }
        Measure::MeanPosition => r.positions.as_ref().map(|p| f64::from(p[mine(r)])),
        _ => Some(-(r.scores[0] as f64)),
    }
}

/// The estimate of an item's samples: a rate with the Wilson interval
/// over the deals (the independent unit), which keeps its width at 0%,
/// 100% and at a tie; a position's interval within 1 to the table's `seats`.
fn item_estimate(measure: Measure, samples: &[f64], seats: usize) -> Estimate {
    let mut e = estimate(samples);
    if measure == Measure::WinRate {
        e.ci95 = arena_runner::stats::wilson(e.mean, samples.len());
    }
    if measure == Measure::MeanPosition {
        let seats = seats as f64;
        e.ci95 = [e.ci95[0].clamp(1.0, seats), e.ci95[1].clamp(1.0, seats)];
    }
    e
}

fn score_of_win(r: &GameResult, seat: usize) -> f64 {
    match r.winner {
        Some(w) if w == seat => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    }
}

/// The mean of one deal's games (one per seat order): the deal is the independent unit.
fn deal_mean(deal: &[f64]) -> f64 {
    deal.iter().sum::<f64>() / deal.len() as f64
}

fn verdict(item: &Item, e: &Estimate, games: usize) -> String {
    let fmt = |x: f64| match item.measure {
        Measure::WinRate => format!("{:.1}%", 100.0 * x),
        _ => format!("{x:.2}"),
    };
    let tie = if item.measure == Measure::WinRate && e.mean == 0.5 {
        "a tie: "
    } else {
        ""
    };
    let interval = if item.measure == Measure::WinRate {
        "95% Wilson CI"
    } else {
        "95% CI"
    };
    let mut note = format!(
        "{tie}{} ({interval} {} to {}) over {games} games",
        fmt(e.mean),
        fmt(e.ci95[0]),
        fmt(e.ci95[1])
    );
    let lower = item.measure.lower_is_better();
    let missed: Vec<String> = item
        .thresholds
        .iter()
        .filter(|t| t.strict && e.mean == t.at)
        .map(|t| t.describe(lower))
        .collect();
    if !missed.is_empty() {
        note.push_str(&format!(
            "; exactly at the threshold, which must be beaten ({}): no points for equal",
            missed.join(", ")
        ));
    }
    // Strictly inside: an exact result (a zero-width interval) is not a close call.
    let close: Vec<String> = item
        .thresholds
        .iter()
        .filter(|t| e.ci95[0] < t.at && t.at < e.ci95[1])
        .map(|t| fmt(t.at))
        .collect();
    if !close.is_empty() {
        let (what, lie) = if close.len() == 1 {
            ("threshold", "lies")
        } else {
            ("thresholds", "lie")
        };
        // Every deal split evenly: a copy of its opponent does exactly that,
        // and no number of games breaks its tie.
        let settle = if item.measure == Measure::WinRate && e.sd == 0.0 && e.mean == 0.5 && e.n > 1 {
            "every deal was split evenly, as a bot that plays exactly like its opponent always does, however many games"
        } else {
            // Said to students too (on the course server): a fact about
            // the games, never a flag of the teacher's to reach for.
            "the games played cannot tell which side of it the bot is on"
        };
        note.push_str(&format!(
            "; too close to call: the {what} {} {lie} inside the interval; {settle}",
            close.join(", ")
        ));
    }
    note
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(at: f64) -> Item {
        Item {
            name: "Beats x".into(),
            measure: Measure::WinRate,
            against: vec!["house:x".into()],
            baseline: None,
            visible: true,
            visibility: None,
            thresholds: vec![crate::grade::rubric::Threshold {
                at,
                strict: true,
                points: 10.0,
            }],
        }
    }

    #[test]
    fn a_close_call_says_whether_more_games_can_settle_it() {
        // A win rate over deals, with its Wilson interval as grading gives it.
        let rate = |deals: &[f64]| {
            let e = estimate(deals);
            Estimate {
                ci95: arena_runner::stats::wilson(e.mean, deals.len()),
                ..e
            }
        };
        // Five deals, each split evenly: as a copy of the opponent plays.
        let note = verdict(&item(0.5), &rate(&[0.5; 5]), 10);
        assert!(note.contains("the threshold 50.0% lies inside"), "{note}");
        assert!(note.contains("however many games"), "{note}");
        // Five deals, each won: the same spread of 0, but more games narrow it.
        let note = verdict(&item(0.75), &rate(&[1.0; 5]), 10);
        assert!(
            note.contains("the games played cannot tell which side of it the bot is on") && !note.contains("--games"),
            "{note}"
        );
    }
}
