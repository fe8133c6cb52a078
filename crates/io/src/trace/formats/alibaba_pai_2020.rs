//! Alibaba PAI GPU cluster trace 2020 (Weng et al., "MLaaS in the Wild: Workload Analysis and
//! Scheduling in Large-Scale Heterogeneous GPU Clusters", NSDI'22).
//!
//! Source: github.com/alibaba/clusterdata, `cluster-trace-gpu-v2020/` (CC-BY-4.0; the tables are
//! downloaded from Aliyun OSS, the repository holds their `.header` files): July..August 2020 on
//! about 6,500 GPUs. The reader is given `pai_task_table.csv` and joins it with
//! `pai_job_table.csv` from the same directory; both are headerless CSV. One job per task that
//! asks for GPUs, `source_id` = `job_name/task_name`; `rows_read` counts task rows. The job table
//! is read whole first (its users held in memory); tasks are then emitted row by row.
//!
//! Task table columns (by position):
//! - `job_name`, `task_name`: the job and the task's role in it (`worker`, `ps`, `tensorflow`, ...);
//! - `inst_num`: instances of the task, which run together (a gang);
//! - `status`: `Terminated` (succeeded), `Failed`, `Running`, `Waiting`, ...; kept as `status`,
//!   not filtered here (transforms filter by status);
//! - `start_time`, `end_time`: seconds on the trace's shifted clock (real times minus a constant),
//!   when the task was launched and completed; empty or 0 when not recorded (a task that never
//!   launched or was still running at the end of the trace), dropped and counted;
//! - `plan_gpu`: GPUs per instance in percent of one GPU (100 = 1 GPU, 25 = a quarter, 800 = 8);
//!   empty or 0 = a CPU-only task, dropped and counted;
//! - `plan_cpu`, `plan_mem`, `gpu_type`: not used (blox models neither CPUs, memory nor GPU types).
//!
//! Job table columns (by position): `job_name`, the join key; `user`, kept as `user` (a task whose
//! job is missing from the table keeps no user, counted as adjusted). Not used: `inst_id`,
//! `status`, `start_time` (the job's submission) and `end_time`.
//!
//! GPUs: the gang takes `inst_num` times the per-instance GPUs. A per-instance share below one GPU
//! becomes one whole GPU per instance with `gpu_share = plan_gpu / 100`; a non-whole count above
//! one GPU (e.g. 150) is rounded up to whole GPUs; both are counted as adjusted.
//!
//! Times: `submit_s` = task `start_time` and duration = `end_time - start_time`. The task table has
//! no separate run start: `start_time` is when the task was launched to the scheduler (Alibaba's
//! own analysis measures instance wait as instance `start_time` minus task `start_time`), so the
//! duration includes the wait of its instances. The per-instance times are in
//! `pai_instance_table.csv` (663 MB compressed), which this reader does not read. A task ending
//! before it starts is dropped and counted.

use super::{Detect, Emit, FormatInfo, Head, TraceFormat};
use crate::trace::input::{Errors, Header, Table, TableOptions};
use crate::trace::{ReadReport, TraceError, TraceJob};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

pub const FORMAT: FormatInfo = FormatInfo {
    format: TraceFormat::AlibabaPai2020,
    name: "alibaba-pai-2020",
    summary: "Alibaba PAI 2020 pai_task_table.csv joined with pai_job_table.csv beside it (headerless); gang GPUs = instances x per-instance GPUs",
    detect: Detect::FirstRow(detect),
    read,
};

/// A task-table row: [`TASK_COLUMNS`] with a known `status`.
fn detect(head: &Head) -> bool {
    head.columns.len() == TASK_COLUMNS.len()
        && matches!(head.columns[3], "Terminated" | "Failed" | "Running" | "Waiting" | "Interrupted")
}

/// The job table, looked for beside the task table.
const JOB_TABLE: &str = "pai_job_table.csv";

const TASK_COLUMNS: &[&str] = &[
    "job_name",
    "task_name",
    "inst_num",
    "status",
    "start_time",
    "end_time",
    "plan_cpu",
    "plan_mem",
    "plan_gpu",
    "gpu_type",
];

const JOB_COLUMNS: &[&str] = &["job_name", "inst_id", "user", "status", "start_time", "end_time"];

/// `plan_gpu` of one whole GPU.
const WHOLE_GPU_PERCENT: f64 = 100.0;

pub fn read(
    file: &Path,
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    emit: &mut Emit<'_>,
) -> Result<(), TraceError> {
    let job_path = file.with_file_name(JOB_TABLE);
    let job_file = File::open(&job_path).map_err(|e| {
        Errors::new(file).at(
            None,
            None,
            format!(
                "the task table is joined with `{}` from the same directory, which cannot be read: {e}",
                job_path.display()
            ),
        )
    })?;
    let users = read_users(&job_path, Box::new(BufReader::new(job_file)))?;
    read_tasks(file, input, &users, report, emit)
}

