//! `arena games`: what can be played, and against whom.

use arena_games::Kind;
use arena_runner::adapters::GAMES;

/// Print every game with its world, seats, variants and house bots.
pub fn run() -> anyhow::Result<()> {
    for game in GAMES {
        let seats = game.seats();
        let players = if seats.start() == seats.end() {
            let n = seats.start();
            format!("{n} player{}", if *n == 1 { "" } else { "s" })
        } else {
            format!("{}-{} players", seats.start(), seats.end())
        };
        let kind = match game.kind() {
            Kind::Solitaire => "played alone",
            Kind::Duel => "a duel",
            Kind::Table => "a table game",
        };
        let person = if arena_terminal::human::can_play(*game) {
            "; a person can play it (`arena play`)"
        } else {
            ""
        };
        let older: Vec<&str> = game.worlds().iter().rev().skip(1).map(|w| w.version).collect();
        let older = if older.is_empty() {
            String::new()
        } else {
            format!(" (bots built for {} still run)", older.join(", "))
        };
        println!(
            "{} ({}): {kind}, {players}, world {}{older}{person}",
            game.name(),
            game.title(),
            game.world().name
        );
        println!("  variants: {}", game.variants().join(", "));
        let l = game.default_limits();
        println!(
            "  limits: {} fuel per move, {} bank, {} to start (see docs/rules/{}.md)",
            super::matches::fuel_amount(l.fuel),
            super::matches::fuel_amount(l.bank),
            super::matches::fuel_amount(l.start_fuel),
            game.name()
        );
        println!(
            "  backstop: {} s of CPU per call; the largest call ({} fuel) takes at most {:.1} s at the worst \
             measured {} ns per unit, so fuel decides first on a machine a quarter as fast",
            l.timeout.as_secs(),
            super::matches::fuel_amount(l.largest_call()),
            l.largest_call() as f64 * arena_sandbox::WORST_NS_PER_FUEL / 1e9,
            arena_sandbox::WORST_NS_PER_FUEL
        );
        for (name, about) in game.house_bots() {
            println!("  house:{name:<12} {about}");
        }
    }
    Ok(())
}
