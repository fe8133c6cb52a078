//! Alibaba cluster-trace-gpu-v2023 pod lists (Weng et al., "Beware of Fragmentation: Scheduling
//! GPU-Sharing Workloads with Fragmentation Gradient Descent", ATC'23).
//!
//! Source: github.com/alibaba/clusterdata @ 7a6c496, `cluster-trace-gpu-v2023/csv/
//! openb_pod_list_*.csv` (no license file in the folder; the repository asks that the traces be
//! used for study or research and the paper cited). `openb_pod_list_default.csv` holds 8,152 pods
//! of a production GPU cluster; the other lists are resampled from it (those without the time
//! columns cannot be read: the columns are required). Columns used, by name:
//! - `name`: pod name, kept as `source_id`;
//! - `num_gpu`: GPUs of the pod, 0..8; CPU-only pods (0) are dropped and counted;
//! - `gpu_milli`: thousandths of one GPU, defined for 1-GPU pods (GPU sharing); a 1-GPU pod with
//!   `gpu_milli < 1000` keeps `gpus = 1` and `gpu_share = gpu_milli / 1000`, counted as adjusted;
//!   below 1000 on a multi-GPU pod is an error (undefined in the source);
//! - `pod_phase`: last phase (`Running`, `Succeeded`, `Failed`, `Pending`), kept as `status`;
//! - `creation_time`: seconds from the trace's origin; the submission time (`submit_s`);
//! - `scheduled_time`: seconds, when the pod was bound to a node; empty (or 0 after a later
//!   creation) for pods never scheduled, which are dropped and counted;
//! - `deletion_time`: seconds, when the pod was deleted; empty ones are dropped and counted.
//!
//! Duration = `deletion_time - scheduled_time`: the time the pod held its GPUs. The time from
//! creation to scheduling is queueing in the production cluster, which a simulator replays itself
//! (`creation_time` is the arrival); never-scheduled pods held no GPU and have no run time.
//! (Statistics of `deletion - creation` over all GPU pods, the never-scheduled ones included, have
//! other quantiles; `tests/trace_readers_cluster.rs` checks both.) Pods whose last phase
//! is `Running` were deleted while running; their run time is kept as recorded.
//!
//! Not used: `cpu_milli`, `memory_mib`, `qos`, and `gpu_spec` (GPU models a pod may run on, e.g.
//! `V100M16|V100M32`; blox's clusters have one GPU type, and the default list leaves it empty).

use super::{Detect, Emit, FormatInfo, Head, TraceFormat};
use crate::trace::input::{Table, TableOptions};
use crate::trace::{ReadReport, TraceError, TraceJob};
use std::io::BufRead;
use std::path::Path;

pub const FORMAT: FormatInfo = FormatInfo {
    format: TraceFormat::Alibaba2023,
    name: "alibaba-2023",
    summary: "Alibaba cluster-trace-gpu-v2023 openb_pod_list_*.csv (pods, fractional GPU shares)",
    detect: Detect::Header(detect),
    read,
};

/// `num_gpu`, `gpu_milli` and `creation_time` among the columns.
fn detect(head: &Head) -> bool {
    ["num_gpu", "gpu_milli", "creation_time"].iter().all(|c| head.has(c))
}

/// `gpu_milli` of a whole GPU.
const WHOLE_GPU_MILLI: u32 = 1000;

