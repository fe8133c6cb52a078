//! Pins the Blox (EuroSys'24) Figure 6, 7 and 12 numbers.
//!
//! The expected values, their sources and tolerances live beside each spec in
//! `specs/paper/NAME.expected.yaml` (also read by `cargo xtask reproduce-figures`); this test runs
//! the spec and requires every value to pass.

use blox::paper::{evaluate, outcome_table, read_expected, sidecar_path};
use blox::runner::{self, RunnerOptions};
use blox::spec::{Spec, SpecSource};
use std::path::Path;

fn reproduce(name: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/paper").join(name);
    let source = SpecSource::read(&path).unwrap();
    let spec = Spec::parse(&source).unwrap();
    let out = tempfile::tempdir().unwrap();
    let options = RunnerOptions { out: out.path().to_owned(), threads: None, force: false, quiet: true };
    let report = runner::run(&source, &spec, &options).unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    // A run is simulated on one thread: its CPU time is some, and no more than its wall.
    for row in &report.rows {
        assert!(row.cpu_time_s > 0.0 && row.cpu_time_s <= row.wall_time_s + 1e-3, "{:?}", row.info);
    }
    let expected = read_expected(&sidecar_path(&path)).unwrap();
    let outcomes = evaluate(&expected, &report.rows, &report.experiment_dir);
    assert!(outcomes.len() >= 7, "the sidecar of {name} checks too little");
    let failed: Vec<_> = outcomes.iter().filter(|o| !o.pass).collect();
    assert!(
        failed.is_empty(),
        "{name}: {} of {} values differ:\n{}",
        failed.len(),
        outcomes.len(),
        outcome_table(&failed)
    );
}

#[test]
fn blox_figures_6_and_7() {
    reproduce("blox-fig6.yaml");
}

#[test]
fn blox_figure_12() {
    reproduce("blox-fig12.yaml");
}
