//! The `blox` command line: run, plot, validate and list.

use blox::data;
use blox::figures::{FigureError, Rendered};
use blox::policies::{AdmissionSpec, Entry, GpuTimeSource, OverheadSpec, PlacementSpec, SchedulerSpec};
use blox::results::{RunRow, write_trace_parquet};
use blox::runner::{self, RunnerOptions};
use blox::spec::grid::{expand, fmt_number};
use blox::spec::{Spec, SpecError, SpecSource};
use blox::trace::inspect::Inspection;
use blox::trace::write::write_canonical_csv;
use blox::trace::{TraceFormat, read_trace};
use blox::workload::{TraceParams, WorkloadContext, WorkloadSpec};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// The spec `blox run` uses when given none: a small Blox-style sweep that takes seconds.
const DEFAULT_SPEC: &str = include_str!("../specs/default.yaml");

#[derive(Parser)]
#[command(
    name = "blox",
    version,
    about = "Declarative, parallel simulation of deep-learning GPU-cluster scheduling experiments",
    after_help = "Examples:\n  blox run                                  # the embedded default sweep\n  blox run specs/paper/blox-fig6.yaml -j 2  # Blox Figures 6 and 7\n  blox validate specs/paper/blox-fig12.yaml # check a spec, print its grid size\n  blox plot results/blox-fig6                # redraw figures from existing results\n  blox list                                 # every policy and workload generator\n  blox trace inspect philly.csv --gpus 128  # what a real trace holds"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run every point of a spec's grid and write Parquet tables under `<out>/<name>/`.
    #[command(
        after_help = "Examples:\n  blox run\n  blox run specs/paper/blox-fig6.yaml\n  blox run my-study.yaml -j 8 --out /scratch/results --force"
    )]
    Run {
        /// Experiment spec (YAML); without one, runs the embedded default spec.
        spec: Option<PathBuf>,
        /// Worker threads (default: all cores). Results do not depend on it.
        #[arg(short = 'j', long = "jobs", value_parser = clap::value_parser!(u16).range(1..))]
        jobs: Option<u16>,
        /// Results root directory.
        #[arg(long, default_value = "results")]
        out: PathBuf,
        /// Redo runs whose results already exist.
        #[arg(long)]
        force: bool,
        /// Print nothing but errors and the summary table.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Draw a results directory's figures again from its Parquet tables, without rerunning.
    #[command(
        after_help = "Examples:\n  blox plot results/blox-fig6\n  blox plot results/blox-fig6 --spec my-figures.yaml"
    )]
    Plot {
        /// Experiment directory written by `blox run`, e.g. results/blox-fig6.
        results: PathBuf,
        /// Spec whose `figures:` to draw (default: the spec copy in the directory).
        #[arg(long)]
        spec: Option<PathBuf>,
    },
    /// Check a spec and print the size of its grid.
    #[command(after_help = "Example:\n  blox validate specs/paper/blox-fig6.yaml")]
    Validate { spec: PathBuf },
    /// List every scheduler, placement, admission policy, overhead model and workload.
    List,
    /// Inspect and convert real cluster traces.
    #[command(subcommand)]
    Trace(TraceCommand),
    /// List and fetch the public trace datasets (verified by SHA-256, cached).
    #[command(subcommand)]
    Data(DataCommand),
}

#[derive(Subcommand)]
enum DataCommand {
    /// Every dataset: files, size, license and how many files the cache holds verified.
    List {
        /// Cache directory (default: $BLOX_DATA_DIR, else $XDG_CACHE_HOME/blox, else ~/.cache/blox).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Also list each dataset's files (the paths specs name as `dataset: NAME/PATH`).
        #[arg(long)]
        files: bool,
    },
    /// Download datasets into the cache and verify them; verified files are never downloaded again.
    #[command(
        after_help = "Examples:\n  blox data fetch philly itp-raw\n  BLOX_DATA_MIRROR=/srv/traces blox data fetch muri   # offline: a directory or http(s) base URL\n  blox data fetch alibaba-2023 --dir ./data"
    )]
    Fetch {
        #[arg(required = true)]
        names: Vec<String>,
        /// Cache directory (default: $BLOX_DATA_DIR, else $XDG_CACHE_HOME/blox, else ~/.cache/blox).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Print only errors and the summary.
        #[arg(long, short)]
        quiet: bool,
    },
}

