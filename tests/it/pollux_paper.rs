//! Pins the baselines of `specs/paper/pollux-fig8a.yaml`: the values of its sidecar for
//! Optimus+Oracle and Tiresias (the Pollux artifact's per-workload average JCTs, job for job where
//! blox matches the original) over their 64 runs at one seed (a few seconds; they are
//! deterministic). Pollux's own runs, about 10 CPU-minutes, are checked by the paper check
//! (`cargo xtask reproduce-figures --check`). Data comes through `blox data`.

use blox::paper::{Expected, evaluate, outcome_table, read_expected, sidecar_path};
use blox::runner::{self, RunnerOptions, SweepControl};
use blox::spec::{Spec, SpecSource};
use std::path::Path;

#[test]
fn pollux_figure_8a_baselines() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/paper/pollux-fig8a.yaml");
    let source = SpecSource::read(&path).unwrap();
    let spec = Spec::parse(&source).unwrap();
    let out = tempfile::tempdir().unwrap();
    let options = RunnerOptions { out: out.path().to_owned(), threads: None, force: false, quiet: true };
    let baselines = ["Tiresias", "Optimus+Oracle"];
    let control = SweepControl {
        only: Some("label=Tiresias,label=Optimus+Oracle,seed=0".parse().unwrap()),
        ..SweepControl::default()
    };
    let report = runner::run_with(&source, &spec, &options, &control).unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    assert_eq!(report.rows.len(), 64);
    let mut expected: Expected = read_expected(&sidecar_path(&path)).unwrap();
    for check in &mut expected.checks {
        check.values.retain(|v| baselines.contains(&v.label.as_str()));
    }
    expected.checks.retain(|c| !c.values.is_empty());
    let outcomes = evaluate(&expected, &report.rows, &report.experiment_dir);
    assert_eq!(outcomes.iter().filter(|o| !o.reference).count(), 64);
    let failed: Vec<_> = outcomes.iter().filter(|o| !o.pass).collect();
    assert!(failed.is_empty(), "{} of 64 values differ:\n{}", failed.len(), outcome_table(&failed));
}

/// The Pollux specs (Figure 8a in the paper check; 8b and 8c kept out of it for their cost, checked
/// with `cargo xtask reproduce-figures --check --spec`): each parses, its sidecar parses, and every
/// value names a policy label of its spec.
#[test]
fn pollux_sidecars_name_their_specs_labels() {
    for name in ["paper/pollux-fig8a", "pollux-fig8b", "pollux-fig8c"] {
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
