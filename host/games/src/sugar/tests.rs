//! One test per rule of `docs/rules/sugar.md`, named after the rule.

use super::*;
use Direction::{Down, Left, Right, Up};
use arena_core::{Failure, ForfeitReason, NoEvents};

fn mv(agent: u8, direction: Direction) -> Action {
    Action::Move { agent, direction }
}

/// A state with chosen agents `(id, x, y)`, no sugar unless given, seat `to_move` next.
fn state(agents: &[(u8, u8, u8)], step: u32) -> State {
    let mut s = State::new(1, [[0, 1, 2, 3, 4]; 2]);
    s.agents = agents
        .iter()
        .map(|&(id, x, y)| Agent {
            id,
            owner: owner_of(id),
            x,
            y,
        })
        .collect();
    s.sugar = [[0; 5]; 5];
    s.capacity = [[0; 5]; 5];
    s.step = step;
    s.max_steps = 200;
    s
}

/// Plays a fixed list of actions, then its first legal move.
#[derive(Default)]
struct Scripted {
    placement: Vec<u8>,
    actions: Vec<Action>,
    views: Vec<View>,
    places: Vec<PlaceInfo>,
    fail: Option<ForfeitReason>,
}

impl SugarPlayer for Scripted {
    fn place(&mut self, info: &PlaceInfo) -> Result<Vec<u8>, Failure> {
        self.places.push(info.clone());
        Ok(if self.placement.is_empty() {
            vec![0, 1, 2, 3, 4]
        } else {
            self.placement.clone()
        })
    }
    fn choose(&mut self, view: &View) -> Result<Action, Failure> {
        self.views.push(view.clone());
        if let Some(r) = self.fail {
            return Err(Failure::new(r, "scripted"));
        }
        if !self.actions.is_empty() {
            return Ok(self.actions.remove(0));
        }
        let (a, d, _) = view.legal_moves()[0];
        Ok(mv(a.id, d))
    }
}

#[test]
fn rule_1_1_a_5x5_grid_with_y_growing_down() {
    assert_eq!(neighbour(2, 2, Up), Some((2, 1)));
    assert_eq!(neighbour(2, 2, Down), Some((2, 3)));
    assert_eq!(neighbour(2, 2, Left), Some((1, 2)));
    assert_eq!(neighbour(2, 2, Right), Some((3, 2)));
    assert_eq!(neighbour(0, 0, Up), None);
    assert_eq!(neighbour(4, 4, Right), None);
}

#[test]
fn rule_1_2_player_one_owns_0_to_4_on_the_top_row() {
    let s = State::new(9, [[4, 3, 2, 1, 0], [0, 1, 2, 3, 4]]);
    for a in &s.agents {
        assert_eq!(a.owner, if a.id < 5 { 0 } else { 1 });
        assert_eq!(a.y, if a.id < 5 { 0 } else { 4 });
    }
    assert_eq!(s.agents.iter().find(|a| a.id == 0).map(|a| a.x), Some(4));
    assert_eq!(s.agents.iter().find(|a| a.id == 7).map(|a| a.x), Some(2));
}

#[test]
fn rule_1_3_and_4_3_moving_onto_an_agent_loses() {
    let mut s = state(&[(0, 2, 1), (1, 2, 2), (5, 4, 4)], 0);
    assert_eq!(s.apply(mv(0, Down)), Err(Illegal::Occupied));
    let mut s = state(&[(0, 2, 1), (5, 2, 2)], 0);
    assert_eq!(s.apply(mv(0, Down)), Err(Illegal::Occupied), "either side's agent");
}

#[test]
fn rule_2_1_and_2_3_a_placement_is_a_permutation_of_0_to_4() {
    assert_eq!(check_placement(&[4, 0, 1, 3, 2]), Ok([4, 0, 1, 3, 2]));
    assert!(check_placement(&[0, 1, 2, 3]).is_err());
    assert!(check_placement(&[0, 1, 2, 3, 3]).is_err());
    assert!(check_placement(&[0, 1, 2, 3, 5]).is_err());
    let mut bad = Scripted {
        placement: vec![0, 0, 1, 2, 3],
        ..Scripted::default()
    };
    let mut good = Scripted::default();
    let out = play_game(3, [&mut good, &mut bad], &mut NoEvents);
    let f = out.forfeit.expect("forfeit");
    assert_eq!((f.seat, f.reason), (1, ForfeitReason::InvalidAnswer));
    assert_eq!(out.winner, Some(0));
}

