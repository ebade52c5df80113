//! Rubrics: what a submission is measured on and how measures become points.
//!
//! A rubric is a TOML file (see `docs/grading.md`); each game ships a
//! default in `host/src/grade/rubrics/`.

use super::gradescope::{self, Column, ErrAt, RawSettings, Source, Visibility};
use arena_core::IllegalMoves;
use arena_runner::runner::GameDef;
use serde::{Deserialize, Serialize};
use toml::Spanned;

/// What an item measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Measure {
    /// Two-player games: share of deals won against `against` (a draw counts half). Higher is better.
    WinRate,
    /// Solitaires: mean score per game, or with a baseline the mean of (score - baseline's score) on the same decks. Higher is better.
    MeanScore,
    /// Games of more than two players: mean finishing position at a table with `against`. Lower is better.
    MeanPosition,
    /// The class tournament of `grade-class --tournament`: 1 for the winner, 0 for last place. Higher is better.
    ClassPercentile,
}

impl Measure {
    const NAMES: [(&'static str, Measure); 4] = [
        ("win-rate", Measure::WinRate),
        ("mean-score", Measure::MeanScore),
        ("mean-position", Measure::MeanPosition),
        ("class-percentile", Measure::ClassPercentile),
    ];

    /// Whether a lower value is better.
    pub fn lower_is_better(self) -> bool {
        self == Measure::MeanPosition
    }
}

/// A value at or beyond `at` (strictly beyond when `strict`) earns `points`
/// (the best threshold reached counts). Rubrics write `at = X` (inclusive),
/// `above = X` (strictly more, for measures where higher is better) or
/// `below = X` (strictly less, where lower is better).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Threshold {
    /// The value to reach (at least, or at most for lower-is-better measures).
    pub at: f64,
    /// Whether the value must go strictly beyond `at`: "beats" means better, not equal.
    pub strict: bool,
    /// Points for reaching it.
    pub points: f64,
}

impl Threshold {
    /// Whether `value` reaches this threshold of a measure where lower is better or not.
    pub fn reached(&self, value: f64, lower_is_better: bool) -> bool {
        match (lower_is_better, self.strict) {
            (false, false) => value >= self.at,
            (false, true) => value > self.at,
            (true, false) => value <= self.at,
            (true, true) => value < self.at,
        }
    }

    /// The threshold as a rubric writes it: `at 0.5`, `above 0.5`, `below 2.5`.
    pub fn describe(&self, lower_is_better: bool) -> String {
        match (self.strict, lower_is_better) {
            (false, _) => format!("at {}", self.at),
            (true, false) => format!("above {}", self.at),
            (true, true) => format!("below {}", self.at),
        }
    }
}

/// A threshold as written: exactly one of `at`, `above`, `below`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawThreshold {
    #[serde(default)]
    at: Option<f64>,
    #[serde(default)]
    above: Option<f64>,
    #[serde(default)]
    below: Option<f64>,
    points: f64,
}

/// One checked rubric item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Item {
    /// Shown to students and in the gradebook.
    pub name: String,
    /// What is measured.
    pub measure: Measure,
    /// The opponents: one for two-player games, the rest of the table for more.
    pub against: Vec<String>,
    /// Solitaires: the house bot whose score on the same decks is subtracted.
    pub baseline: Option<String>,
    /// Whether students ever see this item (its Gradescope visibility, or
    /// the rubric's, is not `hidden`).
    pub visible: bool,
    /// Its own Gradescope visibility (`visible = false` is `hidden`); none: the rubric's.
    pub visibility: Option<Visibility>,
    /// Value thresholds and their points.
    pub thresholds: Vec<Threshold>,
}

impl Item {
    /// The most points this item gives.
    pub fn max_points(&self) -> f64 {
        self.thresholds.iter().map(|t| t.points).fold(0.0, f64::max)
    }

