//! Finding each student's bot in a class folder: a flat folder of `.wasm`
//! files, a folder per student, or the submission exports of Gradescope,
//! Canvas and Moodle (see `docs/grading.md`, "Class folders").
//!
//! Everything here reads untrusted names and trees: a folder that cannot be
//! read, holds no bot or several, becomes one student "without a usable
//! bot" with the reason, and the rest of the class is still found.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How a class folder is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// `.wasm` files, each named by its student, and/or a folder per student.
    Folders,
    /// Gradescope's "Download Submissions": `submission_metadata.yml` and a
    /// `submission_<id>` folder per submission.
    Gradescope,
    /// Canvas's "Download Submissions": files named
    /// `<name>[_late]_<user id>_<attachment id>_<file name>`.
    Canvas,
    /// Moodle's "Download all submissions": folders (or files) named
    /// `<Full Name>_<participant id>_assignsubmission_file_[<file name>]`.
    Moodle,
}

impl Layout {
    /// For people: what the folder was taken for.
    pub fn describe(self) -> &'static str {
        match self {
            Layout::Folders => "a folder of .wasm files and/or a folder per student",
            Layout::Gradescope => "a Gradescope export (submission_metadata.yml, a submission_<id> folder each)",
            Layout::Canvas => "a Canvas export (files named <name>_<user id>_<attachment id>_<file>)",
            Layout::Moodle => "a Moodle export (<Full Name>_<participant id>_assignsubmission_file_)",
        }
    }
}

/// The `.wasm` file chosen as a student's bot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    /// The file.
    pub path: PathBuf,
    /// Why this file, when the student's files held more than one (`None`: the only one).
    pub why: Option<String>,
}

/// One student of the class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    /// The name the gradebook shows, unique in the class.
    pub student: String,
    /// The identifier the LMS knows the student by: the Canvas user id, the
    /// Moodle participant id, the Gradescope SID (or submission id).
    pub id: Option<String>,
    /// The student's email, when the export gives it (Gradescope).
    pub email: Option<String>,
    /// A group's members, each graded with the group's bot (Gradescope group submissions).
    pub members: Vec<Member>,
    /// A folder and file name made from `student`, unique in the class.
    pub folder: String,
    /// Where the student's files were found.
    pub source: PathBuf,
    /// The bot, or why there is no usable one (a sentence naming the fix).
    pub bot: Result<Chosen, String>,
}

/// One member of a group submission.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Member {
    /// The name.
    pub name: String,
    /// The LMS's identifier.
    pub id: Option<String>,
    /// The email.
    pub email: Option<String>,
}

/// A class folder, read.
#[derive(Debug, Clone)]
pub struct Class {
    /// How it was laid out.
    pub layout: Layout,
    /// The folder actually read (an export unzipped into one folder is looked into).
    pub root: PathBuf,
    /// Every student, in the order of their names.
    pub submissions: Vec<Submission>,
    /// Entries that are no student's, each with why (one line each).
    pub skipped: Vec<String>,
}

/// Files looked at below one student's folder at most: a whole project
/// with its `target/` is fine, a file system is not.
const MAX_ENTRIES: usize = 20_000;
/// How deep a student's folder is searched.
const MAX_DEPTH: usize = 8;

/// Read a class folder: find its layout and each student's bot.
pub fn find(dir: &Path) -> std::io::Result<Class> {
    let root = unwrap_single_folder(dir)?;
    let names = entries(&root)?;
    if names.iter().any(|(n, _)| n == "submission_metadata.yml") {
        return Ok(gradescope(&root, &names));
    }
    if names.iter().any(|(n, _)| moodle_name(n).is_some()) {
        return Ok(moodle(&root, &names));
    }
    let canvas = names.iter().filter(|(n, _)| canvas_name(n).is_some()).count();
    if canvas > 0 && canvas * 2 >= names.iter().filter(|(n, _)| !n.starts_with('.')).count() {
        return Ok(canvas_class(&root, &names));
    }
    Ok(folders(&root, &names))
}

/// The one `.wasm` in a student's folder (the rule of `pick`), for `arena grade FOLDER`.
pub fn choose(folder: &Path) -> Result<Chosen, String> {
    choose_within(folder, folder)
}

