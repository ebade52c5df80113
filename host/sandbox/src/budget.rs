//! Fuel accounting for one bot in one game: an allowance per call, a bank
//! that pays for overdrafts, a start allowance, and what every call used.
//!
//! Everything here is counted in fuel, never in time, so a result does not
//! depend on the machine's load: the same bot on the same seed uses the same
//! fuel, call by call, everywhere.

use crate::Limits;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Fuel in short units a student reads at a glance, three significant
/// digits: 950, 12.3k, 2.12M, 500M, 44.0G. Every message and table of the
/// arena writes fuel this way.
pub fn fuel_amount(f: u64) -> String {
    if f < 10_000 {
        return f.to_string();
    }
    let (v, unit) = match f {
        10_000..1_000_000 => (f as f64 / 1e3, "k"),
        1_000_000..1_000_000_000 => (f as f64 / 1e6, "M"),
        _ => (f as f64 / 1e9, "G"),
    };
    match v {
        100.0.. => format!("{v:.0}{unit}"),
        10.0.. => format!("{v:.1}{unit}"),
        _ => format!("{v:.2}{unit}"),
    }
}

/// The version of the fuel prices of this module: replays record it and
/// compiled artifacts are keyed by it, since the same bot uses different
/// fuel under other prices. 1: wasmtime's defaults (every operator 1, a
/// host call 100). 2: operators priced by their measured time (issue 33,
/// `tests/benches/calibrate.rs`).
pub const PRICES_VERSION: u32 = 2;

/// Fuel for each call from the bot into the host (an import such as `log`
/// or a WASI function, or a runtime call such as `memory.grow`): entering
/// and leaving the host, looking up handles and copying arguments took
/// 60-80 ns per call in the calibration benchmark, what about 400 units of
/// typical code take.
pub const HOST_CALL_FUEL: u64 = 400;
/// Fuel per byte a bot passes to `log` or writes to stdout or stderr: the
/// host copies (and for `log`, checks as UTF-8) each byte at least once.
pub const LOG_BYTE_FUEL: u64 = 1;
/// Fuel per byte of randomness the host generates: ChaCha output costs
/// about two wasm instructions a byte. wasmtime-wasi draws a `u32` for
/// each byte of `get-random-bytes`, so a byte returned costs 8.
pub const RANDOM_BYTE_FUEL: u64 = 2;
/// Fuel per table element the host adds when a table grows.
pub const TABLE_ELEMENT_FUEL: u64 = 1;

/// The price of operator `op` (wasmparser's name, e.g. `F64Sqrt`) where it
/// is not wasmtime's default of 1 (0 for `nop`, `drop`, blocks and the
/// like). Each price is the time the operator took in a dependent chain of
/// itself (its latency, the worst case: independent operators overlap),
/// over 0.23 ns, two and a half times a unit of typical code (0.092 ns),
/// less the fuel of the operands the chain needs; operators not measured
/// take the price of the measured one they are compiled like.
/// docs/performance.md "Fuel and time" has the measurements.
fn price(op: &str) -> Option<u8> {
    let measured = latency_price(op);
    if makes_float_or_vector(op) {
        // A float or vector value carried around a loop lives in a stack
        // slot, not a register (every call on the loop's cold paths, to
        // refuel or to check the epoch, clobbers the vector registers), so
        // each pass stores and reloads it: about 2 ns whatever the
        // operation. The cheapest loop that carries one (the operation and
        // the `br`) must pay for that.
        return Some(measured.unwrap_or(1).max(FLOAT_VALUE_FLOOR));
    }
    measured
}

/// The least price of an operation that makes a float or vector value
/// (see [`price`]): 2.5 ns of a pass over 11 units is 0.23 ns a unit.
const FLOAT_VALUE_FLOOR: u8 = 10;

/// Whether `op` computes a new float or vector value from other values:
/// not a constant, a load or a store, and not an integer result (a lane
/// extracted, a comparison of floats, a bit mask).
fn makes_float_or_vector(op: &str) -> bool {
    let vector = ["I8x16", "I16x8", "I32x4", "I64x2", "F32x4", "F64x2", "V128"]
        .iter()
        .any(|p| op.starts_with(p));
    let float = op.starts_with("F32") || op.starts_with("F64");
    if !(vector || float) || op.contains("Const") || op.contains("Load") || op.contains("Store") {
        return false;
    }
    if vector {
        return !(op.contains("ExtractLane")
            || op.contains("Bitmask")
            || op.contains("AllTrue")
            || op.contains("AnyTrue"));
    }
    !["Eq", "Ne", "Lt", "Gt", "Le", "Ge"].iter().any(|c| op.ends_with(c))
}

