//! Pollux's baselines as a user runs them: `pollux-tiresias` and `pollux-optimus-oracle` named in a
//! spec, the Pollux workload CSV as a trace, the profiles as a folder input (the `pollux-profiles`
//! dataset by default, or a local directory), through `blox run` and `blox validate`. The
//! published numbers are the Pollux artifact's (tests/fixtures/pollux-original/published-jcts.csv,
//! docs/pollux-semantics.md §9). Data comes through `blox data` (the mirror when set).

use crate::common;

use blox::results;
use blox::spec::grid::expand;
use blox::spec::inputs::InputDigests;
use blox::spec::{Spec, SpecSource};
use common::{blox, dataset_files, text};
use std::path::Path;

const WORKLOAD_6: &str = "pollux-workloads/pollux_workloads/workload-6.csv";

fn spec(scheduler: &str, workload: &str) -> String {
    format!(
        "name: pollux\nengine: {{mode: rounds, round_s: 60}}\npolicies:\n  - label: P\n    scheduler: {scheduler}\n\
         clusters: [{{nodes: 16, gpus_per_node: 4}}]\nworkloads:\n  - trace: {workload}\nmeasure: {{track: all}}\n"
    )
}

/// Runs `yaml` in `dir` with `blox run` and returns each run's average JCT and its first job's JCT.
fn run(dir: &Path, yaml: &str) -> (f64, f64) {
    std::fs::write(dir.join("s.yaml"), yaml).unwrap();
    let out = blox(&["run", "s.yaml", "-q"], dir);
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    let experiment = dir.join("results/pollux");
    let runs = results::read_runs(&experiment).unwrap();
    assert_eq!(runs.len(), 1);
    let jobs = results::read_jobs(&experiment, &runs[0].info.run_key).unwrap();
    assert_eq!(jobs.len(), 160);
    (runs[0].summary.avg_jct, jobs[0].jct().unwrap())
}

/// The README's fidelity check of Pollux's simulator, through the CLI: workload-6 at 1.0x gives
/// Tiresias 3469.69375 s on average, and its first job (cifar10-0) 947 s, as published.
#[test]
fn blox_run_reproduces_the_published_tiresias_jcts() {
    let dir = tempfile::tempdir().unwrap();
    let workload = format!("{{dataset: {WORKLOAD_6}}}");
    assert_eq!(run(dir.path(), &spec("pollux-tiresias", &workload)), (3469.69375, 947.0));
}

/// The folder seam: a local directory holding the same profile files runs the same jobs as the
/// dataset folder; run keys follow the directory's contents (a changed value gives new keys, a
/// hidden file does not).
#[test]
fn a_local_profile_directory_is_a_folder_input() {
    let dir = tempfile::tempdir().unwrap();
    for (path, local) in dataset_files("pollux-profiles", "traces/") {
        let dest = dir.path().join("profiles").join(path.strip_prefix("traces/").unwrap());
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(local, dest).unwrap();
    }
    let workload = format!("{{dataset: {WORKLOAD_6}}}");
    let yaml = spec("{pollux-tiresias: {profiles: {path: profiles}}}", &workload);
    assert_eq!(run(dir.path(), &yaml), (3469.69375, 947.0));

    let key = || {
        let source = SpecSource { file: dir.path().join("s.yaml"), text: yaml.clone(), base_dir: dir.path().into() };
        let spec = Spec::parse(&source).unwrap();
        expand(&spec, &InputDigests::of(&spec, dir.path()).unwrap())[0].info.run_key.clone()
    };
    let first = key();
    std::fs::write(dir.path().join("profiles/.notes"), "mine").unwrap();
    assert_eq!(key(), first, "hidden files are not profiles");
    let ncf = dir.path().join("profiles/ncf/validation-256.csv");
    let edited = std::fs::read_to_string(&ncf).unwrap().replacen("0.", "1.", 1);
    std::fs::write(&ncf, edited).unwrap();
    assert_ne!(key(), first, "a profile changed");
}

/// Asserts a failed `validate` whose message names the spec file and line.
#[track_caller]
fn assert_rejected(dir: &Path, yaml: &str, message: &str) {
    std::fs::write(dir.join("s.yaml"), yaml).unwrap();
    let out = blox(&["validate", "s.yaml"], dir);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}\n{stderr}", text(&out.stdout));
    assert!(stderr.contains(message), "expected `{message}` in:\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn validation_names_the_line_of_a_bad_workload_or_profile_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("w.csv"),
        "name,time,application,num_replicas,batch_size\ncifar10-0,10,cifar10,1,128\nresnet-1,20,resnet,2,64\n",
    )
    .unwrap();
    assert_rejected(
        dir.path(),
        &spec("pollux-optimus-oracle", "{path: w.csv}"),
        "s.yaml:8:5: workload `trace-w` at seed 1, cluster `16x4`: policy `P`: application `resnet` has no Pollux \
         profile (expected one of bert, cifar10, deepspeech2, imagenet, ncf, yolov3) (`resnet-1` in w.csv)",
    );
    assert_rejected(
        dir.path(),
        &spec("{pollux-tiresias: {profiles: {path: missing}}}", "{path: w.csv}"),
        "s.yaml:5:16: policy `P`: scheduler `pollux-tiresias`: Pollux job profiles: ",
    );
    assert_rejected(
        dir.path(),
        &spec("{pollux-tiresias: {profiles: {dataset: pollux-profiles/nothing/}}}", "{path: w.csv}"),
        "dataset `pollux-profiles/nothing/`: dataset `pollux-profiles` has no file `nothing/`",
    );
    assert_rejected(
        dir.path(),
        &spec("{pollux-tiresias: {interference: 1.5}}", "{path: w.csv}"),
        "s.yaml:5:49: scheduler `pollux-tiresias`: `interference` is a fraction of progress lost, from 0 to below 1",
    );
}
