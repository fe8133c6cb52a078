//! The Pollux policy (`scheduler: pollux`, docs/pollux-semantics.md §4-§5) run as a user runs it:
//! on the first jobs of the artifact's workload-6, against its two baselines, across thread
//! counts and seeds. Data comes through `blox data` (the mirror when set).

use crate::common;

use blox::results::{self, RunRow};
use blox::runner::{self, RunnerOptions, SweepControl};
use blox::spec::{Spec, SpecSource};
use common::dataset_file;
use std::collections::BTreeMap;
use std::path::Path;

/// The first `jobs` rows of workload-6 (1.0x) as a Pollux CSV in `dir`.
fn head_of_workload_6(dir: &Path, name: &str, jobs: usize) {
    let text = std::fs::read_to_string(dataset_file("pollux-workloads/pollux_workloads/workload-6.csv")).unwrap();
    let head: Vec<&str> = text.lines().take(jobs + 1).collect();
    std::fs::write(dir.join(name), head.join("\n") + "\n").unwrap();
}

fn spec(policies: &str, workloads: &str, seeds: &str) -> String {
    format!(
        "name: p\nengine: {{mode: rounds, round_s: 60}}\npolicies:\n{policies}clusters: [{{nodes: 16, gpus_per_node: 4}}]\n\
         workloads:\n{workloads}seeds: {seeds}\nmeasure: {{track: all}}\n"
    )
}

/// Runs the spec in `dir` on `threads` workers; its rows and the experiment directory.
fn run(dir: &Path, yaml: &str, out: &str, threads: usize) -> (Vec<RunRow>, std::path::PathBuf) {
    let path = dir.join("s.yaml");
    std::fs::write(&path, yaml).unwrap();
    let source = SpecSource::read(&path).unwrap();
    let spec = Spec::parse(&source).unwrap();
    let options = RunnerOptions { out: dir.join(out), threads: Some(threads), force: false, quiet: true };
    let report = runner::run_with(&source, &spec, &options, &SweepControl::default()).unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    (report.rows, report.experiment_dir)
}

/// The paper's claim on a small case: on workload-6's first 30 jobs Pollux's average JCT is
/// below Optimus+Oracle's and Tiresias'. The first job (cifar10-0, alone at first) starts on one
/// GPU and is grown once its agent has a model: a resize, not a preemption.
#[test]
fn pollux_beats_both_baselines_and_resizes_without_preempting() {
    let dir = tempfile::tempdir().unwrap();
    head_of_workload_6(dir.path(), "w.csv", 30);
    let policies = "  - {label: Pollux, scheduler: pollux}\n  - {label: Optimus, scheduler: pollux-optimus-oracle}\n  \
                    - {label: Tiresias, scheduler: pollux-tiresias}\n";
    let (rows, experiment) = run(dir.path(), &spec(policies, "  - trace: {path: w.csv}\n", "[0]"), "out", 2);
    let avg: BTreeMap<&str, f64> = rows.iter().map(|r| (r.info.label.as_str(), r.summary.avg_jct)).collect();
    assert!(avg["Pollux"] < avg["Optimus"] && avg["Pollux"] < avg["Tiresias"], "{avg:?}");
    let pollux = rows.iter().find(|r| r.info.label == "Pollux").unwrap();
    let jobs = results::read_jobs(&experiment, &pollux.info.run_key).unwrap();
    let first = &jobs[0];
    assert!(first.resizes >= 1 && first.preemptions == 0, "{first:?}");
    assert!(pollux.summary.resizes > 0);
}

