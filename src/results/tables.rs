//! Writing and reading the three Parquet tables of a run.
//!
//! Under the experiment directory: `runs/<run_key>.parquet` (one row), `jobs/<run_key>.parquet`
//! (one row per tracked job) and `timeline/<run_key>.parquet` (one row per round). Every table
//! starts with the run's grid keys, so each can be filtered or joined on its own. Types are chosen
//! for every reader (pyarrow, DuckDB, Polars, Spark): simulated times and durations are Float64
//! seconds with an `_s` suffix, ids and counts Int64 (Java has no unsigned integers), names Utf8,
//! and a missing value is null, never NaN.

use std::any::type_name;
use std::collections::HashMap;
use std::fs::{self, File};
use std::io;
use std::iter::repeat_n;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;

use super::error::{AtPath, ResultsError, ResultsErrorKind};
use super::store::create_temp;
use super::{Provenance, RunInfo, RunRow};
use crate::core::{DeadlineStats, JobRecord, RunOutput, RunSummary, TimelineRow};

pub(super) const RUNS_TABLE: &str = "runs";
const JOBS_TABLE: &str = "jobs";
const TIMELINE_TABLE: &str = "timeline";
/// The three tables, in the order a run publishes them.
pub(super) const RESULT_TABLES: [&str; 3] = [JOBS_TABLE, TIMELINE_TABLE, RUNS_TABLE];

/// Key-value metadata key of the experiment spec's YAML text, in every file.
pub const METADATA_SPEC: &str = "blox.spec";
/// Key-value metadata key of the hex SHA-256 of the spec, in every file.
pub const METADATA_SPEC_SHA256: &str = "blox.spec_sha256";
/// Key-value metadata key of the blox version that wrote the file.
pub const METADATA_VERSION: &str = "blox.version";
/// Key-value metadata key of the run key, so a file renamed or merged elsewhere still says which run it holds.
pub const METADATA_RUN_KEY: &str = "blox.run_key";

/// Writes the run's three tables: each to a fresh hidden temporary file in its table directory,
/// then publishes them by renaming, jobs and timeline first and the runs file last, because the
/// runs file marks the run complete. A crash before the last rename leaves only hidden files
/// (which [`tidy`](super::store::tidy) removes) or, in the instant between renames, jobs/timeline
/// files without a runs file (which `tidy` sets aside as incomplete).
///
/// Rewriting a run first deletes its runs file, so the run never looks complete with a mix of old
/// and new tables. The caller holds the run's [`RunLock`](super::store::RunLock).
pub fn write_run(
    experiment_dir: &Path,
    info: &RunInfo,
    output: &RunOutput,
    wall_time_s: f64,
    provenance: &Provenance,
) -> Result<(), ResultsError> {
    check_run_key(experiment_dir, &info.run_key)?;
    let file = |table| experiment_dir.join(table).join(format!("{}.parquet", info.run_key));
    let runs_path = file(RUNS_TABLE);
    match fs::remove_file(&runs_path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(ResultsError::new(&runs_path, e)),
        _ => {}
    }
    let properties = writer_properties(&info.run_key, provenance);
    let batches = [
        (JOBS_TABLE, jobs_batch(info, provenance, &output.jobs)),
        (TIMELINE_TABLE, timeline_batch(info, provenance, &output.timeline)),
        (RUNS_TABLE, runs_batch(info, provenance, &output.summary, wall_time_s)),
    ];
    let mut temporaries = Vec::new();
    let write_and_publish = || {
        for (table, batch) in batches {
            let path = file(table);
            let dir = experiment_dir.join(table);
            fs::create_dir_all(&dir).at(&dir)?;
            let batch = batch.and_then(|b| with_schema_metadata(b, &info.run_key, provenance)).at(&path)?;
            let (temp, handle) = create_temp(&path).at(&path)?;
            temporaries.push((temp.clone(), path));
            write_parquet(handle, &temp, &batch, properties.clone())?;
        }
        for (temp, path) in &temporaries {
            fs::rename(temp, path).at(path)?;
        }
        Ok(())
    };
    let written = write_and_publish();
    if written.is_err() {
        // Best effort: the write error matters more than a leftover hidden file, which `tidy`
        // removes on the next run.
        for (temp, _) in &temporaries {
            let _ = fs::remove_file(temp);
        }
    }
    written
}

/// The run row of `run_key` if its runs file exists and reads back as that run; `Ok(None)` if
/// there is no runs file; an error naming the file if it is damaged or holds another run.
pub fn complete_run(experiment_dir: &Path, run_key: &str) -> Result<Option<RunRow>, ResultsError> {
    check_run_key(experiment_dir, run_key)?;
    let path = experiment_dir.join(RUNS_TABLE).join(format!("{run_key}.parquet"));
    if !path.exists() {
        return Ok(None);
    }
    read_run_file(&path, run_key).map(Some)
}

/// The single row of one runs file, which must be the row of `run_key`.
pub(super) fn read_run_file(path: &Path, run_key: &str) -> Result<RunRow, ResultsError> {
    let mut rows = read_table(path, run_rows)?;
    match rows.len() {
        1 => {
            let row = rows.pop().expect("one row");
            if row.info.run_key == run_key {
                Ok(row)
            } else {
                Err(ResultsError::new(path, ResultsErrorKind::ForeignRun(row.info.run_key)))
            }
        }
        n => Err(ResultsError::new(path, ResultsErrorKind::RowCount(n))),
    }
}

/// Every complete run of the experiment, in run-key order; empty when none has finished yet.
pub fn read_runs(experiment_dir: &Path) -> Result<Vec<RunRow>, ResultsError> {
    let mut rows = Vec::new();
    for path in parquet_files(&experiment_dir.join(RUNS_TABLE))? {
        rows.extend(read_table(&path, run_rows)?);
    }
    Ok(rows)
}

