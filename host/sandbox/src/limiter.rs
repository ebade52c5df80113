//! The memory cap: one cap for all of a bot's memories and tables together,
//! with a note that tells a memory blow-up apart from other failures.

use crate::budget::{HostWork, TABLE_ELEMENT_FUEL};
use wasmtime::ResourceLimiter;

/// Caps a bot's linear memories and tables together, and notes when it
/// refused a bot's growth.
///
/// A refused `memory.grow` is not a trap: wasm sees -1 and the bot's
/// allocator usually aborts. The note lets the sandbox report "memory"
/// for the failure that follows the refusal directly; a bot that handles
/// the refusal and fails later, for another reason, is judged by that reason.
pub struct Limiter {
    memory_cap: usize,
    /// Bytes of all memories and tables so far.
    used: usize,
    /// Table elements of all tables so far.
    elements: usize,
    /// A growth was refused and the sandbox has not looked yet.
    refused: bool,
    /// The system failed a growth within the cap: the machine's failure, not the bot's.
    system_failed: Option<String>,
    work: HostWork,
}

/// Table elements a bot may have, all tables together; generous for any real program.
pub const TABLE_ELEMENTS: usize = 100_000;

/// What a table element counts against the memory cap: the host keeps a
/// pointer-sized reference per element.
const TABLE_ELEMENT_BYTES: usize = 8;

impl Limiter {
    /// A limiter allowing `memory_cap` bytes for all memories and tables
    /// together, charging the table slots it grants to `work`.
    pub fn new(memory_cap: usize, work: HostWork) -> Self {
        Limiter {
            memory_cap,
            used: 0,
            elements: 0,
            refused: false,
            system_failed: None,
            work,
        }
    }

    /// What the system said when it could not give memory within the cap.
    pub fn system_failed(&self) -> Option<&str> {
        self.system_failed.as_deref()
    }

    /// Whether a growth was refused and not yet taken.
    pub fn refused(&self) -> bool {
        self.refused
    }

    /// Whether a growth was refused since the last call; clears the note.
    pub fn take_refused(&mut self) -> bool {
        std::mem::take(&mut self.refused)
    }

    /// The cap in bytes.
    pub fn cap(&self) -> usize {
        self.memory_cap
    }

    /// Bytes of all memories and tables so far.
    #[cfg(test)]
    pub fn used(&self) -> usize {
        self.used
    }

    fn grow(&mut self, bytes: usize) -> bool {
        match self.used.checked_add(bytes) {
            Some(total) if total <= self.memory_cap => {
                self.used = total;
                true
            }
            _ => {
                self.refused = true;
                false
            }
        }
    }
}

impl ResourceLimiter for Limiter {
    fn memory_growing(&mut self, current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        // A new memory arrives as a growth from 0 to its initial size, so
        // the sum covers every memory of the bot.
        Ok(self.grow(desired.saturating_sub(current)))
    }

    fn table_growing(&mut self, current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        let more = desired.saturating_sub(current);
        // Refuse before any work: `table.grow` of 2^30 elements costs nothing
        // but this check.
        let Some(elements) = self.elements.checked_add(more).filter(|&e| e <= TABLE_ELEMENTS) else {
            self.refused = true;
            return Ok(false);
        };
        if !self.grow(more.saturating_mul(TABLE_ELEMENT_BYTES)) {
            return Ok(false);
        }
        self.elements = elements;
        // The host fills the new slots: paid per element actually added.
        self.work.owe(more as u64 * TABLE_ELEMENT_FUEL);
        Ok(true)
    }

    fn memory_grow_failed(&mut self, error: wasmtime::Error) -> wasmtime::Result<()> {
        // The system could not give memory within the cap: wasm sees -1, and
        // whatever follows is the machine's failure, never the bot's memory forfeit.
        self.system_failed.get_or_insert_with(|| error.to_string());
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1 << 20;

    #[test]
    fn one_cap_covers_all_memories_together() {
        let mut l = Limiter::new(64 * MIB, HostWork::default());
        // Two memories of 40 MiB each: the second does not fit beside the first.
        assert!(l.memory_growing(0, 40 * MIB, None).unwrap());
        assert!(!l.memory_growing(0, 40 * MIB, None).unwrap());
        assert!(l.take_refused());
        assert!(!l.take_refused(), "the note is cleared once read");
        // What is left still fits, in either memory.
        assert!(l.memory_growing(0, 20 * MIB, None).unwrap());
        assert!(l.memory_growing(40 * MIB, 44 * MIB, None).unwrap());
        assert_eq!(l.used(), 64 * MIB);
        assert!(!l.memory_growing(20 * MIB, 20 * MIB + 65536, None).unwrap());
    }

    #[test]
    fn tables_count_against_the_same_cap_and_a_huge_grow_is_refused_without_charge() {
        let work = HostWork::default();
        let mut l = Limiter::new(MIB, work.clone());
        assert!(l.table_growing(0, 1000, None).unwrap());
        assert_eq!(work.take(), 1000 * TABLE_ELEMENT_FUEL);
        assert_eq!(l.used(), 1000 * TABLE_ELEMENT_BYTES);
        assert!(!l.table_growing(1000, 1000 + (1 << 30), None).unwrap());
        assert!(l.take_refused());
        assert_eq!(work.take(), 0, "a refused growth costs only the call");
        // The memory has what the table did not take.
        assert!(!l.memory_growing(0, MIB, None).unwrap());
        assert!(l.memory_growing(0, MIB - 1000 * TABLE_ELEMENT_BYTES, None).unwrap());
    }

    #[test]
    fn table_elements_are_capped_across_tables() {
        let mut l = Limiter::new(usize::MAX, HostWork::default());
        assert!(l.table_growing(0, TABLE_ELEMENTS / 2, None).unwrap());
        assert!(l.table_growing(0, TABLE_ELEMENTS / 2, None).unwrap());
        assert!(!l.table_growing(0, 1, None).unwrap());
    }
}
