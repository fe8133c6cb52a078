//! Writing and reading the three Parquet tables of a run.
//!
//! Under the experiment directory: `runs/<run_key>.parquet` (one row), `jobs/<run_key>.parquet`
//! (one row per tracked job) and `timeline/<run_key>.parquet` (one row per round). Their columns
//! are declared in [`schema`](super::schema); this module writes and reads any table from that
//! declaration. Types are chosen for every reader (pyarrow, DuckDB, Polars, Spark): simulated
//! times and durations are Float64 seconds with an `_s` suffix, ids and counts Int64 (Java has no
//! unsigned integers), names Utf8, and a missing value is null, never NaN.
//!
//! A run's files are checked as a whole: every file of one write carries the same write id in
//! its footer, and the runs file records each other table's length and row count, so a table
//! truncated, replaced or left from another write is found by reading footers only
//! ([`complete_run`]).

use std::any::type_name;
use std::collections::{BTreeMap, HashMap};
use std::fs::{self, File};
use std::io;
use std::iter::repeat_n;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::metadata::ParquetMetaData;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use serde::{Deserialize, Serialize};

use super::error::{AtPath, ResultsError, ResultsErrorKind};
use super::schema::{Access, Column, STAMP, TableRow, nan_to_null};
use super::store::{create_temp, ensure_dir};
use super::{AttemptRow, Provenance, RunCost, RunInfo, RunRow};
use crate::core::placements::axis::{DiscreteRows, timeline_axis};
use crate::core::{JobRecord, RecordSink, RunSummary, RunTables, TimelineRow};

pub(super) const RUNS_TABLE: &str = "runs";
const JOBS_TABLE: &str = "jobs";
const TIMELINE_TABLE: &str = "timeline";
/// Live runs only: one row per attempt of a job's process.
pub(super) const ATTEMPTS_TABLE: &str = "attempts";
/// The three tables every run has, in the order a run publishes them.
#[cfg(test)]
pub(super) const RESULT_TABLES: [&str; 3] = [JOBS_TABLE, TIMELINE_TABLE, RUNS_TABLE];
/// Every table a run may have, in the order a run publishes them (the runs file last).
pub(super) const ALL_TABLES: [&str; 4] = [JOBS_TABLE, TIMELINE_TABLE, ATTEMPTS_TABLE, RUNS_TABLE];

/// Key-value metadata key of the experiment spec's YAML text, in every file.
pub const METADATA_SPEC: &str = "blox.spec";
/// Key-value metadata key of the hex SHA-256 of the spec, in every file.
pub const METADATA_SPEC_SHA256: &str = "blox.spec_sha256";
/// Key-value metadata key of the blox version that wrote the file.
pub const METADATA_VERSION: &str = "blox.version";
/// Key-value metadata key of the run key, so a file renamed or merged elsewhere still says which run it holds.
pub const METADATA_RUN_KEY: &str = "blox.run_key";
/// Footer key of the write that produced a file: the same in every table of one publish, so a
/// table from another write (a publish cut short) is told apart from the run's own.
pub const METADATA_WRITE_ID: &str = "blox.write_id";
/// Footer key, in the runs file, of the record of the run's other tables: a JSON object from
/// table name to `{"bytes": length, "rows": row count}`.
pub const METADATA_TABLES: &str = "blox.tables";

/// What a runs file records of one of its run's other tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableRecord {
    bytes: u64,
    rows: u64,
}

/// A fresh id for one write of a run's tables: the process, the time and a counter.
fn new_write_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{}-{nanos}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed))
}

/// Rows a [`JobsWriter`] gathers before it encodes them: enough for Parquet's pages to compress
/// well, few enough that a run of millions of jobs holds a few megabytes of them.
const JOBS_BATCH_ROWS: usize = 64 * 1024;

/// A run's jobs table, written while the run goes: records arrive in id order (a
/// [`RecordSink`]) and reach a hidden temporary file in batches, so a run never holds all of
/// them. Nothing is visible until [`publish_run`]; dropped unpublished (the run failed or was
/// stopped), it removes its temporary.
pub struct JobsWriter {
    stamp: RunRow,
    /// The file's schema, with the provenance in its metadata.
    schema: SchemaRef,
    temp: PathBuf,
    writer: Option<ArrowWriter<File>>,
    rows: Vec<JobRecord>,
    /// Rows written so far, for the runs file's record.
    written: u64,
    /// The write id every table of this publish carries.
    write_id: String,
}