/// The tracked jobs of one run, in the order the run recorded them.
pub fn read_jobs(experiment_dir: &Path, run_key: &str) -> Result<Vec<JobRecord>, ResultsError> {
    check_run_key(experiment_dir, run_key)?;
    read_table(&experiment_dir.join(JOBS_TABLE).join(format!("{run_key}.parquet")), job_rows)
}

/// The per-round cluster state of one run.
pub fn read_timeline(experiment_dir: &Path, run_key: &str) -> Result<Vec<TimelineRow>, ResultsError> {
    check_run_key(experiment_dir, run_key)?;
    read_table(&experiment_dir.join(TIMELINE_TABLE).join(format!("{run_key}.parquet")), timeline_rows)
}

fn is_valid_run_key(run_key: &str) -> bool {
    !run_key.is_empty() && !run_key.starts_with('.') && !run_key.contains(['/', '\\', '\0'])
}

fn check_run_key(experiment_dir: &Path, run_key: &str) -> Result<(), ResultsError> {
    if is_valid_run_key(run_key) {
        Ok(())
    } else {
        Err(ResultsError::new(experiment_dir, ResultsErrorKind::InvalidRunKey(run_key.to_owned())))
    }
}

/// Writes `batch` into `file` (a fresh temporary at `path`) and syncs it.
pub(super) fn write_parquet(
    file: File,
    path: &Path,
    batch: &RecordBatch,
    properties: WriterProperties,
) -> Result<(), ResultsError> {
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(properties)).at(path)?;
    writer.write(batch).at(path)?;
    let file = writer.into_inner().at(path)?;
    // The rename must not reach the disk before the data it publishes.
    file.sync_all().at(path)
}

/// The provenance every file carries: the spec's text and SHA-256, the blox build, the run key.
fn provenance_metadata(run_key: &str, provenance: &Provenance) -> [(String, String); 4] {
    [
        (METADATA_SPEC, provenance.spec_yaml.as_str()),
        (METADATA_SPEC_SHA256, provenance.spec_sha256.as_str()),
        (METADATA_VERSION, provenance.blox_version.as_str()),
        (METADATA_RUN_KEY, run_key),
    ]
    .map(|(key, value)| (key.to_owned(), value.to_owned()))
}

/// Snappy compression and the provenance in the footer's key-value metadata.
fn writer_properties(run_key: &str, provenance: &Provenance) -> WriterProperties {
    let metadata = provenance_metadata(run_key, provenance).map(|(key, value)| KeyValue::new(key, value));
    WriterProperties::builder()
        // arrow-rs writes uncompressed by default; Snappy is readable everywhere.
        .set_compression(Compression::SNAPPY)
        .set_key_value_metadata(Some(metadata.to_vec()))
        .build()
}

/// `batch` with the provenance also in its Arrow schema's metadata, which is where pyarrow
/// (`pq.read_table(f).schema.metadata`), Polars and DuckDB users look; the footer key-values alone
/// are only visible through `pq.read_metadata`.
fn with_schema_metadata(
    batch: RecordBatch,
    run_key: &str,
    provenance: &Provenance,
) -> Result<RecordBatch, ResultsErrorKind> {
    let schema = batch.schema().as_ref().clone().with_metadata(HashMap::from(provenance_metadata(run_key, provenance)));
    Ok(batch.with_schema(Arc::new(schema))?)
}

/// A record batch under construction: each column is added with its field, so names, types and
/// values cannot drift apart.
#[derive(Default)]
pub(super) struct TableBuilder {
    fields: Vec<Field>,
    columns: Vec<ArrayRef>,
}

impl TableBuilder {
    pub(super) fn column(mut self, name: &str, nullable: bool, array: ArrayRef) -> Self {
        self.fields.push(Field::new(name, array.data_type().clone(), nullable));
        self.columns.push(array);
        self
    }

