//! The event engine's schedulers live on local agents: EDF resizes running jobs along their
//! throughput curves (each resize a checkpoint, a stop and a restart at the new GPU count) and
//! Tiresias' `dlas-gpu` preempts on wall-clock events. Each run finishes every job, and its
//! average JCT agrees with its simulation (`mode: events`) within the localhost test's tolerance.

use crate::live_cluster::{
    BLOX, Guard, TOKEN, assert_no_slot_shared, exclusive, python3, scheduler_address, start_agent_with_slots,
    start_scheduler, wait_for,
};
use crate::live_families::{attempt_output, shown, simulate};
use blox::profiles::ThroughputTable;
use blox::results::{AttemptRow, read_attempts, read_jobs, read_runs};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// ElasticFlow's trace format: `(submit s, work s at 1 GPU, deadline s)` per job of resnet50 at
/// global batch 64, its iterations those seconds at the A100 curve's 1-GPU rate.
fn trace(jobs: &[(f64, f64, f64)]) -> String {
    let rate = ThroughputTable::elasticflow_a100().curve("resnet50", 64).unwrap().iterations_per_s(1).unwrap();
    let mut csv = String::from("job_id,submit_time,iteration,model_name,ddl,batch_size,num_gpu,duration,best_effort\n");
    for (i, (submit, work, deadline)) in jobs.iter().enumerate() {
        let iterations = (work * rate).round();
        csv.push_str(&format!("{i},{submit},{iterations},resnet50,{deadline},64,1,{work},0\n"));
    }
    csv
}

/// The live command: a toy training job at 10 iterations per second of its 1-GPU work, as fast
/// on `$BLOX_GPUS` GPUs as the A100 curve says (so that live and simulated progress agree), its
/// GPU count printed first.
fn command() -> String {
    let curve = ThroughputTable::elasticflow_a100().curve("resnet50", 64).unwrap();
    let one = curve.iterations_per_s(1).unwrap();
    let cases: Vec<String> = [1, 2, 4]
        .iter()
        .map(|&g| format!("{g}) ms={:.1};;", 100.0 * one / curve.iterations_per_s(g).unwrap()))
        .collect();
    let train = Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/python/examples/train.py");
    format!(
        "echo allocation: gpus=$BLOX_GPUS; case $BLOX_GPUS in {} esac; exec python3 {} --iterations {{iterations}} \
         --ms-per-iteration $ms",
        cases.join(" "),
        train.display()
    )
}

/// The spec of experiment `name` in `mode` (`live` or `events`).
fn spec(name: &str, mode: &str, slot_s: f64, scheduler: &str, gpus: u32) -> String {
    let live = if mode == "live" {
        format!(
            "  live:
    listen: 127.0.0.1:0
    token_file: token
    command: {:?}
    iterations_per_s: 10
    grace_s: 5
    wait_for_nodes_s: 60
",
            command()
        )
    } else {
        String::new()
    };
    format!(
        "name: {name}
engine:
  mode: {mode}
  slot_s: {slot_s}
{live}policies:
  - {{label: P, scheduler: {scheduler}}}
clusters:
  - groups:
      - {{nodes: 1, gpus_per_node: {gpus}, gpu: a100}}
workloads:
  - trace: {{path: trace.csv}}
measure:
  track: all
"
    )
}

/// Runs `live.yaml` in `dir` on one local agent of `slots` slots; the run's attempts, after
/// checking that every job finished (its last attempt `finished`) and no slot was shared.
fn run_live(dir: &Path, slots: u32, jobs: usize) -> (String, Vec<AttemptRow>) {
    let mut scheduler = start_scheduler(dir);
    let address = scheduler_address(dir);
    let _agent: Guard = start_agent_with_slots(dir, &address, "node0", "work", slots);
    wait_for(&mut scheduler, dir, Duration::from_secs(300));
    let experiment = dir.join("out/live");
    let runs = read_runs(&experiment).unwrap();
    assert_eq!(runs.len(), 1);
    let key = runs[0].info.run_key.clone();
    let records = read_jobs(&experiment, &key).unwrap();
    assert_eq!(records.len(), jobs);
    assert!(records.iter().all(|r| r.finish.is_some()), "every job finished: {records:?}");
    let attempts = read_attempts(&experiment, &key).unwrap();
    assert_no_slot_shared(&attempts);
    for record in &records {
        let last = attempts.iter().rfind(|a| a.job_id == record.id);
        assert_eq!(last.map(|a| a.end.as_str()), Some("finished"), "job {}: {attempts:?}", record.id);
    }
    (key, attempts)
}