/// [`choose`], refusing a link to a bot outside `root` (the class folder).
fn choose_within(folder: &Path, root: &Path) -> Result<Chosen, String> {
    let mut found = Found::within(root);
    found.walk(folder, Path::new(""), 0);
    pick(found)
}

/// Where a link at `path` leads, when it leads out of `root`: a student's
/// `bot.wasm` may not be a link to the teacher's solution or to `/etc/passwd`.
fn leaves(path: &Path, root: &Path) -> Option<PathBuf> {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link {
        return None;
    }
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    match std::fs::canonicalize(path) {
        Ok(target) if target.starts_with(&root) => None,
        Ok(target) => Some(target),
        // A broken link reads as one later, in the student's words.
        Err(_) => None,
    }
}

/// The one line for a bot that is a link out of the class folder.
fn outside_line(shown: &str, target: &Path) -> String {
    format!(
        "{shown} is a link to {}, outside the class folder; a link is not a submission: put the file itself in the folder",
        target.display()
    )
}

/// An export unzipped often makes one folder holding everything: look into it.
fn unwrap_single_folder(dir: &Path) -> std::io::Result<PathBuf> {
    let mut root = dir.to_path_buf();
    for _ in 0..3 {
        let list = entries(&root)?;
        let visible: Vec<_> = list
            .iter()
            .filter(|(n, _)| !n.starts_with('.') && n != "__MACOSX")
            .collect();
        match visible.as_slice() {
            [(name, path)] if path.is_dir() && !is_student_folder(name) && !holds_one_bot(path) => root = path.clone(),
            _ => break,
        }
    }
    Ok(root)
}

/// Whether a folder's top holds one student's work rather than a class: a
/// single `.wasm`, or a project (a one-student class is a folder like that,
/// and must not be taken for an export of one file per student).
fn holds_one_bot(dir: &Path) -> bool {
    let Ok(list) = entries(dir) else {
        return false;
    };
    // An export's own names say it is a class, whatever else lies there.
    if list
        .iter()
        .any(|(n, _)| n == "submission_metadata.yml" || moodle_name(n).is_some() || canvas_name(n).is_some())
    {
        return false;
    }
    let wasm = list
        .iter()
        .filter(|(n, _)| Path::new(n).extension().is_some_and(|x| x.eq_ignore_ascii_case("wasm")))
        .count();
    let project = list.iter().any(|(n, _)| {
        [
            "Cargo.toml",
            "package.json",
            "pyproject.toml",
            "src",
            "target",
            "node_modules",
        ]
        .contains(&n.as_str())
    });
    wasm == 1 || project
}

/// Whether a folder name is one student's in a known export (never unwrapped).
fn is_student_folder(name: &str) -> bool {
    name.starts_with("submission_") || moodle_name(name).is_some()
}

/// Every entry of `dir` by name (lossy for names that are not UTF-8), sorted.
fn entries(dir: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        out.push((entry.file_name().to_string_lossy().into_owned(), entry.path()));
    }
    out.sort();
    Ok(out)
}

/// `.wasm` files and other files found below one student's folder.
#[derive(Debug, Default)]
struct Found {
    /// (shown path relative to the student's folder, full path, depth).
    wasm: Vec<(String, PathBuf, usize)>,
    /// Other files' shown paths.
    other: Vec<String>,
    /// Folders that could not be read, with why.
    unreadable: Vec<String>,
    /// Entries looked at.
    seen: usize,
    /// The class folder: a `.wasm` link may not lead out of it.
    root: PathBuf,
    /// `.wasm` links that lead out of the class folder, in one line each.
    outside: Vec<String>,
}

impl Found {
    fn within(root: &Path) -> Self {
        Found {
            root: root.to_path_buf(),
            ..Found::default()
        }
    }

