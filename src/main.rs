//! The `blox` command line: run, plot, validate and list.

use blox::figures::{FigureError, Rendered};
use blox::policies::{AdmissionSpec, Entry, OverheadSpec, PlacementSpec, SchedulerSpec};
use blox::results::RunRow;
use blox::runner::{self, RunnerOptions};
use blox::spec::grid::{expand, fmt_number};
use blox::spec::{Spec, SpecError, SpecSource};
use blox::workload::WorkloadSpec;
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
    after_help = "Examples:\n  blox run                                  # the embedded default sweep\n  blox run specs/paper/blox-fig6.yaml -j 2  # Blox Figures 6 and 7\n  blox validate specs/paper/blox-fig12.yaml # check a spec, print its grid size\n  blox plot results/blox-fig6                # redraw figures from existing results\n  blox list                                 # every policy and workload generator"
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
                ExitCode::SUCCESS
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
            for (title, entries) in sections {
                println!("{title}:");
                for e in entries {
                    println!("  {:<24} {}", e.name, e.summary);
                }
                println!();
            }
            ExitCode::SUCCESS
        }
    }
}

/// Parses a spec, keeping its source (file name and base directory) beside it.
fn parse(source: SpecSource) -> Result<(SpecSource, Spec), SpecError> {
    Spec::parse(&source).map(|spec| (source, spec))
}

/// Prints where each figure went, or why it failed; false if any failed.
fn print_figures(figures: &[Result<Rendered, FigureError>]) -> bool {
    for figure in figures {
        match figure {
            Ok(f) => println!("figure {}: {} {}", f.name, f.png.display(), f.svg.display()),
            Err(e) => eprintln!("error: {e}"),
        }
    }
    figures.iter().all(Result::is_ok)
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
    println!(
        "{:<wl$}  {:<wc$}  {:<ww$}  {:>6}  {:>5}  {:>10}  {:>10}  {:>10}  {:>11}  {:>6}",
        "label", "cluster", "workload", "load", "seed", "avg JCT h", "p99 JCT h", "avg resp h", "preemptions", "util"
    );
    for r in rows {
        let (i, s) = (&r.info, &r.summary);
        println!(
            "{:<wl$}  {:<wc$}  {:<ww$}  {:>6}  {:>5}  {:>10}  {:>10}  {:>10}  {:>11}  {:>5.1}%",
            i.label,
            i.cluster,
            i.workload,
            i.load.map(fmt_number).unwrap_or_else(|| "-".into()),
            i.seed,
            hours(s.avg_jct),
            hours(s.p99_jct),
            hours(s.avg_responsiveness),
            s.preemptions,
            s.gpu_utilization * 100.0
        );
    }
}
