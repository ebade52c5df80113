//! The rules of President (see `docs/rules/president.md`).

use arena_core::{Failure, Seat, derive_seed};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Fewest and most players at a table.
pub const PLAYERS: std::ops::RangeInclusive<usize> = 2..=6;
/// Rank numbers: 2-10 as themselves, Jack 11, Queen 12, King 13, Ace 14.
pub const ACE: u8 = 14;
/// The wildcard rank.
pub const WILD: u8 = 3;
/// The rank of 2s, which contest any round.
pub const TWO: u8 = 2;

/// A suit, low to high (rule 1.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Suit {
    /// 1, the lowest.
    Diamonds = 1,
    /// 2
    Clubs = 2,
    /// 3
    Hearts = 3,
    /// 4, the highest.
    Spades = 4,
}

impl Suit {
    /// Every suit, low to high.
    pub const ALL: [Suit; 4] = [Suit::Diamonds, Suit::Clubs, Suit::Hearts, Suit::Spades];

    /// The suit numbered 1-4.
    pub fn from_number(n: u8) -> Option<Suit> {
        Suit::ALL.get(usize::from(n).checked_sub(1)?).copied()
    }
}

/// A card: a rank and suit, or a Joker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Card {
    /// A card of the 52.
    Normal {
        /// 2-14 (Ace 14).
        rank: u8,
        /// The suit.
        suit: Suit,
    },
    /// One of the two Jokers.
    Joker,
}

impl Card {
    /// Shorthand for a normal card.
    pub fn new(rank: u8, suit: Suit) -> Card {
        Card::Normal { rank, suit }
    }

    /// How good a card is to hold, for exchanges and for sorting hands (rule 8.3):
    /// Joker, then 2s, then 3s (wildcards), then Ace down to 4; ties by suit.
    pub fn strength(self) -> (u8, u8) {
        match self {
            Card::Joker => (100, 0),
            Card::Normal { rank: TWO, suit } => (90, suit as u8),
            Card::Normal { rank: WILD, suit } => (80, suit as u8),
            Card::Normal { rank, suit } => (rank, suit as u8),
        }
    }

    /// `K♠`, `10♦`, `3♥`, `Jk` (letters when `unicode` is false).
    pub fn label(self, unicode: bool) -> String {
        match self {
            Card::Joker => "Jk".into(),
            Card::Normal { rank, suit } => {
                let r = match rank {
                    11 => "J".to_string(),
                    12 => "Q".to_string(),
                    13 => "K".to_string(),
                    14 => "A".to_string(),
                    r => r.to_string(),
                };
                let s = match (suit, unicode) {
                    (Suit::Diamonds, true) => '♦',
                    (Suit::Clubs, true) => '♣',
                    (Suit::Hearts, true) => '♥',
                    (Suit::Spades, true) => '♠',
                    (Suit::Diamonds, false) => 'D',
                    (Suit::Clubs, false) => 'C',
                    (Suit::Hearts, false) => 'H',
                    (Suit::Spades, false) => 'S',
                };
                format!("{r}{s}")
            }
        }
    }
}

/// The 54 cards (rule 1.1).
pub fn full_deck() -> Vec<Card> {
    let mut deck: Vec<Card> = Suit::ALL
        .iter()
        .flat_map(|&suit| (TWO..=ACE).map(move |rank| Card::new(rank, suit)))
        .collect();
    deck.extend([Card::Joker, Card::Joker]);
    deck
}

/// Sort a hand weakest first.
pub fn sort_hand(hand: &mut [Card]) {
    hand.sort_by_key(|c| c.strength());
}

/// Shuffle the deck for `seed` and deal it round the table from seat 0 (rule 1.2).
pub fn deal(seed: u64, players: usize) -> Vec<Vec<Card>> {
    let mut deck = full_deck();
    deck.shuffle(&mut ChaCha8Rng::seed_from_u64(derive_seed(seed, 0xDEA1)));
    let mut hands = vec![Vec::new(); players];
    for (i, card) in deck.into_iter().enumerate() {
        hands[i % players].push(card);
    }
    for hand in &mut hands {
        sort_hand(hand);
    }
    hands
}

