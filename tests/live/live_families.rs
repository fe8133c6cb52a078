//! The round families that place jobs themselves, live on local agents: Synergy's policies (a
//! job's CPUs and memory beside its GPUs) and Gavel's (a job's GPU type each round). Each run
//! finishes every job, every attempt's environment shows what the policy gave it, and the live
//! average JCTs agree with the simulation within the localhost test's tolerance.

use crate::common::dataset_file;
use crate::live_cluster::{
    BLOX, Guard, TOKEN, assert_no_slot_shared, exclusive, python3, scheduler_address, start_agent, start_scheduler,
    wait_for,
};
use blox::profiles::gavel::{GavelThroughputs, JobKey, ThroughputFile};
use blox::results::{AttemptRow, read_attempts, read_jobs, read_runs};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// What an attempt printed before its training started (the agent keeps each attempt's output
/// under its run's directory, named by the run key and a stamp).
pub(crate) fn attempt_output(work_dir: &Path, run_key: &str, attempt: &AttemptRow) -> String {
    let runs = std::fs::read_dir(work_dir.join("runs")).unwrap();
    let run = runs.flatten().find(|r| r.file_name().to_string_lossy().starts_with(run_key)).unwrap();
    let out = run.path().join("jobs").join(attempt.job_id.to_string()).join(format!("attempt-{}.out", attempt.attempt));
    std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()))
}

/// The value `name=` an attempt's output line `allocation: ...` shows.
pub(crate) fn shown<'a>(output: &'a str, name: &str) -> Option<&'a str> {
    let line = output.lines().find(|l| l.starts_with("allocation:"))?;
    line.split_whitespace().find_map(|field| field.strip_prefix(name)?.strip_prefix('='))
}

/// Runs `live.yaml` in `dir` on `agents` local agents of 2 slots each; the experiment.
fn run_live(dir: &Path, agents: usize, limit: Duration) -> std::path::PathBuf {
    let mut scheduler = start_scheduler(dir);
    let address = scheduler_address(dir);
    let _agents: Vec<Guard> = (0..agents).map(|i| start_agent(dir, &address, &format!("node{i}"), "work")).collect();
    wait_for(&mut scheduler, dir, limit);
    dir.join("out/live")
}

