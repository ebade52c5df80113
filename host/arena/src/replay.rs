//! Replay files: JSON lines, one event per line (see `docs/replay-format.md`).

use crate::runner::{Entrant, MatchOutcome};
use serde_json::{Value, json};
use std::io::Write;

/// The wasmtime version bots ran on; fuel costs can change between releases.
pub const WASMTIME_VERSION: &str = "48";

/// Write a match's header, every game's events and result to `out`.
pub fn write_match(out: &mut dyn Write, outcome: &MatchOutcome, entrants: &[Entrant]) -> std::io::Result<()> {
    let report = &outcome.report;
    let header = json!({
        "type": "match",
        "format": 1,
        "arena-version": crate::VERSION,
        "wasmtime-version": WASMTIME_VERSION,
        "game": report.game,
        "variant": report.variant, "illegal": report.illegal,
        "seed": report.seed,
        "games": report.games,
        "limits": report.limits,
        "bots": entrants.iter().map(|e| json!({"name": e.name, "sha256": match &e.bot {
            crate::runner::BotRef::Wasm(p) => Some(p.sha256.clone()),
            crate::runner::BotRef::House(_) => None,
        }})).collect::<Vec<_>>(),
    });
    line(out, &header)?;
    for (result, events) in report.results.iter().zip(&outcome.events) {
        let names: Vec<&str> = result.seats.iter().map(|&b| entrants[b].name.as_str()).collect();
        line(
            out,
            &json!({"type": "game", "game": result.index, "seed": result.seed, "seats": result.seats, "names": names}),
        )?;
        for event in events {
            line(out, event)?;
        }
        line(
            out,
            &json!({"type": "result", "game": result.index, "scores": result.scores,
            "winner": result.winner, "forfeit": result.forfeit}),
        )?;
    }
    out.flush()
}

fn line(out: &mut dyn Write, value: &Value) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}
