//! blox's Synergy pieces against the original simulator's own output
//! (`tests/fixtures/synergy-original/`, github.com/msr-fiddle/synergy @ 1bb2bed).

use blox::core::engine::{Engine, Policies, RunConfig, Tracking};
use blox::core::{ClusterSpec, GpuType, NodeGroup, NodeSpec};
use blox::policies::rounds::admission::accept_all::AcceptAll;
use blox::policies::rounds::synergy::AllocationMode;
use blox::policies::rounds::synergy::order::Order;
use blox::policies::rounds::synergy::round::SynergyRound;
use blox::profiles::synergy::MODELS;
use blox::workload::synergy_generator::{Generator, SynergyGeneratorParams, SynergyJobs};
use std::collections::BTreeMap;

/// `(job_id, model, gpus, arrival_s, iterations)` of every job a fixture's runs generated.
fn generated(file: &str) -> Vec<(usize, String, u32, f64, u64)> {
    let path = format!("{}/tests/fixtures/synergy-original/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            (
                f[0].parse().unwrap(),
                f[1].to_string(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
            )
        })
        .collect()
}

fn check_stream(file: &str, jobs: SynergyJobs, jobs_per_hour: f64) {
    let expected = generated(file);
    let params = SynergyGeneratorParams { jobs, split: [20, 70, 10], cpus_per_gpu: 3, num_jobs: None, label: None };
    let mut generator = Generator::new(&params, 42, jobs_per_hour).unwrap();
    let mut next = 0;
    for (id, model, gpus, arrival, iterations) in &expected {
        while next < *id {
            generator.next_job();
            next += 1;
        }
        let job = generator.next_job();
        next += 1;
        let seen = (job.index, MODELS[job.class].to_string(), job.gpus, job.arrival_s, job.iterations);
        assert_eq!(seen, (*id, model.clone(), *gpus, *arrival, *iterations), "{file}: job {id}");
    }
    assert!(expected.len() > 1000, "{file}: {} jobs", expected.len());
}

#[test]
fn artifact_workload_equals_the_original_job_for_job() {
    // 9 jobs/h, Philly-derived single-GPU jobs: 7,813 jobs (every one any of the three runs saw).
    check_stream("ae.csv", SynergyJobs::PhillySingleGpu, 9.0);
}

#[test]
fn synthetic_workload_equals_the_original_job_for_job() {
    // 0.6 jobs/h, multi-GPU synthetic stream: 1,620 jobs.
    check_stream("tiny16.csv", SynergyJobs::Synthetic, 0.6);
}

/// One column of a fixture: the finish time of every job the original saw finish, by job id.
fn finishes(file: &str, column: &str) -> BTreeMap<u64, f64> {
    let path = format!("{}/tests/fixtures/synergy-original/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header.iter().position(|h| *h == column).unwrap_or_else(|| panic!("{file}: no column {column}"));
    lines
        .filter_map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            (!f[at].is_empty()).then(|| (f[0].parse().unwrap(), f[at].parse().unwrap()))
        })
        .collect()
}

/// Runs a Synergy policy on the seed-42 stream of `jobs` at `jobs_per_hour` on `servers` default
/// servers (8 GPUs, 24 CPUs, 500 GB), measuring `window`; the finish time of every measured job.
fn run_synergy(
    order: Order,
    mode: AllocationMode,
    place: bool,
    jobs: SynergyJobs,
    jobs_per_hour: f64,
    servers: u32,
    window: (u64, u64),
) -> BTreeMap<u64, f64> {
    let node = NodeSpec { gpus: 8, gpu_type: GpuType::default(), cpus: Some(24), memory_gb: Some(500.0) };
    let cluster = ClusterSpec::from_groups(&[NodeGroup { count: servers, node }]);
    let config = RunConfig {
        cluster: cluster.clone(),
        round_seconds: 300.0,
        tracking: Tracking::Ids { first: window.0, last: window.1 },
        horizon: None,
        starvation_guard: None,
        record_timeline: false,
    };
    let decision = Box::new(SynergyRound::new(order, mode, place, &cluster, 300.0));
    let policies = Policies { admission: Box::new(AcceptAll), decision, overhead: None };
    let params = SynergyGeneratorParams { jobs, split: [20, 70, 10], cpus_per_gpu: 3, num_jobs: None, label: None };
    let stream = blox::workload::synergy_generator::job_stream(&params, 42, jobs_per_hour).unwrap();
    let out = Engine::new(config, policies, stream).unwrap().run().unwrap();
    out.jobs.iter().map(|r| (r.id, r.finish.expect("every measured job finishes"))).collect()
}