/// Live against simulated, with the localhost test's tolerance (1.5 decision slots plus 15 % of
/// the average JCT) after its calibration: the simulated average JCT plus the measured mean
/// launch overhead (launch decision to first report, less the one iteration the report follows)
/// at each of the simulation's launches per job, a resize being a launch; `blox compare` pairs
/// the runs.
fn assert_agrees(dir: &Path, slot_s: f64) {
    let (live, simulated) = (dir.join("out/live"), dir.join("out/simulated"));
    let live_run = &read_runs(&live).unwrap()[0];
    let sim_run = &read_runs(&simulated).unwrap()[0];
    let live_jobs = read_jobs(&live, &live_run.info.run_key).unwrap();
    let sim_jobs = read_jobs(&simulated, &sim_run.info.run_key).unwrap();
    let attempts = read_attempts(&live, &live_run.info.run_key).unwrap();
    let overheads: Vec<f64> = attempts.iter().filter_map(|a| Some((a.launch_overhead()? - 0.1).max(0.0))).collect();
    let overhead = overheads.iter().sum::<f64>() / overheads.len() as f64;
    let average = |jobs: &[blox::core::JobRecord]| {
        jobs.iter().map(|j| j.finish.expect("finished") - j.arrival).sum::<f64>() / jobs.len() as f64
    };
    let (live_jct, sim_jct) = (average(&live_jobs), average(&sim_jobs));
    let launches =
        sim_jobs.iter().map(|j| f64::from(j.preemptions + j.resizes) + 1.0).sum::<f64>() / sim_jobs.len() as f64;
    let calibrated = sim_jct + overhead * launches;
    eprintln!(
        "live average JCT {live_jct:.2} s; simulated {sim_jct:.2} s, with {overhead:.2} s at each of its {launches:.2} \
         launches per job {calibrated:.2} s"
    );
    assert!(
        (live_jct - calibrated).abs() <= 1.5 * slot_s + 0.15 * calibrated,
        "live average JCT {live_jct:.2} s vs calibrated simulation {calibrated:.2} s"
    );
    let out = Command::new(BLOX).args(["compare", "out/simulated", "out/live"]).current_dir(dir).output().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}{}", String::from_utf8_lossy(&out.stderr));
    assert!(report.contains("1 pair"), "{report}");
}

/// EDF on one node of three GPUs: job 0 alone runs on 2 (the widest level that fits), shrinks
/// to 1 when job 1, due earlier, arrives and takes 2, and grows back when job 1 is done. Each
/// resize stops the attempt with a checkpoint (its row ends `resized`) and starts the next on
/// the new GPU count, which resumes from the checkpoint; the run agrees with its simulation.
#[test]
fn edf_resizes_a_running_job_by_checkpoint_and_restart_at_its_new_gpu_count() {
    if !python3() {
        return;
    }
    let _cluster = exclusive();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("token"), format!("{TOKEN}\n")).unwrap();
    std::fs::write(dir.path().join("trace.csv"), trace(&[(0.0, 40.0, 400.0), (8.0, 20.0, 60.0), (12.0, 20.0, 300.0)]))
        .unwrap();
    let slot_s = 2.0;
    std::fs::write(dir.path().join("live.yaml"), spec("live", "live", slot_s, "edf", 3)).unwrap();
    let (key, attempts) = run_live(dir.path(), 3, 3);

    let mut resized = 0;
    for pair in attempts.windows(2).filter(|w| w[0].job_id == w[1].job_id && w[0].end == "resized") {
        let [before, after] = pair else { unreachable!() };
        let gpus = |a: &AttemptRow| a.slots.split(',').count();
        assert_ne!(gpus(before), gpus(after), "a resize changes the GPU count: {before:?} {after:?}");
        let output = attempt_output(&dir.path().join("work"), &key, after);
        assert_eq!(shown(&output, "gpus"), Some(gpus(after).to_string().as_str()), "{output}");
        assert!(output.contains("resumed from iteration"), "the new attempt resumes: {output}");
        assert!(after.iterations_before > 0, "{after:?}");
        resized += 1;
    }
    assert!(resized >= 2, "job 0 shrinks and grows again: {attempts:#?}");

    simulate(dir.path(), "simulated", &spec("simulated", "events", slot_s, "edf", 3));
    let sim = dir.path().join("out/simulated");
    let sim_jobs = read_jobs(&sim, &read_runs(&sim).unwrap()[0].info.run_key).unwrap();
    assert_eq!(sim_jobs[0].resizes, 2, "the simulation resizes job 0 twice too");
    assert_agrees(dir.path(), slot_s);
}

