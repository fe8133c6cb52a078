//! AFS on Pollux's job model (`scheduler: afs`, docs/pollux-semantics.md §17) against DeepBoot's
//! simulator (github.com/czq693497091/DeepBoot @ cc85a24, `afs.py`) run on the Pollux artifact's
//! profiles with the artifact's 30 s restart: its throughput predictions, where its deal stops,
//! and its runs of the 1.0x workloads. Data comes through `blox data` (the mirror when set).

use crate::common::pollux::{profiles, run};

use blox::core::JobSpec;
use blox::policies::pollux::afs::{PolluxAfs, packed_throughput};
use blox::policies::pollux::frame::{Allocator, JobView, Nodes, PolluxFrame};
use blox::policies::pollux::job::{BatchRule, SimJob};
use blox::policies::pollux::tiresias::PolluxTiresias;
use std::collections::BTreeMap;

/// DeepBoot's `AFS.get_throughout` (samples/s on packed 4-GPU nodes), as it prints them.
#[test]
fn throughputs_are_deepboots() {
    let profiles = profiles();
    let yolov3 = &profiles.applications[profiles.index("yolov3").unwrap()];
    for (gpus, expected) in
        [(1, 24.69367865518612), (4, 72.48934423909854), (17, 57.88731290081809), (21, 71.21028095717692)]
    {
        let seen = packed_throughput(yolov3, 64, gpus).unwrap();
        assert!((seen - expected).abs() <= 1e-9 * expected, "yolov3 on {gpus}: {seen} against {expected}");
    }
    // Where DeepBoot's lookup raises: per-GPU batch 3 (yolov3 measures 4 and up), 9 (deepspeech2
    // measures 10 and up).
    assert_eq!(packed_throughput(yolov3, 64, 22), None);
    let deepspeech2 = &profiles.applications[profiles.index("deepspeech2").unwrap()];
    assert!(packed_throughput(deepspeech2, 320, 35).is_some());
    assert_eq!(packed_throughput(deepspeech2, 320, 36), None);
}

/// A lone job is dealt every GPU it can run on and no more: DeepBoot would stop with an error
/// at the next one, blox leaves the rest idle. Placement fills whole nodes, then the fullest
/// node that holds the remainder.
#[test]
fn a_lone_job_takes_every_gpu_its_batch_can_be_split_over() {
    let profiles = profiles();
    let nodes = Nodes { count: 16, gpus_per_node: 4 };
    for (model, batch, gpus) in [("yolov3", 64, 21), ("deepspeech2", 320, 35), ("cifar10", 2048, 64)] {
        let app = profiles.index(model).unwrap();
        let spec = JobSpec { model: Some(model.into()), batch_size: Some(batch), gpus: 4, ..JobSpec::default() };
        let sim = SimJob::new(app, BatchRule::Fixed(batch), false);
        let view = JobView { spec: &spec, sim: &sim, app: &profiles.applications[app], alloc: &[] };
        let alloc = PolluxAfs::default().allocate(60, &[view], nodes).unwrap();
        let expected: Vec<u32> = (0..gpus).map(|g| g / 4).collect();
        assert_eq!(alloc, [expected], "{model} at batch {batch}");
    }
}

fn mean(jcts: &BTreeMap<String, f64>) -> f64 {
    jcts.values().sum::<f64>() / jcts.len() as f64
}

/// DeepBoot's per-job JCTs by workload (`tests/fixtures/afs-deepboot/jcts.csv`).
fn deepboot() -> BTreeMap<String, BTreeMap<String, f64>> {
    let path = format!("{}/tests/fixtures/afs-deepboot/jcts.csv", env!("CARGO_MANIFEST_DIR"));
    let mut by_workload: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    for line in std::fs::read_to_string(path).unwrap().lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        by_workload.entry(f[0].to_string()).or_default().insert(f[1].to_string(), f[2].parse().unwrap());
    }
    by_workload
}

/// Job for job DeepBoot's runs, on every workload where DeepBoot's run completes. Known gaps,
/// not traced further: imagenet-11 of workload-1 ends 2 s earlier, deepspeech2-98 of workload-5
/// 6 s earlier (the Optimus oracle has gaps of this kind where a step time comes from the mesh,
/// tests/it/pollux_original.rs).
#[test]
fn afs_reproduces_deepboots_runs_job_for_job() {
    let expected = deepboot();
    assert!(expected.contains_key("workload-1"), "{:?}", expected.keys());
    let mut differing = Vec::new();
    for (workload, jcts) in &expected {
        assert_eq!(jcts.len(), 160);
        let decision = Box::new(PolluxFrame::new(profiles(), PolluxAfs::default(), 60, 0.0));
        let seen = run(decision, &format!("pollux-workloads/pollux_workloads/{workload}.csv"));
        assert_eq!(seen.len(), 160);
        differing.extend(
            jcts.iter()
                .filter(|(job, jct)| seen[*job] != **jct)
                .map(|(job, jct)| (workload.as_str(), job.as_str(), *jct, seen[job])),
        );
    }
    assert_eq!(
        differing,
        [("workload-1", "imagenet-11", 49763.0, 49761.0), ("workload-5", "deepspeech2-98", 6740.0, 6734.0)]
    );
}

/// On each of the eight 1.0x workloads AFS's average JCT is below Tiresias+TunedJobs' (both at
/// the workload's batch sizes; AFS re-deals every GPU each minute, Tiresias holds the tuned
/// counts and queues): 0.66 h against 0.69 h on workload-1 up to 1.28 h against 1.52 h on
/// workload-7.
#[test]
fn afs_beats_tiresias_on_every_1x_workload() {
    for w in 1..=8 {
        let reference = format!("pollux-workloads/pollux_workloads/workload-{w}.csv");
        let afs = mean(&run(Box::new(PolluxFrame::new(profiles(), PolluxAfs::default(), 60, 0.0)), &reference));
        let tiresias =
            mean(&run(Box::new(PolluxFrame::new(profiles(), PolluxTiresias::default(), 60, 0.0)), &reference));
        assert!(afs < tiresias, "workload-{w}: AFS {afs} s, Tiresias {tiresias} s");
    }
}
