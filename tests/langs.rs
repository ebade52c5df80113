//! Bots in Python and JavaScript are first class: the example twins built
//! with componentize-py, componentize-js (as it builds by default) and
//! componentize-qjs play exactly the games of their house twins; their
//! generators draw exactly what Rust's draws; their failures read as the
//! student wrote them.

use arena::adapters;
use arena::runner::{BotRef, Entrant, GameSetup, MatchOutcome, MatchSpec, run_match};
use arena::sandbox::Sandbox;
use arena_tests::{arena, arena_bin, bot_cache, lang_bot, root, temp};
use rand::{Rng, SeedableRng};
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, OnceLock};

/// One sandbox per game, under the game's default limits, sharing compiled
/// bots between tests (each interpreter takes seconds to compile).
fn sandbox(game: &str) -> &'static Sandbox {
    static SANDBOXES: OnceLock<Vec<(&'static str, Sandbox)>> = OnceLock::new();
    let all = SANDBOXES.get_or_init(|| {
        adapters::GAMES
            .iter()
            .map(|g| {
                let sandbox = adapters::sandbox(g.about().limits.clone())
                    .expect("sandbox")
                    .with_disk_cache(bot_cache());
                (g.name(), sandbox)
            })
            .collect()
    });
    &all.iter().find(|(g, _)| *g == game).expect("a known game").1
}

fn entrant(game: &str, spec: &str) -> Entrant {
    if let Some(name) = spec.strip_prefix("house:") {
        return Entrant {
            name: spec.to_string(),
            bot: BotRef::House(name.to_string()),
        };
    }
    let def = adapters::game(game).expect("a known game");
    let program = sandbox(game)
        .load(&lang_bot(&format!("{game}/{spec}")), def.worlds())
        .unwrap_or_else(|e| panic!("{e}"));
    Entrant {
        name: spec.to_string(),
        bot: BotRef::Wasm(Arc::new(program)),
    }
}

fn play(game: &str, bots: &[&str], games: usize, seed: u64) -> MatchOutcome {
    let spec = MatchSpec {
        game: adapters::game(game).expect("a known game"),
        setup: GameSetup::new(sandbox(game)),
        entrants: bots.iter().map(|b| entrant(game, b)).collect(),
        games,
        seed,
        record: false,
    };
    run_match(&spec).expect("the match is set up right")
}

/// `bot` (a built twin) plays exactly the games of `house:<its house bot>`
/// in its seat, against the same `others`.
fn assert_twin(game: &str, bot: &str, others: &[&str], games: usize, seed: u64) {
    let house = format!("house:{}", bot.rsplit_once('-').expect("a language suffix").0);
    let with = |first: &str| {
        let mut bots = vec![first];
        bots.extend_from_slice(others);
        play(game, &bots, games, seed)
    };
    let twin = with(bot);
    let native = with(&house);
    assert_eq!(twin.report.results.len(), native.report.results.len());
    assert!(
        twin.report.results.iter().all(|r| r.forfeit.is_none()),
        "{bot} forfeited: {:?}",
        twin.report.results.iter().find_map(|r| r.forfeit.as_ref())
    );
    assert_eq!(twin.report.results, native.report.results, "{game}: {bot} vs {house}");
}

/// The toolchains every twin is built with. Each twin plays 30 games of En
/// Garde, 20 of ConnectFwar, 4 of Sugargame (whole seat rotations): a port
/// that differs does so within its first games, and the interpreted twins
/// were a third of the integration tests' time at twice these counts.
const LANGS: [&str; 3] = ["py", "js", "qjs"];

#[test]
fn en_garde_twins_in_python_and_javascript_play_like_the_house_bots() {
    for lang in LANGS {
        assert_twin("en-garde", &format!("aggressive-{lang}"), &["house:random"], 30, 42);
        assert_twin("en-garde", &format!("cowardly-{lang}"), &["house:aggressive"], 30, 7);
    }
    assert_twin("en-garde", "random-py", &["house:aggressive"], 30, 9);
    assert_twin("en-garde", "random-js", &["house:cowardly"], 30, 9);
}

