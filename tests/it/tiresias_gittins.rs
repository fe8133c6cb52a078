//! Tiresias' options beyond ElasticFlow's `dlas-gpu`: the starvation knob (`dlas-gpu-K`) and
//! 2D-Gittins ordering (`dlas-gpu-gittins`). ElasticFlow's `main` never runs them, so there is no
//! reference log: these cases are constructed so that the rule decides the outcome, and the
//! times follow from it by hand (1-GPU jobs on one 1-GPU node pay 4 s per (re)start, §2.5).

use crate::common;

use blox::core::events::{EventConfig, EventEngine};
use blox::core::{ClusterSpec, JobSpec, RunOutput};
use blox::policies::events::tiresias::Tiresias;
use blox::profiles::{GpuTimeDistribution, ThroughputTable};
use std::process::Command;
use std::sync::Arc;

/// A 1-GPU job arriving at `arrival` that runs `duration` seconds.
fn job(id: u64, arrival: f64, duration: f64) -> JobSpec {
    JobSpec {
        id,
        arrival,
        submitted: arrival,
        gpus: 1,
        work: duration,
        model: Some("resnet50".into()),
        deadline: None,
        iterations: Some(1000.0),
        batch_size: Some(256),
        best_effort: true,
        ..JobSpec::default()
    }
}

fn run(policy: Tiresias, jobs: Vec<JobSpec>) -> RunOutput {
    let config = EventConfig {
        cluster: ClusterSpec::uniform(1, 1),
        slot: 60.0,
        throughput: Arc::new(ThroughputTable::elasticflow_a100().clone()),
        record_timeline: false,
    };
    EventEngine::new(config, Box::new(policy), jobs.into_iter()).unwrap().run().unwrap()
}

/// (first start, finish, preemptions, promoted) of job `id`.
fn outcome(out: &RunOutput, id: u64) -> (Option<f64>, Option<f64>, u32, bool) {
    let r = out.jobs.iter().find(|r| r.id == id).unwrap();
    (r.first_start, r.finish, r.preemptions, r.promoted)
}

/// Half the jobs take 200 GPU-seconds, half 100,000: a fresh job is likely short (rank 289.855),
/// one that has run past 200 s is surely long (rank 9.9194).
fn bimodal() -> GpuTimeDistribution {
    GpuTimeDistribution::from_samples([[200; 5], [100_000; 5]].concat()).unwrap()
}

#[test]
fn gittins_lets_a_likely_short_newcomer_preempt_what_las_keeps_running() {
    // Job 0 (2,000 s) starts at 0; job 1 (500 s) arrives at 1,000 into the same queue 0.
    let jobs = || vec![job(0, 0.0, 2000.0), job(1, 1000.0, 500.0)];
    // LAS: queue 0 in order, the running job 0 first. The arrival's decision at 1,000 charges
    // its 4 s start overhead (996 s done), so it ends at 2,004; job 1 then runs 500 s to 2,504
    // (no decision falls before its end, so its own start overhead is never charged).
    let las = run(Tiresias::default(), jobs());
    assert_eq!(outcome(&las, 0), (Some(0.0), Some(2004.0), 0, false));
    assert_eq!(outcome(&las, 1), (Some(2004.0), Some(2504.0), 0, false));
    // Gittins: at 1,000 job 0 has attained 996 s (4 s start overhead), rank 9.9194 < 289.855
    // of the newcomer, so job 1 preempts it and ends at 1,500; job 0 resumes with 1,004 s left
    // and ends at 2,504 (the 4 s restart overhead is never charged either).
    let gittins = run(Tiresias::default().with_gittins(&bimodal()), jobs());
    assert_eq!(outcome(&gittins, 1), (Some(1000.0), Some(1500.0), 0, false));
    assert_eq!(outcome(&gittins, 0), (Some(0.0), Some(2504.0), 1, false));
}