/// Simulates `spec` (the live spec with `mode: rounds`) as experiment `name`.
pub(crate) fn simulate(dir: &Path, name: &str, spec: &str) {
    std::fs::write(dir.join(format!("{name}.yaml")), spec).unwrap();
    let out = Command::new(BLOX)
        .args(["run", &format!("{name}.yaml"), "--out", "out", "--quiet"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Live against simulated, with the localhost test's tolerance (1.5 rounds plus 15 % of the
/// average JCT), and `blox compare` pairing every run. The localhost test calibrates its
/// simulation with the measured launch overhead at every launch; these families' simulations
/// count no restart cost (as their simulators do not), so the calibration is added here instead:
/// the simulated average JCT plus the measured mean overhead (launch decision to first report,
/// less the one iteration the report follows) times the simulation's launches per job.
fn assert_agrees(dir: &Path, simulated: &str, round_s: f64) {
    let live = dir.join("out/live");
    let simulated_dir = dir.join("out").join(simulated);
    let sim_runs = read_runs(&simulated_dir).unwrap();
    for run in read_runs(&live).unwrap() {
        let label = &run.info.label;
        let live_jobs = read_jobs(&live, &run.info.run_key).unwrap();
        let attempts = read_attempts(&live, &run.info.run_key).unwrap();
        let overheads: Vec<f64> = attempts.iter().filter_map(|a| Some((a.launch_overhead()? - 0.1).max(0.0))).collect();
        let overhead = overheads.iter().sum::<f64>() / overheads.len() as f64;
        let sim_run = sim_runs.iter().find(|r| &r.info.label == label).unwrap();
        let sim_jobs = read_jobs(&simulated_dir, &sim_run.info.run_key).unwrap();
        let average = |jobs: &[blox::core::JobRecord]| {
            jobs.iter().map(|j| j.finish.expect("finished") - j.arrival).sum::<f64>() / jobs.len() as f64
        };
        let (live_jct, sim_jct) = (average(&live_jobs), average(&sim_jobs));
        let launches = sim_jobs.iter().map(|j| f64::from(j.preemptions) + 1.0).sum::<f64>() / sim_jobs.len() as f64;
        let calibrated = sim_jct + overhead * launches;
        eprintln!(
            "{label}: live average JCT {live_jct:.2} s; simulated {sim_jct:.2} s, with {overhead:.2} s at each of its \
             {launches:.2} launches per job {calibrated:.2} s"
        );
        assert!(
            (live_jct - calibrated).abs() <= 1.5 * round_s + 0.15 * calibrated,
            "{label}: live average JCT {live_jct:.2} s vs calibrated simulation {calibrated:.2} s"
        );
    }
    let out = Command::new(BLOX)
        .args(["compare", &format!("out/{simulated}"), "out/live"])
        .current_dir(dir)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}{}", String::from_utf8_lossy(&out.stderr));
    let pairs = sim_runs.len();
    assert!(report.contains(&format!("{pairs} pair")), "{report}");
}

/// Every job finished, its last attempt as `finished`, no slot held by two attempts at once; the
/// run's attempts by label.
fn assert_every_job_finished(experiment: &Path, jobs: usize) -> Vec<(String, String, Vec<AttemptRow>)> {
    let mut runs = Vec::new();
    for run in read_runs(experiment).unwrap() {
        let key = run.info.run_key.clone();
        let records = read_jobs(experiment, &key).unwrap();
        assert_eq!(records.len(), jobs, "{}", run.info.label);
        assert!(records.iter().all(|r| r.finish.is_some()), "{}: every job finished: {records:?}", run.info.label);
        let attempts = read_attempts(experiment, &key).unwrap();
        assert_no_slot_shared(&attempts);
        for record in &records {
            let last = attempts.iter().rfind(|a| a.job_id == record.id);
            assert_eq!(last.map(|a| a.end.as_str()), Some("finished"), "job {}: {attempts:?}", record.id);
        }
        runs.push((run.info.label.clone(), key, attempts));
    }
    runs
}

/// Synergy's FIFO at the GPU-proportional share and with Tune, live: each attempt's environment
/// holds the CPUs and memory the policy gave the job on its node (3 CPUs and 20 GB per GPU at the
/// proportional share of these 6-CPU, 40 GB, 2-GPU nodes; the lstm model's best case, 1 CPU and
/// 20 GB per GPU, under Tune, which fits here), and the runs agree with their simulation.
#[test]
fn synergy_runs_live_with_each_job_told_its_cpus_and_memory() {
    if !python3() {
        return;
    }
    let _cluster = exclusive();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("token"), format!("{TOKEN}\n")).unwrap();
    // lstm: 0.011 s per iteration at the proportional share and no speedup beyond it, so a
    // round of Synergy's credit is the round's seconds, as a live job's progress is.
    let jobs = 8;
    let mut csv = String::from("job_id,arrival_s,gpus,duration_s,model\n");
    for i in 0..jobs {
        let gpus = if i % 3 == 1 { 2 } else { 1 };
        csv.push_str(&format!("{i},{},{gpus},{},lstm\n", i, 4 + (i * 3) % 5));
    }
    std::fs::write(dir.path().join("trace.csv"), csv).unwrap();
    let train = Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/python/examples/train.py");
    let spec = |name: &str, mode: &str| {
        let live = if mode == "live" {
            format!(
                "  live:
    listen: 127.0.0.1:0
    token_file: token
    command: >-
      echo allocation: cpus=$BLOX_CPUS memory_gb=$BLOX_MEMORY_GB gpu_type=$BLOX_GPU_TYPE;
      exec python3 {} --iterations {{iterations}} --ms-per-iteration 100
    iterations_per_s: 10
    grace_s: 5
    wait_for_nodes_s: 60
",
                train.display()
            )
        } else {
            String::new()
        };
        format!(
            "name: {name}
engine:
  mode: {mode}
  round_s: 2
{live}policies:
  - {{label: FIFO+fair, scheduler: {{synergy-fifo: {{allocation: fair}}}}}}
  - {{label: FIFO+tune, scheduler: {{synergy-fifo: {{allocation: tune}}}}}}
clusters:
  - groups:
      - {{nodes: 2, gpus_per_node: 2, gpu: v100, cpus_per_node: 6, memory_gb_per_node: 40}}
workloads:
  - csv: {{path: trace.csv}}
measure:
  track: all
"
        )
    };
    std::fs::write(dir.path().join("live.yaml"), spec("live", "live")).unwrap();
    let experiment = run_live(dir.path(), 2, Duration::from_secs(240));

    let runs = assert_every_job_finished(&experiment, jobs);
    assert_eq!(runs.len(), 2);
    for (label, key, attempts) in &runs {
        let cpus_per_gpu = if label == "FIFO+fair" { 3.0 } else { 1.0 };
        for attempt in attempts.iter().filter(|a| a.started.is_some()) {
            let output = attempt_output(&dir.path().join("work"), key, attempt);
            // A job on one node (every part of a gang prints its own node's share).
            let slots = attempt.slots.split(';').next().unwrap().split(',').count() as f64;
            let cpus: f64 = shown(&output, "cpus").and_then(|v| v.parse().ok()).expect(&output);
            let memory: f64 = shown(&output, "memory_gb").and_then(|v| v.parse().ok()).expect(&output);
            assert_eq!((cpus, memory), (cpus_per_gpu * slots, 20.0 * slots), "{label}: {attempt:?}\n{output}");
            assert_eq!(shown(&output, "gpu_type"), Some("v100"), "{output}");
        }
    }
    simulate(dir.path(), "simulated", &spec("simulated", "rounds"));
    assert_agrees(dir.path(), "simulated", 2.0);
}

/// Gavel's heterogeneity-aware LAS live on one node of two V100s and one of two K80s, six jobs
/// for four GPUs: each attempt is told the GPU type its round gave it (and, standing in for a
/// real GPU, trains at that type's speed from Gavel's throughput oracle); a job moved to the
/// other type or given no GPU for a round stops with a checkpoint and resumes; the run agrees
/// with its simulation. (Every job arrives at once: Gavel recomputes its allocation at most once
/// in 1,920 s after the first reset, so a later arrival would wait half an hour, live as in
/// simulation.)
#[test]
fn gavel_runs_live_with_each_job_on_the_gpu_type_of_its_round() {
    if !python3() {
        return;
    }
    let _cluster = exclusive();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("token"), format!("{TOKEN}\n")).unwrap();
    let oracle_file = dataset_file(ThroughputFile::Simulation.dataset_reference());
    let oracle =
        GavelThroughputs::parse(&std::fs::read_to_string(oracle_file).unwrap(), "simulation_throughputs.json").unwrap();
    let model = "ResNet-18 (batch size 32)";
    let key = JobKey { job_type: model.into(), scale_factor: 1 };
    let v100 = oracle.isolated("v100", &key).unwrap();
    let k80 = oracle.isolated("k80", &key).unwrap();
    // A Gavel trace's job takes its steps at the V100 rate as its work: 10 iterations per second
    // of that at 100 ms each on a V100, slower on a K80 by the oracle's ratio.
    let k80_ms = (100.0 * v100 / k80).round();
    let jobs = 6;
    let mut trace = String::new();
    for i in 0..jobs {
        let seconds = 6 + (i * 4) % 10;
        let steps = (v100 * seconds as f64).round();
        trace.push_str(&format!("{model}\tcmd\t--steps\tFalse\t{steps}\t0\t1\n"));
    }
    std::fs::write(dir.path().join("jobs.trace"), trace).unwrap();
    let train = Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/python/examples/train.py");
    let round_s = 8.0;
    let spec = |name: &str, mode: &str| {
        let live = if mode == "live" {
            format!(
                "  live:
    listen: 127.0.0.1:0
    token_file: token
    command: >-
      echo allocation: gpu_type=$BLOX_GPU_TYPE cpus=$BLOX_CPUS;
      if [ \"$BLOX_GPU_TYPE\" = k80 ]; then ms={k80_ms}; else ms=100; fi;
      exec python3 {} --iterations {{iterations}} --ms-per-iteration $ms
    iterations_per_s: 10
    grace_s: 5
    wait_for_nodes_s: 60
",
                train.display()
            )
        } else {
            String::new()
        };
        format!(
            "name: {name}
engine:
  mode: {mode}
  round_s: {round_s}
{live}policies:
  - {{label: Gavel LAS, scheduler: gavel-max-min-fairness-perf}}
clusters:
  - groups:
      - {{nodes: 1, gpus_per_node: 2, gpu: v100}}
      - {{nodes: 1, gpus_per_node: 2, gpu: k80}}
workloads:
  - trace: {{path: jobs.trace}}
measure:
  track: all
"
        )
    };
    std::fs::write(dir.path().join("live.yaml"), spec("live", "live")).unwrap();
    let experiment = run_live(dir.path(), 2, Duration::from_secs(240));

    let runs = assert_every_job_finished(&experiment, jobs);
    assert_eq!(runs.len(), 1);
    let mut resumed = 0;
    for (label, key, attempts) in &runs {
        for attempt in attempts.iter().filter(|a| a.started.is_some()) {
            let output = attempt_output(&dir.path().join("work"), key, attempt);
            // node0 is the cluster's first node, the V100s; node1 the K80s.
            let expected = if attempt.node == "node0" { "v100" } else { "k80" };
            assert_eq!(shown(&output, "gpu_type"), Some(expected), "{label}: {attempt:?}\n{output}");
            assert_eq!(shown(&output, "cpus"), Some(""), "Gavel allocates no CPUs: {output}");
            resumed += usize::from(output.contains("resumed from iteration"));
        }
    }
    assert!(resumed > 0, "some job stopped for another and resumed from its checkpoint");
    simulate(dir.path(), "simulated", &spec("simulated", "rounds"));
    assert_agrees(dir.path(), "simulated", round_s);
}
