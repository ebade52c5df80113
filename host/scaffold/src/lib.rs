//! arena-scaffold: `arena new`, a bot project a student can build with one
//! command and play with the next, in Rust, Python, JavaScript or C.
//!
//! Every project is self-contained: the SDK, the WIT files and (for Rust)
//! the rules crates are written into it, embedded in this library at build
//! time, so it builds on any machine with the toolchain and no checkout.

use anyhow::{Context, bail};
use arena_runner::runner::GameDef;
use clap::ValueEnum;
use std::path::{Path, PathBuf};

/// The languages `arena new` writes projects for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Lang {
    /// Rust with the arena's bot SDK (cargo, target wasm32-wasip2).
    Rust,
    /// Python with componentize-py 0.25.1 (CPython inside the component).
    Python,
    /// JavaScript with componentize-js 0.23 (SpiderMonkey inside the component).
    Js,
    /// C with Debian's clang 14, lld and wasi-libc; `arena componentize` makes the component.
    C,
}

/// The pinned toolchain versions the projects and CI use.
pub const COMPONENTIZE_PY: &str = "0.25.1";
const COMPONENTIZE_JS: &str = "0.23.0";
const ESBUILD: &str = "0.28.2";
/// componentize-js imports it without depending on it; npm does not always
/// hoist the one jco brings, and 0.25 is the version its build works with.
const PREVIEW2_SHIM: &str = "0.25.0";

/// What a game's starter bot is: a copy of one of its example twins.
struct Starter {
    game: &'static str,
    house: &'static str,
    rust: &'static str,
    python: &'static str,
    js: &'static str,
    /// The C starter and the house bot it is a twin of, if it is one.
    c: (&'static str, Option<&'static str>),
    /// The C bindings (wit-bindgen 0.46's C generator): source, header, component type.
    c_bindings: (&'static str, &'static str, &'static [u8]),
}

// The example bots, C bindings, WIT files and SDKs, found in their folders by
// `build.rs`: `RUST_EXAMPLES`, `PYTHON_EXAMPLES`, `JS_EXAMPLES`,
// `C_EXAMPLES`, `C_BINDINGS`, `WIT`, `RUST_SDK` (copied into every Rust
// project under `arena-sdk/`, in the repository's layout, so their relative
// paths hold: a project builds wherever it is moved or handed out, with no
// arena checkout), `PYTHON_SDK` and `JS_SDK`.
include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

const C_RNG: &str = include_str!("../../../bot-sdk/c/arena_rng.h");

impl Starter {
    /// The starter of a registered game: the example twins of the house bot
    /// its registry entry names (`About::starter`), and in C that bot's twin
    /// if there is one, else the simplest legal bot (`first.c`).
    fn of(game: &dyn GameDef) -> anyhow::Result<Starter> {
        let name = game.name();
        let house = game.about().starter;
        let example = |lang: &str, list: &[(&str, &str, &'static str)], bot: &str| {
            list.iter()
                .find(|(g, b, _)| *g == name && *b == bot)
                .map(|e| e.2)
                .with_context(|| format!("{name}: no {lang} example bot {bot} to start a project from"))
        };
        let c = match example("C", C_EXAMPLES, house) {
            Ok(text) => (text, Some(house)),
            Err(_) => (example("C", C_EXAMPLES, "first")?, None),
        };
        let (_, source, header, component) = C_BINDINGS
            .iter()
            .find(|b| b.0 == name)
            .with_context(|| format!("{name}: no C bindings in bot-sdk/c/{name}"))?;
        Ok(Starter {
            game: name,
            house,
            rust: example("Rust", RUST_EXAMPLES, house)?,
            python: example("Python", PYTHON_EXAMPLES, house)?,
            js: example("JavaScript", JS_EXAMPLES, house)?,
            c,
            c_bindings: (source, header, component),
        })
    }
}

/// The arena's workspace manifest: the versions its crates inherit.
const WORKSPACE_MANIFEST: &str = include_str!("../../../Cargo.toml");

/// Where a Rust project keeps its copy of the SDK.
const VENDORED: &str = "arena-sdk";

/// A crate's manifest made standalone: every `x.workspace = true` (in
/// `[package]` and the dependency tables) replaced by the workspace's value,
/// since the copied crate has no arena workspace around it.
fn standalone_manifest(manifest: &str, workspace: &str) -> anyhow::Result<String> {
    use toml::{Table, Value};
    let mut crate_: Table = manifest.parse().context("a bot SDK manifest")?;
    let workspace: Table = workspace.parse().context("the arena's workspace manifest")?;
    let inherited = |v: &Value| v.get("workspace").and_then(Value::as_bool) == Some(true);
    let section = |name: &str| {
        workspace
            .get("workspace")
            .and_then(|w| w.get(name))
            .and_then(Value::as_table)
            .cloned()
            .unwrap_or_default()
    };
    let (package, dependencies) = (section("package"), section("dependencies"));
    if let Some(p) = crate_.get_mut("package").and_then(Value::as_table_mut) {
        for (key, value) in p.iter_mut() {
            if inherited(value) {
                *value = package
                    .get(key)
                    .cloned()
                    .with_context(|| format!("package.{key} is not in the workspace"))?;
            }
        }
    }
    for table in ["dependencies", "dev-dependencies", "build-dependencies"] {
        let Some(deps) = crate_.get_mut(table).and_then(Value::as_table_mut) else {
            continue;
        };
        for (name, value) in deps.iter_mut() {
            if !inherited(value) {
                continue;
            }
            let mut resolved = match dependencies.get(name) {
                Some(Value::String(version)) => {
                    let mut t = Table::new();
                    t.insert("version".into(), Value::String(version.clone()));
                    t
                }
                Some(Value::Table(t)) => t.clone(),
                _ => anyhow::bail!("dependency {name} is not in the workspace"),
            };
            // The crate's own features add to the workspace's.
            if let Some(Value::Array(extra)) = value.get("features") {
                let features = resolved.entry("features").or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(f) = features {
                    f.extend(extra.iter().filter(|x| !f.contains(x)).cloned().collect::<Vec<_>>());
                }
            }
            if let Some(optional) = value.get("optional") {
                resolved.insert("optional".into(), optional.clone());
            }
            *value = Value::Table(resolved);
        }
    }
    Ok(format!(
        "# Copied by `arena new` from arena {}: the SDK your bot builds on. Leave it as it is.\n{}",
        env!("CARGO_PKG_VERSION"),
        toml::to_string(&crate_)?
    ))
}

const JS_SDK_PACKAGE: &str = include_str!("../../../bot-sdk/js/package.json");

impl Lang {
    /// The language's name as a student reads it.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "Rust",
            Lang::Python => "Python",
            Lang::Js => "JavaScript",
            Lang::C => "C",
        }
    }
}

