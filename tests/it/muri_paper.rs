//! Pins the Muri (SIGCOMM'22) simulation numbers of Figures 9-13 that blox reproduces.
//!
//! The expected values, their sources and tolerances live beside each spec in
//! `specs/paper/muri-*.expected.yaml` (also read by `cargo xtask reproduce-figures`); this test
//! runs the specs and requires every value to pass. Traces come through the data layer (`muri`).
//! Figures 9-12 are run on their lighter traces here (trace1, trace3 and their `_pr` variants:
//! about half of their values); trace2 and trace4 take minutes, and `cargo xtask
//! reproduce-figures --check` runs every trace of every figure.

use blox::paper::{Expected, evaluate, outcome_table, read_expected, sidecar_path};
use blox::runner::{self, RunnerOptions, SweepControl};
use blox::spec::{Spec, SpecSource};
use std::path::Path;

/// Runs `specs/paper/<name>` on the workloads `only` (all when empty) and checks the sidecar's
/// values for them; at least `least` values.
fn reproduce(name: &str, only: &[&str], least: usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/paper").join(name);
    let source = SpecSource::read(&path).unwrap();
    let spec = Spec::parse(&source).unwrap();
    let out = tempfile::tempdir().unwrap();
    let options = RunnerOptions { out: out.path().to_owned(), threads: None, force: false, quiet: true };
    let selection = only.iter().map(|w| format!("workload={w}")).collect::<Vec<_>>().join(",");
    let control =
        SweepControl { only: (!only.is_empty()).then(|| selection.parse().unwrap()), ..SweepControl::default() };
    let report = runner::run_with(&source, &spec, &options, &control).unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    let mut expected: Expected = read_expected(&sidecar_path(&path)).unwrap();
    if !only.is_empty() {
        for check in &mut expected.checks {
            check.values.retain(|v| v.workload.as_deref().is_some_and(|w| only.contains(&w)));
        }
    }
    let outcomes = evaluate(&expected, &report.rows, &report.experiment_dir);
    let asserted = outcomes.iter().filter(|o| !o.reference).count();
    assert!(asserted >= least, "{name}: {asserted} values checked, expected at least {least}");
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
fn muri_figures_9_and_10() {
    reproduce("muri-fig9-10.yaml", &["trace1", "trace3", "trace1_pr", "trace3_pr"], 71);
}

#[test]
fn muri_figure_11() {
    reproduce("muri-fig11.yaml", &["trace1", "trace3"], 11);
}

#[test]
fn muri_figure_12() {
    reproduce("muri-fig12.yaml", &["trace1_pr", "trace3_pr"], 16);
}

#[test]
fn muri_figure_13() {
    reproduce("muri-fig13.yaml", &[], 14);
}
