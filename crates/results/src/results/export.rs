//! `blox export`: one merged file per table (runs, jobs, timeline) for the runs of a grid, as CSV
//! or Parquet, for users who want one file rather than a directory of per-run files.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use arrow_array::{Array, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use super::error::{AtPath, ResultsError, ResultsErrorKind};
use super::store::create_temp;
use super::tables::{ALL_TABLES, ATTEMPTS_TABLE};

/// Output format of [`export`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Csv,
    Parquet,
}

impl ExportFormat {
    fn extension(self) -> &'static str {
        match self {
            ExportFormat::Csv => "csv",
            ExportFormat::Parquet => "parquet",
        }
    }
}

/// One merged table written by [`export`].
#[derive(Debug)]
pub struct Exported {
    pub path: PathBuf,
    pub rows: usize,
}

/// Writes `<out_dir>/{runs,jobs,timeline}.<ext>`, each the rows of `run_keys`' files of that
/// table in `run_keys` order. Every file must have the same columns (runs of one grid do: the
/// run key pins the blox build). Runs without a file in a table (a run that is not complete) are
/// skipped; the caller decides which keys to pass.
pub fn export(
    experiment_dir: &Path,
    run_keys: &[String],
    format: ExportFormat,
    out_dir: &Path,
) -> Result<Vec<Exported>, ResultsError> {
    std::fs::create_dir_all(out_dir).at(out_dir)?;
    let mut exported = Vec::new();
    for table in ALL_TABLES {
        let inputs: Vec<PathBuf> = run_keys
            .iter()
            .map(|key| experiment_dir.join(table).join(format!("{key}.parquet")))
            .filter(|path| path.is_file())
            .collect();
        if inputs.is_empty() && table == ATTEMPTS_TABLE {
            continue; // simulated runs have no attempts
        }
        let path = out_dir.join(format!("{table}.{}", format.extension()));
        let (temp, file) = create_temp(&path).at(&path)?;
        let written = write_merged(&inputs, format, file, &temp).and_then(|rows| {
            std::fs::rename(&temp, &path).at(&path)?;
            Ok(rows)
        });
        if written.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        exported.push(Exported { path, rows: written? });
    }
    Ok(exported)
}

fn write_merged(inputs: &[PathBuf], format: ExportFormat, file: File, temp: &Path) -> Result<usize, ResultsError> {
    let mut file = Some(file);
    let mut sink: Option<(Sink, SchemaRef)> = None;
    let mut rows = 0;
    for input in inputs {
        let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(input).at(input)?).at(input)?;
        let schema = reader.schema().clone();
        match &sink {
            None => {
                let out = Sink::new(format, file.take().expect("the file goes to the one sink"), &schema).at(temp)?;
                sink = Some((out, schema));
            }
            Some((_, first)) if first.fields() != schema.fields() => {
                return Err(ResultsError::new(input, ResultsErrorKind::SchemaMismatch));
            }
            Some(_) => {}
        }
        let (out, _) = sink.as_mut().expect("created above");
        for batch in reader.build().at(input)? {
            let batch = batch.at(input)?;
            rows += batch.num_rows();
            out.write(&batch).at(temp)?;
        }
    }
    if let Some((out, _)) = sink {
        out.finish().at(temp)?;
    }
    Ok(rows)
}

/// Where merged batches go.
enum Sink {
    Csv(Box<csv::Writer<BufWriter<File>>>),
    Parquet(Box<ArrowWriter<File>>, SchemaRef),
}

impl Sink {
    fn new(format: ExportFormat, file: File, schema: &SchemaRef) -> Result<Self, ResultsErrorKind> {
        Ok(match format {
            ExportFormat::Csv => {
                let mut writer = csv::Writer::from_writer(BufWriter::new(file));
                writer.write_record(schema.fields().iter().map(|f| f.name().as_str())).map_err(csv_error)?;
                Sink::Csv(Box::new(writer))
            }
            ExportFormat::Parquet => {
                // Per-run key-values (the run key) would be wrong for the merged file; the spec
                // and blox version are columns of every row.
                let schema = std::sync::Arc::new(schema.as_ref().clone().with_metadata(HashMap::new()));
                let properties = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
                Sink::Parquet(Box::new(ArrowWriter::try_new(file, schema.clone(), Some(properties))?), schema)
            }
        })
    }

    fn write(&mut self, batch: &RecordBatch) -> Result<(), ResultsErrorKind> {
        match self {
            Sink::Csv(writer) => {
                for row in 0..batch.num_rows() {
                    let fields: Vec<String> = batch.columns().iter().map(|c| csv_field(c.as_ref(), row)).collect();
                    writer.write_record(&fields).map_err(csv_error)?;
                }
                Ok(())
            }
            Sink::Parquet(writer, schema) => {
                let batch = batch.clone().with_schema(schema.clone())?;
                Ok(writer.write(&batch)?)
            }
        }
    }

    fn finish(self) -> Result<(), ResultsErrorKind> {
        let file = match self {
            Sink::Csv(writer) => {
                let mut buffered = writer.into_inner().map_err(|e| ResultsErrorKind::Io(e.into_error()))?;
                buffered.flush()?;
                buffered.into_inner().map_err(|e| ResultsErrorKind::Io(e.into_error()))?
            }
            Sink::Parquet(writer, _) => writer.into_inner()?,
        };
        Ok(file.sync_all()?)
    }
}

/// One CSV cell: empty for null, Rust's shortest round-trip form for floats.
fn csv_field(column: &dyn Array, row: usize) -> String {
    if column.is_null(row) {
        return String::new();
    }
    let any = column.as_any();
    match column.data_type() {
        DataType::Utf8 => any.downcast_ref::<StringArray>().map(|a| a.value(row).to_owned()),
        DataType::Int64 => any.downcast_ref::<Int64Array>().map(|a| a.value(row).to_string()),
        DataType::Float64 => any.downcast_ref::<Float64Array>().map(|a| a.value(row).to_string()),
        DataType::Boolean => any.downcast_ref::<BooleanArray>().map(|a| a.value(row).to_string()),
        _ => None,
    }
    .unwrap_or_default()
}

fn csv_error(e: csv::Error) -> ResultsErrorKind {
    ResultsErrorKind::Io(std::io::Error::other(e.to_string()))
}