    fn add_file(&mut self, shown: String, path: PathBuf, depth: usize) {
        let is_wasm = Path::new(&shown)
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("wasm"));
        if is_wasm && let Some(target) = leaves(&path, &self.root) {
            self.outside.push(outside_line(&shown, &target));
        } else if is_wasm {
            self.wasm.push((shown, path, depth));
        } else {
            self.other.push(shown);
        }
    }

    fn walk(&mut self, dir: &Path, shown: &Path, depth: usize) {
        let list = match entries(dir) {
            Ok(l) => l,
            Err(e) => {
                let name = if shown.as_os_str().is_empty() {
                    "the folder".to_string()
                } else {
                    shown.display().to_string()
                };
                self.unreadable.push(format!("{name}: {}", io_words(&e)));
                return;
            }
        };
        for (name, path) in list {
            self.seen += 1;
            if self.seen > MAX_ENTRIES {
                return;
            }
            // Hidden files, and macOS's resource forks (`__MACOSX/._bot.wasm`), are no bots.
            if name.starts_with('.') || name == "__MACOSX" {
                continue;
            }
            let rel = shown.join(&name);
            // Symbolic links to folders are not followed (a loop would never end).
            let is_link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
            match std::fs::metadata(&path) {
                Ok(m) if m.is_dir() && !is_link => {
                    if depth + 1 < MAX_DEPTH {
                        self.walk(&path, &rel, depth + 1)
                    }
                }
                Ok(m) if m.is_dir() => {}
                Ok(_) => self.add_file(rel.display().to_string(), path, depth),
                Err(e) => self.unreadable.push(format!("{}: {}", rel.display(), io_words(&e))),
            }
        }
    }
}

/// An I/O error in a student's words.
fn io_words(e: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::PermissionDenied => "cannot be read (permission denied; make it readable: chmod -R a+rX)".into(),
        ErrorKind::NotFound => "is a link to nothing (the file it points to is missing)".into(),
        _ if e.raw_os_error() == Some(libc::ELOOP) => "is a link that points back to itself".into(),
        _ => format!("cannot be read ({e})"),
    }
}

/// Which `.wasm` is the student's bot: the only one; else the only one
/// nearest the top of the folder (a project's `target/` holds copies
/// deeper down); else, among those, the only one in a `release` folder.
/// Several left is a problem the student must fix.
fn pick(found: Found) -> Result<Chosen, String> {
    let Found {
        mut wasm,
        other,
        unreadable,
        seen,
        outside,
        ..
    } = found;
    if let Some(line) = outside.into_iter().next() {
        return Err(line);
    }
    if wasm.is_empty() {
        return Err(no_wasm(&other, &unreadable, seen));
    }
    wasm.sort_by(|a, b| (a.2, &a.0).cmp(&(b.2, &b.0)));
    let top = wasm[0].2;
    let nearest: Vec<&(String, PathBuf, usize)> = wasm.iter().filter(|w| w.2 == top).collect();
    let ignored = |chosen: &str| -> Vec<&str> { wasm.iter().map(|w| w.0.as_str()).filter(|n| *n != chosen).collect() };
    if nearest.len() == 1 {
        let chosen = nearest[0];
        let why = (wasm.len() > 1).then(|| {
            format!(
                "{} is the .wasm nearest the top of the folder; {} deeper down ignored",
                chosen.0,
                name_list(&ignored(&chosen.0))
            )
        });
        return Ok(Chosen {
            path: chosen.1.clone(),
            why,
        });
    }
    let release: Vec<&&(String, PathBuf, usize)> = nearest
        .iter()
        .filter(|w| Path::new(&w.0).components().any(|c| c.as_os_str() == "release"))
        .collect();
    if let [chosen] = release.as_slice() {
        return Ok(Chosen {
            path: chosen.1.clone(),
            why: Some(format!(
                "{} is the release build; {} ignored",
                chosen.0,
                name_list(&ignored(&chosen.0))
            )),
        });
    }
    let names: Vec<&str> = nearest.iter().map(|w| w.0.as_str()).collect();
    Err(format!(
        "several .wasm files ({}): which one is the bot? Submit exactly one",
        name_list(&names)
    ))
}

/// At most four names, then how many more.
fn name_list(names: &[&str]) -> String {
    let mut s = names.iter().take(4).copied().collect::<Vec<_>>().join(", ");
    if names.len() > 4 {
        s.push_str(&format!(" and {} more", names.len() - 4));
    }
    s
}

