//! Bad input to Gavel's policies: each is a clear error naming the job or the GPU type, never a
//! panic or a run that cannot end. The throughput oracle comes through the data layer.

use crate::common;

use blox::core::engine::{Engine, Policies, RunConfig, RunError, Tracking};
use blox::core::{ClusterSpec, GpuType, JobSpec, NodeGroup, NodeSpec};
use blox::policies::rounds::admission::accept_all::AcceptAll;
use blox::policies::rounds::gavel::allox::Allox;
use blox::policies::rounds::gavel::gandiva::Gandiva;
use blox::policies::rounds::gavel::lp::Solver;
use blox::policies::rounds::gavel::max_min_fairness::MaxMinFairness;
use blox::policies::rounds::gavel::mechanism::{Allocator, Mechanism};
use blox::policies::rounds::gavel::min_total_duration::MinTotalDuration;
use blox::profiles::gavel::GavelThroughputs;
use blox::workload::gavel_generator::ThroughputFile;
use common::{blox, dataset_file, text};
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
        Box::new(MinTotalDuration { aware: true, packing: false, solver: Solver::Clarabel })
    } else {
        Box::new(MaxMinFairness { aware: true, packing: false, solver: Solver::Clarabel })
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

/// A Gavel `.trace` line (the physical-cluster layout Gavel's `parse_trace` reads): job type,
/// command, working directory, steps argument, data-dir flag, steps, scale factor, priority
/// weight, SLO, arrival.
fn trace_line(job_type: &str, steps: u32, gpus: u32, arrival: f64) -> String {
    format!(
        "{job_type}\tpython3 main.py\timage_classification/imagenet\t--num_minibatches\t1\t{steps}\t{gpus}\t1\t-1.000000\t{arrival}\n"
    )
}

/// Gavel traces could drive no `gavel-*` policy (the reader split the job type Gavel's table is
/// keyed by, and left no duration). Now a trace runs as Gavel's simulator runs it: the trace of
/// `docs/gavel-semantics.md` Appendix B.4 (three ResNet-50 jobs of 40,000 steps at 0, 100 and
/// 500 s on three V100s, `max_min_fairness_perf`) gives the original's JCTs, 9,101.7, 9,361.7
/// and 11,121.5 s; Blox's policies run the same jobs for their V100 duration.
#[test]
fn a_gavel_trace_drives_gavel_policies_as_the_original_runs_it() {
    let dir = tempfile::tempdir().unwrap();
    let trace: String =
        [0.0, 100.0, 500.0].iter().map(|&t| trace_line("ResNet-50 (batch size 64)", 40_000, 1, t)).collect();
    std::fs::write(dir.path().join("b4.trace"), trace).unwrap();
    let spec = "name: b4
engine: {round_s: 360}
policies:
  - {label: Gavel LAS, scheduler: gavel-max-min-fairness-perf}
  - {label: FIFO, scheduler: fifo}
clusters: [{nodes: 3, gpus_per_node: 1, gpu: v100}]
workloads: [{trace: {path: b4.trace}}]
measure: {track: all}
";
    std::fs::write(dir.path().join("s.yaml"), spec).unwrap();
    let out = blox(&["run", "s.yaml", "--out", "out", "-q"], dir.path());
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    let experiment = dir.path().join("out/b4");
    for run in blox::results::read_runs(&experiment).unwrap() {
        let jobs = blox::results::read_jobs(&experiment, &run.info.run_key).unwrap();
        let jct: Vec<f64> = jobs.iter().map(|j| j.finish.unwrap() - j.arrival).collect();
        if run.info.label == "Gavel LAS" {
            for (got, original) in jct.iter().zip([9101.7, 9361.7, 11121.5]) {
                assert!((got - original).abs() < 0.05, "JCTs {jct:?}, the original's 9101.7, 9361.7, 11121.5");
            }
        } else {
            // 40,000 steps at ResNet-50's 4.394775 V100 steps/s: 9,101.7 s each, three GPUs.
            assert!(jobs.iter().all(|j| (j.work - 40_000.0 / 4.394775).abs() < 0.1), "{jobs:?}");
        }
    }
    // Steps cleared by `redraw-durations` are named at validation, not at the first round.
    let redrawn = spec.replace("{path: b4.trace}", "{path: b4.trace, transforms: [{redraw-durations: blox}]}");
    std::fs::write(dir.path().join("s.yaml"), redrawn).unwrap();
    let out = blox(&["validate", "s.yaml"], dir.path());
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("policy `Gavel LAS`: job 0: Gavel's policies run jobs in steps"), "{stderr}");
}

/// `gavel-allox` on multi-GPU jobs passed validation and failed mid-run: validation names the
/// first such job, from a finite workload and from an endless one up to the tracked window.
#[test]
fn allox_refuses_multi_gpu_jobs_at_validation() {
    let dir = tempfile::tempdir().unwrap();
    let spec = "name: allox
engine: {round_s: 360}
policies: [{label: AlloX, scheduler: gavel-allox}]
clusters: [{groups: [{nodes: 8, gpus_per_node: 1, gpu: v100}, {nodes: 8, gpus_per_node: 1, gpu: k80}]}]
workloads: [{gavel-generator: {arrivals: static, num_jobs: 30, multi_gpu: true}}]
seeds: [0]
measure: {track: all}
";
    let message = "gavel-allox schedules single-GPU jobs only (AlloX is defined for them and Gavel's copy asserts it)";
    for yaml in [
        spec.to_string(),
        spec.replace("arrivals: static, num_jobs: 30", "arrivals: poisson")
            .replace("measure: {track: all}", "loads: [1]\nmeasure: {track: {ids: [10, 40]}}"),
    ] {
        std::fs::write(dir.path().join("s.yaml"), &yaml).unwrap();
        for args in [&["validate", "s.yaml"][..], &["run", "s.yaml", "--out", "out", "-q"]] {
            let out = blox(args, dir.path());
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(stderr.contains("s.yaml:5:13:") && stderr.contains("policy `AlloX`: job "), "{stderr}");
            assert!(stderr.contains(message), "{stderr}");
        }
        assert!(!dir.path().join("out/allox/runs").exists());
    }
    std::fs::write(dir.path().join("s.yaml"), spec.replace("multi_gpu: true", "multi_gpu: false")).unwrap();
    let out = blox(&["validate", "s.yaml"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
}
