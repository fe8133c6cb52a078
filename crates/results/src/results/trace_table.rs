//! The canonical trace table as Parquet (`blox trace convert --to parquet`): one row per job, the
//! columns of [`crate::trace::CANONICAL_COLUMNS`], nulls where the source format has no value.

use super::error::{AtPath, ResultsError};
use super::store::create_temp;
use super::tables::{TableBuilder, write_parquet};
use crate::trace::TraceJob;
use arrow_array::{BooleanArray, Float64Array, Int64Array, StringArray};
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use std::path::Path;
use std::sync::Arc;

/// Writes `jobs` to `path`; `metadata` (e.g. source file and format) goes into the key-value
/// metadata.
pub fn write_trace_parquet(path: &Path, jobs: &[TraceJob], metadata: &[(&str, &str)]) -> Result<(), ResultsError> {
    let text = |f: fn(&TraceJob) -> Option<&str>| Arc::new(StringArray::from_iter(jobs.iter().map(f)));
    let real = |f: fn(&TraceJob) -> Option<f64>| Arc::new(Float64Array::from_iter(jobs.iter().map(f)));
    let stage = |f: fn(&crate::trace::StageTimes) -> f64| {
        Arc::new(Float64Array::from_iter(jobs.iter().map(|j| j.stages.as_ref().map(f))))
    };
    let batch = TableBuilder::default()
        .column("source_id", false, Arc::new(StringArray::from_iter_values(jobs.iter().map(|j| j.source_id.as_str()))))
        .column("submit_s", false, Arc::new(Float64Array::from_iter_values(jobs.iter().map(|j| j.submit_s))))
        .column("gpus", false, Arc::new(Int64Array::from_iter_values(jobs.iter().map(|j| i64::from(j.gpus)))))
        .column("gpu_share", true, real(|j| j.gpu_share))
        .column("duration_s", true, real(|j| j.duration_s))
        .column("iterations", true, real(|j| j.iterations))
        .column("model", true, text(|j| j.model.as_deref()))
        .column("batch_size", true, Arc::new(Int64Array::from_iter(jobs.iter().map(|j| j.batch_size.map(i64::from)))))
        .column("deadline_s", true, real(|j| j.deadline_s))
        .column("best_effort", true, Arc::new(BooleanArray::from_iter(jobs.iter().map(|j| j.best_effort))))
        .column("iteration_s", true, stage(|s| s.iteration_s))
        .column("storage_cpu_s", true, stage(|s| s.storage_cpu_s))
        .column("gpu_s", true, stage(|s| s.gpu_s))
        .column("network_s", true, stage(|s| s.network_s))
        .column("user", true, text(|j| j.user.as_deref()))
        .column("vc", true, text(|j| j.vc.as_deref()))
        .column("status", true, text(|j| j.status.as_deref()))
        .column("priority", true, Arc::new(Int64Array::from_iter(jobs.iter().map(|j| j.priority.map(i64::from)))))
        .finish()
        .at(path)?;
    let metadata = metadata.iter().map(|(k, v)| KeyValue::new(k.to_string(), v.to_string())).collect();
    let properties =
        WriterProperties::builder().set_compression(Compression::SNAPPY).set_key_value_metadata(Some(metadata)).build();
    let (temp, file) = create_temp(path).at(path)?;
    let written = write_parquet(file, &temp, &batch, properties).and_then(|_| std::fs::rename(&temp, path).at(path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}
