//! Pins the Gavel (OSDI'20) numbers that blox reproduces.
//!
//! The expected values, their sources and tolerances live beside each spec in
//! `specs/paper/gavel-*.expected.yaml` (also read by `cargo xtask reproduce-figures`); this test
//! runs a light part of each grid and requires every value there to pass: the makespan table's
//! 100- and 200-job workloads (every asserted value) and two rates of Figure 8's family (its
//! high rates take minutes; `cargo xtask reproduce-figures --check` runs all of them). The
//! throughput oracle comes through the data layer (`gavel-throughputs`).

use blox::paper::{evaluate, outcome_table, read_expected, sidecar_path};
use blox::runner::{self, RunnerOptions, SweepControl};
use blox::spec::{Spec, SpecSource};
use std::path::Path;

/// Runs `specs/paper/<name>` on the grid points `only` selects (`key=value` terms, as
/// `--only`), keeps the sidecar's values that `keep` accepts (by workload and load), and requires
/// `asserted` of them (shapes included) to pass.
fn reproduce(name: &str, only: &[String], keep: impl Fn(Option<&str>, Option<f64>) -> bool, asserted: usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/paper").join(name);
    let source = SpecSource::read(&path).unwrap();
    let spec = Spec::parse(&source).unwrap();
    let out = tempfile::tempdir().unwrap();
    let options = RunnerOptions { out: out.path().to_owned(), threads: None, force: false, quiet: true };
    let only = (!only.is_empty()).then(|| only.join(",").parse().unwrap());
    let control = SweepControl { only, ..SweepControl::default() };
    let report = runner::run_with(&source, &spec, &options, &control).unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    let mut expected = read_expected(&sidecar_path(&path)).unwrap();
    for check in &mut expected.checks {
        check.values.retain(|v| keep(v.workload.as_deref(), v.load));
    }
    let outcomes = evaluate(&expected, &report.rows, &report.experiment_dir);
    assert_eq!(outcomes.iter().filter(|o| !o.reference).count(), asserted, "{name}: values checked");
    let failed: Vec<_> = outcomes.iter().filter(|o| !o.pass).collect();
    assert!(
        failed.is_empty(),
        "{name}: {} of {} values differ:\n{}",
        failed.len(),
        outcomes.len(),
        outcome_table(&failed)
    );
}

/// FIFO's and Gandiva's makespans and average JCTs at 100 and 200 jobs are the original's;
/// Gavel's makespans and average JCTs its ECOS runs' (to 0.01 s), below FIFO's and Gandiva's.
#[test]
fn gavel_makespan_table() {
    let workloads = ["100 jobs", "200 jobs"];
    let only: Vec<String> = workloads.iter().map(|w| format!("workload={w}")).collect();
    reproduce("gavel-makespan.yaml", &only, |w, _| w.is_some_and(|w| workloads.contains(&w)), 15 + 8 + 2 + 9);
}

/// At 0.4 and 2.0 jobs/h: FIFO, FIFO (perf) and AlloX to the published digit, LAS and Gavel LAS
/// at 0.4, and at both rates Gavel LAS and Gavel FTF below their agnostic versions.
#[test]
fn gavel_figure_8_family_at_two_rates() {
    let loads = [0.4, 2.0];
    let only: Vec<String> = loads.iter().map(|l| format!("load={l}")).collect();
    reproduce("gavel-fig8-family.yaml", &only, |_, l| l.is_some_and(|l| loads.contains(&l)), 4 + 2 + 2 + 2 * 2);
}

/// Space sharing at 0.4 jobs/h: Gandiva and FIFO (packed) to the published digit (Gavel LAS with
/// SS runs beside them as a reference).
#[test]
fn gavel_figure_8_space_sharing_at_low_load() {
    reproduce("gavel-fig8-space-sharing.yaml", &["load=0.4".into()], |_, l| l == Some(0.4), 2);
}

/// Space sharing with multi-GPU jobs at 0.2 jobs/h: Gandiva and FIFO (packed) to the published
/// digit.
#[test]
fn gavel_figure_9_space_sharing_at_low_load() {
    reproduce("gavel-fig9-space-sharing.yaml", &["load=0.2".into()], |_, l| l == Some(0.2), 2);
}

/// Gavel with space sharing, 100 static jobs: makespans within three rounds of the original's
/// program re-run with ECOS (seeds 0-2).
#[test]
fn gavel_makespan_with_space_sharing() {
    reproduce("gavel-makespan-space-sharing.yaml", &[], |_, _| true, 3);
}
