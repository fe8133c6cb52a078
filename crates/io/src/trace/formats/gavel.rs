//! Gavel (OSDI'20) `.trace` files: headerless, tab-separated, one job per line, in two layouts
//! told apart by the first line's field count.
//!
//! Source: github.com/stanford-futuredata/gavel @ c4fa400 (MIT), `scheduler/traces/`:
//! - `msr/seed=<n>/<vc>.trace`, 7 fields, one file per Philly virtual cluster (at most 2,000 jobs):
//!   `job_type, command, num_steps_arg, needs_data_dir, total_steps, arrival_time, scale_factor`;
//! - `physical_cluster/*.trace`, 10 fields, as `scheduler/utils.py:parse_trace` reads them:
//!   `job_type, command, working_directory, num_steps_arg, needs_data_dir, total_steps,
//!   scale_factor, priority_weight, SLO, arrival_time`.
//!
//! What each field means to Gavel's simulator (`docs/gavel-semantics.md` §1.4) and what blox keeps:
//! - `job_type`: the key of Gavel's throughput table, `<model> (batch size <b>)` (e.g.
//!   `ResNet-50 (batch size 64)`) or a bare model (`A3C`, `CycleGAN`). Kept whole as the model,
//!   since Gavel's policies look throughputs up by it (as `gavel-generator`'s jobs carry it); the
//!   batch size is also read from it when it has that shape;
//! - `total_steps`: training steps (iterations) to run, the work Gavel's policies count;
//! - `scale_factor`: GPUs of the job (Gavel asserts >= 1);
//! - `arrival_time`: seconds from the trace's origin;
//! - `priority_weight`: a fairness weight, which Gavel's max-min fairness policies divide a job's
//!   throughput by. The canonical record has no such weight and blox's policies run every job at
//!   weight 1 (as every shipped trace and published run does), so a row with another weight is an
//!   error naming it rather than a job silently weighted 1;
//! - `SLO`: a deadline as a multiple of the job's isolated duration, read by the simulator only
//!   when it assigns SLOs itself, which its trace driver never does (and a trace job has no
//!   duration for it); ignored;
//! - `command`, `working_directory`, `num_steps_arg`, `needs_data_dir`: how a physical run
//!   launches the job; ignored.
//!
//! There is no duration: Gavel derives run time from `total_steps` and a throughput per GPU type.
//! The `trace:` workload gives each job the duration at its type's V100 throughput (as
//! `gavel-generator` defines its jobs' work), so that any policy can run it. Gavel numbers jobs in
//! file order; `source_id` is the 0-based row number.
//!
//! Every row is a GPU job; none is dropped.

use super::{Detect, Emit, FormatInfo, Head, Layout, TraceFormat};
use crate::trace::input::{Errors, Header, Table, TableOptions};
use crate::trace::{ReadReport, TraceError, TraceJob};
use std::io::BufRead;
use std::path::Path;

pub const FORMAT: FormatInfo = FormatInfo {
    format: TraceFormat::Gavel,
    name: "gavel",
    summary: "Gavel .trace TSV (msr per-VC traces and physical-cluster traces): job type, steps, arrival, scale factor",
    detect: Detect::Header(detect),
    read,
};

/// A tab-separated first row of 7 or 10 fields.
fn detect(head: &Head) -> bool {
    matches!(head.layout, Layout::Tabs(7 | 10))
}

const MSR_COLUMNS: &[&str] =
    &["job_type", "command", "num_steps_arg", "needs_data_dir", "total_steps", "arrival_time", "scale_factor"];

const PHYSICAL_COLUMNS: &[&str] = &[
    "job_type",
    "command",
    "working_directory",
    "num_steps_arg",
    "needs_data_dir",
    "total_steps",
    "scale_factor",
    "priority_weight",
    "SLO",
    "arrival_time",
];

pub fn read(
    file: &Path,
    mut input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    emit: &mut Emit<'_>,
) -> Result<(), TraceError> {
    let errors = Errors::new(file);
    let columns = match first_row_shape(input.as_mut()).map_err(|e| errors.io(&e))? {
        None => return Err(errors.at(None, None, "the file is empty; expected tab-separated job rows")),
        Some((_, 7)) => MSR_COLUMNS,
        Some((_, 10)) => PHYSICAL_COLUMNS,
        Some((line, n)) => {
            return Err(errors.at(
                Some(line),
                None,
                format!(
                    "expected 7 tab-separated fields (an msr per-VC trace) or 10 (a physical-cluster trace), found {n}"
                ),
            ));
        }
    };
    let options = TableOptions { delimiter: b'\t', header: Header::Positional(columns), comment: None };
    let mut table = Table::open(file, input, options)?;
    let job_type = table.require(&["job_type"])?;
    let steps = table.require(&["total_steps"])?;
    let gpus = table.require(&["scale_factor"])?;
    let arrival = table.require(&["arrival_time"])?;
    let weight = table.column("priority_weight");
    while let Some(row) = table.next_row()? {
        report.rows_read += 1;
        let n = row.gpus(gpus)?;
        let kind = row.opt_str(job_type).ok_or_else(|| row.error(job_type, "expected a job type, found nothing"))?;
        if let Some(column) = weight {
            let w = row.f64(column)?;
            if w != 1.0 {
                return Err(row.error(
                    column,
                    format!(
                        "priority weight {w}: blox runs every job at weight 1 (as Gavel's shipped traces and published runs do); \
                         Gavel's max-min fairness policies would weigh this job by it"
                    ),
                ));
            }
        }
        let mut job = TraceJob::new((report.rows_read - 1).to_string(), row.non_negative(arrival)?, n);
        job.iterations = Some(f64::from(row.count(steps)?));
        job.model = Some(kind.to_string());
        job.batch_size = batch_size(kind);
        emit(job)?;
    }
    Ok(())
}

