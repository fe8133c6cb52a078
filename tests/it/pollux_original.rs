//! blox's Pollux family against the Pollux artifact's simulator (github.com/petuum/adaptdl,
//! branch osdi21-artifact @ c793c70, `simulator/`): the job model's values as the original's
//! functions compute them (`docs/pollux-semantics.md` Appendix B, and
//! `tests/fixtures/pollux-original/throughput-queries.txt`), and the deterministic baselines'
//! per-job JCTs as published (`tests/fixtures/pollux-original/published-jcts.csv`, from the
//! artifact's `results-jobload/*/summary.json`). Profiles and workloads come through the data
//! layer (datasets `pollux-profiles`, `pollux-workloads`, `pollux-workloads-load`).

use crate::common::pollux::{profiles, run};

use blox::policies::pollux::frame::PolluxFrame;
use blox::policies::pollux::optimus::{PolluxOptimus, oracle_step_time};
use blox::policies::pollux::profile::Application;
use blox::policies::pollux::tiresias::PolluxTiresias;
use std::collections::BTreeMap;

fn app(name: &str) -> Application {
    let profiles = profiles();
    profiles.applications[profiles.index(name).unwrap()].clone()
}

#[track_caller]
fn assert_close(seen: f64, expected: f64, relative: f64) {
    assert!(
        (seen - expected).abs() <= relative * expected.abs(),
        "{seen} vs {expected} (relative {})",
        (seen - expected).abs() / expected.abs()
    );
}

/// Appendix B.1: measured placements to the bit (scipy's `interp1d` formula), interpolated
/// ones on the exported triangulation to a few units in the last place.
#[test]
fn step_times_are_the_originals() {
    let exact = [
        ("cifar10", vec![1], 128, 0.10311532334277503, 0.0005253355733658137),
        ("cifar10", vec![4], 64, 0.06841483116149903, 0.007376121616363525),
        ("cifar10", vec![1, 3], 100, 0.15274554742010013, 0.07143166411550422),
        ("cifar10", vec![2, 2], 342, 0.27429511097242243, 0.022006422864266167),
        ("cifar10", vec![4, 2], 342, 0.2687774138630561, 0.02007606602389857),
        ("bert", vec![4, 4, 4], 11, 1.6889024674892426, 0.8779327430725098),
        ("deepspeech2", vec![4, 4], 40, 1.546311467885971, 0.3565189418792725),
        ("yolov3", vec![4], 8, 0.5009251087903976, 0.11896183347702027),
        ("ncf", vec![1], 16384, 0.014968737878396702, 0.00033913164137045604),
    ];
    for (name, placement, b, step, sync) in exact {
        assert_eq!(app(name).throughput(&placement, b), Some((step, sync)), "{name} {placement:?} {b}");
    }
    let interpolated = [
        ("cifar10", vec![4, 4, 4, 4, 4], 64, 0.19489083290100095, 0.13465795822143553),
        ("cifar10", vec![3, 4, 4, 4, 4], 64, 0.18827471733093262, 0.1267217767715454),
        ("cifar10", vec![4; 8], 256, 0.2488704878489177, 0.04955488354201544),
        ("imagenet", vec![4; 6], 134, 0.7453321422139805, 0.05992654426892598),
        ("imagenet", vec![4; 8], 200, 1.0932517528533936, 0.0950473083496094),
    ];
    for (name, placement, b, step, sync) in interpolated {
        let (s, y) = app(name).throughput(&placement, b).unwrap();
        assert_close(s, step, 1e-13);
        assert_close(y, sync, 1e-12);
    }
}

/// Appendix B.2: gradient statistics, gains and epoch thresholds.
#[test]
fn statistical_efficiency_is_the_originals() {
    let cases = [
        ("cifar10", 128.0, 0, 8.947307535897327, 5.066593295150893, 1.0),
        ("cifar10", 2052.0, 0, 10.740173318740533, 5.498315492126224, 1.4651512882631226),
        ("cifar10", 2052.0, 50, 0.023807770833201868, 3.329024347722801, 14.485190400911408),
        ("imagenet", 3200.0, 10, 0.1379877682437976, 6.007767101537402, 11.968988303727446),
        ("bert", 384.0, 1, 43032304393.29889, 45868579275033.31, 31.096465402109605),
    ];
    for (name, batch, epoch, sqr, var, gain) in cases {
        let a = app(name);
        let (s, v) = a.grad_stats(batch, epoch).unwrap();
        // The CSV's decimal digits parse to these doubles in Python and in Rust alike.
        assert_close(s, sqr, 1e-15);
        assert_close(v, var, 1e-15);
        assert_close(a.gain(batch, s, v), gain, 1e-15);
    }
    let thresholds = [
        ("cifar10", 390.7143859664223, 39062.908166595334),
        ("ncf", 19417.594235104003, 194174.0),
        ("imagenet", 6405.927175217261, 576525.594895604),
        ("deepspeech2", 356.72736536979966, 28536.0),
        ("yolov3", 2068.9729098930034, 103443.97796253164),
        ("bert", 7387.0, 14774.0),
    ];
    for (name, first, last) in thresholds {
        let a = app(name);
        assert_eq!((a.threshold(1), a.threshold(a.max_epochs)), (first, last), "{name}");
    }
    let a = app("cifar10");
    assert_eq!((a.init_batch, a.max_batch, a.min_local, a.max_local), (128, 4096, 32, 1024));
    assert_eq!(app("yolov3").max_local, 8, "the simulator's override of the profiled 16");
    assert_eq!((a.iteration(2048.0, 99), a.iteration(2048.0, 0)), (Some(3178.0), Some(112.0)));
}

