//! The final tournament of the students' current versions, run in the
//! background when the teacher starts it; its report replaces the last one.

use super::types::{Current, pseudonym};
use super::{Ladder, PSEUDONYMS};
use crate::work::Grading;
use arena_core::derive_seed;
use std::path::PathBuf;
use std::sync::Arc;

/// Where the final tournament's report is written, in the course folder.
pub const TOURNAMENT_DIR: &str = "tournament";

impl Ladder {
    /// Where the final tournament's report is (its `index.html` and replays).
    pub fn tournament_dir(&self) -> PathBuf {
        self.course.dir.join("pages").join(TOURNAMENT_DIR)
    }

    /// Start the final tournament of the students' current versions in
    /// `format` with `games` per match, in the background: its report
    /// replaces the last one when it is done. An error when one is running
    /// or fewer than two students have a version on the ladder.
    pub async fn start_tournament(
        self: &Arc<Self>,
        grading: Arc<Grading>,
        format: arena_competition::tournament::Format,
        games: usize,
    ) -> Result<(), String> {
        let current: Vec<Current> = self
            .current()
            .await?
            .into_iter()
            .filter(|c| c.person.is_some())
            .collect();
        if current.len() < 2 {
            return Err(format!(
                "a tournament needs at least two students with an accepted version; the ladder has {}",
                current.len()
            ));
        }
        let pseudonyms = self.setting(PSEUDONYMS).await;
        let mut contestants = Vec::new();
        for c in &current {
            let Some(id) = c.key.strip_prefix('s').and_then(|n| n.parse::<i64>().ok()) else {
                continue;
            };
            let Some(sha) = self.sha_of(id).await? else { continue };
            let name = match c.person {
                Some(p) if pseudonyms => pseudonym(&self.secret, p),
                _ => c.name.clone(),
            };
            contestants.push(arena_batch::contest::Contestant {
                bot: self.course.file_path(&sha).display().to_string(),
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
        let seed = derive_seed(self.seed, 0x746f_7572);
        tokio::task::spawn_blocking(move || {
            let said = run_tournament(&grading, contestants, format, games, seed, &out);
            if let Ok(mut t) = me.tournament.lock() {
                *t = (false, Some(said));
            }
        });
        Ok(())
    }
}

/// Play the final tournament into `out` (a fresh folder); what to tell the teacher.
fn run_tournament(
    grading: &Grading,
    contestants: Vec<arena_batch::contest::Contestant>,
    format: arena_competition::tournament::Format,
    games: usize,
    seed: u64,
    out: &std::path::Path,
) -> String {
    let run = || -> Result<String, String> {
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
        Ok(format!(
            "The final tournament ({}, {} games) is published: its report is below.",
            format.name(),
            outcome.report.games_played
        ))
    };
    run().unwrap_or_else(|e| format!("The final tournament could not run: {e}"))
}
