//! The Pollux family's test inputs as the artifact ships them, through the data layer: the
//! profiles, the workload CSVs, and a run on the artifact's cluster (16 nodes of 4 GPUs, a
//! decision every 60 s) that names each job's JCT.

use super::{dataset_file, dataset_files};
use blox::core::engine::{Engine, Policies, RunConfig, Tracking};
use blox::core::{ClusterSpec, JobSpec, RoundPolicy};
use blox::policies::pollux::profile::Profiles;
use blox::policies::rounds::admission::accept_all::AcceptAll;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// The `pollux-profiles` dataset, parsed once per test binary.
pub fn profiles() -> Arc<Profiles> {
    static PROFILES: OnceLock<Arc<Profiles>> = OnceLock::new();
    PROFILES
        .get_or_init(|| {
            let files: Vec<(&str, Vec<u8>)> = dataset_files("pollux-profiles", "traces/")
                .into_iter()
                .map(|(path, local)| (path, std::fs::read(&local).unwrap()))
                .collect();
            Arc::new(Profiles::parse(files.iter().map(|(p, b)| (*p, b.as_slice()))).unwrap())
        })
        .clone()
}

/// A job of a workload CSV as the artifact writes it: name, submission time, application,
/// replicas, batch size.
pub type WorkloadRow = (String, f64, String, u32, u32);

/// The rows of a Pollux workload CSV (`name,time,application,num_replicas,batch_size`), in order.
pub fn workload_rows(reference: &str) -> Vec<WorkloadRow> {
    let text = std::fs::read_to_string(dataset_file(reference)).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("name,time,application,num_replicas,batch_size"), "{reference}");
    lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            (f[0].to_string(), f[1].parse().unwrap(), f[2].to_string(), f[3].parse().unwrap(), f[4].parse().unwrap())
        })
        .collect()
}

/// The jobs of a Pollux workload CSV by row, with their names.
pub fn workload(reference: &str) -> Vec<(String, JobSpec)> {
    workload_rows(reference)
        .into_iter()
        .enumerate()
        .map(|(i, (name, time, application, replicas, batch))| {
            let spec = JobSpec {
                id: i as u64,
                arrival: time,
                submitted: time,
                gpus: replicas,
                model: Some(application),
                batch_size: Some(batch),
                ..JobSpec::default()
            };
            (name, spec)
        })
        .collect()
}

/// Every job's JCT by name, on the artifact's 16 x 4 GPUs deciding every 60 s.
pub fn run(decision: Box<dyn RoundPolicy>, reference: &str) -> BTreeMap<String, f64> {
    let jobs = workload(reference);
    let names: Vec<String> = jobs.iter().map(|(n, _)| n.clone()).collect();
    let config = RunConfig {
        cluster: ClusterSpec::uniform(16, 4),
        round_seconds: 60.0,
        tracking: Tracking::All,
        horizon: None,
        starvation_guard: None,
        record_timeline: false,
    };
    let policies = Policies { admission: Box::new(AcceptAll), decision, overhead: None };
    let out = Engine::new(config, policies, jobs.into_iter().map(|(_, s)| s)).unwrap().run().unwrap();
    out.jobs.iter().map(|r| (names[r.id as usize].clone(), r.jct().expect("every job finishes"))).collect()
}
