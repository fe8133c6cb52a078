//! Runs every point of a grid in parallel (rayon), with progress, atomic per-run output and
//! skipping of runs already complete.
//!
//! Each run is independent and deterministic, so results do not depend on the thread count or on
//! the order in which runs finish. A run that fails (bad trace, engine error, even a panic) is
//! reported and the others still complete and are written.

use crate::core::Engine;
use crate::core::events::EventEngine;
use crate::figures::{self, FigureError, Rendered};
use crate::results::{self, Provenance, RunRow};
use crate::spec::grid::{RunPlan, expand};
use crate::spec::{EngineMode, Spec, SpecSource};
use crate::workload::WorkloadContext;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How to run a spec.
#[derive(Debug, Clone)]
pub struct RunnerOptions {
    /// Results root; the experiment goes to `<out>/<name>/`.
    pub out: PathBuf,
    /// Worker threads; `None` uses every core.
    pub threads: Option<usize>,
    /// Redo runs that are already complete.
    pub force: bool,
    /// No progress output.
    pub quiet: bool,
}

/// What happened to the runs of one spec.
#[derive(Debug)]
pub struct SweepReport {
    pub experiment_dir: PathBuf,
    pub executed: usize,
    pub skipped: usize,
    /// Runs that failed, with the reason.
    pub failures: Vec<(String, String)>,
    /// Every complete run of this grid, in grid order (executed now or earlier).
    pub rows: Vec<RunRow>,
    /// The spec's figures, drawn from `rows`.
    pub figures: Vec<Result<Rendered, FigureError>>,
}

enum Outcome {
    Executed,
    Skipped,
}

/// Runs `spec` and writes its tables under `options.out`.
pub fn run(source: &SpecSource, spec: &Spec, options: &RunnerOptions) -> Result<SweepReport, String> {
    let plans = expand(spec);
    let experiment_dir = options.out.join(&spec.name.value.0);
    std::fs::create_dir_all(&experiment_dir).map_err(|e| format!("cannot create {}: {e}", experiment_dir.display()))?;
    let provenance = Provenance {
        spec_yaml: source.text.clone(),
        spec_sha256: Sha256::digest(source.text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect(),
        blox_version: env!("CARGO_PKG_VERSION").to_string(),
    };
    write_atomically(&experiment_dir.join("spec.yaml"), source.text.as_bytes())
        .map_err(|e| format!("cannot write the spec copy into {}: {e}", experiment_dir.display()))?;

    let progress = progress_bar(plans.len() as u64, options.quiet);
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.unwrap_or(0))
        .build()
        .map_err(|e| format!("cannot start worker threads: {e}"))?;
    let outcomes: Vec<Result<Outcome, String>> = pool.install(|| {
        plans
            .par_iter()
            .map(|plan| {
                let outcome = run_one(plan, &source.base_dir, &experiment_dir, &provenance, options.force);
                progress.inc(1);
                let done = finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                if progress.is_hidden() && !options.quiet {
                    let status = match &outcome {
                        Ok(Outcome::Executed) => "done".to_string(),
                        Ok(Outcome::Skipped) => "already complete".to_string(),
                        Err(e) => format!("FAILED: {e}"),
                    };
                    eprintln!("[{done}/{}] {}: {status}", plans.len(), plan.info.run_key);
                }
                outcome
            })
            .collect()
    });
    progress.finish_and_clear();

    let mut report = SweepReport {
        experiment_dir: experiment_dir.clone(),
        executed: 0,
        skipped: 0,
        failures: Vec::new(),
        rows: Vec::new(),
        figures: Vec::new(),
    };
    for (plan, outcome) in plans.iter().zip(outcomes) {
        match outcome {
            Ok(Outcome::Executed) => report.executed += 1,
            Ok(Outcome::Skipped) => report.skipped += 1,
            Err(e) => report.failures.push((plan.info.run_key.clone(), e)),
        }
    }
    report.rows = grid_rows(spec, &experiment_dir)?;
    report.figures = render_figures(spec, &experiment_dir, &report.rows);
    Ok(report)
}

/// The complete runs of `spec`'s grid found in `experiment_dir`, in grid order. Runs of other
/// grids (an earlier version of the spec) are left out.
pub fn grid_rows(spec: &Spec, experiment_dir: &Path) -> Result<Vec<RunRow>, String> {
    let mut all = results::read_runs(experiment_dir).map_err(|e| e.to_string())?;
    let mut rows = Vec::new();
    for plan in expand(spec) {
        if let Some(i) = all.iter().position(|r| r.info.run_key == plan.info.run_key) {
            rows.push(all.swap_remove(i));
        }
    }
    Ok(rows)
}

/// Draws the spec's figures from `rows`.
pub fn render_figures(spec: &Spec, experiment_dir: &Path, rows: &[RunRow]) -> Vec<Result<Rendered, FigureError>> {
    figures::render_all(spec.figures.iter().map(|f| &f.value), experiment_dir, rows)
}

fn run_one(
    plan: &RunPlan,
    base_dir: &Path,
    experiment_dir: &Path,
    provenance: &Provenance,
    force: bool,
) -> Result<Outcome, String> {
    if !force && results::is_complete(experiment_dir, &plan.info.run_key) {
        return Ok(Outcome::Skipped);
    }
    let started = Instant::now();
    let simulate = || -> Result<_, String> {
        let context = WorkloadContext {
            load: plan.load,
            seed: plan.seed,
            base_dir,
            cluster_gpus: plan.config.cluster.total_gpus(),
        };
        let jobs = plan.workload.jobs(&context).map_err(|e| e.to_string())?;
        let scheduler = &plan.policy.scheduler.value;
        let wrong_engine =
            || format!("scheduler `{}` does not run on the {} engine", scheduler.name(), plan.mode.name());
        match plan.mode {
            EngineMode::Rounds => {
                let policies = plan.policies().ok_or_else(wrong_engine)?;
                Engine::new(plan.config.clone(), policies, jobs).and_then(Engine::run)
            }
            EngineMode::Events => {
                let gpu_time = scheduler.gpu_time_source().map(|source| source.load(base_dir)).transpose()?;
                let policy = scheduler.build_event(gpu_time.as_ref()).ok_or_else(wrong_engine)?;
                EventEngine::new(plan.event_config(), policy, jobs)
                    .and_then(|engine| engine.with_placement(plan.event_placement()).run())
            }
        }
        .map_err(|e| e.to_string())
    };
    let output = std::panic::catch_unwind(std::panic::AssertUnwindSafe(simulate))
        .map_err(|panic| format!("internal error (please report): {}", panic_message(&panic)))??;
    let wall_time_s = started.elapsed().as_secs_f64();
    results::write_run(experiment_dir, &plan.info, &output, wall_time_s, provenance).map_err(|e| e.to_string())?;
    Ok(Outcome::Executed)
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

/// An overall bar with ETA on a terminal; hidden (plain lines instead) when stderr is not one.
fn progress_bar(len: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} runs, ETA {eta}")
            .expect("static progress template"),
    );
    bar
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}
