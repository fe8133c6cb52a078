//! `blox trace`: inspect and convert real cluster traces.

use super::emit;
use crate::data;
use crate::results::write_trace_parquet;
use crate::text::escape_control;
use crate::trace::inspect::Inspection;
use crate::trace::write::write_canonical_csv;
use crate::trace::{TraceFormat, read_trace};
use clap::Subcommand;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Subcommand)]
pub(super) enum TraceCommand {
    /// Rows read and dropped, GPU-count mix, duration quantiles, arrival span and rate.
    #[command(
        after_help = "Examples:\n  blox trace inspect philly.csv\n  blox trace inspect itp-raw/raw/cluster05.csv --gpus 512   # a dataset file, fetched on first use\n  blox trace inspect trace1.csv --format muri --json"
    )]
    Inspect {
        /// Trace files, or dataset files as specs name them (`DATASET/PATH`, e.g.
        /// `philly/pollux_philly.csv`, fetched into the cache); each is recognised from its header
        /// unless --format is given.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The files' format (see `blox trace formats`).
        #[arg(long)]
        format: Option<String>,
        /// Cluster size (GPUs) to report the offered load for.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        gpus: Option<u32>,
        /// One JSON object per file (a JSON array) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Write a trace in blox's canonical form (one row per job, every known field).
    #[command(
        after_help = "Examples:\n  blox trace convert philly.csv --to parquet\n  blox trace convert trace1.csv --to csv -o trace1.canonical.csv"
    )]
    Convert {
        /// The trace file to convert.
        file: PathBuf,
        /// Output format.
        #[arg(long, value_enum)]
        to: ConvertTo,
        /// Output file (default: the input's name with .parquet or .canonical.csv).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// The input's format (see `blox trace formats`).
        #[arg(long)]
        format: Option<String>,
    },
    /// List the trace formats blox reads.
    Formats,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub(super) enum ConvertTo {
    Parquet,
    Csv,
}

pub(super) fn trace(command: TraceCommand) -> Result<ExitCode, String> {
    match command {
        TraceCommand::Inspect { files, format, gpus, json } => inspect(&files, format.as_deref(), gpus, json),
        TraceCommand::Convert { file, to, output, format } => convert(file, to, output, format.as_deref()),
        TraceCommand::Formats => {
            let lines: Vec<String> =
                TraceFormat::ALL.iter().map(|f| format!("  {:<20} {}\n", f.name(), f.summary())).collect();
            emit(&lines.concat());
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn inspect(files: &[PathBuf], format: Option<&str>, gpus: Option<u32>, json: bool) -> Result<ExitCode, String> {
    let format = parse_format(format)?;
    let mut inspections = Vec::new();
    let mut failed = false;
    for file in files {
        match local_trace(file).and_then(|local| read_trace(&local, format).map_err(|e| e.to_string())) {
            Ok(trace) => inspections.push(Inspection::new(file, &trace, gpus)),
            Err(e) => {
                eprintln!("error: {}", escape_control(&e));
                failed = true;
            }
        }
    }
    if json {
        let text =
            serde_json::to_string_pretty(&inspections).map_err(|e| format!("cannot encode the report as JSON: {e}"))?;
        emit(&format!("{text}\n"));
    } else {
        let texts: Vec<String> = inspections.iter().map(Inspection::text).collect();
        emit(&texts.join("\n"));
    }
    Ok(if failed { ExitCode::from(2) } else { ExitCode::SUCCESS })
}

fn convert(file: PathBuf, to: ConvertTo, output: Option<PathBuf>, format: Option<&str>) -> Result<ExitCode, String> {
    let trace = read_trace(&file, parse_format(format)?).map_err(|e| e.to_string())?;
    let output = output.unwrap_or_else(|| match to {
        ConvertTo::Parquet => file.with_extension("parquet"),
        ConvertTo::Csv => file.with_extension("canonical.csv"),
    });
    if same_file(&file, &output) {
        return Err(format!(
            "{}: the output {} would overwrite the input; name another with -o",
            file.display(),
            output.display()
        ));
    }
    match to {
        ConvertTo::Parquet => {
            let source = file.display().to_string();
            let metadata = [("blox.trace.source", source.as_str()), ("blox.trace.format", trace.format.name())];
            write_trace_parquet(&output, &trace.jobs, &metadata).map_err(|e| e.to_string())?
        }
        ConvertTo::Csv => {
            std::fs::File::create(&output).map_err(|e| format!("{}: {e}", output.display())).and_then(|f| {
                write_canonical_csv(std::io::BufWriter::new(f), &trace.jobs)
                    .map_err(|e| format!("{}: {e}", output.display()))
            })?
        }
    }
    eprintln!(
        "{}: {} jobs ({} rows read, {} dropped) written to {}",
        file.display(),
        trace.jobs.len(),
        trace.report.rows_read,
        trace.report.total_dropped(),
        output.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The local file of a command-line trace argument: the path itself when it exists, else a
/// dataset file named as in specs (`DATASET/PATH`), fetched and verified into the cache.
fn local_trace(argument: &Path) -> Result<PathBuf, String> {
    let Some(reference) = argument.to_str().filter(|_| !argument.exists()) else {
        return Ok(argument.to_path_buf());
    };
    let is_dataset = reference
        .split_once('/')
        .is_some_and(|(name, path)| !path.is_empty() && data::datasets().iter().any(|d| d.name == name));
    if !is_dataset {
        return Ok(argument.to_path_buf());
    }
    let options = data::FetchOptions::from_env(None).map_err(|e| e.to_string())?;
    data::resolve(reference, &options).map_err(|e| format!("dataset `{}`: {e}", escape_control(reference)))
}

/// Whether writing `output` would overwrite `input`: the same file by device and inode (through
/// `./`, `..`, symbolic or hard links), or by canonical path where inodes are unknown.
fn same_file(input: &Path, output: &Path) -> bool {
    let (Ok(a), Ok(b)) = (std::fs::metadata(input), std::fs::metadata(output)) else {
        // An output that does not exist yet cannot be the (existing) input.
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        matches!((input.canonicalize(), output.canonicalize()), (Ok(x), Ok(y)) if x == y)
    }
}

/// A `--format` name, or the list of valid ones.
fn parse_format(name: Option<&str>) -> Result<Option<TraceFormat>, String> {
    let Some(name) = name else { return Ok(None) };
    TraceFormat::ALL
        .into_iter()
        .find(|f| f.name() == name)
        .map(Some)
        .ok_or_else(|| format!("unknown trace format `{name}`; the formats are {}", TraceFormat::names().join(", ")))
}
