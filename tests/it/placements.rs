//! The placement engine (`engine: {mode: placements}`) as a user runs it: a node list and a pod
//! list from files, a policy of FGD's family, the timeline's placement columns in Parquet; and
//! the spec errors a user meets, each at the spec's line.

use crate::common;

use blox::results;
use common::{blox, text};
use parquet::file::reader::{FileReader, SerializedFileReader};
use std::path::Path;

const NODES: &str = "sn,cpu_milli,memory_mib,gpu,model\nn0,8000,4096,2,T4\nn1,8000,4096,1,T4\n";
/// 3,000 GPU milli in all, the cluster's capacity: `tune_ratio: 1` keeps every pod.
const PODS: &str = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n\
                    a,1000,100,1,500,\nb,1000,100,1,500,\nc,2000,100,2,1000,T4\nd,500,100,0,0,\n";

fn spec(engine: &str, scheduler: &str, nodes: &str, pods: &str) -> String {
    format!(
        "name: placed\n\
         engine: {{mode: {engine}}}\n\
         policies:\n  - {{label: P, scheduler: {scheduler}}}\n\
         clusters:\n  - {{label: small, node_list: {{path: {nodes}}}}}\n\
         workloads:\n  - pod-list: {{path: {pods}, label: four, tune_ratio: 1}}\n\
         seeds: [42]\n\
         measure: {{track: all}}\n"
    )
}

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, content) in files {
        std::fs::write(dir.join(name), content).unwrap();
    }
}

/// `blox run` writes one timeline row per pod with the documented placement columns, the
/// runs row counts the node list's nodes and GPUs, and the values are the pods' (every pod fits
/// this cluster in any order best-fit places them).
#[test]
fn a_placement_spec_runs_through_the_cli_into_parquet() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("nodes.csv", NODES),
            ("pods.csv", PODS),
            ("s.yaml", &spec("placements", "best-fit", "nodes.csv", "pods.csv")),
        ],
    );
    let out = blox(&["run", "s.yaml", "--out", "out"], dir.path());
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    let experiment = dir.path().join("out/placed");
    let runs = results::read_runs(&experiment).unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!((run.info.nodes, run.info.total_gpus, run.info.scheduler.as_str()), (2, 3, "best-fit"));
    assert_eq!((run.summary.tracked_jobs, run.summary.jobs_unschedulable), (4, 0));

    let timeline_file = experiment.join("timeline").join(format!("{}.parquet", run.info.run_key));
    let reader = SerializedFileReader::new(std::fs::File::open(&timeline_file).unwrap()).unwrap();
    let schema = reader.metadata().file_metadata().schema_descr();
    let columns: Vec<&str> = schema.columns().iter().map(|c| c.name()).collect();
    for column in ["time_s", "arrived_gpu_milli", "allocated_gpu_milli", "fragmented_gpu_milli", "fragmentation_ratio"]
    {
        assert!(columns.contains(&column), "{column} missing from {columns:?}");
    }
    let rows = results::read_timeline(&experiment, &run.info.run_key).unwrap();
    assert_eq!(rows.iter().map(|r| r.time).collect::<Vec<_>>(), [1.0, 2.0, 3.0, 4.0]);
    let last = rows.last().unwrap();
    assert_eq!((last.arrived_gpu_milli, last.allocated_gpu_milli), (Some(3000), Some(3000)));
    assert_eq!((last.free_gpus, last.running, last.cpus_in_use), (0, 4, Some(4.5)));
    // Every GPU is fully held at the end: nothing idle, nothing fragmented.
    assert_eq!(last.fragmented_gpu_milli, Some(0.0));
    assert!(rows.iter().all(|r| r.cluster_efficiency.is_none() && r.queued == 0));
}