#[test]
fn connect_fwar_twins_in_python_and_javascript_score_like_the_house_bots() {
    for lang in LANGS {
        for bot in ["basic", "suits", "ranks"] {
            assert_twin("connect-fwar", &format!("{bot}-{lang}"), &[], 20, 5);
        }
    }
    assert_twin("connect-fwar", "random-py", &[], 20, 5);
    assert_twin("connect-fwar", "random-js", &[], 20, 5);
}

#[test]
fn sugar_twins_in_python_and_javascript_play_like_the_house_bots() {
    for lang in LANGS {
        assert_twin("sugar", &format!("greedy-{lang}"), &["house:hunter"], 4, 3);
        assert_twin("sugar", &format!("hunter-{lang}"), &["house:random"], 4, 4);
    }
    assert_twin("sugar", "random-py", &["house:greedy"], 4, 5);
    assert_twin("sugar", "random-js", &["house:greedy"], 4, 5);
}

#[test]
fn president_twins_in_python_and_javascript_play_like_the_house_bots() {
    for lang in LANGS {
        assert_twin(
            "president",
            &format!("lowest-{lang}"),
            &["house:random", "house:lowest"],
            6,
            11,
        );
    }
    assert_twin(
        "president",
        "random-py",
        &["house:lowest", "house:random", "house:lowest"],
        4,
        12,
    );
    assert_twin("president", "random-js", &["house:lowest", "house:random"], 6, 13);
}

/// componentize-qjs 0.4 hands a u64 to JavaScript as a float, so a seed
/// above 2^53 arrives rounded and a QuickJS bot cannot draw what Rust draws;
/// its random twins still play legal games, and the SDK says why they differ.
#[test]
fn quickjs_random_twins_play_legal_games_and_log_why_they_differ() {
    for (game, bot, others) in [
        ("en-garde", "random-qjs", &["house:aggressive"][..]),
        ("connect-fwar", "random-qjs", &[][..]),
        ("sugar", "random-qjs", &["house:greedy"][..]),
        ("president", "random-qjs", &["house:lowest", "house:lowest"][..]),
    ] {
        let mut bots = vec![bot];
        bots.extend_from_slice(others);
        let spec = MatchSpec {
            game: adapters::game(game).expect("a known game"),
            setup: GameSetup::new(sandbox(game)),
            entrants: bots.iter().map(|b| entrant(game, b)).collect(),
            games: 4,
            seed: 1,
            record: true,
        };
        let out = run_match(&spec).expect("set up");
        assert!(out.report.results.iter().all(|r| r.forfeit.is_none()), "{game}: {bot}");
        let events = serde_json::to_string(&out.events).expect("json");
        assert!(
            events.contains("arrived as a float"),
            "{game}: {bot} should log why its draws differ"
        );
    }
}

/// The SDKs' generators against rand_chacha itself: the same seeds give
/// the same words and the same bounded draws (including the bias-reducing
/// second draw, which small ranges hit too).
#[test]
fn python_and_javascript_generators_draw_what_rust_draws() {
    let seeds = [0u64, 1, 42, 12_345_678_901_234_567_890, u64::MAX];
    let mut expected = String::new();
    for seed in seeds {
        let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let words: Vec<String> = (0..70).map(|_| r.random::<u32>().to_string()).collect();
        let draws: Vec<String> = (0..300u32)
            .map(|i| {
                r.random_range(0..[1, 2, 3, 7, 52, 1000, 0x8000_0001, u32::MAX][i as usize % 8])
                    .to_string()
            })
            .collect();
        expected += &format!("{} {}\n", words.join(","), draws.join(","));
    }
    let seeds_list = seeds.map(|s| s.to_string()).join(",");
    // rng.py alone: the package's __init__ needs the component's bindings.
    let python = format!(
        "import sys; sys.path.insert(0, {sdk:?})\n\
         from rng import Rng\n\
         for seed in [{seeds_list}]:\n\
         \x20   r = Rng(seed)\n\
         \x20   words = [str(r.next_u32()) for _ in range(70)]\n\
         \x20   ns = [1, 2, 3, 7, 52, 1000, 0x80000001, 0xFFFFFFFF]\n\
         \x20   draws = [str(r.random_range(ns[i % 8])) for i in range(300)]\n\
         \x20   print(','.join(words), ','.join(draws))\n",
        sdk = root().join("bot-sdk/python/arena_bot").display().to_string()
    );
    let out = Command::new("python3")
        .args(["-c", &python])
        .output()
        .expect("run python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected, "Python");

    let js = format!(
        "import {{ Rng }} from {rng:?};\n\
         for (const seed of [{js_seeds}]) {{\n\
           const r = new Rng(seed);\n\
           const words = Array.from({{ length: 70 }}, () => r.nextU32());\n\
           const ns = [1, 2, 3, 7, 52, 1000, 0x80000001, 0xffffffff];\n\
           const draws = Array.from({{ length: 300 }}, (_, i) => r.randomRange(ns[i % 8]));\n\
           console.log(words.join(',') + ' ' + draws.join(','));\n\
         }}\n",
        rng = format!("file://{}", root().join("bot-sdk/js/src/rng.js").display()),
        js_seeds = seeds.map(|s| format!("{s}n")).join(", ")
    );
    let out = Command::new("node")
        .args(["--input-type=module", "-e", &js])
        .output()
        .expect("run node");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected, "JavaScript");
}

