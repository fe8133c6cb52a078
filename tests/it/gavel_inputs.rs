//! Bad input to Gavel's policies: each is a clear error naming the job or the GPU type, never a
//! panic or a run that cannot end. The throughput oracle comes through the data layer.

use crate::common;

use blox::core::engine::{Engine, Policies, RunConfig, RunError, Tracking};
use blox::core::{ClusterSpec, GpuType, JobSpec, NodeGroup, NodeSpec};
use blox::policies::rounds::admission::accept_all::AcceptAll;
use blox::policies::rounds::gavel::allox::Allox;
use blox::policies::rounds::gavel::gandiva::Gandiva;
use blox::policies::rounds::gavel::max_min_fairness::MaxMinFairness;
use blox::policies::rounds::gavel::mechanism::{Allocator, Mechanism};
use blox::policies::rounds::gavel::min_total_duration::MinTotalDuration;
use blox::profiles::gavel::GavelThroughputs;
use blox::workload::gavel_generator::ThroughputFile;
use common::dataset_file;
use std::sync::Arc;

fn oracle() -> Arc<GavelThroughputs> {
    let path = dataset_file(ThroughputFile::Simulation.dataset_reference());
    Arc::new(GavelThroughputs::parse(&std::fs::read_to_string(&path).unwrap(), "simulation_throughputs.json").unwrap())
}

fn cluster(types: &[(&str, u32)]) -> ClusterSpec {
    let groups: Vec<NodeGroup> = types
        .iter()
        .map(|&(gpu, count)| NodeGroup {
            count,
            node: NodeSpec { gpus: 1, gpu_type: GpuType::new(gpu), cpus: None, memory_gb: None },
        })
        .collect();
    ClusterSpec::from_groups(&groups)
}

fn job(id: u64, model: Option<&str>, gpus: u32, steps: Option<f64>) -> JobSpec {
    JobSpec { id, gpus, work: 3600.0, model: model.map(String::from), iterations: steps, ..JobSpec::default() }
}

/// Runs `jobs` under Gavel's LAS (or its makespan policy) and returns the run's error.
fn error_of(cluster: ClusterSpec, jobs: Vec<JobSpec>, makespan: bool) -> String {
    let allocator: Box<dyn Allocator> = if makespan {
        Box::new(MinTotalDuration { aware: true, packing: false })
    } else {
        Box::new(MaxMinFairness { aware: true, packing: false })
    };
    error_with(cluster, jobs, allocator, oracle())
}

/// Runs `jobs` under `allocator` with throughput oracle `oracle` and returns the run's error.
fn error_with(
    cluster: ClusterSpec,
    jobs: Vec<JobSpec>,
    allocator: Box<dyn Allocator>,
    oracle: Arc<GavelThroughputs>,
) -> String {
    let config = RunConfig {
        cluster,
        round_seconds: 360.0,
        tracking: Tracking::All,
        horizon: None,
        starvation_guard: None,
        record_timeline: false,
    };
    let decision = Box::new(Mechanism::new(allocator, oracle, &config.cluster, 360.0, 0));
    let policies = Policies { admission: Box::new(AcceptAll), decision, overhead: None };
    match Engine::new(config, policies, jobs.into_iter()).unwrap().run() {
        Err(e @ RunError::Policy { .. }) => e.to_string(),
        other => panic!("expected a policy error, got {:?}", other.map(|o| o.summary)),
    }
}

/// AlloX is defined for single-GPU jobs (the original asserts it): a multi-GPU job stops the
/// run with its id.
#[test]
fn allox_names_the_first_multi_gpu_job() {
    let jobs = vec![
        job(0, Some("ResNet-18 (batch size 64)"), 1, Some(10.0)),
        job(1, Some("ResNet-18 (batch size 64)"), 2, Some(10.0)),
    ];
    let error = error_with(cluster(&[("v100", 4)]), jobs, Box::new(Allox::new(1.0)), oracle());
    assert!(error.contains("job 1") && error.contains("single-GPU"), "{error}");
}