/// The price of `op` from its own measured time, where that is above 1.
/// Long because it is a price table, one arm per family of operators in
/// the order they are matched: split, the order that decides would be hidden.
fn latency_price(op: &str) -> Option<u8> {
    let vector =
        op.contains("x16") || op.contains("x8") || op.contains("x4") || op.contains("x2") || op.starts_with("V128");
    let float = op.starts_with('F') && !op.starts_with("F32x4Extract") && !op.starts_with("F64x2Extract");
    let has = |s: &str| op.contains(s);
    let price = match op {
        // `memory.fill` calls the C library's memset, which took about 150 ns
        // for zero bytes on the reference machine (AVX-512 masked stores);
        // 255 is the most a price can be.
        "MemoryFill" => 255,
        "MemoryCopy" | "MemoryInit" => 12,
        "TableInit" => 24,
        "TableCopy" => 4,
        "TableFill" | "TableSize" | "MemorySize" | "TableGet" | "TableSet" => 2,
        "CallIndirect" | "ReturnCallIndirect" | "CallRef" | "ReturnCallRef" => 8,
        "Call" | "ReturnCall" => 6,
        "I32x4DotI16x8S" => 3,
        // Carries a float or vector value as cheaply as an operation on it.
        "Select" | "TypedSelect" | "TypedSelectMulti" => 8,
        _ if has("Atomic") || has("Wait") || has("Notify") => 30,
        _ if op.starts_with("V128Load") && has("Splat") => 10,
        _ if op.starts_with("V128Load") => 8,
        _ if has("Load") => 4,
        _ if has("Sqrt") => 34,
        _ if float && has("Div") => 32,
        _ if has("DivS") || has("DivU") || has("RemS") || has("RemU") => 18,
        _ if float && (has("Ceil") || has("Floor") || has("Nearest") || op.ends_with("Trunc")) => 17,
        _ if vector && (has("Trunc") || has("Convert") || has("Demote") || has("Promote")) => 16,
        _ if has("Trunc") || has("Convert") || has("Demote") || has("Promote") => 9,
        _ if has("Reinterpret") => 4,
        _ if has("RelaxedDot") => 16,
        _ if has("AllTrue") => 14,
        _ if has("Bitmask") => 7,
        _ if has("Bitselect") || has("Laneselect") || has("Shuffle") => 3,
        _ if has("PMin") || has("PMax") => 2,
        _ if vector && float && (has("Min") || has("Max")) => 18,
        _ if float && (has("Min") || has("Max")) => 17,
        _ if has("Madd") || has("Nmadd") => 16,
        _ if vector && float && (has("Add") || has("Sub") || has("Mul")) => 15,
        _ if float && (has("Add") || has("Sub") || has("Mul")) => 17,
        _ if float && (has("Abs") || has("Neg") || has("Copysign")) => 12,
        _ if float
            && (op.ends_with("Eq")
                || op.ends_with("Ne")
                || op.ends_with("Lt")
                || op.ends_with("Gt")
                || op.ends_with("Le")
                || op.ends_with("Ge")) =>
        {
            4
        }
        _ if has("Q15") || has("ExtMul") => 8,
        _ if vector && (op.starts_with("I8x16Shl") || op.starts_with("I8x16Shr")) => 7,
        _ if vector && op.starts_with("I8x16") && (has("Lt") || has("Gt") || has("Le") || has("Ge")) => 6,
        _ if vector
            && (has("Lt") || has("Gt") || has("Le") || has("Ge") || op.ends_with("Eq") || op.ends_with("Ne")) =>
        {
            6
        }
        _ if has("ExtAddPairwise") => 4,
        _ if has("Mul") || has("Popcnt") || (vector && (has("Abs") || has("Extend"))) => 3,
        _ if vector
            && (has("Shl")
                || has("Shr")
                || has("Narrow")
                || has("Swizzle")
                || has("Avgr")
                || has("Sat")
                || has("Lane")
                || has("Splat")) =>
        {
            2
        }
        _ if has("Clz") || has("Ctz") => 2,
        _ if !vector
            && (op.ends_with("Eq")
                || op.ends_with("Ne")
                || has("LtS")
                || has("LtU")
                || has("GtS")
                || has("GtU")
                || has("LeS")
                || has("LeU")
                || has("GeS")
                || has("GeU")) =>
        {
            2
        }
        _ => return None,
    };
    Some(price)
}

