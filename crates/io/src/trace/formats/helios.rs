//! SenseTime Helios job logs (Hu et al., "Characterization and Prediction of Deep Learning
//! Workloads in Large-Scale GPU Datacenters", SC'21).
//!
//! Source: github.com/S-Lab-System-Group/HeliosData, `data.zip` (CC-BY-4.0): one `cluster_log.csv`
//! per cluster (Earth, Saturn, Uranus, Venus), Slurm jobs of April..September 2020; 3,362,981 jobs
//! of which 1,580,464 use GPUs. Columns are found by name (extra ones such as `jobname`, `cpu_num`,
//! `node_num`, `start_time`, `end_time` and `queue` are not used):
//! - `job_id`: Slurm job id (increasing in submission order), kept as `source_id`;
//! - `user`, `vc`: hashed user and virtual cluster, kept (optional columns);
//! - `gpu_num`: GPUs of the job; CPU-only jobs (0) are dropped and counted;
//! - `state`: final Slurm state `COMPLETED`, `CANCELLED`, `FAILED`, `TIMEOUT` or `NODE_FAIL`
//!   (rarely `RUNNING`/`SUSPENDED`), kept as `status` and not filtered here (transforms filter by
//!   status; optional column);
//! - `submit_time`: `YYYY-MM-DD HH:MM:SS` local time, or plain seconds as some converted copies
//!   store it (one form per file); the earliest kept submission becomes time 0 either way, so the
//!   jobs are collected and emitted after the last row;
//! - `duration`: seconds the job ran (`end_time - start_time`); a job with an empty duration never
//!   ran and is dropped (counted).

use super::{Detect, Emit, FormatInfo, Head, TraceFormat};
use crate::trace::input::{Row, Table, TableOptions, parse_datetime, parse_f64};
use crate::trace::{ReadReport, TraceError, TraceJob};
use std::io::BufRead;
use std::path::Path;

pub const FORMAT: FormatInfo = FormatInfo {
    format: TraceFormat::Helios,
    name: "helios",
    summary: "Helios cluster_log.csv (SenseTime, SC'21): job_id,user,vc,gpu_num,...,state,submit_time,...",
    detect: Detect::Header(detect),
    read,
};

/// `gpu_num`, `submit_time` and `state` among the columns.
fn detect(head: &Head) -> bool {
    ["gpu_num", "submit_time", "state"].iter().all(|c| head.has(c))
}

/// How a file writes `submit_time`; the first data row decides.
#[derive(Debug, Clone, Copy, PartialEq)]
enum TimeForm {
    Datetime,
    Seconds,
}

pub fn read(
    file: &Path,
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    emit: &mut Emit<'_>,
) -> Result<(), TraceError> {
    let mut table = Table::open(file, input, TableOptions::default())?;
    let id = table.require(&["job_id"])?;
    let gpus = table.require(&["gpu_num"])?;
    let submit = table.require(&["submit_time"])?;
    let duration = table.require(&["duration"])?;
    let user = table.column("user");
    let vc = table.column("vc");
    let state = table.column("state");
    let mut form = None;
    let mut jobs = Vec::new();
    let mut submitted = Vec::new();
    while let Some(row) = table.next_row()? {
        report.rows_read += 1;
        let n = row.count(gpus)?;
        let at = submit_time(&row, submit, &mut form)?;
        let seconds = row.opt_non_negative(duration)?;
        if n == 0 {
            report.drop_row(FORMAT.name, "0 GPUs (CPU-only job)");
            continue;
        }
        let Some(seconds) = seconds else {
            report.drop_row(FORMAT.name, "no duration (the job never ran)");
            continue;
        };
        let mut job = TraceJob::new(row.str(id), 0.0, n);
        job.duration_s = Some(seconds);
        job.user = user.and_then(|c| row.opt_str(c)).map(str::to_string);
        job.vc = vc.and_then(|c| row.opt_str(c)).map(str::to_string);
        job.status = state.and_then(|c| row.opt_str(c)).map(str::to_string);
        submitted.push(at);
        jobs.push(job);
    }
    let origin = submitted.iter().copied().fold(f64::INFINITY, f64::min);
    for (mut job, at) in jobs.into_iter().zip(submitted) {
        job.submit_s = at - origin;
        emit(job)?;
    }
    Ok(())
}

