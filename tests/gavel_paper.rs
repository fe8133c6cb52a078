//! Pins the Gavel (OSDI'20) makespan-table numbers that blox reproduces.
//!
//! The expected values, their sources and tolerances live beside the spec in
//! `specs/paper/gavel-makespan.expected.yaml` (also read by `cargo xtask reproduce-figures`); this
//! test runs the 100- and 200-job workloads, which every asserted value belongs to, and requires
//! each to pass. The throughput oracle comes through the data layer (`gavel-throughputs`).

use blox::paper::{evaluate, outcome_table, read_expected, sidecar_path};
use blox::runner::{self, RunnerOptions, SweepControl};
use blox::spec::{Spec, SpecSource};
use std::path::Path;

#[test]
fn gavel_makespan_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/paper/gavel-makespan.yaml");
    let source = SpecSource::read(&path).unwrap();
    let spec = Spec::parse(&source).unwrap();
    let out = tempfile::tempdir().unwrap();
    let options = RunnerOptions { out: out.path().to_owned(), threads: None, force: false, quiet: true };
    let only = ["100 jobs", "200 jobs"];
    let selection = only.iter().map(|w| format!("workload={w}")).collect::<Vec<_>>().join(",");
    let control = SweepControl { only: Some(selection.parse().unwrap()), ..SweepControl::default() };
    let report = runner::run_with(&source, &spec, &options, &control).unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    let mut expected = read_expected(&sidecar_path(&path)).unwrap();
    for check in &mut expected.checks {
        check.values.retain(|v| v.workload.as_deref().is_some_and(|w| only.contains(&w)));
    }
    let outcomes = evaluate(&expected, &report.rows, &report.experiment_dir);
    let asserted = outcomes.iter().filter(|o| !o.reference).count();
    assert_eq!(asserted, 15, "FIFO makespan and average JCT at 100 and 200 jobs, Gavel makespan at 100");
    let failed: Vec<_> = outcomes.iter().filter(|o| !o.pass).collect();
    assert!(failed.is_empty(), "{} of {} values differ:\n{}", failed.len(), outcomes.len(), outcome_table(&failed));
}