impl JobsWriter {
    /// Opens the temporary jobs file of `info`'s run. The caller holds the run's
    /// [`RunLock`](super::store::RunLock), which keeps `tidy` from removing the temporary.
    pub fn create(experiment_dir: &Path, info: &RunInfo, provenance: &Provenance) -> Result<Self, ResultsError> {
        check_run_key(experiment_dir, &info.run_key)?;
        let dir = experiment_dir.join(JOBS_TABLE);
        ensure_dir(&dir).at(&dir)?;
        let path = dir.join(format!("{}.parquet", info.run_key));
        let stamp = RunRow {
            info: info.clone(),
            spec_sha256: provenance.spec_sha256.clone(),
            blox_version: provenance.blox_version.clone(),
            ..RunRow::default()
        };
        let schema = table_batch::<JobRecord>(&stamp, &[])
            .and_then(|b| with_schema_metadata(b, &info.run_key, provenance))
            .at(&path)?
            .schema();
        let (temp, file) = create_temp(&path).at(&path)?;
        let write_id = new_write_id();
        let properties = writer_properties(&info.run_key, provenance, &write_id, None);
        let writer = ArrowWriter::try_new(file, schema.clone(), Some(properties));
        let writer = match writer {
            Ok(writer) => writer,
            Err(e) => {
                let _ = fs::remove_file(&temp);
                return Err(ResultsError::new(&path, e));
            }
        };
        Ok(Self { stamp, schema, temp, writer: Some(writer), rows: Vec::new(), written: 0, write_id })
    }

    /// Takes the next record in id order.
    pub fn add(&mut self, record: JobRecord) -> Result<(), ResultsError> {
        self.rows.push(record);
        if self.rows.len() >= JOBS_BATCH_ROWS {
            self.write_rows()?;
        }
        Ok(())
    }

    /// Encodes the gathered rows into the file.
    fn write_rows(&mut self) -> Result<(), ResultsError> {
        let Some(writer) = self.writer.as_mut() else { return Ok(()) };
        let batch =
            table_batch(&self.stamp, &self.rows).and_then(|b| Ok(b.with_schema(self.schema.clone())?)).at(&self.temp)?;
        writer.write(&batch).at(&self.temp)?;
        self.written += self.rows.len() as u64;
        self.rows.clear();
        Ok(())
    }

    /// Writes what is left and the footer, syncs the file, and hands over the temporary to
    /// publish with its record; `self` no longer removes it.
    fn close(mut self) -> Result<(PathBuf, TableRecord), ResultsError> {
        self.write_rows()?;
        let writer = self.writer.take().expect("a writer is open until closed");
        let file = writer.into_inner().at(&self.temp)?;
        // The rename must not reach the disk before the data it publishes.
        file.sync_all().at(&self.temp)?;
        let bytes = file.metadata().at(&self.temp)?.len();
        Ok((std::mem::take(&mut self.temp), TableRecord { bytes, rows: self.written }))
    }
}

impl RecordSink for JobsWriter {
    fn push(&mut self, record: JobRecord) -> Result<(), String> {
        self.add(record).map_err(|e| e.to_string())
    }
}

impl Drop for JobsWriter {
    fn drop(&mut self) {
        if !self.temp.as_os_str().is_empty() {
            // Best effort: `tidy` removes what is left once the run's lock is free.
            let _ = fs::remove_file(&self.temp);
        }
    }
}

#[cfg(test)]
use crate::core::RunOutput;

/// Writes a run's three tables in one go (the jobs from `output`), for tests of the store; runs
/// write theirs through [`JobsWriter`] and [`publish_run`].
#[cfg(test)]
pub(super) fn write_run(
    experiment_dir: &Path,
    info: &RunInfo,
    output: &RunOutput,
    wall_time_s: f64,
    provenance: &Provenance,
) -> Result<(), ResultsError> {
    let mut jobs = JobsWriter::create(experiment_dir, info, provenance)?;
    for record in &output.jobs {
        jobs.add(record.clone())?;
    }
    let tables = RunTables { summary: output.summary.clone(), timeline: output.timeline.clone() };
    // A CPU time unlike the wall time, so that a column read back from the wrong field shows.
    let cost = RunCost { wall_time_s, cpu_time_s: wall_time_s / 2.0 };
    publish_run(experiment_dir, info, jobs, &tables, None, cost, provenance)
}

