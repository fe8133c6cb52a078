//! ElasticFlow's (ASPLOS'23) `gandiva` baseline on blox's event-driven engine, job for job
//! against the original simulator's `job.csv` (`../shared/traces/elasticflow/expected/`; the
//! Figure 10 one is byte-identical to the paper's own `artifact/logs_figure10/gandiva`;
//! `docs/elasticflow-semantics.md` §9).

use blox::core::ClusterSpec;
use blox::core::events::{EventConfig, EventEngine};
use blox::core::{JobRecord, RunOutput};
use blox::policies::gandiva::Gandiva;
use blox::profiles::ThroughputTable;
use blox::trace::read_trace;
use blox::workload::LoadedTrace;
use blox::workload::elasticflow_generator::{ElasticflowGeneratorParams, job_stream};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn shared(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces/elasticflow").join(path)
}

/// Figure 10: `generate_trace.py --num_jobs=100 --lam=1500 --min_ddl=1.5 --seed=1` on 16 x 8
/// A100, slot 240 s (`run_fig10.sh`).
fn figure_10_run() -> RunOutput {
    let config = EventConfig {
        cluster: ClusterSpec::uniform(16, 8),
        slot: 240.0,
        throughput: Arc::new(ThroughputTable::elasticflow_a100().clone()),
        record_timeline: true,
    };
    let mut params = ElasticflowGeneratorParams::new(NonZeroUsize::new(100).unwrap(), 1500.0);
    params.min_ddl = 1.5;
    EventEngine::new(config, Box::new(Gandiva::default()), job_stream(&params, 1).unwrap()).unwrap().run().unwrap()
}

/// Figure 8a: `elasticVpollux_e.csv` on 16 x 4 T4, slot 60 s (`run_fig8a.sh`).
fn figure_8a_run() -> RunOutput {
    let path = shared("artifact/traces/elasticVpollux_e.csv");
    let trace = read_trace(&path, None).unwrap();
    let loaded = LoadedTrace { source: path, format: trace.format, jobs: trace.jobs, report: trace.report };
    let config = EventConfig {
        cluster: ClusterSpec::uniform(16, 4),
        slot: 60.0,
        throughput: Arc::new(ThroughputTable::elasticflow_t4().clone()),
        record_timeline: false,
    };
    let jobs = loaded.into_job_stream().unwrap();
    EventEngine::new(config, Box::new(Gandiva::default()), jobs).unwrap().run().unwrap()
}

/// One row of an original `job.csv`: (job id, num_gpu, submit, start, end, ddl, pending,
/// preempt).
type Row = (u64, u32, f64, f64, f64, f64, f64, u32);

fn expected_rows(log: &str) -> Vec<Row> {
    let path = shared(log).join("job.csv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let [id, gpus, submit, start, end, ddl, pending, preempt] =
        ["job_id", "num_gpu", "submit_time", "start_time", "end_time", "ddl", "pending_time", "preempt"].map(column);
    lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let num = |i: usize| f[i].parse::<f64>().unwrap();
            let (i, g, p) = (f[id].parse().unwrap(), f[gpus].parse().unwrap(), f[preempt].parse().unwrap());
            (i, g, num(submit), num(start), num(end), num(ddl), num(pending), p)
        })
        .collect()
}

/// Every row of `log` (`rows` of them) against `out`: GPUs, start, end, deadline met, no
/// preemption. Gandiva's original sets `pending_time` only for jobs that started from the waiting
/// list (0 for jobs placed on arrival, even when their arrival was coalesced later), so a nonzero
/// one must equal start minus submission.
fn compare_rows(log: &str, rows: usize, out: &RunOutput) {
    let expected = expected_rows(log);
    assert_eq!(expected.len(), rows);
    let mut mismatches = Vec::new();
    for &(id, gpus, submit, start, end, ddl, pending, preempt) in &expected {
        let r: &JobRecord = out.jobs.iter().find(|r| r.id == id).unwrap();
        assert_eq!(r.arrival, submit, "job {id}");
        assert!(pending == 0.0 || pending == start - submit, "job {id}: pending {pending}");
        let got = (r.final_gpus, r.first_start, r.finish, r.met_deadline, r.preemptions);
        let want = (Some(gpus), Some(start), Some(end), Some(end <= ddl), preempt);
        if got != want {
            mismatches.push(format!("job {id}: got {got:?}, want {want:?}"));
        }
    }
    assert!(mismatches.is_empty(), "{} of {rows} rows differ:\n{}", mismatches.len(), mismatches.join("\n"));
}

#[test]
fn gandiva_matches_figure_10_job_for_job() {
    let out = figure_10_run();
    compare_rows("expected/fig10_head/gandiva", 100, &out);
    let d = out.summary.deadlines;
    assert_eq!((d.accepted, d.declined, d.deadline_ratio), (79, 21, Some(0.79)));
}

/// The paper's own Figure 10 log is the same file: the gandiva code did not change after it.
#[test]
fn gandiva_matches_the_papers_figure_10_log() {
    compare_rows("artifact/logs_figure10/gandiva", 100, &figure_10_run());
}

#[test]
fn gandiva_matches_figure_8a_job_for_job() {
    let out = figure_8a_run();
    compare_rows("expected/fig8a_head/gandiva", 195, &out);
    let d = out.summary.deadlines;
    assert_eq!((d.accepted, d.declined), (18, 177));
}

/// A trace under `../shared/traces/elasticflow/` on `nodes` x `gpn` A100 with `slot`: (accepted,
/// declined).
fn ratio_run(trace: &str, nodes: u32, gpn: u32, slot: f64) -> (u64, u64) {
    let path = shared(trace);
    let trace = read_trace(&path, None).unwrap();
    let loaded = LoadedTrace { source: path, format: trace.format, jobs: trace.jobs, report: trace.report };
    let config = EventConfig {
        cluster: ClusterSpec::uniform(nodes, gpn),
        slot,
        throughput: Arc::new(ThroughputTable::elasticflow_a100().clone()),
        record_timeline: false,
    };
    let jobs = loaded.into_job_stream().unwrap();
    let out = EventEngine::new(config, Box::new(Gandiva::default()), jobs).unwrap().run().unwrap();
    (out.summary.deadlines.accepted, out.summary.deadlines.declined)
}

/// The other runs of the original recorded in `expected/results.csv` (no per-job logs kept).
#[test]
fn gandiva_matches_the_other_recorded_ratios() {
    assert_eq!(ratio_run("artifact/traces/resnet_cifar_trace.csv", 1, 8, 240.0), (3, 2));
    assert_eq!(ratio_run("itp-generated/195job.csv", 16, 8, 240.0), (47, 148));
    assert_eq!(ratio_run("itp-generated/cluster10.csv", 32, 8, 60.0), (86, 174));
    assert_eq!(ratio_run("artifact/traces/philly_103959.csv", 32, 8, 60.0), (362, 514));
}
