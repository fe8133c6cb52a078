//! The tables read unchanged in Python: `scripts/check_parquet.py` reads a fresh experiment with
//! pyarrow (and Polars / DuckDB when installed) and checks row counts, nulls and metadata.
//!
//! Needs `python3` with pyarrow. `.ci/run` installs it, and under CI (`CI` set) a missing pyarrow
//! fails the test instead of skipping it.

use blox::runner::{self, RunnerOptions};
use blox::spec::{Spec, SpecSource};
use std::path::Path;
use std::process::Command;

#[test]
fn python_readers_read_the_tables() {
    let has_pyarrow = Command::new("python3").args(["-c", "import pyarrow"]).status().is_ok_and(|s| s.success());
    if !has_pyarrow {
        assert!(std::env::var_os("CI").is_none(), "CI must provide python3 with pyarrow");
        eprintln!("skipped: python3 with pyarrow is not installed");
        return;
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = SpecSource::read(&repo.join("specs/examples/csv-trace.yaml")).unwrap();
    let spec = Spec::parse(&source).unwrap();
    let out = tempfile::tempdir().unwrap();
    let options = RunnerOptions { out: out.path().to_owned(), threads: None, force: false, quiet: true };
    let report = runner::run(&source, &spec, &options).unwrap();
    assert!(report.failures.is_empty());
    let check = Command::new("python3")
        .arg(repo.join("scripts/check_parquet.py"))
        .arg(&report.experiment_dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&check.stderr));
    assert!(stdout.contains("runs"), "{stdout}");
}
