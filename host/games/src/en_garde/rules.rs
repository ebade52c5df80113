//! The rules of En Garde (see `docs/rules/en-garde.md`).

use arena_core::{Failure, Seat, derive_seed};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Number of spaces on the strip (spaces 0..=22).
pub const STRIP_LENGTH: u8 = 23;
/// Cards in a full hand.
pub const HAND_SIZE: usize = 5;
/// Highest card value; the deck holds five cards of each value 1..=5.
pub const MAX_CARD: u8 = 5;
/// Copies of each value in the deck.
pub const COPIES: usize = 5;
/// Points needed to win a game.
pub const POINTS_TO_WIN: u8 = 5;
/// Rounds after which a game without a winner stops (rule 6.3).
pub const MAX_ROUNDS: u32 = 100;

/// Which rules are in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// No parries; the round ends when the last card is drawn.
    #[default]
    Simple,
    /// Attacks may be parried; the opponent gets a last chance to attack.
    Standard,
}

impl Variant {
    /// Every variant's name, the default first.
    pub const NAMES: [&'static str; 2] = ["simple", "standard"];

    /// The variant called `name`, or `None` for a name that is none of
    /// [`Variant::NAMES`] (never a silent default).
    pub fn from_name(name: &str) -> Option<Variant> {
        match name {
            "simple" => Some(Variant::Simple),
            "standard" => Some(Variant::Standard),
            _ => None,
        }
    }

    /// The variant's name, as `from_name` reads it.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Simple => "simple",
            Variant::Standard => "standard",
        }
    }
}

/// Direction of a move, seen from the mover.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// Towards the opponent.
    Forward,
    /// Away from the opponent.
    Backward,
}

impl Direction {
    /// The direction as the rules and the replay write it: `forward`, `backward`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Forward => "forward",
            Direction::Backward => "backward",
        }
    }
}

/// A move: play `card` and move that many spaces in `direction`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Move {
    /// The card played, 1..=5.
    pub card: u8,
    /// Which way to move.
    pub direction: Direction,
}

/// The previous move of a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayedMove {
    /// Who played it.
    pub seat: Seat,
    /// The move.
    pub mv: Move,
    /// Whether it was an attack that was parried.
    pub parried: bool,
}

/// Sent to each player once per game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameInfo {
    /// The player's seat.
    pub seat: Seat,
    /// The variant in force.
    pub variant: Variant,
    /// Points needed to win.
    pub points_to_win: u8,
    /// Spaces on the strip.
    pub strip_length: u8,
    /// The player's own random seed, derived from the game seed and seat.
    pub seed: u64,
}

/// Sent to each player at the start of each round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundInfo {
    /// Round number from 1.
    pub round: u32,
    /// Seat moving first.
    pub first_to_move: Seat,
    /// Scores before the round, by seat.
    pub scores: [u8; 2],
}

/// What a seat may know when it is asked for a move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// The seat being asked.
    pub seat: Seat,
    /// The variant in force.
    pub variant: Variant,
    /// Round number from 1.
    pub round: u32,
    /// Own hand, ascending.
    pub hand: Vec<u8>,
    /// Own space.
    pub my_position: u8,
    /// Opponent's space.
    pub opponent_position: u8,
    /// Own score.
    pub my_score: u8,
    /// Opponent's score.
    pub opponent_score: u8,
    /// Cards left in the draw deck.
    pub deck_remaining: u8,
    /// Cards discarded this round, oldest first.
    pub discard: Vec<u8>,
    /// Cards in the opponent's hand.
    pub opponent_hand_size: u8,
    /// The previous move of the round.
    pub last_move: Option<PlayedMove>,
}

/// A player of En Garde: a house bot, a wasm bot behind its adapter, or a person.
pub trait Fencer {
    /// A game starts.
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure>;
    /// A round starts.
    fn start_round(&mut self, info: &RoundInfo) -> Result<(), Failure>;
    /// Choose a move. Only called when at least one legal move exists.
    fn choose_move(&mut self, view: &View) -> Result<Move, Failure>;
}

