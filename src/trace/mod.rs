//! Real cluster traces: one canonical job record, a reader per public trace format, and trace
//! statistics.
//!
//! This layer reads files and knows nothing of the engine: [`read_trace`] turns a file into
//! [`TraceJob`]s plus a [`ReadReport`] of every row it dropped or changed and why; the workload
//! layer applies a spec's transforms (windows, filters, rescaling, ...), adds to the same report
//! and turns the jobs into the engine's stream; [`stats`] summarises a trace for
//! `blox trace inspect`.
//!
//! Formats are recognised from the header ([`TraceFormat::detect`]); an explicit format
//! overrides detection. Each reader's doc comment names its source and the meaning of every
//! column it uses.

pub mod error;
pub mod formats;
pub mod input;
pub mod inspect;
pub mod report;
pub mod stats;
pub mod write;

pub use error::TraceError;
pub use formats::{Detection, TraceFormat};
pub use report::{Count, ReadReport};

use serde::Serialize;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// One job of a trace, in the units blox uses everywhere (seconds, whole GPUs).
///
/// Fields a format does not carry are `None`; nothing is invented by a reader.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceJob {
    /// The job's id in the source (Philly application id, ITP UUID, row number, ...).
    pub source_id: String,
    /// Submission time in seconds from the trace's time origin (the format's own origin when it
    /// has one, else the earliest submission).
    pub submit_s: f64,
    /// GPUs of the gang (all or nothing); >= 1.
    pub gpus: u32,
    /// Fraction of each GPU the job asked for when it shares GPUs (Alibaba `gpu_milli`/1000,
    /// PAI `plan_gpu`/100 below one GPU); `None` for whole GPUs.
    pub gpu_share: Option<f64>,
    /// Run time at `gpus` GPUs, in seconds.
    pub duration_s: Option<f64>,
    /// Total training iterations (steps), when the trace counts work in iterations.
    pub iterations: Option<f64>,
    pub model: Option<String>,
    /// Global batch size.
    pub batch_size: Option<u32>,
    /// Absolute deadline in seconds on the same clock as `submit_s`.
    pub deadline_s: Option<f64>,
    /// Whether the job is best-effort (no deadline; ElasticFlow excludes it from the ratio).
    pub best_effort: Option<bool>,
    /// Per-iteration stage times (Muri).
    pub stages: Option<StageTimes>,
    /// The scheduling class the trace gives the job (Muri: 0 resource-guaranteed, 1
    /// opportunistic, read by its AntMan baseline).
    pub priority: Option<u32>,
    pub user: Option<String>,
    /// Virtual cluster / tenant.
    pub vc: Option<String>,
    /// Final status in the source (Pass, Killed, COMPLETED, Terminated, ...).
    pub status: Option<String>,
}

impl TraceJob {
    /// A job with only the required fields set.
    pub fn new(source_id: impl Into<String>, submit_s: f64, gpus: u32) -> Self {
        Self {
            source_id: source_id.into(),
            submit_s,
            gpus,
            gpu_share: None,
            duration_s: None,
            iterations: None,
            model: None,
            batch_size: None,
            deadline_s: None,
            best_effort: None,
            stages: None,
            priority: None,
            user: None,
            vc: None,
            status: None,
        }
    }
}

/// Seconds per iteration of each stage of a training iteration (Muri's multi-resource profile).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct StageTimes {
    /// Iteration time when the job runs alone.
    pub iteration_s: f64,
    /// Data loading and CPU preprocessing.
    pub storage_cpu_s: f64,
    /// GPU forward and backward pass.
    pub gpu_s: f64,
    /// Gradient synchronisation over the network (0 for 1-GPU jobs).
    pub network_s: f64,
}

/// A trace read from a file: its jobs, sorted by submission (stable), and what reading did.
#[derive(Debug, Clone)]
pub struct Trace {
    pub format: TraceFormat,
    pub jobs: Vec<TraceJob>,
    pub report: ReadReport,
}

/// Bytes looked at to recognise a format.
const SNIFF_BYTES: usize = 64 * 1024;

/// Reads `path` as `format`, or as the format its header shows when `format` is `None`.
pub fn read_trace(path: &Path, format: Option<TraceFormat>) -> Result<Trace, TraceError> {
    let errors = input::Errors::new(path);
    let file = File::open(path).map_err(|e| errors.at(None, None, format!("cannot read the trace: {e}")))?;
    let mut input = BufReader::with_capacity(SNIFF_BYTES, file);
    let format = match format {
        Some(f) => f,
        None => {
            let head = input.fill_buf().map_err(|e| errors.io(&e))?;
            match TraceFormat::detect(head) {
                Detection::Format(f) => f,
                Detection::NotATrace(what) => {
                    return Err(errors.at(None, None, format!("this is {what}, not a job trace")));
                }
                Detection::Unknown(header) => {
                    return Err(errors.at(
                        Some(1),
                        None,
                        format!(
                            "cannot recognise the trace format from `{header}`; name it with `format:` (or --format), one of: {}",
                            TraceFormat::names().join(", ")
                        ),
                    ));
                }
            }
        }
    };
    let mut report = ReadReport::default();
    let mut jobs = format.read(path, Box::new(input), &mut report)?;
    sort_by_submission(&mut jobs, format, &mut report);
    report.jobs_kept = jobs.len() as u64;
    Ok(Trace { format, jobs, report })
}

/// Sorts stably by submission time, as the Tiresias and ElasticFlow simulators do, and counts the
/// rows that were out of order.
fn sort_by_submission(jobs: &mut [TraceJob], format: TraceFormat, report: &mut ReadReport) {
    let out_of_order = jobs.windows(2).filter(|w| w[1].submit_s < w[0].submit_s).count() as u64;
    if out_of_order > 0 {
        jobs.sort_by(|a, b| a.submit_s.total_cmp(&b.submit_s));
        report.adjust_rows(
            format.name(),
            "submitted earlier than the row before it: sorted by submission time",
            out_of_order,
        );
    }
}
