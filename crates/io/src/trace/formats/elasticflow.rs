//! ElasticFlow (ASPLOS'23) job traces: jobs with a model, a global batch size, a number of
//! iterations and a deadline, as ElasticFlow's simulator reads them.
//!
//! Sources:
//! - github.com/gudiandian/ElasticFlow-artifact @ b3f5ea4 (Apache-2.0),
//!   `ElasticFlow/traces_for_ElasticFlow/`: `elasticVpollux_e.csv` (195 jobs, T4 models),
//!   `philly_103959.csv` (876 jobs), `resnet_cifar_trace.csv` (5 jobs); and the output of its
//!   `trace_generator/generate_trace.py` (e.g. the Figure-10 `100jobs_1500lam.csv`);
//! - github.com/microsoft/elasticflow-traces @ 277ed24 (MIT), `data/elasticflow-traces.tar.gz`:
//!   `195job.csv` and `cluster01.csv` .. `cluster10.csv` (the ITP jobs with models and deadlines).
//!
//! Four headers, one meaning:
//! - F1, the generator's: `job_id,submit_time,iteration,model_name,ddl,batch_size,num_gpu,duration,best_effort`;
//! - F2, `elasticVpollux_e.csv`: F1 without `best_effort`;
//! - F3, `philly_103959.csv`: F2 plus `real_iteration` and `real_duration`, which the scheduler
//!   ignores (it reads `iteration` and `duration`; they are equal in the shipped file);
//! - F4, microsoft/elasticflow-traces: `submission_time`, `num_iteration` and `deadline` for
//!   `submit_time`, `iteration` and `ddl` (ElasticFlow renames them when it adds a job).
//!
//! Columns:
//! - `job_id`: row number (F1-F3) or a UUID (F4);
//! - `submit_time`: seconds from the trace's origin;
//! - `iteration`: total iterations, = `duration` x throughput(model, batch, `num_gpu`); the
//!   elastic policies run jobs by it with an iterations/s table;
//! - `model_name`: the key of that throughput table (A100 or T4 model names);
//! - `ddl`: absolute deadline in seconds, on the submission clock;
//! - `batch_size`: global batch size (split across the job's GPUs);
//! - `num_gpu`: GPUs requested (the fixed-size baselines run the job at this size);
//! - `duration`: run time in seconds at `num_gpu` GPUs (the baselines' job length);
//! - `best_effort` (F1 only): 1 = no deadline (ElasticFlow sets `ddl` to `sys.maxsize` and leaves
//!   the job out of the deadline-satisfaction ratio, so `deadline_s` is `None`), 0 = deadline job.
//!   Without the column every job has its deadline and `best_effort` is unknown (`None`).
//!
//! Every row is a job; none is dropped.

use super::{Detect, Emit, FormatInfo, Head, TraceFormat};
use crate::trace::input::{Table, TableOptions};
use crate::trace::{ReadReport, TraceError, TraceJob};
use std::io::BufRead;
use std::path::Path;

pub const FORMAT: FormatInfo = FormatInfo {
    format: TraceFormat::Elasticflow,
    name: "elasticflow",
    summary: "ElasticFlow traces: generator output, elasticVpollux, philly_103959, elasticflow-traces (model, batch, iterations, deadline, best-effort)",
    detect: Detect::Header(detect),
    read,
};

/// `model_name`, `batch_size` and a deadline (`ddl` or `deadline`) among the columns.
fn detect(head: &Head) -> bool {
    head.has("model_name") && head.has("batch_size") && (head.has("ddl") || head.has("deadline"))
}

