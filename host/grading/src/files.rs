//! The names of what the arena writes into a results folder. Grading
//! reads a class folder that may hold an earlier run's results, so it must
//! know these names as well as the reports that write them.

/// The report page, inside the `--out` folder.
pub const INDEX: &str = "index.html";
/// The folder of replay pages, inside the `--out` folder.
pub const REPLAYS: &str = "replays";
/// The gradebook `grade-class` writes.
pub const GRADEBOOK_FILE: &str = "gradebook.csv";
/// The class tournament's standings `grade-class` writes.
pub const TOURNAMENT_FILE: &str = "tournament.txt";
/// The grade file Canvas imports.
pub const CANVAS_GRADES: &str = "grades-canvas.csv";
/// The grade file Moodle imports.
pub const MOODLE_GRADES: &str = "grades-moodle.csv";
