//! The processed Philly job table shipped with the Pollux (OSDI'21) and Sia (SOSP'23) artifacts.
//!
//! Source: github.com/petuum/adaptdl, branch `osdi21-artifact`, `simulator/traces/philly.csv`
//! (82,247 jobs), derived from Microsoft's Philly `cluster_job_log` (CC-BY-4.0, Jeon et al.,
//! ATC'19). Columns:
//! - `timestamp`: submission time `YYYY-MM-DD HH:MM:SS` (2017); the earliest becomes time 0, so
//!   the jobs are collected and emitted after the last row;
//! - `duration`: seconds, the sum of the job's attempt durations;
//! - `num_gpus`: GPUs of the job;
//! - `gpu_time`: `duration x num_gpus` (not used: derivable);
//! - `cluster`: the Philly virtual cluster, kept as `vc`.
//!
//! Rows are in `cluster_job_log` order, not submission order; reading sorts them. Jobs with
//! 0 GPUs are dropped and counted (the table has none; other Philly extracts do).

use super::{Detect, Emit, FormatInfo, Head, TraceFormat};
use crate::trace::input::{Table, TableOptions, parse_datetime};
use crate::trace::{ReadReport, TraceError, TraceJob};
use std::io::BufRead;
use std::path::Path;

pub const FORMAT: FormatInfo = FormatInfo {
    format: TraceFormat::PhillyCsv,
    name: "philly-csv",
    summary: "processed Philly table timestamp,duration,num_gpus,gpu_time,cluster (Pollux/Sia artifacts)",
    detect: Detect::Header(detect),
    read,
};

/// Exactly the processed table's columns.
fn detect(head: &Head) -> bool {
    head.columns == ["timestamp", "duration", "num_gpus", "gpu_time", "cluster"]
}

pub fn read(
    file: &Path,
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    emit: &mut Emit<'_>,
) -> Result<(), TraceError> {
    let mut table = Table::open(file, input, TableOptions::default())?;
    let timestamp = table.require(&["timestamp"])?;
    let duration = table.require(&["duration"])?;
    let gpus = table.require(&["num_gpus"])?;
    let cluster = table.require(&["cluster"])?;
    let mut jobs = Vec::new();
    let mut submitted = Vec::new();
    while let Some(row) = table.next_row()? {
        report.rows_read += 1;
        let at = parse_datetime(row.str(timestamp)).ok_or_else(|| {
            row.error(timestamp, format!("expected a time `YYYY-MM-DD HH:MM:SS`, found `{}`", row.str(timestamp)))
        })?;
        let n = row.count(gpus)?;
        let seconds = row.non_negative(duration)?;
        if n == 0 {
            report.drop_row(FORMAT.name, "0 GPUs");
            continue;
        }
        let mut job = TraceJob::new((report.rows_read - 1).to_string(), 0.0, n);
        job.duration_s = Some(seconds);
        job.vc = row.opt_str(cluster).map(str::to_string);
        submitted.push(at);
        jobs.push(job);
    }
    let origin = submitted.iter().copied().min().unwrap_or(0);
    for (mut job, at) in jobs.into_iter().zip(submitted) {
        job.submit_s = (at - origin) as f64;
        emit(job)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::formats::collect;

    #[test]
    fn times_count_from_the_earliest_submission_and_ids_are_row_numbers() {
        let text = "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-07 01:11:39,193256.0,8,1546048.0,ee9e8c\n2017-10-07 01:10:39,66.0,1,66.0,11cb48\n2017-10-07 01:12:00,5.0,0,0,x\n";
        let mut report = ReadReport::default();
        let jobs = collect(|emit| read(Path::new("p.csv"), Box::new(text.as_bytes()), &mut report, emit)).unwrap();
        assert_eq!(
            jobs.iter().map(|j| (j.source_id.as_str(), j.submit_s, j.gpus)).collect::<Vec<_>>(),
            [("0", 60.0, 8), ("1", 0.0, 1)]
        );
        assert_eq!(jobs[0].duration_s, Some(193256.0));
        assert_eq!(jobs[0].vc.as_deref(), Some("ee9e8c"));
        assert_eq!((report.rows_read, report.total_dropped()), (3, 1));
    }

    #[test]
    fn a_bad_timestamp_names_its_line() {
        let text = "timestamp,duration,num_gpus,gpu_time,cluster\n2017-13-07 01:11:39,1,1,1,a\n";
        let err = collect(|emit| read(Path::new("p.csv"), Box::new(text.as_bytes()), &mut ReadReport::default(), emit))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "p.csv:2: column `timestamp`: expected a time `YYYY-MM-DD HH:MM:SS`, found `2017-13-07 01:11:39`"
        );
    }
}