pub fn read(
    file: &Path,
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    emit: &mut Emit<'_>,
) -> Result<(), TraceError> {
    let mut table = Table::open(file, input, TableOptions::default())?;
    let name = table.require(&["name"])?;
    let num_gpu = table.require(&["num_gpu"])?;
    let gpu_milli = table.require(&["gpu_milli"])?;
    let created = table.require(&["creation_time"])?;
    let scheduled = table.require(&["scheduled_time"])?;
    let deleted = table.require(&["deletion_time"])?;
    let phase = table.column("pod_phase");
    while let Some(row) = table.next_row()? {
        report.rows_read += 1;
        let n = row.count(num_gpu)?;
        let milli = row.count(gpu_milli)?;
        let created_at = row.non_negative(created)?;
        let scheduled_at = row.opt_non_negative(scheduled)?;
        let deleted_at = row.opt_non_negative(deleted)?;
        if n == 0 {
            report.drop_row(FORMAT.name, "0 GPUs (CPU-only pod)");
            continue;
        }
        if milli == 0 || milli > WHOLE_GPU_MILLI {
            return Err(row.error(gpu_milli, format!("expected 1..=1000 thousandths of a GPU, found `{milli}`")));
        }
        if milli < WHOLE_GPU_MILLI && n > 1 {
            return Err(row.error(
                gpu_milli,
                format!("a GPU share below 1000 is defined for 1-GPU pods only; this pod has {n} GPUs"),
            ));
        }
        let scheduled_at = match scheduled_at {
            Some(s) if s == 0.0 && created_at > 0.0 => None,
            other => other,
        };
        let Some(scheduled_at) = scheduled_at else {
            report.drop_row(FORMAT.name, "never scheduled (no scheduled_time)");
            continue;
        };
        let Some(deleted_at) = deleted_at else {
            report.drop_row(FORMAT.name, "no deletion_time");
            continue;
        };
        if scheduled_at < created_at {
            return Err(row.error(
                scheduled,
                format!("scheduled at {scheduled_at} s, before the pod was created at {created_at} s"),
            ));
        }
        if deleted_at < scheduled_at {
            return Err(row.error(
                deleted,
                format!("deleted at {deleted_at} s, before the pod was scheduled at {scheduled_at} s"),
            ));
        }
        let mut job = TraceJob::new(row.str(name), created_at, n);
        job.duration_s = Some(deleted_at - scheduled_at);
        if milli < WHOLE_GPU_MILLI {
            job.gpu_share = Some(f64::from(milli) / f64::from(WHOLE_GPU_MILLI));
            report.adjust_rows(FORMAT.name, "shares one GPU (gpu_milli < 1000): kept as 1 GPU with gpu_share", 1);
        }
        job.status = phase.and_then(|c| row.opt_str(c)).map(str::to_string);
        emit(job)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

    fn read_str(text: &str) -> Result<(Vec<TraceJob>, ReadReport), String> {
        crate::trace::formats::read_text(crate::trace::formats::TraceFormat::Alibaba2023, "a.csv", text)
    }

    #[test]
    fn pods_become_jobs_with_shares_and_counted_drops() {
        let text = format!(
            "{HEADER}\
             openb-pod-0000,12000,16384,1,1000,,LS,Running,0,12537496,0\n\
             openb-pod-0001,6000,12288,1,460,,LS,Succeeded,427061,12902960,427065\n\
             openb-pod-0017,88000,327680,8,1000,V100M16|V100M32,Burstable,Failed,9437497,10769854,9437500\n\
             openb-pod-0020,4000,8192,0,0,,BE,Running,500,900,500\n\
             openb-pod-0021,4000,8192,1,1000,,BE,Pending,600,900,\n\
             openb-pod-0022,4000,8192,2,1000,,BE,Pending,700,900,0\n"
        );
        let (jobs, report) = read_str(&text).unwrap();
        let view: Vec<_> =
            jobs.iter().map(|j| (j.source_id.as_str(), j.submit_s, j.gpus, j.duration_s, j.gpu_share)).collect();
        assert_eq!(
            view,
            [
                ("openb-pod-0000", 0.0, 1, Some(12537496.0), None),
                ("openb-pod-0001", 427061.0, 1, Some(12475895.0), Some(0.46)),
                ("openb-pod-0017", 9437497.0, 8, Some(1332354.0), None),
            ]
        );
        assert_eq!(jobs[2].status.as_deref(), Some("Failed"));
        assert_eq!(report.rows_read, 6);
        let dropped: Vec<(&str, u64)> = report.dropped.iter().map(|c| (c.reason.as_str(), c.rows)).collect();
        assert_eq!(dropped, [("0 GPUs (CPU-only pod)", 1), ("never scheduled (no scheduled_time)", 2)]);
        assert_eq!(report.adjusted.len(), 1);
        assert_eq!(report.adjusted[0].rows, 1);
    }

    #[test]
    fn bad_rows_name_line_and_column() {
        let cases = [
            (
                "p,1,1,1,0,,LS,Running,0,5,0",
                "a.csv:2: column `gpu_milli`: expected 1..=1000 thousandths of a GPU, found `0`",
            ),
            (
                "p,1,1,2,500,,LS,Running,0,5,0",
                "a.csv:2: column `gpu_milli`: a GPU share below 1000 is defined for 1-GPU pods only; this pod has 2 GPUs",
            ),
            (
                "p,1,1,1,1000,,LS,Running,10,5,8",
                "a.csv:2: column `scheduled_time`: scheduled at 8 s, before the pod was created at 10 s",
            ),
            (
                "p,1,1,1,1000,,LS,Running,10,11,12",
                "a.csv:2: column `deletion_time`: deleted at 11 s, before the pod was scheduled at 12 s",
            ),
            ("p,1,1,1,1000,,LS,Running,,11,12", "a.csv:2: column `creation_time`: expected a number >= 0, found ``"),
            (
                "p,1,1,-1,1000,,LS,Running,0,11,0",
                "a.csv:2: column `num_gpu`: expected a whole number from 0 to 4294967295, found `-1`",
            ),
        ];
        for (row, expected) in cases {
            assert_eq!(read_str(&format!("{HEADER}{row}\n")).unwrap_err(), expected, "{row}");
        }
    }
}
