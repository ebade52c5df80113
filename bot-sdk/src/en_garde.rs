//! En Garde bots: implement [`Bot`] and export it with [`export_en_garde!`](crate::export_en_garde).
//!
//! Positions are absolute spaces 0..=22. Seat 0 starts on 0 and moves
//! forward towards 22; seat 1 starts on 22 and moves forward towards 0.
//! The rules are in `docs/rules/en-garde.md`.

#[doc(hidden)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "../wit/0.1.0",
        world: "en-garde",
        pub_export_macro: true,
        export_macro_name: "__export_en_garde_world",
        default_bindings_module: "arena_bot_sdk::en_garde::bindings",
        runtime_path: "arena_bot_sdk::__private::wit_bindgen::rt",
    });
}

pub use bindings::arena::bots::en_garde_types::{
    Direction, FencerMove as Move, GameInfo, PlayedMove, RoundInfo, RulesVariant as Variant, View,
};

/// Spaces on the strip.
pub const STRIP_LENGTH: u8 = 23;

/// An En Garde bot. One value is created per game, when the game starts.
pub trait Bot: 'static {
    /// A game starts: `info` says your seat, the variant and your random seed.
    fn new(info: &GameInfo) -> Self;
    /// A round starts (positions reset, fresh deal). Optional.
    fn start_round(&mut self, _info: &RoundInfo) {}
    /// Choose your move. Only asked when you have at least one legal move.
    fn choose_move(&mut self, view: &View) -> Move;
}

impl View {
    /// Where `mv` would land, if it stays on the strip.
    pub fn landing(&self, mv: &Move) -> Option<u8> {
        let forward: i16 = if self.seat == 0 { 1 } else { -1 };
        let sign = match mv.direction {
            Direction::Forward => forward,
            Direction::Backward => -forward,
        };
        let to = i16::from(self.my_position) + sign * i16::from(mv.card);
        (0..i16::from(STRIP_LENGTH)).contains(&to).then_some(to as u8)
    }

    /// Whether `mv` is legal: the card is in hand, it stays on the strip and does not pass the opponent.
    pub fn is_legal(&self, mv: &Move) -> bool {
        if !self.hand.contains(&mv.card) {
            return false;
        }
        match self.landing(mv) {
            Some(to) if self.seat == 0 => to <= self.opponent_position,
            Some(to) => to >= self.opponent_position,
            None => false,
        }
    }

    /// Every distinct legal move: cards ascending, forward before backward
    /// (the same order the arena's house bots use).
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut cards = self.hand.clone();
        cards.sort_unstable();
        cards.dedup();
        let mut moves = Vec::new();
        for card in cards {
            for direction in [Direction::Forward, Direction::Backward] {
                let mv = Move { card, direction };
                if self.is_legal(&mv) {
                    moves.push(mv);
                }
            }
        }
        moves
    }

    /// The distance between the fencers after `mv` (0 means a hit).
    pub fn distance_after(&self, mv: &Move) -> u8 {
        self.landing(mv)
            .map(|to| to.abs_diff(self.opponent_position))
            .unwrap_or(u8::MAX)
    }

    /// The distance between the fencers now.
    pub fn distance(&self) -> u8 {
        self.my_position.abs_diff(self.opponent_position)
    }
}

/// Export a type implementing [`Bot`] as the En Garde world's exports.
#[macro_export]
macro_rules! export_en_garde {
    ($bot:ty) => {
        const _: () = {
            use $crate::en_garde::{Bot as _, bindings};
            struct ArenaEnGardeExport;
            ::std::thread_local! {
                static BOT: ::core::cell::RefCell<::core::option::Option<$bot>> =
                    const { ::core::cell::RefCell::new(::core::option::Option::None) };
            }
            impl bindings::Guest for ArenaEnGardeExport {
                fn start_game(info: $crate::en_garde::GameInfo) {
                    let bot = <$bot as $crate::en_garde::Bot>::new(&info);
                    BOT.with(|b| *b.borrow_mut() = ::core::option::Option::Some(bot));
                }
                fn start_round(info: $crate::en_garde::RoundInfo) {
                    BOT.with(|b| {
                        if let ::core::option::Option::Some(bot) = b.borrow_mut().as_mut() {
                            bot.start_round(&info);
                        }
                    });
                }
                fn choose_move(view: $crate::en_garde::View) -> $crate::en_garde::Move {
                    BOT.with(|b| match b.borrow_mut().as_mut() {
                        ::core::option::Option::Some(bot) => bot.choose_move(&view),
                        ::core::option::Option::None => ::core::panic!("choose-move called before start-game"),
                    })
                }
            }
            $crate::en_garde::bindings::__export_en_garde_world!(ArenaEnGardeExport with_types_in $crate::en_garde::bindings);
        };
    };
}
