//! Fuel accounting for one bot in one game: an allowance per call, a bank
//! that pays for overdrafts, a start allowance, and what every call used.
//!
//! Everything here is counted in fuel, never in time, so a result does not
//! depend on the machine's load: the same bot on the same seed uses the same
//! fuel, call by call, everywhere.

use crate::Limits;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Fuel for each call from the bot into the host (an import such as `log`
/// or a WASI function, or a runtime call such as `memory.grow`): entering
/// and leaving the host, looking up handles and copying arguments costs
/// some tens of nanoseconds, about what 100 wasm instructions cost.
pub const HOST_CALL_FUEL: u64 = 100;
/// Fuel per byte a bot passes to `log` or writes to stdout or stderr: the
/// host copies (and for `log`, checks as UTF-8) each byte at least once.
pub const LOG_BYTE_FUEL: u64 = 1;
/// Fuel per byte of randomness the host generates: ChaCha output costs
/// about two wasm instructions a byte. wasmtime-wasi draws a `u32` for
/// each byte of `get-random-bytes`, so a byte returned costs 8.
pub const RANDOM_BYTE_FUEL: u64 = 2;
/// Fuel per table element the host adds when a table grows.
pub const TABLE_ELEMENT_FUEL: u64 = 1;

/// The fuel cost of each wasm operator: wasmtime's defaults (one per
/// instruction, one per byte or element copied or filled), except that
/// `table.grow` is not charged per element *requested*: a refused
/// `table.grow(2^30)` would cost a billion fuel for no work. The limiter
/// charges the elements actually added instead ([`TABLE_ELEMENT_FUEL`]).
pub(crate) fn operator_cost() -> wasmtime::OperatorCost {
    let mut cost = wasmtime::OperatorCost::new();
    cost.variable.table_grow_per_element = 0;
    cost
}

/// Fuel a bot owes for work the host did for it (bytes logged, random bytes
/// made, table slots added), paid out of the store's fuel when the host
/// call returns. Shared by the parts of the host that do the work.
#[derive(Debug, Clone, Default)]
pub struct HostWork(Arc<AtomicU64>);

impl HostWork {
    /// Add `fuel` to what the bot owes.
    pub fn owe(&self, fuel: u64) {
        // Saturate rather than wrap: a huge debt must stay huge.
        let _ = self
            .0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |d| Some(d.saturating_add(fuel)));
    }

    /// What is owed, which is now taken to be paid.
    pub fn take(&self) -> u64 {
        self.0.swap(0, Ordering::Relaxed)
    }
}

/// How the calls of a world's bots are budgeted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// Instantiation and every call get `Limits::fuel + Limits::bank`
    /// afresh (the most a move of a banked world could use); nothing is
    /// carried over (worlds 0.1). With no bank this is `--fuel` per call,
    /// as before worlds had banks.
    PerCall,
    /// Each move gets `Limits::fuel`; instantiation and the calls before the
    /// first move share `Limits::start_fuel`; a call that uses more than its
    /// allowance draws the rest from `Limits::bank`, which lasts the whole
    /// game. Unused allowance is not banked (worlds 0.2).
    Banked,
}

/// What a call into a bot is, for its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Call {
    /// Instantiation or a call before the first move (`start-game`, a placement).
    Start,
    /// A move, or any call after the first move.
    Move,
    /// A call between moves that is not a move (En Garde's start of a
    /// round): budgeted like a move, but not counted as one in fuel
    /// statistics. Replays (format 2) record it as `move`, as they always did.
    #[serde(rename = "move")]
    Round,
}

/// The fuel one bot used in one game.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Usage {
    /// Fuel instantiation used.
    pub instantiation: u64,
    /// Every call in order.
    pub calls: Vec<CallRecord>,
    /// Fuel drawn from the bank.
    pub bank_used: u64,
}

impl Usage {
    /// All fuel used, instantiation included.
    pub fn total(&self) -> u64 {
        self.instantiation + self.calls.iter().map(|c| c.fuel).sum::<u64>()
    }

    /// The fuel of each move, in order.
    pub fn moves(&self) -> impl Iterator<Item = u64> + '_ {
        self.calls.iter().filter(|c| c.call == Call::Move).map(|c| c.fuel)
    }
}

/// One call into a bot, as its game's record keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CallRecord {
    /// Its kind.
    pub call: Call,
    /// The fuel it used.
    pub fuel: u64,
    /// The caller's mark when it was made ([`crate::Instance::set_mark`]),
    /// so a record of the game can say where in it the call happened.
    pub mark: u64,
    /// Lines in the bot's log when it returned: the call logged the lines
    /// after the previous call's count.
    pub log_lines: usize,
}

/// The fuel state of one bot's game.
#[derive(Debug, Clone)]
pub(crate) struct Meter {
    budget: Budget,
    per_move: u64,
    per_call: u64,
    start_left: u64,
    bank: u64,
    pub(crate) usage: Usage,
}

