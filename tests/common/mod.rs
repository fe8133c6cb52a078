//! Shared test harness: public datasets through blox's data layer ([`data`]), and the ElasticFlow
//! reproduction tests' runs on the event engine with the original simulator's `job.csv` logs (the
//! re-run's as project fixtures under `tests/fixtures/elasticflow-original/`, the paper's own
//! through the data layer).

#![allow(dead_code)] // each test binary uses part of it

pub mod browser;
mod cli;
mod data;
pub mod pollux;

#[allow(unused_imports)] // only the CLI tests run the binary
pub use cli::*;
pub use data::*;

use blox::core::events::{EventConfig, EventEngine, EventPolicy};
use blox::core::{ClusterSpec, JobRecord, RunOutput};
use blox::profiles::ThroughputTable;
use blox::trace::read_trace;
use blox::workload::LoadedTrace;
use blox::workload::elasticflow_generator::{ElasticflowGeneratorParams, generate, job_stream, write_csv};
use std::fmt::Debug;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An event configuration on `nodes` x `gpus_per_node` GPUs with `table`'s throughputs.
pub fn config(nodes: u32, gpus_per_node: u32, slot: f64, table: &ThroughputTable) -> EventConfig {
    EventConfig {
        cluster: ClusterSpec::uniform(nodes, gpus_per_node),
        slot,
        throughput: Arc::new(table.clone()),
        record_timeline: true,
    }
}

/// Figure 10's generator parameters: `generate_trace.py --num_jobs=100 --lam=1500 --min_ddl=1.5`
/// (`run_fig10.sh`, seed 1).
pub fn figure_10_params() -> ElasticflowGeneratorParams {
    let mut params = ElasticflowGeneratorParams::new(NonZeroUsize::new(100).unwrap(), 1500.0);
    params.min_ddl = 1.5;
    params
}

/// The Figure 10 trace as blox's generator writes it (seed 1).
pub fn figure_10_csv() -> Vec<u8> {
    let jobs = generate(&figure_10_params(), 1, ThroughputTable::elasticflow_a100()).unwrap();
    let mut written = Vec::new();
    write_csv(&mut written, &jobs).unwrap();
    written
}

/// Figure 10: the generated trace (seed 1) on 16 x 8 A100, slot 240 s (`run_fig10.sh`).
pub fn figure_10_run(policy: Box<dyn EventPolicy>) -> RunOutput {
    let config = config(16, 8, 240.0, ThroughputTable::elasticflow_a100());
    EventEngine::new(config, policy, job_stream(&figure_10_params(), 1).unwrap()).unwrap().run().unwrap()
}

/// The dataset trace file `trace` (`DATASET/PATH`) run on `config`.
pub fn trace_run(trace: &str, config: EventConfig, policy: Box<dyn EventPolicy>) -> RunOutput {
    trace_file_run(dataset_file(trace), config, policy)
}

/// The trace file at `path` run on `config`.
pub fn trace_file_run(path: PathBuf, config: EventConfig, policy: Box<dyn EventPolicy>) -> RunOutput {
    let read = read_trace(&path, None).unwrap();
    let loaded = LoadedTrace { source: path, format: read.format, jobs: read.jobs, report: read.report };
    EventEngine::new(config, policy, loaded.into_job_stream().unwrap()).unwrap().run().unwrap()
}

/// Figure 8a: `elasticVpollux_e.csv` on 16 x 4 T4, slot 60 s (`run_fig8a.sh`).
pub fn figure_8a_run(policy: Box<dyn EventPolicy>) -> RunOutput {
    trace_run(
        "elasticflow-artifact/artifact/traces/elasticVpollux_e.csv",
        config(16, 4, 60.0, ThroughputTable::elasticflow_t4()),
        policy,
    )
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

/// An original `job.csv`: where it comes from (for messages) and its rows in file order.
pub struct Log {
    pub name: String,
    pub rows: Vec<LogRow>,
}

/// The original simulator's re-run log of `policy` (its `--schedule` name) in `fig`
/// (`fig10_head`, `fig8a_head`, or a contended Themis run such as `fig10_n4g8`): the project fixture
/// `tests/fixtures/elasticflow-original/<fig>/<policy>.csv` (the compared columns of its
/// `job.csv`; provenance in that folder's README).
pub fn head_log(fig: &str, policy: &str) -> Log {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/elasticflow-original").join(fig);
    read_log(&path.join(format!("{policy}.csv")))
}

/// The paper's own Figure 10 log of `policy`, as checked in upstream
/// (`plot_figure/logs/figure10/<policy>/job.csv`), fetched through the data layer.
pub fn paper_log(policy: &str) -> Log {
    read_log(&dataset_file(&format!("elasticflow-artifact/artifact/logs_figure10/{policy}/job.csv")))
}

fn read_log(path: &Path) -> Log {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header = Arc::new(lines.next().unwrap().split(',').map(str::to_string).collect::<Vec<_>>());
    let rows = lines
        .map(|line| LogRow { header: header.clone(), fields: line.split(',').map(str::to_string).collect() })
        .collect();
    Log { name: path.display().to_string(), rows }
}

/// Every row of `log` (`rows` of them) against blox's record of the same job: `pair` gives
/// (blox's values, the log's values) of the fields a test compares. All differing rows are
/// reported together.
pub fn compare_jobs<T: PartialEq + Debug>(
    log: &Log,
    rows: usize,
    out: &RunOutput,
    pair: impl Fn(&LogRow, &JobRecord) -> (T, T),
) {
    assert_eq!(log.rows.len(), rows, "{}: rows", log.name);
    let mut mismatches = Vec::new();
    for row in &log.rows {
        let id = row.id();
        let record = out.jobs.iter().find(|r| r.id == id).unwrap_or_else(|| panic!("job {id} is not in the run"));
        let (got, want) = pair(row, record);
        if got != want {
            mismatches.push(format!("job {id}: got {got:?}, want {want:?}"));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{}: {} of {rows} rows differ:\n{}",
        log.name,
        mismatches.len(),
        mismatches.join("\n")
    );
}
