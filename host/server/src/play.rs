//! Playing one ladder match, the same on the server and on a worker: a
//! match is a pure function of its bots, its seed and the limits, so a
//! server can play any worker's match again and compare.

use arena_core::{IllegalMoves, Kind};
use arena_runner::runner::settings::RunSettings;
use arena_runner::runner::{BotRef, Entrant, GameDef, GameResult, GameSetup, MatchSpec, Played, play_unit, units};
use arena_runner::sandbox::{BotProgram, Sandbox};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// An entrant of a ladder match as the server names it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Bot {
    /// `s<submission id>` or `house:<name>`.
    pub key: String,
    /// The file's SHA-256 (hex), for a student's version.
    pub sha256: Option<String>,
}

/// A ladder match to play.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Job {
    /// The match's id.
    pub id: i64,
    /// Its entrants, in the order results name them.
    pub bots: Vec<Bot>,
    /// Games to play (whole seat rotations of its deals).
    pub games: usize,
    /// The seed of its deals.
    pub seed: u64,
}

/// One game of a match, as the ladder keeps it: who sat where (entrant
/// indices), the winning seat, finishing positions, forfeits by seat.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Game {
    /// For each seat, the entrant sitting there.
    pub seats: Vec<usize>,
    /// Each seat's score.
    pub scores: Vec<i64>,
    /// The winning seat; none for a draw.
    pub winner: Option<usize>,
    /// Finishing positions by seat (1 = first), for table games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positions: Option<Vec<u32>>,
    /// Each forfeit: the seat and its reason (`fuel`, `trap`, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forfeits: Vec<(usize, String)>,
}

/// What a match gave: every game and each entrant's fuel.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Outcome {
    /// Every game, in order.
    pub games: Vec<Game>,
    /// Per entrant, all the fuel its games used (0 for house bots).
    pub fuel: Vec<u64>,
}

impl Outcome {
    /// Each entrant's games won, drawn and lost.
    pub fn records(&self, entrants: usize) -> Vec<[u32; 3]> {
        let mut out = vec![[0u32; 3]; entrants];
        for g in &self.games {
            for (seat, &e) in g.seats.iter().enumerate() {
                let Some(r) = out.get_mut(e) else { continue };
                match (g.winner, &g.positions) {
                    (_, Some(p)) if g.seats.len() > 2 => {
                        let last = g.seats.len() as u32;
                        let place = p.get(seat).copied().unwrap_or(last);
                        r[if place == 1 {
                            0
                        } else if place == last {
                            2
                        } else {
                            1
                        }] += 1;
                    }
                    (Some(w), _) if w == seat => r[0] += 1,
                    (Some(_), _) => r[2] += 1,
                    (None, _) => r[1] += 1,
                }
            }
        }
        out
    }
}

/// Where a student's version is, by its SHA-256.
pub type Files<'a> = &'a (dyn Fn(&str) -> Option<PathBuf> + Sync);

/// A sandbox for one course's ladder, kept for the life of the server or
/// worker so bots are compiled (or read from the compile cache) once.
pub struct Player {
    /// The game.
    pub game: &'static dyn GameDef,
    /// The sandbox.
    pub sandbox: Sandbox,
    /// What an illegal move costs.
    pub illegal: IllegalMoves,
    /// Recently played bots, newest last: loading one reads, hashes and
    /// links its file, which costs more than a ladder match of small bots.
    loaded: Mutex<Vec<Arc<BotProgram>>>,
    /// The engine's fingerprint, computed once: every worker call is checked against it.
    fingerprint: String,
}

/// How many loaded bots a [`Player`] keeps (a course's busiest entrants).
const LOADED: usize = 64;