    /// Points for a measured value.
    pub fn points(&self, value: f64) -> f64 {
        self.thresholds
            .iter()
            .filter(|t| t.reached(value, self.measure.lower_is_better()))
            .map(|t| t.points)
            .fold(0.0, f64::max)
    }
}

/// A checked rubric.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rubric {
    /// The game it grades.
    pub game: String,
    /// The seed every student's games are dealt from.
    pub seed: u64,
    /// Games per item.
    pub games: usize,
    /// What an illegal move costs: `illegal = "forfeit"` makes any illegal
    /// move forfeit the game; by default the course's rule for the game.
    pub illegal: IllegalMoves,
    /// The items.
    pub items: Vec<Item>,
    /// The most fuel one submission may use over its whole grading (its
    /// smoke game, every item's games and, on the course server, its check):
    /// `grading_minutes` of the reference machine, 15 by default
    /// ([`super::budget`]); past it the grading stops and says why.
    pub grading_fuel: u64,
    /// Gradescope's visibility settings and leaderboard (`[gradescope]`).
    pub gradescope: gradescope::Settings,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRubric {
    game: Spanned<String>,
    #[serde(default = "default_seed")]
    seed: u64,
    #[serde(default)]
    games: Option<usize>,
    #[serde(default)]
    illegal: IllegalMoves,
    #[serde(default)]
    grading_minutes: Option<Spanned<f64>>,
    #[serde(rename = "item")]
    items: Vec<Spanned<RawItem>>,
    #[serde(default)]
    gradescope: Option<gradescope::RawSettings>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawItem {
    name: Spanned<String>,
    measure: Spanned<String>,
    #[serde(default)]
    against: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    baseline: Option<Spanned<String>>,
    #[serde(default)]
    visible: Option<Spanned<bool>>,
    #[serde(default)]
    visibility: Option<Spanned<String>>,
    thresholds: Spanned<Vec<Spanned<RawThreshold>>>,
}

/// Why a threshold can never be reached by its measure (`players` at the
/// table for mean positions), or `None` when it can.
fn unreachable(measure: Measure, t: &Threshold, players: usize) -> Option<String> {
    let at = t.at;
    match measure {
        Measure::WinRate | Measure::ClassPercentile => {
            let what = if measure == Measure::WinRate {
                "a win rate"
            } else {
                "a class percentile"
            };
            if !at.is_finite() || at > 1.0 || (t.strict && at >= 1.0) {
                let hint = if at > 1.0 && at <= 100.0 {
                    format!(" ({at}% is {})", at / 100.0)
                } else {
                    String::new()
                };
                Some(format!("{what} is a share from 0 to 1{hint}"))
            } else if at < 0.0 {
                Some(format!(
                    "{what} is a share from 0 to 1; a negative threshold gives everyone the points"
                ))
            } else {
                None
            }
        }
        Measure::MeanPosition => {
            let last = players as f64;
            if !at.is_finite() || at < 1.0 || (t.strict && at <= 1.0) {
                Some("a mean position is 1 (always first) or more".to_string())
            } else if at > last {
                Some(format!(
                    "at a table of {players} a mean position is at most {players}; a threshold above it gives everyone the points"
                ))
            } else {
                None
            }
        }
        Measure::MeanScore => (!at.is_finite()).then(|| "the threshold must be a number".to_string()),
    }
}

/// A TOML or serde message in a teacher's words: `invalid type: string
/// "50%", expected f64` becomes `a number is needed here, not the text "50%"
/// (50% is 0.5)`.
fn plain_words(message: &str) -> String {
    let message = message.trim();
    let Some(rest) = message.strip_prefix("invalid type: ") else {
        return message.to_string();
    };
    let Some((found, expected)) = rest.split_once(", expected ") else {
        return message.to_string();
    };
    let needed = match expected {
        "f64" | "f32" => "a number",
        "u64" | "u32" | "usize" | "i64" | "i32" => "a whole number",
        "a boolean" => "`true` or `false`",
        "a string" => "text in quotes",
        "a sequence" => "a list in brackets, [ ... ]",
        other => other,
    };
    let found = match found.strip_prefix("string ") {
        Some(text) => format!("the text {text}"),
        None => found.to_string(),
    };
    let hint = found
        .strip_prefix("the text \"")
        .and_then(|t| t.strip_suffix("%\""))
        .and_then(|t| t.parse::<f64>().ok())
        .map_or(String::new(), |p| format!(" ({p}% is {})", p / 100.0));
    format!("{needed} is needed here, not {found}{hint}")
}

fn default_seed() -> u64 {
    2026
}

/// Games per item when neither the rubric nor `--games` says.
pub const DEFAULT_GAMES: usize = 200;

fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// Parse and check a rubric for `game`. Errors name the file and the line.
pub fn parse(text: &str, file: &str, game: &dyn GameDef) -> Result<Rubric, String> {
    let raw: RawRubric = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(1);
        format!("{file} line {line}: {}", plain_words(e.message()))
    })?;
    let err = |span: std::ops::Range<usize>, msg: String| format!("{file} line {}: {msg}", line_of(text, span.start));
    if raw.game.get_ref() != game.name() {
        return Err(err(
            raw.game.span(),
            format!("this rubric is for `{}`, not `{}`", raw.game.get_ref(), game.name()),
        ));
    }
    let mut settings = gradescope::visibilities(raw.gradescope.as_ref(), &err)?;
    let mut items = Vec::with_capacity(raw.items.len());
    for spanned in raw.items {
        let item = parse_item(spanned, &items, game, settings.visibility, &err)?;
        items.push(item);
    }
    if items.is_empty() {
        return Err(format!("{file}: the rubric has no [[item]]"));
    }
    settings.leaderboard = leaderboard(raw.gradescope, &items, settings.visibility, &err)?;
    if let Some(g) = raw.games
        && !(1..=arena_runner::runner::MAX_GAMES).contains(&g)
    {
        return Err(format!(
            "{file}: `games = {g}` must be between 1 and {}",
            arena_runner::runner::MAX_GAMES
        ));
    }
    let grading_fuel = match &raw.grading_minutes {
        None => super::budget::DEFAULT_FUEL,
        Some(m) if m.get_ref().is_finite() && *m.get_ref() > 0.0 && *m.get_ref() <= 100_000.0 => {
            (m.get_ref() * 60.0 * super::budget::FUEL_PER_SECOND as f64).round() as u64
        }
        Some(m) => {
            return Err(err(
                m.span(),
                format!(
                    "`grading_minutes = {}` must be more than 0 (minutes of one core's work a submission's grading may use)",
                    m.get_ref()
                ),
            ));
        }
    };
    Ok(Rubric {
        game: game.name().to_string(),
        seed: raw.seed,
        games: raw.games.unwrap_or(DEFAULT_GAMES),
        illegal: raw.illegal,
        items,
        grading_fuel,
        gradescope: settings,
    })
}

