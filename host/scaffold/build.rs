//! Embeds what `arena new` copies into a project, found in the game folders
//! rather than listed by hand: every game's example bots (a project starts
//! as a copy of one), its C bindings, the WIT files, and every file of the
//! Rust, Python and JavaScript SDKs. A game added to those folders is in
//! the next build; `src/lib.rs` includes the lists this writes.

use std::fmt::Write;
use std::path::{Path, PathBuf};

fn main() {
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let root = crate_dir.join("../..");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let mut code = String::new();
    example_bots(&root, &mut code);
    c_bindings(&root, &mut code);
    wit_files(&root, &mut code);
    rust_sdk(&root, &mut code);
    flat_sdks(&root, &mut code);
    std::fs::write(out.join("embedded.rs"), code).expect("OUT_DIR is writable");
    watch(&root);
}

/// Writes the example bots' lists, one per language: (game, bot, text).
fn example_bots(root: &Path, code: &mut String) {
    let examples = |lang: &str, file: &dyn Fn(&Path) -> Option<(String, PathBuf)>| {
        let mut rows = Vec::new();
        for game in sorted_entries(&root.join("example-bots").join(lang)) {
            if !game.is_dir() {
                continue;
            }
            for bot in sorted_entries(&game) {
                if let Some((name, path)) = file(&bot) {
                    rows.push((file_name(&game), name, path));
                }
            }
        }
        rows
    };
    let folder_bot = |inner: &'static str| {
        move |bot: &Path| {
            let path = bot.join(inner);
            path.is_file().then(|| (file_name(bot), path))
        }
    };
    let file_bot = |ext: &'static str| {
        move |bot: &Path| {
            let name = file_name(bot);
            let stem = name.strip_suffix(ext)?;
            bot.is_file().then(|| (stem.to_string(), bot.to_path_buf()))
        }
    };
    for (constant, lang, rows) in [
        ("RUST_EXAMPLES", "rust", examples("rust", &folder_bot("src/lib.rs"))),
        ("PYTHON_EXAMPLES", "python", examples("python", &folder_bot("app.py"))),
        ("JS_EXAMPLES", "js", examples("js", &file_bot(".js"))),
        ("C_EXAMPLES", "c", examples("c", &file_bot(".c"))),
    ] {
        let _ = writeln!(
            code,
            "/// The {lang} example bots: game, bot, source.\nconst {constant}: &[(&str, &str, &str)] = &["
        );
        for (game, bot, path) in rows {
            let _ = writeln!(code, "    ({game:?}, {bot:?}, include_str!({:?})),", abs(&path));
        }
        code.push_str("];\n\n");
    }
}

/// Writes the C bindings of each game (wit-bindgen's C generator): game, source, header, component type.
fn c_bindings(root: &Path, code: &mut String) {
    code.push_str(
        "/// Each game's C bindings: game, source, header, component type.\nconst C_BINDINGS: &[(&str, &str, &str, &[u8])] = &[\n",
    );
    for game in sorted_entries(&root.join("bot-sdk/c")) {
        if !game.is_dir() {
            continue;
        }
        let name = file_name(&game);
        let module = name.replace('-', "_");
        let (c, h, o) = (
            game.join(format!("{module}.c")),
            game.join(format!("{module}.h")),
            game.join(format!("{module}_component_type.o")),
        );
        let _ = writeln!(
            code,
            "    ({name:?}, include_str!({:?}), include_str!({:?}), include_bytes!({:?})),",
            abs(&c),
            abs(&h),
            abs(&o)
        );
    }
    code.push_str("];\n\n");
}

/// Writes the newest WIT package, `host.wit` first.
fn wit_files(root: &Path, code: &mut String) {
    let mut wit: Vec<PathBuf> = sorted_entries(&root.join("wit/0.2.0"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "wit"))
        .collect();
    wit.sort_by_key(|p| (file_name(p) != "host.wit", file_name(p)));
    code.push_str(
        "/// The newest WIT package's files, `host.wit` first: name, text.\nconst WIT: &[(&str, &str)] = &[\n",
    );
    for path in wit {
        let _ = writeln!(code, "    ({:?}, include_str!({:?})),", file_name(&path), abs(&path));
    }
    code.push_str("];\n\n");
}

/// Writes the Rust SDK and the crates it builds on, by their path in the repository.
fn rust_sdk(root: &Path, code: &mut String) {
    let mut rust_sdk = Vec::new();
    for dir in ["bot-sdk/src", "host/core/src", "host/games/src"] {
        walk(&root.join(dir), &mut rust_sdk);
    }
    for manifest in ["bot-sdk/Cargo.toml", "host/core/Cargo.toml", "host/games/Cargo.toml"] {
        rust_sdk.push(root.join(manifest));
    }
    let mut rust_sdk: Vec<(String, PathBuf)> = rust_sdk.into_iter().map(|p| (relative(root, &p), p)).collect();
    rust_sdk.sort();
    code.push_str(
        "/// The Rust SDK and the crates it builds on, every file, by its path in the repository.\nconst RUST_SDK: &[(&str, &str)] = &[\n",
    );
    for (path, file) in rust_sdk {
        let _ = writeln!(code, "    ({path:?}, include_str!({:?})),", abs(&file));
    }
    code.push_str("];\n\n");
}

/// Writes the Python and JavaScript SDKs, each one folder of files: name, text.
fn flat_sdks(root: &Path, code: &mut String) {
    for (constant, dir, ext) in [
        ("PYTHON_SDK", "bot-sdk/python/arena_bot", "py"),
        ("JS_SDK", "bot-sdk/js/src", "js"),
    ] {
        let _ = writeln!(
            code,
            "/// Every `.{ext}` file of `{dir}`: name, text.\nconst {constant}: &[(&str, &str)] = &["
        );
        for path in sorted_entries(&root.join(dir)) {
            if path.is_file() && path.extension().is_some_and(|e| e == ext) {
                let _ = writeln!(code, "    ({:?}, include_str!({:?})),", file_name(&path), abs(&path));
            }
        }
        code.push_str("];\n\n");
    }
}

/// Tells cargo to run this again when any folder or file it reads changes.
fn watch(root: &Path) {
    for watched in [
        "example-bots/rust",
        "example-bots/python",
        "example-bots/js",
        "example-bots/c",
        "bot-sdk/c",
        "bot-sdk/src",
        "bot-sdk/Cargo.toml",
        "bot-sdk/python/arena_bot",
        "bot-sdk/js/src",
        "host/core/src",
        "host/core/Cargo.toml",
        "host/games/src",
        "host/games/Cargo.toml",
        "wit/0.2.0",
    ] {
        println!("cargo::rerun-if-changed={}", root.join(watched).display());
    }
}

/// A folder's entries, sorted by name (none if it is missing).
fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    entries.sort();
    entries
}

/// Every file under `dir`.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for path in sorted_entries(dir) {
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .expect("inside the repository")
        .display()
        .to_string()
}

fn abs(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .display()
        .to_string()
}