    fn utf8<'a>(self, name: &str, values: impl IntoIterator<Item = &'a str>) -> Self {
        self.column(name, false, Arc::new(StringArray::from_iter_values(values)))
    }

    /// Unsigned Rust integers as Int64, failing rather than wrapping above `i64::MAX`.
    fn int64(self, name: &'static str, values: impl IntoIterator<Item = u64>) -> Result<Self, ResultsErrorKind> {
        let values = values
            .into_iter()
            .map(|value| {
                i64::try_from(value).map_err(|_| ResultsErrorKind::OutOfRange {
                    column: name,
                    value: value.to_string(),
                    target: "Int64",
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(self.column(name, false, Arc::new(Int64Array::from(values))))
    }

    fn float64(self, name: &str, values: impl IntoIterator<Item = f64>) -> Self {
        self.column(name, false, Arc::new(Float64Array::from_iter_values(values)))
    }

    fn nullable_float64(self, name: &str, values: impl IntoIterator<Item = Option<f64>>) -> Self {
        self.column(name, true, Arc::new(Float64Array::from_iter(values)))
    }

    fn nullable_int64(self, name: &str, values: impl IntoIterator<Item = Option<u32>>) -> Self {
        self.column(name, true, Arc::new(Int64Array::from_iter(values.into_iter().map(|v| v.map(i64::from)))))
    }

    fn nullable_boolean(self, name: &str, values: impl IntoIterator<Item = Option<bool>>) -> Self {
        self.column(name, true, Arc::new(BooleanArray::from_iter(values)))
    }

    fn boolean(self, name: &str, values: impl IntoIterator<Item = bool>) -> Self {
        let values: Vec<bool> = values.into_iter().collect();
        self.column(name, false, Arc::new(BooleanArray::from(values)))
    }

    pub(super) fn finish(self) -> Result<RecordBatch, ResultsErrorKind> {
        Ok(RecordBatch::try_new(Arc::new(Schema::new(self.fields)), self.columns)?)
    }
}

/// The grid keys of the run and the versions of the spec and of blox that wrote it, repeated on
/// each of `rows` rows.
fn with_run_info<'a>(
    info: &'a RunInfo,
    provenance: &'a Provenance,
    rows: usize,
) -> Result<TableBuilder, ResultsErrorKind> {
    let text = |value: &'a str| repeat_n(value, rows);
    Ok(TableBuilder::default()
        .utf8("spec_sha256", text(&provenance.spec_sha256))
        .utf8("blox_version", text(&provenance.blox_version))
        .utf8("experiment", text(&info.experiment))
        .utf8("run_key", text(&info.run_key))
        .utf8("label", text(&info.label))
        .utf8("scheduler", text(&info.scheduler))
        .utf8("placement", text(&info.placement))
        .utf8("admission", text(&info.admission))
        .utf8("policy_params", text(&info.policy_params))
        .utf8("cluster", text(&info.cluster))
        .int64("nodes", repeat_n(u64::from(info.nodes), rows))?
        .int64("total_gpus", repeat_n(u64::from(info.total_gpus), rows))?
        .utf8("workload", text(&info.workload))
        .nullable_float64("load", repeat_n(info.load, rows))
        .int64("seed", repeat_n(info.seed, rows))?
        .float64("round_s", repeat_n(info.round_seconds, rows)))
}

/// NaN marks "no value" in [`RunSummary`]; readers expect null for that.
fn nan_to_null(value: f64) -> Option<f64> {
    (!value.is_nan()).then_some(value)
}

fn runs_batch(
    info: &RunInfo,
    provenance: &Provenance,
    summary: &RunSummary,
    wall_time_s: f64,
) -> Result<RecordBatch, ResultsErrorKind> {
    let s = summary;
    with_run_info(info, provenance, 1)?
        .int64("tracked_jobs", [s.tracked_jobs])?
        .int64("tracked_finished", [s.tracked_finished])?
        .int64("jobs_finished", [s.jobs_finished])?
        .int64("jobs_unschedulable", [s.jobs_unschedulable])?
        .nullable_float64("avg_jct_s", [nan_to_null(s.avg_jct)])
        .nullable_float64("median_jct_s", [nan_to_null(s.median_jct)])
        .nullable_float64("p95_jct_s", [nan_to_null(s.p95_jct)])
        .nullable_float64("p99_jct_s", [nan_to_null(s.p99_jct)])
        .nullable_float64("avg_responsiveness_s", [nan_to_null(s.avg_responsiveness)])
        .nullable_float64("makespan_s", [nan_to_null(s.makespan)])
        .int64("rounds", [s.rounds])?
        .int64("preemptions", [s.preemptions])?
        .int64("promoted_jobs", [s.promoted_jobs])?
        .nullable_float64("gpu_utilization", [nan_to_null(s.gpu_utilization)])
        .int64("deadline_jobs", [s.deadlines.deadline_jobs])?
        .int64("accepted", [s.deadlines.accepted])?
        .int64("declined", [s.deadlines.declined])?
        .nullable_float64("deadline_ratio", [s.deadlines.deadline_ratio])
        .nullable_float64("best_effort_avg_jct_s", [s.deadlines.best_effort_avg_jct])
        .float64("wall_time_s", [wall_time_s])
        .finish()
}

fn jobs_batch(info: &RunInfo, provenance: &Provenance, jobs: &[JobRecord]) -> Result<RecordBatch, ResultsErrorKind> {
    let each = || jobs.iter();
    with_run_info(info, provenance, jobs.len())?
        .int64("job_id", each().map(|j| j.id))?
        .float64("arrival_s", each().map(|j| j.arrival))
        .int64("gpus", each().map(|j| u64::from(j.gpus)))?
        .float64("work_s", each().map(|j| j.work))
        .nullable_float64("first_start_s", each().map(|j| j.first_start))
        .nullable_float64("first_progress_s", each().map(|j| j.first_progress))
        .nullable_float64("finish_s", each().map(|j| j.finish))
        .nullable_float64("jct_s", each().map(JobRecord::jct))
        .nullable_float64("responsiveness_s", each().map(JobRecord::responsiveness))
        .nullable_float64("queueing_delay_s", each().map(|j| j.first_start.map(|start| start - j.arrival)))
        .int64("preemptions", each().map(|j| u64::from(j.preemptions)))?
        .float64("attained_service_s", each().map(|j| j.attained_service))
        .boolean("promoted", each().map(|j| j.promoted))
        .nullable_float64("deadline_s", each().map(|j| j.deadline))
        .boolean("best_effort", each().map(|j| j.best_effort))
        .nullable_boolean("met_deadline", each().map(|j| j.met_deadline))
        .nullable_int64("final_gpus", each().map(|j| j.final_gpus))
        .finish()
}

fn timeline_batch(
    info: &RunInfo,
    provenance: &Provenance,
    timeline: &[TimelineRow],
) -> Result<RecordBatch, ResultsErrorKind> {
    let each = || timeline.iter();
    with_run_info(info, provenance, timeline.len())?
        .float64("time_s", each().map(|t| t.time))
        .int64("free_gpus", each().map(|t| u64::from(t.free_gpus)))?
        .int64("gpu_demand", each().map(|t| t.gpu_demand))?
        .int64("running", each().map(|t| u64::from(t.running)))?
        .int64("queued", each().map(|t| u64::from(t.queued)))?
        .nullable_int64("admission_backlog", each().map(|t| t.admission_backlog))
        .int64("preemptions", each().map(|t| u64::from(t.preemptions)))?
        .nullable_float64("cluster_efficiency", each().map(|t| t.cluster_efficiency))
        .finish()
}

/// The visible `*.parquet` files of `dir` in name order, or none if `dir` does not exist yet.
pub(super) fn parquet_files(dir: &Path) -> Result<Vec<PathBuf>, ResultsError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(ResultsError::new(dir, e)),
    };
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.at(dir)?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name.ends_with(".parquet") && !name.starts_with('.') {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Reads every row of one file with `rows_of`, which turns a batch into one value per row.
fn read_table<T>(
    path: &Path,
    rows_of: impl Fn(&Columns<'_>) -> Result<Vec<T>, ResultsErrorKind>,
) -> Result<Vec<T>, ResultsError> {
    // parquet 60.1 panics instead of failing on some damaged pages (flipping single bytes of a runs
    // file hits an out-of-bounds assertion in definition-level decoding; apache/arrow-rs#7102,
    // #10107). One bad file must not take the whole summary down, and nothing half-read survives
    // the unwind, so catching it is safe.
    panic::catch_unwind(AssertUnwindSafe(|| read_table_unguarded(path, &rows_of))).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(ResultsError::new(path, ResultsErrorKind::Damaged(message)))
    })
}

fn read_table_unguarded<T>(
    path: &Path,
    rows_of: &impl Fn(&Columns<'_>) -> Result<Vec<T>, ResultsErrorKind>,
) -> Result<Vec<T>, ResultsError> {
    let file = File::open(path).at(path)?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).at(path)?;
    let schema = builder.schema().clone();
    let mut rows = Vec::new();
    let mut batches = 0;
    for batch in builder.build().at(path)? {
        let batch = batch.at(path)?;
        rows.extend(rows_of(&Columns { batch: &batch, first_row: rows.len() }).at(path)?);
        batches += 1;
    }
    if batches == 0 {
        // A file without rows still has to have the right columns.
        rows_of(&Columns { batch: &RecordBatch::new_empty(schema), first_row: 0 }).at(path)?;
    }
    Ok(rows)
}

/// The columns of one batch, looked up by name and checked for type.
struct Columns<'a> {
    batch: &'a RecordBatch,
    /// Row of the file at which this batch starts, for error messages.
    first_row: usize,
}