/// The space a seat starts each round on.
pub fn start_position(seat: Seat) -> u8 {
    if seat == 0 { 0 } else { STRIP_LENGTH - 1 }
}

/// Where a move from `from` would land for `seat`, if it stays on the strip (rule 3.2).
pub fn landing(seat: Seat, from: u8, mv: Move) -> Option<u8> {
    let forward_sign: i16 = if seat == 0 { 1 } else { -1 };
    let sign = match mv.direction {
        Direction::Forward => forward_sign,
        Direction::Backward => -forward_sign,
    };
    let to = i16::from(from) + sign * i16::from(mv.card);
    (0..i16::from(STRIP_LENGTH)).contains(&to).then_some(to as u8)
}

/// Why a move is illegal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Illegal {
    /// The card is not in the hand (rule 3.1).
    CardNotInHand,
    /// The move would leave the strip (rule 3.2).
    LeavesStrip,
    /// The move would pass the opponent (rule 3.2).
    PassesOpponent,
}

/// Check a move for `seat` with `hand` at `mine` against an opponent at `theirs`.
/// Returns the landing space.
pub fn check_move(seat: Seat, hand: &[u8], mine: u8, theirs: u8, mv: Move) -> Result<u8, Illegal> {
    if !hand.contains(&mv.card) {
        return Err(Illegal::CardNotInHand);
    }
    let to = landing(seat, mine, mv).ok_or(Illegal::LeavesStrip)?;
    let passes = if seat == 0 { to > theirs } else { to < theirs };
    if passes {
        return Err(Illegal::PassesOpponent);
    }
    Ok(to)
}

/// Every distinct legal move, ordered by card ascending, forward before backward.
///
/// House bots break ties by this order, and the bot SDK lists moves in the
/// same order, so twins choose alike.
pub fn legal_moves(seat: Seat, hand: &[u8], mine: u8, theirs: u8) -> Vec<Move> {
    let mut values: Vec<u8> = hand.to_vec();
    values.sort_unstable();
    values.dedup();
    let mut moves = Vec::with_capacity(values.len() * 2);
    for card in values {
        for direction in [Direction::Forward, Direction::Backward] {
            let mv = Move { card, direction };
            if check_move(seat, hand, mine, theirs, mv).is_ok() {
                moves.push(mv);
            }
        }
    }
    moves
}

/// The distance between the fencers after `seat` at `mine` plays `mv`
/// against an opponent at `theirs`: 0 is a hit, `u8::MAX` a move off the strip.
pub fn distance_after(seat: Seat, mine: u8, theirs: u8, mv: Move) -> u8 {
    landing(seat, mine, mv).map_or(u8::MAX, |to| to.abs_diff(theirs))
}

impl View {
    /// The legal moves of the viewing seat.
    pub fn legal_moves(&self) -> Vec<Move> {
        legal_moves(self.seat, &self.hand, self.my_position, self.opponent_position)
    }

    /// The distance between the fencers after `mv` (0 is a hit).
    pub fn distance_after(&self, mv: Move) -> u8 {
        distance_after(self.seat, self.my_position, self.opponent_position, mv)
    }
}

/// How a round ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "kebab-case")]
pub enum RoundEnd {
    /// A move landed on the opponent (rule 3.3).
    Hit {
        /// Who scored.
        scorer: Seat,
    },
    /// The mover played an illegal move (rule 5.1).
    IllegalMove {
        /// Who scored (the opponent of the offender).
        scorer: Seat,
        /// What was wrong.
        why: Illegal,
        /// The move the offender tried.
        attempted: Move,
    },
    /// The seat to move had no legal move (rule 5.2).
    NoLegalMove {
        /// Who scored.
        scorer: Seat,
    },
    /// The deck ran out (rule 4.2 / 7.3): the fencer who advanced farther scores.
    DeckOut {
        /// Who scored, if the advances differ.
        scorer: Option<Seat>,
        /// Spaces each seat advanced from its start.
        advanced: [u8; 2],
    },
    /// The last-chance attack of the standard variant hit (rule 7.3).
    LastChanceHit {
        /// Who scored.
        scorer: Seat,
    },
}

