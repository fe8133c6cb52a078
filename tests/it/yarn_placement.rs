//! The `yarn` placement (Tiresias' MS-YARN as ElasticFlow's simulator has it) on the event
//! engine: decisions on hand-built states, what a picked job that does not fit does, and Figure
//! 10 through the CLI. No reference log exists for yarn runs of these policies (the original
//! cannot run them), so the Fig 10 check is the equality that holds by construction.

use blox::core::events::{EventConfig, EventEngine, GpuPlacement, MakePlacement};
use blox::core::{Cluster, ClusterSpec, GpuId};
use blox::core::{JobSpec, RunError, RunOutput};
use blox::policies::events::buddy::BuddyPlacement;
use blox::policies::events::tiresias::Tiresias;
use blox::policies::events::yarn::YarnPlacement;
use blox::profiles::ThroughputTable;
use blox::results;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

fn config(nodes: u32) -> EventConfig {
    EventConfig {
        cluster: ClusterSpec::uniform(nodes, 8),
        slot: 60.0,
        throughput: Arc::new(ThroughputTable::elasticflow_a100().clone()),
        record_timeline: true,
    }
}

/// A job of `gpus` GPUs arriving at `arrival` that runs `work` seconds.
fn job(id: u64, arrival: f64, gpus: u32, work: f64) -> JobSpec {
    JobSpec {
        id,
        arrival,
        submitted: arrival,
        gpus,
        work,
        model: Some("resnet50".into()),
        batch_size: Some(256),
        iterations: Some(1e6),
        deadline: Some(1e9),
        ..JobSpec::default()
    }
}

fn tiresias(nodes: u32, placement: MakePlacement, jobs: Vec<JobSpec>) -> Result<RunOutput, RunError> {
    EventEngine::new(config(nodes), Box::new(Tiresias::default()), jobs.into_iter())?.with_placement(placement).run()
}

#[test]
fn a_multi_node_job_takes_whole_free_nodes_plus_one_node_with_the_remainder() {
    let mut cluster = Cluster::new(ClusterSpec::uniform(4, 8));
    let mut p = YarnPlacement::new(8);
    let mut held: Vec<Vec<GpuId>> = vec![Vec::new(); 3];
    assert!(p.place(&mut cluster, 0, 4, &mut held[0]));
    assert!(p.place(&mut cluster, 1, 20, &mut held[1]), "two whole free nodes and 4 GPUs on a third");
    let nodes = |held: &[GpuId]| held.iter().map(|&g| cluster.node_of(g)).collect::<Vec<_>>();
    let expected: Vec<usize> = [vec![1; 8], vec![2; 8], vec![0; 4]].concat();
    assert_eq!(nodes(&held[1]), expected, "the remainder goes to the first node with room");
    assert!(!p.place(&mut cluster, 2, 16, &mut held[2]), "one whole free node is left, not two");
    assert!(
        !p.place(&mut cluster, 2, 12, &mut held[2]),
        "node 3 is free, but no other node has 4 GPUs for the remainder"
    );
    let free: Vec<u32> = (0..4).map(|n| cluster.free_on_node(n)).collect();
    assert_eq!(free, [0, 0, 0, 8], "a refused job takes nothing");
    p.release(&mut cluster, 0, &mut held[0]);
    assert!(p.place(&mut cluster, 2, 12, &mut held[2]));
    assert_eq!(held[2], [24, 25, 26, 27, 28, 29, 30, 31, 0, 1, 2, 3], "node 3 whole, then node 0's lowest GPUs");
}

/// Two 6-GPU jobs leave 2 GPUs on each of two 8-GPU nodes: a 4-GPU job that counting (16 GPUs
/// asked, 16 free) would start waits until a node frees up, while a 2-GPU job fits. The buddy
/// placement cannot place 6 GPUs at all.
#[test]
fn fragmentation_makes_a_job_wait_that_counting_would_start() {
    let jobs = |third| vec![job(0, 0.0, 6, 1000.0), job(1, 0.0, 6, 2000.0), job(2, 0.0, third, 500.0)];
    let out = tiresias(2, YarnPlacement::for_cluster, jobs(4)).unwrap();
    let start = |id: usize| out.jobs[id].first_start;
    // Job 0 ends at 1,010 s (its 1,000 s plus the start overhead), completed at the decision at
    // 1,055 s (a slot after the one at 995 s, Tiresias' HEAD end rule); job 2 starts there.
    assert_eq!((start(0), start(1), start(2)), (Some(0.0), Some(0.0), Some(1055.0)));
    assert_eq!((out.jobs[0].finish, out.jobs[2].finish), (Some(1010.0), Some(1555.0)));
    assert_eq!(out.jobs.iter().map(|r| r.preemptions).sum::<u32>(), 0, "waiting to start is no preemption");
    let first = &out.timeline[0];
    assert_eq!((first.time, first.running, first.queued, first.free_gpus), (0.0, 2, 1, 4), "placed jobs are busy");

    let fits = tiresias(2, YarnPlacement::for_cluster, jobs(2)).unwrap();
    assert_eq!(fits.jobs[2].first_start, Some(0.0));
    assert_eq!(fits.timeline[0].free_gpus, 2);

    let buddy = tiresias(2, BuddyPlacement::for_cluster, jobs(2)).err().unwrap();
    assert!(matches!(buddy, RunError::Unplaceable { gpus: 6, .. }), "{buddy}");
}

