//! `blox run`: run a spec's grid (or list it with `--dry-run`), print its summary, draw its figures.

use super::read_spec;
use super::summary::{print_per_label, print_summary};
use crate::figures::{FigureError, Rendered};
use crate::results::{self, RunState};
use crate::runner::{self, GridPoint, RunnerOptions, Selection, ShardArg, SweepControl, SweepReport};
use crate::spec::check::{check_workloads, fetch_datasets};
use crate::spec::inputs::external_policy_notes;
use crate::spec::{Spec, SpecSource};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Exit status of a sweep stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells report it).
const INTERRUPTED: u8 = 130;

#[derive(Args)]
pub(super) struct RunArgs {
    /// Experiment spec (YAML); without one, runs the embedded default spec.
    spec: Option<PathBuf>,
    /// Worker threads (default: all cores, at most one per run). Results do not depend on it.
    #[arg(short = 'j', long = "jobs", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Results root directory.
    #[arg(long, default_value = "results")]
    out: PathBuf,
    /// Redo runs whose results already exist.
    #[arg(long)]
    force: bool,
    /// Print one summary line per policy label, the totals line, warnings and errors only.
    #[arg(long, short)]
    quiet: bool,
    /// List every run key of the grid as done or todo; run, write and download nothing.
    #[arg(long)]
    dry_run: bool,
    /// Run only the grid points matching KEY=VALUE,... (keys: label, scheduler, cluster,
    /// workload, load, seed; a key given twice matches either value).
    #[arg(long, value_name = "KEY=VALUE,...")]
    only: Option<Selection>,
    /// Run shard K of N of the grid (1-based; `auto`: from a Slurm array task's or a Kubernetes
    /// Indexed Job's environment). Shards share one results directory and never overlap.
    #[arg(long, value_name = "K/N|auto")]
    shard: Option<ShardArg>,
    /// Fail a run that takes longer than this many seconds of wall time; the others go on.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    run_timeout: Option<Duration>,
}

fn parse_seconds(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 1e9 => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!("`{text}` is not a number of seconds from 0 to 1e9 (exclusive of 0)")),
    }
}

pub(super) fn run(args: RunArgs) -> Result<ExitCode, String> {
    let (source, spec) = read_spec(args.spec.as_ref()).map_err(|e| e.to_string())?;
    if args.dry_run {
        return dry_run(&source, &spec, &args);
    }
    prepare(&source, &spec, args.quiet)?;
    let shard = args.shard.map(ShardArg::resolve).transpose()?;
    let control = SweepControl { only: args.only.clone(), shard, run_timeout: args.run_timeout, ..Default::default() };
    let interrupt = control.interrupt.clone();
    // First signal: stop the runs and report; a second one ends the process at once, and the
    // external policy programs with it (they run in process groups of their own).
    let handler = ctrlc::set_handler(move || {
        if interrupt.is_stopped() {
            crate::policies::rounds::scheduling::external::kill_all_programs();
            std::process::exit(i32::from(INTERRUPTED));
        }
        interrupt.stop();
    });
    if let Err(e) = handler {
        eprintln!("warning: Ctrl-C will not stop the sweep cleanly: {e}");
    }
    let options = RunnerOptions {
        out: args.out.clone(),
        threads: args.jobs.map(usize::from),
        force: args.force,
        quiet: args.quiet,
    };
    let report = runner::run_with(&source, &spec, &options, &control)?;
    Ok(print_report(&report, args.quiet))
}

/// What `blox run` does between parsing a spec and running its grid ([`runner::run_with`]):
/// fetches the datasets it names, reads every workload at every grid point and checks its jobs
/// against the policies, and (unless `quiet`) prints what the workloads hold and what external
/// policies' run keys hash. A program that runs specs through the library calls it too.
pub fn prepare(source: &SpecSource, spec: &Spec, quiet: bool) -> Result<(), String> {
    fetch_datasets(spec, quiet)?;
    let workloads = check_workloads(source, spec)?;
    if !quiet {
        eprint!("{workloads}{}", external_policy_notes(spec, &source.base_dir));
    }
    Ok(())
}