/// The line and field count of the first non-blank line, looked for in what `input` has buffered
/// (a Gavel row is under 1 KiB, the buffer tens of KiB); `None` when the input is empty.
fn first_row_shape(input: &mut dyn BufRead) -> std::io::Result<Option<(u64, usize)>> {
    let head = input.fill_buf()?;
    Ok(head
        .split(|&b| b == b'\n')
        .enumerate()
        .find(|(_, line)| !line.iter().all(u8::is_ascii_whitespace))
        .map(|(i, line)| (i as u64 + 1, line.iter().filter(|&&b| b == b'\t').count() + 1)))
}

/// `ResNet-50 (batch size 64)` -> 64; a job type without that shape names no batch size.
fn batch_size(job_type: &str) -> Option<u32> {
    let (_, batch) = job_type.strip_suffix(')')?.split_once(" (batch size ")?;
    batch.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(text: &str) -> Result<(Vec<TraceJob>, ReadReport), String> {
        crate::trace::formats::read_text(crate::trace::formats::TraceFormat::Gavel, "g.trace", text)
    }

    #[test]
    fn msr_traces_have_seven_fields() {
        let (jobs, report) = read_str(
            "Transformer (batch size 128)\tcd %s && python3 train.py\t-step\t1\t95121\t6.000000\t4\n\
             A3C\tcd %s && python3 main.py\t--max-steps\t0\t3000\t0.000000\t1\n",
        )
        .unwrap();
        assert_eq!(report.rows_read, 2);
        let mut expected = TraceJob::new("0", 6.0, 4);
        expected.iterations = Some(95121.0);
        expected.model = Some("Transformer (batch size 128)".into());
        expected.batch_size = Some(128);
        assert_eq!(jobs[0], expected);
        assert_eq!(
            (jobs[1].source_id.as_str(), jobs[1].model.as_deref(), jobs[1].batch_size),
            ("1", Some("A3C"), None)
        );
    }

    #[test]
    fn physical_cluster_traces_have_ten_fields() {
        let (jobs, _) = read_str(
            "\nResNet-50 (batch size 64)\tpython3 main.py -b 64\timage_classification/imagenet\t--num_minibatches\t1\t2931\t2\t1\t-1.000000\t3600\n",
        )
        .unwrap();
        let j = &jobs[0];
        assert_eq!((j.submit_s, j.gpus, j.iterations), (3600.0, 2, Some(2931.0)));
        assert_eq!(
            (j.model.as_deref(), j.batch_size, j.duration_s),
            (Some("ResNet-50 (batch size 64)"), Some(64), None)
        );
    }

    #[test]
    fn batch_sizes_come_from_job_types_of_that_shape() {
        assert_eq!(batch_size("LM (batch size 5)"), Some(5));
        assert_eq!(batch_size("CycleGAN"), None);
        assert_eq!(batch_size("LM (batch size x)"), None);
        assert_eq!(batch_size("LM (batch size 5"), None);
    }

    /// Gavel's max-min fairness divides a job's throughput by its priority weight; blox has no
    /// weight to carry, so a weight other than 1 is refused where it is written.
    #[test]
    fn priority_weights_other_than_one_are_refused() {
        let row = |weight: &str| format!("A3C\tpython3 main.py\trl\t--max-steps\t0\t3000\t1\t{weight}\t-1.000000\t0\n");
        assert!(read_str(&row("1.000000")).is_ok());
        let error = read_str(&format!("{}{}", row("1"), row("2.5"))).unwrap_err();
        assert!(
            error.starts_with(
                "g.trace:2: column `priority_weight`: priority weight 2.5: blox runs every job at weight 1"
            ),
            "{error}"
        );
    }

    #[test]
    fn bad_inputs_name_line_and_column() {
        let good = "A3C\tc\t-n\t0\t10\t0\t1\n";
        let cases = [
            ("A3C\tc\t-n\t0\t10\t0\t0\n", "g.trace:2: column `scale_factor`: expected at least 1 GPU, found 0"),
            ("A3C\tc\t-n\t0\t10\t-5\t1\n", "g.trace:2: column `arrival_time`: expected a number >= 0, found `-5`"),
            (
                "A3C\tc\t-n\t0\tmany\t0\t1\n",
                "g.trace:2: column `total_steps`: expected a whole number from 0 to 4294967295, found `many`",
            ),
            ("\tc\t-n\t0\t10\t0\t1\n", "g.trace:2: column `job_type`: expected a job type, found nothing"),
            ("A3C\tc\t-n\t0\t10\t0\n", "g.trace:2: expected 7 fields as in the header, found 6 (truncated row?)"),
        ];
        for (row, expected) in cases {
            assert_eq!(read_str(&format!("{good}{row}")).unwrap_err(), expected);
        }
        assert_eq!(
            read_str("\n\nA3C\tc\t-n\t0\t10\t0\t1\t2\n").unwrap_err(),
            "g.trace:3: expected 7 tab-separated fields (an msr per-VC trace) or 10 (a physical-cluster trace), found 8"
        );
        assert_eq!(read_str("").unwrap_err(), "g.trace: the file is empty; expected tab-separated job rows");
    }
}
