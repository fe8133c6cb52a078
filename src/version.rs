//! What identifies this build (embedded by `build.rs`).

/// The git commit blox was built from, `-dirty` when tracked files had changes, or `unknown`.
pub const GIT_COMMIT: &str = env!("BLOX_GIT_COMMIT");

/// Hash of the sources that decide results (`blox-sim`, `blox-io`, the spec and the runner, plus
/// `Cargo.lock`; see `build.rs`); part of every run key.
pub const SOURCE_HASH: &str = env!("BLOX_SOURCE_HASH");

/// `0.1.0 (commit abcdef123456, source 0123456789ab)`, as `--version` prints it and every table's
/// metadata records it.
pub const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("BLOX_GIT_COMMIT"),
    ", source ",
    env!("BLOX_SOURCE_HASH"),
    ")"
);
