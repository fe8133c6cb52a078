//! Clusters as specs write them: the flat form of every spec before node groups, `groups:` of
//! nodes with their GPU type, CPUs and memory, and the errors for clusters an engine cannot run.

use crate::common;

use blox::results;
use common::{blox, text};
use std::path::Path;

const SPEC: &str = "name: c
policies: [{label: FIFO, scheduler: fifo, placement: consolidated}]
clusters: [CLUSTER]
workloads: [{csv: {path: t.csv}}]
measure: {track: all}
";

/// 30 jobs of 1 to 8 GPUs, one every 100 s, of 1,000 s and more.
fn trace(dir: &Path) {
    let mut csv = String::from("job_id,arrival_s,gpus,duration_s\n");
    for i in 0..30u32 {
        csv += &format!("{i},{},{},{}\n", i * 100, [1, 2, 4, 8, 1, 3][i as usize % 6], 1000 + 37 * i);
    }
    std::fs::write(dir.join("t.csv"), csv).unwrap();
}

fn run(dir: &Path, cluster: &str) -> Vec<results::RunRow> {
    trace(dir);
    std::fs::write(dir.join("s.yaml"), SPEC.replace("CLUSTER", cluster)).unwrap();
    let out = blox(&["run", "s.yaml", "--out", "out", "-q"], dir);
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    results::read_runs(&dir.join("out/c")).unwrap()
}

/// A failed `validate` whose message names the spec file's line and says `message`.
fn assert_rejected(dir: &Path, cluster: &str, engine: &str, message: &str) {
    let spec = SPEC.replace("CLUSTER", cluster);
    let spec = if engine == "events" {
        spec.replace("name: c\n", "name: c\nengine: {mode: events}\n")
            .replace("{label: FIFO, scheduler: fifo, placement: consolidated}", "{label: EDF, scheduler: edf}")
            .replace("{csv: {path: t.csv}}", "{elasticflow-generator: {num_jobs: 5, lam_s: 100}}")
    } else {
        spec
    };
    trace(dir);
    std::fs::write(dir.join("bad.yaml"), spec).unwrap();
    let out = blox(&["validate", "bad.yaml"], dir);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}\n{stderr}", text(&out.stdout));
    assert!(stderr.contains("bad.yaml:"), "no position in:\n{stderr}");
    assert!(stderr.contains(message), "expected `{message}` in:\n{stderr}");
}

/// One group is the flat form by another name: the same machines, the same numbers.
#[test]
fn one_group_runs_like_the_flat_form() {
    let flat = tempfile::tempdir().unwrap();
    let grouped = tempfile::tempdir().unwrap();
    let a = run(flat.path(), "{nodes: 2, gpus_per_node: 4}");
    let b = run(grouped.path(), "{groups: [{nodes: 1, gpus_per_node: 4}, {nodes: 1, gpus_per_node: 4}]}");
    assert_eq!(a[0].info.cluster, "2x4");
    assert_eq!(b[0].info.cluster, "1x4a100+1x4a100");
    assert_eq!((b[0].info.nodes, b[0].info.total_gpus), (2, 8));
    assert_eq!(a[0].summary, b[0].summary);
    assert!(a[0].summary.tracked_finished > 0);
}

/// A mixed cluster runs on the round engine; the 8-GPU jobs fit only the V100 node, and they run.
#[test]
fn a_heterogeneous_cluster_runs_on_the_round_engine() {
    let dir = tempfile::tempdir().unwrap();
    let runs = run(
        dir.path(),
        "{label: mixed, groups: [{nodes: 1, gpus_per_node: 8, gpu: v100}, \
         {nodes: 2, gpus_per_node: 2, gpu: k80, cpus_per_node: 24, memory_gb_per_node: 500}]}",
    );
    let run = &runs[0];
    assert_eq!((run.info.cluster.as_str(), run.info.nodes, run.info.total_gpus), ("mixed", 3, 12));
    assert_eq!(run.summary.tracked_finished, run.summary.tracked_jobs, "{:?}", run.summary);
    let jobs = results::read_jobs(&dir.path().join("out/c"), &run.info.run_key).unwrap();
    assert_eq!(jobs.len(), 30);
    assert!(jobs.iter().all(|j| j.finish.is_some()), "every job, the 8-GPU ones too, finished");
}

#[test]
fn clusters_the_engines_cannot_run_are_errors_with_their_position() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert_rejected(d, "{nodes: 2, gpus_per_node: 4, groups: [{nodes: 1, gpus_per_node: 4}]}", "rounds", "not both");
    assert_rejected(d, "{groups: []}", "rounds", "`groups` is empty");
    assert_rejected(d, "{gpus_per_node: 4}", "rounds", "missing field `nodes`");
    assert_rejected(d, "{nodes: 2, gpus_per_node: 4, gpu: A100}", "rounds", "GPU type `A100` is not a name");
    assert_rejected(d, "{groups: [{nodes: 2, gpus_per_node: 4, cpus: 3}]}", "rounds", "unknown field `cpus`");
    assert_rejected(
        d,
        "{groups: [{nodes: 70000, gpus_per_node: 8}, {nodes: 70000, gpus_per_node: 8}]}",
        "rounds",
        "at most",
    );
    assert_rejected(
        d,
        "{groups: [{nodes: 1, gpus_per_node: 8}, {nodes: 1, gpus_per_node: 4}]}",
        "events",
        "need identical nodes",
    );
    assert_rejected(d, "{nodes: 2, gpus_per_node: 8, gpu: v100}", "events", "`gpu: v100` has no throughput profile");
}
