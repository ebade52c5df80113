//! ConnectFwar bots: implement [`Bot`] and export it with [`export_connect_fwar!`](crate::export_connect_fwar).
//!
//! Each turn you get the card just drawn and name a column 0-3. A column
//! where the card does not fit (or any other number) discards it. The rules
//! are in `docs/rules/connect-fwar.md`.

#[doc(hidden)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "../wit/0.1.0",
        world: "connect-fwar",
        pub_export_macro: true,
        export_macro_name: "__export_connect_fwar_world",
        default_bindings_module: "arena_bot_sdk::connect_fwar::bindings",
        runtime_path: "arena_bot_sdk::__private::wit_bindgen::rt",
        with: { "arena:bots/host@0.1.0": crate::en_garde::bindings::arena::bots::host },
    });
}

pub use bindings::arena::bots::connect_fwar_types::{Card, GameInfo, View};

/// Columns on the board.
pub const COLUMNS: usize = 4;
/// Cards a column holds.
pub const HEIGHT: usize = 4;

/// Suit numbers, as in `Card::suit`.
pub mod suit {
    /// Spades.
    pub const SPADES: u8 = 1;
    /// Hearts.
    pub const HEARTS: u8 = 2;
    /// Clubs.
    pub const CLUBS: u8 = 3;
    /// Diamonds.
    pub const DIAMONDS: u8 = 4;
}

/// A ConnectFwar bot. One value is created per game.
pub trait Bot: 'static {
    /// A game starts; `info.seed` is yours for random choices.
    fn new(info: &GameInfo) -> Self;
    /// The column (0-3) for `view.card`. Anything else discards the card.
    fn choose_column(&mut self, view: &View) -> i32;
}

/// Whether two neighbouring cards connect: same suit, same rank, or ranks one apart.
pub fn connects(a: &Card, b: &Card) -> bool {
    a.suit == b.suit || a.rank == b.rank || a.rank.abs_diff(b.rank) == 1
}

impl View {
    /// Whether the drawn card fits in `column`: room left, and a rank at least the top card's.
    pub fn fits(&self, column: usize) -> bool {
        match self.columns.get(column) {
            Some(col) => col.len() < HEIGHT && col.last().is_none_or(|top| self.card.rank >= top.rank),
            None => false,
        }
    }

    /// The columns the drawn card fits in, left to right.
    pub fn fitting_columns(&self) -> Vec<usize> {
        (0..COLUMNS).filter(|&c| self.fits(c)).collect()
    }

    /// The card at `column`, `row` (0 = bottom), if any.
    pub fn cell(&self, column: usize, row: usize) -> Option<&Card> {
        self.columns.get(column)?.get(row)
    }
}

/// Export a type implementing [`Bot`] as the ConnectFwar world's exports.
#[macro_export]
macro_rules! export_connect_fwar {
    ($bot:ty) => {
        const _: () = {
            use $crate::connect_fwar::{Bot as _, bindings};
            struct ArenaConnectFwarExport;
            ::std::thread_local! {
                static BOT: ::core::cell::RefCell<::core::option::Option<$bot>> =
                    const { ::core::cell::RefCell::new(::core::option::Option::None) };
            }
            impl bindings::Guest for ArenaConnectFwarExport {
                fn start_game(info: $crate::connect_fwar::GameInfo) {
                    let bot = <$bot as $crate::connect_fwar::Bot>::new(&info);
                    BOT.with(|b| *b.borrow_mut() = ::core::option::Option::Some(bot));
                }
                fn choose_column(view: $crate::connect_fwar::View) -> i32 {
                    BOT.with(|b| match b.borrow_mut().as_mut() {
                        ::core::option::Option::Some(bot) => bot.choose_column(&view),
                        ::core::option::Option::None => ::core::panic!("choose-column called before start-game"),
                    })
                }
            }
            $crate::connect_fwar::bindings::__export_connect_fwar_world!(
                ArenaConnectFwarExport with_types_in $crate::connect_fwar::bindings
            );
        };
    };
}