#[test]
fn rule_2_2_placements_are_made_without_seeing_the_other() {
    let (mut a, mut b) = (Scripted::default(), Scripted::default());
    play_game(3, [&mut a, &mut b], &mut NoEvents);
    // Neither PlaceInfo carries agent positions: both see only the sugar.
    assert_eq!(a.places[0].sugar, b.places[0].sugar);
    assert_eq!(a.places[0].agents, vec![0, 1, 2, 3, 4]);
    assert_eq!(b.places[0].agents, vec![5, 6, 7, 8, 9]);
}

#[test]
fn rule_3_1_two_mirrored_peaks_of_four() {
    for seed in 0..50 {
        let (grid, [p, q]) = landscape(seed);
        assert!((1..=2).contains(&p.1));
        assert_eq!(q, (4 - p.0, 4 - p.1));
        assert_eq!(grid[p.1 as usize][p.0 as usize], 4);
        for y in 0..5u8 {
            for x in 0..5u8 {
                let d = (p.0.abs_diff(x) + p.1.abs_diff(y)).min(q.0.abs_diff(x) + q.1.abs_diff(y));
                assert_eq!(grid[y as usize][x as usize], 4u8.saturating_sub(d));
                assert_eq!(
                    grid[y as usize][x as usize],
                    grid[4 - y as usize][4 - x as usize],
                    "mirror"
                );
            }
        }
    }
    assert_ne!(landscape(1), landscape(2), "seeds differ");
}

#[test]
fn rule_3_2_cells_start_full() {
    let s = State::new(5, [[0, 1, 2, 3, 4]; 2]);
    assert_eq!(s.sugar, s.capacity);
}

#[test]
fn rule_3_3_moving_onto_a_cell_collects_all_its_sugar() {
    let mut s = state(&[(0, 2, 0), (5, 4, 4)], 0);
    s.sugar[1][2] = 3;
    assert_eq!(s.apply(mv(0, Down)).map(|r| r.collected), Ok(3));
    assert_eq!(s.sugar[1][2], 0);
    assert_eq!(s.collected, [3, 0]);
    assert_eq!(s.scores(), [3, 0]);
}

#[test]
fn rule_3_4_growback_every_fourth_step_up_to_capacity() {
    let mut s = state(&[(0, 0, 0), (5, 4, 4)], 0);
    s.capacity[2][2] = 2;
    s.capacity[3][3] = 1;
    for _ in 0..3 {
        let seat = s.to_move();
        let action = s.legal_moves(seat)[0];
        s.apply(action).unwrap();
        assert_eq!(s.sugar[2][2], 0, "no growback before step 4");
    }
    let action = s.legal_moves(s.to_move())[0];
    s.apply(action).unwrap();
    assert_eq!((s.sugar[2][2], s.sugar[3][3]), (1, 1));
    for _ in 0..8 {
        let action = s.legal_moves(s.to_move())[0];
        s.apply(action).unwrap();
    }
    assert_eq!((s.sugar[2][2], s.sugar[3][3]), (2, 1), "never above capacity");
}

#[test]
fn rule_4_1_player_one_moves_on_odd_steps() {
    let (mut a, mut b) = (Scripted::default(), Scripted::default());
    play_game(4, [&mut a, &mut b], &mut NoEvents);
    assert!(a.views.iter().all(|v| v.step % 2 == 1));
    assert!(b.views.iter().all(|v| v.step % 2 == 0));
    assert_eq!(a.views[0].step, 1);
}

#[test]
fn rule_4_2_one_live_agent_moves_one_cell() {
    let mut s = state(&[(0, 2, 0), (1, 0, 0), (5, 4, 4)], 0);
    s.apply(mv(0, Right)).unwrap();
    let a0 = s.agents.iter().find(|a| a.id == 0).unwrap();
    assert_eq!((a0.x, a0.y), (3, 0));
    let a1 = s.agents.iter().find(|a| a.id == 1).unwrap();
    assert_eq!((a1.x, a1.y), (0, 0), "others stay");
}