/// Why a submission without a .wasm file has no bot: what it holds
/// instead (source code, an archive, nothing) and what to submit.
fn no_wasm(other: &[String], unreadable: &[String], seen: usize) -> String {
    if other.is_empty()
        && let Some(why) = unreadable.first()
    {
        return format!("no .wasm file found: {why}");
    }
    if seen > MAX_ENTRIES {
        return format!("more than {MAX_ENTRIES} files and no .wasm among the first; submit only the built .wasm file");
    }
    if other.is_empty() {
        return "nothing was submitted (an empty folder)".into();
    }
    let names: Vec<&str> = other.iter().map(String::as_str).collect();
    let source = other.iter().any(|n| {
        [
            ".py", ".rs", ".js", ".ts", ".java", ".cs", ".c", ".cpp", ".toml", ".zip",
        ]
        .iter()
        .any(|x| n.to_ascii_lowercase().ends_with(x))
    });
    let hint = if source {
        "; submit the built bot (a .wasm component, see `arena new`), not its source or an archive"
    } else {
        "; a bot is a .wasm component"
    };
    let also = unreadable.first().map_or(String::new(), |why| format!("; also, {why}"));
    format!("no .wasm file (found {}){hint}{also}", name_list(&names))
}

/// A name a folder or file can have on any system, made from a student's name:
/// letters of any script kept, separators and controls replaced.
fn folder_name(student: &str) -> String {
    let s: String = student
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut squeezed = String::with_capacity(s.len());
    for c in s.chars() {
        if !(c == '_' && squeezed.ends_with('_')) {
            squeezed.push(c);
        }
    }
    // Nor with `-`: `grep x grades/*/results.json` would read `--_script` as an option.
    let s = squeezed.trim_matches(|c| c == '.' || c == '_' || c == '-').to_string();
    if s.is_empty() { "student".into() } else { s }
}

/// What `grade-class` writes beside the students' folders: no student's
/// folder may take one of these names.
const OUTPUT_NAMES: [&str; 6] = [
    crate::files::INDEX,
    crate::files::GRADEBOOK_FILE,
    crate::files::TOURNAMENT_FILE,
    crate::files::REPLAYS,
    crate::files::CANVAS_GRADES,
    crate::files::MOODLE_GRADES,
];

/// Build the class: names made unique (the LMS id, or a number, added), folders too.
fn class(layout: Layout, root: &Path, mut subs: Vec<Submission>, skipped: Vec<String>) -> Class {
    subs.sort_by(|a, b| (&a.student, &a.id).cmp(&(&b.student, &b.id)));
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for s in &subs {
        *count.entry(s.student.clone()).or_default() += 1;
    }
    for s in subs.iter_mut() {
        if count[&s.student] > 1
            && let Some(id) = &s.id
        {
            s.student = format!("{} ({id})", s.student);
        }
    }
    let mut used: BTreeMap<String, usize> = BTreeMap::new();
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    for s in subs.iter_mut() {
        let n = names.entry(s.student.clone()).or_default();
        *n += 1;
        if *n > 1 {
            s.student = format!("{} ({})", s.student, n);
        }
        let mut base = folder_name(&s.student);
        if OUTPUT_NAMES.contains(&base.to_lowercase().as_str()) {
            base.push_str("-student");
        }
        let k = used.entry(base.to_lowercase()).or_default();
        *k += 1;
        s.folder = if *k > 1 { format!("{base}-{k}") } else { base };
    }
    Class {
        layout,
        root: root.to_path_buf(),
        submissions: subs,
        skipped,
    }
}

fn submission(student: String, id: Option<String>, source: PathBuf, bot: Result<Chosen, String>) -> Submission {
    Submission {
        student,
        id,
        email: None,
        members: Vec::new(),
        folder: String::new(),
        source,
        bot,
    }
}