/// A project [`create`] wrote, and what its student runs next.
#[derive(Debug, Clone)]
pub struct Project {
    /// The folder it was written to.
    pub dir: PathBuf,
    /// The game its bot plays.
    pub game: &'static str,
    /// Its language.
    pub lang: Lang,
    /// The house bot it starts as a copy of, if it is one (else the simplest legal bot).
    pub copy_of: Option<&'static str>,
    /// The command that plays its first match.
    pub play: String,
    /// The command that checks it before submitting.
    pub check: String,
}

impl Project {
    /// What `arena new` prints: what was made and the next three commands.
    pub fn text(&self) -> String {
        let shown = self.dir.display();
        let language = self.lang.name();
        let made = match self.copy_of {
            None => format!(
                "a {language} bot for {} that starts as the simplest legal bot",
                self.game
            ),
            Some(house) => format!(
                "a {language} bot for {} that starts as a copy of house:{house}",
                self.game
            ),
        };
        format!(
            "Created {shown}: {made}.\n\
             Build it:   {shown}/build.sh            (writes {shown}/bot.wasm)\n\
             Play it:    {}\n\
             Check it:   {}  (before you submit)\n\
             Then read {shown}/README.md and make it better.\n",
            self.play, self.check
        )
    }
}

/// Write a new `lang` project for `game` into `dir`, which must not exist or
/// be empty (nothing is ever overwritten).
pub fn create(game: &str, lang: Lang, dir: &Path) -> anyhow::Result<Project> {
    let Some(game) = arena_runner::adapters::game(game) else {
        let names: Vec<&str> = arena_runner::adapters::GAMES.iter().map(|g| g.name()).collect();
        bail!(
            "unknown game `{game}`; the games are {} (see `arena games`)",
            names.join(", ")
        );
    };
    let starter = &Starter::of(game)?;
    if dir.exists() && std::fs::read_dir(dir).map(|mut d| d.next().is_some()).unwrap_or(true) {
        bail!(
            "{}: already exists and is not empty; give a new folder name (arena new never overwrites files)",
            dir.display()
        );
    }
    for (path, bytes) in project_files(starter, lang, &crate_name(dir))? {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("{}: cannot create the folder", parent.display()))?;
        }
        std::fs::write(&path, bytes).with_context(|| format!("{}: cannot write it", path.display()))?;
    }
    make_executable(&dir.join("build.sh"))?;
    let shown = dir.display();
    Ok(Project {
        dir: dir.to_path_buf(),
        game: starter.game,
        lang,
        copy_of: match (lang, starter.c.1) {
            (Lang::C, None) => None,
            _ => Some(starter.house),
        },
        play: format!(
            "arena match --game {} {shown}/bot.wasm {}",
            starter.game,
            opponents(starter.game)
        )
        .trim_end()
        .to_string(),
        check: format!("arena check --game {} {shown}/bot.wasm", starter.game),
    })
}

