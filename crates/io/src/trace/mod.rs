//! Real cluster traces: one canonical job record, a reader per public trace format, and trace
//! statistics.
//!
//! This layer reads files and knows nothing of the engine: [`read_trace`] turns a file into
//! [`TraceJob`]s plus a [`ReadReport`] of every row it dropped or changed and why
//! ([`stream_trace`] passes the jobs on one at a time instead, for traces too large to hold);
//! the workload layer applies a spec's transforms (windows, filters, rescaling, ...), adds to the
//! same report and turns the jobs into the engine's stream; [`stats`] summarises a trace for
//! `blox trace inspect`.
//!
//! Formats are recognised from the header ([`TraceFormat::detect`]); an explicit format
//! overrides detection. Each reader's doc comment names its source and the meaning of every
//! column it uses.

pub mod formats;
pub mod inspect;
pub mod pod_list;
pub mod report;
pub mod stats;
pub mod write;

/// The table reader and its error live in the core's [`crate::table`] (policy inputs use them too).
pub use crate::table::{TraceError, error, input};
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

/// A trace streamed from a file by [`stream_trace`]: what reading did, the jobs having gone to the
/// caller.
#[derive(Debug, Clone)]
pub struct StreamedTrace {
    pub format: TraceFormat,
    /// `jobs_kept` counts the jobs emitted.
    pub report: ReadReport,
    /// Whether every job was submitted no earlier than the one emitted before it, so that a caller
    /// replaying the stream by submission time need not sort.
    pub in_order: bool,
}

/// Bytes looked at to recognise a format.
const SNIFF_BYTES: usize = 64 * 1024;

/// Reads `path` as `format`, or as the format its header shows when `format` is `None`, with its
/// jobs sorted by submission.
pub fn read_trace(path: &Path, format: Option<TraceFormat>) -> Result<Trace, TraceError> {
    let mut jobs = Vec::new();
    let streamed = stream_trace(path, format, &mut |job| {
        jobs.push(job);
        Ok(())
    })?;
    let StreamedTrace { format, mut report, .. } = streamed;
    sort_by_submission(&mut jobs, format, &mut report);
    Ok(Trace { format, jobs, report })
}

/// Reads `path` as [`read_trace`] does but passes each job to `emit` in file order, unsorted, so
/// that a trace need not fit in memory (a reader whose jobs depend on the whole file still holds
/// them until its last row; see [`formats`]). An error `emit` returns stops reading and is
/// returned.
pub fn stream_trace(
    path: &Path,
    format: Option<TraceFormat>,
    emit: &mut formats::Emit<'_>,
) -> Result<StreamedTrace, TraceError> {
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
    let mut in_order = true;
    let mut last_submit = f64::NEG_INFINITY;
    let mut emitted = 0;
    format.read(path, Box::new(input), &mut report, &mut |job| {
        in_order &= job.submit_s >= last_submit;
        last_submit = job.submit_s;
        emitted += 1;
        emit(job)
    })?;
    report.jobs_kept = emitted;
    Ok(StreamedTrace { format, report, in_order })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A blox-csv trace of `(id, arrival)` rows in a temporary directory.
    fn trace_file(rows: &[(&str, f64)]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        let body: String = rows.iter().map(|(id, at)| format!("{id},{at},1,60\n")).collect();
        std::fs::write(&path, format!("job_id,arrival_s,gpus,duration_s\n{body}")).unwrap();
        (dir, path)
    }

    fn stream(path: &Path) -> (Vec<TraceJob>, StreamedTrace) {
        let mut jobs = Vec::new();
        let streamed = stream_trace(path, None, &mut |job| {
            jobs.push(job);
            Ok(())
        })
        .unwrap();
        (jobs, streamed)
    }

    fn ids(jobs: &[TraceJob]) -> Vec<&str> {
        jobs.iter().map(|j| j.source_id.as_str()).collect()
    }

    #[test]
    fn streaming_keeps_file_order_and_says_it_is_out_of_order() {
        let (_dir, path) = trace_file(&[("a", 10.0), ("b", 5.0), ("c", 20.0)]);
        let (jobs, streamed) = stream(&path);
        assert_eq!(ids(&jobs), ["a", "b", "c"]);
        assert_eq!(streamed.format, TraceFormat::BloxCsv);
        assert!(!streamed.in_order);
        assert_eq!((streamed.report.rows_read, streamed.report.jobs_kept), (3, 3));
        assert!(streamed.report.adjusted.is_empty(), "streaming does not sort, so it reports no sorting");
        let read = read_trace(&path, None).unwrap();
        assert_eq!(ids(&read.jobs), ["b", "a", "c"]);
        assert_eq!(read.report.adjusted[0].rows, 1);
    }

    #[test]
    fn a_sorted_file_streams_in_order_as_read_trace_reads_it() {
        let (_dir, path) = trace_file(&[("a", 0.0), ("b", 0.0), ("c", 7.5), ("d", 30.0)]);
        let (jobs, streamed) = stream(&path);
        assert!(streamed.in_order);
        let read = read_trace(&path, None).unwrap();
        assert_eq!(jobs, read.jobs);
        assert_eq!(streamed.report, read.report);
    }

    #[test]
    fn an_error_from_emit_stops_reading_and_is_returned() {
        let (_dir, path) = trace_file(&[("a", 0.0), ("b", 1.0), ("c", 2.0)]);
        let stop = TraceError { file: "sink".into(), line: None, column: None, message: "full".into() };
        let mut seen = Vec::new();
        let err = stream_trace(&path, Some(TraceFormat::BloxCsv), &mut |job| {
            seen.push(job.source_id);
            if seen.len() == 2 { Err(stop.clone()) } else { Ok(()) }
        })
        .unwrap_err();
        assert_eq!(err, stop);
        assert_eq!(seen, ["a", "b"]);
    }
}
