//! Result tables: one Parquet file per run in each of `runs/`, `jobs/` and `timeline/` under the
//! experiment directory, so several processes can write disjoint runs with no merge step and
//! readers glob `results/<experiment>/runs/*.parquet`.

pub mod compare;
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
    read_arrived_axis, read_attempts, read_jobs, read_runs, read_timeline,
};
pub use trace_table::write_trace_parquet;

use crate::core::RunSummary;
use std::path::Path;

/// Where one run of a grid stands, as `blox status` and `blox report` show it.
#[derive(Debug)]
pub enum RunState {
    /// Complete: its runs file reads back as the run and its other tables match it.
    Done(Box<RunRow>),
    /// Locked by another process, which is running it now.
    Running,
    /// Its files exist but do not make a complete run (the error says which and why); the next
    /// `blox run` sets them aside and redoes it.
    Damaged(String),
    /// Its last attempt failed, for this reason.
    Failed(String),
    /// Not run yet.
    Missing,
}

/// The state of the run `run_key` of the experiment in `experiment_dir`.
pub fn run_state(experiment_dir: &Path, run_key: &str) -> RunState {
    match complete_run(experiment_dir, run_key) {
        Ok(Some(row)) => RunState::Done(Box::new(row)),
        _ if store::is_locked_elsewhere(experiment_dir, run_key) => RunState::Running,
        Err(e) => RunState::Damaged(e.to_string()),
        Ok(None) => store::failure(experiment_dir, run_key).map_or(RunState::Missing, RunState::Failed),
    }
}

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
    /// The engine's decision period in seconds, column `round_s` of every table: `engine.round_s`
    /// in rounds and live mode (each round lasts this long), `engine.slot_s` in events mode
    /// (decisions at arrivals and planned ends, at most one per slot). One name for both, so that
    /// tables of the two engines concatenate and filter alike.
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

/// One attempt of a job in a live run (`attempts/<run_key>.parquet`): where and when it ran, how
/// it ended and what it reported. Times are seconds since the run's start on the scheduler's
/// clock, like the other tables' simulated times.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AttemptRow {
    pub job_id: u64,
    pub attempt: u32,
    /// The agent's node name.
    pub node: String,
    /// The node's slot ids it ran on (CUDA indices), comma-separated.
    pub slots: String,
    /// When the decision to launch it was made.
    pub launched: f64,
    /// When the agent reported the process started (after the slots were free).
    pub started: Option<f64>,
    /// When it first reported progress.
    pub first_progress: Option<f64>,
    /// When the decision to preempt it was made.
    pub preempted: Option<f64>,
    /// When its end was learnt.
    pub ended: Option<f64>,
    /// How it ended: `finished`, `preempted`, `resized` (stopped to restart at another GPU count:
    /// live event policies), `failed` (a nonzero exit or foreign signal), `failed_to_start`,
    /// `lost` (its node's agent went away) or `stopped_at_end`.
    pub end: String,
    pub exit_code: Option<u32>,
    pub signal: Option<u32>,
    /// Iterations the job had reported before this attempt, and at its end.
    pub iterations_before: u64,
    pub iterations_after: u64,
    /// The last 4 KiB of its stderr, or why it did not start.
    pub stderr_tail: String,
}

impl AttemptRow {
    /// Seconds from the launch decision to the first reported progress: what the simulator's
    /// overhead model stands for (waiting for the slots, process start, restoring a checkpoint).
    pub fn launch_overhead(&self) -> Option<f64> {
        Some(self.first_progress? - self.launched)
    }

    /// Seconds from the preemption decision to the process's end: its checkpoint and exit.
    pub fn preemption_overhead(&self) -> Option<f64> {
        Some(self.ended? - self.preempted?)
    }

    /// Iterations per second between the first progress report and the end.
    pub fn iterations_per_s(&self) -> Option<f64> {
        let seconds = self.ended? - self.first_progress?;
        (seconds > 0.0).then(|| (self.iterations_after.saturating_sub(self.iterations_before)) as f64 / seconds)
    }
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
    /// CPU seconds of the thread that ran it: unlike the wall time, not inflated when other work
    /// shares the cores (a streamed trace's reader thread and an external scheduler's process
    /// are not counted).
    pub cpu_time_s: f64,
}

/// What a run cost, as its runs-table row records it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RunCost {
    pub wall_time_s: f64,
    pub cpu_time_s: f64,
}