/// `job_name -> user` (empty when the table has none) from the job table.
fn read_users(file: &Path, input: Box<dyn BufRead + '_>) -> Result<HashMap<String, String>, TraceError> {
    let mut table =
        Table::open(file, input, TableOptions { header: Header::Positional(JOB_COLUMNS), ..Default::default() })?;
    let job = table.require(&["job_name"])?;
    let user = table.require(&["user"])?;
    let mut users = HashMap::new();
    while let Some(row) = table.next_row()? {
        let Some(name) = row.opt_str(job) else {
            return Err(row.error(job, "expected a job name, found an empty field"));
        };
        let who = row.str(user);
        if let Some(before) = users.insert(name.to_string(), who.to_string())
            && before != who
        {
            return Err(row.error(user, format!("job `{name}` appears again with another user (`{before}`)")));
        }
    }
    Ok(users)
}

fn read_tasks(
    file: &Path,
    input: Box<dyn BufRead + '_>,
    users: &HashMap<String, String>,
    report: &mut ReadReport,
    emit: &mut Emit<'_>,
) -> Result<(), TraceError> {
    let mut table =
        Table::open(file, input, TableOptions { header: Header::Positional(TASK_COLUMNS), ..Default::default() })?;
    let job = table.require(&["job_name"])?;
    let task = table.require(&["task_name"])?;
    let instances = table.require(&["inst_num"])?;
    let status = table.require(&["status"])?;
    let start = table.require(&["start_time"])?;
    let end = table.require(&["end_time"])?;
    let plan_gpu = table.require(&["plan_gpu"])?;
    while let Some(row) = table.next_row()? {
        report.rows_read += 1;
        let Some(job_name) = row.opt_str(job) else {
            return Err(row.error(job, "expected a job name, found an empty field"));
        };
        let inst_num = row.count(instances)?;
        let percent = row.opt_non_negative(plan_gpu)?.unwrap_or(0.0);
        let started = row.opt_non_negative(start)?.filter(|&t| t > 0.0);
        let ended = row.opt_non_negative(end)?.filter(|&t| t > 0.0);
        if percent == 0.0 {
            report.drop_row(FORMAT.name, "no GPU (plan_gpu empty or 0)");
            continue;
        }
        if inst_num == 0 {
            report.drop_row(FORMAT.name, "0 instances");
            continue;
        }
        let Some(started) = started else {
            report.drop_row(FORMAT.name, "no start_time (never launched)");
            continue;
        };
        let Some(ended) = ended else {
            report.drop_row(FORMAT.name, "no end_time (still running at the end of the trace)");
            continue;
        };
        if ended < started {
            report.drop_row(FORMAT.name, "end_time before start_time");
            continue;
        }
        let per_instance = percent / WHOLE_GPU_PERCENT;
        let whole = per_instance.ceil();
        let gpus = f64::from(inst_num) * whole;
        if gpus > f64::from(u32::MAX) {
            return Err(row.row_error(format!("{inst_num} instances x {whole} GPUs is too many GPUs")));
        }
        let mut out = TraceJob::new(format!("{job_name}/{}", row.str(task)), started, gpus as u32);
        if per_instance < 1.0 {
            out.gpu_share = Some(per_instance);
            report.adjust_rows(
                FORMAT.name,
                "shares one GPU per instance (plan_gpu < 100): kept as whole GPUs with gpu_share",
                1,
            );
        } else if whole != per_instance {
            report.adjust_rows(
                FORMAT.name,
                "non-whole GPUs per instance (plan_gpu not a multiple of 100) rounded up",
                1,
            );
        }
        out.duration_s = Some(ended - started);
        out.status = row.opt_str(status).map(str::to_string);
        match users.get(job_name) {
            Some(user) => out.user = Some(user.clone()).filter(|u| !u.is_empty()),
            None => report.adjust_rows(FORMAT.name, "job missing from pai_job_table.csv: no user", 1),
        }
        emit(out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::formats::collect;
    use std::fs;

    const JOBS: &str = "j1,i1,alice,Terminated,1000.0,9000.0\nj2,i2,bob,Failed,2000.0,3000.0\nj3,i3,,Running,3000.0,\n";

    fn read_dir(tasks: &str, jobs: Option<&str>) -> (tempfile::TempDir, Result<(Vec<TraceJob>, ReadReport), String>) {
        let dir = tempfile::tempdir().unwrap();
        let task_path = dir.path().join("pai_task_table.csv");
        fs::write(&task_path, tasks).unwrap();
        if let Some(jobs) = jobs {
            fs::write(dir.path().join(JOB_TABLE), jobs).unwrap();
        }
        let mut report = ReadReport::default();
        let result = collect(|emit| read(&task_path, Box::new(tasks.as_bytes()), &mut report, emit))
            .map(|j| (j, report))
            .map_err(|e| e.to_string().replace(&dir.path().display().to_string(), "DIR"));
        (dir, result)
    }

    #[test]
    fn gangs_shares_and_the_user_join() {
        let tasks = "j1,worker,2.0,Terminated,1739162.0,1739200.0,600.0,29.296875,50.0,MISC\n\
                     j1,ps,1.0,Terminated,1739100.0,1739300.0,600.0,29.296875,,\n\
                     j2,tensorflow,1.0,Failed,100.0,700.0,600.0,29.3,800.0,V100\n\
                     j2,evaluator,3.0,Failed,100.0,160.0,600.0,29.3,150.0,V100\n\
                     j3,worker,1.0,Running,3000.0,,600.0,29.3,100.0,T4\n\
                     j3,ps,1.0,Waiting,0.0,0.0,600.0,29.3,100.0,T4\n\
                     j4,worker,1.0,Terminated,50.0,40.0,600.0,29.3,100.0,T4\n\
                     j5,worker,0,Terminated,50.0,60.0,600.0,29.3,100.0,T4\n\
                     j6,worker,1.0,Terminated,10.0,70.0,600.0,29.3,100.0,T4\n";
        let (_dir, result) = read_dir(tasks, Some(JOBS));
        let (jobs, report) = result.unwrap();
        let view: Vec<_> = jobs
            .iter()
            .map(|j| (j.source_id.as_str(), j.submit_s, j.gpus, j.gpu_share, j.duration_s, j.user.as_deref()))
            .collect();
        assert_eq!(
            view,
            [
                ("j1/worker", 1739162.0, 2, Some(0.5), Some(38.0), Some("alice")),
                ("j2/tensorflow", 100.0, 8, None, Some(600.0), Some("bob")),
                ("j2/evaluator", 100.0, 6, None, Some(60.0), Some("bob")),
                ("j6/worker", 10.0, 1, None, Some(60.0), None),
            ]
        );
        assert_eq!(jobs[0].status.as_deref(), Some("Terminated"));
        assert_eq!(report.rows_read, 9);
        let dropped: Vec<(&str, u64)> = report.dropped.iter().map(|c| (c.reason.as_str(), c.rows)).collect();
        assert_eq!(
            dropped,
            [
                ("no GPU (plan_gpu empty or 0)", 1),
                ("no end_time (still running at the end of the trace)", 1),
                ("no start_time (never launched)", 1),
                ("end_time before start_time", 1),
                ("0 instances", 1),
            ]
        );
        let adjusted: Vec<(&str, u64)> = report.adjusted.iter().map(|c| (c.reason.as_str(), c.rows)).collect();
        assert_eq!(
            adjusted,
            [
                ("shares one GPU per instance (plan_gpu < 100): kept as whole GPUs with gpu_share", 1),
                ("non-whole GPUs per instance (plan_gpu not a multiple of 100) rounded up", 1),
                ("job missing from pai_job_table.csv: no user", 1),
            ]
        );
    }

    #[test]
    fn a_missing_job_table_names_both_files() {
        let (_dir, result) = read_dir("j1,worker,1,Terminated,1,2,600,29.3,100,T4\n", None);
        let err = result.unwrap_err();
        assert!(
            err.starts_with(
                "DIR/pai_task_table.csv: the task table is joined with `DIR/pai_job_table.csv` from the same directory, which cannot be read:"
            ),
            "{err}"
        );
    }

    #[test]
    fn bad_rows_name_file_line_and_column() {
        let cases = [
            (
                "j1,worker,1,Terminated,1,2,600,29.3,1x,T4\n",
                JOBS,
                "DIR/pai_task_table.csv:1: column `plan_gpu`: expected a number >= 0, found `1x`",
            ),
            (
                "j1,worker,1.5,Terminated,1,2,600,29.3,100,T4\n",
                JOBS,
                "DIR/pai_task_table.csv:1: column `inst_num`: expected a whole number from 0 to 4294967295, found `1.5`",
            ),
            (
                "j1,worker,1,Terminated,1,2,600,29.3,100\n",
                JOBS,
                "DIR/pai_task_table.csv:1: expected 10 fields as in the header, found 9 (truncated row?)",
            ),
            (
                "j1,worker,1,Terminated,1,2,600,29.3,100,T4\n",
                "j1,i1,alice,Terminated,1,2\nj1,i1,eve,Terminated,1,2\n",
                "DIR/pai_job_table.csv:2: column `user`: job `j1` appears again with another user (`alice`)",
            ),
            (
                "j1,worker,1,Terminated,1,2,600,29.3,100,T4\n",
                "j1,i1,alice,Terminated,1\n",
                "DIR/pai_job_table.csv:1: expected 6 fields as in the header, found 5 (truncated row?)",
            ),
        ];
        for (tasks, jobs, expected) in cases {
            let (_dir, result) = read_dir(tasks, Some(jobs));
            assert_eq!(result.unwrap_err(), expected, "{tasks}");
        }
    }
}