/// Tiresias' `dlas-gpu` on one node of two GPUs, with queue limits scaled to a short test (a job
/// leaves queue 0 after 10 GPU-seconds): jobs 0 and 1 run and drop to queue 1, job 2 arrives in
/// queue 0 and preempts one of them, whose attempt stops with a checkpoint and whose next
/// resumes from it; the run agrees with its simulation.
#[test]
fn tiresias_preempts_on_wall_clock_events() {
    if !python3() {
        return;
    }
    let _cluster = exclusive();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("token"), format!("{TOKEN}\n")).unwrap();
    std::fs::write(
        dir.path().join("trace.csv"),
        trace(&[(0.0, 40.0, 4000.0), (0.0, 40.0, 4000.0), (12.0, 20.0, 3000.0)]),
    )
    .unwrap();
    let slot_s = 10.0;
    let tiresias = "{tiresias: {queue_limits: [10, 1000]}}";
    std::fs::write(dir.path().join("live.yaml"), spec("live", "live", slot_s, tiresias, 2)).unwrap();
    let (key, attempts) = run_live(dir.path(), 2, 3);

    let preempted: Vec<&AttemptRow> = attempts.iter().filter(|a| a.end == "preempted").collect();
    assert!(!preempted.is_empty(), "job 2 preempts a demoted job: {attempts:#?}");
    for stopped in preempted {
        let next = attempts.iter().find(|a| a.job_id == stopped.job_id && a.attempt > stopped.attempt).unwrap();
        let output = attempt_output(&dir.path().join("work"), &key, next);
        assert!(output.contains("resumed from iteration"), "the job resumes: {output}");
    }

    simulate(dir.path(), "simulated", &spec("simulated", "events", slot_s, tiresias, 2));
    assert_agrees(dir.path(), slot_s);
}

/// A scheduler that places jobs its own way (Gandiva time-slices GPUs among jobs) is refused
/// before anything is launched, saying why.
#[test]
fn a_scheduler_that_shares_gpus_does_not_run_live() {
    let _cluster = exclusive();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("token"), format!("{TOKEN}\n")).unwrap();
    std::fs::write(dir.path().join("trace.csv"), trace(&[(0.0, 10.0, 400.0)])).unwrap();
    std::fs::write(dir.path().join("live.yaml"), spec("live", "live", 2.0, "gandiva", 2)).unwrap();
    let out = Command::new(BLOX).args(["run", "live.yaml", "--out", "out"]).current_dir(dir.path()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("scheduler `gandiva` does not run live: it places jobs its own way"),
        "{stderr}{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// `blox validate` checks a live spec's event scheduler as events mode does: it builds the
/// policy and asks it about every job (EDF needs a throughput curve), and the cluster must be
/// identical nodes of a profiled GPU type.
#[test]
fn validate_checks_a_live_event_scheduler_as_events_mode_does() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("token"), format!("{TOKEN}\n")).unwrap();
    std::fs::write(dir.path().join("trace.csv"), trace(&[(0.0, 10.0, 400.0)])).unwrap();
    let validate = |spec: &str| {
        std::fs::write(dir.path().join("live.yaml"), spec).unwrap();
        let out = Command::new(BLOX).args(["validate", "live.yaml"]).current_dir(dir.path()).output().unwrap();
        (
            out.status.success(),
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)),
        )
    };
    let good = spec("live", "live", 2.0, "edf", 2);
    let (ok, said) = validate(&good);
    assert!(ok, "{said}");
    let mixed = good.replace(
        "      - {nodes: 1, gpus_per_node: 2, gpu: a100}",
        "      - {nodes: 1, gpus_per_node: 2, gpu: a100}\n      - {nodes: 1, gpus_per_node: 2, gpu: t4}",
    );
    let (ok, said) = validate(&mixed);
    assert!(!ok && said.contains("need identical nodes"), "{said}");
    std::fs::write(dir.path().join("trace.csv"), trace(&[(0.0, 10.0, 400.0)]).replace("resnet50", "resnet18")).unwrap();
    let (ok, said) = validate(&good);
    assert!(!ok && said.contains("model `resnet18` is not one of ElasticFlow's models"), "{said}");
}
