//! One registry of games (`arena::adapters::GAMES`): every list kept per
//! game elsewhere (SDK modules per language, `arena new` templates, viewer
//! files, rules documents, WIT worlds, example twins) must hold every
//! registered game. A fifth game that misses one fails here, by name,
//! instead of at a student's first build.

use arena_tests::root;

/// The registered games' names (`en-garde`) with their module names (`en_garde`).
fn games() -> Vec<(&'static str, String)> {
    arena::adapters::GAMES
        .iter()
        .map(|g| (g.name(), g.name().replace('-', "_")))
        .collect()
}

fn exists(path: &str) -> bool {
    root().join(path).exists()
}

#[test]
fn every_registered_game_has_its_files_in_every_layer() {
    let mut missing = Vec::new();
    for (name, module) in games() {
        for path in [
            format!("docs/rules/{name}.md"),
            format!("wit/0.2.0/{name}.wit"),
            format!("host/games/src/{module}/rules.rs"),
            format!("host/runner/src/adapters/{module}/rubric.toml"),
            format!("bot-sdk/src/{module}.rs"),
            format!("bot-sdk/python/arena_bot/{module}.py"),
            format!("bot-sdk/js/src/{name}.js"),
            format!("bot-sdk/c/{name}/{module}.c"),
            format!("example-bots/c/{name}"),
        ] {
            if !exists(&path) {
                missing.push(path);
            }
        }
    }
    assert!(missing.is_empty(), "files a registered game lacks: {missing:?}");
}

#[test]
fn every_registered_game_has_a_viewer_file_with_its_title_states_and_board() {
    for (name, _) in games() {
        let path = format!("host/report/src/view/games/{name}.js");
        let text = std::fs::read_to_string(root().join(&path)).unwrap_or_else(|e| panic!("{path}: {e}"));
        for part in [
            format!("name: \"{name}\""),
            "title: ".into(),
            "redraw(".into(),
            "board(".into(),
        ] {
            assert!(text.contains(&part), "{path} lacks {part}");
        }
    }
}

/// Nothing of the viewer's shared files or of the `match` command's tables
/// names a game: what differs between games is in each game's own files.
#[test]
fn the_viewer_and_the_match_tables_name_no_game() {
    for path in [
        "host/report/src/view/model.js",
        "host/report/src/view/viewer.js",
        "host/report/src/view/mod.rs",
        "host/arena/src/cli/matches.rs",
    ] {
        let text = std::fs::read_to_string(root().join(path)).expect(path);
        // Doc comments and `--help` texts may name games; code may not.
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("///") && !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        for game in arena::adapters::GAMES {
            for word in [format!("\"{}\"", game.name()), format!("\"{}\"", game.title())] {
                assert!(!code.contains(&word), "{path} names {word}");
            }
        }
        for word in ["\"bum\"", "\"president\""] {
            assert!(!code.contains(word), "{path} names {word}");
        }
    }
}

#[test]
fn every_house_bot_has_its_example_twin_in_rust_python_and_javascript() {
    let mut missing = Vec::new();
    for game in arena::adapters::GAMES {
        let name = game.name();
        for (house, _) in game.house_bots() {
            for path in [
                format!("example-bots/rust/{name}/{house}"),
                format!("example-bots/python/{name}/{house}"),
                format!("example-bots/js/{name}/{house}.js"),
            ] {
                if !exists(&path) {
                    missing.push(path);
                }
            }
        }
    }
    assert!(missing.is_empty(), "twins missing: {missing:?}");
}