#[test]
fn rule_4_3_off_grid_dead_or_foreign_agents_lose_at_once() {
    let s = state(&[(0, 0, 0), (5, 4, 4)], 0);
    assert_eq!(s.clone().apply(mv(0, Up)), Err(Illegal::OffGrid));
    assert_eq!(s.clone().apply(mv(5, Up)), Err(Illegal::NotYourAgent), "foreign");
    assert_eq!(s.clone().apply(mv(3, Down)), Err(Illegal::NotYourAgent), "dead");
    assert_eq!(
        s.clone().apply(mv(42, Down)),
        Err(Illegal::NotYourAgent),
        "no such agent"
    );
    // Through a game: the offender loses whatever the scores.
    let mut bad = Scripted {
        actions: vec![mv(7, Up)],
        ..Scripted::default()
    };
    let mut good = Scripted::default();
    let out = play_game(2, [&mut bad, &mut good], &mut NoEvents);
    assert_eq!(out.winner, Some(1));
    assert_eq!(out.forfeit, None, "a rule, not a forfeit");
}

#[test]
fn rule_4_4_no_legal_move_passes_and_a_needless_pass_loses() {
    // Agent 0 boxed in the corner by its own agents 1 and 2, who are boxed too.
    let mut s = state(&[(0, 0, 0), (1, 1, 0), (2, 0, 1), (3, 1, 1), (5, 4, 4)], 0);
    assert!(!s.legal_moves(0).is_empty());
    assert_eq!(s.clone().apply(Action::Pass), Err(Illegal::PassWithMoves));
    s.agents.retain(|a| a.id != 3);
    s.agents.push(Agent {
        id: 6,
        owner: 1,
        x: 1,
        y: 1,
    });
    s.agents.push(Agent {
        id: 7,
        owner: 1,
        x: 2,
        y: 0,
    });
    s.agents.push(Agent {
        id: 8,
        owner: 1,
        x: 0,
        y: 2,
    });
    assert!(s.legal_moves(0).is_empty());
    assert!(s.apply(Action::Pass).is_ok());
    assert_eq!(s.passes_in_a_row, 1);
}

#[test]
fn rule_4_5_a_game_lasts_100_to_200_steps() {
    let lengths: Vec<u32> = (0..200).map(game_length).collect();
    assert!(lengths.iter().all(|l| (100..=200).contains(l)));
    assert!(
        lengths.iter().any(|&l| l < 120) && lengths.iter().any(|&l| l > 180),
        "spread over the range"
    );
    let (mut a, mut b) = (Scripted::default(), Scripted::default());
    let mut events = Vec::new();
    play_game(6, [&mut a, &mut b], &mut events);
    let end = events.iter().find(|e| e["type"] == "game-end").unwrap();
    let steps = end["steps"].as_u64().unwrap() as u32;
    let killed_out = end["kills"].as_array().unwrap().iter().any(|k| k.as_u64() == Some(5));
    assert!(steps == game_length(6) || killed_out || steps < game_length(6));
    assert!(a.views.iter().chain(&b.views).all(|v| v.step <= game_length(6)));
}

#[test]
fn rule_4_6_the_game_ends_when_a_side_is_wiped_out_or_both_are_stuck() {
    let s = state(&[(0, 0, 0)], 10);
    assert!(s.is_over(), "player 2 has no agents");
    let mut s = state(&[(0, 0, 0), (5, 4, 4)], 10);
    assert!(!s.is_over());
    s.passes_in_a_row = 2;
    assert!(s.is_over());
}