/// What a call may use: its own allowance, and the bank behind it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Grant {
    pub(crate) allowance: u64,
    pub(crate) bank: u64,
}

impl Grant {
    /// The fuel to arm the store with.
    pub(crate) fn fuel(self) -> u64 {
        self.allowance.saturating_add(self.bank)
    }
}

impl Meter {
    pub(crate) fn new(budget: Budget, limits: &Limits) -> Meter {
        Meter {
            budget,
            per_move: limits.fuel,
            per_call: limits.fuel.saturating_add(limits.bank),
            start_left: limits.start_fuel,
            bank: limits.bank,
            usage: Usage::default(),
        }
    }

    /// What the next call of kind `call` may use.
    pub(crate) fn grant(&self, call: Call) -> Grant {
        match (self.budget, call) {
            (Budget::PerCall, _) => Grant {
                allowance: self.per_call,
                bank: 0,
            },
            (Budget::Banked, Call::Start) => Grant {
                allowance: self.start_left,
                bank: self.bank,
            },
            (Budget::Banked, Call::Move | Call::Round) => Grant {
                allowance: self.per_move,
                bank: self.bank,
            },
        }
    }

    /// Charge a call of kind `call` (`None`: instantiation) that used `used` of `grant`.
    pub(crate) fn charge(&mut self, call: Option<Call>, grant: Grant, used: u64) {
        let over = used.saturating_sub(grant.allowance).min(self.bank);
        self.bank -= over;
        self.usage.bank_used += over;
        if self.budget == Budget::Banked && call.is_none_or(|c| c == Call::Start) {
            self.start_left = self.start_left.saturating_sub(used);
        }
        match call {
            None => self.usage.instantiation += used,
            Some(call) => self.usage.calls.push(CallRecord {
                call,
                fuel: used,
                mark: 0,
                log_lines: 0,
            }),
        }
    }

    /// Charge a call as [`Meter::charge`] does, and keep where it happened
    /// (the caller's mark) and the log's length when it returned.
    pub(crate) fn charge_call(&mut self, call: Call, grant: Grant, used: u64, mark: u64, log_lines: usize) {
        self.charge(Some(call), grant, used);
        if let Some(last) = self.usage.calls.last_mut() {
            last.mark = mark;
            last.log_lines = log_lines;
        }
    }

    /// Why a call that ran out of fuel forfeits, with the numbers a student needs.
    pub(crate) fn exhausted(&self, call: Option<Call>, grant: Grant) -> String {
        let what = match call {
            None => "instantiating the bot",
            Some(Call::Start) => "a start-up call",
            Some(Call::Move) => "one move",
            Some(Call::Round) => "the start of a round",
        };
        match self.budget {
            Budget::PerCall => format!(
                "ran out of fuel: {what} used all of the {} allowed per call",
                grant.allowance
            ),
            Budget::Banked => format!(
                "ran out of fuel: {what} used {}, over its allowance of {} (per-move budget {}) and the {} left in the bank",
                grant.fuel(),
                grant.allowance,
                self.per_move,
                grant.bank
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(fuel: u64, bank: u64, start_fuel: u64) -> Limits {
        Limits {
            fuel,
            bank,
            start_fuel,
            ..Limits::default()
        }
    }

    #[test]
    fn a_move_over_its_budget_draws_the_rest_from_the_bank_and_unused_fuel_is_not_banked() {
        let mut m = Meter::new(Budget::Banked, &limits(100, 250, 1000));
        let g = m.grant(Call::Move);
        assert_eq!((g.allowance, g.bank), (100, 250));
        m.charge(Some(Call::Move), g, 150);
        assert_eq!(m.grant(Call::Move).bank, 200);
        let g = m.grant(Call::Move);
        m.charge(Some(Call::Move), g, 10);
        assert_eq!(m.grant(Call::Move).bank, 200, "90 unused fuel is not banked");
        assert_eq!(m.usage.bank_used, 50);
    }

    #[test]
    fn start_up_calls_share_one_start_allowance() {
        let mut m = Meter::new(Budget::Banked, &limits(100, 50, 1000));
        let g = m.grant(Call::Start);
        m.charge(None, g, 700);
        let g = m.grant(Call::Start);
        assert_eq!((g.allowance, g.bank), (300, 50));
        m.charge(Some(Call::Start), g, 320);
        assert_eq!(m.grant(Call::Start), Grant { allowance: 0, bank: 30 });
        assert_eq!(m.usage.total(), 1020);
    }

    #[test]
    fn per_call_budgets_give_every_call_the_move_budget_and_the_bank_afresh() {
        let mut m = Meter::new(Budget::PerCall, &limits(100, 5000, 1000));
        let g = m.grant(Call::Start);
        assert_eq!((g.allowance, g.bank), (5100, 0));
        m.charge(Some(Call::Start), g, 5100);
        assert_eq!(m.grant(Call::Move).fuel(), 5100);
        assert_eq!(m.usage.bank_used, 0);
    }
}