/// Completes the run's jobs table and writes its timeline and runs tables, each to a fresh
/// hidden temporary file in its table directory, then publishes them by renaming each over the
/// run's earlier file, jobs and timeline first and the runs file last, because the runs file
/// marks the run complete and records the others' lengths, row counts and write id.
///
/// A crash at any point leaves the old complete run (before the first rename), the new complete
/// run (after the last), or files that [`complete_run`] finds inconsistent: a new jobs file
/// beside the old runs file does not carry the write id that runs file records, and jobs or
/// timeline files without any runs file are incomplete. Either way [`tidy`](super::store::tidy)
/// sets them aside and the run is redone; the old tables are never visible without their runs
/// file, as they were when the runs file was removed first. The caller holds the run's
/// [`RunLock`](super::store::RunLock).
pub fn publish_run(
    experiment_dir: &Path,
    info: &RunInfo,
    jobs: JobsWriter,
    tables: &RunTables,
    attempts: Option<&[AttemptRow]>,
    cost: RunCost,
    provenance: &Provenance,
) -> Result<(), ResultsError> {
    check_run_key(experiment_dir, &info.run_key)?;
    let file = |table| experiment_dir.join(table).join(format!("{}.parquet", info.run_key));
    let write_id = jobs.write_id.clone();
    let (jobs_temp, jobs_record) = jobs.close()?;
    let mut temporaries = vec![(jobs_temp, file(JOBS_TABLE))];
    let mut record = BTreeMap::from([(JOBS_TABLE, jobs_record)]);
    let run = run_row(info, provenance, &tables.summary, cost);
    let mut batches = vec![(TIMELINE_TABLE, table_batch(&run, &tables.timeline))];
    if let Some(attempts) = attempts {
        batches.push((ATTEMPTS_TABLE, table_batch(&run, attempts)));
    }
    let write_and_publish = || {
        let mut write = |table: &'static str, batch: Result<RecordBatch, ResultsErrorKind>, tables: Option<&str>| {
            let path = file(table);
            let dir = experiment_dir.join(table);
            ensure_dir(&dir).at(&dir)?;
            let batch = batch.and_then(|b| with_schema_metadata(b, &info.run_key, provenance)).at(&path)?;
            let (temp, handle) = create_temp(&path).at(&path)?;
            temporaries.push((temp.clone(), path));
            let properties = writer_properties(&info.run_key, provenance, &write_id, tables);
            let bytes = write_parquet(handle, &temp, &batch, properties)?;
            Ok::<_, ResultsError>(TableRecord { bytes, rows: batch.num_rows() as u64 })
        };
        for (table, batch) in batches {
            record.insert(table, write(table, batch, None)?);
        }
        let record = serde_json::to_string(&record).expect("a map of numbers serialises");
        write(RUNS_TABLE, table_batch(&run, std::slice::from_ref(&run)), Some(&record))?;
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

/// The run row of `run_key` if its runs file exists, reads back as that run, and every table it
/// records is there with the recorded length, row count and write id; `Ok(None)` if there is no
/// runs file; an error naming the file that is damaged, holds another run, or does not match.
/// Only footers are read, so checking a run costs the same whatever its size.
pub fn complete_run(experiment_dir: &Path, run_key: &str) -> Result<Option<RunRow>, ResultsError> {
    check_run_key(experiment_dir, run_key)?;
    let path = experiment_dir.join(RUNS_TABLE).join(format!("{run_key}.parquet"));
    if !path.exists() {
        return Ok(None);
    }
    let row = read_run_file(&path, run_key)?;
    check_tables(experiment_dir, run_key, &path)?;
    Ok(Some(row))
}

/// Checks the tables the runs file at `runs_path` records against their files.
fn check_tables(experiment_dir: &Path, run_key: &str, runs_path: &Path) -> Result<(), ResultsError> {
    let runs_footer = footer(runs_path)?;
    let write_id = footer_value(&runs_footer, METADATA_WRITE_ID);
    let record = footer_value(&runs_footer, METADATA_TABLES)
        .and_then(|text| serde_json::from_str::<BTreeMap<String, TableRecord>>(&text).ok())
        .filter(|record| {
            record.contains_key(JOBS_TABLE)
                && record.contains_key(TIMELINE_TABLE)
                && record.keys().all(|table| ALL_TABLES.contains(&table.as_str()) && table != RUNS_TABLE)
        });
    let (Some(write_id), Some(record)) = (write_id, record) else {
        return Err(ResultsError::new(
            runs_path,
            ResultsErrorKind::TableMismatch("records no lengths of its run's tables (written by an older blox)".into()),
        ));
    };
    for (table, expected) in record {
        let path = experiment_dir.join(&table).join(format!("{run_key}.parquet"));
        let mismatch = |what: String| Err(ResultsError::new(&path, ResultsErrorKind::TableMismatch(what)));
        let bytes = match fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_file() => meta.len(),
            Ok(_) => return mismatch("is not a regular file".into()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return mismatch("is missing".into()),
            Err(e) => return Err(ResultsError::new(&path, e)),
        };
        if bytes != expected.bytes {
            return mismatch(format!(
                "is {bytes} bytes long where its runs file recorded {} (truncated or replaced)",
                expected.bytes
            ));
        }
        let table_footer = footer(&path)?;
        let rows = table_footer.file_metadata().num_rows();
        if u64::try_from(rows).ok() != Some(expected.rows) {
            return mismatch(format!("holds {rows} rows where its runs file recorded {}", expected.rows));
        }
        if footer_value(&table_footer, METADATA_WRITE_ID).as_ref() != Some(&write_id) {
            return mismatch("was not written with its runs file (a rewrite of the run was cut short)".into());
        }
    }
    Ok(())
}

/// The footer of a Parquet file (schema, row counts, key-value metadata), without its data.
fn footer(path: &Path) -> Result<ParquetMetaData, ResultsError> {
    // As in `read_table`: a damaged file must fail, not panic.
    panic::catch_unwind(AssertUnwindSafe(|| {
        let reader = SerializedFileReader::new(File::open(path).at(path)?).at(path)?;
        Ok(reader.metadata().clone())
    }))
    .unwrap_or_else(|payload| Err(ResultsError::new(path, ResultsErrorKind::Damaged(panic_text(&payload)))))
}

fn footer_value(footer: &ParquetMetaData, key: &str) -> Option<String> {
    let pairs = footer.file_metadata().key_value_metadata()?;
    pairs.iter().find(|pair| pair.key == key).and_then(|pair| pair.value.clone())
}

fn panic_text(payload: &Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
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
    read_table(&experiment_dir.join(JOBS_TABLE).join(format!("{run_key}.parquet")), own_rows)
}

/// The attempts of one live run; empty for a simulated run, which has no attempts file.
pub fn read_attempts(experiment_dir: &Path, run_key: &str) -> Result<Vec<AttemptRow>, ResultsError> {
    check_run_key(experiment_dir, run_key)?;
    let path = experiment_dir.join(ATTEMPTS_TABLE).join(format!("{run_key}.parquet"));
    if !path.exists() {
        return Ok(Vec::new());
    }
    read_table(&path, own_rows)
}

/// The per-round cluster state of one run.
pub fn read_timeline(experiment_dir: &Path, run_key: &str) -> Result<Vec<TimelineRow>, ResultsError> {
    check_run_key(experiment_dir, run_key)?;
    read_table(&experiment_dir.join(TIMELINE_TABLE).join(format!("{run_key}.parquet")), own_rows)
}

/// The arrived-workload axis of a placement run (`row`), from its timeline; an error naming the
/// run when the timeline cannot be read or has no placement columns.
pub fn read_arrived_axis(experiment_dir: &Path, row: &RunRow) -> Result<DiscreteRows, String> {
    let run_key = &row.info.run_key;
    let timeline = read_timeline(experiment_dir, run_key).map_err(|e| e.to_string())?;
    timeline_axis(&timeline, row.info.total_gpus).map_err(|e| format!("run {run_key}: {e}"))
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

/// Writes `batch` into `file` (a fresh temporary at `path`) and syncs it; returns its length.
pub(super) fn write_parquet(
    file: File,
    path: &Path,
    batch: &RecordBatch,
    properties: WriterProperties,
) -> Result<u64, ResultsError> {
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(properties)).at(path)?;
    writer.write(batch).at(path)?;
    let file = writer.into_inner().at(path)?;
    // The rename must not reach the disk before the data it publishes.
    file.sync_all().at(path)?;
    Ok(file.metadata().at(path)?.len())
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

/// Snappy compression and, in the footer's key-value metadata, the provenance, the write id
/// and (the runs file) the record of the run's other tables.
fn writer_properties(run_key: &str, provenance: &Provenance, write_id: &str, tables: Option<&str>) -> WriterProperties {
    let mut metadata: Vec<KeyValue> =
        provenance_metadata(run_key, provenance).map(|(key, value)| KeyValue::new(key, value)).to_vec();
    metadata.push(KeyValue::new(METADATA_WRITE_ID.to_owned(), write_id.to_owned()));
    if let Some(tables) = tables {
        metadata.push(KeyValue::new(METADATA_TABLES.to_owned(), tables.to_owned()));
    }
    WriterProperties::builder()
        // arrow-rs writes uncompressed by default; Snappy is readable everywhere.
        .set_compression(Compression::SNAPPY)
        .set_key_value_metadata(Some(metadata))
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

    pub(super) fn finish(self) -> Result<RecordBatch, ResultsErrorKind> {
        Ok(RecordBatch::try_new(Arc::new(Schema::new(self.fields)), self.columns)?)
    }
}

/// The runs-table row of a run, whose [`STAMP`] columns every table of the run repeats.
fn run_row(info: &RunInfo, provenance: &Provenance, summary: &RunSummary, cost: RunCost) -> RunRow {
    RunRow {
        info: info.clone(),
        spec_sha256: provenance.spec_sha256.clone(),
        blox_version: provenance.blox_version.clone(),
        summary: summary.clone(),
        wall_time_s: cost.wall_time_s,
        cpu_time_s: cost.cpu_time_s,
    }
}

/// The table of `rows`: the [`STAMP`] columns of `run` on every row, then the rows' own columns.
fn table_batch<R: TableRow>(run: &RunRow, rows: &[R]) -> Result<RecordBatch, ResultsErrorKind> {
    let mut table = TableBuilder::default();
    for column in STAMP {
        let values = match column.access {
            // Built once and copied, not looked up and appended row by row: a timeline has a row
            // per round and these texts are most of its bytes.
            Access::Text(get, _) => Arc::new(StringArray::new_repeated(get(run), rows.len())),
            _ => array(column, repeat_n(run, rows.len()))?,
        };
        table = table.column(column.name(), column.nullable(), values);
    }
    for column in R::COLUMNS {
        table = table.column(column.name(), column.nullable(), array(column, rows.iter())?);
    }
    table.finish()
}

/// One column's values of `rows` as the Arrow array its [`Access`] calls for.
fn array<'a, R: 'a>(column: &Column<R>, rows: impl Iterator<Item = &'a R>) -> Result<ArrayRef, ResultsErrorKind> {
    Ok(match column.access {
        Access::Text(get, _) => Arc::new(StringArray::from_iter_values(rows.map(get))),
        Access::U64(get, _) => {
            // Failing rather than wrapping above `i64::MAX`.
            let values = rows.map(|row| {
                let value = get(row);
                i64::try_from(value).map_err(|_| ResultsErrorKind::OutOfRange {
                    column: column.name(),
                    value: value.to_string(),
                    target: "Int64",
                })
            });
            Arc::new(Int64Array::from(values.collect::<Result<Vec<_>, _>>()?))
        }
        Access::U32(get, _) => Arc::new(Int64Array::from_iter_values(rows.map(|row| i64::from(get(row))))),
        Access::OptionalU32(get, _) => Arc::new(Int64Array::from_iter(rows.map(|row| get(row).map(i64::from)))),
        Access::OptionalU64(get, _) => Arc::new(Int64Array::from_iter(rows.map(|row| get(row).map(|v| v as i64)))),
        Access::F64(get, _) => Arc::new(Float64Array::from_iter_values(rows.map(get))),
        Access::F64NanAsNull(get, _) => Arc::new(Float64Array::from_iter(rows.map(|row| nan_to_null(get(row))))),
        Access::OptionalF64(get, _) | Access::DerivedF64(get) => Arc::new(Float64Array::from_iter(rows.map(get))),
        Access::Bool(get, _) => Arc::new(BooleanArray::from(rows.map(get).collect::<Vec<_>>())),
        Access::OptionalBool(get, _) => Arc::new(BooleanArray::from_iter(rows.map(get))),
    })
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
    panic::catch_unwind(AssertUnwindSafe(|| read_table_unguarded(path, &rows_of)))
        .unwrap_or_else(|payload| Err(ResultsError::new(path, ResultsErrorKind::Damaged(panic_text(&payload)))))
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
    ) -> Result<TypedColumn<'a, A>, ResultsErrorKind> {
        let array = self.batch.column_by_name(name).ok_or(ResultsErrorKind::MissingColumn(name))?;
        let typed = array.as_any().downcast_ref::<A>().ok_or_else(|| ResultsErrorKind::WrongType {
            column: name,
            expected,
            found: array.data_type().clone(),
        })?;
        Ok(TypedColumn { name, array: typed, first_row: self.first_row })
    }

    fn utf8(&self, name: &'static str) -> Result<TypedColumn<'a, StringArray>, ResultsErrorKind> {
        self.typed(name, "Utf8")
    }

    fn int64(&self, name: &'static str) -> Result<TypedColumn<'a, Int64Array>, ResultsErrorKind> {
        self.typed(name, "Int64")
    }

    fn float64(&self, name: &'static str) -> Result<TypedColumn<'a, Float64Array>, ResultsErrorKind> {
        self.typed(name, "Float64")
    }

    fn boolean(&self, name: &'static str) -> Result<TypedColumn<'a, BooleanArray>, ResultsErrorKind> {
        self.typed(name, "Boolean")
    }
}

/// One typed column; `value` fails on null, naming the column and the row.
struct TypedColumn<'a, A> {
    name: &'static str,
    array: &'a A,
    first_row: usize,
}

impl<A: Array> TypedColumn<'_, A> {
    fn non_null(&self, row: usize) -> Result<(), ResultsErrorKind> {
        if self.array.is_null(row) {
            return Err(ResultsErrorKind::NullValue { column: self.name, row: self.first_row + row });
        }
        Ok(())
    }
}

impl TypedColumn<'_, StringArray> {
    fn value(&self, row: usize) -> Result<String, ResultsErrorKind> {
        self.non_null(row)?;
        Ok(self.array.value(row).to_owned())
    }
}

impl TypedColumn<'_, Int64Array> {
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

impl TypedColumn<'_, Float64Array> {
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

impl TypedColumn<'_, BooleanArray> {
    fn value(&self, row: usize) -> Result<bool, ResultsErrorKind> {
        self.non_null(row)?;
        Ok(self.array.value(row))
    }

    fn optional(&self, row: usize) -> Option<bool> {
        self.array.is_valid(row).then(|| self.array.value(row))
    }
}