#[test]
fn rule_5_1_two_enemy_neighbours_kill() {
    // Enemy 5 at (2,2); our agent 1 at (1,2); agent 0 moves from (2,0) to (2,1).
    let mut s = state(&[(0, 2, 0), (1, 1, 2), (5, 2, 2), (6, 4, 4)], 0);
    let report = s.apply(mv(0, Down)).unwrap();
    assert_eq!(report.killed, vec![5]);
    assert!(s.agents.iter().all(|a| a.id != 5));
    // An edge cell has three neighbours: two enemies still kill.
    let mut s = state(&[(0, 1, 1), (1, 0, 2), (5, 0, 1), (6, 4, 4)], 0);
    s.agents.retain(|a| a.id != 1);
    s.agents.push(Agent {
        id: 1,
        owner: 0,
        x: 0,
        y: 3,
    });
    let report = s.apply(mv(1, Up)).unwrap();
    assert_eq!(report.killed, vec![5]);
    // One enemy neighbour is not enough.
    let mut s = state(&[(0, 2, 0), (5, 2, 2), (6, 4, 4)], 0);
    assert!(s.apply(mv(0, Down)).unwrap().killed.is_empty());
}

#[test]
fn rule_5_2_the_mover_is_spared_on_its_own_move_but_not_after() {
    // Agent 0 steps between enemies 5 and 6: it survives its own move.
    let mut s = state(&[(0, 2, 0), (5, 1, 1), (6, 3, 1), (9, 4, 4)], 0);
    let report = s.apply(mv(0, Down)).unwrap();
    assert!(report.killed.is_empty());
    assert!(s.agents.iter().any(|a| a.id == 0));
    // Any next move re-checks it: agent 0 dies.
    let report = s.apply(mv(9, Up)).unwrap();
    assert_eq!(report.killed, vec![0]);
}

#[test]
fn rule_5_3_and_6_1_kills_score_50_for_the_killer_and_minus_50_for_the_loser() {
    let mut s = state(&[(0, 2, 0), (1, 1, 2), (5, 2, 2), (6, 4, 4)], 0);
    s.sugar[1][2] = 2;
    s.apply(mv(0, Down)).unwrap();
    assert_eq!(s.kills, [1, 0]);
    assert_eq!(s.losses, [0, 1]);
    assert_eq!(s.scores(), [2 + 50, -50]);
}

#[test]
fn rule_6_2_the_higher_score_wins() {
    for seed in 0..10 {
        let (mut a, mut b) = (house_bot("greedy").unwrap(), house_bot("random").unwrap());
        let out = play_game(seed, [a.as_mut(), b.as_mut()], &mut NoEvents);
        let expected = match out.scores[0].cmp(&out.scores[1]) {
            std::cmp::Ordering::Greater => Some(0),
            std::cmp::Ordering::Less => Some(1),
            std::cmp::Ordering::Equal => None,
        };
        assert_eq!(out.winner, expected, "seed {seed}");
    }
}

#[test]
fn rule_6_3_a_failure_forfeits() {
    let mut bad = Scripted {
        fail: Some(ForfeitReason::Timeout),
        ..Scripted::default()
    };
    let mut good = Scripted::default();
    let out = play_game(2, [&mut good, &mut bad], &mut NoEvents);
    let f = out.forfeit.unwrap();
    assert_eq!((f.seat, f.reason), (1, ForfeitReason::Timeout));
    assert_eq!(out.winner, Some(0));
}

#[test]
fn rule_7_2_the_view_shows_grid_agents_scores_step_and_last_moves() {
    let (mut a, mut b) = (Scripted::default(), Scripted::default());
    play_game(8, [&mut a, &mut b], &mut NoEvents);
    let v = &b.views[0];
    assert_eq!(v.seat, 1);
    assert_eq!(v.step, 2);
    assert_eq!(v.agents.len(), 10);
    let first = a.views[0].legal_moves()[0];
    assert_eq!(v.last_actions, [Some(mv(first.0.id, first.1)), None]);
    assert_eq!(v.my_score, 0);
    assert_eq!(
        v.opponent_score,
        a.views[0].sugar[first.2.1 as usize][first.2.0 as usize] as i64
    );
}

