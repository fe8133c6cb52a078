//! Shared harness of the ElasticFlow reproduction tests: the figures' runs on the event engine
//! and the original simulator's `job.csv` logs under `../shared/traces/elasticflow/`.

#![allow(dead_code)] // each test binary uses part of it

use blox::core::events::{EventConfig, EventEngine, EventPolicy};
use blox::core::{ClusterSpec, JobRecord, RunOutput};
use blox::profiles::ThroughputTable;
use blox::trace::read_trace;
use blox::workload::LoadedTrace;
use blox::workload::elasticflow_generator::{ElasticflowGeneratorParams, job_stream};
use std::fmt::Debug;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A file of the shared ElasticFlow fixtures.
pub fn shared(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces/elasticflow").join(path)
}

/// An event configuration on `nodes` x `gpus_per_node` GPUs with `table`'s throughputs.
pub fn config(nodes: u32, gpus_per_node: u32, slot: f64, table: &ThroughputTable) -> EventConfig {
    EventConfig {
        cluster: ClusterSpec::uniform(nodes, gpus_per_node),
        slot,
        throughput: Arc::new(table.clone()),
        record_timeline: true,
    }
}

/// Figure 10: `generate_trace.py --num_jobs=100 --lam=1500 --min_ddl=1.5 --seed=1` on 16 x 8
/// A100, slot 240 s (`run_fig10.sh`).
pub fn figure_10_run(policy: Box<dyn EventPolicy>) -> RunOutput {
    let mut params = ElasticflowGeneratorParams::new(NonZeroUsize::new(100).unwrap(), 1500.0);
    params.min_ddl = 1.5;
    let config = config(16, 8, 240.0, ThroughputTable::elasticflow_a100());
    EventEngine::new(config, policy, job_stream(&params, 1).unwrap()).unwrap().run().unwrap()
}

/// A shared trace file run on `config`.
pub fn trace_run(trace: &str, config: EventConfig, policy: Box<dyn EventPolicy>) -> RunOutput {
    let path = shared(trace);
    let read = read_trace(&path, None).unwrap();
    let loaded = LoadedTrace { source: path, format: read.format, jobs: read.jobs, report: read.report };
    EventEngine::new(config, policy, loaded.into_job_stream().unwrap()).unwrap().run().unwrap()
}

/// Figure 8a: `elasticVpollux_e.csv` on 16 x 4 T4, slot 60 s (`run_fig8a.sh`).
pub fn figure_8a_run(policy: Box<dyn EventPolicy>) -> RunOutput {
    trace_run("artifact/traces/elasticVpollux_e.csv", config(16, 4, 60.0, ThroughputTable::elasticflow_t4()), policy)
}

/// One row of an original `job.csv`, read by column name.
pub struct LogRow {
    header: Arc<Vec<String>>,
    fields: Vec<String>,
}

impl LogRow {
    fn field(&self, column: &str) -> &str {
        let i = self.header.iter().position(|h| h == column).unwrap_or_else(|| panic!("no column {column}"));
        &self.fields[i]
    }

    /// A numeric column (Python writes some as `9610.0`).
    pub fn num(&self, column: &str) -> f64 {
        self.field(column).parse().unwrap_or_else(|e| panic!("{column}: {e}"))
    }

    pub fn id(&self) -> u64 {
        self.num("job_id") as u64
    }

    pub fn int(&self, column: &str) -> u32 {
        self.num(column) as u32
    }
}

/// The rows of `<log>/job.csv` (a directory under the shared ElasticFlow fixtures), in order.
pub fn log_rows(log: &str) -> Vec<LogRow> {
    let path = shared(log).join("job.csv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header = Arc::new(lines.next().unwrap().split(',').map(str::to_string).collect::<Vec<_>>());
    lines.map(|line| LogRow { header: header.clone(), fields: line.split(',').map(str::to_string).collect() }).collect()
}

/// Every row of `<log>/job.csv` (`rows` of them) against blox's record of the same job: `pair`
/// gives (blox's values, the log's values) of the fields a test compares. All differing rows are
/// reported together.
pub fn compare_jobs<T: PartialEq + Debug>(
    log: &str,
    rows: usize,
    out: &RunOutput,
    pair: impl Fn(&LogRow, &JobRecord) -> (T, T),
) {
    let expected = log_rows(log);
    assert_eq!(expected.len(), rows, "{log}: rows");
    let mut mismatches = Vec::new();
    for row in &expected {
        let id = row.id();
        let record = out.jobs.iter().find(|r| r.id == id).unwrap_or_else(|| panic!("job {id} is not in the run"));
        let (got, want) = pair(row, record);
        if got != want {
            mismatches.push(format!("job {id}: got {got:?}, want {want:?}"));
        }
    }
    assert!(mismatches.is_empty(), "{} of {rows} rows differ:\n{}", mismatches.len(), mismatches.join("\n"));
}
