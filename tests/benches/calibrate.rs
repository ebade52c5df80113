//! What one unit of fuel costs in time, for every class of operation a bot
//! can run (`tests/loops.rs`): each loop runs in a real En Garde game until
//! its fuel runs out, and the time per unit of fuel (the difference between
//! a budget and twice it) is printed beside the typical arithmetic loop's. `docs/performance.md` ("Fuel and time") quotes
//! a run; the sandbox's prices (`host/sandbox/src/budget.rs`) are set from it.
//!
//!   cargo bench -p arena-tests --bench calibrate [-- NAME...]

use arena::games::ForfeitReason;
use arena::runner::{BotRef, Entrant, GameSetup, MatchSpec, play_unit};
use arena::sandbox::Limits;
use arena_tests::loops::{Place, catalogue, en_garde_file};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One game of `bot` against house:random with a call budget of `fuel`;
/// the time it took and how it ended.
fn run(bot: &Path, fuel: u64) -> (Duration, Option<(ForfeitReason, String)>) {
    let limits = Limits {
        fuel,
        bank: 0,
        start_fuel: fuel,
        timeout: Duration::from_secs(3600),
        ..Limits::default()
    };
    let game = arena::adapters::game("en-garde").expect("En Garde");
    let sandbox = arena::adapters::sandbox(limits).expect("a sandbox");
    let program = sandbox.load(bot, game.worlds()).unwrap_or_else(|e| panic!("{e}"));
    let spec = MatchSpec {
        game,
        setup: GameSetup::new(&sandbox),
        entrants: vec![
            Entrant {
                name: "loop".into(),
                bot: BotRef::Wasm(Arc::new(program)),
            },
            Entrant {
                name: "house:random".into(),
                bot: BotRef::House("random".into()),
            },
        ],
        games: 1,
        seed: 1,
        record: false,
    };
    let start = Instant::now();
    let played = play_unit(&spec, &[0]).expect("the game is set up right");
    let took = start.elapsed();
    let forfeit = played[0].result.forfeit.as_ref().map(|f| (f.reason, f.detail.clone()));
    (took, forfeit)
}

fn main() {
    let only: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let dir = std::env::temp_dir().join(format!("arena-calibrate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    println!("| loop | place | ns per unit of fuel | x typical | ended by |");
    println!("|---|---|---:|---:|---|");
    let mut typical = None;
    for attack in catalogue() {
        if !only.is_empty() && !only.iter().any(|o| attack.name.contains(o.as_str())) {
            continue;
        }
        let path = en_garde_file(&dir, &attack);
        let bot = path.as_path();
        // Find a budget F whose game takes at least 150 ms, then time F and
        // 2F: the difference is F units of the loop alone, without
        // instantiation, the set-up before the loop and the game around it.
        let mut fuel: u64 = 1_000_000;
        while run(bot, fuel).0 < Duration::from_millis(150) && fuel < 200_000_000_000 {
            fuel *= 2;
        }
        let best = |fuel: u64| {
            let (first, ended) = run(bot, fuel);
            let tries = if first > Duration::from_secs(2) { 0 } else { 2 };
            let fastest = (0..tries).map(|_| run(bot, fuel).0).fold(first, Duration::min);
            (fastest, ended)
        };
        let (once, _) = best(fuel);
        let (twice, ended) = best(2 * fuel);
        let best = twice.saturating_sub(once);
        let ns = best.as_nanos() as f64 / fuel as f64;
        if attack.name.starts_with("typical i32.add") {
            typical = Some(ns);
        }
        let place = match attack.place {
            Place::Export(e) => e.to_string(),
            Place::Realloc => "cabi_realloc".into(),
            Place::Start => "start function".into(),
        };
        let ratio = typical.map_or("-".to_string(), |t| format!("{:.1}", ns / t));
        let how = match ended {
            Some((reason, _)) => reason.as_str().to_string(),
            None => "no forfeit".into(),
        };
        println!("| {} | {place} | {ns:.3} | {ratio} | {how} |", attack.name);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