/// Flat `.wasm` files named by student, and folders named by student.
fn folders(root: &Path, names: &[(String, PathBuf)]) -> Class {
    let mut subs = Vec::new();
    let mut skipped = Vec::new();
    for (name, path) in names {
        if name.starts_with('.') || name == "__MACOSX" {
            continue;
        }
        let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() && !is_link => {
                subs.push(submission(name.clone(), None, path.clone(), choose_within(path, root)));
            }
            Ok(m) if m.is_dir() => skipped.push(format!("{name}: a link to a folder (not followed)")),
            Ok(_) => {
                let p = Path::new(name);
                if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("wasm")) {
                    let stem = p.file_stem().map_or(name.clone(), |s| s.to_string_lossy().into_owned());
                    let bot = match leaves(path, root) {
                        Some(target) => Err(outside_line(name, &target)),
                        None => Ok(Chosen {
                            path: path.clone(),
                            why: None,
                        }),
                    };
                    subs.push(submission(stem, None, path.clone(), bot));
                } else {
                    skipped.push(format!("{name}: not a .wasm file"));
                }
            }
            // Whether it was a file or a folder cannot be told: it is a student either way.
            Err(e) => {
                let stem = Path::new(name)
                    .file_stem()
                    .map_or(name.clone(), |s| s.to_string_lossy().into_owned());
                subs.push(submission(
                    stem,
                    None,
                    path.clone(),
                    Err(format!("{name} {}", io_words(&e))),
                ));
            }
        }
    }
    class(Layout::Folders, root, subs, skipped)
}

/// `Full Name_1234567_assignsubmission_file_rest`: (name, participant id, plugin, rest).
fn moodle_name(name: &str) -> Option<(String, String, String, String)> {
    let at = name.find("_assignsubmission_")?;
    let (who, after) = name.split_at(at);
    let after = &after["_assignsubmission_".len()..];
    let (full, id) = who.rsplit_once('_')?;
    if full.is_empty() || id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (plugin, rest) = after.split_once('_')?;
    Some((full.to_string(), id.to_string(), plugin.to_string(), rest.to_string()))
}

fn moodle(root: &Path, names: &[(String, PathBuf)]) -> Class {
    // A student may have several entries: a file-submission folder, an
    // online-text folder, or loose files; all are gathered by participant id.
    let mut by_id: BTreeMap<String, (String, Found, PathBuf)> = BTreeMap::new();
    // Participants who handed in something other than files (online text).
    let mut other: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let mut skipped = Vec::new();
    for (name, path) in names {
        if name.starts_with('.') || name == "__MACOSX" {
            continue;
        }
        let Some((full, id, plugin, rest)) = moodle_name(name) else {
            skipped.push(format!(
                "{name}: not a Moodle submission (expected <Full Name>_<participant id>_assignsubmission_file_)"
            ));
            continue;
        };
        let entry = by_id
            .entry(id.clone())
            .or_insert_with(|| (full.clone(), Found::within(root), path.clone()));
        if plugin != "file" {
            other.insert(id);
            continue;
        }
        if path.is_dir() {
            entry.2 = path.clone();
            entry.1.walk(path, Path::new(""), 0);
        } else if !rest.is_empty() {
            entry.1.add_file(rest, path.clone(), 0);
        }
    }
    let subs = by_id
        .into_iter()
        .map(|(id, (full, found, source))| {
            let empty = found.wasm.is_empty() && found.other.is_empty() && found.unreadable.is_empty();
            let bot = if empty && other.contains(&id) {
                Err("no file was submitted, only online text; submit the built bot, a .wasm file".to_string())
            } else {
                pick(found)
            };
            submission(full, Some(id), source, bot)
        })
        .collect();
    class(Layout::Moodle, root, subs, skipped)
}

/// `name[_late]_<user id>_<attachment id>_<file name>`: (name, user id, file name).
fn canvas_name(name: &str) -> Option<(String, String, String)> {
    let mut parts = name.splitn(2, '_');
    let who = parts.next()?;
    let mut rest = parts.next()?;
    if let Some(r) = rest.strip_prefix("late_").or_else(|| rest.strip_prefix("LATE_")) {
        rest = r;
    }
    let (user, rest) = rest.split_once('_')?;
    let (attachment, file) = rest.split_once('_')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (!who.is_empty() && digits(user) && digits(attachment) && !file.is_empty())
        .then(|| (who.to_string(), user.to_string(), file.to_string()))
}

