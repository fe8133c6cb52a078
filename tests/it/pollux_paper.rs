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

/// The Pollux specs kept out of the paper check for their cost (Figures 8a, 8b, 8c, checked by
/// hand): each parses, its sidecar parses, and every value names a policy label of its spec.
#[test]
fn top_level_pollux_sidecars_name_their_specs_labels() {
    for name in ["pollux-fig8a", "pollux-fig8b", "pollux-fig8c"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("specs/{name}.yaml"));
        let spec = Spec::parse(&SpecSource::read(&path).unwrap()).unwrap();
        let labels: Vec<String> = spec.policies.value.iter().map(|p| p.label.value.0.clone()).collect();
        let expected: Expected = read_expected(&sidecar_path(&path)).unwrap();
        let values: Vec<_> = expected.checks.iter().flat_map(|c| &c.values).collect();
        assert!(values.len() >= 32, "{name}: {} values", values.len());
        for v in values {
            assert!(labels.contains(&v.label), "{name}: value for `{}`, not a label of {labels:?}", v.label);
        }
        for shape in expected.checks.iter().filter_map(|c| c.highest.as_ref().or(c.lowest.as_ref())) {
            assert!(labels.contains(shape), "{name}: shape over `{shape}`");
        }
    }
}
