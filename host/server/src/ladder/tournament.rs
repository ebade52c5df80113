//! The final tournament of the students' current versions, run in the
//! background when the teacher starts it; its report replaces the last one.

use super::types::pseudonym;
use super::{Ladder, PSEUDONYMS};
use crate::work::Grading;
use std::path::PathBuf;
use std::sync::Arc;

/// Where the final tournament's report is written, in the course folder.
pub const TOURNAMENT_DIR: &str = "tournament";

impl Ladder {
    /// Where the final tournament's report is (its `index.html` and replays).
    pub fn tournament_dir(&self) -> PathBuf {
        self.course.dir.join("pages").join(TOURNAMENT_DIR)
    }

    /// Start the final tournament in `format` with `games` per match, in
    /// the background: the students' accepted versions that count, as
    /// `arena grade-class` enters them from the class zip
    /// ([`crate::ranking::entrants`]), seeded by the rubric's seed. When it
    /// is done its report replaces the last one and its places are paid as
    /// the class-ranking points ([`crate::ranking::pay`]). An error when one
    /// is running, fewer than two students have an accepted version, or
    /// grade-class could not play the format again.
    pub async fn start_tournament(
        self: &Arc<Self>,
        grading: Arc<Grading>,
        queue: crate::queue::Queue,
        format: arena_competition::tournament::Format,
        games: usize,
    ) -> Result<(), String> {
        let Some(flag) = crate::ranking::format_flag(format) else {
            return Err(format!(
                "a {} tournament cannot rank the class: `arena grade-class` plays round-robin or double-elimination",
                format.name()
            ));
        };
        let class = crate::export::class(&queue).await?;
        let entrants = crate::ranking::entrants(&class);
        if entrants.len() < 2 {
            return Err(format!(
                "a tournament needs at least two students with an accepted version that counts; the class has {}",
                entrants.len()
            ));
        }
        let pseudonyms = self.setting(PSEUDONYMS).await;
        let mut contestants = Vec::new();
        // Who each entrant stands for, by the name it plays under.
        let mut played: Vec<(String, i64)> = Vec::new();
        for (e, v) in &entrants {
            let mut name = if pseudonyms {
                pseudonym(&self.secret, e.person.id)
            } else {
                e.person.name.clone()
            };
            // Names tell entrants apart only; the games never see them.
            while played.iter().any(|(n, _)| *n == name) {
                name.push('\'');
            }
            played.push((name.clone(), v.id));
            contestants.push(arena_batch::contest::Contestant {
                bot: self.course.file_path(&v.sha256).display().to_string(),
                student: Some(name),
            });
        }
        {
            let mut t = self.tournament.lock().map_err(|_| "the server failed".to_string())?;
            if t.0 {
                return Err("the final tournament is already running: wait for its report".into());
            }
            *t = (
                true,
                Some(format!(
                    "The final tournament of {} students is running...",
                    contestants.len()
                )),
            );
        }
        let me = self.clone();
        let out = self.tournament_dir();
        // The rubric's seed, as `arena grade-class --tournament` seeds it.
        let seed = grading.rubric.seed;
        tokio::spawn(async move {
            let g = grading.clone();
            let played_run =
                tokio::task::spawn_blocking(move || run_tournament(&g, contestants, format, games, seed, &out))
                    .await
                    .map_err(|e| e.to_string())
                    .and_then(|r| r);
            let said = match played_run {
                Ok(report) => {
                    let paid = crate::ranking::Paid {
                        format: flag.to_string(),
                        games,
                        places: crate::ranking::places(&report, &played),
                        ranked: report.standings.len(),
                    };
                    match crate::ranking::pay(&queue, &grading.rubric, &paid).await {
                        Ok(()) => format!(
                            "The final tournament ({}, {} games) is published: its report is below, and its \
                             places are the class-ranking points on every version page, the gradebook and the exports.",
                            format.name(),
                            report.games_played
                        ),
                        Err(e) => format!("The final tournament ran, but its points could not be stored: {e}"),
                    }
                }
                Err(e) => format!("The final tournament could not run: {e}"),
            };
            if let Ok(mut t) = me.tournament.lock() {
                *t = (false, Some(said));
            }
        });
        Ok(())
    }
}

/// Play the final tournament into `out` (a fresh folder).
fn run_tournament(
    grading: &Grading,
    contestants: Vec<arena_batch::contest::Contestant>,
    format: arena_competition::tournament::Format,
    games: usize,
    seed: u64,
    out: &std::path::Path,
) -> Result<arena_competition::tournament::TournamentReport, String> {
    let run = || -> Result<arena_competition::tournament::TournamentReport, String> {
        let _ = std::fs::remove_dir_all(out);
        std::fs::create_dir_all(out).map_err(|e| format!("{}: cannot create it ({e})", out.display()))?;
        let sandbox = grading.settings.sandbox(grading.game).map_err(|e| format!("{e:#}"))?;
        let job = arena_batch::contest::ContestJob {
            game: grading.game,
            setup: arena_runner::runner::GameSetup {
                illegal: grading.rubric.illegal,
                ..arena_runner::runner::GameSetup::new(&sandbox)
            },
            sandbox: &sandbox,
            contestants,
            without: Vec::new(),
            format,
            games,
            rounds: None,
            seeding: arena_competition::tournament::Seeding::RoundRobin,
            seed,
            out: Some(out),
            stop: Default::default(),
            progress: false,
            note: &|_| {},
            elsewhere: None,
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(grading.settings.jobs.unwrap_or(2).max(1) as usize)
            .build()
            .map_err(|e| e.to_string())?;
        let outcome = arena_batch::contest::run(&job, &pool).map_err(|e| format!("{e:#}"))?;
        Ok(outcome.report)
    };
    run()
}
