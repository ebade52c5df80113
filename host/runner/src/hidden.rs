//! What one viewer of a replay may see: a replay file holds every log and
//! every hidden card (docs/replay-format.md); the course server shows a
//! student the part that is theirs (docs/server.md, "Privacy").

use serde_json::Value;

/// Leave out of a replay's `lines` (its header first) what one viewer may
/// not see: the log lines and the hidden cards (as the game's rules say
/// what each seat sees) of every bot `keep` refuses, by its index in the
/// header's `bots`. A replay shown to one student keeps their own bot's
/// log and hand and no one else's. Each game's `game` line says which bot
/// sits in which seat; a log line and an event name their seat.
pub fn for_viewer(lines: &mut Vec<Value>, keep: &dyn Fn(usize) -> bool) {
    let game = lines
        .first()
        .and_then(|h| h.get("game"))
        .and_then(Value::as_str)
        .and_then(crate::adapters::game);
    let mut seats: Vec<usize> = Vec::new();
    lines.retain_mut(|l| match l.get("type").and_then(Value::as_str) {
        Some("game") => {
            seats = l
                .get("seats")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|b| b.as_u64().and_then(|b| usize::try_from(b).ok()))
                        .collect()
                })
                .unwrap_or_default();
            true
        }
        Some("log") => l
            .get("seat")
            .and_then(Value::as_u64)
            .and_then(|s| seats.get(usize::try_from(s).ok()?))
            .is_some_and(|&bot| keep(bot)),
        Some("match" | "result") => true,
        _ => {
            if let Some(game) = game {
                game.hide_event(l, &|seat| seats.get(seat).is_some_and(|&bot| keep(bot)));
            }
            true
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A log line names a seat, and each game's `game` line which bot sits
    /// there (docs/replay-format.md): only the kept bots' logs stay, in
    /// every game, whichever seat they sit in.
    #[test]
    fn for_viewer_keeps_the_kept_bots_logs_in_every_seat() {
        let mut lines = vec![
            json!({"type": "match", "bots": [{"name": "ann"}, {"name": "bo"}]}),
            json!({"type": "game", "game": 0, "seats": [0, 1]}),
            json!({"type": "move", "game": 0, "seat": 0}),
            json!({"type": "log", "game": 0, "seat": 0, "lines": ["ann 0"]}),
            json!({"type": "log", "game": 0, "seat": 1, "lines": ["bo 0"]}),
            json!({"type": "game", "game": 1, "seats": [1, 0]}),
            json!({"type": "log", "game": 1, "seat": 0, "lines": ["bo 1"]}),
            json!({"type": "log", "game": 1, "seat": 1, "lines": ["ann 1"]}),
            json!({"type": "log", "game": 1, "seat": 7, "lines": ["no such seat"]}),
        ];
        for_viewer(&mut lines, &|bot| bot == 1);
        let logs: Vec<&str> = lines
            .iter()
            .filter(|l| l["type"] == "log")
            .map(|l| l["lines"][0].as_str().unwrap())
            .collect();
        assert_eq!(logs, ["bo 0", "bo 1"]);
        assert_eq!(lines.len(), 6, "every other line stays");
    }
}