/// Every file of a `lang` project for `starter`, by its path in the project.
fn project_files(starter: &Starter, lang: Lang, name: &str) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let mut files: Vec<(String, Vec<u8>)> = match lang {
        Lang::Rust => rust_project(starter, name)?,
        Lang::Python => python_project(starter),
        Lang::Js => js_project(starter, name),
        Lang::C => c_project(starter),
    }
    .into_iter()
    .map(|(path, text)| (path, text.into_bytes()))
    .collect();
    if lang == Lang::C {
        let module = starter.game.replace('-', "_");
        files.push((
            format!("bindings/{module}_component_type.o"),
            starter.c_bindings.2.to_vec(),
        ));
    }
    Ok(files)
}

/// The opponents a first match is played against, as arguments.
fn opponents(game: &str) -> String {
    arena_runner::adapters::game(game).map_or(String::new(), |g| g.about().first_opponents.join(" "))
}

/// The folder's name as a crate or package name: lower case, `-` for anything else.
fn crate_name(dir: &Path) -> String {
    let raw = dir.file_name().and_then(|n| n.to_str()).unwrap_or("my-bot");
    let mut name: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    name = name.trim_matches('-').to_string();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        name = format!("bot-{name}");
    }
    name
}

/// The starter's text, introduced as the student's own bot.
fn starter_text(text: &str, starter: &Starter, comment: &str) -> String {
    format!(
        "{comment} Your bot. It starts as a copy of the example twin of house:{}; make it better.\n{comment} The rules: docs/rules/{}.md in the arena's repository.\n{text}",
        starter.house, starter.game
    )
}

/// Whether the project `arena new` writes in `lang` ("C", "Rust", ...)
/// starts as a twin of its house bot (every language but C, whose starters
/// for some games are the simplest legal bot).
fn starter_is_twin(starter: &Starter, lang: &str) -> bool {
    lang != "C" || starter.c.1.is_some()
}

/// How a starter that is a twin introduces itself.
fn twin_intro(starter: &Starter) -> String {
    format!(
        "It starts as a copy of the example twin of `house:{}`: it plays exactly as that house bot does.",
        starter.house
    )
}