#[derive(Subcommand)]
enum TraceCommand {
    /// Rows read and dropped, GPU-count mix, duration quantiles, arrival span and rate.
    #[command(
        after_help = "Examples:\n  blox trace inspect philly.csv\n  blox trace inspect cluster05.csv --gpus 512\n  blox trace inspect trace1.csv --format muri --json"
    )]
    Inspect {
        /// Trace files; each is recognised from its header unless --format is given.
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
enum ConvertTo {
    Parquet,
    Csv,
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Run { spec, jobs, out, force, quiet } => {
            let source = match spec {
                Some(path) => SpecSource::read(&path),
                None => Ok(SpecSource {
                    file: "<embedded default spec>".into(),
                    text: DEFAULT_SPEC.into(),
                    base_dir: ".".into(),
                }),
            };
            let (source, spec) = match source.and_then(parse) {
                Ok(ok) => ok,
                Err(e) => return fail(&e.to_string()),
            };
            if let Err(e) = fetch_datasets(&spec, quiet) {
                return fail(&e);
            }
            if !quiet {
                match describe_traces(&source, &spec) {
                    Ok(text) => eprint!("{text}"),
                    Err(e) => return fail(&e),
                }
            }
            let options = RunnerOptions { out, threads: jobs.map(usize::from), force, quiet };
            let report = match runner::run(&source, &spec, &options) {
                Ok(r) => r,
                Err(e) => return fail(&e),
            };
            print_summary(&report.rows);
            println!(
                "\n{} runs: {} executed, {} already complete, {} failed. Results: {}",
                report.rows.len() + report.failures.len(),
                report.executed,
                report.skipped,
                report.failures.len(),
                report.experiment_dir.display()
            );
            for (key, reason) in &report.failures {
                eprintln!("error: run {key} failed: {reason}");
            }
            let figures_ok = print_figures(&report.figures);
            if report.failures.is_empty() && figures_ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
        }
        Command::Plot { results, spec } => {
            let spec_path = spec.unwrap_or_else(|| results.join("spec.yaml"));
            let spec = match SpecSource::read(&spec_path).and_then(parse) {
                Ok((_, spec)) => spec,
                Err(e) => return fail(&e.to_string()),
            };
            if spec.figures.is_empty() {
                return fail(&format!("{} declares no `figures:`", spec_path.display()));
            }
            let rows = match runner::grid_rows(&spec, &results) {
                Ok(rows) if rows.is_empty() => {
                    return fail(&format!("{} holds no complete run of this spec's grid", results.display()));
                }
                Ok(rows) => rows,
                Err(e) => return fail(&e),
            };
            if print_figures(&runner::render_figures(&spec, &results, &rows)) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Command::Validate { spec } => match SpecSource::read(&spec).and_then(parse) {
            Ok((source, spec)) => {
                let runs = expand(&spec);
                println!(
                    "{}: ok, {} runs ({} policies x {} clusters x {} workloads, {} loads, {} seeds)",
                    source.file.display(),
                    runs.len(),
                    spec.policies.value.len(),
                    spec.clusters.value.len(),
                    spec.workloads.value.len(),
                    spec.loads.len(),
                    spec.seeds.value.len()
                );
                match fetch_datasets(&spec, false).and_then(|()| describe_traces(&source, &spec)) {
                    Ok(text) => {
                        emit(&text);
                        ExitCode::SUCCESS
                    }
                    Err(e) => fail(&e),
                }
            }
            Err(e) => fail(&e.to_string()),
        },
        Command::List => {
            let sections: [(&str, &[Entry]); 5] = [
                ("schedulers (policies[].scheduler)", SchedulerSpec::ALL),
                ("placements (policies[].placement)", PlacementSpec::ALL),
                ("admissions (policies[].admission)", AdmissionSpec::ALL),
                ("overhead models (engine.overhead)", OverheadSpec::ALL),
                ("workloads (workloads[])", WorkloadSpec::ALL),
            ];
            let mut text = String::new();
            for (title, entries) in sections {
                text += &format!("{title}:\n");
                for e in entries {
                    text += &format!("  {:<24} {}\n", e.name, e.summary);
                }
                text += "\n";
            }
            emit(&text);
            ExitCode::SUCCESS
        }
        Command::Trace(command) => trace_command(command),
        Command::Data(command) => data_command(command),
    }
}

fn data_command(command: DataCommand) -> ExitCode {
    match command {
        DataCommand::List { dir, files } => {
            let options = match data::FetchOptions::from_env(dir) {
                Ok(o) => o,
                Err(e) => return fail(&e.to_string()),
            };
            let mut text = format!("cache: {}\n", options.cache_dir.display());
            for dataset in data::datasets() {
                let cached = data::verified_count(dataset, &options).unwrap_or(0);
                text += &format!(
                    "  {:<22} {:>3} files {:>8.1} MB  {:>3} cached  {}\n",
                    dataset.name,
                    dataset.files.len(),
                    dataset.total_size() as f64 / 1e6,
                    cached,
                    dataset.description
                );
                text += &format!("  {:<22} license: {}\n", "", dataset.license);
                if files {
                    for file in dataset.files {
                        text += &format!("  {:<22}   {}/{}\n", "", dataset.name, file.path);
                    }
                }
            }
            emit(&text);
            ExitCode::SUCCESS
        }
        DataCommand::Fetch { names, dir, quiet } => {
            let mut options = match data::FetchOptions::from_env(dir) {
                Ok(o) => o,
                Err(e) => return fail(&e.to_string()),
            };
            options.quiet = quiet;
            for name in &names {
                let report = match data::find(name).and_then(|d| data::fetch(d, &options)) {
                    Ok(r) => r,
                    Err(e) => return fail(&e.to_string()),
                };
                let count = |f: fn(&data::Outcome) -> bool| report.files.iter().filter(|(_, o)| f(o)).count();
                let skipped = count(|o| matches!(o, data::Outcome::MirrorOnly { .. }));
                eprintln!(
                    "{name}: {} files in {} ({} downloaded, {} already verified{})",
                    report.files.len() - skipped,
                    report.dir.display(),
                    count(|o| matches!(o, data::Outcome::Downloaded { .. })),
                    count(|o| matches!(o, data::Outcome::AlreadyVerified)),
                    if skipped > 0 {
                        format!(", {skipped} only on a mirror: set BLOX_DATA_MIRROR")
                    } else {
                        String::new()
                    }
                );
            }
            ExitCode::SUCCESS
        }
    }
}

fn trace_command(command: TraceCommand) -> ExitCode {
    match command {
        TraceCommand::Inspect { files, format, gpus, json } => {
            let format = match parse_format(format.as_deref()) {
                Ok(f) => f,
                Err(e) => return fail(&e),
            };
            let mut inspections = Vec::new();
            let mut failed = false;
            for file in &files {
                match read_trace(file, format) {
                    Ok(trace) => inspections.push(Inspection::new(file, &trace, gpus)),
                    Err(e) => {
                        eprintln!("error: {e}");
                        failed = true;
                    }
                }
            }
            if json {
                match serde_json::to_string_pretty(&inspections) {
                    Ok(text) => emit(&format!("{text}\n")),
                    Err(e) => return fail(&format!("cannot encode the report as JSON: {e}")),
                }
            } else {
                let texts: Vec<String> = inspections.iter().map(Inspection::text).collect();
                emit(&texts.join("\n"));
            }
            if failed { ExitCode::from(2) } else { ExitCode::SUCCESS }
        }
        TraceCommand::Convert { file, to, output, format } => {
            let trace =
                match parse_format(format.as_deref()).and_then(|f| read_trace(&file, f).map_err(|e| e.to_string())) {
                    Ok(t) => t,
                    Err(e) => return fail(&e),
                };
            let output = output.unwrap_or_else(|| match to {
                ConvertTo::Parquet => file.with_extension("parquet"),
                ConvertTo::Csv => file.with_extension("canonical.csv"),
            });
            if output == file {
                return fail(&format!(
                    "{}: the output would overwrite the input; name another with -o",
                    file.display()
                ));
            }
            let written = match to {
                ConvertTo::Parquet => {
                    let source = file.display().to_string();
                    let metadata = [("blox.trace.source", source.as_str()), ("blox.trace.format", trace.format.name())];
                    write_trace_parquet(&output, &trace.jobs, &metadata).map_err(|e| e.to_string())
                }
                ConvertTo::Csv => {
                    std::fs::File::create(&output).map_err(|e| format!("{}: {e}", output.display())).and_then(|f| {
                        write_canonical_csv(std::io::BufWriter::new(f), &trace.jobs)
                            .map_err(|e| format!("{}: {e}", output.display()))
                    })
                }
            };
            if let Err(e) = written {
                return fail(&e);
            }
            eprintln!(
                "{}: {} jobs ({} rows read, {} dropped) written to {}",
                file.display(),
                trace.jobs.len(),
                trace.report.rows_read,
                trace.report.total_dropped(),
                output.display()
            );
            ExitCode::SUCCESS
        }
        TraceCommand::Formats => {
            let lines: Vec<String> =
                TraceFormat::ALL.iter().map(|f| format!("  {:<20} {}\n", f.name(), f.summary())).collect();
            emit(&lines.concat());
            ExitCode::SUCCESS
        }
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

/// Fetches (or checks in the cache) every dataset file the spec's workloads and policies (Gittins
/// distributions) name, once and before any run starts, so that parallel runs find them in place.
fn fetch_datasets(spec: &Spec, quiet: bool) -> Result<(), String> {
    let traces = spec.workloads.value.iter().filter_map(|w| match &w.value {
        WorkloadSpec::Trace(TraceParams { dataset: Some(reference), .. }) => Some(reference),
        _ => None,
    });
    let distributions = spec.policies.value.iter().filter_map(|p| match p.scheduler.value.gpu_time_source() {
        Some(GpuTimeSource::Dataset(reference)) => Some(reference),
        _ => None,
    });
    let references = traces.chain(distributions);
    for reference in references {
        let options = data::FetchOptions::from_env(None).map_err(|e| e.to_string())?;
        data::resolve(reference, &data::FetchOptions { quiet, ..options })
            .map_err(|e| format!("dataset `{reference}`: {e}"))?;
    }
    Ok(())
}

/// What reading each trace workload of the spec gives at the grid's first point (loads and
/// seeds can change transforms' results; the runs table has every point), and the size of each
/// policy's GPU-time distribution (read here so that a bad file fails before any run).
fn describe_traces(source: &SpecSource, spec: &Spec) -> Result<String, String> {
    let Some(cluster) = spec.clusters.value.first() else { return Ok(String::new()) };
    let mut text = String::new();
    for workload in &spec.workloads.value {
        let workload = &workload.value;
        let context = WorkloadContext {
            load: if workload.needs_load() { spec.loads.first().map(|l| l.0) } else { None },
            seed: spec.seeds.value.first().copied().unwrap_or(1),
            base_dir: &source.base_dir,
            cluster_gpus: cluster.nodes.0.saturating_mul(cluster.gpus_per_node.0),
        };
        if let Some(loaded) = workload.trace(&context) {
            text += &loaded.map_err(|e| e.to_string())?.describe(&workload.label());
        }
    }
    for policy in &spec.policies.value {
        if let Some(distribution) = policy.scheduler.value.gpu_time_source() {
            let read = distribution.load(&source.base_dir)?;
            text += &format!("{}: Gittins index over {} job sizes\n", policy.label.value.0, read.len());
        }
    }
    Ok(text)
}

/// Parses a spec, keeping its source (file name and base directory) beside it.
fn parse(source: SpecSource) -> Result<(SpecSource, Spec), SpecError> {
    Spec::parse(&source).map(|spec| (source, spec))
}

/// Prints where each figure went, or why it failed; false if any failed.
fn print_figures(figures: &[Result<Rendered, FigureError>]) -> bool {
    for figure in figures {
        match figure {
            Ok(f) => println!("{f}"),
            Err(e) => eprintln!("error: {e}"),
        }
    }
    figures.iter().all(Result::is_ok)
}

/// Writes to stdout; a closed pipe (`blox trace inspect ... | head`) ends the output quietly.
fn emit(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

fn fail(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

fn print_summary(rows: &[RunRow]) {
    let hours = |s: f64| if s.is_nan() { "-".to_string() } else { format!("{:.3}", s / 3600.0) };
    let width = |f: fn(&RunRow) -> usize, title: &str| rows.iter().map(f).max().unwrap_or(0).max(title.len());
    let (wl, wc, ww) = (
        width(|r| r.info.label.len(), "label"),
        width(|r| r.info.cluster.len(), "cluster"),
        width(|r| r.info.workload.len(), "workload"),
    );
    // Deadline-aware runs (the event engine) add the deadline satisfactory ratio.
    let deadlines = rows.iter().any(|r| r.summary.deadlines.deadline_ratio.is_some());
    let ratio_column = |r: Option<&RunRow>| match r {
        _ if !deadlines => String::new(),
        None => format!("  {:>9}", "ddl ratio"),
        Some(r) => match r.summary.deadlines.deadline_ratio {
            Some(ratio) => format!("  {ratio:>9.3}"),
            None => format!("  {:>9}", "-"),
        },
    };
    println!(
        "{:<wl$}  {:<wc$}  {:<ww$}  {:>6}  {:>5}  {:>10}  {:>10}  {:>10}  {:>11}  {:>6}{}",
        "label",
        "cluster",
        "workload",
        "load",
        "seed",
        "avg JCT h",
        "p99 JCT h",
        "avg resp h",
        "preemptions",
        "util",
        ratio_column(None)
    );
    for r in rows {
        let (i, s) = (&r.info, &r.summary);
        println!(
            "{:<wl$}  {:<wc$}  {:<ww$}  {:>6}  {:>5}  {:>10}  {:>10}  {:>10}  {:>11}  {:>5.1}%{}",
            i.label,
            i.cluster,
            i.workload,
            i.load.map(fmt_number).unwrap_or_else(|| "-".into()),
            i.seed,
            hours(s.avg_jct),
            hours(s.p99_jct),
            hours(s.avg_responsiveness),
            s.preemptions,
            s.gpu_utilization * 100.0,
            ratio_column(Some(r))
        );
    }
}