fn first_forfeit(game: &str, bot: &str) -> String {
    let out = play(game, &[bot, "house:aggressive"], 2, 1);
    let forfeit = out.report.results.iter().find_map(|r| r.forfeit.clone());
    format!("{:?}", forfeit.unwrap_or_else(|| panic!("{bot} should forfeit")))
}

/// An uncaught exception forfeits with its own words: the exception's type
/// and message, and where (the Python file and line, the JS function).
#[test]
fn an_uncaught_exception_forfeits_with_its_message_in_each_language() {
    let py = first_forfeit("en-garde", "crashes-py");
    assert!(
        py.contains("KeyError: 'no such key' (app.py, line 11, in choose_move)"),
        "{py}"
    );
    let js = first_forfeit("en-garde", "crashes-js");
    assert!(js.contains("TypeError: ") && js.contains("(at chooseMove@"), "{js}");
    let qjs = first_forfeit("en-garde", "crashes-qjs");
    assert!(qjs.contains("TypeError: cannot read property 'card' of null"), "{qjs}");
    for detail in [&py, &js, &qjs] {
        assert!(!detail.contains("unreachable"), "no wasm words for a student: {detail}");
    }
}

/// A default componentize-js build imports wasi:http: it loads, and the
/// first real use ends the game with a reason a student can act on.
#[test]
fn a_default_componentize_js_build_loads_and_has_no_network() {
    let detail = first_forfeit("en-garde", "fetches-js");
    assert!(detail.contains("bots have no network"), "{detail}");
}

/// componentize-qjs without `--sync` uses the component model's async ABI,
/// which the arena does not run: one line says what to change.
#[test]
fn a_quickjs_build_without_sync_is_refused_with_the_fix() {
    let def = adapters::game("en-garde").expect("en-garde");
    let error = match sandbox("en-garde").load(&lang_bot("en-garde/aggressive-qjs-async"), def.worlds()) {
        Ok(_) => panic!("an async build should not load"),
        Err(e) => e.to_string(),
    };
    assert!(error.contains("async ABI") && error.contains("add --sync"), "{error}");
    assert_eq!(error.lines().count(), 1, "{error}");
}

#[test]
fn source_files_passed_instead_of_a_build_say_how_to_build() {
    for (file, says) in [
        ("example-bots/python/en-garde/aggressive/app.py", "Python source"),
        ("example-bots/js/en-garde/aggressive.js", "JavaScript source"),
    ] {
        let def = adapters::game("en-garde").expect("en-garde");
        let error = match sandbox("en-garde").load(&root().join(file), def.worlds()) {
            Ok(_) => panic!("{file} should not load"),
            Err(e) => e.to_string(),
        };
        assert!(error.contains(says) && error.contains("build it with"), "{error}");
        assert_eq!(error.lines().count(), 1, "{error}");
    }
}