fn canvas_class(root: &Path, names: &[(String, PathBuf)]) -> Class {
    let mut by_id: BTreeMap<String, (String, Found, PathBuf)> = BTreeMap::new();
    let mut skipped = Vec::new();
    for (name, path) in names {
        if name.starts_with('.') || name == "__MACOSX" {
            continue;
        }
        let Some((who, id, file)) = canvas_name(name) else {
            skipped.push(format!(
                "{name}: not a Canvas submission (expected <name>_<user id>_<attachment id>_<file>)"
            ));
            continue;
        };
        let entry = by_id
            .entry(id.clone())
            .or_insert_with(|| (who.clone(), Found::within(root), path.clone()));
        if path.is_dir() {
            entry.1.walk(path, Path::new(&file), 1);
        } else {
            entry.1.add_file(file, path.clone(), 0);
        }
    }
    let subs = by_id
        .into_iter()
        .map(|(id, (who, found, source))| submission(who, Some(id), source, pick(found)))
        .collect();
    class(Layout::Canvas, root, subs, skipped)
}

/// Who submitted each `submission_<id>` folder: names, SIDs and emails
/// from `submission_metadata.yml` (a group lists several).
fn gradescope_submitters(text: &str) -> Result<BTreeMap<String, Vec<Member>>, String> {
    use yaml_rust2::{Yaml, YamlLoader};
    let docs = YamlLoader::load_from_str(text).map_err(|e| e.to_string())?;
    let mut out = BTreeMap::new();
    let Some(Yaml::Hash(top)) = docs.first() else {
        return Err("it is not a mapping of submissions".into());
    };
    let key = |h: &yaml_rust2::yaml::Hash, k: &str| -> Option<String> {
        // Gradescope writes Ruby symbols as keys (`:name:`); accept plain keys too.
        let v = h
            .get(&Yaml::String(format!(":{k}")))
            .or_else(|| h.get(&Yaml::String(k.to_string())))?;
        match v {
            Yaml::String(s) => Some(s.clone()),
            Yaml::Integer(i) => Some(i.to_string()),
            Yaml::Real(r) => Some(r.clone()),
            _ => None,
        }
    };
    for (folder, record) in top {
        let (Yaml::String(folder), Yaml::Hash(record)) = (folder, record) else {
            continue;
        };
        let submitters = record
            .get(&Yaml::String(":submitters".into()))
            .or_else(|| record.get(&Yaml::String("submitters".into())));
        let mut people = Vec::new();
        if let Some(Yaml::Array(list)) = submitters {
            for p in list {
                if let Yaml::Hash(h) = p {
                    people.push(Member {
                        name: key(h, "name").unwrap_or_default(),
                        id: key(h, "sid"),
                        email: key(h, "email"),
                    });
                }
            }
        }
        out.insert(folder.clone(), people);
    }
    Ok(out)
}