/// One `[[item]]` of a rubric for `game`, checked; `items` are those before it.
fn parse_item(
    spanned: Spanned<RawItem>,
    items: &[Item],
    game: &dyn GameDef,
    top: Option<Visibility>,
    err: gradescope::ErrAt<'_>,
) -> Result<Item, String> {
    let item_span = spanned.span();
    let raw_item = spanned.into_inner();
    // The gradebook has a column per item and the leaderboard names items: one name each.
    if items.iter().any(|i: &Item| i.name == *raw_item.name.get_ref()) {
        return Err(err(
            raw_item.name.span(),
            format!(
                "two items are named `{}`; give each its own name (it heads a gradebook column)",
                raw_item.name.get_ref()
            ),
        ));
    }
    let measure_name = raw_item.measure.get_ref().as_str();
    let measure = measure_for(&raw_item.measure, game, err)?;
    let against: Vec<String> = match &raw_item.against {
        Some(a) => {
            for bot in a.get_ref() {
                check_bot(bot, a.span(), game, err)?;
            }
            a.get_ref().clone()
        }
        None => Vec::new(),
    };
    check_against(&raw_item, &item_span, measure, game, against.len(), err)?;
    let baseline = match &raw_item.baseline {
        Some(b) if measure != Measure::MeanScore => {
            return Err(err(b.span(), "`baseline` only goes with measure `mean-score`".into()));
        }
        Some(b) => {
            check_bot(b.get_ref(), b.span(), game, err)?;
            Some(b.get_ref().clone())
        }
        None => None,
    };
    if raw_item.thresholds.get_ref().is_empty() {
        return Err(err(
            raw_item.thresholds.span(),
            "an item needs at least one threshold".into(),
        ));
    }
    let mut thresholds = Vec::new();
    for spanned in raw_item.thresholds.get_ref() {
        thresholds.push(threshold(spanned, measure, measure_name, against.len() + 1, err)?);
    }
    let visibility = item_visibility(&raw_item, err)?;
    let shown = visibility.or(top).unwrap_or(Visibility::Visible);
    Ok(Item {
        name: raw_item.name.into_inner(),
        measure,
        against,
        baseline,
        visible: shown != Visibility::Hidden,
        visibility,
        thresholds,
    })
}