/// Runs-table rows: the [`STAMP`] and the run's own columns.
fn run_rows(c: &Columns<'_>) -> Result<Vec<RunRow>, ResultsErrorKind> {
    rows_of(c, STAMP.iter().chain(RunRow::COLUMNS))
}

/// Jobs or timeline rows: their own columns (the stamp is the run's, read from the runs table).
fn own_rows<R: TableRow>(c: &Columns<'_>) -> Result<Vec<R>, ResultsErrorKind> {
    rows_of(c, R::COLUMNS.iter())
}

/// Every row of the batch, each field set from its column. All columns are looked up (missing
/// and mistyped ones fail, the first in column order) before any value is read (nulls fail at the
/// first row and column that has one).
fn rows_of<'a, R: Default + 'static>(
    c: &Columns<'a>,
    columns: impl Iterator<Item = &'static Column<R>>,
) -> Result<Vec<R>, ResultsErrorKind> {
    let mut setters = Vec::new();
    for column in columns {
        setters.extend(setter(c, column)?);
    }
    c.rows()
        .map(|row| {
            let mut value = R::default();
            for set in &setters {
                set(&mut value, row)?;
            }
            Ok(value)
        })
        .collect()
}

/// Sets one field of a row from the value in the given row of the batch.
type Setter<'a, R> = Box<dyn Fn(&mut R, usize) -> Result<(), ResultsErrorKind> + 'a>;

