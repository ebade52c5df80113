//! The matches' tests: errors, recordings, streamed reports and totals.

use super::*;
use crate::adapters;
use arena_sandbox::Limits;
use serde_json::Value;

fn house_match<'a>(game: &'static dyn GameDef, sandbox: &'a arena_sandbox::Sandbox, variant: &str) -> MatchSpec<'a> {
    let (bot, _) = game.house_bots()[0];
    let entrant = Entrant {
        name: format!("house:{bot}"),
        bot: BotRef::House(bot.to_string()),
    };
    MatchSpec {
        game,
        setup: GameSetup {
            variant: Some(variant.to_string()),
            ..GameSetup::new(sandbox)
        },
        entrants: vec![entrant; *game.seats().start()],
        games: 2,
        seed: 1,
        record: false,
    }
}

#[test]
fn an_unknown_variant_is_an_error_in_every_game_never_the_default() {
    let sandbox = adapters::sandbox(Limits::default()).unwrap();
    for &game in adapters::GAMES {
        let spec = house_match(game, &sandbox, "epee");
        match run_match(&spec) {
            Err(SetupError::UnknownVariant(v)) => assert_eq!(v, "epee", "{}", game.name()),
            Err(e) => panic!("{}: {e}", game.name()),
            Ok(_) => panic!("{} played an unknown variant", game.name()),
        }
        assert!(
            matches!(play_unit(&spec, &[0]), Err(SetupError::UnknownVariant(_))),
            "{}: a tournament's unit",
            game.name()
        );
        for &known in game.variants() {
            let report = run_match(&house_match(game, &sandbox, known)).unwrap().report;
            assert_eq!(report.variant, known);
        }
    }
}

/// Every game's house bots in turn at one table, over more games than a
/// batch of [`play_match`] holds.
fn mixed_match<'a>(game: &'static dyn GameDef, sandbox: &'a arena_sandbox::Sandbox, games: usize) -> MatchSpec<'a> {
    let house = game.house_bots();
    let seats = (*game.seats().start()).max(2).min(*game.seats().end());
    MatchSpec {
        game,
        setup: GameSetup::new(sandbox),
        entrants: (0..seats)
            .map(|i| {
                let (bot, _) = house[i % house.len()];
                Entrant {
                    name: format!("house:{bot}#{i}"),
                    bot: BotRef::House(bot.to_string()),
                }
            })
            .collect(),
        games,
        seed: 7,
        record: false,
    }
}

