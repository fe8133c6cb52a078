//! Gavel's Philly job-size distribution: (duration, GPUs) pairs without arrival times.
//!
//! Source: github.com/stanford-futuredata/gavel @ c4fa400 (MIT),
//! `scheduler/philly_job_distribution.pickle`, a list of 33,192 `(duration_s, num_gpus)` tuples
//! (Philly jobs of at least one hour on 1, 2, 4 or 8 GPUs) converted 1:1 to CSV in file order.
//! Gavel's `load_philly_job_distribution` samples jobs from it. Columns:
//! - `duration_s`: run time in seconds (fractional in places: `4056.9999999999995`);
//! - `num_gpus`: GPUs of the job.
//!
//! The file has no arrivals, so every job is submitted at 0 (a transform can spread them);
//! `source_id` is the 0-based row number. Every row is a GPU job; none is dropped.

use super::{Detect, Emit, FormatInfo, Head, TraceFormat};
use crate::trace::input::{Table, TableOptions};
use crate::trace::{ReadReport, TraceError, TraceJob};
use std::io::BufRead;
use std::path::Path;

pub const FORMAT: FormatInfo = FormatInfo {
    format: TraceFormat::GavelPhillySizes,
    name: "gavel-philly-sizes",
    summary: "Gavel's Philly (duration_s,num_gpus) distribution; no arrival times (all at 0)",
    detect: Detect::Header(detect),
    read,
};

/// Exactly `duration_s,num_gpus`.
fn detect(head: &Head) -> bool {
    head.columns == ["duration_s", "num_gpus"]
}

pub fn read(
    file: &Path,
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    emit: &mut Emit<'_>,
) -> Result<(), TraceError> {
    let mut table = Table::open(file, input, TableOptions::default())?;
    let duration = table.require(&["duration_s"])?;
    let gpus = table.require(&["num_gpus"])?;
    while let Some(row) = table.next_row()? {
        report.rows_read += 1;
        let n = row.gpus(gpus)?;
        let mut job = TraceJob::new((report.rows_read - 1).to_string(), 0.0, n);
        job.duration_s = Some(row.non_negative(duration)?);
        emit(job)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(text: &str) -> Result<(Vec<TraceJob>, ReadReport), String> {
        crate::trace::formats::read_text(crate::trace::formats::TraceFormat::GavelPhillySizes, "d.csv", text)
    }

    #[test]
    fn every_job_arrives_at_zero_and_ids_are_row_numbers() {
        let (jobs, report) = read_str("duration_s,num_gpus\r\n860662,1\r\n4056.9999999999995,8\r\n").unwrap();
        assert_eq!(report.rows_read, 2);
        let mut expected = TraceJob::new("1", 0.0, 8);
        expected.duration_s = Some(4056.9999999999995);
        assert_eq!(jobs[1], expected);
        assert_eq!((jobs[0].source_id.as_str(), jobs[0].duration_s), ("0", Some(860662.0)));
    }

    #[test]
    fn bad_rows_name_line_and_column() {
        let cases = [
            ("5,0", "d.csv:2: column `num_gpus`: expected at least 1 GPU, found 0"),
            ("5,-1", "d.csv:2: column `num_gpus`: expected a whole number from 0 to 4294967295, found `-1`"),
            ("-5,1", "d.csv:2: column `duration_s`: expected a number >= 0, found `-5`"),
            ("NaN,1", "d.csv:2: column `duration_s`: expected a number >= 0, found `NaN`"),
            ("5", "d.csv:2: expected 2 fields as in the header, found 1 (truncated row?)"),
        ];
        for (row, expected) in cases {
            assert_eq!(read_str(&format!("duration_s,num_gpus\n{row}\n")).unwrap_err(), expected);
        }
        assert_eq!(
            read_str("duration,num_gpus\n").unwrap_err(),
            "d.csv:1: the header lacks column `duration_s`; found: duration,num_gpus"
        );
    }
}