impl<'a> Columns<'a> {
    fn rows(&self) -> std::ops::Range<usize> {
        0..self.batch.num_rows()
    }

    fn typed<A: Array + 'static>(
        &self,
        name: &'static str,
        expected: &'static str,
    ) -> Result<Column<'a, A>, ResultsErrorKind> {
        let array = self.batch.column_by_name(name).ok_or(ResultsErrorKind::MissingColumn(name))?;
        let typed = array.as_any().downcast_ref::<A>().ok_or_else(|| ResultsErrorKind::WrongType {
            column: name,
            expected,
            found: array.data_type().clone(),
        })?;
        Ok(Column { name, array: typed, first_row: self.first_row })
    }

    fn utf8(&self, name: &'static str) -> Result<Column<'a, StringArray>, ResultsErrorKind> {
        self.typed(name, "Utf8")
    }

    fn int64(&self, name: &'static str) -> Result<Column<'a, Int64Array>, ResultsErrorKind> {
        self.typed(name, "Int64")
    }

    fn float64(&self, name: &'static str) -> Result<Column<'a, Float64Array>, ResultsErrorKind> {
        self.typed(name, "Float64")
    }

    fn boolean(&self, name: &'static str) -> Result<Column<'a, BooleanArray>, ResultsErrorKind> {
        self.typed(name, "Boolean")
    }
}

/// One typed column; `value` fails on null, naming the column and the row.
struct Column<'a, A> {
    name: &'static str,
    array: &'a A,
    first_row: usize,
}

impl<A: Array> Column<'_, A> {
    fn non_null(&self, row: usize) -> Result<(), ResultsErrorKind> {
        if self.array.is_null(row) {
            return Err(ResultsErrorKind::NullValue { column: self.name, row: self.first_row + row });
        }
        Ok(())
    }
}

impl Column<'_, StringArray> {
    fn value(&self, row: usize) -> Result<String, ResultsErrorKind> {
        self.non_null(row)?;
        Ok(self.array.value(row).to_owned())
    }
}

impl Column<'_, Int64Array> {
    fn optional<T: TryFrom<i64>>(&self, row: usize) -> Result<Option<T>, ResultsErrorKind> {
        if self.array.is_null(row) { Ok(None) } else { self.value(row).map(Some) }
    }

    fn value<T: TryFrom<i64>>(&self, row: usize) -> Result<T, ResultsErrorKind> {
        self.non_null(row)?;
        let value = self.array.value(row);
        T::try_from(value).map_err(|_| ResultsErrorKind::OutOfRange {
            column: self.name,
            value: value.to_string(),
            target: type_name::<T>(),
        })
    }
}

impl Column<'_, Float64Array> {
    fn value(&self, row: usize) -> Result<f64, ResultsErrorKind> {
        self.non_null(row)?;
        Ok(self.array.value(row))
    }

    fn optional(&self, row: usize) -> Option<f64> {
        self.array.is_valid(row).then(|| self.array.value(row))
    }

    /// Null back to the NaN that [`RunSummary`] uses for "no value".
    fn or_nan(&self, row: usize) -> f64 {
        self.optional(row).unwrap_or(f64::NAN)
    }
}

impl Column<'_, BooleanArray> {
    fn value(&self, row: usize) -> Result<bool, ResultsErrorKind> {
        self.non_null(row)?;
        Ok(self.array.value(row))
    }

    fn optional(&self, row: usize) -> Option<bool> {
        self.array.is_valid(row).then(|| self.array.value(row))
    }
}