fn readme(starter: &Starter, lang: &str, intro: &str, setup: &str) -> String {
    let game = starter.game;
    let house = starter.house;
    // With no opponent (a game played alone) no double space is left behind.
    let opponents = match opponents(game) {
        o if o.is_empty() => String::new(),
        o => format!(" {o}"),
    };
    let unchanged = if starter_is_twin(starter, lang) {
        format!(
            "Unchanged, it plays exactly like the\n\
             house bot it copies: the grader sees that (\"plays like house:{house}\") and it earns nothing for\n\
             beating that bot."
        )
    } else {
        "Unchanged, it plays the first legal move every turn,\n\
         which wins little: every point it earns is yours to add."
            .to_string()
    };
    let wit = if lang == "Rust" {
        format!("{VENDORED}/wit/0.2.0/{game}.wit")
    } else {
        format!("wit/{game}.wit")
    };
    format!(
        "# A {lang} bot for {game}\n\n\
         {intro}\n\
         Make it better, then check it and submit `bot.wasm`. {unchanged}\n\n\
         {setup}\
         ## Build, play, check\n\n\
         ```sh\n\
         ./build.sh                                    # writes bot.wasm\n\
         arena match --game {game} bot.wasm{opponents}\n\
         arena match --game {game} bot.wasm{opponents} --replay game.jsonl   # keep every move and your log\n\
         arena check --game {game} bot.wasm            # what the teacher's grader will see\n\
         ```\n\n\
         Every game gets a fresh instance of your bot. The view of each call carries the legal\n\
         moves; the rules of {game} are in `docs/rules/{game}.md` of the arena's repository, and the\n\
         interface your bot implements is `{wit}` here.\n\n\
         Fuel: the arena counts every WebAssembly instruction your bot runs, the same on every machine.\n\
         An interpreted language spends far more per decision than Rust (Python about 60 times,\n\
         JavaScript about 200 times); the default budgets leave every example bot at least 100 times\n\
         its need, and `budget()` tells your bot what is left.\n"
    )
}