/// A packing policy needs the oracle's throughputs of every pair it may form: a table without
/// them is an error naming both jobs and the type, not a silent zero.
#[test]
fn a_pair_missing_from_the_oracle_is_named() {
    let table = r#"{"v100": {"('A', 1)": {"null": 2.0}, "('B', 1)": {"null": 3.0}}}"#;
    let oracle = Arc::new(GavelThroughputs::parse(table, "two-jobs.json").unwrap());
    let jobs = vec![job(0, Some("A"), 1, Some(10.0)), job(1, Some("B"), 1, Some(10.0))];
    let error = error_with(cluster(&[("v100", 1)]), jobs, Box::new(Gandiva::new(0)), oracle);
    assert!(error.contains("jobs 0 and 1") && error.contains("pair") && error.contains("`v100`"), "{error}");
}

#[test]
fn jobs_the_oracle_cannot_run_are_named() {
    let mixed = || cluster(&[("v100", 2), ("k80", 2)]);
    let unknown = error_of(mixed(), vec![job(0, Some("GPT-5 (batch size 1)"), 1, Some(10.0))], false);
    assert!(
        unknown.contains("job 0") && unknown.contains("GPT-5 (batch size 1)") && unknown.contains("`k80`"),
        "{unknown}"
    );

    let no_type = error_of(mixed(), vec![job(3, None, 1, Some(10.0))], false);
    assert!(no_type.contains("job 3") && no_type.contains("model"), "{no_type}");

    let no_steps = error_of(mixed(), vec![job(4, Some("ResNet-18 (batch size 64)"), 1, None)], false);
    assert!(no_steps.contains("job 4") && no_steps.contains("iterations"), "{no_steps}");
}

#[test]
fn a_cluster_type_the_oracle_lacks_is_named() {
    let error =
        error_of(cluster(&[("a100", 4)]), vec![job(0, Some("ResNet-18 (batch size 64)"), 1, Some(10.0))], false);
    assert!(error.contains("`a100`"), "{error}");
}

/// ResNet-50 at batch size 128 on two GPUs has no K80 throughput, and an 8-GPU job cannot run
/// where no type has 8 GPUs: both would wait forever in the original.
#[test]
fn a_job_no_type_can_hold_is_an_error_not_an_endless_run() {
    let k80s = cluster(&[("k80", 4)]);
    let error = error_of(k80s, vec![job(1, Some("ResNet-50 (batch size 128)"), 2, Some(10.0))], true);
    assert!(error.contains("job 1") && error.contains("no GPU type"), "{error}");
    let small = cluster(&[("v100", 4), ("p100", 4)]);
    let error = error_of(small, vec![job(2, Some("ResNet-18 (batch size 64)"), 8, Some(10.0))], false);
    assert!(error.contains("job 2") && error.contains("largest type has 4"), "{error}");
}

/// Gavel's policies bring their own placement (the priority mechanism over GPU types): a spec
/// that names another is an error at the placement's line, and the runs table names the
/// mechanism when none is given.
#[test]
fn a_placement_beside_a_gavel_policy_is_a_spec_error() {
    let spec = |placement: &str| blox::spec::SpecSource {
        file: "gavel.yaml".into(),
        text: format!(
            "name: g
policies:
  - label: LAS
    scheduler: gavel-max-min-fairness-perf
{placement}clusters:
  - {{nodes: 2, gpus_per_node: 1, gpu: v100}}
workloads:
  - gavel-generator: {{arrivals: static, num_jobs: 4}}
seeds: [0]
measure: {{track: all}}
"
        ),
        base_dir: ".".into(),
    };
    let error = blox::spec::Spec::parse(&spec("    placement: consolidated\n")).unwrap_err().to_string();
    assert!(error.starts_with("gavel.yaml:5:") && error.contains("places its own jobs (`gavel-priority`)"), "{error}");
    assert!(blox::spec::Spec::parse(&spec("")).is_ok());
}
