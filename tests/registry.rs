//! One registry of games (`arena::adapters::GAMES`): every list kept per
//! game elsewhere (SDK modules per language, `arena new` templates, viewer
//! renderers, rules documents, WIT worlds, example twins) must hold every
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
fn every_registered_game_has_a_viewer_renderer_and_title() {
    let model = std::fs::read_to_string(root().join("host/report/src/view/model.js")).expect("model.js");
    let viewer = std::fs::read_to_string(root().join("host/report/src/view/viewer.js")).expect("viewer.js");
    // A key is written `"en-garde":` or, when it is a plain identifier, `sugar:` or `sugar,`.
    let keyed = |text: &str, table: &str, name: &str| {
        let start = text
            .find(&format!("const {table} = {{"))
            .unwrap_or_else(|| panic!("no {table}"));
        // The table ends at the first `};` at the start of a line (the tables' own closing).
        let rest = &text[start..];
        let end = rest.find("\n  };").or_else(|| rest.find("};")).unwrap_or(rest.len());
        let body = &rest[..end + 4.min(rest.len() - end)];
        body.contains(&format!("\"{name}\":"))
            || body.contains(&format!(" {name}:"))
            || body.contains(&format!(" {name},"))
            || body.contains(&format!(" {name} }}"))
    };
    for (name, _) in games() {
        assert!(keyed(&model, "REDRAW", name), "model.js REDRAW lacks {name}");
        assert!(keyed(&viewer, "BOARDS", name), "viewer.js BOARDS lacks {name}");
        assert!(
            keyed(&viewer, "GAME_TITLES", name),
            "viewer.js GAME_TITLES lacks {name}"
        );
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
