//! President bots: implement [`Bot`] and export it with [`export_president!`](crate::export_president).
//!
//! Ranks: 2-10, Jack 11, Queen 12, King 13, Ace 14; suits 1 Diamonds < 2
//! Clubs < 3 Hearts < 4 Spades; a Joker is rank 0, suit 0. 3s are wildcards,
//! 2s contest any round, a Joker beats everything. The rules are in
//! `docs/rules/president.md`.

#[doc(hidden)]
#[allow(clippy::too_many_arguments)] // generated glue for a wide record
pub mod bindings {
    wit_bindgen::generate!({
        path: "../wit/0.1.0",
        world: "president",
        additional_derives: [PartialEq, Eq],
        pub_export_macro: true,
        export_macro_name: "__export_president_world",
        default_bindings_module: "arena_bot_sdk::president::bindings",
        runtime_path: "arena_bot_sdk::__private::wit_bindgen::rt",
        with: { "arena:bots/host@0.1.0": crate::en_garde::bindings::arena::bots::host },
    });
}

pub use bindings::arena::bots::president_types::{Card, GameInfo, Turn, View};

/// The rank of the wildcards.
pub const WILD: u8 = 3;
/// The rank of 2s.
pub const TWO: u8 = 2;
/// The rank of Aces.
pub const ACE: u8 = 14;

/// A President bot. One value is created per game.
pub trait Bot: 'static {
    /// A game starts (after the exchange): make your bot.
    fn new(info: &GameInfo) -> Self;
    /// Your turn: cards from your hand, or `None` to pass (not when you lead).
    fn play(&mut self, view: &View) -> Option<Vec<Card>>;
}

impl Card {
    /// Whether this is a Joker.
    pub fn is_joker(&self) -> bool {
        self.rank == 0
    }

    /// How good a card is to hold: Joker, then 2s, then 3s, then Ace down to 4; ties by suit.
    pub fn strength(&self) -> (u8, u8) {
        match self.rank {
            0 => (100, 0),
            TWO => (90, self.suit),
            WILD => (80, self.suit),
            r => (r, self.suit),
        }
    }
}

/// What a set of cards plays as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Play {
    /// Cards of one rank 4-Ace, wildcards standing in; `top` is (suit, 1 if real).
    Normal {
        /// Cards.
        count: u8,
        /// Face value.
        rank: u8,
        /// The highest card.
        top: (u8, u8),
    },
    /// Only 2s.
    Twos {
        /// Cards.
        count: u8,
        /// Best suit.
        top: u8,
    },
    /// A Joker.
    Joker,
}

/// Read cards as a play, or `None` if they are not one.
pub fn classify(cards: &[Card]) -> Option<Play> {
    if cards.is_empty() {
        return None;
    }
    if cards.iter().any(Card::is_joker) {
        return (cards.len() == 1).then_some(Play::Joker);
    }
    if cards.iter().all(|c| c.rank == TWO) {
        return Some(Play::Twos {
            count: cards.len() as u8,
            top: cards.iter().map(|c| c.suit).max()?,
        });
    }
    if cards.iter().any(|c| c.rank == TWO) || cards.len() > 4 {
        return None;
    }
    let rank = cards.iter().find(|c| c.rank != WILD).map_or(ACE, |c| c.rank);
    if cards.iter().any(|c| c.rank != WILD && c.rank != rank) {
        return None;
    }
    let mut represented: Vec<(u8, u8)> = cards.iter().map(|c| (c.suit, u8::from(c.rank != WILD))).collect();
    represented.sort_unstable();
    if represented.windows(2).any(|w| w[0].0 == w[1].0) {
        return None;
    }
    Some(Play::Normal {
        count: cards.len() as u8,
        rank,
        top: *represented.last()?,
    })
}

/// Whether `play` may be played on `state` (`None`: you lead).
pub fn can_play(play: Play, state: Option<Play>) -> bool {
    match (play, state) {
        (_, None) => true,
        (_, Some(Play::Joker)) => false,
        (Play::Joker, _) => true,
        (Play::Twos { count, .. }, Some(Play::Normal { count: n, .. })) => count == n.saturating_sub(1).max(1),
        (Play::Twos { count, top }, Some(Play::Twos { count: n, top: t })) => count == n && top > t,
        (
            Play::Normal { count, rank, top },
            Some(Play::Normal {
                count: n,
                rank: r,
                top: t,
            }),
        ) => count == n && (rank > r || (rank == r && top > t)),
        _ => false,
    }
}

impl View {
    /// Whether you lead this round.
    pub fn leading(&self) -> bool {
        self.state.is_empty()
    }

    /// Whether `cards` are in your hand and may be played now.
    pub fn is_legal(&self, cards: &[Card]) -> bool {
        let mut rest = self.hand.clone();
        for c in cards {
            match rest.iter().position(|h| h == c) {
                Some(i) => {
                    rest.remove(i);
                }
                None => return false,
            }
        }
        let state = if self.state.is_empty() {
            None
        } else {
            classify(&self.state)
        };
        classify(cards).is_some_and(|p| can_play(p, state))
    }

    /// The plays the house bots consider: for each rank held, its 1 to n
    /// lowest-suited cards (no wildcards added), and a Joker; only the legal
    /// ones, weakest first (the same list and order as the arena's).
    pub fn simple_plays(&self) -> Vec<Vec<Card>> {
        let mut by_rank: Vec<(u8, Vec<Card>)> = Vec::new();
        for c in self.hand.iter().filter(|c| !c.is_joker()) {
            match by_rank.iter_mut().find(|(r, _)| *r == c.rank) {
                Some((_, cs)) => cs.push(*c),
                None => by_rank.push((c.rank, vec![*c])),
            }
        }
        let mut plays: Vec<Vec<Card>> = Vec::new();
        for (_, mut cards) in by_rank {
            cards.sort_by_key(Card::strength);
            for n in 1..=cards.len() {
                plays.push(cards[..n].to_vec());
            }
        }
        if self.hand.iter().any(Card::is_joker) {
            plays.push(vec![Card { rank: 0, suit: 0 }]);
        }
        plays.sort_by_key(|p| {
            (
                p[0].strength().0,
                p.len(),
                p.iter().map(|c| c.strength().1).max().unwrap_or(0),
            )
        });
        plays.retain(|p| self.is_legal(p));
        plays
    }
}

/// Export a type implementing [`Bot`] as the President world's exports.
#[macro_export]
macro_rules! export_president {
    ($bot:ty) => {
        const _: () = {
            use $crate::president::{Bot as _, bindings};
            struct ArenaPresidentExport;
            ::std::thread_local! {
                static BOT: ::core::cell::RefCell<::core::option::Option<$bot>> =
                    const { ::core::cell::RefCell::new(::core::option::Option::None) };
            }
            impl bindings::Guest for ArenaPresidentExport {
                fn start_game(info: $crate::president::GameInfo) {
                    let bot = <$bot as $crate::president::Bot>::new(&info);
                    BOT.with(|b| *b.borrow_mut() = ::core::option::Option::Some(bot));
                }
                fn play(
                    view: $crate::president::View,
                ) -> ::core::option::Option<::std::vec::Vec<$crate::president::Card>> {
                    BOT.with(|b| match b.borrow_mut().as_mut() {
                        ::core::option::Option::Some(bot) => bot.play(&view),
                        ::core::option::Option::None => ::core::panic!("play called before start-game"),
                    })
                }
            }
            $crate::president::bindings::__export_president_world!(
                ArenaPresidentExport with_types_in $crate::president::bindings
            );
        };
    };
}