impl RoundEnd {
    /// The seat that scored, if any.
    pub fn scorer(&self) -> Option<Seat> {
        match *self {
            RoundEnd::Hit { scorer }
            | RoundEnd::IllegalMove { scorer, .. }
            | RoundEnd::NoLegalMove { scorer }
            | RoundEnd::LastChanceHit { scorer } => Some(scorer),
            RoundEnd::DeckOut { scorer, .. } => scorer,
        }
    }
}

/// One round in play: positions, hands, deck and discards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round {
    /// The variant in force.
    pub variant: Variant,
    /// Each seat's space.
    pub positions: [u8; 2],
    /// Each seat's hand, ascending.
    pub hands: [Vec<u8>; 2],
    /// The draw deck; the next card drawn is the last element.
    pub deck: Vec<u8>,
    /// Discards, oldest first.
    pub discard: Vec<u8>,
    /// The seat to move.
    pub to_move: Seat,
    /// The previous move played by a seat on its turn.
    pub last_move: Option<PlayedMove>,
    /// The last-chance attack of rule 7.3, made when the deck ran out: by
    /// the opponent of the last drawer, with the card of the distance.
    pub last_chance: Option<PlayedMove>,
}

/// The other seat.
pub fn opponent(seat: Seat) -> Seat {
    1 - seat
}

impl Round {
    /// Shuffle a fresh deck with `rng`, deal five cards to each seat (seat 0
    /// first), put both fencers on their start spaces (rules 2.1-2.3).
    pub fn deal(variant: Variant, first_to_move: Seat, rng: &mut ChaCha8Rng) -> Round {
        let mut deck: Vec<u8> = (1..=MAX_CARD).flat_map(|v| std::iter::repeat_n(v, COPIES)).collect();
        deck.shuffle(rng);
        let mut hands = [Vec::with_capacity(HAND_SIZE), Vec::with_capacity(HAND_SIZE)];
        for hand in &mut hands {
            for _ in 0..HAND_SIZE {
                hand.extend(deck.pop());
            }
            hand.sort_unstable();
        }
        Round {
            variant,
            positions: [start_position(0), start_position(1)],
            hands,
            deck,
            discard: Vec::new(),
            to_move: first_to_move,
            last_move: None,
            last_chance: None,
        }
    }

    /// The legal moves of `seat` now.
    pub fn legal_moves(&self, seat: Seat) -> Vec<Move> {
        legal_moves(
            seat,
            &self.hands[seat],
            self.positions[seat],
            self.positions[opponent(seat)],
        )
    }

    /// The view of `seat`, given the game scores and round number.
    pub fn view(&self, seat: Seat, scores: [u8; 2], round: u32) -> View {
        let opp = opponent(seat);
        View {
            seat,
            variant: self.variant,
            round,
            hand: self.hands[seat].clone(),
            my_position: self.positions[seat],
            opponent_position: self.positions[opp],
            my_score: scores[seat],
            opponent_score: scores[opp],
            deck_remaining: self.deck.len() as u8,
            discard: self.discard.clone(),
            opponent_hand_size: self.hands[opp].len() as u8,
            last_move: self.last_move,
        }
    }

    fn distance(&self) -> u8 {
        self.positions[0].abs_diff(self.positions[1])
    }

    fn take_card(&mut self, seat: Seat, card: u8) {
        if let Some(i) = self.hands[seat].iter().position(|&c| c == card) {
            self.hands[seat].remove(i);
            self.discard.push(card);
        }
    }