/// Asserts that `blox validate` fails with `message` (which names the spec's line).
fn rejected(dir: &Path, message: &str) {
    let out = blox(&["validate", "s.yaml"], dir);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}\n{stderr}", text(&out.stdout));
    assert!(stderr.contains(message), "expected `{message}` in:\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_node_list_without_nodes_is_an_error_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let header = "sn,cpu_milli,memory_mib,gpu,model\n";
    write(
        dir.path(),
        &[("nodes.csv", header), ("pods.csv", PODS), ("s.yaml", &spec("placements", "fgd", "nodes.csv", "pods.csv"))],
    );
    rejected(dir.path(), "s.yaml:6:");
    rejected(dir.path(), "cluster `small`: the node list nodes.csv has no nodes");
}

#[test]
fn a_pod_wider_than_every_node_is_an_error_at_the_workload() {
    let dir = tempfile::tempdir().unwrap();
    let pods = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\nwide,1000,100,4,1000\n";
    write(
        dir.path(),
        &[("nodes.csv", NODES), ("pods.csv", pods), ("s.yaml", &spec("placements", "fgd", "nodes.csv", "pods.csv"))],
    );
    rejected(
        dir.path(),
        "s.yaml:8:5: workload `four`: pod `wide` asks for 4 GPUs, more than any node of cluster `small` has (at most 2)",
    );
}

#[test]
fn placement_policies_and_inputs_need_the_placement_engine() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("nodes.csv", NODES), ("pods.csv", PODS)]);
    write(dir.path(), &[("s.yaml", &spec("rounds", "gpu-packing", "nodes.csv", "pods.csv"))]);
    rejected(
        dir.path(),
        "s.yaml:4:27: policy `P`: scheduler `gpu-packing` runs on the placements engine, but `engine.mode` is `rounds`",
    );
    // A round-engine scheduler in placements mode, and a pod list in rounds mode.
    write(dir.path(), &[("s.yaml", &spec("placements", "fifo", "nodes.csv", "pods.csv"))]);
    rejected(
        dir.path(),
        "s.yaml:4:27: policy `P`: scheduler `fifo` runs on the rounds engine, but `engine.mode` is `placements`",
    );
    let rounds_with_pods = spec("rounds", "fifo", "nodes.csv", "pods.csv")
        .replace("  - {label: small, node_list: {path: nodes.csv}}", "  - {nodes: 1, gpus_per_node: 2}");
    write(dir.path(), &[("s.yaml", &rounds_with_pods)]);
    rejected(dir.path(), "s.yaml:8:5: workload `four`: a `pod-list` workload is a placement experiment's");
}

/// The round engine's `shares` placement on Alibaba's 2023 trace (its GPU pods, 16 GPUs, FIFO):
/// pods asking for a fraction of a GPU share GPUs in milli instead of each taking a whole one, so
/// under this contention jobs wait less than with `scattered`, and no job ends sooner than its
/// traced duration allows.
#[test]
fn shared_gpus_on_a_clock_shorten_the_queue_of_a_fractional_trace() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = "name: shares\n\
                policies:\n  - {label: Whole, scheduler: fifo, placement: scattered}\n  - {label: Shared, scheduler: fifo, placement: shares}\n\
                clusters: [{nodes: 2, gpus_per_node: 8}]\n\
                workloads:\n  - trace: {dataset: alibaba-2023/openb_pod_list_default.csv, transforms: [{filter: {min_gpus: 1}}]}\n\
                measure: {track: all}\n";
    write(dir.path(), &[("s.yaml", yaml)]);
    let out = blox(&["run", "s.yaml", "--out", "out", "-q"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let experiment = dir.path().join("out/shares");
    let runs = results::read_runs(&experiment).unwrap();
    let avg = |label: &str| {
        let run = runs.iter().find(|r| r.info.label == label).unwrap();
        assert_eq!(run.summary.jobs_finished, run.summary.tracked_jobs, "{label}: every GPU pod finishes");
        for job in results::read_jobs(&experiment, &run.info.run_key).unwrap() {
            let (start, finish) = (job.first_start.unwrap(), job.finish.unwrap());
            assert!(finish - start >= job.work - 1e-9, "{label}: job {} ran faster than traced", job.id);
        }
        run.summary.avg_jct
    };
    let (whole, shared) = (avg("Whole"), avg("Shared"));
    assert!(shared < 0.95 * whole, "shared {shared} s against whole {whole} s");
}