#[test]
fn recorded_lines_are_each_games_typed_events_tagged_with_its_index_first() {
    let sandbox = adapters::sandbox(Limits::default()).unwrap();
    for &game in adapters::GAMES {
        let spec = MatchSpec {
            record: true,
            ..mixed_match(game, &sandbox, 12)
        };
        let mut games = 0;
        play_match(&spec, |p| {
            let mut text = Vec::new();
            p.events.write_to(&mut text);
            let tag = format!("{{\"game\":{},\"type\":", p.result.index);
            let lines: Vec<Value> = text
                .strip_suffix(b"\n")
                .unwrap()
                .split(|&b| b == b'\n')
                .map(|l| {
                    assert!(
                        l.starts_with(tag.as_bytes()),
                        "{}: {}",
                        game.name(),
                        String::from_utf8_lossy(l)
                    );
                    serde_json::from_slice(l).unwrap()
                })
                .collect();
            assert_eq!(lines, p.events.values(), "{}", game.name());
            assert_eq!(lines.len(), p.events.len());
            let (runner, own): (Vec<&Value>, Vec<&Value>) =
                lines.iter().partition(|v| v["type"] == "fuel" || v["type"] == "log");
            assert_eq!(
                runner.len(),
                1,
                "{}: one fuel line, no logs from house bots",
                game.name()
            );
            assert!(own.len() > 1, "{}", game.name());
            for line in own {
                assert_eq!(game.check_event(line), Ok(()), "{}: {line}", game.name());
            }
            games += 1;
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(games, 12, "{}", game.name());
    }
}

#[test]
fn a_streamed_report_is_the_kept_one_byte_for_byte_whatever_the_threads() {
    let sandbox = adapters::sandbox(Limits::default()).unwrap();
    for &game in adapters::GAMES {
        // Past two batches of two threads (512 units each; 768 on
        // three) for games of one unit per game.
        let spec = mixed_match(game, &sandbox, if game.chained() { 240 } else { 1_100 });
        let kept = run_match(&spec).unwrap().report;
        let expected = serde_json::to_string_pretty(&kept).unwrap() + "\n";
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let streamed = pool.install(|| {
                let mut writer = ReportWriter::start(Vec::new(), &spec).unwrap();
                let mut next = 0;
                let totals = play_match(&spec, |p| {
                    assert_eq!(p.result.index, next, "{}: games in order", game.name());
                    next += 1;
                    writer.result(&p.result).unwrap();
                    ControlFlow::Continue(())
                })
                .unwrap();
                assert_eq!(next, kept.games);
                String::from_utf8(writer.finish(&totals).unwrap()).unwrap()
            });
            assert_eq!(streamed, expected, "{} on {threads} threads", game.name());
        }
    }
}

#[test]
fn totals_counted_as_games_arrive_match_the_games() {
    let sandbox = adapters::sandbox(Limits::default()).unwrap();
    for &game in adapters::GAMES {
        let report = run_match(&mixed_match(game, &sandbox, 600)).unwrap().report;
        for (i, bot) in report.bots.iter().enumerate() {
            let mine: Vec<(usize, &GameResult)> = report
                .results
                .iter()
                .filter_map(|r| r.seats.iter().position(|&b| b == i).map(|seat| (seat, r)))
                .collect();
            let scores: Vec<f64> = mine.iter().map(|(s, r)| r.scores[*s] as f64).collect();
            let two_pass = crate::stats::estimate(&scores);
            assert_eq!(bot.games as usize, mine.len());
            assert_eq!(bot.points, mine.iter().map(|(s, r)| r.scores[*s]).sum::<i64>());
            assert_eq!(bot.score.mean, two_pass.mean, "{}: integer sums are exact", game.name());
            assert!((bot.score.sd - two_pass.sd).abs() <= 1e-12 * two_pass.sd.max(1.0));
            if !game.chained() && *game.seats().end() > 1 {
                let wins = mine.iter().filter(|(s, r)| r.winner == Some(*s)).count();
                assert_eq!(bot.wins as usize, wins, "{}", game.name());
            }
        }
    }
}

#[test]
fn a_match_each_stops_ends_there_and_counts_only_the_games_handed_over() {
    let sandbox = adapters::sandbox(Limits::default()).unwrap();
    for &game in adapters::GAMES {
        // Stopped inside the second batch of two threads (512 units).
        let (games, stop_after) = if game.chained() { (240, 130) } else { (1_100, 700) };
        let spec = mixed_match(game, &sandbox, games);
        let kept = run_match(&spec).unwrap().report;
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let (handed, totals) = pool.install(|| {
            let mut handed = 0;
            let totals = play_match(&spec, |_| {
                handed += 1;
                if handed == stop_after {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
            .unwrap();
            (handed, totals)
        });
        assert_eq!(handed, stop_after, "{}: no game after the stop", game.name());
        let first = &kept.results[..stop_after];
        for (i, bot) in totals.bots.iter().enumerate() {
            let mine: Vec<(usize, &GameResult)> = first
                .iter()
                .filter_map(|r| r.seats.iter().position(|&b| b == i).map(|seat| (seat, r)))
                .collect();
            assert_eq!(bot.games as usize, mine.len(), "{}: bot {i}", game.name());
            assert_eq!(
                bot.points,
                mine.iter().map(|(s, r)| r.scores[*s]).sum::<i64>(),
                "{}: bot {i}'s points are those of the games before the stop",
                game.name()
            );
        }
    }
}
