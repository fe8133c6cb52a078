//! Synergy (OSDI'22) deployment traces: headerless `job_id,model,arrival,iterations,gpus` rows.
//!
//! Source: github.com/msr-fiddle/synergy @ 1bb2bed (MIT),
//! `simulator/deploy_trace/static_100job_6_3_1100.0` (100 jobs), as
//! `simulator/jobs/workload.py:populate_from_trace` reads it. Columns:
//! - `job_id`: integer id;
//! - `model`: a key of Synergy's model zoo (alexnet, res18, gnmt, lstm, ...), whose profile gives
//!   the iteration time and the CPU/memory sensitivity;
//! - `arrival`: seconds from the trace's origin (the static trace spaces jobs 1 ms apart only to
//!   order them);
//! - `iterations`: total iterations to run;
//! - `gpus`: GPUs of the job.
//!
//! There is no duration column: Synergy runs the iterations at its model's iteration time, so a
//! job of a model in the zoo gets as duration its iterations at the default profile set's
//! iteration time (the GPU-proportional share on 3 CPUs per GPU, `profiles::synergy`); Synergy's
//! policies count iterations themselves. A job of another model has no duration. Every row is a
//! GPU job; none is dropped.

use super::{Detect, Emit, FormatInfo, Head, TraceFormat};
use crate::profiles::synergy::{self, CpusPerGpu};
use crate::trace::input::{Header, Table, TableOptions};
use crate::trace::{ReadReport, TraceError, TraceJob};
use std::io::BufRead;
use std::path::Path;

pub const FORMAT: FormatInfo = FormatInfo {
    format: TraceFormat::SynergyDeploy,
    name: "synergy-deploy",
    summary: "Synergy deploy trace (headerless): job_id,model,arrival,iterations,gpus",
    detect: Detect::FirstRow(detect),
    read,
};

/// A deploy row: integer id, model name, arrival, iterations, GPUs.
fn detect(head: &Head) -> bool {
    let cols = &head.columns;
    cols.len() == 5
        && cols[0].parse::<u64>().is_ok()
        && cols[1].parse::<f64>().is_err()
        && cols[2..].iter().all(|c| c.parse::<f64>().is_ok())
}

const COLUMNS: &[&str] = &["job_id", "model", "arrival", "iterations", "gpus"];

pub fn read(
    file: &Path,
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    emit: &mut Emit<'_>,
) -> Result<(), TraceError> {
    let options = TableOptions { header: Header::Positional(COLUMNS), ..TableOptions::default() };
    let mut table = Table::open(file, input, options)?;
    let id = table.require(&["job_id"])?;
    let model = table.require(&["model"])?;
    let arrival = table.require(&["arrival"])?;
    let iterations = table.require(&["iterations"])?;
    let gpus = table.require(&["gpus"])?;
    while let Some(row) = table.next_row()? {
        report.rows_read += 1;
        let n = row.gpus(gpus)?;
        let name = row.opt_str(model).ok_or_else(|| row.error(model, "expected a model name, found nothing"))?;
        let mut job = TraceJob::new(row.str(id), row.non_negative(arrival)?, n);
        let count = f64::from(row.count(iterations)?);
        job.iterations = Some(count);
        if let Some(class) = synergy::MODELS.iter().position(|m| *m == name) {
            job.duration_s = Some(count * synergy::profile(class, CpusPerGpu::Three).iteration_s);
        }
        job.model = Some(name.to_string());
        emit(job)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(text: &str) -> Result<(Vec<TraceJob>, ReadReport), String> {
        crate::trace::formats::read_text(crate::trace::formats::TraceFormat::SynergyDeploy, "s", text)
    }

    #[test]
    fn reads_rows() {
        let (jobs, report) = read_str("0,alexnet,0.0,3349,1\n1,gnmt,0.001,26435,4\n").unwrap();
        assert_eq!(report.rows_read, 2);
        let mut expected = TraceJob::new("1", 0.001, 4);
        expected.iterations = Some(26435.0);
        expected.duration_s = Some(26435.0 * 0.12);
        expected.model = Some("gnmt".into());
        assert_eq!(jobs[1], expected);
        assert_eq!((jobs[0].source_id.as_str(), jobs[0].submit_s, jobs[0].duration_s), ("0", 0.0, Some(3349.0 * 0.6)));
        let (other, _) = read_str("0,bert,0.0,10,1\n").unwrap();
        assert_eq!(other[0].duration_s, None, "a model outside the zoo has no duration");
    }

    #[test]
    fn bad_rows_name_line_and_column() {
        let cases = [
            ("7,res18,2.5,100,0", "s:2: column `gpus`: expected at least 1 GPU, found 0"),
            ("7,res18,-2.5,100,1", "s:2: column `arrival`: expected a number >= 0, found `-2.5`"),
            (
                "7,res18,2.5,1e2.5,1",
                "s:2: column `iterations`: expected a whole number from 0 to 4294967295, found `1e2.5`",
            ),
            ("7,,2.5,100,1", "s:2: column `model`: expected a model name, found nothing"),
            ("7,res18,2.5,100", "s:2: expected 5 fields as in the header, found 4 (truncated row?)"),
        ];
        for (row, expected) in cases {
            assert_eq!(read_str(&format!("0,alexnet,0.0,3349,1\n{row}\n")).unwrap_err(), expected);
        }
    }
}