/// `arena new` writes a project that builds with one command and plays with
/// the next; it starts as a copy of a house bot's twin, so its first build
/// plays exactly the games of that house bot.
#[test]
fn new_projects_build_with_one_command_and_play_like_their_house_bot() {
    lang_bot("en-garde/aggressive-py");
    let dir = temp("new-projects");
    for (game, lang, house, opponents) in [
        ("en-garde", "python", "aggressive", &["house:random"][..]),
        ("en-garde", "js", "aggressive", &["house:random"][..]),
        ("en-garde", "rust", "aggressive", &["house:random"][..]),
        ("president", "python", "lowest", &["house:random", "house:lowest"][..]),
        ("sugar", "js", "greedy", &["house:hunter"][..]),
        ("connect-fwar", "rust", "basic", &[][..]),
        ("en-garde", "c", "aggressive", &["house:random"][..]),
        ("connect-fwar", "c", "basic", &[][..]),
    ] {
        let project = dir.join(format!("{game}-{lang}"));
        let out = arena(&["new", "--game", game, "--lang", lang, &project.display().to_string()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(said.contains("build.sh") && said.contains("arena match"), "{said}");
        // A project is handed out and moved: it must build without the arena checkout's paths.
        let project = if lang == "rust" {
            let manifest = std::fs::read_to_string(project.join("Cargo.toml")).expect("Cargo.toml");
            assert!(!manifest.contains(&root().display().to_string()), "{manifest}");
            let moved = dir.join(format!("{game}-{lang}-moved"));
            std::fs::rename(&project, &moved).expect("move the project");
            // The Rust projects share one target folder, as a student's
            // projects may: the SDK's dependencies compile once.
            let shared = dir.join("rust-target");
            std::fs::create_dir_all(&shared).expect("a target folder");
            std::os::unix::fs::symlink(&shared, moved.join("target")).expect("link the target folder");
            moved
        } else {
            project
        };
        let build = Command::new(project.join("build.sh"))
            .env("ARENA", arena_bin())
            .output()
            .expect("run build.sh");
        assert!(
            build.status.success(),
            "{game} {lang}: build.sh failed: {}",
            String::from_utf8_lossy(&build.stderr)
        );
        let result = |first: &str| {
            let mut args = vec!["match", "--game", game, "--json", "--games", "8", first];
            args.extend_from_slice(opponents);
            let out = Command::new(arena_bin())
                .args(&args)
                .env("ARENA_CACHE_DIR", bot_cache())
                .output()
                .expect("run arena");
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
            json["results"].clone()
        };
        let built = project.join("bot.wasm").display().to_string();
        assert_eq!(result(&built), result(&format!("house:{house}")), "{game} {lang}");
    }
    let again = arena(&[
        "new",
        "--game",
        "en-garde",
        "--lang",
        "python",
        &dir.join("en-garde-python").display().to_string(),
    ]);
    assert!(!again.status.success(), "an existing project is never overwritten");
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(stderr.contains("already exists"), "{stderr}");
    // Six projects with their toolchains' output are over a gigabyte: keep no copy.
    std::fs::remove_dir_all(&dir).ok();
}

/// Build a C example (`example-bots/c/GAME/NAME.c`) as a student would:
/// Debian's clang for WASI preview 1, then `arena componentize`.
fn c_bot(game: &str, name: &str) -> PathBuf {
    let module = game.replace('-', "_");
    let sdk = root().join("bot-sdk/c");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("c-bots");
    std::fs::create_dir_all(&out).expect("a folder for C bots");
    let core = out.join(format!("{game}-{name}.core.wasm"));
    let clang = Command::new("clang")
        .args([
            "--target=wasm32-wasi",
            "-mexec-model=reactor",
            "-O2",
            "-Wl,--strip-debug",
        ])
        .arg(format!("-I{}", sdk.join(game).display()))
        .arg(format!("-I{}", sdk.display()))
        .arg("-o")
        .arg(&core)
        .arg(root().join(format!("example-bots/c/{game}/{name}.c")))
        .arg(sdk.join(format!("{game}/{module}.c")))
        .arg(sdk.join(format!("{game}/{module}_component_type.o")))
        .output()
        .expect("run clang (apt-get install -y clang lld wasi-libc libclang-rt-14-dev-wasm32)");
    assert!(
        clang.status.success(),
        "clang: {}",
        String::from_utf8_lossy(&clang.stderr)
    );
    let bot = out.join(format!("{game}-{name}.wasm"));
    let made = arena(&[
        "componentize",
        &core.display().to_string(),
        "-o",
        &bot.display().to_string(),
    ]);
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    bot
}

fn play_files(game: &str, bots: &[&str], games: usize, seed: u64) -> MatchOutcome {
    let def = adapters::game(game).expect("a known game");
    let entrants = bots
        .iter()
        .map(|spec| match spec.strip_prefix("house:") {
            Some(name) => Entrant {
                name: spec.to_string(),
                bot: BotRef::House(name.to_string()),
            },
            None => Entrant {
                name: spec.to_string(),
                bot: BotRef::Wasm(Arc::new(
                    sandbox(game)
                        .load(std::path::Path::new(spec), def.worlds())
                        .unwrap_or_else(|e| panic!("{e}")),
                )),
            },
        })
        .collect();
    let spec = MatchSpec {
        game: def,
        setup: GameSetup::new(sandbox(game)),
        entrants,
        games,
        seed,
        record: false,
    };
    run_match(&spec).expect("the match is set up right")
}

/// C through Debian's clang and wasi-libc, made a component by `arena
/// componentize`: the twins play the house bots' games (the random ones
/// draw with `arena_rng.h`), and the simplest bots of the other games play
/// legal games.
#[test]
fn c_twins_built_with_clang_play_like_the_house_bots() {
    for (game, name, others, games) in [
        ("en-garde", "aggressive", &["house:random"][..], 60),
        ("en-garde", "cowardly", &["house:aggressive"][..], 60),
        ("en-garde", "random", &["house:cowardly"][..], 60),
        ("connect-fwar", "basic", &[][..], 40),
        ("connect-fwar", "suits", &[][..], 40),
        ("connect-fwar", "ranks", &[][..], 40),
        ("connect-fwar", "random", &[][..], 40),
    ] {
        let bot = c_bot(game, name).display().to_string();
        let with = |first: &str| {
            let mut bots = vec![first];
            bots.extend_from_slice(others);
            play_files(game, &bots, games, 21)
        };
        let twin = with(&bot);
        assert!(twin.report.results.iter().all(|r| r.forfeit.is_none()), "{game} {name}");
        assert_eq!(
            twin.report.results,
            with(&format!("house:{name}")).report.results,
            "{game}: {name} in C"
        );
    }
    for (game, others) in [
        ("sugar", &["house:greedy"][..]),
        ("president", &["house:lowest", "house:random"][..]),
    ] {
        let bot = c_bot(game, "first").display().to_string();
        let mut bots = vec![bot.as_str()];
        bots.extend_from_slice(others);
        let out = play_files(game, &bots, 6, 2);
        assert!(
            out.report.results.iter().all(|r| r.forfeit.is_none()),
            "{game}: first in C"
        );
    }
}

#[test]
fn componentize_refuses_what_it_cannot_make_a_bot_of_in_one_line() {
    let dir = temp("componentize");
    let text = dir.join("notes.txt");
    std::fs::write(&text, "hello").expect("write");
    let out = arena(&[
        "componentize",
        &text.display().to_string(),
        "-o",
        &dir.join("x.wasm").display().to_string(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("not a WebAssembly module"),
        "{stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    let component = lang_bot("en-garde/aggressive").display().to_string();
    let out = arena(&[
        "componentize",
        &component,
        "-o",
        &dir.join("y.wasm").display().to_string(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("already a component"),
        "{stderr}"
    );
}

/// A Python syntax error stops `build.sh` in a second with Python's own
/// message (file and line), and a failed build leaves no `bot.wasm` behind
/// for the next match to play as if it were the new one.
#[test]
fn a_python_syntax_error_fails_the_build_at_once_and_leaves_no_stale_bot() {
    let project = temp("new-syntax-error").join("bot");
    let out = arena(&[
        "new",
        "--game",
        "en-garde",
        "--lang",
        "python",
        &project.display().to_string(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(project.join("bot.wasm"), b"an old build").unwrap();
    let mut app = std::fs::read_to_string(project.join("app.py")).unwrap();
    app.push_str("\ndef broken(:\n");
    std::fs::write(project.join("app.py"), app).unwrap();
    let build = Command::new(project.join("build.sh")).output().expect("run build.sh");
    let stderr = String::from_utf8_lossy(&build.stderr);
    assert!(!build.status.success());
    assert!(
        stderr.contains("File \"app.py\", line") && stderr.contains("SyntaxError"),
        "{stderr}"
    );
    assert!(!project.join("bot.wasm").exists(), "the old bot.wasm is gone");
}