impl Player {
    /// A player of `game` under `settings`.
    pub fn new(game: &'static dyn GameDef, settings: &RunSettings, illegal: IllegalMoves) -> Result<Player, String> {
        let sandbox = settings.sandbox(game).map_err(|e| format!("{e:#}"))?;
        Ok(Player {
            fingerprint: sandbox.fingerprint(),
            game,
            sandbox,
            illegal,
            loaded: Mutex::new(Vec::new()),
        })
    }

    /// The engine's fingerprint (see [`Sandbox::fingerprint`]).
    pub fn fingerprint(&self) -> String {
        self.fingerprint.clone()
    }

    fn entrants(&self, job: &Job, files: Files<'_>, names: Option<&[String]>) -> Result<Vec<Entrant>, String> {
        job.bots
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let name = names.and_then(|n| n.get(i)).cloned().unwrap_or_else(|| b.key.clone());
                if let Some(house) = b.key.strip_prefix("house:") {
                    if !self.game.house_bots().iter().any(|(n, _)| *n == house) {
                        return Err(format!("{}: {} has no such house bot", b.key, self.game.name()));
                    }
                    return Ok(Entrant {
                        name,
                        bot: BotRef::House(house.to_string()),
                    });
                }
                let sha = b.sha256.as_deref().ok_or_else(|| format!("{}: no file named", b.key))?;
                Ok(Entrant {
                    name,
                    bot: BotRef::Wasm(self.program(&b.key, sha, files)?),
                })
            })
            .collect()
    }

    /// The bot whose file has SHA-256 `sha`, loaded once while it is played often.
    fn program(&self, key: &str, sha: &str, files: Files<'_>) -> Result<Arc<BotProgram>, String> {
        let mut loaded = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = loaded.iter().position(|p| p.sha256 == sha) {
            let p = loaded.remove(at);
            loaded.push(p.clone());
            return Ok(p);
        }
        drop(loaded);
        let path = files(sha).ok_or_else(|| format!("{key}: the file {sha} is not here"))?;
        let program = self
            .sandbox
            .load(&path, self.game.worlds())
            .map_err(|e| e.to_string())?;
        // Only a file whose content has the name it is asked by is kept (and played).
        if program.sha256 != sha {
            return Err(format!("{key}: the file is not the one named ({sha})"));
        }
        let program = Arc::new(program);
        let mut loaded = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        if !loaded.iter().any(|p| p.sha256 == sha) {
            if loaded.len() >= LOADED {
                loaded.remove(0);
            }
            loaded.push(program.clone());
        }
        Ok(program)
    }

    fn spec<'a>(&'a self, entrants: Vec<Entrant>, games: usize, seed: u64, record: bool) -> MatchSpec<'a> {
        MatchSpec {
            game: self.game,
            setup: GameSetup {
                illegal: self.illegal,
                ..GameSetup::new(&self.sandbox)
            },
            entrants,
            games,
            seed,
            record,
        }
    }

    /// Play `job`. For a solitaire game every entrant plays the same deals
    /// alone and each deal is a duel of their scores.
    pub fn play(&self, job: &Job, files: Files<'_>) -> Result<Outcome, String> {
        let entrants = self.entrants(job, files, None)?;
        if self.game.kind() == Kind::Solitaire {
            return self.play_solitaires(entrants, job);
        }
        let spec = self.spec(entrants, job.games, job.seed, false);
        spec.check().map_err(|e| e.to_string())?;
        let mut played: Vec<Played> = Vec::new();
        for unit in units(&spec) {
            played.extend(play_unit(&spec, &unit).map_err(|e| e.to_string())?);
        }
        played.sort_by_key(|p| p.result.index);
        let mut fuel = vec![0u64; job.bots.len()];
        let games = played
            .iter()
            .map(|p| {
                for (seat, u) in p.fuel.iter().enumerate() {
                    if let (Some(u), Some(&e)) = (u, p.result.seats.get(seat)) {
                        fuel[e] += u.total();
                    }
                }
                game_of(&p.result)
            })
            .collect();
        Ok(Outcome { games, fuel })
    }

    fn play_solitaires(&self, entrants: Vec<Entrant>, job: &Job) -> Result<Outcome, String> {
        // `[ladder] games` deals, each a game of the match: "game 3 of 10"
        // is the third deal, played by each entrant alone.
        let deals = job.games.max(1);
        let mut scores: Vec<Vec<i64>> = Vec::new();
        let mut fuel = Vec::new();
        let mut forfeits: Vec<Vec<Vec<String>>> = Vec::new();
        for e in entrants {
            let spec = self.spec(vec![e], deals, job.seed, false);
            spec.check().map_err(|e| e.to_string())?;
            let (mut s, mut f, mut why) = (Vec::new(), 0u64, Vec::new());
            for unit in units(&spec) {
                for p in play_unit(&spec, &unit).map_err(|e| e.to_string())? {
                    s.push(p.result.scores.first().copied().unwrap_or(0));
                    f += p.fuel.iter().flatten().map(|u| u.total()).sum::<u64>();
                    why.push(
                        p.result
                            .forfeits
                            .iter()
                            .map(|x| x.reason.as_str().to_string())
                            .collect(),
                    );
                }
            }
            scores.push(s);
            fuel.push(f);
            forfeits.push(why);
        }
        let games = (0..deals)
            .map(|d| {
                let sc: Vec<i64> = scores.iter().map(|s| s.get(d).copied().unwrap_or(0)).collect();
                let best = sc.iter().copied().max().unwrap_or(0);
                let winners: Vec<usize> = (0..sc.len()).filter(|&i| sc[i] == best).collect();
                Game {
                    seats: (0..sc.len()).collect(),
                    winner: if winners.len() == 1 { Some(winners[0]) } else { None },
                    scores: sc,
                    positions: None,
                    forfeits: forfeits
                        .iter()
                        .enumerate()
                        .flat_map(|(i, f)| f.get(d).into_iter().flatten().map(move |r| (i, r.clone())))
                        .collect(),
                }
            })
            .collect();
        Ok(Outcome { games, fuel })
    }

    /// Game `index` of `job` played again with every event, as a replay
    /// file's lines (a header, then the events), entrants shown as `names`.
    /// In a solitaire game, game `index` is a deal each entrant played
    /// alone: `entrant` says whose.
    pub fn replay(
        &self,
        job: &Job,
        files: Files<'_>,
        names: &[String],
        index: usize,
        entrant: usize,
    ) -> Result<Vec<u8>, String> {
        let entrants = self.entrants(job, files, Some(names))?;
        let solitaire = self.game.kind() == Kind::Solitaire;
        let (entrants, games) = if solitaire {
            let alone = entrants.into_iter().skip(entrant).take(1).collect();
            (alone, job.games.max(1))
        } else {
            (entrants, job.games)
        };
        let spec = self.spec(entrants, games, job.seed, true);
        let played = arena_runner::runner::play_match_game_recorded(&spec, index).map_err(|e| e.to_string())?;
        let outcome = arena_runner::runner::MatchOutcome {
            report: arena_runner::runner::MatchReport {
                game: self.game.name().to_string(),
                variant: self.game.variants()[0].to_string(),
                illegal: self.illegal,
                seed: job.seed,
                games: 1,
                limits: self.sandbox.limits().clone(),
                bots: Vec::new(),
                results: vec![played.result],
            },
            events: vec![played.events.values()],
        };
        let mut out = Vec::new();
        arena_runner::replay::write_match(&mut out, &outcome, &spec.entrants).map_err(|e| e.to_string())?;
        Ok(out)
    }
}

fn game_of(r: &GameResult) -> Game {
    Game {
        seats: r.seats.clone(),
        scores: r.scores.clone(),
        winner: r.winner,
        positions: r.positions.clone(),
        forfeits: r
            .forfeits
            .iter()
            .map(|f| (f.seat, f.reason.as_str().to_string()))
            .collect(),
    }
}
