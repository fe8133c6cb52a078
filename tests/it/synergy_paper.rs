//! Pins the Synergy (OSDI'22) numbers that blox reproduces.
//!
//! The expected values, their sources and tolerances live beside the spec in
//! `specs/paper/synergy-ae.expected.yaml` (also read by `cargo xtask reproduce-figures`): the
//! artifact check's three published values (FIFO+tune) and the original's re-run values for
//! FIFO+fair and SRTF+tune, to the last printed digit. The workload is generated (no dataset).

use blox::paper::{evaluate, outcome_table, read_expected, sidecar_path};
use blox::runner::{self, RunnerOptions, SweepControl};
use blox::spec::{Spec, SpecSource};
use std::path::Path;

#[test]
fn synergy_artifact_check() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/paper/synergy-ae.yaml");
    let source = SpecSource::read(&path).unwrap();
    let spec = Spec::parse(&source).unwrap();
    let out = tempfile::tempdir().unwrap();
    let options = RunnerOptions { out: out.path().to_owned(), threads: None, force: false, quiet: true };
    let report = runner::run_with(&source, &spec, &options, &SweepControl::default()).unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    let expected = read_expected(&sidecar_path(&path)).unwrap();
    let outcomes = evaluate(&expected, &report.rows, &report.experiment_dir);
    assert_eq!(outcomes.iter().filter(|o| !o.reference).count(), 3 + 6 + 1, "values checked");
    let failed: Vec<_> = outcomes.iter().filter(|o| !o.pass).collect();
    assert!(failed.is_empty(), "{} of {} values differ:\n{}", failed.len(), outcomes.len(), outcome_table(&failed));
}