fn rust_project(starter: &Starter, name: &str) -> anyhow::Result<Vec<(String, String)>> {
    let crate_file = name.replace('-', "_");
    let module = starter.game.replace('-', "_");
    let mut files: Vec<(String, String)> = vec![
        (
            "Cargo.toml".into(),
            format!(
                "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
                 [lib]\ncrate-type = [\"cdylib\"]\n\n\
                 [dependencies]\n# The arena's bot SDK, copied into this project by `arena new`.\n\
                 arena-bot-sdk = {{ path = \"{VENDORED}/bot-sdk\" }}\n\n\
                 # Small components: about 60 KB instead of 2.5 MB.\n\
                 [profile.release]\nopt-level = \"s\"\nlto = true\ncodegen-units = 1\nstrip = true\n\n\
                 # A workspace of its own, even inside another one.\n[workspace]\n"
            ),
        ),
        ("src/lib.rs".into(), starter_text(starter.rust, starter, "//")),
        (
            "build.sh".into(),
            format!(
                "#!/usr/bin/env bash\n# Build the bot: bot.wasm, a WebAssembly component.\nset -euo pipefail\ncd \"$(dirname \"$0\")\"\n\
                 # A failed build must not leave the last bot to be played as if it were this one.\n\
                 rm -f bot.wasm\n\
                 rustup target list --installed 2>/dev/null | grep -q wasm32-wasip2 || rustup target add wasm32-wasip2\n\
                 # An explicit target folder: a CARGO_TARGET_DIR set elsewhere must not move the build.\n\
                 cargo build --release --target wasm32-wasip2 --target-dir target --quiet\n\
                 cp target/wasm32-wasip2/release/{crate_file}.wasm bot.wasm\n"
            ),
        ),
        (".gitignore".into(), "/target\n/bot.wasm\n".into()),
        (
            "README.md".into(),
            readme(
                starter,
                "Rust",
                &twin_intro(starter),
                &format!(
                    "Your code is `src/lib.rs`; the SDK's documentation: `cargo doc --open` (module `arena_bot_sdk::{module}`).\n\
                     `{VENDORED}/` is a copy of the SDK and the game rules it calls, so the project builds wherever it is;\n\
                     leave it as it is.\n\n"
                ),
            ),
        ),
    ];
    for (path, text) in RUST_SDK {
        let text = if path.ends_with("Cargo.toml") {
            standalone_manifest(text, WORKSPACE_MANIFEST)?
        } else {
            text.to_string()
        };
        files.push((format!("{VENDORED}/{path}"), text));
    }
    files.extend(
        WIT.iter()
            .map(|(f, t)| (format!("{VENDORED}/wit/0.2.0/{f}"), t.to_string())),
    );
    Ok(files)
}

fn python_project(starter: &Starter) -> Vec<(String, String)> {
    let mut files = vec![
        ("app.py".to_string(), starter_text(starter.python, starter, "#")),
        (
            "build.sh".into(),
            format!(
                "#!/usr/bin/env bash\n# Build the bot: bot.wasm, a WebAssembly component with CPython inside.\nset -euo pipefail\ncd \"$(dirname \"$0\")\"\n\
                 # A failed build must not leave the last bot to be played as if it were this one.\n\
                 rm -f bot.wasm\n\
                 if ! command -v componentize-py >/dev/null; then\n\
                 \x20 echo \"build.sh: componentize-py is missing: python3 -m pip install componentize-py=={COMPONENTIZE_PY}\" >&2\n\
                 \x20 exit 1\nfi\n\
                 # Python's own syntax check first: its error in a second, with the file and line.\n\
                 python3 -m py_compile app.py\n\
                 componentize-py -d wit -w {game} componentize -p . app -o bot.wasm >/dev/null\n\
                 echo \"built bot.wasm\"\n",
                game = starter.game
            ),
        ),
        (".gitignore".into(), "/bot.wasm\n__pycache__/\n".into()),
        (
            "README.md".into(),
            readme(
                starter,
                "Python",
                &twin_intro(starter),
                &format!(
                    "Your code is `app.py`; `arena_bot/` is the SDK (read `arena_bot/{}.py` for the helpers).\n\
                     You need Python 3 and componentize-py {COMPONENTIZE_PY}: `python3 -m pip install componentize-py=={COMPONENTIZE_PY}`.\n\
                     The component carries its own CPython 3.14; only pure-Python modules can be imported\n\
                     (C extensions such as numpy are not available). An uncaught exception ends the game:\n\
                     its last line is the forfeit's reason and the whole traceback is in your log.\n\n",
                    starter.game.replace('-', "_")
                ),
            ),
        ),
    ];
    files.extend(
        PYTHON_SDK
            .iter()
            .map(|(f, t)| (format!("arena_bot/{f}"), t.to_string())),
    );
    files.extend(WIT.iter().map(|(f, t)| (format!("wit/{f}"), t.to_string())));
    files
}

fn js_project(starter: &Starter, name: &str) -> Vec<(String, String)> {
    let game = starter.game;
    let mut files = vec![
        ("bot.js".to_string(), starter_text(starter.js, starter, "//")),
        (
            "package.json".into(),
            format!(
                "{{\n  \"name\": \"{name}\",\n  \"private\": true,\n  \"type\": \"module\",\n  \"scripts\": {{\n    \
                 \"build\": \"esbuild bot.js --bundle --format=esm --platform=neutral --external:arena:* --outfile=build/bot.js --log-level=warning && componentize-js build/bot.js --wit wit --world-name {game} -o bot.wasm\"\n  }},\n  \
                 \"dependencies\": {{\n    \"arena-bot\": \"file:./arena-bot\"\n  }},\n  \
                 \"devDependencies\": {{\n    \"@bytecodealliance/componentize-js\": \"{COMPONENTIZE_JS}\",\n    \"@bytecodealliance/preview2-shim\": \"{PREVIEW2_SHIM}\",\n    \"esbuild\": \"{ESBUILD}\"\n  }}\n}}\n"
            ),
        ),
        (
            "build.sh".into(),
            "#!/usr/bin/env bash\n# Build the bot: bot.wasm, a WebAssembly component with SpiderMonkey inside.\nset -euo pipefail\ncd \"$(dirname \"$0\")\"\n\
                 # A failed build must not leave the last bot to be played as if it were this one.\n\
                 rm -f bot.wasm\n\
             [ -d node_modules ] || npm install --no-audit --no-fund --loglevel=error\n\
             npm run --silent build\n\
             echo \"built bot.wasm\"\n"
                .into(),
        ),
        (".gitignore".into(), "/bot.wasm\n/build\n/node_modules\n".into()),
        (
            "README.md".into(),
            readme(
                starter,
                "JavaScript",
                &twin_intro(starter),
                &format!(
                    "Your code is `bot.js`; `arena-bot/` is the SDK (read `arena-bot/src/{game}.js` for the helpers).\n\
                     You need Node.js and npm; `./build.sh` installs the pinned tools (componentize-js {COMPONENTIZE_JS},\n\
                     esbuild {ESBUILD}) into `node_modules` the first time. 64-bit numbers (the game's `seed`, fuel)\n\
                     arrive as BigInt. An uncaught exception ends the game; its message and where it was thrown\n\
                     are the forfeit's reason. A position such as `build/bot.js:87:7` is in `build/bot.js`, the one file\n\
                     `./build.sh` bundles your code and the SDK into: open that file at that line.\n\n"
                ),
            ),
        ),
        ("arena-bot/package.json".into(), JS_SDK_PACKAGE.replace("\"private\": true,\n", "")),
    ];
    files.extend(
        JS_SDK
            .iter()
            .map(|(f, t)| (format!("arena-bot/src/{f}"), t.to_string())),
    );
    files.extend(WIT.iter().map(|(f, t)| (format!("wit/{f}"), t.to_string())));
    files
}

fn c_project(starter: &Starter) -> Vec<(String, String)> {
    let game = starter.game;
    let module = game.replace('-', "_");
    let intro = match starter.c.1 {
        Some(_) => twin_intro(starter),
        None => "It starts as the simplest legal bot (the first legal choice every turn).".to_string(),
    };
    let text = match starter.c.1 {
        Some(_) => starter_text(starter.c.0, starter, "//"),
        None => format!(
            "// Your bot: make it better. The rules: docs/rules/{game}.md in the arena's repository.\n{}",
            starter.c.0
        ),
    };
    vec![
        ("bot.c".to_string(), text),
        ("arena_rng.h".into(), C_RNG.to_string()),
        (format!("bindings/{module}.c"), starter.c_bindings.0.to_string()),
        (format!("bindings/{module}.h"), starter.c_bindings.1.to_string()),
        (
            "build.sh".into(),
            format!(
                "#!/usr/bin/env bash\n# Build the bot: bot.wasm, a WebAssembly component.\nset -euo pipefail\ncd \"$(dirname \"$0\")\"\n\
                 # A failed build must not leave the last bot to be played as if it were this one.\n\
                 rm -f bot.wasm\n\
                 for tool in clang wasm-ld; do\n\
                 \x20 command -v \"$tool\" >/dev/null || {{ echo \"build.sh: $tool is missing: apt-get install -y clang lld wasi-libc libclang-rt-14-dev-wasm32\" >&2; exit 1; }}\n\
                 done\n\
                 mkdir -p build\n\
                 clang --target=wasm32-wasi -mexec-model=reactor -O2 -Wl,--strip-debug -Ibindings -I. \\\n\
                 \x20 -o build/core.wasm bot.c bindings/{module}.c bindings/{module}_component_type.o\n\
                 # A core module for WASI preview 1; the arena makes it a component (wasmtime's adapter).\n\
                 \"${{ARENA:-arena}}\" componentize build/core.wasm -o bot.wasm\n\
                 echo \"built bot.wasm\"\n"
            ),
        ),
        (".gitignore".into(), "/bot.wasm\n/build\n".into()),
        (
            "README.md".into(),
            readme(
                starter,
                "C",
                &intro,
                &format!(
                    "Your code is `bot.c`; `bindings/{module}.h` has the game's types (generated by wit-bindgen 0.46 from\n\
                 `wit/`), `arena_rng.h` a generator that draws what the Rust SDK's `Rng` draws.\n\
                 You need Debian's `clang lld wasi-libc libclang-rt-14-dev-wasm32` and `arena` on your PATH (or `ARENA=...`).\n\
                 Your functions own their arguments: call the `..._free` function of each one you are given; a list you\n\
                 return must be `malloc`ed (the bindings free it). C++ works too, with `-fno-exceptions`.\n\n"
                ),
            ),
        ),
        ("wit/host.wit".into(), wit_file("host.wit").to_string()),
        (format!("wit/{game}.wit"), wit_file(&format!("{game}.wit")).to_string()),
    ]
}

/// A file of the newest WIT package, by its name.
fn wit_file(name: &str) -> &'static str {
    WIT.iter().find(|(f, _)| *f == name).map_or("", |w| w.1)
}

