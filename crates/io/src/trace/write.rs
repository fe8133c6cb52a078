//! The canonical trace as CSV (`blox trace convert --to csv`): every [`TraceJob`] field as a
//! column, empty where the source has no value. The `canonical` format reads it back unchanged.

use super::TraceJob;
use std::io::Write;

/// Column names of the canonical trace, in order (CSV and Parquet).
pub const CANONICAL_COLUMNS: [&str; 18] = [
    "source_id",
    "submit_s",
    "gpus",
    "gpu_share",
    "duration_s",
    "iterations",
    "model",
    "batch_size",
    "deadline_s",
    "best_effort",
    "iteration_s",
    "storage_cpu_s",
    "gpu_s",
    "network_s",
    "user",
    "vc",
    "status",
    "priority",
];

/// Writes `jobs` as canonical CSV. Numbers use Rust's shortest round-trip form, so reading the
/// file back gives the same values.
pub fn write_canonical_csv(out: impl Write, jobs: &[TraceJob]) -> csv::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    writer.write_record(CANONICAL_COLUMNS)?;
    let num = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
    let text = |x: &Option<String>| x.clone().unwrap_or_default();
    for job in jobs {
        let stage = |f: fn(&super::StageTimes) -> f64| num(job.stages.as_ref().map(f));
        writer.write_record([
            job.source_id.clone(),
            job.submit_s.to_string(),
            job.gpus.to_string(),
            num(job.gpu_share),
            num(job.duration_s),
            num(job.iterations),
            text(&job.model),
            job.batch_size.map(|b| b.to_string()).unwrap_or_default(),
            num(job.deadline_s),
            job.best_effort.map(|b| if b { "1" } else { "0" }.to_string()).unwrap_or_default(),
            stage(|s| s.iteration_s),
            stage(|s| s.storage_cpu_s),
            stage(|s| s.gpu_s),
            stage(|s| s.network_s),
            text(&job.user),
            text(&job.vc),
            text(&job.status),
            job.priority.map(|p| p.to_string()).unwrap_or_default(),
        ])?;
    }
    writer.flush()?;
    Ok(())
}