/// §3.4 and Appendix B.4: the fixed-batch rule (effective 2052 for 2048 on 6 GPUs; one extra
/// micro-step alone above B0) and the Optimus oracle's packed step times.
#[test]
fn fixed_batches_and_the_optimus_oracle_are_the_originals() {
    let a = app("cifar10");
    let plan = a.fixed_batch_plan(2048, 6, false);
    assert_eq!((plan.atomic_bsz, plan.accum_steps), (342, 0));
    let plan = a.fixed_batch_plan(2048, 1, false);
    assert_eq!((plan.atomic_bsz, plan.accum_steps), (1024, 1));
    let plan = a.fixed_batch_plan(128, 1, false);
    assert_eq!((plan.atomic_bsz, plan.accum_steps), (128, 0));
    let plan = app("ncf").fixed_batch_plan(32768, 1, false);
    assert_eq!((plan.atomic_bsz, plan.accum_steps), (16384, 1));
    let oracle = [
        ("cifar10", 2048, 1, 1.4036381702840328),
        ("cifar10", 2048, 2, 0.8379724740982055),
        ("cifar10", 2048, 6, 0.2687774138630561),
        ("cifar10", 2048, 8, 0.2599324620564779),
        ("cifar10", 2048, 16, 0.1544016486720035),
        ("cifar10", 2048, 64, 0.2692412376403809),
        ("cifar10", 4096, 1, 2.806729454165697),
        ("cifar10", 4096, 12, 0.28443271259091935),
        ("cifar10", 4096, 16, 0.22349417114257814),
        ("imagenet", 6400, 32, 1.0932517528533936),
        ("imagenet", 6400, 48, 0.7875689635674159),
    ];
    for (name, batch, replicas, expected) in oracle {
        assert_close(oracle_step_time(&app(name), batch, replicas).unwrap(), expected, 1e-13);
    }
}

fn published(policy: &str, load: &str, workload: &str) -> BTreeMap<String, f64> {
    let path = format!("{}/tests/fixtures/pollux-original/published-jcts.csv", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            (f[0] == policy && f[1] == load && f[2] == workload).then(|| (f[3].to_string(), f[4].parse().unwrap()))
        })
        .collect()
}

#[track_caller]
fn assert_same_jcts(seen: &BTreeMap<String, f64>, expected: &BTreeMap<String, f64>) {
    let differing: Vec<_> = expected.iter().filter(|(job, jct)| seen.get(*job) != Some(jct)).collect();
    assert!(
        differing.is_empty(),
        "{} of {} JCTs differ, first: {:?}",
        differing.len(),
        expected.len(),
        differing.iter().take(5).map(|(j, e)| (j, e, seen.get(*j))).collect::<Vec<_>>()
    );
    assert_eq!(seen.len(), expected.len());
}

#[test]
fn tiresias_reproduces_published_jcts_job_for_job() {
    let decision = Box::new(PolluxFrame::new(profiles(), PolluxTiresias::default(), 60, 0.0));
    let seen = run(decision, "pollux-workloads/pollux_workloads/workload-6.csv");
    let expected = published("tiresias", "1.0", "workload-6");
    assert_eq!(expected.len(), 160);
    assert_same_jcts(&seen, &expected);
    assert_eq!(seen.values().sum::<f64>() / 160.0, 3469.69375, "the simulator README's workload-6 average");
}

#[test]
fn optimus_reproduces_published_jcts_job_for_job() {
    let decision = Box::new(PolluxFrame::new(profiles(), PolluxOptimus::default(), 60, 0.0));
    let seen = run(decision, "pollux-workloads/pollux_workloads/workload-6.csv");
    let expected = published("optimus", "1.0", "workload-6");
    assert_eq!(seen.len(), expected.len());
    // Known gap: on a query lying on a face shared by several tetrahedra of a degenerate part
    // of the mesh, scipy's directed walk picks another tetrahedron than blox's first-match scan
    // (e.g. deepspeech2 at (7 nodes, 8 GPUs, 52): scipy's simplex 657), which moves two imagenet
    // jobs by tens of seconds. Every other job is equal.
    let differing: Vec<&String> = expected.keys().filter(|job| seen.get(*job) != expected.get(*job)).collect();
    assert_eq!(differing, ["imagenet-137", "imagenet-81"]);
}
