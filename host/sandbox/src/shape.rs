//! The shape of a component's code, measured before it is compiled: what
//! makes Cranelift slow (deeply nested blocks, whose cost grows with the
//! square of the depth; huge function bodies; many locals), bounded by
//! fixed numbers, so a file gets the same verdict on every machine. The
//! compiler's CPU-time limit (`--compile-seconds`) stays, as a backstop.

use wasmparser::{Operator, Parser, Payload};

/// What the shape limits measure in a component, over all its core modules.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shape {
    /// Function bodies.
    pub functions: u64,
    /// Bytes of code, all bodies together.
    pub code_bytes: u64,
    /// The largest body, in bytes.
    pub largest_body: u64,
    /// The deepest nesting of blocks, loops and ifs in one body.
    pub deepest_nesting: u64,
    /// The most locals one function declares.
    pub most_locals: u64,
    /// The compile work estimate: every body's bytes, plus the square of
    /// its nesting depth over [`NESTING_WORK_DIVISOR`].
    pub work: u64,
}

/// The deepest nesting of blocks in one function. The largest interpreters
/// bots are built with (CPython, QuickJS, SpiderMonkey) nest a few hundred
/// deep in their dispatch loops; a function 10,000 deep compiles in about
/// a second, 200,000 deep in 87 s.
pub const MAX_NESTING: u64 = 10_000;
/// The largest function body: about ten times the largest in any example
/// bot (427 KB, in CPython's interpreter loop).
pub const MAX_BODY_BYTES: u64 = 4 << 20;
/// The most locals in one function (also the limit of the WebAssembly
/// validator wasmtime uses).
pub const MAX_LOCALS: u64 = 50_000;
/// The most compile work in one file, in bytes of ordinary code: Cranelift
/// takes about 1.8 us of CPU a byte on the reference machine (9.2 MB of
/// code in the SpiderMonkey bot, 16.5 s), so this is about 23 s, and a
/// file under it compiles within the default 60 s of `--compile-seconds`
/// on a machine 2.6 times slower; a file over it is refused on every
/// machine alike. The largest example bot has 9.2 MB.
pub const MAX_WORK: u64 = 12 << 20;
/// Nesting costs Cranelift about as much as a byte of code per this many
/// levels squared (measured: a function 10,000 deep took 0.95 s, 20,000
/// deep 3.2 s, the time of about 530 KB and 1.8 MB of code).
pub const NESTING_WORK_DIVISOR: u64 = 180;

/// Measure the code of `bytes` (a component or a core module). `None` when
/// the file does not parse: the validator then says why, in its words.
pub fn measure(bytes: &[u8]) -> Option<Shape> {
    let mut shape = Shape::default();
    for payload in Parser::new(0).parse_all(bytes) {
        let Payload::CodeSectionEntry(body) = payload.ok()? else {
            continue;
        };
        let size = body.range().len() as u64;
        let mut locals = 0u64;
        for local in body.get_locals_reader().ok()? {
            locals = locals.saturating_add(u64::from(local.ok()?.0));
        }
        let mut depth = 0u64;
        let mut deepest = 0u64;
        let mut ops = body.get_operators_reader().ok()?;
        while !ops.eof() {
            match ops.read().ok()? {
                Operator::Block { .. }
                | Operator::Loop { .. }
                | Operator::If { .. }
                | Operator::Try { .. }
                | Operator::TryTable { .. } => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                Operator::End => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        shape.functions += 1;
        shape.code_bytes = shape.code_bytes.saturating_add(size);
        shape.largest_body = shape.largest_body.max(size);
        shape.deepest_nesting = shape.deepest_nesting.max(deepest);
        shape.most_locals = shape.most_locals.max(locals);
        let nesting_work = deepest.saturating_mul(deepest) / NESTING_WORK_DIVISOR;
        shape.work = shape.work.saturating_add(size).saturating_add(nesting_work);
    }
    Some(shape)
}

impl Shape {
    /// The first limit this shape is over, in words: what it has and the limit.
    pub fn over_limit(&self) -> Option<String> {
        if self.deepest_nesting > MAX_NESTING {
            return Some(format!(
                "a function nests blocks {} deep, over the limit of {MAX_NESTING}",
                self.deepest_nesting
            ));
        }
        if self.largest_body > MAX_BODY_BYTES {
            return Some(format!(
                "a function's code is {} bytes, over the limit of {MAX_BODY_BYTES}",
                self.largest_body
            ));
        }
        if self.most_locals > MAX_LOCALS {
            return Some(format!(
                "a function declares {} locals, over the limit of {MAX_LOCALS}",
                self.most_locals
            ));
        }
        if self.work > MAX_WORK {
            return Some(format!(
                "its code would take about {} units of compile work, over the limit of {MAX_WORK} \
                 ({} bytes of code in {} functions, nesting up to {} deep)",
                self.work, self.code_bytes, self.functions, self.deepest_nesting
            ));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(wat: &str) -> Vec<u8> {
        wat::parse_str(wat).expect("valid text")
    }

    #[test]
    fn nesting_locals_and_sizes_are_measured() {
        let bytes = module(
            "(module (func (local i32 i64 i64) (block (loop (if (i32.const 1) (then (block nop)))))) \
             (func (block)))",
        );
        let shape = measure(&bytes).expect("it parses");
        assert_eq!(shape.functions, 2);
        assert_eq!(shape.deepest_nesting, 4);
        assert_eq!(shape.most_locals, 3);
        assert!(shape.largest_body > 10 && shape.code_bytes > shape.largest_body);
        assert_eq!(shape.over_limit(), None);
    }

    #[test]
    fn too_deep_a_nesting_is_said_with_its_limit() {
        let depth = MAX_NESTING + 1;
        let wat = format!(
            "(module (func {} {}))",
            "(block ".repeat(depth as usize),
            ")".repeat(depth as usize)
        );
        let shape = measure(&module(&wat)).expect("it parses");
        assert_eq!(shape.deepest_nesting, depth);
        assert_eq!(
            shape.over_limit().as_deref(),
            Some("a function nests blocks 10001 deep, over the limit of 10000")
        );
    }

    #[test]
    fn garbage_is_left_to_the_validator() {
        assert_eq!(measure(b"\0asm\x01\0\0\0\x0a\xff\xff"), None);
    }
}