fn assert_same_finishes(file: &str, column: &str, seen: &BTreeMap<u64, f64>, window: (u64, u64)) {
    let expected: BTreeMap<u64, f64> =
        finishes(file, column).into_iter().filter(|(id, _)| (window.0..=window.1).contains(id)).collect();
    assert_eq!(expected.len() as u64, window.1 - window.0 + 1, "{file} {column}: the original finished the window");
    let differing: Vec<_> = expected.iter().filter(|(id, f)| seen.get(id) != Some(f)).take(5).collect();
    assert!(differing.is_empty(), "{file} {column}: first differing jobs (id, original finish): {differing:?}");
    assert_eq!(seen.len(), expected.len());
}

/// The artifact check's workload (9 jobs/h, 128 GPUs) under FIFO+tune (the readme's run),
/// FIFO+fair (the shipped `benchmark()`) and SRTF+tune: every one of the 1,000 measured jobs
/// finishes in the same round as in the original.
#[test]
fn artifact_runs_equal_the_original_job_for_job() {
    let window = (4000, 4999);
    for (column, order, mode) in [
        ("fifo+tune", Order::Fifo, AllocationMode::Tune),
        ("fifo+fair", Order::Fifo, AllocationMode::Fair),
        ("srtf+tune", Order::Srtf, AllocationMode::Tune),
    ] {
        let seen = run_synergy(order, mode, false, SynergyJobs::PhillySingleGpu, 9.0, 16, window);
        assert_same_finishes("ae.csv", column, &seen, window);
    }
}

/// Every order in every mode the original was run in, under contention (16 GPUs, multi-GPU
/// synthetic jobs, where the orders differ and the starvation bump fires): job for job.
#[test]
fn every_order_and_mode_under_contention_equals_the_original() {
    let window = (100, 199);
    use AllocationMode::{Fair, Greedy, Tune};
    let runs = [
        ("fifo+fair", Order::Fifo, Fair, false),
        ("fifo+greedy", Order::Fifo, Greedy, false),
        ("fifo+tune", Order::Fifo, Tune, false),
        ("srtf+fair", Order::Srtf, Fair, false),
        ("srtf+tune", Order::Srtf, Tune, false),
        ("las+fair", Order::Las, Fair, false),
        ("las+tune", Order::Las, Tune, false),
        ("las+tune+place", Order::Las, Tune, true),
        ("ftf+fair", Order::Ftf, Fair, false),
        ("ftf+tune", Order::Ftf, Tune, false),
        ("drf+greedy", Order::Drf, Greedy, false),
        ("drf+tune", Order::Drf, Tune, false),
        ("tetris+greedy", Order::Tetris, Greedy, false),
        ("tetris+tune", Order::Tetris, Tune, false),
    ];
    for (column, order, mode, place) in runs {
        let seen = run_synergy(order, mode, place, SynergyJobs::Synthetic, 0.6, 2, window);
        assert_same_finishes("tiny16.csv", column, &seen, window);
    }
}

/// Synergy-OPT (FIFO+opt) on the synthetic stream at 9 jobs/h on 128 GPUs: the original solves
/// its program with GLPK_MI; blox's exact program with its tie rule finishes all 324 jobs the
/// original finished before its stop (60.67 h, when jobs 20-29 were done) in the same rounds, and
/// gives its mean JCT over jobs 20-29, 11.47038888888889 h (docs/synergy-semantics.md A.5).
#[test]
fn opt_equals_the_original_on_the_synthetic_stream() {
    let node = NodeSpec { gpus: 8, gpu_type: GpuType::default(), cpus: Some(24), memory_gb: Some(500.0) };
    let cluster = ClusterSpec::from_groups(&[NodeGroup { count: 16, node }]);
    let config = RunConfig {
        cluster: cluster.clone(),
        round_seconds: 300.0,
        tracking: Tracking::All,
        horizon: Some(218_400.0),
        starvation_guard: None,
        record_timeline: false,
    };
    let decision = Box::new(SynergyRound::new(Order::Fifo, AllocationMode::Opt, false, &cluster, 300.0));
    let policies = Policies { admission: Box::new(AcceptAll), decision, overhead: None };
    let params = SynergyGeneratorParams {
        jobs: SynergyJobs::Synthetic,
        split: [20, 70, 10],
        cpus_per_gpu: 3,
        num_jobs: None,
        label: None,
    };
    let stream = blox::workload::synergy_generator::job_stream(&params, 42, 9.0).unwrap();
    let out = Engine::new(config, policies, stream).unwrap().run().unwrap();
    let seen: BTreeMap<u64, f64> = out.jobs.iter().filter_map(|r| Some((r.id, r.finish?))).collect();
    let expected = finishes("opt-synthetic.csv", "fifo+opt");
    assert_eq!(expected.len(), 324);
    assert_eq!(seen, expected, "every job finishes in the original's round, and no other job finishes");
    let window: Vec<f64> = out.jobs.iter().filter(|r| (20..30).contains(&r.id)).filter_map(|r| r.jct()).collect();
    assert_eq!(window.iter().sum::<f64>() / window.len() as f64 / 3600.0, 11.47038888888889);
}