#[cfg(unix)]
fn make_executable(path: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("{}: cannot make it executable", path.display()))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> anyhow::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_become_package_names() {
        assert_eq!(crate_name(Path::new("/x/My Bot")), "my-bot");
        assert_eq!(crate_name(Path::new("2025_fencer")), "bot-2025-fencer");
        assert_eq!(crate_name(Path::new("élan")), "lan");
    }

    /// The copy of the Rust SDK a project gets is every file of the SDK and
    /// the crates it builds on: a file added there and not here would break
    /// every new Rust project.
    #[test]
    fn the_vendored_rust_sdk_is_every_file_of_its_crates() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut on_disk = Vec::new();
        fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).expect("a source folder") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    walk(root, &path, out);
                } else {
                    out.push(path.strip_prefix(root).expect("inside").display().to_string());
                }
            }
        }
        for crate_dir in ["bot-sdk/src", "host/core/src", "host/games/src"] {
            walk(&root, &root.join(crate_dir), &mut on_disk);
        }
        on_disk.extend(["bot-sdk/Cargo.toml", "host/core/Cargo.toml", "host/games/Cargo.toml"].map(String::from));
        on_disk.sort();
        let mut listed: Vec<String> = RUST_SDK.iter().map(|(p, _)| p.to_string()).collect();
        listed.sort();
        assert_eq!(listed, on_disk);
        let wit: Vec<String> = std::fs::read_dir(root.join("wit/0.2.0"))
            .expect("wit/0.2.0")
            .map(|e| e.expect("an entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(wit.len(), WIT.len(), "{wit:?}");
    }

    /// A copied manifest inherits nothing: versions and features come from the workspace.
    #[test]
    fn a_vendored_manifest_stands_alone() {
        let games = RUST_SDK
            .iter()
            .find(|(p, _)| *p == "host/games/Cargo.toml")
            .expect("listed")
            .1;
        let text = standalone_manifest(games, WORKSPACE_MANIFEST).expect("rewritten");
        assert!(!text.contains("workspace"), "{text}");
        let t: toml::Table = text.parse().expect("TOML");
        assert_eq!(t["package"]["edition"].as_str(), Some("2024"));
        assert_eq!(t["dependencies"]["arena-core"]["path"].as_str(), Some("../core"));
        assert_eq!(t["dependencies"]["rand"]["version"].as_str(), Some("0.9"));
        assert_eq!(t["dependencies"]["rand"]["default-features"].as_bool(), Some(false));
        let features = t["dependencies"]["rand"]["features"].as_array().expect("features");
        assert!(features.iter().any(|f| f.as_str() == Some("std")), "{text}");
    }

    #[test]
    fn every_game_has_a_starter() {
        for game in arena_runner::adapters::GAMES {
            if let Err(e) = Starter::of(*game) {
                panic!("{e:#}");
            }
        }
    }

    /// Each README says what its project holds: the WIT file it names is in
    /// the project, and it claims to play like a house bot only when it does.
    #[test]
    fn every_readme_names_files_the_project_has_and_claims_no_twin_it_is_not() {
        for game in arena_runner::adapters::GAMES {
            let starter = &Starter::of(*game).expect("a starter");
            let projects = [
                ("Rust", rust_project(starter, "bot").expect("a Rust project")),
                ("Python", python_project(starter)),
                ("JavaScript", js_project(starter, "bot")),
                ("C", c_project(starter)),
            ];
            for (lang, files) in projects {
                let readme = &files.iter().find(|(p, _)| p == "README.md").expect("a README").1;
                let named = readme
                    .split('`')
                    .find(|w| w.ends_with(&format!("{}.wit", starter.game)))
                    .unwrap_or_else(|| panic!("{} {lang}: no WIT file named", starter.game));
                assert!(
                    files.iter().any(|(p, _)| p == named),
                    "{} {lang}: {named}",
                    starter.game
                );
                assert_eq!(
                    readme.contains("plays exactly like the"),
                    starter_is_twin(starter, lang),
                    "{} {lang}",
                    starter.game
                );
                assert!(
                    !readme.contains("bot.wasm  --"),
                    "{} {lang}: a double space",
                    starter.game
                );
            }
        }
    }
}