/// Three running 3-GPU jobs (two on node 0, one on node 1) and a new 6-GPU job fit by count
/// (15 of 16 GPUs), but widest first the 6-GPU job takes node 0 and the third 3-GPU job finds 2
/// GPUs on each node: it ran before, so it is preempted, and keeps its first start.
#[test]
fn a_running_job_that_no_longer_fits_is_preempted() {
    let jobs =
        vec![job(0, 0.0, 3, 10_000.0), job(1, 0.0, 3, 10_000.0), job(2, 0.0, 3, 10_000.0), job(3, 1000.0, 6, 500.0)];
    let out = tiresias(2, YarnPlacement::for_cluster, jobs).unwrap();
    let row = |id: usize| (out.jobs[id].first_start, out.jobs[id].preemptions);
    assert_eq!([row(0), row(1), row(2), row(3)], [(Some(0.0), 0), (Some(0.0), 0), (Some(0.0), 1), (Some(1000.0), 0)]);
    let at = out.timeline.iter().find(|r| r.time == 1000.0).unwrap();
    assert_eq!((at.running, at.queued, at.free_gpus), (3, 1, 4));
    assert!(out.jobs.iter().all(|r| r.finish.is_some()));
}

fn blox(args: &[&str], cwd: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_blox")).args(args).current_dir(cwd).output().expect("blox runs")
}

const FIG10: &str = "name: fig10-yarn
engine: {mode: events, slot_s: 240}
policies:
  - {label: Tiresias, scheduler: tiresias}
  - {label: Tiresias-yarn, scheduler: tiresias, placement: yarn}
  - {label: Themis, scheduler: themis}
  - {label: Themis-yarn, scheduler: themis, placement: yarn}
clusters:
  - {nodes: 16, gpus_per_node: 8, gpu: a100}
workloads:
  - elasticflow-generator: {num_jobs: 100, lam_s: 1500, min_ddl: 1.5}
seeds: [1]
measure:
  track: all
";

/// Every Fig 10 job asks a power of two of at most 64 GPUs, so widest-first yarn packs what
/// counting picks and the run equals the buddy-placed one, job for job; neither policy reads
/// the rank cache, so the overheads agree too.
#[test]
fn figure_10_with_yarn_completes_and_equals_the_buddy_placement() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.yaml"), FIG10).unwrap();
    let out = blox(&["run", "s.yaml", "--out", "out", "-q"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let experiment = dir.path().join("out/fig10-yarn");
    let runs = results::read_runs(&experiment).unwrap();
    let run = |label: &str| runs.iter().find(|r| r.info.label == label).unwrap();
    for (buddy, yarn) in [("Tiresias", "Tiresias-yarn"), ("Themis", "Themis-yarn")] {
        let (buddy, yarn) = (run(buddy), run(yarn));
        assert_eq!((buddy.info.placement.as_str(), yarn.info.placement.as_str()), ("elastic", "yarn"));
        assert_eq!(yarn.summary.tracked_finished, 100);
        assert_eq!(format!("{:?}", yarn.summary), format!("{:?}", buddy.summary), "NaN-aware");
        let jobs = |r: &results::RunRow| results::read_jobs(&experiment, &r.info.run_key).unwrap();
        assert_eq!(jobs(yarn), jobs(buddy));
        let timeline = |r: &results::RunRow| results::read_timeline(&experiment, &r.info.run_key).unwrap();
        let rows = timeline(yarn);
        assert!(rows.iter().any(|r| r.free_gpus < 128 && r.cluster_efficiency > Some(0.0)), "placed jobs are busy");
        assert_eq!(rows, timeline(buddy));
    }
}

#[test]
fn yarn_with_a_policy_that_cannot_use_it_is_a_spec_error_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    for (yaml, message) in [
        (FIG10.replace("scheduler: themis, placement: yarn", "scheduler: edf, placement: yarn"), "not `edf`"),
        (FIG10.replace("scheduler: themis, placement: yarn", "scheduler: gandiva, placement: yarn"), "not `gandiva`"),
    ] {
        std::fs::write(dir.path().join("s.yaml"), yaml).unwrap();
        let out = blox(&["validate", "s.yaml"], dir.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(stderr.contains("s.yaml:7:") && stderr.contains(message), "{stderr}");
    }
    let rounds = "name: r
policies: [{label: FIFO, scheduler: fifo, placement: yarn}]
clusters: [{nodes: 2, gpus_per_node: 4}]
workloads: [{blox-philly-synthetic: {}}]
loads: [1]
measure: {track: {ids: [0, 10]}}
";
    std::fs::write(dir.path().join("r.yaml"), rounds).unwrap();
    let out = blox(&["validate", "r.yaml"], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("r.yaml:2:") && stderr.contains("not `fifo`"), "{stderr}");
}

#[test]
fn list_shows_the_placement_and_its_summary() {
    let out = blox(&["list"], Path::new(env!("CARGO_MANIFEST_DIR")));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.lines().any(|l| l.trim_start().starts_with("yarn ") && l.contains("MS-YARN")), "{stdout}");
}
