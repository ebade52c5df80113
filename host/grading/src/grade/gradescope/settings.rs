//! The rubric's `[gradescope]` table: the visibility of the results, of each
//! test and of the autograder's output, and the leaderboard's columns.

use serde::{Deserialize, Serialize};
use std::ops::Range;
use toml::Spanned;

/// When students see a test, the whole result, or the autograder's stdout
/// (the spec's four values; Gradescope's default is `visible`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Never shown to students.
    Hidden,
    /// Shown after the due date (after the late due date when late submission is allowed).
    AfterDueDate,
    /// Shown once the assignment is published from "Review Grades".
    AfterPublished,
    /// Always shown.
    Visible,
}

impl Visibility {
    const NAMES: [(&'static str, Visibility); 4] = [
        ("hidden", Visibility::Hidden),
        ("after_due_date", Visibility::AfterDueDate),
        ("after_published", Visibility::AfterPublished),
        ("visible", Visibility::Visible),
    ];

    /// The spec's name of it.
    pub fn as_str(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(_, v)| *v == self)
            .map_or("visible", |(n, _)| n)
    }

    /// The value a rubric names; an error lists the allowed ones.
    fn parse(name: &str) -> Result<Visibility, String> {
        Self::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::NAMES.iter().map(|(n, _)| *n).collect();
                format!("unknown visibility `{name}`; use one of: {}", names.join(", "))
            })
    }
}

/// What a leaderboard column shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// The measured value of the rubric item at this index.
    Item(usize),
    /// The class tournament's fitted rating (its mean score for a solitaire), only in `grade-class --tournament`.
    ClassRating,
}

/// One leaderboard column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Column {
    /// The column's name on Gradescope.
    pub name: String,
    /// Where its value comes from.
    pub source: Source,
}

/// The rubric's `[gradescope]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Settings {
    /// The whole result's visibility (an item's own `visibility` overrides it).
    pub visibility: Option<Visibility>,
    /// When students see the autograder's stdout (by default only instructors do).
    pub stdout_visibility: Option<Visibility>,
    /// The leaderboard's columns; none: no leaderboard.
    pub leaderboard: Vec<Column>,
}

/// The `[gradescope]` table as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSettings {
    #[serde(default)]
    visibility: Option<Spanned<String>>,
    #[serde(default)]
    stdout_visibility: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) leaderboard: Vec<Spanned<RawColumn>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawColumn {
    pub(crate) name: Spanned<String>,
    #[serde(default)]
    pub(crate) item: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) from: Option<Spanned<String>>,
}

/// An error message naming the line of a span.
pub(crate) type ErrAt<'a> = &'a dyn Fn(Range<usize>, String) -> String;

/// A visibility as a rubric writes it.
pub(crate) fn visibility(raw: &Spanned<String>, err: ErrAt<'_>) -> Result<Visibility, String> {
    Visibility::parse(raw.get_ref()).map_err(|e| err(raw.span(), e))
}

/// The table's visibilities (needed before the items, which inherit them).
pub(crate) fn visibilities(raw: Option<&RawSettings>, err: ErrAt<'_>) -> Result<Settings, String> {
    let Some(raw) = raw else {
        return Ok(Settings::default());
    };
    Ok(Settings {
        visibility: raw.visibility.as_ref().map(|v| visibility(v, err)).transpose()?,
        stdout_visibility: raw.stdout_visibility.as_ref().map(|v| visibility(v, err)).transpose()?,
        leaderboard: Vec::new(),
    })
}
