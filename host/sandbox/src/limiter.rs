//! The memory cap, with a flag that tells a memory blow-up apart from other traps.

use wasmtime::ResourceLimiter;

/// Caps linear memory and tables, and remembers when a bot hit the memory cap.
///
/// A refused `memory.grow` is not a trap: wasm sees -1 and the bot's
/// allocator usually aborts. The flag lets the sandbox report "memory"
/// rather than the trap that follows.
pub struct Limiter {
    memory_cap: usize,
    exceeded: bool,
}

/// Table elements a bot may have; generous for any real program.
pub const TABLE_ELEMENTS: usize = 100_000;

impl Limiter {
    /// A limiter allowing `memory_cap` bytes per linear memory.
    pub fn new(memory_cap: usize) -> Self {
        Limiter {
            memory_cap,
            exceeded: false,
        }
    }
    /// Whether the bot tried to grow past the cap.
    pub fn exceeded(&self) -> bool {
        self.exceeded
    }
    /// The cap in bytes.
    pub fn cap(&self) -> usize {
        self.memory_cap
    }
}

impl ResourceLimiter for Limiter {
    fn memory_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        if desired > self.memory_cap {
            self.exceeded = true;
            return Ok(false);
        }
        Ok(true)
    }

    fn table_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        Ok(desired <= TABLE_ELEMENTS)
    }

    fn instances(&self) -> usize {
        // A component holds several core instances; 1 would break instantiation.
        64
    }

    fn tables(&self) -> usize {
        64
    }

    fn memories(&self) -> usize {
        16
    }
}