/// `specs/examples/synergy-workload.yaml` runs (no dataset needed): every measured job finishes;
/// at 6 jobs/h the 128 GPUs are never short, so the order does not matter; at 9 jobs/h they are
/// (the original's FIFO at the fair share grows a queue), SRTF beats FIFO, and Synergy-Tune's
/// CPUs and memory take FIFO under a third of its JCT at the proportional share.
#[test]
fn the_example_spec_runs() {
    let dir = tempfile::tempdir().unwrap();
    let spec = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/examples/synergy-workload.yaml");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_blox"))
        .args(["run", spec.to_str().unwrap(), "--out", "out", "-q"])
        .current_dir(dir.path())
        .env("BLOX_DATA_DIR", dir.path().join("cache"))
        .output()
        .expect("blox runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = blox::results::read_runs(&dir.path().join("out/synergy-workload")).unwrap();
    assert_eq!(rows.len(), 10);
    assert!(rows.iter().all(|r| (r.summary.tracked_jobs, r.summary.tracked_finished) == (1000, 1000)));
    let avg = |label: &str, load: f64| {
        let row = rows.iter().find(|r| r.info.label == label && r.info.load == Some(load)).unwrap();
        row.summary.avg_jct
    };
    assert_eq!(avg("FIFO", 6.0), avg("SRTF", 6.0));
    assert_eq!(avg("FIFO", 6.0), avg("LAS", 6.0));
    assert!(avg("SRTF", 9.0) < 0.6 * avg("FIFO", 9.0), "{} vs {}", avg("SRTF", 9.0), avg("FIFO", 9.0));
    let (fair, tune) = (avg("Synergy FIFO+fair", 9.0), avg("Synergy FIFO+tune", 9.0));
    assert!(tune < fair / 3.0, "FIFO+tune {tune} s vs FIFO+fair {fair} s");
}

/// `specs/examples/synergy-cpu-ratios.yaml` runs: at every CPU:GPU ratio Synergy profiled, Tune
/// beats the proportional share by less as the share grows, and every measured job finishes.
#[test]
fn the_cpu_ratio_example_runs() {
    let dir = tempfile::tempdir().unwrap();
    let spec = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/examples/synergy-cpu-ratios.yaml");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_blox"))
        .args(["run", spec.to_str().unwrap(), "--out", "out", "-q"])
        .current_dir(dir.path())
        .output()
        .expect("blox runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = blox::results::read_runs(&dir.path().join("out/synergy-cpu-ratios")).unwrap();
    assert_eq!(rows.len(), 12);
    assert!(rows.iter().all(|r| r.summary.tracked_finished == 1000));
    let avg = |label: &str, ratio: u32| {
        let cluster = format!("{ratio} CPUs per GPU");
        rows.iter().find(|r| r.info.label == label && r.info.cluster == cluster).unwrap().summary.avg_jct
    };
    let gains: Vec<f64> = (3..=6).map(|k| avg("FIFO+fair", k) / avg("FIFO+tune", k)).collect();
    assert!(gains.iter().all(|&g| g > 1.0), "{gains:?}");
    assert!(gains.windows(2).all(|w| w[0] > w[1]), "Tune gains less with more CPUs per GPU: {gains:?}");
}

