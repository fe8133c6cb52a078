//! Muri (SIGCOMM'22) traces: Philly-derived jobs with a per-iteration time profile of each resource
//! stage, which Muri uses to interleave jobs on the same GPUs.
//!
//! Source: github.com/Rivendile/Muri @ 4e69a78 (Apache-2.0), `simulator/trace-data/*.csv`
//! (trace1-4, their `_pr` variants with every job at time 0, job_type_1-4) and
//! `cluster_exp/trace-data/cluster_trace.csv` (the 400-job testbed trace). Times are in
//! milliseconds (the simulator divides them by 1000); they become seconds here. Columns:
//! - `job_id`: the job's id;
//! - `num_gpu`: GPUs of the job;
//! - `submit_time`: ms from the trace's origin;
//! - `iterations`: total iterations;
//! - `model_name`: vgg16, resnet18, bert, a2c, ...; selects the restart overhead (with a default),
//!   so an empty one is kept as no model;
//! - `batch_size`: batch size of the profile;
//! - `duration`: run time in ms when the job runs alone (about `iterations` x `iteration_time`);
//! - `iteration_time`: ms per iteration when the job runs alone;
//! - `resource_time_0`, `_1`, `_2`: ms per iteration spent in data loading and CPU preprocessing,
//!   in GPU compute and in network synchronisation (0 for 1-GPU jobs), the stage order Muri
//!   interleaves.
//!
//! - `priority` (optional): 0 for a resource-guaranteed job, 1 for an opportunistic one, the class
//!   the AntMan baseline schedules by.
//!
//! Ignored: `interval` (the gap to the previous submission, derivable).
//!
//! Every row is a GPU job; none is dropped.

use super::{Detect, Emit, FormatInfo, Head, TraceFormat};
use crate::trace::input::{Table, TableOptions};
use crate::trace::{ReadReport, StageTimes, TraceError, TraceJob};
use std::io::BufRead;
use std::path::Path;

pub const FORMAT: FormatInfo = FormatInfo {
    format: TraceFormat::Muri,
    name: "muri",
    summary: "Muri trace CSV in milliseconds, with per-stage resource times",
    detect: Detect::Header(detect),
    read,
};

/// `iteration_time` and `resource_time_0` among the columns.
fn detect(head: &Head) -> bool {
    head.has("iteration_time") && head.has("resource_time_0")
}

/// Milliseconds per second.
const MS_PER_S: f64 = 1000.0;

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
    let iterations = table.require(&["iterations"])?;
    let model = table.require(&["model_name"])?;
    let batch = table.require(&["batch_size"])?;
    let duration = table.require(&["duration"])?;
    let iteration_time = table.require(&["iteration_time"])?;
    let storage_cpu = table.require(&["resource_time_0"])?;
    let gpu = table.require(&["resource_time_1"])?;
    let network = table.require(&["resource_time_2"])?;
    let priority = table.column("priority");
    while let Some(row) = table.next_row()? {
        report.rows_read += 1;
        let n = row.gpus(gpus)?;
        let mut job = TraceJob::new(row.str(id), row.non_negative(submit)? / MS_PER_S, n);
        job.duration_s = Some(row.non_negative(duration)? / MS_PER_S);
        job.iterations = Some(f64::from(row.count(iterations)?));
        job.model = row.opt_str(model).map(str::to_string);
        job.batch_size = Some(row.count(batch)?);
        job.stages = Some(StageTimes {
            iteration_s: row.non_negative(iteration_time)? / MS_PER_S,
            storage_cpu_s: row.non_negative(storage_cpu)? / MS_PER_S,
            gpu_s: row.non_negative(gpu)? / MS_PER_S,
            network_s: row.non_negative(network)? / MS_PER_S,
        });
        job.priority = match priority {
            Some(column) if !row.str(column).is_empty() => Some(row.count(column)?),
            _ => None,
        };
        emit(job)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "job_id,num_gpu,submit_time,iterations,model_name,batch_size,duration,interval,iteration_time,resource_time_0,resource_time_1,resource_time_2,priority\r\n";

    fn read_str(text: &str) -> Result<(Vec<TraceJob>, ReadReport), String> {
        crate::trace::formats::read_text(crate::trace::formats::TraceFormat::Muri, "m.csv", text)
    }

    #[test]
    fn milliseconds_become_seconds() {
        let (jobs, report) = read_str(&format!(
            "{HEADER}1,8,201694000,8787693,dqn,128,4472936000,201694000,509,435,8,0.5,0\r\n1493,1,10817570000,35739,gpt2,4,15225000,31000,426,0.6,410,0,0\r\n"
        ))
        .unwrap();
        assert_eq!(report.rows_read, 2);
        let mut expected = TraceJob::new("1", 201694.0, 8);
        expected.duration_s = Some(4472936.0);
        expected.iterations = Some(8787693.0);
        expected.model = Some("dqn".into());
        expected.batch_size = Some(128);
        expected.stages =
            Some(StageTimes { iteration_s: 0.509, storage_cpu_s: 0.435, gpu_s: 0.008, network_s: 0.0005 });
        expected.priority = Some(0);
        assert_eq!(jobs[0], expected);
        assert_eq!((jobs[1].submit_s, jobs[1].duration_s), (10817570.0, Some(15225.0)));
        assert_eq!(jobs[1].stages.map(|s| (s.iteration_s, s.gpu_s, s.network_s)), Some((0.426, 0.41, 0.0)));
    }

    #[test]
    fn priority_is_optional_and_a_class_number() {
        let row = "1,8,0,10,dqn,128,5090,0,509,435,8,0.5";
        let without = HEADER.replace(",priority", "");
        let (jobs, _) = read_str(&format!("{without}{row}\r\n")).unwrap();
        assert_eq!(jobs[0].priority, None);
        let (jobs, _) = read_str(&format!("{HEADER}{row},1\r\n{row},\r\n")).unwrap();
        assert_eq!((jobs[0].priority, jobs[1].priority), (Some(1), None));
        let err = read_str(&format!("{HEADER}{row},high\r\n")).unwrap_err();
        assert!(err.contains("column `priority`") && err.contains("whole number"), "{err}");
    }

    #[test]
    fn bad_rows_name_line_and_column() {
        let cases = [
            ("0,0,0,5,dqn,128,9,0,490,446,8,0,1", "m.csv:2: column `num_gpu`: expected at least 1 GPU, found 0"),
            ("0,1,0,5,dqn,128,-9,0,490,446,8,0,1", "m.csv:2: column `duration`: expected a number >= 0, found `-9`"),
            (
                "0,1,0,5,dqn,128,9,0,490,446,8,fast,1",
                "m.csv:2: column `resource_time_2`: expected a number >= 0, found `fast`",
            ),
            (
                "0,1,0,5,dqn,1e3.5,9,0,490,446,8,0,1",
                "m.csv:2: column `batch_size`: expected a whole number from 0 to 4294967295, found `1e3.5`",
            ),
            (
                "0,1,0,5,dqn,128,9,0,490,446,8,0",
                "m.csv:2: expected 13 fields as in the header, found 12 (truncated row?)",
            ),
        ];
        for (row, expected) in cases {
            assert_eq!(read_str(&format!("{HEADER}{row}\n")).unwrap_err(), expected);
        }
        assert_eq!(
            read_str("job_id,num_gpu,submit_time,iterations,model_name,batch_size,duration,iteration_time\n")
                .unwrap_err(),
            "m.csv:1: the header lacks column `resource_time_0`; found: job_id,num_gpu,submit_time,iterations,model_name,batch_size,duration,iteration_time"
        );
    }
}
