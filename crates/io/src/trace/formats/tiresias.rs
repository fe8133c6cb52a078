//! Tiresias (NSDI'19) job traces.
//!
//! Source: github.com/SymbioticLab/Tiresias @ 959f9b0 (Apache-2.0), `simulator/60_job.csv`
//! (`job_id,num_gpu,submit_time,iterations,model_name,duration,interval`, 60 jobs) and the older
//! `simulator/tf_job.csv` (`job_id,num_gpu,submit_time,start_time,duration,model_size,
//! aggr_interval,model_name,model_scale`). Columns:
//! - `job_id`: the job's id;
//! - `num_gpu`: GPUs of the job;
//! - `submit_time`: seconds from the trace's origin;
//! - `duration`: run time in seconds at `num_gpu` GPUs (what Tiresias' policies simulate);
//! - `model_name`: vgg19, resnet50, inception3, ...; Tiresias only sizes the network load by it
//!   (an unknown name counts as inception3), so an empty one is kept as no model;
//! - `iterations` (new format only): total iterations; Tiresias' policies ignore it.
//!
//! Ignored: `interval` (the gap to the next submission, derivable), and the old format's
//! `start_time` (filled in by the simulator), `model_size`, `aggr_interval` and `model_scale`
//! (network bookkeeping the canonical record has no place for).
//!
//! Every row is a GPU job; none is dropped.

use super::{Detect, Emit, FormatInfo, Head, TraceFormat};
use crate::trace::input::{Table, TableOptions};
use crate::trace::{ReadReport, TraceError, TraceJob};
use std::io::BufRead;
use std::path::Path;

pub const FORMAT: FormatInfo = FormatInfo {
    format: TraceFormat::Tiresias,
    name: "tiresias",
    summary: "Tiresias job CSV job_id,num_gpu,submit_time,iterations,model_name,duration,interval (and the old tf_job format)",
    detect: Detect::Header(detect),
    read,
};

/// `job_id`, `num_gpu`, `submit_time` and `duration` among the columns.
fn detect(head: &Head) -> bool {
    ["job_id", "num_gpu", "submit_time", "duration"].iter().all(|c| head.has(c))
}

pub fn read(
    file: &Path,
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    emit: &mut Emit<'_>,
) -> Result<(), TraceError> {
    let mut table = Table::open(file, input, TableOptions::default())?;
    let id = table.require(&["job_id"])?;
    let gpus = table.require(&["num_gpu"])?;
    let submit = table.require(&["submit_time"])?;
    let duration = table.require(&["duration"])?;
    let model = table.require(&["model_name"])?;
    let iterations = table.column("iterations");
    while let Some(row) = table.next_row()? {
        report.rows_read += 1;
        let n = row.gpus(gpus)?;
        let mut job = TraceJob::new(row.str(id), row.non_negative(submit)?, n);
        job.duration_s = Some(row.non_negative(duration)?);
        job.model = row.opt_str(model).map(str::to_string);
        if let Some(c) = iterations {
            job.iterations = Some(f64::from(row.count(c)?));
        }
        emit(job)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(text: &str) -> Result<(Vec<TraceJob>, ReadReport), String> {
        crate::trace::formats::read_text(crate::trace::formats::TraceFormat::Tiresias, "t.csv", text)
    }

    #[test]
    fn reads_both_formats() {
        let (jobs, report) = read_str(
            "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\r\n0,1,0,606,vgg19,164,30\r\n1,8,30,133,,147,23\r\n",
        )
        .unwrap();
        assert_eq!(report.rows_read, 2);
        let mut expected = TraceJob::new("0", 0.0, 1);
        expected.duration_s = Some(164.0);
        expected.iterations = Some(606.0);
        expected.model = Some("vgg19".into());
        assert_eq!(jobs[0], expected);
        assert_eq!((jobs[1].submit_s, jobs[1].gpus, jobs[1].model.as_deref()), (30.0, 8, None));

        let (jobs, _) = read_str(
            "job_id,num_gpu,submit_time,start_time,duration,model_size,aggr_interval,model_name,model_scale\n\
             10,12,11,14,20,400,0,vgg19,1\n",
        )
        .unwrap();
        let j = &jobs[0];
        assert_eq!((j.source_id.as_str(), j.gpus, j.submit_s, j.duration_s), ("10", 12, 11.0, Some(20.0)));
        assert_eq!((j.model.as_deref(), j.iterations), (Some("vgg19"), None));
    }

    #[test]
    fn bad_rows_name_line_and_column() {
        let header = "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n0,1,0,606,vgg19,164,30\n";
        let cases = [
            ("1,0,0,6,vgg19,1,3", "t.csv:3: column `num_gpu`: expected at least 1 GPU, found 0"),
            (
                "1,2.5,0,6,vgg19,1,3",
                "t.csv:3: column `num_gpu`: expected a whole number from 0 to 4294967295, found `2.5`",
            ),
            ("1,1,-3,6,vgg19,1,3", "t.csv:3: column `submit_time`: expected a number >= 0, found `-3`"),
            ("1,1,0,6,vgg19,x,3", "t.csv:3: column `duration`: expected a number >= 0, found `x`"),
            (
                "1,1,0,-6,vgg19,1,3",
                "t.csv:3: column `iterations`: expected a whole number from 0 to 4294967295, found `-6`",
            ),
            ("1,1,0,6,vgg19,1,3,9", "t.csv:3: expected 7 fields as in the header, found 8"),
        ];
        for (row, expected) in cases {
            assert_eq!(read_str(&format!("{header}{row}\n")).unwrap_err(), expected);
        }
        assert_eq!(
            read_str("job_id,num_gpu,submit_time,model_name\n").unwrap_err(),
            "t.csv:1: the header lacks column `duration`; found: job_id,num_gpu,submit_time,model_name"
        );
    }
}
