//! Microsoft ITP raw job traces, as published with ElasticFlow (ASPLOS'23).
//!
//! Source: github.com/microsoft/elasticflow-traces, `data/raw-traces.tar.gz` (MIT): ten files
//! `cluster01.csv` .. `cluster10.csv`, 69,351 jobs from ten ITP clusters, 2021-03-04..05-03.
//! Columns:
//! - `job_id`: a regenerated UUID;
//! - `submission_time`: seconds from the trace's origin;
//! - `duration`: run time in seconds;
//! - `num_gpu`: GPUs of the job.
//!
//! Every row is a job that ran; none is dropped.

use super::{Detect, Emit, FormatInfo, Head, TraceFormat};
use crate::trace::input::{Table, TableOptions};
use crate::trace::{ReadReport, TraceError, TraceJob};
use std::io::BufRead;
use std::path::Path;

pub const FORMAT: FormatInfo = FormatInfo {
    format: TraceFormat::Itp,
    name: "itp",
    summary: "Microsoft ITP raw traces (ElasticFlow): job_id,submission_time,duration,num_gpu",
    detect: Detect::Header(detect),
    read,
};

/// Exactly the ITP columns.
fn detect(head: &Head) -> bool {
    head.columns == ["job_id", "submission_time", "duration", "num_gpu"]
}

pub fn read(
    file: &Path,
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    emit: &mut Emit<'_>,
) -> Result<(), TraceError> {
    let mut table = Table::open(file, input, TableOptions::default())?;
    let id = table.require(&["job_id"])?;
    let submit = table.require(&["submission_time"])?;
    let duration = table.require(&["duration"])?;
    let gpus = table.require(&["num_gpu"])?;
    while let Some(row) = table.next_row()? {
        report.rows_read += 1;
        let n = row.gpus(gpus)?;
        let mut job = TraceJob::new(row.str(id), row.non_negative(submit)?, n);
        job.duration_s = Some(row.non_negative(duration)?);
        emit(job)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(text: &'static str) -> Result<(Vec<TraceJob>, ReadReport), String> {
        crate::trace::formats::read_text(crate::trace::formats::TraceFormat::Itp, "c.csv", text)
    }

    #[test]
    fn reads_rows() {
        let (jobs, report) =
            read_str("job_id,submission_time,duration,num_gpu\nab-1,1932025,2429,64\ncd-2,2000581,1532,1\n").unwrap();
        assert_eq!(report.rows_read, 2);
        assert_eq!(jobs[0].source_id, "ab-1");
        assert_eq!((jobs[0].submit_s, jobs[0].duration_s, jobs[0].gpus), (1932025.0, Some(2429.0), 64));
    }

    #[test]
    fn bad_rows_name_line_and_column() {
        let header = "job_id,submission_time,duration,num_gpu\n";
        let cases = [
            ("a,1,2,0", "c.csv:2: column `num_gpu`: expected at least 1 GPU, found 0"),
            ("a,1,-2,1", "c.csv:2: column `duration`: expected a number >= 0, found `-2`"),
            ("a,x,2,1", "c.csv:2: column `submission_time`: expected a number >= 0, found `x`"),
            ("a,1,2", "c.csv:2: expected 4 fields as in the header, found 3 (truncated row?)"),
        ];
        for (row, expected) in cases {
            let text: &'static str = Box::leak(format!("{header}{row}\n").into_boxed_str());
            assert_eq!(read_str(text).unwrap_err(), expected);
        }
    }
}