/// What a set of cards plays as (rules 3-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Play {
    /// Cards of one normal rank 4-Ace, wildcards standing in.
    Normal {
        /// How many cards.
        count: u8,
        /// The face value.
        rank: u8,
        /// The highest card: its suit, and 1 if real or 0 if a wildcard stands for it.
        top: (u8, u8),
    },
    /// Only 2s.
    Twos {
        /// How many.
        count: u8,
        /// The best suit among them.
        top: u8,
    },
    /// A single Joker.
    Joker,
}

impl Play {
    /// Cards in the play.
    pub fn count(self) -> u8 {
        match self {
            Play::Normal { count, .. } | Play::Twos { count, .. } => count,
            Play::Joker => 1,
        }
    }
}

/// Why a set of cards is not a play, or does not beat the state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Illegal {
    /// No cards.
    Empty,
    /// A card not in the hand (or more copies than held).
    NotInHand,
    /// Cards of different face values, or a mix with 2s or a Joker.
    Mixed,
    /// More than four cards of one face value.
    TooMany,
    /// A wildcard standing for a card also in the move.
    Duplicate,
    /// Does not beat or burn the current state.
    DoesNotBeat,
    /// A pass by the player who leads.
    PassOnLead,
}

impl Illegal {
    /// Why, in words: `not in hand`, `does not beat`, ...
    pub fn words(self) -> &'static str {
        match self {
            Illegal::Empty => "empty",
            Illegal::NotInHand => "not in hand",
            Illegal::Mixed => "mixed",
            Illegal::TooMany => "too many",
            Illegal::Duplicate => "duplicate",
            Illegal::DoesNotBeat => "does not beat",
            Illegal::PassOnLead => "pass on lead",
        }
    }
}

/// Read a set of cards as a play (rules 3.1, 4, 5, 6).
pub fn classify(cards: &[Card]) -> Result<Play, Illegal> {
    if cards.is_empty() {
        return Err(Illegal::Empty);
    }
    if cards.contains(&Card::Joker) {
        return if cards.len() == 1 {
            Ok(Play::Joker)
        } else {
            Err(Illegal::Mixed)
        };
    }
    let normal: Vec<(u8, Suit)> = cards
        .iter()
        .filter_map(|c| match *c {
            Card::Normal { rank, suit } => Some((rank, suit)),
            Card::Joker => None,
        })
        .collect();
    if normal.iter().all(|&(r, _)| r == TWO) {
        let top = normal.iter().map(|&(_, s)| s as u8).max().unwrap_or(0);
        return Ok(Play::Twos {
            count: cards.len() as u8,
            top,
        });
    }
    if normal.iter().any(|&(r, _)| r == TWO) {
        return Err(Illegal::Mixed);
    }
    let mut real = normal.iter().filter(|&&(r, _)| r != WILD);
    // Only wildcards: they stand for Aces, the best they can be (rule 5.3).
    let rank = real.next().map_or(ACE, |&(r, _)| r);
    if normal.iter().any(|&(r, _)| r != WILD && r != rank) {
        return Err(Illegal::Mixed);
    }
    if cards.len() > 4 {
        return Err(Illegal::TooMany);
    }
    let mut represented: Vec<(u8, u8)> = normal.iter().map(|&(r, s)| (s as u8, u8::from(r != WILD))).collect();
    represented.sort_unstable();
    if represented.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err(Illegal::Duplicate);
    }
    let top = represented.last().copied().unwrap_or((0, 0));
    Ok(Play::Normal {
        count: cards.len() as u8,
        rank,
        top,
    })
}

/// How a play meets the state (rules 3.2, 4, 6, 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Meets {
    /// Opens a fresh round.
    Lead,
    /// Beats the state: it becomes the state.
    Beat,
    /// Burns the state: the round ends and the burner leads.
    Burn,
}