/// Whether `bot` is one of `game`'s house bots, as a rubric names them (`house:NAME`).
fn check_bot(
    bot: &str,
    span: std::ops::Range<usize>,
    game: &dyn GameDef,
    err: gradescope::ErrAt<'_>,
) -> Result<(), String> {
    let house: Vec<&str> = game.house_bots().iter().map(|(n, _)| *n).collect();
    match bot.strip_prefix("house:") {
        Some(name) if house.contains(&name) => Ok(()),
        _ => Err(err(
            span,
            format!(
                "unknown bot `{bot}`; use one of: {}",
                house
                    .iter()
                    .map(|h| format!("house:{h}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// Whether an item has as many bots in `against` (`count`) as its measure needs.
fn check_against(
    raw_item: &RawItem,
    item_span: &std::ops::Range<usize>,
    measure: Measure,
    game: &dyn GameDef,
    count: usize,
    err: gradescope::ErrAt<'_>,
) -> Result<(), String> {
    let seats = game.seats();
    let measure_name = raw_item.measure.get_ref().as_str();
    let needed = match measure {
        Measure::WinRate => Some(1..=1),
        Measure::MeanPosition => Some(seats.start() - 1..=seats.end() - 1),
        Measure::MeanScore | Measure::ClassPercentile => Some(0..=0),
    };
    if let Some(range) = needed
        && !range.contains(&count)
    {
        let span = raw_item.against.as_ref().map_or(item_span.clone(), Spanned::span);
        return Err(err(
            span,
            format!(
                "`{measure_name}` needs {} bot(s) in `against`, got {}",
                fmt_range(&range),
                count
            ),
        ));
    }
    Ok(())
}

/// An item's own visibility: `visible` or `visibility`, not both.
fn item_visibility(raw_item: &RawItem, err: gradescope::ErrAt<'_>) -> Result<Option<Visibility>, String> {
    Ok(match (&raw_item.visible, &raw_item.visibility) {
        (Some(v), Some(_)) => {
            return Err(err(
                v.span(),
                "give an item `visible` or `visibility`, not both (`visible = false` is `visibility = \"hidden\"`)"
                    .into(),
            ));
        }
        (Some(v), None) if *v.get_ref() => Some(Visibility::Visible),
        (Some(_), None) => Some(Visibility::Hidden),
        (None, Some(v)) => Some(gradescope::visibility(v, &err)?),
        (None, None) => None,
    })
}

/// One threshold of an item, checked: exactly one of `at`, `above` or
/// `below` (the one that fits the measure's direction), points of 0 or
/// more, and a value the measure can reach with `seats` bots at a table.
fn threshold(
    spanned: &Spanned<RawThreshold>,
    measure: Measure,
    measure_name: &str,
    seats: usize,
    err: gradescope::ErrAt<'_>,
) -> Result<Threshold, String> {
    // Each threshold's own line: a class ranking's spans several.
    let lower = measure.lower_is_better();
    let span = spanned.span();
    let t = spanned.get_ref();
    if !t.points.is_finite() || t.points < 0.0 {
        return Err(err(
            span,
            format!(
                "`points = {}`: points are a number, 0 or more (a penalty is a lower threshold's smaller points)",
                t.points
            ),
        ));
    }
    let threshold = match (t.at, t.above, t.below) {
        (Some(at), None, None) => Threshold {
            at,
            strict: false,
            points: t.points,
        },
        (None, Some(at), None) if !lower => Threshold {
            at,
            strict: true,
            points: t.points,
        },
        (None, None, Some(at)) if lower => Threshold {
            at,
            strict: true,
            points: t.points,
        },
        (None, Some(_), None) => {
            return Err(err(
                span,
                format!(
                    "`{measure_name}` is better when lower: write `below = X` (strictly less) or `at = X`, not `above`"
                ),
            ));
        }
        (None, None, Some(_)) => {
            return Err(err(
                span,
                format!(
                    "`{measure_name}` is better when higher: write `above = X` (strictly more) or `at = X`, not `below`"
                ),
            ));
        }
        _ => {
            return Err(err(
                span,
                "each threshold has exactly one of `at = X` (reached at X), `above = X` (strictly more) or `below = X` (strictly less), and `points`".into(),
            ));
        }
    };
    if let Some(why) = unreachable(measure, &threshold, seats) {
        return Err(err(
            span,
            format!("`{}` can never be reached: {why}", threshold.describe(lower)),
        ));
    }
    Ok(threshold)
}

/// An item's measure by its name, if it fits the game's seats (a win rate
/// for a duel, a mean score alone, a mean position at a table).
fn measure_for(raw: &Spanned<String>, game: &dyn GameDef, err: gradescope::ErrAt<'_>) -> Result<Measure, String> {
    let measure_name = raw.get_ref().as_str();
    let seats = game.seats();
    let Some(&(_, measure)) = Measure::NAMES.iter().find(|(n, _)| *n == measure_name) else {
        let names: Vec<&str> = Measure::NAMES.iter().map(|(n, _)| *n).collect();
        return Err(err(
            raw.span(),
            format!("unknown measure `{measure_name}`; measures are: {}", names.join(", ")),
        ));
    };
    let fits = match measure {
        Measure::WinRate => *seats.end() == 2,
        Measure::MeanScore => *seats.end() == 1,
        Measure::MeanPosition => *seats.end() > 2,
        Measure::ClassPercentile => true,
    };
    if !fits {
        let (kind, fitting) = match *seats.end() {
            1 => ("played alone", "mean-score or class-percentile"),
            2 => ("a two-player game", "win-rate or class-percentile"),
            _ => ("played at a table", "mean-position or class-percentile"),
        };
        let what = match measure {
            Measure::WinRate => "two-player games",
            Measure::MeanScore => "games played alone",
            _ => "games of more than two players",
        };
        return Err(err(
            raw.span(),
            format!(
                "measure `{measure_name}` is for {what}, and {} is {kind}: use {fitting}",
                game.name()
            ),
        ));
    }
    Ok(measure)
}

fn fmt_range(r: &std::ops::RangeInclusive<usize>) -> String {
    if r.start() == r.end() {
        r.start().to_string()
    } else {
        format!("{} to {}", r.start(), r.end())
    }
}

/// The leaderboard's columns, checked against the rubric's items. `overall`
/// is the whole result's visibility, which items without their own inherit.
fn leaderboard(
    raw: Option<RawSettings>,
    items: &[Item],
    overall: Option<Visibility>,
    err: ErrAt<'_>,
) -> Result<Vec<Column>, String> {
    let mut columns: Vec<Column> = Vec::new();
    for spanned in raw.map(|r| r.leaderboard).unwrap_or_default() {
        let span = spanned.span();
        let column = spanned.into_inner();
        let name = column.name.get_ref().trim().to_string();
        if name.is_empty() {
            return Err(err(column.name.span(), "a leaderboard column needs a `name`".into()));
        }
        if columns.iter().any(|c| c.name == name) {
            return Err(err(
                column.name.span(),
                format!("the leaderboard has two columns named `{name}`; give each its own name"),
            ));
        }
        let source = match (&column.item, &column.from) {
            (Some(item), None) => {
                let wanted = item.get_ref();
                let index = items.iter().position(|i| &i.name == wanted).ok_or_else(|| {
                    let names: Vec<String> = items.iter().map(|i| format!("`{}`", i.name)).collect();
                    err(
                        item.span(),
                        format!(
                            "unknown item `{wanted}` in the leaderboard; items are: {}",
                            names.join(", ")
                        ),
                    )
                })?;
                // Gradescope shows the leaderboard to students at once: a
                // column would tell them what the item's visibility keeps back.
                let shown = items[index].visibility.or(overall).unwrap_or(Visibility::Visible);
                if shown != Visibility::Visible {
                    return Err(err(
                        item.span(),
                        format!(
                            "the leaderboard would show students item `{wanted}`, whose visibility is `{}`; \
                             use an item they see (`visibility = \"visible\"`), or drop this column",
                            shown.as_str()
                        ),
                    ));
                }
                Source::Item(index)
            }
            (None, Some(from)) if from.get_ref() == "class-rating" => Source::ClassRating,
            (None, Some(from)) => {
                return Err(err(
                    from.span(),
                    format!(
                        "unknown leaderboard source `from = \"{}\"`; use `from = \"class-rating\"` or `item = \"<item name>\"`",
                        from.get_ref()
                    ),
                ));
            }
            _ => {
                return Err(err(
                    span,
                    "a leaderboard column takes exactly one of `item = \"<item name>\"` or `from = \"class-rating\"`"
                        .into(),
                ));
            }
        };
        columns.push(Column { name, source });
    }
    Ok(columns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena_runner::adapters;

    fn en_garde() -> &'static dyn GameDef {
        adapters::game("en-garde").unwrap()
    }

    #[test]
    fn every_default_rubric_parses_for_its_game() {
        for game in adapters::GAMES {
            let text = game.default_rubric();
            let r = parse(text, "default", *game).unwrap_or_else(|e| panic!("{e}"));
            assert!(!r.items.is_empty());
        }
    }

    #[test]
    fn points_take_the_best_threshold_reached() {
        let r = parse(en_garde().default_rubric(), "r", en_garde()).unwrap();
        let item = &r.items[0];
        assert_eq!(item.points(0.49), 0.0);
        // "Beats" is strict: a tie at 50% earns nothing.
        assert_eq!(item.points(0.5), 0.0);
        assert_eq!(item.points(0.51), 5.0);
        assert_eq!(item.points(0.8), 10.0);
        assert_eq!(item.max_points(), 10.0);
        let rank = &r.items[3];
        assert_eq!(
            (rank.points(0.0), rank.points(0.1), rank.points(0.6), rank.points(1.0)),
            (0.0, 2.0, 6.0, 10.0)
        );
    }

    #[test]
    fn lower_is_better_for_positions() {
        let p = adapters::game("president").unwrap();
        let r = parse(p.default_rubric(), "r", p).unwrap();
        assert_eq!(r.items[0].points(1.9), 10.0);
        assert_eq!(r.items[0].points(2.4), 5.0);
        assert_eq!(r.items[0].points(3.0), 0.0);
        // `below = 2.5`: exactly the 2.5 of a table of copies earns nothing.
        assert_eq!(r.items[0].points(2.5), 0.0);
    }

    #[test]
    fn errors_name_the_line() {
        let text = "game = \"en-garde\"\n\n[[item]]\nname = \"x\"\nmeasure = \"winrate\"\nagainst = [\"house:random\"]\nthresholds = [{ at = 0.5, points = 1 }]\n";
        let e = parse(text, "r.toml", en_garde()).unwrap_err();
        assert!(e.starts_with("r.toml line 5: unknown measure `winrate`"), "{e}");
        let text = text
            .replace("winrate", "win-rate")
            .replace("house:random", "house:nobody");
        let e = parse(&text, "r.toml", en_garde()).unwrap_err();
        assert!(e.starts_with("r.toml line 6: unknown bot `house:nobody`"), "{e}");
        // A measure the game lacks: the line, and the measures it has.
        let e = parse(&text.replace("win-rate", "mean-position"), "r.toml", en_garde()).unwrap_err();
        assert_eq!(
            e,
            "r.toml line 5: measure `mean-position` is for games of more than two players, \
             and en-garde is a two-player game: use win-rate or class-percentile"
        );
        let e = parse("game = \"en-garde\"\n[[item]\n", "r.toml", en_garde()).unwrap_err();
        assert!(e.starts_with("r.toml line 2:"), "{e}");
        let e = parse(adapters::game("sugar").unwrap().default_rubric(), "r.toml", en_garde()).unwrap_err();
        assert!(e.contains("line 4: this rubric is for `sugar`"), "{e}");
    }

    #[test]
    fn type_errors_are_said_in_plain_words() {
        let text = "game = \"en-garde\"\n[[item]]\nname = \"x\"\nmeasure = \"win-rate\"\nagainst = [\"house:random\"]\nthresholds = [{ above = \"50%\", points = 1 }]\n";
        let e = parse(text, "r.toml", en_garde()).unwrap_err();
        assert_eq!(
            e,
            "r.toml line 6: a number is needed here, not the text \"50%\" (50% is 0.5)"
        );
        let e = parse(
            &text.replace("\"50%\"", "0.5").replace("points = 1", "points = \"ten\""),
            "r.toml",
            en_garde(),
        )
        .unwrap_err();
        assert_eq!(e, "r.toml line 6: a number is needed here, not the text \"ten\"");
        assert_eq!(plain_words("missing field `name`"), "missing field `name`");
        let twice = format!("{text}[[item]]\nname = \"x\"\nmeasure = \"win-rate\"\nagainst = [\"house:cowardly\"]\nthresholds = [{{ above = 0.5, points = 1 }}]\n")
            .replace("\"50%\"", "0.5");
        let e = parse(&twice, "r.toml", en_garde()).unwrap_err();
        assert_eq!(
            e,
            "r.toml line 8: two items are named `x`; give each its own name (it heads a gradebook column)"
        );
    }

    #[test]
    fn a_threshold_of_several_lines_is_named_by_its_own_line_and_points_are_checked() {
        let text = "game = \"en-garde\"\n[[item]]\nname = \"Rank\"\nmeasure = \"class-percentile\"\nthresholds = [\n  { at = 0.5, points = 5 },\n  { at = 50, points = 9 },\n]\n";
        let e = parse(text, "r.toml", en_garde()).unwrap_err();
        assert!(
            e.starts_with(
                "r.toml line 7: `at 50` can never be reached: a class percentile is a share from 0 to 1 (50% is 0.5)"
            ),
            "{e}"
        );
        for bad in ["-5", "inf", "nan"] {
            let e = parse(
                &text.replace("at = 50, points = 9", &format!("at = 0.9, points = {bad}")),
                "r.toml",
                en_garde(),
            )
            .unwrap_err();
            assert!(e.starts_with("r.toml line 7: `points = "), "{bad}: {e}");
            assert!(e.contains("points are a number, 0 or more"), "{e}");
        }
    }
}
