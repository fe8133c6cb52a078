//! The `blox` binary as the CLI tests run it.

use std::path::Path;
use std::process::{Command, Output};

/// Runs `blox args` in `cwd` (a test's temporary directory), with the dataset cache in
/// `cwd/cache` so that no test reads or fills the user's cache.
pub fn blox(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_blox"))
        .args(args)
        .current_dir(cwd)
        .env("BLOX_DATA_DIR", cwd.join("cache"))
        .output()
        .expect("blox runs")
}

/// A process's output as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