/// Whether `play` can be played on `state`.
pub fn meets(play: Play, state: Option<Play>) -> Result<Meets, Illegal> {
    let Some(state) = state else {
        return Ok(Meets::Lead);
    };
    match (play, state) {
        (_, Play::Joker) => Err(Illegal::DoesNotBeat),
        (Play::Joker, _) => Ok(Meets::Beat),
        (Play::Twos { count, .. }, Play::Normal { count: n, .. }) if count == n.saturating_sub(1).max(1) => {
            Ok(Meets::Beat)
        }
        (Play::Twos { count, top }, Play::Twos { count: n, top: t }) if count == n && top > t => Ok(Meets::Burn),
        (
            Play::Normal { count, rank, top },
            Play::Normal {
                count: n,
                rank: r,
                top: t,
            },
        ) if count == n => {
            if rank > r {
                Ok(Meets::Beat)
            } else if rank == r && top > t {
                Ok(Meets::Burn)
            } else {
                Err(Illegal::DoesNotBeat)
            }
        }
        _ => Err(Illegal::DoesNotBeat),
    }
}

/// Take `cards` out of `hand` if every one is there.
pub fn remove_cards(hand: &[Card], cards: &[Card]) -> Option<Vec<Card>> {
    let mut rest = hand.to_vec();
    for c in cards {
        let i = rest.iter().position(|h| h == c)?;
        rest.remove(i);
    }
    Some(rest)
}

/// The title of finishing `position` (1 = first out) among `players` (rule 8.1, 8.2).
pub fn title(position: u32, players: usize) -> &'static str {
    let n = players as u32;
    match (position, n) {
        (1, _) => "president",
        (p, n) if p == n => "bum",
        (2, n) if n >= 4 => "vice-president",
        (p, n) if n >= 4 && p == n - 1 => "vice-bum",
        _ => "neutral",
    }
}

/// An entry of the round's history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Turn {
    /// Who.
    pub seat: Seat,
    /// The cards played, or `None` for a pass.
    pub cards: Option<Vec<Card>>,
}

/// What a player is told when a game starts (rule 9.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameInfo {
    /// The player's seat.
    pub seat: Seat,
    /// Players at the table.
    pub players: usize,
    /// The player's own random seed.
    pub seed: u64,
    /// Positions in the previous game of this series, by seat (none for the first game).
    pub last_positions: Option<Vec<u32>>,
    /// Cards this player gave in the exchange.
    pub gave: Vec<Card>,
    /// Cards this player received in the exchange.
    pub received: Vec<Card>,
}

/// What a player sees on its turn (rule 9.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// The player's seat.
    pub seat: Seat,
    /// Its hand, weakest first.
    pub hand: Vec<Card>,
    /// Cards held by each seat.
    pub card_counts: Vec<u8>,
    /// Positions in the previous game, by seat.
    pub last_positions: Option<Vec<u32>>,
    /// Positions taken so far in this game, by seat (0 = still playing).
    pub positions: Vec<u32>,
    /// The cards to beat, as played (empty when leading).
    pub state: Vec<Card>,
    /// Who played them.
    pub state_seat: Option<Seat>,
    /// Moves and passes so far this round, in order.
    pub round: Vec<Turn>,
}

impl View {
    /// What the state plays as, if there is one.
    pub fn state_play(&self) -> Option<Play> {
        if self.state.is_empty() {
            None
        } else {
            classify(&self.state).ok()
        }
    }

    /// Whether `cards` would be a legal play now (a pass is `None`).
    pub fn is_legal(&self, cards: Option<&[Card]>) -> bool {
        match cards {
            None => !self.state.is_empty(),
            Some(cards) => {
                remove_cards(&self.hand, cards).is_some()
                    && classify(cards).and_then(|p| meets(p, self.state_play())).is_ok()
            }
        }
    }

