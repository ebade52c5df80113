//! Write bots for the arena in Rust.
//!
//! Implement one trait, export it with [`export!`], and build with
//! `cargo build --release --target wasm32-wasip2`: the `.wasm` file in
//! `target/wasm32-wasip2/release/` is your bot.
//!
//! ```no_run
//! use arena_bot_sdk::en_garde::{Bot, GameInfo, Move, View};
//!
//! struct Lunge;
//! impl Bot for Lunge {
//!     fn new(_info: &GameInfo) -> Self { Lunge }
//!     fn choose_move(&mut self, view: &View) -> Move {
//!         let moves = view.legal_moves();
//!         *moves.iter().min_by_key(|m| view.distance_after(m)).unwrap_or(&moves[0])
//!     }
//! }
//! arena_bot_sdk::export!(en_garde, Lunge);
//! ```
//!
//! Each game gets a fresh instance of your bot, so state kept in the bot
//! struct lasts exactly one game. Randomness: seed [`Rng`] from the
//! `seed` the game gives you and your bot plays reproducibly.
//!
//! The legal moves come from the arena: each game's `View` carries the list
//! the referee computed (`View::legal_moves()` in En Garde reads it), so
//! reading them costs your bot almost nothing. The other helpers call the
//! arena's own rules, the [`arena_games`] crate, so they agree with the
//! referee by construction.
//!
//! Fuel: [`budget()`] says how much your bot may still use in this move and
//! in its bank, [`limits()`] the limits of the game.

// Lets generated code name this crate the same way from inside and outside.
extern crate self as arena_bot_sdk;

pub mod connect_fwar;
pub mod en_garde;
pub mod president;
pub mod sugar;
#[cfg(test)]
mod tests;

/// The arena's rules, which the helpers call; each game's types convert to
/// the rules' types with `From`. Convert a whole view once per move, not once
/// per question: `let rules = view.to_rules();` (Sugargame and President),
/// then call the rules' methods on it as often as you like.
pub use arena_games;

/// A fast, portable, seedable random generator (ChaCha8).
pub type Rng = rand_chacha::ChaCha8Rng;
pub use rand::{Rng as RngExt, SeedableRng};

/// Write one line to your bot's log, kept in the replay (capped per game).
pub fn log(message: &str) {
    host::arena::bots::host::log(message);
}

/// The fuel you have left, from [`budget`]: `call_fuel` in this call,
/// `bank_fuel` in the bank.
pub use host::arena::bots::host::BudgetLeft;
/// The limits of a game, from [`limits`]: `move_fuel`, `bank_fuel`,
/// `start_fuel` and `memory_bytes`.
pub use host::arena::bots::host::GameLimits;

/// How much fuel you have left right now. Fuel counts work: about one unit
/// per wasm instruction your bot runs.
///
/// - `call_fuel` is what is left of this call's own allowance: the per-move
///   budget during a move, the start allowance before your first move.
/// - `bank_fuel` is what is left in your bank for the whole game. A move
///   that uses more than its allowance draws the rest from the bank; running
///   the bank dry forfeits the game (reason `fuel`).
///
/// Use it to search as deep as your budget allows: deepen your search while
/// `budget().call_fuel` is above what one more iteration costs, and you never
/// touch the bank. The numbers are exact and the same on every machine, so
/// your bot still plays the same way on every run.
///
/// ```no_run
/// # fn search(_depth: u32) {}
/// let mut depth = 1;
/// loop {
///     let before = arena_bot_sdk::budget().call_fuel;
///     search(depth);
///     let cost = before.saturating_sub(arena_bot_sdk::budget().call_fuel);
///     // One level deeper costs several times more: stop unless it still fits.
///     if arena_bot_sdk::budget().call_fuel < 4 * cost {
///         break;
///     }
///     depth += 1;
/// }
/// ```
pub fn budget() -> BudgetLeft {
    host::arena::bots::host::budget()
}

/// The limits this game is played under; they stay the same for the whole
/// game: `move_fuel` (fuel per move before drawing on the bank), `bank_fuel`
/// (the bank at the start of the game), `start_fuel` (for start-up, before
/// your first move) and `memory_bytes` (the most memory your bot may use).
pub fn limits() -> GameLimits {
    host::arena::bots::host::limits()
}

/// The `arena:bots/host` interface every world imports, generated once: each
/// game's bindings use this module instead of generating their own.
#[doc(hidden)]
pub mod host {
    wit_bindgen::generate!({
        path: "../wit/0.2.0",
        inline: "package arena:bot-sdk; world host { import arena:bots/host@0.2.0; }",
        world: "arena:bot-sdk/host",
        generate_all,
        runtime_path: "arena_bot_sdk::__private::wit_bindgen::rt",
    });
}

/// The bindings of one game's world, with its export macro named `export`
/// (see [`export!`]) and the shared [`host`] interface.
macro_rules! world_bindings {
    ($world:literal $(, $option:ident: $value:tt)*) => {
        #[doc(hidden)]
        #[allow(clippy::too_many_arguments)] // generated glue for wide records
        pub mod bindings {
            wit_bindgen::generate!({
                path: "../wit/0.2.0",
                world: $world,
                pub_export_macro: true,
                export_macro_name: "export",
                runtime_path: "arena_bot_sdk::__private::wit_bindgen::rt",
                with: { "arena:bots/host@0.2.0": crate::host::arena::bots::host },
                $($option: $value,)*
            });
        }
    };
}
use world_bindings;

/// Export a bot: `export!(game, Type)`, where `game` is the module of its
/// game (`en_garde`, `connect_fwar`, `sugar` or `president`) and `Type`
/// implements that module's `Bot` trait.
///
/// ```no_run
/// # use arena_bot_sdk::connect_fwar::{Bot, GameInfo, View};
/// struct Leftmost;
/// impl Bot for Leftmost {
///     fn new(_info: &GameInfo) -> Self { Leftmost }
///     fn choose_column(&mut self, view: &View) -> i32 {
///         view.fitting_columns().first().copied().unwrap_or(0)
///     }
/// }
/// arena_bot_sdk::export!(connect_fwar, Leftmost);
/// ```
#[macro_export]
macro_rules! export {
    ($game:ident, $bot:ty $(,)?) => {
        const _: () = {
            type ArenaBot = $crate::__private::Export<$bot>;
            $crate::$game::bindings::export! { ArenaBot with_types_in $crate::$game::bindings }
        };
    };
}

/// Used by [`export!`]; not part of the API.
#[doc(hidden)]
pub mod __private {
    use std::any::Any;
    use std::cell::RefCell;
    use std::marker::PhantomData;

    pub use wit_bindgen;

    /// The world exports of bot type `B`: each game's `bindings::Guest` is
    /// implemented for it, calling `B` through that game's `Bot` trait.
    pub struct Export<B>(PhantomData<B>);

    std::thread_local! {
        /// The bot playing the current game (a component exports one bot type).
        static BOT: RefCell<Option<Box<dyn Any>>> = const { RefCell::new(None) };
    }

    impl<B: 'static> Export<B> {
        /// A game starts: `bot` plays it.
        pub fn start(bot: B) {
            BOT.with(|b| *b.borrow_mut() = Some(Box::new(bot)));
        }

        /// Run `f` on the bot of the current game; `None` before the first game starts.
        pub fn with<R>(f: impl FnOnce(&mut B) -> R) -> Option<R> {
            BOT.with(|b| b.borrow_mut().as_mut().and_then(|bot| bot.downcast_mut::<B>()).map(f))
        }
    }
}