/// The fuel cost of each wasm operator: [`price`] for operators whose time
/// is above a typical instruction's, wasmtime's default (1, or 0 for what
/// generates no code) for the rest; per byte or element of bulk operations
/// as measured, except that `table.grow` is not charged per element
/// *requested*: a refused `table.grow(2^30)` would cost a billion fuel for
/// no work. The limiter charges the elements actually added instead
/// ([`TABLE_ELEMENT_FUEL`]).
pub(crate) fn operator_cost() -> wasmtime::OperatorCost {
    let mut table = match serde_json::to_value(wasmtime::OperatorCost::new()) {
        Ok(serde_json::Value::Object(map)) => map,
        // A wasmtime whose table is not a map of prices: keep its defaults.
        _ => return wasmtime::OperatorCost::new(),
    };
    for (op, cost) in table.iter_mut() {
        if let Some(p) = price(op)
            && cost.as_u64().is_some_and(|c| c > 0)
        {
            *cost = p.into();
        }
    }
    let mut cost: wasmtime::OperatorCost =
        serde_json::from_value(serde_json::Value::Object(table)).unwrap_or_else(|_| wasmtime::OperatorCost::new());
    cost.variable.table_grow_per_element = 0;
    cost.variable.table_copy_per_element = 4;
    cost.variable.table_init_per_element = 4;
    cost.variable.table_fill_per_element = 2;
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
        // Nothing is owed after most calls: a load is cheaper than a swap.
        match self.0.load(Ordering::Relaxed) {
            0 => 0,
            _ => self.0.swap(0, Ordering::Relaxed),
        }
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
                fuel_amount(grant.allowance)
            ),
            Budget::Banked => format!(
                "ran out of fuel: {what} used {}, over its allowance of {} (per-move budget {}) and the {} left in \
                 the bank; a bot can read what is left with budget() and stop searching in time",
                fuel_amount(grant.fuel()),
                fuel_amount(grant.allowance),
                fuel_amount(self.per_move),
                fuel_amount(grant.bank)
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

#[cfg(test)]
mod price_tests {
    use super::*;

    /// The prices reach wasmtime's table by name: a renamed operator would
    /// silently keep its default.
    #[test]
    fn prices_reach_wasmtimes_table() {
        let cost = operator_cost();
        assert_eq!(cost.F64Sqrt, 34);
        assert_eq!(cost.F32x4Div, 32);
        assert_eq!(cost.I64DivU, 18);
        assert_eq!(cost.MemoryFill, 255);
        assert_eq!(cost.I32Load8U, 4);
        assert_eq!(cost.F64Trunc, 17);
        assert_eq!(cost.I32TruncF64S, 9);
        assert_eq!(cost.I32x4TruncSatF32x4U, 16);
        assert_eq!(cost.I32Add, 1);
        assert_eq!(cost.I32Eqz, 1);
        assert_eq!(cost.I32LtU, 2);
        assert_eq!(cost.Nop, 0);
        assert_eq!(cost.Block, 0);
        assert_eq!(cost.variable.table_grow_per_element, 0);
        let table = serde_json::to_value(&cost).expect("a table");
        let priced = table
            .as_object()
            .expect("a map")
            .iter()
            .filter(|(op, c)| price(op).is_some() && c.as_u64() != Some(1))
            .count();
        assert!(priced > 200, "only {priced} operators priced");
    }

    /// The backstop of a call of `fuel` covers its time at the worst rate
    /// four times over.
    #[test]
    fn fuel_reads_in_three_significant_digits() {
        let shown: Vec<String> = [
            950,
            12_345,
            2_115_100,
            500_000_000,
            700_000_000,
            2_000_000_000,
            44_000_000_000,
        ]
        .into_iter()
        .map(fuel_amount)
        .collect();
        assert_eq!(shown, ["950", "12.3k", "2.12M", "500M", "700M", "2.00G", "44.0G"]);
    }
}