#[test]
fn the_house_bots_have_different_styles() {
    // Over 40 games, greedy collects more sugar than hunter, hunter kills more than greedy.
    let mut totals = [[0i64; 2]; 2]; // [bot][sugar, kills]
    for seed in 0..20 {
        for (i, name) in ["greedy", "hunter"].iter().enumerate() {
            let mut me = house_bot(name).unwrap();
            let mut random = house_bot("random").unwrap();
            let mut events = Vec::new();
            play_game(seed, [me.as_mut(), random.as_mut()], &mut events);
            let end = events.iter().find(|e| e["type"] == "game-end").unwrap();
            totals[i][0] += end["collected"][0].as_i64().unwrap();
            totals[i][1] += end["kills"][0].as_i64().unwrap();
        }
    }
    assert!(totals[0][0] > totals[1][0], "greedy collects more: {totals:?}");
    assert!(totals[1][1] > totals[0][1], "hunter kills more: {totals:?}");
}

/// Places an invalid list, or fails while placing.
struct BadPlacer(Result<Vec<u8>, ForfeitReason>);

impl SugarPlayer for BadPlacer {
    fn place(&mut self, _: &PlaceInfo) -> Result<Vec<u8>, Failure> {
        self.0.clone().map_err(|r| Failure::new(r, "scripted"))
    }
    fn choose(&mut self, _: &View) -> Result<Action, Failure> {
        panic!("a game whose placement failed has no steps")
    }
}

#[test]
fn rule_2_4_when_both_placements_fail_both_forfeit_and_nobody_wins() {
    for (first, second) in [
        (Ok(vec![2, 2, 0, 1, 3]), Ok(vec![0, 1, 2])),
        (Err(ForfeitReason::Trap), Ok(vec![0, 1, 2, 3, 5])),
    ] {
        let (mut a, mut b) = (BadPlacer(first), BadPlacer(second));
        let mut events = Vec::new();
        let out = play_game(4, [&mut a, &mut b], &mut events);
        assert_eq!(out.winner, None, "a draw");
        let seats: Vec<usize> = out.forfeits().map(|f| f.seat).collect();
        assert_eq!(seats, [0, 1], "both forfeits are recorded");
        assert_eq!(out.other_forfeits.len(), 1);
        assert_eq!(out.scores, [0, 0]);
        let told: Vec<u64> = events
            .iter()
            .filter(|e| e["type"] == "forfeit")
            .map(|e| e["seat"].as_u64().unwrap())
            .collect();
        assert_eq!(told, [0, 1], "the replay shows both forfeits");
        let end = events.iter().find(|e| e["type"] == "game-end").unwrap();
        assert!(end["winner"].is_null(), "{end}");
    }
    // One invalid placement: that player forfeits and the other wins (rule 2.3).
    let (mut bad, mut good) = (BadPlacer(Ok(vec![0, 0, 0, 0, 0])), Scripted::default());
    let out = play_game(4, [&mut good, &mut bad], &mut NoEvents);
    assert_eq!(out.forfeits().map(|f| f.seat).collect::<Vec<_>>(), [1]);
    assert_eq!(out.winner, Some(0));
}

/// The view's legal moves (what world 0.2 sends a bot) are the rules' own,
/// in the rules' order, and every other move of the whole move space is
/// illegal by the rules, over many random games.
#[test]
fn rule_4_2_the_views_legal_moves_are_exactly_the_rules_legal_moves() {
    use rand::{Rng, SeedableRng};
    for seed in 0..40u64 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut s = State::new(seed, [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]]);
        while !s.is_over() {
            let seat = s.to_move();
            let rules_moves = s.legal_moves(seat);
            let listed: Vec<Action> = s
                .view(seat)
                .legal_moves()
                .into_iter()
                .map(|(a, d, _)| mv(a.id, d))
                .collect();
            assert_eq!(listed, rules_moves, "seed {seed} step {}", s.step);
            for agent in 0..2 * AGENTS {
                for d in Direction::ALL {
                    let legal = s.check(seat, agent, d).is_ok();
                    assert_eq!(legal, listed.contains(&mv(agent, d)), "seed {seed} agent {agent} {d:?}");
                }
            }
            let action = if listed.is_empty() {
                Action::Pass
            } else {
                listed[rng.random_range(0..listed.len())]
            };
            assert!(s.apply(action).is_ok(), "a listed move is accepted");
        }
    }
}
