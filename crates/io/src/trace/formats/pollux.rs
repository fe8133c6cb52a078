//! Pollux (OSDI'21) and Sia (SOSP'23) workload files: job arrivals with an application, a GPU
//! count and a batch size, but no durations.
//!
//! Sources: github.com/petuum/adaptdl, branch `osdi21-artifact` @ c793c70 (Apache-2.0),
//! `simulator/workloads/workload-{1..8}.csv` (160 jobs each, sampled from the Philly table over
//! 8 hours); github.com/siasosp23/artifacts @ aaf7a0d (no license file),
//! `sia-simulator/workloads/saturn/workload-{1..10}.csv` (the same format, sampled from Helios
//! Saturn; GPU counts chosen by Sia's authors). Columns:
//! - `name`: the job's name (`<application>-<row>`), kept as `source_id`;
//! - `time`: submission in seconds from the workload's start (`401.0` in Sia's files);
//! - `application`: cifar10, ncf, deepspeech2, bert, yolov3, imagenet (Pollux assigns it by the
//!   original job's GPU-time); the simulators' goodput model of that application sets the work;
//! - `num_replicas`: GPUs of the job; the fixed-size baseline (Tiresias) runs the job at this
//!   size, Pollux and Sia choose their own;
//! - `batch_size`: the initial global batch size.
//!
//! There is no duration: the simulators run each job until its application reaches its training
//! target. Every row is a GPU job; none is dropped.

use super::{Detect, Emit, FormatInfo, Head, TraceFormat};
use crate::trace::input::{Table, TableOptions};
use crate::trace::{ReadReport, TraceError, TraceJob};
use std::io::BufRead;
use std::path::Path;

pub const FORMAT: FormatInfo = FormatInfo {
    format: TraceFormat::Pollux,
    name: "pollux",
    summary: "Pollux / Sia workload CSV name,time,application,num_replicas,batch_size (no durations)",
    detect: Detect::Header(detect),
    read,
};

/// Exactly the workload columns.
fn detect(head: &Head) -> bool {
    head.columns == ["name", "time", "application", "num_replicas", "batch_size"]
}

pub fn read(
    file: &Path,
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    emit: &mut Emit<'_>,
) -> Result<(), TraceError> {
    let mut table = Table::open(file, input, TableOptions::default())?;
    let name = table.require(&["name"])?;
    let time = table.require(&["time"])?;
    let application = table.require(&["application"])?;
    let gpus = table.require(&["num_replicas"])?;
    let batch = table.require(&["batch_size"])?;
    while let Some(row) = table.next_row()? {
        report.rows_read += 1;
        let n = row.gpus(gpus)?;
        let app = row
            .opt_str(application)
            .ok_or_else(|| row.error(application, "expected an application name, found nothing"))?;
        let mut job = TraceJob::new(row.str(name), row.non_negative(time)?, n);
        job.model = Some(app.to_string());
        job.batch_size = Some(row.count(batch)?);
        emit(job)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(text: &str) -> Result<(Vec<TraceJob>, ReadReport), String> {
        crate::trace::formats::read_text(crate::trace::formats::TraceFormat::Pollux, "w.csv", text)
    }

    #[test]
    fn reads_rows() {
        let (jobs, report) = read_str(
            "name,time,application,num_replicas,batch_size\ncifar10-0,107,cifar10,6,2048\nbert-1,401.5,bert,8,384\n",
        )
        .unwrap();
        assert_eq!(report.rows_read, 2);
        let mut expected = TraceJob::new("cifar10-0", 107.0, 6);
        expected.model = Some("cifar10".into());
        expected.batch_size = Some(2048);
        assert_eq!(jobs[0], expected);
        assert_eq!((jobs[1].submit_s, jobs[1].duration_s), (401.5, None));
    }

    #[test]
    fn bad_rows_name_line_and_column() {
        let cases = [
            ("ncf-2,135,ncf,0,32768", "w.csv:2: column `num_replicas`: expected at least 1 GPU, found 0"),
            ("ncf-2,-135,ncf,1,32768", "w.csv:2: column `time`: expected a number >= 0, found `-135`"),
            ("ncf-2,135,,1,32768", "w.csv:2: column `application`: expected an application name, found nothing"),
            (
                "ncf-2,135,ncf,1,big",
                "w.csv:2: column `batch_size`: expected a whole number from 0 to 4294967295, found `big`",
            ),
            ("ncf-2,135,ncf,1", "w.csv:2: expected 5 fields as in the header, found 4 (truncated row?)"),
        ];
        for (row, expected) in cases {
            assert_eq!(
                read_str(&format!("name,time,application,num_replicas,batch_size\n{row}\n")).unwrap_err(),
                expected
            );
        }
    }
}
