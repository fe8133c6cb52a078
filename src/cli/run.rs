//! `blox run` and `blox plot`: run a spec's grid, print its summary, draw its figures.

use super::read_spec;
use super::validate::{check_workloads, fetch_datasets};
use crate::figures::{FigureError, Rendered};
use crate::results::RunRow;
use crate::runner::{self, RunnerOptions};
use crate::spec::SpecSource;
use crate::spec::grid::fmt_number;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub(super) struct RunArgs {
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
}

#[derive(Args)]
pub(super) struct PlotArgs {
    /// Experiment directory written by `blox run`, e.g. results/blox-fig6.
    results: PathBuf,
    /// Spec whose `figures:` to draw (default: the spec copy in the directory).
    #[arg(long)]
    spec: Option<PathBuf>,
}

pub(super) fn run(args: RunArgs) -> Result<ExitCode, String> {
    let (source, spec) = read_spec(args.spec.as_ref()).map_err(|e| e.to_string())?;
    fetch_datasets(&spec, args.quiet)?;
    let workloads = check_workloads(&source, &spec)?;
    if !args.quiet {
        eprint!("{workloads}");
    }
    let options =
        RunnerOptions { out: args.out, threads: args.jobs.map(usize::from), force: args.force, quiet: args.quiet };
    let report = runner::run(&source, &spec, &options)?;
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
    Ok(if report.failures.is_empty() && figures_ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

pub(super) fn plot(args: PlotArgs) -> Result<ExitCode, String> {
    let spec_path = args.spec.unwrap_or_else(|| args.results.join("spec.yaml"));
    let (_, spec) = SpecSource::read(&spec_path)
        .and_then(|source| crate::spec::Spec::parse(&source).map(|spec| (source, spec)))
        .map_err(|e| e.to_string())?;
    if spec.figures.is_empty() {
        return Err(format!("{} declares no `figures:`", spec_path.display()));
    }
    let rows = runner::grid_rows(&spec, &args.results)?;
    if rows.is_empty() {
        return Err(format!("{} holds no complete run of this spec's grid", args.results.display()));
    }
    Ok(if print_figures(&runner::render_figures(&spec, &args.results, &rows)) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
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
