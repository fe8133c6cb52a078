//! Pins `specs/paper/pollux-fig8a-baselines.yaml`: the values of its sidecar (the Pollux
//! artifact's per-workload average JCTs of Optimus+Oracle and Tiresias, job for job where blox
//! matches the original) over all 64 runs (a few seconds). Data comes through `blox data`.

use blox::paper::{Expected, evaluate, outcome_table, read_expected, sidecar_path};
use blox::runner::{self, RunnerOptions, SweepControl};
use blox::spec::{Spec, SpecSource};
use std::path::Path;

#[test]
fn pollux_figure_8a_baselines() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/paper/pollux-fig8a-baselines.yaml");
    let source = SpecSource::read(&path).unwrap();
    let spec = Spec::parse(&source).unwrap();
    let out = tempfile::tempdir().unwrap();
    let options = RunnerOptions { out: out.path().to_owned(), threads: None, force: false, quiet: true };
    let report = runner::run_with(&source, &spec, &options, &SweepControl::default()).unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    let expected: Expected = read_expected(&sidecar_path(&path)).unwrap();
    let outcomes = evaluate(&expected, &report.rows, &report.experiment_dir);
    assert_eq!(outcomes.iter().filter(|o| !o.reference).count(), 64);
    let failed: Vec<_> = outcomes.iter().filter(|o| !o.pass).collect();
    assert!(failed.is_empty(), "{} of 64 values differ:\n{}", failed.len(), outcome_table(&failed));
}
