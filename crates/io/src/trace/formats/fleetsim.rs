//! The canonical trace CSV of fleetsim (github.com/felivalencia3/mini-compute-simulator,
//! `src/fleetsim/workload/trace.py`), in particular its real Helios Venus slice.
//!
//! Source of the slice: that repository @ ce41673 (Apache-2.0), `tests/validation_traces/
//! helios_venus_2vc_sept.csv`: 1,867 GPU jobs of the Helios Venus `cluster_log.csv` (HeliosData,
//! CC-BY-4.0, Hu et al., SC'21), VCs vcvGl and vcvlY, submitted 2020-09-01..26, converted by
//! fleetsim's `convert_helios` (which already dropped CPU-only and non-terminal jobs and capped
//! durations at 14 days). Lines starting with `#` (the provenance preamble) are skipped. Columns
//! used, by name:
//! - `job_id`: the Helios Slurm job id, kept as `source_id`;
//! - `user`: hashed user, kept (optional column);
//! - `tenant`: the Helios virtual cluster, kept as `vc` (optional column);
//! - `submit_time`: MICROSECONDS since the trace epoch (for the slice: the window start
//!   2020-09-01 00:00), converted to seconds and kept on that clock;
//! - `num_chips`: GPUs of the gang (Helios `gpu_num`); 0 is dropped and counted;
//! - `duration_s`: run time in seconds;
//! - `final_status`: `COMPLETED`, `CANCELED`, `FAILED`, `TIMEOUT` or `NODE_FAIL`, kept as
//!   `status` (optional column).
//!
//! Not used: `class` (fleetsim's tier, `finetune` for every Helios job), `chip_type` (empty: any
//! GPU), `num_nodes` (8-GPU nodes; placement decides), `walltime_limit_s` (the scheduler-visible
//! estimate, equal to `duration_s` in the slice).

use super::{Detect, Emit, FormatInfo, Head, TraceFormat};
use crate::trace::input::{Table, TableOptions};
use crate::trace::{ReadReport, TraceError, TraceJob};
use std::io::BufRead;
use std::path::Path;

pub const FORMAT: FormatInfo = FormatInfo {
    format: TraceFormat::Fleetsim,
    name: "fleetsim",
    summary: "fleetsim canonical CSV, e.g. the real Helios Venus slice (# preamble, num_chips, duration_s)",
    detect: Detect::HeaderAfterComments(detect),
    read,
};

/// `num_chips`, `submit_time` and `duration_s` among the columns after the preamble.
fn detect(head: &Head) -> bool {
    ["num_chips", "submit_time", "duration_s"].iter().all(|c| head.has(c))
}

const MICROS_PER_SECOND: f64 = 1e6;

pub fn read(
    file: &Path,
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    emit: &mut Emit<'_>,
) -> Result<(), TraceError> {
    let mut table = Table::open(file, input, TableOptions { comment: Some(b'#'), ..TableOptions::default() })?;
    let id = table.require(&["job_id"])?;
    let submit = table.require(&["submit_time"])?;
    let chips = table.require(&["num_chips"])?;
    let duration = table.require(&["duration_s"])?;
    let user = table.column("user");
    let tenant = table.column("tenant");
    let status = table.column("final_status");
    while let Some(row) = table.next_row()? {
        report.rows_read += 1;
        let at = row.non_negative(submit)? / MICROS_PER_SECOND;
        let n = row.count(chips)?;
        let seconds = row.non_negative(duration)?;
        if n == 0 {
            report.drop_row(FORMAT.name, "0 chips (CPU-only job)");
            continue;
        }
        let mut job = TraceJob::new(row.str(id), at, n);
        job.duration_s = Some(seconds);
        job.user = user.and_then(|c| row.opt_str(c)).map(str::to_string);
        job.vc = tenant.and_then(|c| row.opt_str(c)).map(str::to_string);
        job.status = status.and_then(|c| row.opt_str(c)).map(str::to_string);
        emit(job)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "# fleetsim validation slice\n# source: HeliosData\njob_id,user,tenant,class,submit_time,num_chips,chip_type,num_nodes,duration_s,walltime_limit_s,final_status\n";

    fn read_str(text: &str) -> Result<(Vec<TraceJob>, ReadReport), String> {
        crate::trace::formats::read_text(crate::trace::formats::TraceFormat::Fleetsim, "f.csv", text)
    }

    #[test]
    fn microseconds_become_seconds_and_cpu_jobs_are_dropped() {
        let text = format!(
            "{HEAD}765563,uH3om,vcvGl,finetune,5835000000,128,,16,24.0,24.0,CANCELED\n\
             # a comment between rows\n\
             765566,uH3om,vcvGl,finetune,5867500000,0,,0,5.0,5.0,COMPLETED\n\
             765776,udvHz,vcvlY,finetune,40822000000,8,,1,87326.0,87326.0,COMPLETED\n"
        );
        let (jobs, report) = read_str(&text).unwrap();
        assert_eq!(
            jobs.iter().map(|j| (j.source_id.as_str(), j.submit_s, j.gpus, j.duration_s)).collect::<Vec<_>>(),
            [("765563", 5835.0, 128, Some(24.0)), ("765776", 40822.0, 8, Some(87326.0))]
        );
        let j = &jobs[1];
        assert_eq!(
            (j.user.as_deref(), j.vc.as_deref(), j.status.as_deref()),
            (Some("udvHz"), Some("vcvlY"), Some("COMPLETED"))
        );
        assert_eq!((report.rows_read, report.dropped.len()), (3, 1));
        assert_eq!(report.dropped[0].reason, "0 chips (CPU-only job)");
    }

    #[test]
    fn bad_rows_name_line_and_column() {
        let cases = [
            (
                "1,u,t,finetune,-5,8,,1,24.0,24.0,FAILED",
                "f.csv:4: column `submit_time`: expected a number >= 0, found `-5`",
            ),
            ("1,u,t,finetune,5,8,,1,,24.0,FAILED", "f.csv:4: column `duration_s`: expected a number >= 0, found ``"),
            (
                "1,u,t,finetune,5,x,,1,2,24.0,FAILED",
                "f.csv:4: column `num_chips`: expected a whole number from 0 to 4294967295, found `x`",
            ),
        ];
        for (row, expected) in cases {
            assert_eq!(read_str(&format!("{HEAD}{row}\n")).unwrap_err(), expected, "{row}");
        }
        assert_eq!(
            read_str("# only a preamble\njob_id,submit_time,duration_s\n").unwrap_err(),
            "f.csv:2: the header lacks column `num_chips`; found: job_id,submit_time,duration_s"
        );
    }
}
