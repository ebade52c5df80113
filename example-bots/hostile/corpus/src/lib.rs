//! The hostile corpus: one crate, many attacks, one attack per build.
//!
//! `ARENA_ATTACK` (read when compiling) names the attack, as
//! `<world>-<export>-<kind>`; a cargo feature picks the world. Every export
//! first calls [`strike`] with its own name (`connect-fwar-column`,
//! `en-garde-start`, ...): if the attack is aimed at it and its kind is one
//! any export can do (below), it happens there. Otherwise the bot plays
//! legal moves, except for answers only its world can give (in the world's
//! module). `attacks.txt` lists every attack built.

use std::hint::black_box;

#[cfg(feature = "connect-fwar")]
mod connect_fwar;
#[cfg(feature = "en-garde")]
mod en_garde;
#[cfg(feature = "president")]
mod president;
#[cfg(feature = "sugar")]
mod sugar;

/// The attack this build makes.
const ATTACK: &str = match option_env!("ARENA_ATTACK") {
    Some(attack) => attack,
    None => "none",
};

/// Whether this build makes `attack`.
#[allow(dead_code)] // unused in a build without a world
fn is(attack: &str) -> bool {
    ATTACK == attack
}

/// Attack from `export` if this build's attack is aimed at it.
#[allow(dead_code)] // unused in a build without a world
fn strike(export: &str) {
    let Some(kind) = ATTACK.strip_prefix(export).and_then(|k| k.strip_prefix('-')) else {
        return;
    };
    match kind {
        "trap" => core::arch::wasm32::unreachable(),
        "loop" => loop {
            black_box(());
        },
        "memory" => hog(),
        "recursion" => {
            black_box(dive(0, [0; 16]));
        }
        "panic" => panic!("the corpus panics in {export}"),
        "log-flood" => flood(),
        "exit" => std::process::exit(3),
        "clock-loop" => loop {
            black_box(std::time::Instant::now());
            black_box(std::time::SystemTime::now());
        },
        "files" => files(),
        "sockets" => sockets(),
        "env" => env(),
        "hold-61mib" => hold(61 << 20),
        // Not an attack: a bot that plays on and keeps notes a classmate
        // must never read (the course server's class walkthrough).
        "notes" => arena_bot_sdk::log(&format!("private strategy notes of {export}: play the first legal move")),
        _ => {} // an answer only the world can give
    }
}

/// Allocate and touch a megabyte at a time until the memory cap refuses.
fn hog() -> ! {
    let mut hoard = Vec::new();
    loop {
        hoard.push(black_box(vec![1u8; 1 << 20]));
    }
}

#[allow(unconditional_recursion)] // the point
fn dive(n: u64, pad: [u64; 16]) -> u64 {
    let mut next = pad;
    next[(n % 16) as usize] = n;
    black_box(dive(n + 1, black_box(next))) + next[0]
}

/// 800 KB to the log and stdout, far over the cap; then the bot plays on.
fn flood() {
    let line = "y".repeat(4096);
    for _ in 0..100 {
        arena_bot_sdk::log(&line);
        println!("{line}");
    }
}

fn files() {
    let read = std::fs::read("/etc/passwd").map(|b| b.len());
    let create = std::fs::File::create("pwned.txt").map(|_| ());
    let list = std::fs::read_dir("/").map(|d| d.count());
    arena_bot_sdk::log(&format!("files: read {read:?}; create {create:?}; list {list:?}"));
}

fn sockets() {
    use std::net::{TcpStream, ToSocketAddrs, UdpSocket};
    let tcp = TcpStream::connect("127.0.0.1:80").map(|_| ());
    let udp = UdpSocket::bind("0.0.0.0:0").map(|_| ());
    let dns = "example.com:80".to_socket_addrs().map(|a| a.count());
    arena_bot_sdk::log(&format!("sockets: tcp {tcp:?}; udp {udp:?}; dns {dns:?}"));
}

fn env() {
    let vars = std::env::vars().count();
    let args = std::env::args().count();
    let dir = std::env::current_dir();
    arena_bot_sdk::log(&format!("env: {vars} variables, {args} arguments, current dir {dir:?}"));
}

std::thread_local! {
    static HOARD: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Allocate and touch `bytes` once per game, and keep them live.
fn hold(bytes: usize) {
    HOARD.with(|h| *h.borrow_mut() = black_box(vec![1u8; bytes]));
    arena_bot_sdk::log(&format!("holding {bytes} bytes"));
}
