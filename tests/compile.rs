//! Compilation under limits: a component whose code has a shape that takes
//! minutes to compile is refused before compiling, one within the shape
//! limits that still takes too long or too much memory is stopped by the
//! compiler process's limits, each in one line, and the other bots of a
//! tournament still play.

use arena_tests::{arena, assert_one_line_error, bot, temp};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use wasm_encoder::{
    BlockType, CodeSection, Component, Function, FunctionSection, Instruction, Module, ModuleSection, TypeSection,
    ValType,
};

/// Nested blocks in the bomb: without limits Cranelift takes about 90 s and
/// half a gigabyte for it, in a file of about 1.4 MB that takes a moment to
/// write. The shape limits refuse it before compiling.
const DEPTH: u32 = 200_000;

/// A component holding a core module of `functions` functions of `depth`
/// nested blocks, each left by a `br_if`: Cranelift's time grows with the
/// square of the depth. It is not a bot of any world; it is refused before
/// or while compiling.
fn compile_bomb(depth: u32, functions: u32) -> Vec<u8> {
    let mut types = TypeSection::new();
    types.ty().function([ValType::I32], []);
    let mut section = FunctionSection::new();
    let mut body = Function::new([]);
    for _ in 0..depth {
        body.instruction(&Instruction::Block(BlockType::Empty));
    }
    for _ in 0..depth {
        body.instruction(&Instruction::LocalGet(0));
        body.instruction(&Instruction::BrIf(0));
        body.instruction(&Instruction::End);
    }
    body.instruction(&Instruction::End);
    let mut code = CodeSection::new();
    for _ in 0..functions {
        section.function(0);
        code.function(&body);
    }
    let mut module = Module::new();
    module.section(&types).section(&section).section(&code);
    let mut component = Component::new();
    component.section(&ModuleSection(&module));
    component.finish()
}

/// The bomb written into `dir` as `name.wasm`.
pub(crate) fn write_bomb(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(format!("{name}.wasm"));
    std::fs::write(&path, compile_bomb(DEPTH, 1)).unwrap();
    path
}

/// Code within every shape limit that still takes about 15 s of CPU to
/// compile here: 20 functions 9,000 deep.
fn write_slow(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(format!("{name}.wasm"));
    std::fs::write(&path, compile_bomb(9_000, 20)).unwrap();
    path
}

/// Timings do not belong in tests: the message says which limit stopped
/// the compiler; this bound is only a hang guard ("not the many minutes an
/// unbounded compile takes"), wide enough for a machine loaded 7 times
/// over (a full test run at load 15 on 2 cores took 32 s for the 256 MiB
/// case).
const NOT_MINUTES: Duration = Duration::from_secs(180);

#[test]
fn a_compile_bomb_is_refused_by_its_shape_before_compiling() {
    let dir = temp("bomb");
    let bomb = write_bomb(&dir, "bomb").display().to_string();
    let start = Instant::now();
    assert_one_line_error(
        &["match", "--game", "en-garde", &bomb, "house:aggressive", "--games", "2"],
        "bomb.wasm: a function nests blocks 200000 deep, over the limit of 10000; code of this shape takes the \
         compiler minutes on any machine",
    );
    let took = start.elapsed();
    assert!(took < NOT_MINUTES, "refused after {took:?}");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn code_within_the_shape_limits_is_still_stopped_at_the_compile_time_limit() {
    let dir = temp("slow");
    let slow = write_slow(&dir, "slow").display().to_string();
    let start = Instant::now();
    assert_one_line_error(
        &[
            "match",
            "--game",
            "en-garde",
            &slow,
            "house:aggressive",
            "--compile-seconds",
            "2",
        ],
        // Over 2 s of CPU time (the wall clock, 20 s, is only a backstop).
        "slow.wasm: took more than 2 s to compile (the limit is --compile-seconds)",
    );
    let took = start.elapsed();
    assert!(took < NOT_MINUTES, "rejected after {took:?}");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn too_little_memory_to_compile_is_one_line_naming_the_flag() {
    // The Python bot's 18 MB take about 400 MB to compile.
    let python = arena_tests::lang_bot("en-garde/aggressive-py").display().to_string();
    let start = Instant::now();
    assert_one_line_error(
        &[
            "match",
            "--game",
            "en-garde",
            &python,
            "house:aggressive",
            "--compile-memory",
            "256M",
            // Another test may have compiled it into the tests' cache.
            "--no-cache",
        ],
        "aggressive-py.wasm: needed more than 256 MiB of memory to compile (the limit is --compile-memory)",
    );
    let took = start.elapsed();
    assert!(took < NOT_MINUTES, "rejected after {took:?}");
}

#[test]
fn a_compile_bomb_in_a_tournament_is_disqualified_and_the_rest_play() {
    let dir = temp("bomb-tournament");
    write_slow(&dir, "bomb");
    for kind in ["aggressive", "random"] {
        std::fs::copy(bot(&format!("en-garde/{kind}")), dir.join(format!("{kind}.wasm"))).unwrap();
    }
    let d = dir.display().to_string();
    let start = Instant::now();
    let out = arena(&[
        "tournament",
        "--game",
        "en-garde",
        "--format",
        "round-robin",
        "--dir",
        &d,
        "--games",
        "2",
        "--json",
        "--compile-seconds",
        "2",
    ]);
    let took = start.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(took < NOT_MINUTES, "finished after {took:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let names: Vec<&str> = v["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.contains(&"aggressive") && names.contains(&"random"), "{names:?}");
    assert!(v["standings"].as_array().unwrap().iter().all(|s| s["games"] == 2));
    let dq = v["disqualified"].as_array().unwrap();
    assert_eq!(dq.len(), 1);
    assert_eq!(dq[0]["name"], "bomb");
    let reason = dq[0]["reason"].as_str().unwrap();
    assert!(reason.contains("bomb.wasm: took more than"), "{reason}");
    assert!(
        reason.contains("to compile (the limit is --compile-seconds)"),
        "{reason}"
    );
    assert!(stderr.contains("disqualified bomb:"), "{stderr}");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn normal_bots_compile_in_the_compiler_process_and_play() {
    let out = arena(&[
        "match",
        "--game",
        "en-garde",
        &bot("en-garde/aggressive").display().to_string(),
        &bot("en-garde/random").display().to_string(),
        "--games",
        "2",
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
