//! Embeds the replay viewer's per-game files (`src/view/games/<game>.js`),
//! found in their folder rather than listed by hand: a game added there is
//! on the next page `src/view/mod.rs` makes.

use std::fmt::Write;
use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("src/view/games");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "js"));
    files.sort();
    let mut code =
        String::from("/// Each game's viewer file: game, script.\nconst GAME_SCRIPTS: &[(&str, &str)] = &[\n");
    for path in files {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let path = std::fs::canonicalize(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let _ = writeln!(code, "    ({name:?}, include_str!({:?})),", path.display().to_string());
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("game_scripts.rs"), code).expect("OUT_DIR is writable");
    println!("cargo::rerun-if-changed={}", dir.display());
}
