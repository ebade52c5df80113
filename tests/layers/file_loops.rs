//! Which source files of a crate name items of which others, read from the
//! text (no compiler): the graph whose loops `tests/layers.rs` forbids.
//!
//! A file depends on another when it names an item that lives there, by a
//! `use` or by a path in its code or attributes (`crate::a::b::Item`,
//! `super::Item`, `child::Item`, or through a name it imported). A name that
//! a module only re-exports (`pub use child::Item` in a `mod.rs`) leads to
//! the file that defines it, so a facade is no loop; a `mod x;` line declares
//! a file and is no dependency. Comments and string literals are skipped;
//! paths into other crates are not followed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A token of Rust source, as far as paths need: identifiers and the
/// punctuation that ends or joins them.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

/// The identifiers and punctuation of `src`, without comments, strings or char literals.
fn tokens(src: &str) -> Vec<Tok> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let ident_char = |ch: char| ch.is_alphanumeric() || ch == '_';
    while i < c.len() {
        let ch = c[i];
        let prev_ident = i > 0 && ident_char(c[i - 1]);
        if ch == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if !prev_ident && let Some(end) = raw_string_end(&c, i) {
            i = end;
        } else if ch == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if ch == '\'' {
            // A char literal ('x', '\n', '\u{1F600}') or a lifetime ('a).
            if c.get(i + 1) == Some(&'\\') {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if ident_char(ch) {
            let start = i;
            while i < c.len() && ident_char(c[i]) {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            // A byte string or byte char: b"..", b'..'.
            if word == "b" && matches!(c.get(i), Some('"') | Some('\'')) {
                continue;
            }
            // A raw identifier: r#type.
            if word == "r" && c.get(i) == Some(&'#') {
                i += 1;
                continue;
            }
            out.push(Tok::Ident(word));
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push(Tok::PathSep);
            i += 2;
        } else {
            if !ch.is_whitespace() {
                out.push(Tok::Punct(ch));
            }
            i += 1;
        }
    }
    out
}

/// Where a raw string (r"..", r#".."#, br"..") that starts at `i` ends, if one does.
fn raw_string_end(c: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if c.get(j) == Some(&'b') {
        j += 1;
    }
    if c.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while c.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    if c.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < c.len() {
        if c[j] == '"' && (1..=hashes).all(|k| c.get(j + k) == Some(&'#')) {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(c.len())
}

/// One `use` leaf: the name it brings in (None for a glob), the path it
/// names (segments as written), whether the `use` is `pub`, and the module
/// (inline modules included) it is written in.
#[derive(Debug, Clone)]
struct UseLeaf {
    name: Option<String>,
    path: Vec<String>,
    public: bool,
    scope: Vec<String>,
}

/// A path written in code: its segments and the module it is written in.
#[derive(Debug, Clone)]
struct Written {
    path: Vec<String>,
    scope: Vec<String>,
}

/// What one file says: the modules it declares (as children of which
/// module), its `use` leaves, the paths in its code, and how often each
/// identifier occurs outside `use` lines.
#[derive(Debug, Default)]
struct FileFacts {
    declared: Vec<(Vec<String>, String, bool)>,
    uses: Vec<UseLeaf>,
    written: Vec<Written>,
    idents: BTreeMap<String, usize>,
}

/// Reads the facts of a file that is module `module` of its crate.
fn facts(src: &str, module: &[String]) -> FileFacts {
    let t = tokens(src);
    let mut f = FileFacts::default();
    // Inline modules open here: (their name, the brace depth they close at).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    let scope = |inline: &[(String, usize)]| -> Vec<String> {
        module
            .iter()
            .cloned()
            .chain(inline.iter().map(|(n, _)| n.clone()))
            .collect()
    };
    while i < t.len() {
        match &t[i] {
            Tok::Punct('{') => {
                depth += 1;
                i += 1;
            }
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                i += 1;
            }
            Tok::Ident(w) if w == "mod" && matches!(t.get(i + 1), Some(Tok::Ident(_))) => {
                let Some(Tok::Ident(name)) = t.get(i + 1) else {
                    unreachable!()
                };
                match t.get(i + 2) {
                    Some(Tok::Punct(';')) => {
                        f.declared.push((scope(&inline), name.clone(), !inline.is_empty()));
                        i += 3;
                    }
                    Some(Tok::Punct('{')) => {
                        inline.push((name.clone(), depth));
                        depth += 1;
                        i += 3;
                    }
                    _ => i += 1,
                }
            }
            Tok::Ident(w) if w == "use" && !matches!(t.get(i.wrapping_sub(1)), Some(Tok::PathSep)) => {
                let public = is_pub_before(&t, i);
                let end = (i..t.len()).find(|&k| t[k] == Tok::Punct(';')).unwrap_or(t.len());
                let mut leaves = Vec::new();
                use_tree(&t[i + 1..end], &[], &mut leaves);
                for (name, path) in leaves {
                    f.uses.push(UseLeaf {
                        name,
                        path,
                        public,
                        scope: scope(&inline),
                    });
                }
                i = end + 1;
            }
            Tok::Ident(w) => {
                *f.idents.entry(w.clone()).or_default() += 1;
                if matches!(t.get(i + 1), Some(Tok::PathSep)) && !matches!(t.get(i.wrapping_sub(1)), Some(Tok::PathSep))
                {
                    let mut path = vec![w.clone()];
                    let mut k = i + 1;
                    while let (Some(Tok::PathSep), Some(Tok::Ident(next))) = (t.get(k), t.get(k + 1)) {
                        path.push(next.clone());
                        k += 2;
                    }
                    f.written.push(Written {
                        path,
                        scope: scope(&inline),
                    });
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    f
}

/// Whether the `use` at `i` is preceded by `pub` or `pub(...)`.
fn is_pub_before(t: &[Tok], i: usize) -> bool {
    match i.checked_sub(1).map(|k| &t[k]) {
        Some(Tok::Ident(w)) => w == "pub",
        Some(Tok::Punct(')')) => (0..i).rev().take(6).any(|k| t[k] == Tok::Ident("pub".into())),
        _ => false,
    }
}

/// The leaves of a use tree (`a::b::{c, d as e, f::*}`), with `prefix` before them.
fn use_tree(t: &[Tok], prefix: &[String], out: &mut Vec<(Option<String>, Vec<String>)>) {
    let mut path = prefix.to_vec();
    let mut i = 0;
    while i < t.len() {
        match &t[i] {
            Tok::Ident(w) if w == "as" => {
                if let Some(Tok::Ident(alias)) = t.get(i + 1) {
                    out.push((Some(alias.clone()), path.clone()));
                }
                return;
            }
            Tok::Ident(w) => {
                path.push(w.clone());
                i += 1;
            }
            Tok::PathSep => i += 1,
            Tok::Punct('*') => {
                out.push((None, path.clone()));
                return;
            }
            Tok::Punct('{') => {
                // Split the group at its top-level commas.
                let mut depth = 0;
                let mut start = i + 1;
                for (k, tok) in t.iter().enumerate().skip(i) {
                    match tok {
                        Tok::Punct('{') => depth += 1,
                        Tok::Punct('}') => {
                            depth -= 1;
                            if depth == 0 {
                                use_tree(&t[start..k], &path, out);
                                return;
                            }
                        }
                        Tok::Punct(',') if depth == 1 => {
                            use_tree(&t[start..k], &path, out);
                            start = k + 1;
                        }
                        _ => {}
                    }
                }
                return;
            }
            _ => i += 1,
        }
    }
    if path.len() > prefix.len() {
        // `a::b::self` imports `b`.
        if path.last().is_some_and(|l| l == "self") {
            path.pop();
        }
        out.push((path.last().cloned(), path));
    }
}

/// A crate's files by module path, and what each says.
struct CrateFiles {
    facts: BTreeMap<PathBuf, FileFacts>,
    /// Every module, inline ones too, and the file it is written in.
    modules: BTreeMap<Vec<String>, PathBuf>,
}

/// Reads the module tree from `root` (lib.rs or main.rs) down.
fn read_crate(root: &Path) -> CrateFiles {
    let mut files = CrateFiles {
        facts: BTreeMap::new(),
        modules: BTreeMap::new(),
    };
    let mut todo = vec![(Vec::<String>::new(), root.to_path_buf())];
    while let Some((module, path)) = todo.pop() {
        let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let f = facts(&src, &module);
        let is_dir_owner = module.is_empty() || path.file_name().is_some_and(|n| n == "mod.rs");
        let dir = if is_dir_owner {
            path.parent().expect("a folder").to_path_buf()
        } else {
            path.with_extension("")
        };
        for (parent, name, in_inline) in &f.declared {
            let mut child = parent.clone();
            child.push(name.clone());
            // A file module of an inline module lives in a folder named after it.
            let base = if *in_inline {
                parent[module.len()..].iter().fold(dir.clone(), |d, p| d.join(p))
            } else {
                dir.clone()
            };
            let flat = base.join(format!("{name}.rs"));
            let nested = base.join(name).join("mod.rs");
            let file = if flat.exists() { flat } else { nested };
            if file.exists() {
                todo.push((child, file));
            }
        }
        for w in f
            .written
            .iter()
            .map(|w| &w.scope)
            .chain(f.uses.iter().map(|u| &u.scope))
        {
            files.modules.entry(w.clone()).or_insert_with(|| path.clone());
        }
        files.modules.insert(module, path.clone());
        files.facts.insert(path, f);
    }
    // Inline modules that hold neither a use nor a path are still modules.
    let inline: Vec<(Vec<String>, PathBuf)> = files
        .facts
        .iter()
        .flat_map(|(p, f)| f.declared.iter().map(move |(parent, _, _)| (parent.clone(), p.clone())))
        .collect();
    for (m, p) in inline {
        files.modules.entry(m).or_insert(p);
    }
    files
}

impl CrateFiles {
    /// The absolute module path a written path starts from, and the segments left, if it is local.
    fn anchor(&self, file: &Path, scope: &[String], path: &[String], depth: usize) -> Option<Vec<String>> {
        let first = path.first()?;
        let mut at: Vec<String> = scope.to_vec();
        let rest = match first.as_str() {
            "crate" => {
                at.clear();
                &path[1..]
            }
            "self" => &path[1..],
            "super" => {
                let mut k = 0;
                while path.get(k).is_some_and(|s| s == "super") {
                    at.pop()?;
                    k += 1;
                }
                &path[k..]
            }
            _ => {
                let mut child = scope.to_vec();
                child.push(first.clone());
                if self.modules.contains_key(&child) {
                    at = child;
                    &path[1..]
                } else {
                    // A name this file imported: its path, then the rest.
                    let leaf = self.facts[file]
                        .uses
                        .iter()
                        .find(|u| u.name.as_deref() == Some(first.as_str()))?;
                    if depth > 8 {
                        return None;
                    }
                    let mut whole = self.anchor(file, &leaf.scope, &leaf.path, depth + 1)?;
                    whole.extend(path[1..].iter().cloned());
                    return Some(whole);
                }
            }
        };
        at.extend(rest.iter().cloned());
        Some(at)
    }

    /// The file that defines what absolute path `abs` names, following re-exports.
    fn home(&self, abs: &[String], depth: usize) -> Option<PathBuf> {
        // The deepest module the path runs through.
        let mut k = abs.len();
        while !self.modules.contains_key(&abs[..k]) {
            k -= 1;
        }
        let module = &abs[..k];
        let file = self.modules[module].clone();
        let Some(item) = abs.get(k) else { return Some(file) };
        if depth > 8 {
            return Some(file);
        }
        // An item the module only re-exports lives where the re-export leads.
        let re = self.facts[&file]
            .uses
            .iter()
            .find(|u| u.scope == module && u.name.as_deref() == Some(item.as_str()));
        match re {
            Some(u) => match self.anchor(&file, &u.scope, &u.path, depth + 1) {
                Some(mut target) => {
                    target.extend(abs[k + 1..].iter().cloned());
                    self.home(&target, depth + 1).or(Some(file))
                }
                // Re-exported from another crate: not a file of this one.
                None => None,
            },
            None => Some(file),
        }
    }

    /// Each file and the files of this crate it depends on.
    fn graph(&self) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
        let mut g: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
        for (file, f) in &self.facts {
            let mut add = |scope: &[String], path: &[String]| {
                if let Some(abs) = self.anchor(file, scope, path, 0)
                    && let Some(to) = self.home(&abs, 0)
                    && &to != file
                {
                    g.entry(file.clone()).or_default().insert(to);
                }
            };
            for u in &f.uses {
                // A re-export leads through; it is a dependency only if the file uses the name too.
                let used_here = u
                    .name
                    .as_ref()
                    .is_some_and(|n| f.idents.get(n).copied().unwrap_or(0) > 0);
                if !u.public || used_here || u.name.is_none() {
                    add(&u.scope, &u.path);
                }
            }
            for w in &f.written {
                add(&w.scope, &w.path);
            }
            g.entry(file.clone()).or_default();
        }
        g
    }
}

/// The loops among the files of the crate in `crate_dir` (each a strongly
/// connected component of two files or more, paths relative to `crate_dir`,
/// sorted), for every crate root it has (`src/lib.rs`, `src/main.rs`).
pub fn loops(crate_dir: &Path) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for root in ["src/lib.rs", "src/main.rs"] {
        let root = crate_dir.join(root);
        if !root.exists() {
            continue;
        }
        let g = read_crate(&root).graph();
        for mut component in strongly_connected(&g) {
            if component.len() > 1 {
                component.sort();
                found.push(
                    component
                        .iter()
                        .map(|p| p.strip_prefix(crate_dir).unwrap_or(p).display().to_string())
                        .collect(),
                );
            }
        }
    }
    found.sort();
    found
}

/// Tarjan's strongly connected components.
fn strongly_connected(g: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct State<'a> {
        g: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'a PathBuf, usize>,
        low: BTreeMap<&'a PathBuf, usize>,
        stack: Vec<&'a PathBuf>,
        on_stack: BTreeSet<&'a PathBuf>,
        out: Vec<Vec<PathBuf>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a PathBuf) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.g.get(v).into_iter().flatten() {
            let Some((w, _)) = s.g.get_key_value(w) else { continue };
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.clone());
                if w == v {
                    break;
                }
            }
            s.out.push(component);
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

/// Each file's dependencies, for a failure message: `a.rs -> b.rs` lines within `component`.
pub fn edges_within(crate_dir: &Path, component: &[String]) -> Vec<String> {
    let mut lines = Vec::new();
    for root in ["src/lib.rs", "src/main.rs"] {
        let root = crate_dir.join(root);
        if !root.exists() {
            continue;
        }
        let rel = |p: &PathBuf| p.strip_prefix(crate_dir).unwrap_or(p).display().to_string();
        for (from, tos) in read_crate(&root).graph() {
            for to in tos {
                if component.contains(&rel(&from)) && component.contains(&rel(&to)) {
                    lines.push(format!("{} -> {}", rel(&from), rel(&to)));
                }
            }
        }
    }
    lines
}