/// Bad `synergy-generator` parameters are spec errors at their position, before any run.
#[test]
fn bad_parameters_are_spec_errors_with_their_position() {
    let cases = [
        (
            "{split: [20, 70, 20]}",
            "s.yaml:5:5: synergy-generator: `split` gives percent of image, language and speech jobs and must add up to 100 (it is 20 + 70 + 20)",
        ),
        ("{cpus_per_gpu: 8}", "s.yaml:5:5: synergy-generator: `cpus_per_gpu` must be 3, 4, 5 or 6"),
        ("{jobs: philly}", "s.yaml:5:31: unknown variant `philly`, expected one of philly-single-gpu, synthetic"),
        (
            "{num_jobs: 2000000}",
            "s.yaml:5:5: synergy-generator: num_jobs is 2000000; a run generates at most 1000000 jobs",
        ),
    ];
    for (params, expected) in cases {
        assert_rejected(
            &format!(
                "name: s\npolicies: [{{label: FIFO, scheduler: fifo}}]\nclusters: [{{nodes: 2, gpus_per_node: 8}}]\nworkloads:\n  - synergy-generator: {params}\nloads: [9]\nseeds: [42]\nmeasure: {{track: {{ids: [0, 9]}}}}\n"
            ),
            expected,
        );
    }
}

/// A Synergy policy on a cluster it cannot model, or with a workload drawn for another CPU:GPU
/// ratio, is a spec error naming the cluster and policy.
#[test]
fn synergy_policies_need_cpus_and_memory_per_node() {
    let cases = [
        (
            "synergy-fifo",
            "{nodes: 2, gpus_per_node: 8}",
            "s.yaml:3:11: cluster `2x8` for policy `T`: Synergy's policies need `cpus_per_node` and `memory_gb_per_node` in the cluster",
        ),
        (
            "synergy-fifo",
            "{nodes: 2, gpus_per_node: 8, cpus_per_node: 28, memory_gb_per_node: 500}",
            "s.yaml:3:11: cluster `2x8` for policy `T`: Synergy profiled 3, 4, 5 or 6 CPUs per GPU; this cluster has 28 CPUs for 8 GPUs",
        ),
        (
            "synergy-fifo",
            "{groups: [{nodes: 1, gpus_per_node: 8, cpus_per_node: 24, memory_gb_per_node: 500}, {nodes: 1, gpus_per_node: 4, cpus_per_node: 12, memory_gb_per_node: 250}]}",
            "for policy `T`: Synergy's policies need identical nodes",
        ),
        (
            "{synergy-srtf: {allocation: opt}}",
            "{nodes: 2, gpus_per_node: 8, cpus_per_node: 24, memory_gb_per_node: 400}",
            "s.yaml:3:11: cluster `2x8` for policy `T`: Synergy-OPT's throughput matrices have cells for 1, 2, 3, 4, 5, 6, 9, 12 or 24 CPUs and 20.83, 62.5, 125, 187.5 or 250 GB per GPU; this cluster's proportional share, 3 CPUs and 50 GB per GPU, is not one",
        ),
        (
            "synergy-fifo",
            "{nodes: 2, gpus_per_node: 8, cpus_per_node: 32, memory_gb_per_node: 500}",
            "s.yaml:5:5: synergy-generator draws iterations from the 3 CPUs per GPU profiles, but cluster `2x8` has 4 CPUs per GPU for policy `T`; set `cpus_per_gpu: 4`",
        ),
        (
            "{synergy-fifo: {allocation: opt, place: true}}",
            "{nodes: 2, gpus_per_node: 8, cpus_per_node: 24, memory_gb_per_node: 500}",
            "`allocation: opt` places no job on a server, so `place: true` would mean nothing",
        ),
    ];
    for (scheduler, cluster, expected) in cases {
        assert_rejected(
            &format!(
                "name: s\npolicies: [{{label: T, scheduler: {scheduler}}}]\nclusters: [{cluster}]\nworkloads:\n  - synergy-generator: {{}}\nloads: [9]\nseeds: [42]\nmeasure: {{track: {{ids: [0, 9]}}}}\n"
            ),
            expected,
        );
    }
}

/// `blox validate` rejects the spec `yaml` (written as `s.yaml`) with exit code 2 and `expected`
/// in its message.
fn assert_rejected(yaml: &str, expected: &str) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.yaml"), yaml).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_blox"))
        .args(["validate", "s.yaml"])
        .current_dir(dir.path())
        .output()
        .expect("blox runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(expected), "expected `{expected}` in:\n{stderr}");
}