/// Prints what a sweep did; its exit status.
fn print_report(report: &SweepReport, quiet: bool) -> ExitCode {
    let set_aside = &report.set_aside;
    if let Some(dir) = &set_aside.dir {
        eprintln!("set aside {} runs into {} (see reasons.txt there):", set_aside.runs.len(), dir.display());
        for (key, reason) in &set_aside.runs {
            eprintln!("  {key}: {reason}");
        }
    }
    if let Some(dir) = &report.input_changed.dir {
        eprintln!(
            "error: input files changed (or could not be read again) while the sweep ran; their runs are set aside \
             into {}:",
            dir.display()
        );
        for (key, reason) in &report.input_changed.runs {
            eprintln!("  {key}: {reason}");
        }
    }
    for (key, error) in &report.unreadable {
        eprintln!("warning: run {key} is left out: {error}");
    }
    if report.interrupted {
        let left = report.selected - report.executed - report.skipped;
        eprintln!("interrupted: {} runs complete, {left} left; rerun to resume", report.executed + report.skipped);
        return ExitCode::from(INTERRUPTED);
    }
    if quiet {
        print_per_label(&report.rows, &report.failures);
    } else {
        print_summary(&report.rows);
    }
    let mut counts = vec![format!("{} executed", report.executed), format!("{} already complete", report.skipped)];
    if !report.running_elsewhere.is_empty() {
        counts.push(format!("{} running in another process", report.running_elsewhere.len()));
    }
    counts.push(format!("{} failed", report.failures.len()));
    let shard = report.shard.map(|s| format!("shard {}: ", s.describe())).unwrap_or_default();
    outln!("\n{shard}{} runs: {}. Results: {}", report.selected, counts.join(", "), report.experiment_dir.display());
    for (key, reason) in &report.failures {
        eprintln!("error: run {key} failed: {reason}");
    }
    let figures_ok = print_figures(&report.figures, quiet);
    let grid_complete = report.rows.len() == report.grid_size;
    if let Some(shard) = report.shard.filter(|_| !grid_complete) {
        eprintln!(
            "shard {}: {} of the grid's {} runs are complete; the shard that completes the grid draws its figures \
             (or run `blox plot {}` then)",
            shard.describe(),
            report.rows.len(),
            report.grid_size,
            report.experiment_dir.display()
        );
    }
    if !report.figures.is_empty() && !grid_complete && report.shard.is_none() {
        eprintln!(
            "note: {} of the grid's {} runs are complete (see `blox status {}`); figures show those, and a figure \
             that needs the others is not an error of this run",
            report.rows.len(),
            report.grid_size,
            report.experiment_dir.display()
        );
    }
    for path in &report.figures_removed {
        eprintln!("removed {} (its figure is no longer in the spec)", path.display());
    }
    let all_done = report.failures.is_empty() && report.input_changed.runs.is_empty();
    if all_done && (figures_ok || !grid_complete) { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// `--dry-run`: every selected run key with its state, and the counts.
fn dry_run(source: &SpecSource, spec: &Spec, args: &RunArgs) -> Result<ExitCode, String> {
    let plans = runner::plan(source, spec)?;
    let shard = args.shard.map(ShardArg::resolve).transpose()?;
    let selected = runner::select(&plans, args.only.as_ref(), shard, &source.base_dir)?;
    let experiment_dir = args.out.join(&spec.name.value.0);
    let mut todo = 0;
    let mut text = String::new();
    for plan in &selected {
        let key = &plan.info.run_key;
        let state = run_state(&experiment_dir, key);
        if state != "done" || args.force {
            todo += 1;
        }
        let state = if args.force { "todo (--force)" } else { state };
        text += &format!("{state:<8} {key}  {}\n", GridPoint::of(plan).describe());
    }
    super::emit(&text);
    outln!(
        "{}: {} runs selected of {}; {} to do, {} done (nothing was run)",
        experiment_dir.display(),
        selected.len(),
        plans.len(),
        todo,
        selected.len() - todo
    );
    Ok(ExitCode::SUCCESS)
}

/// `done`, `failed`, `running` (another process holds it), `damaged` or `todo`.
pub(super) fn run_state(experiment_dir: &Path, run_key: &str) -> &'static str {
    match results::run_state(experiment_dir, run_key) {
        RunState::Done(_) => "done",
        RunState::Running => "running",
        RunState::Damaged(_) => "damaged",
        RunState::Failed(_) => "failed",
        RunState::Missing => "todo",
    }
}

/// Prints where each figure went (unless `quiet`), or why it failed; false if any failed.
pub(super) fn print_figures(figures: &[Result<Rendered, FigureError>], quiet: bool) -> bool {
    for figure in figures {
        match figure {
            Ok(f) if quiet => f.warnings.iter().for_each(|w| eprintln!("warning: figure `{}`: {w}", f.name)),
            Ok(f) => outln!("{f}"),
            Err(e) => eprintln!("error: {e}"),
        }
    }
    figures.iter().all(Result::is_ok)
}
