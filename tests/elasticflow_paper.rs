//! ElasticFlow (ASPLOS'23) Figure 10 on blox's event-driven engine, job for job against the
//! original simulator's `job.csv` (re-run at HEAD into `../shared/traces/elasticflow/expected/`;
//! `docs/elasticflow-semantics.md` §0, §7).

use blox::core::ClusterSpec;
use blox::core::events::{EventConfig, EventEngine, EventPolicy};
use blox::core::{JobRecord, JobSpec, RunOutput};
use blox::policies::edf::Edf;
use blox::profiles::ThroughputTable;
use blox::trace::read_trace;
use blox::workload::LoadedTrace;
use blox::workload::elasticflow_generator::{ElasticflowGeneratorParams, job_stream};
use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::Arc;

fn config() -> EventConfig {
    EventConfig {
        cluster: ClusterSpec::uniform(16, 8),
        slot: 240.0,
        throughput: Arc::new(ThroughputTable::elasticflow_a100().clone()),
        record_timeline: true,
    }
}

/// `generate_trace.py --num_jobs=100 --lam=1500 --min_ddl=1.5 --seed=1` (`run_fig10.sh`).
fn figure_10_run(policy: Box<dyn EventPolicy>) -> RunOutput {
    let mut params = ElasticflowGeneratorParams::new(NonZeroUsize::new(100).unwrap(), 1500.0);
    params.min_ddl = 1.5;
    EventEngine::new(config(), policy, job_stream(&params, 1).unwrap()).unwrap().run().unwrap()
}

/// One row of the original's `job.csv`: job id -> (num_gpu, start, end, pending, ddl).
fn expected_rows(policy: &str) -> Vec<(u64, u32, f64, f64, f64, f64)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/traces/elasticflow/expected/fig10_head")
        .join(policy)
        .join("job.csv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let [id, gpus, start, end, pending, ddl] =
        ["job_id", "num_gpu", "start_time", "end_time", "pending_time", "ddl"].map(column);
    lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let num = |i: usize| f[i].parse::<f64>().unwrap();
            (f[id].parse().unwrap(), f[gpus].parse().unwrap(), num(start), num(end), num(pending), num(ddl))
        })
        .collect()
}

fn compare(policy: &str, out: &RunOutput) {
    let expected = expected_rows(policy);
    assert_eq!(expected.len(), 100);
    let mut mismatches = Vec::new();
    for &(id, gpus, start, end, pending, ddl) in &expected {
        let r: &JobRecord = out.jobs.iter().find(|r| r.id == id).unwrap();
        let got = (r.final_gpus, r.first_start, r.finish, r.first_start.map(|s| s - r.arrival), r.met_deadline);
        let want = (Some(gpus), Some(start), Some(end), Some(pending), Some(end <= ddl));
        if got != want {
            mismatches.push(format!("job {id}: got {got:?}, want {want:?}"));
        }
    }
    assert!(mismatches.is_empty(), "{} of 100 rows differ:\n{}", mismatches.len(), mismatches.join("\n"));
}

#[test]
fn edf_matches_the_original_job_for_job() {
    let out = figure_10_run(Box::new(Edf::default()));
    compare("edf", &out);
    let d = out.summary.deadlines;
    assert_eq!((d.accepted, d.declined, d.deadline_ratio), (92, 8, Some(0.92)));
}

#[test]
fn edf_on_the_shared_trace_file_matches_too() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/traces/elasticflow/artifact/generated/100jobs_1500lam.csv");
    let trace = read_trace(&path, None).unwrap();
    let loaded = LoadedTrace { source: path, format: trace.format, jobs: trace.jobs, report: trace.report };
    let jobs = loaded.into_job_stream().unwrap();
    let out = EventEngine::new(config(), Box::new(Edf::default()), jobs).unwrap().run().unwrap();
    compare("edf", &out);
}

#[test]
fn a_job_without_a_curve_is_an_error_naming_it() {
    let job = JobSpec {
        id: 7,
        gpus: 1,
        work: 10.0,
        model: Some("bert".into()),
        batch_size: Some(3),
        iterations: Some(100.0),
        deadline: Some(100.0),
        ..JobSpec::default()
    };
    let error = EventEngine::new(config(), Box::new(Edf::default()), [job].into_iter()).err().unwrap();
    assert_eq!(
        error.to_string(),
        "job 7: the throughput table `elasticflow-a100.csv` has no curve for bert at global batch 3"
    );
}
