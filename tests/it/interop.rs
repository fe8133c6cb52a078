//! The tables read unchanged in Python: `scripts/check_parquet.py` reads a fresh experiment with
//! pyarrow (and Polars / DuckDB when installed) and checks row counts, nulls and metadata.
//!
//! Needs `python3` with pyarrow. `.ci/run` installs it, and under CI (`CI` set) a missing pyarrow
//! fails the test instead of skipping it.

use crate::common;

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

/// `blox trace convert --to parquet` output reads in pyarrow, Polars and DuckDB with the same rows,
/// nulls where the format has no value, and the source in the metadata.
#[test]
fn python_readers_read_a_converted_trace() {
    let has_pyarrow = Command::new("python3").args(["-c", "import pyarrow"]).status().is_ok_and(|s| s.success());
    if !has_pyarrow {
        assert!(std::env::var_os("CI").is_none(), "CI must provide python3 with pyarrow");
        eprintln!("skipped: python3 with pyarrow is not installed");
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let parquet = out.path().join("trace1.parquet");
    let convert = Command::new(env!("CARGO_BIN_EXE_blox"))
        .args(["trace", "convert", "--to", "parquet", "-o"])
        .arg(&parquet)
        .arg(common::dataset_file("muri/simulator/trace1.csv"))
        .output()
        .unwrap();
    assert!(convert.status.success(), "{}", String::from_utf8_lossy(&convert.stderr));
    let script = r#"
import sys
import pyarrow.parquet as pq
path = sys.argv[1]
table = pq.read_table(path)
meta = pq.read_metadata(path).metadata
assert meta[b"blox.trace.format"] == b"muri", meta
assert table.num_rows == 1494, table.num_rows
assert table.column("deadline_s").null_count == 1494
assert table.column("gpu_s").null_count == 0
counts = [table.num_rows]
try:
    import polars
    counts.append(polars.read_parquet(path).height)
except ImportError:
    pass
try:
    import duckdb
    counts.append(duckdb.sql(f"select count(*) from '{path}' where gpus >= 1").fetchall()[0][0])
except ImportError:
    pass
assert len(set(counts)) == 1, counts
print("readers agree:", counts)
"#;
    let check = Command::new("python3").args(["-c", script]).arg(&parquet).output().unwrap();
    let stdout = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&check.stderr));
    assert!(stdout.contains("readers agree"), "{stdout}");
}