/// How `column` of the batch is read into rows; `None` for a derived column, which is not read.
fn setter<'a, R: 'a>(c: &Columns<'a>, column: &Column<R>) -> Result<Option<Setter<'a, R>>, ResultsErrorKind> {
    let name = column.name();
    Ok(Some(match column.access {
        Access::Text(_, set) => {
            let values = c.utf8(name)?;
            Box::new(move |row, i| values.value(i).map(|value| set(row, value)))
        }
        Access::U64(_, set) => {
            let values = c.int64(name)?;
            Box::new(move |row, i| values.value(i).map(|value| set(row, value)))
        }
        Access::U32(_, set) => {
            let values = c.int64(name)?;
            Box::new(move |row, i| values.value(i).map(|value| set(row, value)))
        }
        Access::OptionalU32(_, set) => {
            let values = c.int64(name)?;
            Box::new(move |row, i| values.optional(i).map(|value| set(row, value)))
        }
        Access::OptionalU64(_, set) => {
            let values = c.int64(name)?;
            Box::new(move |row, i| values.optional(i).map(|value| set(row, value)))
        }
        Access::F64(_, set) => {
            let values = c.float64(name)?;
            Box::new(move |row, i| values.value(i).map(|value| set(row, value)))
        }
        Access::F64NanAsNull(_, set) => {
            let values = c.float64(name)?;
            Box::new(move |row, i| {
                set(row, values.or_nan(i));
                Ok(())
            })
        }
        Access::OptionalF64(_, set) => {
            let values = c.float64(name)?;
            Box::new(move |row, i| {
                set(row, values.optional(i));
                Ok(())
            })
        }
        Access::DerivedF64(_) => return Ok(None),
        Access::Bool(_, set) => {
            let values = c.boolean(name)?;
            Box::new(move |row, i| values.value(i).map(|value| set(row, value)))
        }
        Access::OptionalBool(_, set) => {
            let values = c.boolean(name)?;
            Box::new(move |row, i| {
                set(row, values.optional(i));
                Ok(())
            })
        }
    }))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::core::{DeadlineStats, RunOutput, RunSummary};

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
            resizes: 0,
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
                resizes: 0,
                promoted_jobs: 2,
                gpu_utilization: 0.75,
                deadlines: DeadlineStats {
                    deadline_jobs: 2,
                    accepted: 1,
                    declined: 1,
                    deadline_ratio: Some(0.5),
                    best_effort_avg_jct: Some(7200.25),
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
                    resizes: 0,
                    cluster_efficiency: (round > 0).then_some(0.5),
                    cpus_in_use: Some(12.5 * f64::from(round)),
                    memory_gb_in_use: (round > 0).then_some(62.5),
                    arrived_gpu_milli: Some(1500 * u64::from(round)),
                    allocated_gpu_milli: (round > 0).then_some(1000),
                    fragmented_gpu_milli: Some(12.25),
                    fragmentation_ratio: (round != 1).then_some(99.5),
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

    /// The fixtures give every field a value other than its default somewhere, so a field that no
    /// column of the schema reads back would show here.
    #[test]
    fn all_three_tables_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let (info, output) = (info("las-0001"), output());
        assert_eq!(complete_run(dir.path(), "las-0001").unwrap(), None);
        write_run(dir.path(), &info, &output, 1.25, &provenance()).unwrap();

        let expected = run_row(&info, &provenance(), &output.summary, RunCost { wall_time_s: 1.25, cpu_time_s: 0.625 });
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
                resizes: 0,
                cluster_efficiency: None,
                cpus_in_use: None,
                memory_gb_in_use: None,
                arrived_gpu_milli: None,
                allocated_gpu_milli: None,
                fragmented_gpu_milli: None,
                fragmentation_ratio: None,
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

    /// A jobs table written batch by batch while a run goes reads back whole and in order.
    #[test]
    fn a_jobs_table_of_several_writer_batches_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let records: Vec<JobRecord> = (0..2 * JOBS_BATCH_ROWS as u64 + 7).map(|id| job(id, id % 5 != 0)).collect();
        let mut jobs = JobsWriter::create(dir.path(), &info("many"), &provenance()).unwrap();
        for record in &records {
            RecordSink::push(&mut jobs, record.clone()).unwrap();
        }
        let tables = RunTables { summary: output().summary, timeline: Vec::new() };
        publish_run(dir.path(), &info("many"), jobs, &tables, None, RunCost::default(), &provenance()).unwrap();
        assert_eq!(read_jobs(dir.path(), "many").unwrap(), records);
        assert_eq!(files_under(dir.path()).len(), 3);
    }

    /// A run that fails or is stopped drops its jobs table unpublished: nothing is left behind.
    #[test]
    fn an_unpublished_jobs_table_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut jobs = JobsWriter::create(dir.path(), &info("failed"), &provenance()).unwrap();
        for id in 0..JOBS_BATCH_ROWS as u64 + 1 {
            jobs.add(job(id, true)).unwrap();
        }
        drop(jobs);
        assert_eq!(files_under(dir.path()), Vec::<String>::new());
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

    /// A jobs or timeline file cut short, missing, or left from another write of the run (a
    /// rewrite cut short between its renames) makes the run incomplete, with an error naming
    /// that file; before, only the runs file was read and such a run passed for complete.
    #[test]
    fn a_table_that_does_not_match_its_runs_file_makes_the_run_incomplete() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path(), &info("r"), &output(), 1.0, &provenance()).unwrap();
        let error = |expected: &str, file: &Path| {
            let e = complete_run(dir.path(), "r").unwrap_err();
            assert_eq!(e.path, file, "{e}");
            assert!(e.to_string().contains(expected), "{e}");
        };
        for table in [JOBS_TABLE, TIMELINE_TABLE] {
            let path = dir.path().join(table).join("r.parquet");
            let valid = fs::read(&path).unwrap();
            fs::write(&path, &valid[..valid.len() - 10]).unwrap();
            error("truncated or replaced", &path);
            fs::remove_file(&path).unwrap();
            error("is missing", &path);
            fs::write(&path, &valid).unwrap();
            assert!(complete_run(dir.path(), "r").unwrap().is_some(), "{table}");
        }
        // The same run written again, then its old runs file put back: new tables beside it.
        let runs = runs_file(dir.path(), "r");
        let old_runs = fs::read(&runs).unwrap();
        write_run(dir.path(), &info("r"), &output(), 1.0, &provenance()).unwrap();
        fs::write(&runs, old_runs).unwrap();
        error("was not written with its runs file", &dir.path().join(JOBS_TABLE).join("r.parquet"));
    }

    /// Rewriting a complete run (`--force`) never removes its runs file first: at every moment
    /// a reader finds the old or the new runs file, so the old tables are never visible without
    /// it (which is what `kill -9` at that moment used to leave behind).
    #[test]
    fn rewriting_a_run_never_hides_its_runs_file() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path(), &info("r"), &output(), 1.0, &provenance()).unwrap();
        let runs = runs_file(dir.path(), "r");
        let done = std::sync::atomic::AtomicBool::new(false);
        let missing = std::thread::scope(|scope| {
            scope.spawn(|| {
                for _ in 0..30 {
                    write_run(dir.path(), &info("r"), &output(), 1.0, &provenance()).unwrap();
                }
                done.store(true, std::sync::atomic::Ordering::Relaxed);
            });
            let mut missing = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                missing += usize::from(!runs.exists());
            }
            missing
        });
        assert_eq!(missing, 0, "times the runs file was not there");
        assert!(complete_run(dir.path(), "r").unwrap().is_some());
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
        let run = run_row(&info("old"), &provenance(), &output().summary, RunCost::default());
        let full = table_batch(&run, std::slice::from_ref(&run)).unwrap();
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let write = |batch: &RecordBatch| write_batch(&path, batch);

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

    /// The files hold exactly the schema's columns, in its order and with its nullability, and
    /// the reader needs every column it sets a field from: with the round trips above, the schema
    /// is the one place that defines a column.
    #[test]
    fn the_schema_alone_decides_the_files_columns_and_what_is_read_back() {
        fn declared<R: TableRow>() -> Vec<(&'static str, bool)> {
            let stamp = STAMP.iter().map(|column| (column.name(), column.nullable()));
            stamp.chain(R::COLUMNS.iter().map(|column| (column.name(), column.nullable()))).collect()
        }
        fn read_back<R>(columns: &[Column<R>]) -> Vec<&'static str> {
            columns.iter().filter(|column| !matches!(column.access, Access::DerivedF64(_))).map(Column::name).collect()
        }
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path(), &info("r"), &output(), 1.0, &provenance()).unwrap();
        let tables = [
            (RUNS_TABLE, declared::<RunRow>(), [read_back(STAMP), read_back(RunRow::COLUMNS)].concat()),
            (JOBS_TABLE, declared::<JobRecord>(), read_back(JobRecord::COLUMNS)),
            (TIMELINE_TABLE, declared::<TimelineRow>(), read_back(TimelineRow::COLUMNS)),
        ];
        let read = |table| match table {
            RUNS_TABLE => read_runs(dir.path()).map(drop),
            JOBS_TABLE => read_jobs(dir.path(), "r").map(drop),
            _ => read_timeline(dir.path(), "r").map(drop),
        };
        for (table, declared, read_back) in tables {
            let path = dir.path().join(table).join("r.parquet");
            let batch = read_batch(&path);
            let schema = batch.schema();
            let written: Vec<(&str, bool)> =
                schema.fields().iter().map(|f| (f.name().as_str(), f.is_nullable())).collect();
            assert_eq!(written, declared, "{table}");
            for column in read_back {
                let mut without = batch.clone();
                without.remove_column(schema.index_of(column).unwrap());
                write_batch(&path, &without);
                let error = read(table).unwrap_err().to_string();
                assert!(error.contains(&format!("missing column `{column}`")), "{table}: {error}");
            }
            write_batch(&path, &batch);
            read(table).unwrap();
        }
    }

    fn write_batch(path: &Path, batch: &RecordBatch) {
        let mut writer = ArrowWriter::try_new(File::create(path).unwrap(), batch.schema(), None).unwrap();
        writer.write(batch).unwrap();
        writer.close().unwrap();
    }

    fn read_batch(path: &Path) -> RecordBatch {
        let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap().build().unwrap();
        reader.map(Result::unwrap).next().unwrap()
    }
}
