//! Pollux's workload generator against the artifact's own workloads: `workload.py` made every
//! shipped file (`generate(160 x load, start=2, duration=8, seed=i)` for `workload-i.csv`, and the
//! realistic variant with its two commented lines enabled), so `pollux-generator` at seed `i` must
//! give every file's jobs in order: arrival, application, GPUs and batch size, and the names they
//! imply. The Philly table, the profiles and the workloads come through the data layer.

use crate::common::pollux::{WorkloadRow, workload_rows};

use blox::workload::pollux_generator::{Configurations, PolluxGeneratorParams};
use blox::workload::{WorkloadContext, WorkloadSpec};
use std::path::Path;

fn generated(num_jobs: u32, seed: u64, configurations: Configurations) -> Vec<WorkloadRow> {
    let params =
        PolluxGeneratorParams { num_jobs, start_hour: 2, hours: 8, seed: Some(seed), configurations, label: None };
    let context = WorkloadContext { load: None, seed: 99, base_dir: Path::new("."), cluster_gpus: 64 };
    let jobs = WorkloadSpec::PolluxGenerator(params).jobs(&context).unwrap();
    jobs.enumerate()
        .map(|(rank, job)| {
            let model = job.model.unwrap();
            (format!("{model}-{rank}"), job.arrival, model, job.gpus, job.batch_size.unwrap())
        })
        .collect()
}

#[test]
fn every_shipped_workload_is_regenerated_job_for_job() {
    let variants = [
        ("pollux-workloads/pollux_workloads", 160, Configurations::Tuned),
        ("pollux-workloads-load/workloads-0.5", 80, Configurations::Tuned),
        ("pollux-workloads-load/workloads-1.5", 240, Configurations::Tuned),
        ("pollux-workloads-load/workloads-2.0", 320, Configurations::Tuned),
        ("pollux-workloads-load/workloads-realistic", 160, Configurations::Realistic),
    ];
    for (folder, num_jobs, configurations) in variants {
        for seed in 1..=8 {
            let reference = format!("{folder}/workload-{seed}.csv");
            assert_eq!(generated(num_jobs, seed, configurations), workload_rows(&reference), "{reference}");
        }
    }
}

/// The generator's own seed, not the grid's, decides the jobs when it is given; without it the
/// grid's seed does; and the tuned and realistic variants share names and times (every draw is
/// the same), differing in GPUs.
#[test]
fn seeds_and_variants_behave_as_the_original() {
    let tuned = generated(160, 3, Configurations::Tuned);
    let realistic = generated(160, 3, Configurations::Realistic);
    let names_times = |rows: &[WorkloadRow]| rows.iter().map(|r| (r.0.clone(), r.1)).collect::<Vec<_>>();
    assert_eq!(names_times(&tuned), names_times(&realistic));
    assert_ne!(tuned, realistic);
    let params = PolluxGeneratorParams {
        num_jobs: 160,
        start_hour: 2,
        hours: 8,
        seed: None,
        configurations: Configurations::Tuned,
        label: None,
    };
    let context = WorkloadContext { load: None, seed: 3, base_dir: Path::new("."), cluster_gpus: 64 };
    let from_grid: Vec<f64> =
        WorkloadSpec::PolluxGenerator(params).jobs(&context).unwrap().map(|j| j.arrival).collect();
    assert_eq!(from_grid, tuned.iter().map(|r| r.1).collect::<Vec<_>>());
}
