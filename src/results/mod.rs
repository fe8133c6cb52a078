//! Result tables: one Parquet file per run in each of `runs/`, `jobs/` and `timeline/` under the
//! experiment directory, so several processes can write disjoint runs with no merge step and
//! readers glob `results/<experiment>/runs/*.parquet`.

mod error;
pub mod export;
pub mod metric;
pub mod schema;
pub mod store;
mod tables;
mod trace_table;

pub use error::{ResultsError, ResultsErrorKind};
pub use tables::{
    JobsWriter, METADATA_RUN_KEY, METADATA_SPEC, METADATA_SPEC_SHA256, METADATA_VERSION, complete_run, publish_run,
    read_jobs, read_runs, read_timeline,
};
pub use trace_table::write_trace_parquet;

use crate::core::RunSummary;

/// Every grid key of one run, written as columns of all three tables.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunInfo {
    pub experiment: String,
    /// Stable file-name-safe key of the run: a readable prefix plus a hash of its resolved config.
    pub run_key: String,
    pub label: String,
    pub scheduler: String,
    pub placement: String,
    pub admission: String,
    /// The policy entry (scheduler, placement, admission with parameters) as JSON.
    pub policy_params: String,
    pub cluster: String,
    pub nodes: u32,
    pub total_gpus: u32,
    pub workload: String,
    /// Offered load in jobs/hour, for generated workloads.
    pub load: Option<f64>,
    pub seed: u64,
    pub round_seconds: f64,
}

/// Where the results came from; stored in every file's key-value metadata.
#[derive(Debug, Clone, PartialEq)]
pub struct Provenance {
    pub spec_yaml: String,
    /// Hex SHA-256 of `spec_yaml`; also a column of every table, so rows of two versions of a
    /// spec can be told apart.
    pub spec_sha256: String,
    /// [`crate::version::LONG_VERSION`] of the build that wrote the file; also a column.
    pub blox_version: String,
}

/// One row of the runs table as read back.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunRow {
    pub info: RunInfo,
    /// The `spec_sha256` column: which version of the spec the run was written under.
    pub spec_sha256: String,
    /// The `blox_version` column: the build that wrote it.
    pub blox_version: String,
    pub summary: RunSummary,
    pub wall_time_s: f64,
}