fn run_rows(c: &Columns<'_>) -> Result<Vec<RunRow>, ResultsErrorKind> {
    let spec_sha256 = c.utf8("spec_sha256")?;
    let experiment = c.utf8("experiment")?;
    let run_key = c.utf8("run_key")?;
    let label = c.utf8("label")?;
    let scheduler = c.utf8("scheduler")?;
    let placement = c.utf8("placement")?;
    let admission = c.utf8("admission")?;
    let policy_params = c.utf8("policy_params")?;
    let cluster = c.utf8("cluster")?;
    let nodes = c.int64("nodes")?;
    let total_gpus = c.int64("total_gpus")?;
    let workload = c.utf8("workload")?;
    let load = c.float64("load")?;
    let seed = c.int64("seed")?;
    let round_s = c.float64("round_s")?;
    let tracked_jobs = c.int64("tracked_jobs")?;
    let tracked_finished = c.int64("tracked_finished")?;
    let jobs_finished = c.int64("jobs_finished")?;
    let jobs_unschedulable = c.int64("jobs_unschedulable")?;
    let avg_jct_s = c.float64("avg_jct_s")?;
    let median_jct_s = c.float64("median_jct_s")?;
    let p95_jct_s = c.float64("p95_jct_s")?;
    let p99_jct_s = c.float64("p99_jct_s")?;
    let avg_responsiveness_s = c.float64("avg_responsiveness_s")?;
    let makespan_s = c.float64("makespan_s")?;
    let rounds = c.int64("rounds")?;
    let preemptions = c.int64("preemptions")?;
    let promoted_jobs = c.int64("promoted_jobs")?;
    let gpu_utilization = c.float64("gpu_utilization")?;
    let deadline_jobs = c.int64("deadline_jobs")?;
    let accepted = c.int64("accepted")?;
    let declined = c.int64("declined")?;
    let deadline_ratio = c.float64("deadline_ratio")?;
    let best_effort_avg_jct_s = c.float64("best_effort_avg_jct_s")?;
    let wall_time_s = c.float64("wall_time_s")?;
    c.rows()
        .map(|row| {
            Ok(RunRow {
                spec_sha256: spec_sha256.value(row)?,
                info: RunInfo {
                    experiment: experiment.value(row)?,
                    run_key: run_key.value(row)?,
                    label: label.value(row)?,
                    scheduler: scheduler.value(row)?,
                    placement: placement.value(row)?,
                    admission: admission.value(row)?,
                    policy_params: policy_params.value(row)?,
                    cluster: cluster.value(row)?,
                    nodes: nodes.value(row)?,
                    total_gpus: total_gpus.value(row)?,
                    workload: workload.value(row)?,
                    load: load.optional(row),
                    seed: seed.value(row)?,
                    round_seconds: round_s.value(row)?,
                },
                summary: RunSummary {
                    tracked_jobs: tracked_jobs.value(row)?,
                    tracked_finished: tracked_finished.value(row)?,
                    jobs_finished: jobs_finished.value(row)?,
                    jobs_unschedulable: jobs_unschedulable.value(row)?,
                    avg_jct: avg_jct_s.or_nan(row),
                    median_jct: median_jct_s.or_nan(row),
                    p95_jct: p95_jct_s.or_nan(row),
                    p99_jct: p99_jct_s.or_nan(row),
                    avg_responsiveness: avg_responsiveness_s.or_nan(row),
                    makespan: makespan_s.or_nan(row),
                    rounds: rounds.value(row)?,
                    preemptions: preemptions.value(row)?,
                    promoted_jobs: promoted_jobs.value(row)?,
                    gpu_utilization: gpu_utilization.or_nan(row),
                    deadlines: DeadlineStats {
                        deadline_jobs: deadline_jobs.value(row)?,
                        accepted: accepted.value(row)?,
                        declined: declined.value(row)?,
                        deadline_ratio: deadline_ratio.optional(row),
                        best_effort_avg_jct: best_effort_avg_jct_s.optional(row),
                    },
                },
                wall_time_s: wall_time_s.value(row)?,
            })
        })
        .collect()
}

fn job_rows(c: &Columns<'_>) -> Result<Vec<JobRecord>, ResultsErrorKind> {
    let job_id = c.int64("job_id")?;
    let arrival_s = c.float64("arrival_s")?;
    let gpus = c.int64("gpus")?;
    let work_s = c.float64("work_s")?;
    let first_start_s = c.float64("first_start_s")?;
    let first_progress_s = c.float64("first_progress_s")?;
    let finish_s = c.float64("finish_s")?;
    let preemptions = c.int64("preemptions")?;
    let attained_service_s = c.float64("attained_service_s")?;
    let promoted = c.boolean("promoted")?;
    let deadline_s = c.float64("deadline_s")?;
    let best_effort = c.boolean("best_effort")?;
    let met_deadline = c.boolean("met_deadline")?;
    let final_gpus = c.int64("final_gpus")?;
    c.rows()
        .map(|row| {
            Ok(JobRecord {
                id: job_id.value(row)?,
                arrival: arrival_s.value(row)?,
                gpus: gpus.value(row)?,
                work: work_s.value(row)?,
                first_start: first_start_s.optional(row),
                first_progress: first_progress_s.optional(row),
                finish: finish_s.optional(row),
                preemptions: preemptions.value(row)?,
                attained_service: attained_service_s.value(row)?,
                promoted: promoted.value(row)?,
                deadline: deadline_s.optional(row),
                best_effort: best_effort.value(row)?,
                met_deadline: met_deadline.optional(row),
                final_gpus: final_gpus.optional(row)?,
            })
        })
        .collect()
}