    /// Every legal play now, each a distinct set of cards from the hand:
    /// for each face value held, every set of its cards and wildcards the
    /// rules accept (rules 3-5); wildcards alone (they stand for Aces); any
    /// set of 2s (rule 6); the Joker (rule 7); only those that lead, beat or
    /// burn the state now. Each play's cards are weakest first; the plays are
    /// ordered by [`play_order`]. A pass is not listed: it is legal exactly
    /// when the state is not empty.
    pub fn legal_plays(&self) -> Vec<Vec<Card>> {
        let of_rank = |r: u8| -> Vec<Card> {
            self.hand
                .iter()
                .copied()
                .filter(|c| matches!(c, Card::Normal { rank, .. } if *rank == r))
                .collect()
        };
        let wilds = of_rank(WILD);
        let mut ranks: Vec<u8> = self
            .hand
            .iter()
            .filter_map(|c| match *c {
                Card::Normal { rank, .. } if rank != WILD && rank != TWO => Some(rank),
                _ => None,
            })
            .collect();
        ranks.sort_unstable();
        ranks.dedup();
        let mut plays: Vec<Vec<Card>> = Vec::new();
        // Every non-empty subset of `pool` with at most `max` cards and at
        // least one of its first `real` cards (pools hold at most 8 cards).
        let mut subsets = |pool: &[Card], real: usize, max: usize| {
            for mask in 1u32..(1 << pool.len()) {
                if mask.count_ones() as usize <= max && mask & ((1 << real) - 1) != 0 {
                    plays.push(
                        (0..pool.len())
                            .filter(|i| mask >> i & 1 == 1)
                            .map(|i| pool[i])
                            .collect(),
                    );
                }
            }
        };
        for rank in ranks {
            let real = of_rank(rank);
            let pool: Vec<Card> = real.iter().chain(&wilds).copied().collect();
            subsets(&pool, real.len(), 4);
        }
        subsets(&wilds, wilds.len(), 4);
        let twos = of_rank(TWO);
        subsets(&twos, twos.len(), twos.len());
        if self.hand.contains(&Card::Joker) {
            plays.push(vec![Card::Joker]);
        }
        plays.retain(|p| self.is_legal(Some(p)));
        for p in &mut plays {
            p.sort_by_key(|c| c.strength());
        }
        plays.sort_by(|a, b| play_order(a, b));
        plays.dedup();
        plays
    }

    /// The plays the house bots consider: for each rank held, the 1 to n
    /// cards of that rank with the lowest suits (no wildcards added), the same
    /// for 2s and 3s, and a Joker; only those legal now, weakest first.
    pub fn simple_plays(&self) -> Vec<Vec<Card>> {
        let mut by_rank: Vec<(u8, Vec<Card>)> = Vec::new();
        for &c in &self.hand {
            if let Card::Normal { rank, .. } = c {
                match by_rank.iter_mut().find(|(r, _)| *r == rank) {
                    Some((_, cs)) => cs.push(c),
                    None => by_rank.push((rank, vec![c])),
                }
            }
        }
        let mut plays: Vec<Vec<Card>> = Vec::new();
        for (_, mut cards) in by_rank {
            cards.sort_by_key(|c| c.strength());
            for n in 1..=cards.len() {
                plays.push(cards[..n].to_vec());
            }
        }
        if self.hand.contains(&Card::Joker) {
            plays.push(vec![Card::Joker]);
        }
        let key = |p: &Vec<Card>| {
            let s = p[0].strength();
            (s.0, p.len(), p.iter().map(|c| c.strength().1).max().unwrap_or(0))
        };
        plays.sort_by_key(key);
        plays.retain(|p| self.is_legal(Some(p)));
        plays
    }
}