/// Same spec and seed give the same tables whatever the thread count; another seed is another
/// search.
#[test]
fn pollux_is_a_function_of_the_seed_whatever_the_threads() {
    let dir = tempfile::tempdir().unwrap();
    head_of_workload_6(dir.path(), "a.csv", 12);
    head_of_workload_6(dir.path(), "b.csv", 20);
    let yaml = spec(
        "  - {label: Pollux, scheduler: pollux}\n",
        "  - trace: {path: a.csv}\n  - trace: {path: b.csv}\n",
        "[0, 1]",
    );
    let finishes = |out: &str, threads: usize| {
        let (rows, experiment) = run(dir.path(), &yaml, out, threads);
        assert_eq!(rows.len(), 4);
        rows.iter()
            .map(|r| {
                let jobs = results::read_jobs(&experiment, &r.info.run_key).unwrap();
                let finishes: Vec<Option<f64>> = jobs.iter().map(|j| j.finish).collect();
                ((r.info.workload.clone(), r.info.seed), finishes)
            })
            .collect::<BTreeMap<_, _>>()
    };
    let one = finishes("one", 1);
    assert_eq!(one, finishes("two", 2));
    let seeds_differ = one.iter().any(|((w, s), f)| *s == 0 && one[&(w.clone(), 1)] != *f);
    assert!(seeds_differ, "two seeds searched identically on both workloads");
}

/// Finish times per (label, workload, seed) of a spec run in `dir`.
fn finish_times(dir: &Path, yaml: &str, out: &str) -> BTreeMap<String, Vec<Option<f64>>> {
    let (rows, experiment) = run(dir, yaml, out, 2);
    rows.iter()
        .map(|r| {
            let jobs = results::read_jobs(&experiment, &r.info.run_key).unwrap();
            (r.info.label.clone(), jobs.iter().map(|j| j.finish).collect())
        })
        .collect()
}

/// An interval of several engine rounds (Figure 8b's specs: 30 s rounds, Pollux every 2 min)
/// runs as that interval does on rounds of its own length: every job finishes at the same second,
/// under Pollux's search and under a deterministic baseline.
#[test]
fn an_interval_over_several_rounds_runs_as_rounds_of_that_interval() {
    let dir = tempfile::tempdir().unwrap();
    head_of_workload_6(dir.path(), "w.csv", 20);
    let yaml = |round: u32, options: &str| {
        format!(
            "name: p\nengine: {{mode: rounds, round_s: {round}}}\npolicies:\n  \
             - {{label: Pollux, scheduler: {{pollux: {{{options}}}}}}}\n  \
             - {{label: Tiresias, scheduler: {{pollux-tiresias: {{{options}}}}}}}\n\
             clusters: [{{nodes: 16, gpus_per_node: 4}}]\nworkloads:\n  - trace: {{path: w.csv}}\nseeds: [0]\n\
             measure: {{track: all}}\n"
        )
    };
    let whole = finish_times(dir.path(), &yaml(120, ""), "whole");
    let shared = finish_times(dir.path(), &yaml(30, "interval_s: 120"), "shared");
    assert_eq!(whole, shared);
    let every_round = finish_times(dir.path(), &yaml(30, ""), "every");
    assert_ne!(whole["Tiresias"], every_round["Tiresias"], "deciding every 30 s is another run");
}

/// An interval that does not fall on the engine's rounds is refused, in the spec's words.
#[test]
fn an_interval_off_the_rounds_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    head_of_workload_6(dir.path(), "w.csv", 3);
    let path = dir.path().join("s.yaml");
    let yaml = spec("  - {label: P, scheduler: {pollux: {interval_s: 90}}}\n", "  - trace: {path: w.csv}\n", "[0]");
    std::fs::write(&path, yaml).unwrap();
    let source = SpecSource::read(&path).unwrap();
    let parsed = Spec::parse(&source).unwrap();
    let options = RunnerOptions { out: dir.path().join("out"), threads: Some(1), force: false, quiet: true };
    let failures = match runner::run_with(&source, &parsed, &options, &SweepControl::default()) {
        Ok(report) => format!("{:?}", report.failures),
        Err(e) => e.to_string(),
    };
    assert!(failures.contains("interval_s (90) must be a whole multiple of engine.round_s (60)"), "{failures}");
    let fractional = "  - {label: P, scheduler: {pollux: {interval_s: 90.5}}}\n";
    std::fs::write(&path, spec(fractional, "  - trace: {path: w.csv}\n", "[0]")).unwrap();
    let refused = Spec::parse(&SpecSource::read(&path).unwrap()).map(drop).unwrap_err().to_string();
    assert!(refused.contains("`interval_s` is a whole number of seconds"), "{refused}");
}