#[test]
fn the_starvation_knob_returns_a_starved_job_to_queue_0_ahead_of_later_arrivals() {
    // Job 0 (5,000 s) drops to queue 1 after 3,250 s; job 1 (3,000 s) arrives at 3,500 and
    // preempts it; job 2 (3,000 s) arrives at 5,000 behind job 1 in queue 0.
    let jobs = || vec![job(0, 0.0, 5000.0), job(1, 3500.0, 3000.0), job(2, 5000.0, 3000.0)];
    // Both: job 0 is demoted at the jump at 3,310 (3,306 s done after its 4 s start overhead)
    // and preempted at 3,500 with 3,496 s done; job 1 ends at 6,504 (its overhead is charged at
    // job 2's arrival).
    let plain = run(Tiresias::default(), jobs());
    let knob = run(Tiresias::default().with_starvation_knob(0.2), jobs());
    for out in [&plain, &knob] {
        assert_eq!(outcome(out, 1), (Some(3500.0), Some(6504.0), 0, false));
    }
    // Without the knob job 0 waits in queue 1 behind both newcomers: job 2 runs 6,504 -> 9,504,
    // then job 0 its last 1,504 s to 11,008.
    assert_eq!(outcome(&plain, 2), (Some(6504.0), Some(9504.0), 0, false));
    assert_eq!(outcome(&plain, 0), (Some(0.0), Some(11_008.0), 1, false));
    assert_eq!(plain.summary.promoted_jobs, 0);
    // K = 0.2: a jump at 3,500 + trunc(3,496 x 0.2) = 4,199 promotes job 0 to queue 0's tail,
    // ahead of job 2 (5,000), so it runs at 6,504 and ends at 8,008; job 2 follows to 11,008.
    assert_eq!(outcome(&knob, 0), (Some(0.0), Some(8008.0), 1, true));
    assert_eq!(outcome(&knob, 2), (Some(8008.0), Some(11_008.0), 0, false));
    assert_eq!(knob.summary.promoted_jobs, 1);
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The Gittins distribution comes by dataset name, fetched into an empty cache from a directory
/// mirror the test builds (its file obtained through the data layer).
#[test]
fn a_spec_with_both_options_runs_end_to_end() {
    let mirror = common::mirror_with(&["tiresias/yarn-gput1000.csv"]);
    let dir = tempfile::tempdir().unwrap();
    let mut trace = String::from("job_id,submit_time,iteration,model_name,ddl,batch_size,num_gpu,duration\n");
    for i in 0..12 {
        let gpus = [1, 2, 4][i % 3];
        trace += &format!("{i},{},1000,resnet50,{},256,{gpus},{}\n", i * 600, i * 600 + 90_000, 1500 + 900 * i);
    }
    std::fs::write(dir.path().join("jobs.csv"), trace).unwrap();
    std::fs::write(dir.path().join("sizes.csv"), "duration\n500\n2000\n8000\n40000\n").unwrap();
    std::fs::write(
        dir.path().join("s.yaml"),
        "name: gittins
engine: {mode: events, slot_s: 60}
policies:
  - {label: LAS, scheduler: tiresias}
  - label: Gittins-K8
    scheduler: {tiresias: {starvation_knob: 8, gittins: {dataset: tiresias/yarn-gput1000.csv}}}
  - label: Gittins-local
    scheduler: {tiresias: {gittins: {path: sizes.csv}}}
clusters: [{nodes: 1, gpus_per_node: 4}]
workloads: [{trace: {path: jobs.csv}}]
measure: {track: all}
",
    )
    .unwrap();
    let blox = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_blox"))
            .args(args)
            .current_dir(dir.path())
            .env("BLOX_DATA_DIR", dir.path().join("cache"))
            .env("BLOX_DATA_MIRROR", mirror.path())
            .output()
            .expect("blox runs")
    };
    let out = blox(&["run", "s.yaml", "--out", "out"]);
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("Gittins-K8: GPU-time distribution from dataset tiresias/yarn-gput1000.csv: 1001 job sizes"),
        "{stderr}"
    );
    assert!(stderr.contains("Gittins-local: GPU-time distribution from sizes.csv: 4 job sizes"), "{stderr}");
    let rows = blox::results::read_runs(&dir.path().join("out/gittins")).unwrap();
    assert_eq!(rows.len(), 3);
    for row in &rows {
        assert_eq!(row.summary.jobs_finished, 12, "{}", row.info.label);
    }

    // A bad distribution file fails before any run, naming its line; a spec with both or
    // neither source fails at its line and column.
    std::fs::write(dir.path().join("sizes.csv"), "duration\n500\nlots\n").unwrap();
    let out = blox(&["validate", "s.yaml"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("sizes.csv:3:"), "{}", text(&out.stderr));
    let both = std::fs::read_to_string(dir.path().join("s.yaml"))
        .unwrap()
        .replace("{path: sizes.csv}", "{path: sizes.csv, dataset: tiresias/yarn-gput1000.csv}");
    std::fs::write(dir.path().join("both.yaml"), both).unwrap();
    let out = blox(&["validate", "both.yaml"]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("both.yaml:8:") && stderr.contains("exactly one of `path`"), "{stderr}");
    let knob =
        std::fs::read_to_string(dir.path().join("s.yaml")).unwrap().replace("starvation_knob: 8", "starvation_knob: 0");
    std::fs::write(dir.path().join("knob.yaml"), knob).unwrap();
    let out = blox(&["validate", "knob.yaml"]);
    let stderr = text(&out.stderr);
    assert!(!out.status.success() && stderr.contains("knob.yaml:6:") && stderr.contains("positive"), "{stderr}");
}
