//! The report of a check for people: one screen, as `arena check` prints it.

use super::CheckReport;
use arena_runner::text::percent;
use arena_sandbox::fuel_amount;
use std::fmt::Write;

impl CheckReport {
    /// The report as `arena check` prints it: one screen.
    pub fn text(&self) -> String {
        let mut s = self.file_text();
        let _ = writeln!(s, "smoke games (every deal played from every seat):");
        for (against, line) in &self.matches {
            let _ = writeln!(s, "  {against:<24} {line}");
        }
        self.write_fuel_and_log(&mut s);
        if self.ready {
            // Only a duel has wins to count; the other games' results are in the lines above.
            let won = if self.duels > 0 {
                format!(" and won {} of {}", self.wins, self.duels)
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "ready to submit: it loads, forfeited none of {} games, played no illegal move{won}",
                self.games
            );
        } else {
            s.push_str(&self.not_ready_text());
        }
        s
    }

    /// The file: its path, toolchain, world, size, compile and memory.
    fn file_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{}", self.file);
        let _ = writeln!(s, "  toolchain  {}", self.toolchain);
        let _ = writeln!(
            s,
            "  world      {} ({}{})",
            self.world,
            self.game,
            if self.found_game {
                ", found by loading it for each game"
            } else {
                ""
            }
        );
        let _ = writeln!(
            s,
            "  file       {} (limit {})",
            size(self.file_bytes),
            size(self.max_file_bytes)
        );
        if self.compiled {
            let _ = writeln!(s, "  compile    {:.2} s", self.compile_seconds);
        } else {
            let _ = writeln!(
                s,
                "  compile    {:.2} s (compiled before: loaded from the compile cache)",
                self.compile_seconds
            );
        }
        if let Some(m) = self.initial_memory {
            let _ = writeln!(
                s,
                "  memory     {} initial (limit {})",
                size(m),
                size(self.memory_limit)
            );
        }
        s
    }

    /// Why the bot is not ready, each forfeit with the end of its log, and
    /// the command that shows its illegal moves.
    fn not_ready_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "not ready: {}", self.not_ready.join("; "));
        for f in &self.forfeits {
            let _ = writeln!(s, "  {} ({}): {}", f.reason, f.count, f.first);
            if !f.log_tail.is_empty() {
                let _ = writeln!(s, "    the bot's log in that game ended with:");
                for line in &f.log_tail {
                    let _ = writeln!(s, "    | {line}");
                }
            }
        }
        if self.truncated_logs > 0 && self.forfeits.iter().any(|f| f.reason == "fuel") {
            let _ = writeln!(
                s,
                "  note: the log was cut short in {} games, and printing still costs fuel after the cut: print less",
                self.truncated_logs
            );
        }
        if let Some((against, index)) = &self.first_illegal {
            let _ = writeln!(
                s,
                "  illegal moves: first in {against}, game {index}; to see them: arena match --game {} {} {} \
                 --seed {} --games {} --replay illegal.jsonl && arena view illegal.jsonl",
                self.game,
                self.file,
                if against == "alone" {
                    String::new()
                } else {
                    against
                        .trim_start_matches("vs ")
                        .trim_start_matches("table with ")
                        .replace(", ", " ")
                },
                self.seed,
                index + 1
            );
        }
        s
    }

    fn write_fuel_and_log(&self, s: &mut String) {
        if self.moves == 0 {
            let _ = writeln!(s, "fuel per move: no moves played");
        } else {
            let _ = writeln!(
                s,
                "fuel per move: mean {}, max {} ({} of the {} budget per move); start-up at most {} of {}; bank {}",
                fuel_amount(self.mean_move_fuel),
                fuel_amount(self.max_move_fuel),
                percent(self.max_move_fuel as f64 / self.fuel_per_move.max(1) as f64),
                fuel_amount(self.fuel_per_move),
                fuel_amount(self.max_start_fuel),
                fuel_amount(self.start_fuel),
                if self.max_bank_used == 0 {
                    "never drawn on".to_string()
                } else {
                    format!(
                        "up to {} of {} drawn in a game",
                        fuel_amount(self.max_bank_used),
                        fuel_amount(self.bank)
                    )
                }
            );
        }
        let _ = writeln!(
            s,
            "log: at most {} per game (limit {}){}",
            size(self.max_log_bytes),
            size(self.log_limit),
            if self.truncated_logs == 0 {
                String::new()
            } else {
                format!(", cut short in {} games", self.truncated_logs)
            }
        );
    }
}

/// Bytes for people: 950 B, 12.3 KiB, 1.5 MiB (binary units, as the
/// course server shows a version's size too: one unit everywhere).
pub fn size(n: u64) -> String {
    let f = n as f64;
    if n < 1024 {
        format!("{n} B")
    } else if n < 1024 * 1024 {
        format!("{:.1} KiB", f / 1024.0)
    } else {
        format!("{:.1} MiB", f / (1024.0 * 1024.0))
    }
}