/// The order legal plays are listed in: weakest first. Plays of one face
/// value (3 low, Ace high; wildcards alone count as Aces) come before 2s, and
/// the Joker last; then fewer cards first; then by the highest suit
/// represented; then card by card.
pub fn play_order(a: &[Card], b: &[Card]) -> std::cmp::Ordering {
    let key = |cards: &[Card]| match classify(cards) {
        Ok(Play::Normal { count, rank, top }) => (0, rank, count, top),
        Ok(Play::Twos { count, top }) => (1, 0, count, (top, 0)),
        Ok(Play::Joker) | Err(_) => (2, 0, 1, (0, 0)),
    };
    let strengths = |cards: &[Card]| cards.iter().map(|c| c.strength()).collect::<Vec<_>>();
    key(a).cmp(&key(b)).then_with(|| strengths(a).cmp(&strengths(b)))
}

/// A President player: a house bot, a wasm bot or a person.
pub trait PresidentPlayer {
    /// A game starts.
    fn start_game(&mut self, info: &GameInfo) -> Result<(), Failure>;
    /// Play cards from the hand, or pass (`None`).
    fn play(&mut self, view: &View) -> Result<Option<Vec<Card>>, Failure>;
}

/// The seed of each seat's player for a game.
pub fn player_seed(seed: u64, seat: Seat) -> u64 {
    derive_seed(seed, 0x5EA7_0000 + seat as u64)
}

/// The exchange before a game (rule 8.3): returns the hands after it and,
/// per seat, what it gave and received.
pub fn exchange(hands: &mut [Vec<Card>], last_positions: &[u32]) -> Vec<(Vec<Card>, Vec<Card>)> {
    let n = hands.len();
    let mut moved = vec![(Vec::new(), Vec::new()); n];
    let seat_of = |p: u32| last_positions.iter().position(|&q| q == p);
    let mut pairs = vec![(n as u32, 1u32, if n >= 4 { 2 } else { 1 })];
    if n >= 4 {
        pairs.push((n as u32 - 1, 2, 1));
    }
    for (low, high, count) in pairs {
        let (Some(giver), Some(taker)) = (seat_of(low), seat_of(high)) else {
            continue;
        };
        for _ in 0..count {
            sort_hand(&mut hands[giver]);
            if let Some(best) = hands[giver].pop() {
                hands[taker].push(best);
                moved[giver].0.push(best);
                moved[taker].1.push(best);
            }
        }
        // The receiver gives back as many of its weakest cards, so hands keep their sizes.
        sort_hand(&mut hands[taker]);
        for _ in 0..count {
            if hands[taker].is_empty() {
                break;
            }
            let worst = hands[taker].remove(0);
            hands[giver].push(worst);
            moved[taker].0.push(worst);
            moved[giver].1.push(worst);
        }
        sort_hand(&mut hands[giver]);
    }
    moved
}

/// A game in progress.
#[derive(Debug, Clone)]
pub struct Table {
    /// Hands by seat.
    pub hands: Vec<Vec<Card>>,
    /// Finishing positions by seat, 0 while still playing.
    pub positions: Vec<u32>,
    next_top: u32,
    next_bottom: u32,
    /// The play to beat and who made it.
    pub state: Option<(Vec<Card>, Play, Seat)>,
    /// This round so far.
    pub round: Vec<Turn>,
    /// Seat to move.
    pub to_move: Seat,
    /// Who passed since the last play.
    passed: Vec<bool>,
}

impl Table {
    /// A table with these hands and `leader` to lead.
    pub fn new(hands: Vec<Vec<Card>>, leader: Seat) -> Table {
        let n = hands.len();
        Table {
            hands,
            positions: vec![0; n],
            next_top: 1,
            next_bottom: n as u32,
            state: None,
            round: Vec::new(),
            to_move: leader,
            passed: vec![false; n],
        }
    }

    /// Players still holding cards and not put out.
    pub fn active(&self) -> Vec<Seat> {
        (0..self.hands.len()).filter(|&s| self.positions[s] == 0).collect()
    }

    /// Whether the game is over: at most one player left (rule 8.1).
    pub fn is_over(&self) -> bool {
        self.active().len() <= 1
    }