fn gradescope(root: &Path, names: &[(String, PathBuf)]) -> Class {
    let mut skipped = Vec::new();
    let meta_path = root.join("submission_metadata.yml");
    let meta = match std::fs::read_to_string(&meta_path) {
        Ok(text) => gradescope_submitters(&text).unwrap_or_else(|e| {
            skipped.push(format!(
                "submission_metadata.yml: unreadable ({e}); students are named by their folders"
            ));
            BTreeMap::new()
        }),
        Err(e) => {
            skipped.push(format!(
                "submission_metadata.yml {}; students are named by their folders",
                io_words(&e)
            ));
            BTreeMap::new()
        }
    };
    let mut subs = Vec::new();
    for (name, path) in names {
        if name == "submission_metadata.yml" || name.starts_with('.') || name == "__MACOSX" {
            continue;
        }
        if !name.starts_with("submission_") || !path.is_dir() {
            skipped.push(format!(
                "{name}: not a Gradescope submission folder (expected submission_<id>)"
            ));
            continue;
        }
        let people = meta.get(name).cloned().unwrap_or_default();
        let join = |field: fn(&Member) -> Option<&str>| {
            let v: Vec<&str> = people.iter().filter_map(field).filter(|s| !s.is_empty()).collect();
            (!v.is_empty()).then(|| v.join(" & "))
        };
        let student = join(|m| Some(&m.name)).unwrap_or_else(|| name.clone());
        let id = join(|m| m.id.as_deref()).or_else(|| Some(name.trim_start_matches("submission_").to_string()));
        let mut s = submission(student, id, path.clone(), choose_within(path, root));
        s.email = join(|m| m.email.as_deref());
        if people.len() > 1 {
            s.members = people;
        }
        subs.push(s);
    }
    class(Layout::Gradescope, root, subs, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_the_exports_are_read() {
        assert_eq!(
            moodle_name("José Núñez_1234567_assignsubmission_file_"),
            Some(("José Núñez".into(), "1234567".into(), "file".into(), String::new()))
        );
        assert_eq!(
            moodle_name("Ann Lee_42_assignsubmission_file_bot.wasm").map(|m| m.3),
            Some("bot.wasm".into())
        );
        assert_eq!(moodle_name("Ann Lee_x42_assignsubmission_file_"), None);
        assert_eq!(
            canvas_name("smithbob_340934_208490284_bot.wasm"),
            Some(("smithbob".into(), "340934".into(), "bot.wasm".into()))
        );
        assert_eq!(
            canvas_name("smithbob_late_340934_208490284_my_bot-1.wasm"),
            Some(("smithbob".into(), "340934".into(), "my_bot-1.wasm".into()))
        );
        assert_eq!(canvas_name("anna.wasm"), None);
        assert_eq!(canvas_name("my_bot_v2.wasm"), None);
    }

    #[test]
    fn folder_names_keep_letters_and_drop_separators() {
        assert_eq!(folder_name("José Núñez"), "José_Núñez");
        assert_eq!(folder_name("../etc/passwd"), "etc_passwd");
        assert_eq!(folder_name("李雷"), "李雷");
        assert_eq!(folder_name("..."), "student");
        assert_eq!(folder_name("--<script>"), "script");
        assert_eq!(folder_name("-"), "student");
    }

    #[test]
    fn one_folder_is_looked_into_unless_it_is_one_students() {
        let root = std::env::temp_dir().join(format!("arena-unwrap-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let touch = |p: &Path| {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, b"x").unwrap();
        };
        // A class of one: her folder holds her bot (or her project).
        touch(&root.join("one/Ann Lee/bot.wasm"));
        touch(&root.join("project/Bo Li/Cargo.toml"));
        touch(&root.join("project/Bo Li/target/release/bot.wasm"));
        // An export unzipped into one folder: two students' files in it.
        touch(&root.join("export/assignment_1/alice.wasm"));
        touch(&root.join("export/assignment_1/bob.wasm"));
        // Canvas's, with a student's source file beside the bots.
        touch(&root.join("canvas/submissions/annlee_101_9001_bot.wasm"));
        touch(&root.join("canvas/submissions/bobli_102_9002_main.py"));
        let students = |dir: &str| -> Vec<String> {
            find(&root.join(dir))
                .unwrap()
                .submissions
                .into_iter()
                .map(|s| s.student)
                .collect()
        };
        assert_eq!(students("one"), ["Ann Lee"]);
        assert_eq!(students("project"), ["Bo Li"]);
        assert_eq!(students("export"), ["alice", "bob"]);
        assert_eq!(students("canvas"), ["annlee", "bobli"]);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_student_never_takes_the_name_of_a_class_output_file() {
        let subs = ["index.html", "Gradebook.csv", "replays", "Ann Lee", "Ann-Lee"]
            .iter()
            .map(|n| submission(n.to_string(), None, PathBuf::from(n), Err("none".into())))
            .collect();
        let c = class(Layout::Folders, Path::new("."), subs, Vec::new());
        let folders: Vec<&str> = c.submissions.iter().map(|s| s.folder.as_str()).collect();
        assert_eq!(
            folders,
            [
                "Ann_Lee",
                "Ann-Lee",
                "Gradebook.csv-student",
                "index.html-student",
                "replays-student"
            ]
        );
    }

    #[test]
    fn gradescope_metadata_names_groups() {
        let text = "submission_1:\n  :submitters:\n  - :name: Ann Lee\n    :sid: '007'\n    :email: ann@x.edu\n  - :name: Bo Li\n    :sid: 8\n  :score: 1.0\nsubmission_2:\n  :submitters: []\n";
        let m = gradescope_submitters(text).unwrap();
        assert_eq!(m["submission_1"].len(), 2);
        assert_eq!(m["submission_1"][0].id.as_deref(), Some("007"));
        assert_eq!(m["submission_1"][1].id.as_deref(), Some("8"));
        assert_eq!(m["submission_1"][1].email, None);
        assert!(m["submission_2"].is_empty());
        assert!(gradescope_submitters("- a\n- b\n").is_err());
    }
}
