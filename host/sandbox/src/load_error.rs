//! Why a bot file was rejected before any game: each reason in a student's words.

/// Why a bot file was rejected before any game.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("{path}: cannot read the bot file: {reason}")]
    Read {
        /// The file.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The file is over the size limit.
    #[error(
        "{path}: the file is {size} bytes, over the limit of {limit} bytes; strip debug info (`strip = true`, `opt-level = \"s\"` in the release profile) or raise --max-file-bytes"
    )]
    TooBig {
        /// The file.
        path: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Not WebAssembly at all.
    #[error("{path}: not a WebAssembly file (found {found}); {fix}")]
    NotWasm {
        /// The file.
        path: String,
        /// What the first bytes look like.
        found: String,
        /// What to do instead, for the world expected.
        fix: String,
    },
    /// A core module rather than a component.
    #[error(
        "{path}: a core WebAssembly module, not a component; expected a component for world {world}: build for `--target wasm32-wasip2`, or wrap the module with `wasm-tools component new`"
    )]
    CoreModule {
        /// The file.
        path: String,
        /// The expected world.
        world: &'static str,
    },
    /// The bot's memory at start is larger than the memory cap.
    #[error(
        "{path}: the bot starts with {needs} bytes of memory, more than the cap of {cap} bytes per bot; raise --memory (at most 4G), or make the bot start with less (smaller static data, a smaller initial heap)"
    )]
    MemoryTooLarge {
        /// The file.
        path: String,
        /// The bytes its memory starts with.
        needs: u64,
        /// The cap (`--memory`).
        cap: usize,
    },
    /// The component failed validation or compilation.
    #[error("{path}: not a valid WebAssembly component: {reason}")]
    Invalid {
        /// The file.
        path: String,
        /// The validator's reason.
        reason: String,
    },
    /// A component for another world.
    #[error("{path}: a component for another world; expected world {world} (exports {expected}), found {found}")]
    WrongWorld {
        /// The file.
        path: String,
        /// The expected world.
        world: &'static str,
        /// The exports expected.
        expected: String,
        /// What the component has instead.
        found: String,
    },
    /// The component uses the component model's async ABI, which the arena
    /// does not run.
    #[error(
        "{path}: uses the component model's async ABI, which the arena does not run (a bot's calls are synchronous): \
         built with componentize-qjs? add --sync; otherwise build for plain synchronous exports"
    )]
    NeedsAsync {
        /// The file.
        path: String,
    },
    /// The component targets a version of the package the arena does not know.
    #[error(
        "{path}: built for {found}, a version this arena does not know; it runs bots built for versions {supported}: rebuild the bot against one of them (the arena's wit/ folder)"
    )]
    UnknownVersion {
        /// The file.
        path: String,
        /// The package and version it imports.
        found: String,
        /// The versions this arena runs.
        supported: String,
    },
    /// The component imports two versions of the package at once.
    #[error(
        "{path}: imports versions {found} of the bots' package at once; a bot targets one version (this arena runs {supported}): rebuild it against one wit/ folder"
    )]
    MixedVersions {
        /// The file.
        path: String,
        /// The versions it imports.
        found: String,
        /// The versions this arena runs.
        supported: String,
    },
    /// Compiling the component went over a limit (time or memory).
    #[error(
        "{path}: {exceeded} to compile (the limit is {flag}); a bot this large or this deeply nested cannot be run: make it smaller or its code less deeply nested"
    )]
    CompileLimit {
        /// The file.
        path: String,
        /// What it took, e.g. "took more than 60 s".
        exceeded: String,
        /// The command-line flag that sets the limit.
        flag: &'static str,
    },
    /// The code's shape is over a limit measured before compiling
    /// ([`shape`](crate::shape)): the same verdict on every machine.
    #[error(
        "{path}: {reason}; code of this shape takes the compiler minutes on any machine: make the bot smaller or its code less deeply nested"
    )]
    TooComplex {
        /// The file.
        path: String,
        /// What is over which limit.
        reason: String,
    },
    /// The compiler process failed for a reason of its own (not the file's).
    #[error("{path}: the arena could not compile it: {reason}")]
    Compiler {
        /// The file.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// The component imports something the arena does not provide.
    #[error(
        "{path}: imports `{import}`, which the arena does not provide; bots may import only {allowed} and WASI 0.2"
    )]
    ForbiddenImport {
        /// The file.
        path: String,
        /// The import.
        import: String,
        /// What bots may import besides WASI.
        allowed: String,
    },
}