/// The submission in seconds on the file's clock, in the form the first row used.
fn submit_time(row: &Row<'_>, column: usize, form: &mut Option<TimeForm>) -> Result<f64, TraceError> {
    let text = row.str(column);
    let parsed = match parse_datetime(text) {
        Some(at) => Some((TimeForm::Datetime, at as f64)),
        None => parse_f64(text).filter(|x| *x >= 0.0).map(|x| (TimeForm::Seconds, x)),
    };
    match (parsed, *form) {
        (Some((found, at)), None) => {
            *form = Some(found);
            Ok(at)
        }
        (Some((found, at)), Some(expected)) if found == expected => Ok(at),
        (_, Some(TimeForm::Datetime)) => {
            Err(row
                .error(column, format!("expected a time `YYYY-MM-DD HH:MM:SS` as in the rows before, found `{text}`")))
        }
        (_, Some(TimeForm::Seconds)) => {
            Err(row.error(column, format!("expected seconds >= 0 as in the rows before, found `{text}`")))
        }
        (None, None) => {
            Err(row.error(column, format!("expected a time `YYYY-MM-DD HH:MM:SS` or seconds >= 0, found `{text}`")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str =
        "job_id,user,vc,jobname,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n";

    fn read_str(text: &str) -> Result<(Vec<TraceJob>, ReadReport), String> {
        crate::trace::formats::read_text(crate::trace::formats::TraceFormat::Helios, "h.csv", text)
    }

    #[test]
    fn reads_the_readme_rows_and_drops_cpu_only_jobs() {
        let text = format!(
            "{HEADER}\
             1425511,uXBbc,vcJkd,j1,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0\n\
             1425512,uVMrF,vchbv,j2,4,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 18:45:36,249,0\n\
             1425513,uzqls,vcpDC,j3,0,1,1,CANCELLED,2020-06-09 18:41:28,2020-06-09 18:41:28,2020-06-17 14:15:21,675233,0\n\
             1425514,uzqls,vcpDC,j4,8,8,1,CANCELLED,2020-06-09 18:41:00,,,,\n"
        );
        let (jobs, report) = read_str(&text).unwrap();
        assert_eq!(
            jobs.iter().map(|j| (j.source_id.as_str(), j.submit_s, j.gpus, j.duration_s)).collect::<Vec<_>>(),
            [("1425511", 0.0, 1, Some(36848.0)), ("1425512", 26.0, 4, Some(249.0))]
        );
        let j = &jobs[1];
        assert_eq!(
            (j.user.as_deref(), j.vc.as_deref(), j.status.as_deref()),
            (Some("uVMrF"), Some("vchbv"), Some("FAILED"))
        );
        assert_eq!(report.rows_read, 4);
        let dropped: Vec<(&str, u64)> = report.dropped.iter().map(|c| (c.reason.as_str(), c.rows)).collect();
        assert_eq!(dropped, [("0 GPUs (CPU-only job)", 1), ("no duration (the job never ran)", 1)]);
    }

    #[test]
    fn plain_seconds_and_only_the_used_columns() {
        let text = "submit_time,gpu_num,duration,job_id\n500,2,10,a\n100.5,1,20,b\n";
        let (jobs, _) = read_str(text).unwrap();
        assert_eq!(jobs.iter().map(|j| j.submit_s).collect::<Vec<_>>(), [399.5, 0.0]);
        assert_eq!((jobs[0].user.as_ref(), jobs[0].vc.as_ref(), jobs[0].status.as_ref()), (None, None, None));
    }

    #[test]
    fn bad_rows_name_line_and_column() {
        let cases = [
            (
                "a,u,vc,x,1,1,1,COMPLETED,2020-06-31 00:00:00,,,5,0",
                "h.csv:2: column `submit_time`: expected a time `YYYY-MM-DD HH:MM:SS` or seconds >= 0, found `2020-06-31 00:00:00`",
            ),
            (
                "a,u,vc,x,1,1,1,COMPLETED,2020-06-01 00:00:00,,,5,0\nb,u,vc,x,1,1,1,COMPLETED,700,,,5,0",
                "h.csv:3: column `submit_time`: expected a time `YYYY-MM-DD HH:MM:SS` as in the rows before, found `700`",
            ),
            (
                "a,u,vc,x,1,1,1,COMPLETED,700,,,5,0\nb,u,vc,x,1,1,1,COMPLETED,2020-06-01 00:00:00,,,5,0",
                "h.csv:3: column `submit_time`: expected seconds >= 0 as in the rows before, found `2020-06-01 00:00:00`",
            ),
            (
                "a,u,vc,x,1.5,1,1,COMPLETED,700,,,5,0",
                "h.csv:2: column `gpu_num`: expected a whole number from 0 to 4294967295, found `1.5`",
            ),
            ("a,u,vc,x,1,1,1,COMPLETED,700,,,-5,0", "h.csv:2: column `duration`: expected a number >= 0, found `-5`"),
            ("a,u,vc,x,1,1,1,COMPLETED,700", "h.csv:2: expected 13 fields as in the header, found 9 (truncated row?)"),
        ];
        for (rows, expected) in cases {
            assert_eq!(read_str(&format!("{HEADER}{rows}\n")).unwrap_err(), expected, "{rows}");
        }
        assert_eq!(
            read_str("job_id,gpu_num,submit_time\n").unwrap_err(),
            "h.csv:1: the header lacks column `duration`; found: job_id,gpu_num,submit_time"
        );
    }
}