    /// The view of `seat`.
    pub fn view(&self, seat: Seat, last_positions: &Option<Vec<u32>>) -> View {
        View {
            seat,
            hand: self.hands[seat].clone(),
            card_counts: self.hands.iter().map(|h| h.len() as u8).collect(),
            last_positions: last_positions.clone(),
            positions: self.positions.clone(),
            state: self.state.as_ref().map(|(c, _, _)| c.clone()).unwrap_or_default(),
            state_seat: self.state.as_ref().map(|&(_, _, s)| s),
            round: self.round.clone(),
        }
    }

    fn next_active_after(&self, seat: Seat) -> Option<Seat> {
        let n = self.hands.len();
        (1..=n).map(|k| (seat + k) % n).find(|&s| self.positions[s] == 0)
    }

    fn fresh_round(&mut self, leader: Seat) {
        self.state = None;
        self.round.clear();
        self.passed.iter_mut().for_each(|p| *p = false);
        self.to_move = if self.positions[leader] == 0 {
            leader
        } else {
            self.next_active_after(leader).unwrap_or(leader)
        };
    }

    fn finish_if_last(&mut self) {
        let active = self.active();
        if active.len() == 1 {
            self.positions[active[0]] = self.next_top;
            self.next_top += 1;
        }
    }

    /// Put `seat` out as the last finisher still free (rule 10).
    pub fn put_out(&mut self, seat: Seat) {
        if self.positions[seat] != 0 {
            return;
        }
        self.positions[seat] = self.next_bottom;
        self.next_bottom -= 1;
        self.hands[seat].clear();
        self.finish_if_last();
        if self.is_over() {
            return;
        }
        if let Some(last) = self.state.as_ref().map(|&(_, _, s)| s)
            && self.everyone_else_passed(last)
        {
            self.fresh_round(last);
            return;
        }
        if self.to_move == seat {
            self.to_move = self.next_active_after(seat).unwrap_or(seat);
        }
    }

    fn everyone_else_passed(&self, last: Seat) -> bool {
        self.active().iter().filter(|&&s| s != last).all(|&s| self.passed[s])
    }

    /// Play `cards` (or pass, `None`) for the seat to move (rules 3-7).
    pub fn apply(&mut self, cards: Option<Vec<Card>>) -> Result<Option<Meets>, Illegal> {
        let seat = self.to_move;
        let Some(cards) = cards else {
            let Some(last) = self.state.as_ref().map(|&(_, _, s)| s) else {
                return Err(Illegal::PassOnLead);
            };
            self.passed[seat] = true;
            self.round.push(Turn { seat, cards: None });
            if self.everyone_else_passed(last) {
                self.fresh_round(last);
            } else {
                self.to_move = self.next_active_after(seat).unwrap_or(seat);
            }
            return Ok(None);
        };
        let rest = remove_cards(&self.hands[seat], &cards).ok_or(Illegal::NotInHand)?;
        let play = classify(&cards)?;
        let meets = meets(play, self.state.as_ref().map(|&(_, p, _)| p))?;
        self.hands[seat] = rest;
        self.round.push(Turn {
            seat,
            cards: Some(cards.clone()),
        });
        if self.hands[seat].is_empty() {
            self.positions[seat] = self.next_top;
            self.next_top += 1;
            self.finish_if_last();
        }
        if self.is_over() {
            return Ok(Some(meets));
        }
        match meets {
            Meets::Burn => self.fresh_round(seat),
            Meets::Lead | Meets::Beat => {
                self.state = Some((cards, play, seat));
                self.passed.iter_mut().for_each(|p| *p = false);
                self.to_move = self.next_active_after(seat).unwrap_or(seat);
            }
        }
        Ok(Some(meets))
    }
}

/// The leader of a game: the President of the last game, else whoever holds
/// the 4 of Diamonds (rule 8.4).
pub fn leader(hands: &[Vec<Card>], last_positions: Option<&[u32]>) -> Seat {
    if let Some(p) = last_positions.and_then(|p| p.iter().position(|&q| q == 1)) {
        return p;
    }
    hands
        .iter()
        .position(|h| h.contains(&Card::new(4, Suit::Diamonds)))
        .unwrap_or(0)
}