pub fn read(
    file: &Path,
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    emit: &mut Emit<'_>,
) -> Result<(), TraceError> {
    let mut table = Table::open(file, input, TableOptions::default())?;
    let id = table.require(&["job_id"])?;
    let submit = table.require(&["submit_time", "submission_time"])?;
    let iterations = table.require(&["iteration", "num_iteration"])?;
    let model = table.require(&["model_name"])?;
    let deadline = table.require(&["ddl", "deadline"])?;
    let batch = table.require(&["batch_size"])?;
    let gpus = table.require(&["num_gpu"])?;
    let duration = table.require(&["duration"])?;
    let best_effort = table.column("best_effort");
    while let Some(row) = table.next_row()? {
        report.rows_read += 1;
        let n = row.gpus(gpus)?;
        let mut job = TraceJob::new(row.str(id), row.non_negative(submit)?, n);
        job.duration_s = Some(row.non_negative(duration)?);
        job.iterations = Some(f64::from(row.count(iterations)?));
        let name = row.opt_str(model).ok_or_else(|| row.error(model, "expected a model name, found nothing"))?;
        job.model = Some(name.to_string());
        job.batch_size = Some(row.count(batch)?);
        let ddl = row.non_negative(deadline)?;
        match best_effort.map(|c| (c, row.str(c))) {
            None => job.deadline_s = Some(ddl),
            Some((_, "0")) => (job.best_effort, job.deadline_s) = (Some(false), Some(ddl)),
            Some((_, "1")) => job.best_effort = Some(true),
            Some((c, other)) => return Err(row.error(c, format!("expected 0 or 1, found `{other}`"))),
        }
        emit(job)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(text: &str) -> Result<(Vec<TraceJob>, ReadReport), String> {
        crate::trace::formats::read_text(crate::trace::formats::TraceFormat::Elasticflow, "e.csv", text)
    }

    #[test]
    fn generator_rows_with_and_without_deadlines() {
        let (jobs, report) = read_str(
            "job_id,submit_time,iteration,model_name,ddl,batch_size,num_gpu,duration,best_effort\n\
             0,0,7246,resnet50,5896,256,1,3930,0\n1,4686,19793,gpt2,11932,128,8,4830,1\n",
        )
        .unwrap();
        assert_eq!(report.rows_read, 2);
        let mut expected = TraceJob::new("0", 0.0, 1);
        expected.duration_s = Some(3930.0);
        expected.iterations = Some(7246.0);
        expected.model = Some("resnet50".into());
        expected.batch_size = Some(256);
        expected.deadline_s = Some(5896.0);
        expected.best_effort = Some(false);
        assert_eq!(jobs[0], expected);
        assert_eq!((jobs[1].gpus, jobs[1].best_effort, jobs[1].deadline_s), (8, Some(true), None));
    }

    #[test]
    fn elasticflow_traces_columns_are_aliases() {
        let (jobs, _) = read_str(
            "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n\
             bdd640fb,3715485,3249,deepspeech2,3716178,32,1,1075\n",
        )
        .unwrap();
        let j = &jobs[0];
        assert_eq!(
            (j.source_id.as_str(), j.submit_s, j.iterations, j.deadline_s),
            ("bdd640fb", 3715485.0, Some(3249.0), Some(3716178.0))
        );
        assert_eq!(
            (j.model.as_deref(), j.batch_size, j.duration_s, j.best_effort),
            (Some("deepspeech2"), Some(32), Some(1075.0), None)
        );
    }

    #[test]
    fn philly_103959_uses_iteration_and_duration_not_the_real_columns() {
        let (jobs, _) = read_str(
            "job_id,submit_time,real_iteration,model_name,ddl,batch_size,num_gpu,real_duration,duration,iteration\n\
             1,219316,1,vgg16,2065619,64,4,2,1792395,26446831\n",
        )
        .unwrap();
        assert_eq!((jobs[0].iterations, jobs[0].duration_s, jobs[0].gpus), (Some(26446831.0), Some(1792395.0), 4));
    }

    #[test]
    fn bad_rows_name_line_and_column() {
        let header = "job_id,submit_time,iteration,model_name,ddl,batch_size,num_gpu,duration,best_effort\n";
        let cases = [
            ("0,0,7,m,9,256,0,3,0", "e.csv:2: column `num_gpu`: expected at least 1 GPU, found 0"),
            ("0,-1,7,m,9,256,1,3,0", "e.csv:2: column `submit_time`: expected a number >= 0, found `-1`"),
            (
                "0,0,7.5,m,9,256,1,3,0",
                "e.csv:2: column `iteration`: expected a whole number from 0 to 4294967295, found `7.5`",
            ),
            ("0,0,7,,9,256,1,3,0", "e.csv:2: column `model_name`: expected a model name, found nothing"),
            ("0,0,7,m,soon,256,1,3,0", "e.csv:2: column `ddl`: expected a number >= 0, found `soon`"),
            ("0,0,7,m,9,256,1,3,yes", "e.csv:2: column `best_effort`: expected 0 or 1, found `yes`"),
            ("0,0,7,m,9,256,1,3", "e.csv:2: expected 9 fields as in the header, found 8 (truncated row?)"),
        ];
        for (row, expected) in cases {
            assert_eq!(read_str(&format!("{header}{row}\n")).unwrap_err(), expected);
        }
        assert_eq!(
            read_str("job_id,submit_time,iteration,model_name,batch_size,num_gpu,duration\n").unwrap_err(),
            "e.csv:1: the header lacks column `ddl` or `deadline`; found: job_id,submit_time,iteration,model_name,batch_size,num_gpu,duration"
        );
    }
}