    /// Draw one card into `seat`'s hand; returns whether this drew the last card.
    fn draw(&mut self, seat: Seat) -> bool {
        match self.deck.pop() {
            Some(card) => {
                let hand = &mut self.hands[seat];
                let at = hand.partition_point(|&c| c <= card);
                hand.insert(at, card);
                self.deck.is_empty()
            }
            None => false,
        }
    }

    /// Play `mv` for the seat to move. Returns how the round ended, if it did.
    pub fn apply(&mut self, mv: Move) -> Option<RoundEnd> {
        let seat = self.to_move;
        let opp = opponent(seat);
        let to = match check_move(seat, &self.hands[seat], self.positions[seat], self.positions[opp], mv) {
            Ok(to) => to,
            Err(why) => {
                return Some(RoundEnd::IllegalMove {
                    scorer: opp,
                    why,
                    attempted: mv,
                });
            }
        };
        self.take_card(seat, mv.card);
        if to == self.positions[opp] {
            let parry = self.variant == Variant::Standard && self.hands[opp].contains(&mv.card);
            if !parry {
                self.last_move = Some(PlayedMove {
                    seat,
                    mv,
                    parried: false,
                });
                return Some(RoundEnd::Hit { scorer: seat });
            }
            // Rule 7.1: the defender discards a card of the same value, the
            // attacker stays where it stood, both draw back up.
            self.take_card(opp, mv.card);
            self.last_move = Some(PlayedMove {
                seat,
                mv,
                parried: true,
            });
            for drawer in [seat, opp] {
                if self.draw(drawer) {
                    return Some(self.deck_out(drawer));
                }
            }
            self.to_move = opp;
            return None;
        }
        self.positions[seat] = to;
        self.last_move = Some(PlayedMove {
            seat,
            mv,
            parried: false,
        });
        if self.draw(seat) {
            return Some(self.deck_out(seat));
        }
        self.to_move = opp;
        None
    }

    /// The last card was drawn by `drawer` (rules 4.2 and 7.3).
    fn deck_out(&mut self, drawer: Seat) -> RoundEnd {
        if self.variant == Variant::Standard {
            let attacker = opponent(drawer);
            let distance = self.distance();
            if self.hands[attacker].contains(&distance) {
                let mv = Move {
                    card: distance,
                    direction: Direction::Forward,
                };
                self.take_card(attacker, distance);
                let parried = self.hands[drawer].contains(&distance);
                if parried {
                    self.take_card(drawer, distance);
                }
                // Its own record: the move that drew the last card keeps its
                // own (it may itself have been a parried attack).
                self.last_chance = Some(PlayedMove {
                    seat: attacker,
                    mv,
                    parried,
                });
                if !parried {
                    return RoundEnd::LastChanceHit { scorer: attacker };
                }
            }
        }
        let advanced = [
            self.positions[0] - start_position(0),
            start_position(1) - self.positions[1],
        ];
        let scorer = match advanced[0].cmp(&advanced[1]) {
            std::cmp::Ordering::Greater => Some(0),
            std::cmp::Ordering::Less => Some(1),
            std::cmp::Ordering::Equal => None,
        };
        RoundEnd::DeckOut { scorer, advanced }
    }
}

/// Settings of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// The variant.
    pub variant: Variant,
    /// Rounds after which the game stops without a winner (rule 6.3).
    pub max_rounds: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            variant: Variant::Simple,
            max_rounds: MAX_ROUNDS,
        }
    }
}

/// The seed each seat's player gets for its own random choices.
pub fn player_seed(game_seed: u64, seat: Seat) -> u64 {
    derive_seed(game_seed, 0x5EA7_0000 + seat as u64)
}

/// The generator that shuffles round `round` (from 1) of the game with `game_seed`.
pub fn round_rng(game_seed: u64, round: u32) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(derive_seed(game_seed, u64::from(round)))
}