fn timeline_rows(c: &Columns<'_>) -> Result<Vec<TimelineRow>, ResultsErrorKind> {
    let time_s = c.float64("time_s")?;
    let free_gpus = c.int64("free_gpus")?;
    let gpu_demand = c.int64("gpu_demand")?;
    let running = c.int64("running")?;
    let queued = c.int64("queued")?;
    let admission_backlog = c.int64("admission_backlog")?;
    let preemptions = c.int64("preemptions")?;
    let cluster_efficiency = c.float64("cluster_efficiency")?;
    c.rows()
        .map(|row| {
            Ok(TimelineRow {
                time: time_s.value(row)?,
                free_gpus: free_gpus.value(row)?,
                gpu_demand: gpu_demand.value(row)?,
                running: running.value(row)?,
                queued: queued.value(row)?,
                admission_backlog: admission_backlog.optional(row)?,
                preemptions: preemptions.value(row)?,
                cluster_efficiency: cluster_efficiency.optional(row),
            })
        })
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::results::RunRow;

    pub(in crate::results) fn info(run_key: &str) -> RunInfo {
        RunInfo {
            experiment: "blox-fig7".to_owned(),
            run_key: run_key.to_owned(),
            label: "las load=6".to_owned(),
            scheduler: "las".to_owned(),
            placement: "consolidated".to_owned(),
            admission: "accept_all".to_owned(),
            policy_params: r#"{"scheduler":"las","quantum":1800}"#.to_owned(),
            cluster: "32x4".to_owned(),
            nodes: 32,
            total_gpus: 128,
            workload: "philly".to_owned(),
            load: Some(6.5),
            seed: 1,
            round_seconds: 300.0,
        }
    }

    pub(in crate::results) fn provenance() -> Provenance {
        Provenance {
            spec_yaml: "experiment: blox-fig7\nseeds: [1]\n".to_owned(),
            spec_sha256: "ab12".repeat(16),
            blox_version: "0.1.0".to_owned(),
        }
    }

    fn job(id: u64, finished: bool) -> JobRecord {
        let arrival = 100.0 * id as f64;
        JobRecord {
            id,
            arrival,
            gpus: 4,
            work: 3600.5,
            first_start: Some(arrival + 300.0),
            first_progress: Some(arrival + 600.0),
            finish: finished.then_some(arrival + 7200.25),
            preemptions: 2,
            attained_service: 3900.0,
            promoted: id.is_multiple_of(2),
            deadline: (id % 3 == 1).then_some(arrival + 9000.0),
            best_effort: id % 3 == 2,
            met_deadline: (id % 3 == 1).then_some(finished),
            final_gpus: finished.then_some(8),
        }
    }

    pub(in crate::results) fn output() -> RunOutput {
        let never_started = JobRecord {
            first_start: None,
            first_progress: None,
            finish: None,
            attained_service: 0.0,
            preemptions: 0,
            ..job(3, false)
        };
        RunOutput {
            summary: RunSummary {
                tracked_jobs: 4,
                tracked_finished: 2,
                jobs_finished: 5,
                jobs_unschedulable: 1,
                avg_jct: 7200.25,
                median_jct: 7200.25,
                p95_jct: 7200.25,
                p99_jct: 7200.25,
                avg_responsiveness: 600.0,
                makespan: 9000.0,
                rounds: 30,
                preemptions: 4,
                promoted_jobs: 2,
                gpu_utilization: 0.75,
                deadlines: DeadlineStats {
                    deadline_jobs: 1,
                    accepted: 1,
                    declined: 0,
                    deadline_ratio: Some(1.0),
                    best_effort_avg_jct: None,
                },
            },
            jobs: vec![job(0, true), job(1, true), job(2, false), never_started],
            timeline: (0..3)
                .map(|round| TimelineRow {
                    time: 300.0 * round as f64,
                    free_gpus: 128 - 4 * round,
                    gpu_demand: 16,
                    running: round,
                    queued: 4 - round,
                    admission_backlog: Some(0),
                    preemptions: round % 2,
                    cluster_efficiency: (round > 0).then_some(0.5),
                })
                .collect(),
        }
    }

    /// The summary of a run that finished no tracked job.
    fn nan_summary() -> RunSummary {
        RunSummary {
            tracked_finished: 0,
            avg_jct: f64::NAN,
            median_jct: f64::NAN,
            p95_jct: f64::NAN,
            p99_jct: f64::NAN,
            avg_responsiveness: f64::NAN,
            ..output().summary
        }
    }

    fn runs_file(dir: &Path, run_key: &str) -> PathBuf {
        dir.join(RUNS_TABLE).join(format!("{run_key}.parquet"))
    }

    fn files_under(dir: &Path) -> Vec<String> {
        let mut names = Vec::new();
        for table in fs::read_dir(dir).unwrap() {
            let table = table.unwrap().path();
            if table.is_dir() {
                for file in fs::read_dir(&table).unwrap() {
                    names.push(file.unwrap().file_name().to_string_lossy().into_owned());
                }
            }
        }
        names
    }

    #[test]
    fn all_three_tables_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let (info, output) = (info("las-0001"), output());
        assert_eq!(complete_run(dir.path(), "las-0001").unwrap(), None);
        write_run(dir.path(), &info, &output, 1.25, &provenance()).unwrap();

        let expected =
            RunRow { info, spec_sha256: provenance().spec_sha256, summary: output.summary, wall_time_s: 1.25 };
        assert_eq!(complete_run(dir.path(), "las-0001").unwrap(), Some(expected.clone()));
        assert_eq!(read_runs(dir.path()).unwrap(), vec![expected]);
        assert_eq!(read_jobs(dir.path(), "las-0001").unwrap(), output.jobs);
        assert_eq!(read_timeline(dir.path(), "las-0001").unwrap(), output.timeline);
    }

    #[test]
    fn nan_summaries_become_nulls_and_empty_tables_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let info = RunInfo { load: None, ..info("trace-run") };
        let output = RunOutput { summary: nan_summary(), jobs: Vec::new(), timeline: Vec::new() };
        write_run(dir.path(), &info, &output, 0.5, &provenance()).unwrap();

        let batch = read_batch(&runs_file(dir.path(), "trace-run"));
        for column in ["load", "avg_jct_s", "median_jct_s", "p95_jct_s", "p99_jct_s", "avg_responsiveness_s"] {
            assert_eq!(batch.column_by_name(column).unwrap().null_count(), 1, "{column}");
        }
        let [row] = read_runs(dir.path()).unwrap().try_into().unwrap();
        assert_eq!(row.info, info);
        let s = row.summary;
        assert!([s.avg_jct, s.median_jct, s.p95_jct, s.p99_jct, s.avg_responsiveness].iter().all(|v| v.is_nan()));
        assert_eq!((s.makespan, s.gpu_utilization, s.tracked_jobs), (9000.0, 0.75, 4));
        assert_eq!(read_jobs(dir.path(), "trace-run").unwrap(), Vec::new());
        assert_eq!(read_timeline(dir.path(), "trace-run").unwrap(), Vec::new());
    }

    #[test]
    fn unfinished_jobs_have_null_times_and_derived_columns() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path(), &info("r"), &output(), 1.0, &provenance()).unwrap();
        let batch = read_batch(&dir.path().join(JOBS_TABLE).join("r.parquet"));
        let column =
            |name| batch.column_by_name(name).unwrap().as_any().downcast_ref::<Float64Array>().unwrap().clone();
        let (jct, queueing, finish) = (column("jct_s"), column("queueing_delay_s"), column("finish_s"));
        assert_eq!((jct.value(0), queueing.value(0)), (7200.25, 300.0));
        assert_eq!((jct.null_count(), finish.null_count(), queueing.null_count()), (2, 2, 1));
    }

    #[test]
    fn tables_longer_than_one_record_batch_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let timeline: Vec<TimelineRow> = (0..2500)
            .map(|round| TimelineRow {
                time: 300.0 * f64::from(round),
                free_gpus: round % 128,
                gpu_demand: u64::from(round),
                running: round % 7,
                queued: round % 11,
                admission_backlog: (round % 4 != 3).then_some(round % 3),
                preemptions: round % 2,
                cluster_efficiency: None,
            })
            .collect();
        let long = RunOutput { jobs: (0..2500).map(|id| job(id, id % 3 != 0)).collect(), timeline, ..output() };
        write_run(dir.path(), &info("long"), &long, 1.0, &provenance()).unwrap();
        assert_eq!(read_jobs(dir.path(), "long").unwrap(), long.jobs);
        assert_eq!(read_timeline(dir.path(), "long").unwrap(), long.timeline);
    }

    #[test]
    fn every_file_carries_provenance_and_is_snappy_compressed() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path(), &info("meta"), &output(), 1.0, &provenance()).unwrap();
        for table in [RUNS_TABLE, JOBS_TABLE, TIMELINE_TABLE] {
            let path = dir.path().join(table).join("meta.parquet");
            let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(&path).unwrap()).unwrap();
            let metadata = builder.metadata();
            let pairs = metadata.file_metadata().key_value_metadata().unwrap();
            let value = |key: &str| pairs.iter().find(|kv| kv.key == key).and_then(|kv| kv.value.clone());
            assert_eq!(value(METADATA_SPEC), Some(provenance().spec_yaml), "{table}");
            assert_eq!(value(METADATA_SPEC_SHA256), Some(provenance().spec_sha256));
            assert_eq!(value(METADATA_VERSION), Some("0.1.0".to_owned()));
            assert_eq!(value(METADATA_RUN_KEY), Some("meta".to_owned()));
            for column in metadata.row_group(0).columns() {
                assert_eq!(column.compression(), Compression::SNAPPY, "{table}");
            }
        }
    }

    #[test]
    fn writing_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        for key in ["a", "b"] {
            write_run(dir.path(), &info(key), &output(), 1.0, &provenance()).unwrap();
        }
        let mut files = files_under(dir.path());
        files.sort();
        assert_eq!(files, ["a.parquet", "a.parquet", "a.parquet", "b.parquet", "b.parquet", "b.parquet"]);
    }

    /// Nothing is published unless all three tables were written: a crash or an error part way
    /// leaves no jobs file that globs (`jobs/*.parquet`) would pick up without its runs row.
    #[test]
    fn a_failed_write_publishes_nothing_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(TIMELINE_TABLE), "a file where the timeline directory belongs").unwrap();
        let error = write_run(dir.path(), &info("r"), &output(), 1.0, &provenance()).unwrap_err();
        assert!(error.to_string().contains(TIMELINE_TABLE), "{error}");
        assert_eq!(complete_run(dir.path(), "r").unwrap(), None);
        assert_eq!(files_under(dir.path()), Vec::<String>::new());
    }

    /// pyarrow users read `pq.read_table(f).schema.metadata`, which is the Arrow schema's; every
    /// row also names the spec version and the build.
    #[test]
    fn provenance_is_in_the_arrow_schema_and_in_every_row() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path(), &info("meta"), &output(), 1.0, &provenance()).unwrap();
        for table in RESULT_TABLES {
            let path = dir.path().join(table).join("meta.parquet");
            let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(&path).unwrap()).unwrap();
            let metadata = builder.schema().metadata().clone();
            let batch = read_batch(&path);
            assert_eq!(metadata.get(METADATA_SPEC_SHA256), Some(&provenance().spec_sha256), "{table}");
            assert_eq!(metadata.get(METADATA_RUN_KEY).map(String::as_str), Some("meta"), "{table}");
            let column = batch.column_by_name("spec_sha256").unwrap().as_any().downcast_ref::<StringArray>().unwrap();
            assert!(column.iter().all(|v| v == Some(provenance().spec_sha256.as_str())), "{table}");
            assert!(batch.column_by_name("blox_version").is_some(), "{table}");
        }
    }

    #[test]
    fn a_runs_file_must_hold_the_row_of_its_own_run() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path(), &info("a"), &output(), 1.0, &provenance()).unwrap();
        fs::copy(runs_file(dir.path(), "a"), runs_file(dir.path(), "b")).unwrap();
        let error = complete_run(dir.path(), "b").unwrap_err();
        assert!(matches!(error.kind, ResultsErrorKind::ForeignRun(ref key) if key == "a"), "{error}");
    }

    #[test]
    fn rewriting_a_run_replaces_it() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path(), &info("r"), &output(), 1.0, &provenance()).unwrap();
        let shorter = RunOutput { jobs: output().jobs[..1].to_vec(), ..output() };
        write_run(dir.path(), &info("r"), &shorter, 2.0, &provenance()).unwrap();
        let runs = read_runs(dir.path()).unwrap();
        assert_eq!(runs.iter().map(|r| r.wall_time_s).collect::<Vec<_>>(), [2.0]);
        assert_eq!(read_jobs(dir.path(), "r").unwrap(), shorter.jobs);
    }

    #[test]
    fn concurrent_writers_of_different_runs_all_land() {
        let dir = tempfile::tempdir().unwrap();
        std::thread::scope(|scope| {
            for writer in 0..2 {
                let dir = dir.path();
                scope.spawn(move || {
                    for run in 0..10 {
                        let key = format!("w{writer}-{run:02}");
                        write_run(dir, &info(&key), &output(), 1.0, &provenance()).unwrap();
                    }
                });
            }
        });
        let keys: Vec<String> = read_runs(dir.path()).unwrap().into_iter().map(|r| r.info.run_key).collect();
        let expected: Vec<String> = (0..2).flat_map(|w| (0..10).map(move |r| format!("w{w}-{r:02}"))).collect();
        assert_eq!(keys, expected);
        assert!(files_under(dir.path()).iter().all(|name| name.ends_with(".parquet") && !name.starts_with('.')));
    }

    #[test]
    fn run_keys_must_be_plain_file_names() {
        let dir = tempfile::tempdir().unwrap();
        for key in ["", ".hidden", "../escape", "a/b", "a\\b"] {
            let error = write_run(dir.path(), &info(key), &output(), 1.0, &provenance()).unwrap_err();
            assert!(matches!(error.kind, ResultsErrorKind::InvalidRunKey(_)), "{key:?}: {error}");
            assert!(complete_run(dir.path(), key).is_err());
        }
    }

    #[test]
    fn seeds_beyond_int64_are_rejected_not_wrapped() {
        let dir = tempfile::tempdir().unwrap();
        let info = RunInfo { seed: u64::MAX, ..info("big-seed") };
        let error = write_run(dir.path(), &info, &output(), 1.0, &provenance()).unwrap_err();
        assert!(error.to_string().contains("column `seed`: value 18446744073709551615 does not fit Int64"), "{error}");
        assert!(files_under(dir.path()).is_empty());
    }

    #[test]
    fn an_experiment_without_runs_reads_as_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_runs(dir.path()).unwrap(), Vec::new());
        let error = read_jobs(dir.path(), "missing").unwrap_err();
        assert!(
            matches!(error.kind, ResultsErrorKind::Io(_)) && error.to_string().contains("missing.parquet"),
            "{error}"
        );
    }

    #[test]
    fn damaged_runs_files_give_errors_naming_the_file() {
        let valid = {
            let dir = tempfile::tempdir().unwrap();
            write_run(dir.path(), &info("r"), &output(), 1.0, &provenance()).unwrap();
            fs::read(runs_file(dir.path(), "r")).unwrap()
        };
        let damaged: [(&str, Vec<u8>); 4] = [
            ("empty", Vec::new()),
            ("truncated", valid[..valid.len() / 2].to_vec()),
            ("footer cut", valid[..valid.len() - 3].to_vec()),
            ("not parquet", b"experiment,run_key\nx,y\n".to_vec()),
        ];
        for (what, bytes) in damaged {
            let dir = tempfile::tempdir().unwrap();
            fs::create_dir_all(dir.path().join(RUNS_TABLE)).unwrap();
            fs::write(runs_file(dir.path(), "bad"), bytes).unwrap();
            let error = read_runs(dir.path()).unwrap_err();
            assert!(error.to_string().contains("bad.parquet"), "{what}: {error}");
        }
    }

    #[test]
    fn flipping_any_byte_of_a_runs_file_never_panics() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path(), &info("r"), &output(), 1.0, &provenance()).unwrap();
        let path = runs_file(dir.path(), "r");
        let valid = fs::read(&path).unwrap();
        for position in 0..valid.len() {
            let mut bytes = valid.clone();
            bytes[position] ^= 0xA5;
            fs::write(&path, &bytes).unwrap();
            // Ok is fine too: a flipped bit inside a value is not detectable without checksums.
            let _ = read_runs(dir.path());
        }
    }

    #[test]
    fn older_or_foreign_files_name_the_missing_or_mistyped_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = runs_file(dir.path(), "old");
        let full = runs_batch(&info("old"), &provenance(), &output().summary, 1.0).unwrap();
        let write = |batch: &RecordBatch| {
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            let mut writer = ArrowWriter::try_new(File::create(&path).unwrap(), batch.schema(), None).unwrap();
            writer.write(batch).unwrap();
            writer.close().unwrap();
        };

        let mut without_wall_time = full.clone();
        without_wall_time.remove_column(full.schema().index_of("wall_time_s").unwrap());
        write(&without_wall_time);
        let error = read_runs(dir.path()).unwrap_err().to_string();
        assert!(error.contains("old.parquet") && error.contains("missing column `wall_time_s`"), "{error}");

        let mut fields: Vec<Field> = full.schema().fields().iter().map(|f| f.as_ref().clone()).collect();
        let mut columns = full.columns().to_vec();
        let nodes = full.schema().index_of("nodes").unwrap();
        fields[nodes] = Field::new("nodes", arrow_schema::DataType::Utf8, false);
        columns[nodes] = Arc::new(StringArray::from(vec!["32"]));
        write(&RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap());
        let error = read_runs(dir.path()).unwrap_err().to_string();
        assert!(error.contains("column `nodes` has type Utf8, expected Int64"), "{error}");
    }

    fn read_batch(path: &Path) -> RecordBatch {
        let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap().build().unwrap();
        reader.map(Result::unwrap).next().unwrap()
    }
}
