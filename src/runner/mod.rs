//! Runs every point of a grid in parallel (rayon), with progress, atomic per-run output and
//! skipping of runs already complete.
//!
//! Each run is independent and deterministic, so results do not depend on the thread count or on
//! the order in which runs finish. A run that fails (bad trace, engine error, even a panic, its
//! time limit) is reported and recorded, and the others still complete and are written.
//!
//! Several processes may share one experiment directory (two terminals, array tasks): each run
//! is taken under its lock ([`store::lock_run`]), so a run another process is doing is reported
//! as such, never raced or counted as failed. Before the runs start, files that do not belong to
//! the current grid are set aside ([`store::tidy`]): a results directory holds one version.

mod grid_file;
mod progress;
mod shard;

pub use grid_file::{GRID_FILE, GridFile, GridPoint, Selection, ShardedSweep};
pub use shard::{Shard, ShardArg};

use crate::core::events::EventEngine;
use crate::core::{Engine, RecordSink, RoundTiming, RunError, RunTables, StopFlag};
use crate::figures::{self, FigureError, Rendered};
use crate::live;
use crate::results::store::{self, SetAside, SetAsideReason};
use crate::results::{self, AttemptRow, Provenance, RunCost, RunRow};
use crate::spec::grid::{RunPlan, expand};
use crate::spec::inputs::{InputChange, InputDigests, InputFiles};
use crate::spec::{EngineMode, LiveSpec, Spec, SpecSource};
use crate::workload::WorkloadContext;
use progress::Progress;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::time::{Duration, Instant};

/// How to run a spec.
#[derive(Debug, Clone)]
pub struct RunnerOptions {
    /// Results root; the experiment goes to `<out>/<name>/`.
    pub out: PathBuf,
    /// Worker threads; `None` uses every core. Never more than the runs to do.
    pub threads: Option<usize>,
    /// Redo runs that are already complete.
    pub force: bool,
    /// No progress output.
    pub quiet: bool,
}

/// What else a sweep may be told: a subset, a time limit per run, an interrupt.
#[derive(Debug, Clone, Default)]
pub struct SweepControl {
    /// Run only the grid points this selects (`--only`).
    pub only: Option<Selection>,
    /// Run only this shard of the (selected) grid (`--shard K/N`).
    pub shard: Option<Shard>,
    /// Wall-clock limit of one run (`--run-timeout`); a run over it fails cleanly.
    pub run_timeout: Option<Duration>,
    /// Raised (by Ctrl-C / SIGTERM) to abandon the sweep: runs in progress stop, runs not yet
    /// started are left for the next `blox run`.
    pub interrupt: StopFlag,
}

/// What happened to the runs of one spec.
#[derive(Debug)]
pub struct SweepReport {
    pub experiment_dir: PathBuf,
    /// Runs of the spec's grid.
    pub grid_size: usize,
    /// The shard this sweep ran, if one.
    pub shard: Option<Shard>,
    /// Runs the sweep was asked to do (the whole grid, or the `--only` subset).
    pub selected: usize,
    pub executed: usize,
    pub skipped: usize,
    /// Runs another process is doing right now, left to it.
    pub running_elsewhere: Vec<String>,
    /// Runs not done because the sweep was interrupted.
    pub not_started: usize,
    /// Runs that failed, with the reason.
    pub failures: Vec<(String, String)>,
    /// Files moved out of the way before the runs started.
    pub set_aside: SetAside,
    /// Runs of this sweep set aside because an input file changed while they ran.
    pub input_changed: SetAside,
    pub interrupted: bool,
    /// Every complete run of this grid, in grid order (executed now or earlier).
    pub rows: Vec<RunRow>,
    /// Complete runs of the grid whose files could not be read, with the error.
    pub unreadable: Vec<(String, String)>,
    /// The spec's figures, drawn from `rows`.
    pub figures: Vec<Result<Rendered, FigureError>>,
    /// Files of figures the spec no longer declares, removed so they are not taken for current.
    pub figures_removed: Vec<PathBuf>,
}

enum Outcome {
    Executed { wall_time_s: f64 },
    Skipped,
    RunningElsewhere,
    NotStarted,
    Failed(String),
}

/// The grid of `spec` with every run key resolved (input files hashed, no download), checked
/// for duplicate keys.
pub fn plan(source: &SpecSource, spec: &Spec) -> Result<Vec<RunPlan>, String> {
    plan_with_inputs(source, spec).map(|(plans, _)| plans)
}

fn plan_with_inputs(source: &SpecSource, spec: &Spec) -> Result<(Vec<RunPlan>, InputDigests), String> {
    let inputs = InputDigests::of(spec, &source.base_dir)?;
    let plans = expand(spec, &inputs);
    let mut keys = BTreeSet::new();
    for plan in &plans {
        if !keys.insert(plan.info.run_key.as_str()) {
            return Err(format!(
                "two grid points share the run key {}; give their policies distinct labels",
                plan.info.run_key
            ));
        }
    }
    Ok((plans, inputs))
}

/// The plans `only` keeps (all without one), then `shard`'s part of them; an error when `only`
/// keeps none. A shard may be empty (more shards than runs).
pub fn select<'a>(
    plans: &'a [RunPlan],
    only: Option<&Selection>,
    shard: Option<Shard>,
    base_dir: &Path,
) -> Result<Vec<&'a RunPlan>, String> {
    let mut selected: Vec<&RunPlan> = plans.iter().collect();
    if let Some(only) = only {
        selected.retain(|p| only.matches(&GridPoint::of(p)));
        if selected.is_empty() {
            return Err(format!("--only matches none of the {} runs of the grid", plans.len()));
        }
    }
    Ok(match shard {
        Some(shard) => shard.select(&selected, base_dir),
        None => selected,
    })
}

/// Runs `spec` and writes its tables under `options.out`.
pub fn run(source: &SpecSource, spec: &Spec, options: &RunnerOptions) -> Result<SweepReport, String> {
    run_with(source, spec, options, &SweepControl::default())
}

/// [`run`] with a selection, a time limit per run and an interrupt flag.
pub fn run_with(
    source: &SpecSource,
    spec: &Spec,
    options: &RunnerOptions,
    control: &SweepControl,
) -> Result<SweepReport, String> {
    run_many(&[(source, spec)], options, control).map(|mut reports| reports.remove(0))
}

/// Runs several specs' sweeps as one pool of runs, longest first across all of them, so that
/// the workers stay busy to the end instead of waiting at each spec's longest run; each spec's
/// report is what [`run_with`] would give for it alone. The specs must have distinct names (one
/// experiment directory each).
pub fn run_many(
    specs: &[(&SpecSource, &Spec)],
    options: &RunnerOptions,
    control: &SweepControl,
) -> Result<Vec<SweepReport>, String> {
    let mut names = BTreeSet::new();
    if let Some((_, spec)) = specs.iter().find(|(_, spec)| !names.insert(spec.name.value.0.as_str())) {
        return Err(format!("two specs are named `{}`: their results would share a directory", spec.name.value.0));
    }
    let sweeps = specs
        .iter()
        .map(|&(source, spec)| Sweep::prepare(source, spec, options, control))
        .collect::<Result<Vec<_>, _>>()?;
    let outcomes = execute(&sweeps, options, control)?;
    sweeps.into_iter().zip(outcomes).map(|(sweep, outcomes)| sweep.finish(outcomes, control)).collect()
}

/// One spec's sweep between its preparation and its report: the grid planned, the runs
/// selected, the experiment directory written and tidied, its live scheduler started.
struct Sweep<'a> {
    spec: &'a Spec,
    base_dir: &'a Path,
    plans: Vec<RunPlan>,
    /// Indices into `plans` of the runs to do.
    selected: Vec<usize>,
    inputs: InputDigests,
    files: InputFiles,
    experiment_dir: PathBuf,
    provenance: Provenance,
    set_aside: SetAside,
    live: Option<live::scheduler::Coordinator>,
}

impl<'a> Sweep<'a> {
    fn prepare(
        source: &'a SpecSource,
        spec: &'a Spec,
        options: &RunnerOptions,
        control: &SweepControl,
    ) -> Result<Self, String> {
        let (plans, inputs) = plan_with_inputs(source, spec)?;
        let selected = select(&plans, control.only.as_ref(), control.shard, &source.base_dir)?;
        // Run keys are unique (checked by the plan), so they find a selected run's index.
        let index: HashMap<&str, usize> =
            plans.iter().enumerate().map(|(i, plan)| (plan.info.run_key.as_str(), i)).collect();
        let selected: Vec<usize> = selected.iter().map(|plan| index[plan.info.run_key.as_str()]).collect();
        let experiment_dir = options.out.join(&spec.name.value.0);
        std::fs::create_dir_all(&experiment_dir)
            .map_err(|e| format!("cannot create {}: {e}", experiment_dir.display()))?;
        let provenance = Provenance {
            spec_yaml: source.text.clone(),
            spec_sha256: crate::digest::sha256_hex(source.text.as_bytes()),
            blox_version: crate::version::LONG_VERSION.to_string(),
        };
        let grid = GridFile {
            experiment: spec.name.value.0.clone(),
            spec_sha256: provenance.spec_sha256.clone(),
            blox_version: provenance.blox_version.clone(),
            runs: plans.iter().map(GridPoint::of).collect(),
            sharded: control.shard.map(|shard| ShardedSweep {
                shards: shard.count(),
                only: control.only.as_ref().map(ToString::to_string),
            }),
        };
        // Refuses a shard that disagrees with an unfinished sharded sweep, before anything is written.
        grid.claim(&experiment_dir)?;
        store::write_file_atomically(&experiment_dir.join("spec.yaml"), source.text.as_bytes())
            .map_err(|e| format!("cannot write the spec copy into {}: {e}", experiment_dir.display()))?;
        let keys: BTreeSet<String> = plans.iter().map(|p| p.info.run_key.clone()).collect();
        let set_aside = store::tidy(&experiment_dir, &keys).map_err(|e| e.to_string())?;
        // Live runs share one real cluster: one at a time, through one listening scheduler.
        let live = match spec.engine.live.as_ref().filter(|_| spec.engine.mode == EngineMode::Live) {
            Some(live) if !selected.is_empty() => {
                let executor = spec.engine.executor.as_ref().map(|e| e.value).unwrap_or_default();
                Some(start_live(&live.value, executor, &source.base_dir, &experiment_dir)?)
            }
            _ => None,
        };
        Ok(Sweep {
            spec,
            base_dir: &source.base_dir,
            plans,
            selected,
            inputs,
            files: InputFiles::new(&source.base_dir),
            experiment_dir,
            provenance,
            set_aside,
            live,
        })
    }

    /// The report of the sweep, from the outcomes of its selected runs (in `selected` order):
    /// runs whose inputs changed meanwhile set aside, the grid's complete runs read, figures drawn.
    fn finish(self, outcomes: Vec<Outcome>, control: &SweepControl) -> Result<SweepReport, String> {
        let Sweep { spec, plans, selected, inputs, experiment_dir, set_aside, .. } = self;
        let mut report = SweepReport {
            experiment_dir: experiment_dir.clone(),
            grid_size: plans.len(),
            shard: control.shard,
            selected: selected.len(),
            executed: 0,
            skipped: 0,
            running_elsewhere: Vec::new(),
            not_started: 0,
            failures: Vec::new(),
            set_aside,
            input_changed: SetAside::default(),
            interrupted: control.interrupt.is_stopped(),
            rows: Vec::new(),
            unreadable: Vec::new(),
            figures: Vec::new(),
            figures_removed: Vec::new(),
        };
        // A file edited while the sweep ran: the runs that read it may have read either version,
        // under a key that names the old one. They are set aside, to be redone; so are the runs
        // of a file that cannot be read again, since what they read cannot be checked.
        let again = inputs.hash_again();
        let mut changed = Vec::new();
        for (&i, outcome) in selected.iter().zip(outcomes) {
            let plan = &plans[i];
            let key = plan.info.run_key.clone();
            if let Outcome::Executed { .. } = outcome
                && let Some(change) = inputs.changed_input(&again, &plan.workload, &plan.policy)
            {
                let reason = match change {
                    InputChange::Changed(file) => SetAsideReason::InputChanged(file.display().to_string()),
                    InputChange::Unreadable(file, error) => {
                        SetAsideReason::InputUnreadable(file.display().to_string(), error)
                    }
                };
                changed.push((key.clone(), reason));
            }
            match outcome {
                Outcome::Executed { .. } => report.executed += 1,
                Outcome::Skipped => report.skipped += 1,
                Outcome::RunningElsewhere => report.running_elsewhere.push(key),
                Outcome::NotStarted => report.not_started += 1,
                Outcome::Failed(e) => report.failures.push((key, e)),
            }
        }
        report.input_changed = store::set_aside(&experiment_dir, changed).map_err(|e| e.to_string())?;
        (report.rows, report.unreadable) = grid_rows(&experiment_dir, plans.iter().map(|p| p.info.run_key.as_str()));
        // A shard draws the figures only once the whole grid is there (the last shard to
        // finish); before, they would show a part of it.
        let partial_shard = control.shard.is_some() && report.rows.len() < plans.len();
        if !report.interrupted && !partial_shard {
            report.figures = render_figures(spec, &experiment_dir, &report.rows);
            report.figures_removed =
                figures::remove_undeclared(&experiment_dir, spec.figures.iter().map(|f| f.value.name()));
        }
        Ok(report)
    }
}

/// Does the selected runs of every sweep on one pool of workers, longest first (by the shards'
/// estimate of a run's cost), each worker taking the next run when it finishes one, so that a
/// long run does not start last; results do not depend on it. Returns each sweep's outcomes in
/// its `selected` order.
fn execute(sweeps: &[Sweep], options: &RunnerOptions, control: &SweepControl) -> Result<Vec<Vec<Outcome>>, String> {
    let mut order: Vec<(usize, usize, f64)> = Vec::new();
    for (s, sweep) in sweeps.iter().enumerate() {
        for (r, &i) in sweep.selected.iter().enumerate() {
            order.push((s, r, shard::estimated_cost(&sweep.plans[i], sweep.base_dir)));
        }
    }
    order.sort_by(|a, b| b.2.total_cmp(&a.2));
    let threads = if sweeps.iter().any(|sweep| sweep.live.is_some()) {
        1
    } else {
        options
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
            .clamp(1, order.len().max(1))
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("cannot start worker threads: {e}"))?;
    let progress = Progress::new(order.len(), options.quiet);
    let next = AtomicUsize::new(0);
    let slots: Vec<Vec<OnceLock<Outcome>>> =
        sweeps.iter().map(|sweep| sweep.selected.iter().map(|_| OnceLock::new()).collect()).collect();
    std::thread::scope(|scope| {
        scope.spawn(|| progress.watch(&control.interrupt, control.run_timeout));
        pool.scope(|workers| {
            for _ in 0..threads {
                workers.spawn(|_| {
                    while let Some(&(s, r, _)) = order.get(next.fetch_add(1, AtomicOrdering::Relaxed)) {
                        let sweep = &sweeps[s];
                        let plan = &sweep.plans[sweep.selected[r]];
                        let key = &plan.info.run_key;
                        // Two specs' grids may hold the same key: progress names the experiment.
                        let name = match sweeps.len() {
                            1 => key.clone(),
                            _ => format!("{}/{key}", sweep.spec.name.value.0),
                        };
                        let stop = StopFlag::new();
                        progress.begin(&name, stop.clone());
                        let outcome = if control.interrupt.is_stopped() {
                            Outcome::NotStarted
                        } else {
                            let Sweep { files, experiment_dir, provenance, live, .. } = sweep;
                            run_one(plan, files, experiment_dir, provenance, options.force, live.as_ref(), stop)
                        };
                        let timed_out = progress.end(&name, |timed_out| describe(&outcome, timed_out, control));
                        let _ =
                            slots[s][r].set(finish_outcome(outcome, timed_out, control, &sweep.experiment_dir, key));
                    }
                });
            }
        });
        progress.finish();
    });
    Ok(slots
        .into_iter()
        .map(|slots| {
            slots.into_iter().map(|slot| slot.into_inner().expect("every selected run has an outcome")).collect()
        })
        .collect())
}

/// The progress line of a finished run.
fn describe(outcome: &Outcome, timed_out: bool, control: &SweepControl) -> String {
    match outcome {
        Outcome::Executed { wall_time_s } => format!("done in {wall_time_s:.2} s"),
        Outcome::Skipped => "already complete".into(),
        Outcome::RunningElsewhere => "running in another process".into(),
        Outcome::NotStarted => "not started (interrupted)".into(),
        Outcome::Failed(_) if timed_out => format!("FAILED: {}", timeout_reason(control)),
        Outcome::Failed(_) if control.interrupt.is_stopped() => "interrupted".into(),
        Outcome::Failed(e) => format!("FAILED: {e}"),
    }
}

fn timeout_reason(control: &SweepControl) -> String {
    format!("exceeded --run-timeout {:.0?}", control.run_timeout.unwrap_or_default())
}

/// Turns a stopped run into a time-limit failure (recorded) or an interrupted one (not a
/// failure: the next `blox run` does it), and records other failures for `blox status`.
fn finish_outcome(
    outcome: Outcome,
    timed_out: bool,
    control: &SweepControl,
    experiment_dir: &Path,
    key: &str,
) -> Outcome {
    let outcome = match outcome {
        Outcome::Failed(_) if timed_out => Outcome::Failed(timeout_reason(control)),
        Outcome::Failed(_) if control.interrupt.is_stopped() => Outcome::NotStarted,
        other => other,
    };
    if let Outcome::Failed(reason) = &outcome {
        // The failure is already reported; a record that cannot be written only costs `status`.
        let _ = store::record_failure(experiment_dir, key, reason);
    }
    outcome
}

/// The complete runs among `keys` in `experiment_dir`, in `keys` order, and the runs whose
/// files exist but cannot be read (with the error).
pub fn grid_rows<'a>(
    experiment_dir: &Path,
    keys: impl IntoIterator<Item = &'a str>,
) -> (Vec<RunRow>, Vec<(String, String)>) {
    let (mut rows, mut unreadable) = (Vec::new(), Vec::new());
    for key in keys {
        match results::complete_run(experiment_dir, key) {
            Ok(Some(row)) => rows.push(row),
            Ok(None) => {}
            Err(e) => unreadable.push((key.to_owned(), e.to_string())),
        }
    }
    (rows, unreadable)
}

/// Draws the spec's figures from `rows`.
pub fn render_figures(spec: &Spec, experiment_dir: &Path, rows: &[RunRow]) -> Vec<Result<Rendered, FigureError>> {
    figures::render_all(spec.figures.iter().map(|f| &f.value), experiment_dir, rows)
}

/// Starts the scheduler of a live sweep and says where it listens (on stderr and in
/// `<experiment>/live-address`, for scripts that start agents).
fn start_live(
    live: &LiveSpec,
    executor: crate::spec::LiveExecutor,
    base_dir: &Path,
    experiment_dir: &Path,
) -> Result<live::scheduler::Coordinator, String> {
    let token_file = live.token_file.as_ref().map(|f| base_dir.join(f));
    let token = live::protocol::read_token(token_file.as_deref()).map_err(|e| format!("live: {e}"))?;
    let coordinator = live::scheduler::Coordinator::start(live::scheduler::Settings {
        listen: live.listen.clone(),
        token,
        command: live.command.clone(),
        iterations_per_s: live.iterations_per_s.0,
        grace_s: live.grace_s,
        wait_for_nodes: std::time::Duration::from_secs_f64(live.wait_for_nodes_s),
        env: live.env.clone(),
        executor,
        work_dir: experiment_dir.join("live-jobs"),
        kubernetes: live.kubernetes.clone().map(|k| k.relative_to(base_dir)),
    })?;
    let address = coordinator.address().to_string();
    eprintln!(
        "live: listening on {address}; on each node: blox node --scheduler HOST:{}; status page: http://{address}/ \
         (any user name, the token as password)",
        coordinator.address().port()
    );
    store::write_file_atomically(&experiment_dir.join("live-address"), format!("{address}\n").as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", experiment_dir.join("live-address").display()))?;
    Ok(coordinator)
}

fn run_one(
    plan: &RunPlan,
    files: &InputFiles,
    experiment_dir: &Path,
    provenance: &Provenance,
    force: bool,
    live: Option<&live::scheduler::Coordinator>,
    stop: StopFlag,
) -> Outcome {
    let key = &plan.info.run_key;
    let _lock = match store::lock_run(experiment_dir, key) {
        Ok(Some(lock)) => lock,
        Ok(None) => return Outcome::RunningElsewhere,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    // Checked under the lock: another process may have finished the run a moment ago. A damaged
    // runs file counts as not complete; the write below replaces it.
    if !force && matches!(results::complete_run(experiment_dir, key), Ok(Some(_))) {
        return Outcome::Skipped;
    }
    let started = Instant::now();
    let cpu_started = thread_cpu_seconds();
    let info = match plan.info_with_inputs(files) {
        Ok(info) => info,
        Err(e) => return Outcome::Failed(e),
    };
    // The jobs table fills while the run goes; a failed run drops it unpublished.
    let mut jobs = match results::JobsWriter::create(experiment_dir, &info, provenance) {
        Ok(jobs) => jobs,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    let simulated =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| simulate(plan, files, live, stop, &mut jobs)));
    let (tables, attempts) = match simulated {
        Ok(Ok(tables)) => tables,
        Ok(Err(e)) => return Outcome::Failed(e),
        Err(panic) => return Outcome::Failed(format!("internal error (please report): {}", panic_message(&panic))),
    };
    let wall_time_s = started.elapsed().as_secs_f64();
    let cost = RunCost { wall_time_s, cpu_time_s: thread_cpu_seconds() - cpu_started };
    if let Err(e) = results::publish_run(experiment_dir, &info, jobs, &tables, attempts.as_deref(), cost, provenance) {
        return Outcome::Failed(e.to_string());
    }
    // A stale failure record would make `status` contradict the tables; the run itself is safe.
    let _ = store::clear_failure(experiment_dir, key);
    Outcome::Executed { wall_time_s }
}

/// CPU seconds the calling thread has used: a run is simulated on one worker thread, so the
/// difference across it is the run's CPU time, whatever else shares the cores.
fn thread_cpu_seconds() -> f64 {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `now` is a valid timespec for the call to fill; the clock exists on every Linux
    // and macOS thread.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    if status != 0 {
        return 0.0;
    }
    now.tv_sec as f64 + now.tv_nsec as f64 * 1e-9
}

/// A run's tables, and for a live run its attempts.
type RunResult = (RunTables, Option<Vec<AttemptRow>>);

fn simulate(
    plan: &RunPlan,
    files: &InputFiles,
    live: Option<&live::scheduler::Coordinator>,
    stop: StopFlag,
    sink: &mut dyn RecordSink,
) -> Result<RunResult, String> {
    if plan.mode == EngineMode::Placements {
        // No job stream: the placement engine reads its requests itself.
        return plan.run_placements(files, &stop, sink).map(|tables| (tables, None));
    }
    let base_dir = files.base_dir();
    let context =
        WorkloadContext { load: plan.load, seed: plan.seed, base_dir, cluster_gpus: plan.config.cluster.total_gpus() };
    let jobs = plan.workload.jobs(&context).map_err(|e| e.to_string())?;
    let cut_short = jobs.cut_short();
    let ctx = plan.build_context(base_dir, files);
    let mut attempts = None;
    let output: Result<_, RunError> = match plan.mode {
        EngineMode::Live if plan.runs_on_events() => {
            let live = live.ok_or("live: no scheduler is listening")?;
            let (policy, placement) = plan.event_policy(&ctx)?;
            // A job's process runs on GPUs it holds alone: a policy that places jobs its own way
            // (time slices, GPUs shared by interleaved jobs) has no such GPUs to give it.
            if policy.placement().is_none() && placement.is_none() {
                let name = plan.policy.scheduler.value.name();
                return Err(format!(
                    "scheduler `{name}` does not run live: it places jobs its own way (time-sliced or shared GPUs), \
                     and live mode runs each job's process on GPUs it holds alone"
                ));
            }
            let engine = EventEngine::new(plan.event_config()?, policy, jobs).map_err(|e| e.to_string())?;
            let engine = match placement {
                Some(make) => engine.with_placement(make),
                None => engine,
            };
            let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            let run_name = format!("{}-{}", plan.info.run_key, stamp.as_millis());
            let mut run = live.begin_run(&run_name, &plan.config.cluster, stop.clone())?;
            let output = engine.with_stop(stop).run_into_on(sink, &mut run);
            attempts = Some(run.attempts());
            output
        }
        EngineMode::Live => {
            let live = live.ok_or("live: no scheduler is listening")?;
            let policies = plan.round_policies(&ctx)?;
            // A real job's end is seen at a round's end, not inside a fixed round.
            if policies.decision.timing() == RoundTiming::FixedEndsInside {
                let name = plan.policy.scheduler.value.name();
                return Err(format!(
                    "scheduler `{name}` does not run live (its jobs end inside fixed rounds, which live mode sees only \
                     at a round's end)"
                ));
            }
            // A run redone (after a failure or a restarted scheduler) starts afresh: its
            // attempts never find an earlier try's checkpoints.
            let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            let run_name = format!("{}-{}", plan.info.run_key, stamp.as_millis());
            let mut run = live.begin_run(&run_name, &plan.config.cluster, stop.clone())?;
            let output = Engine::with_executor(plan.config.clone(), policies, jobs, &mut run)
                .and_then(|engine| engine.with_stop(stop).run_into(sink));
            attempts = Some(run.attempts());
            output
        }
        EngineMode::Rounds => {
            let policies = plan.round_policies(&ctx)?;
            Engine::new(plan.config.clone(), policies, jobs).and_then(|engine| engine.with_stop(stop).run_into(sink))
        }
        EngineMode::Placements => unreachable!("placement runs return before their job stream is built"),
        EngineMode::Events => {
            let (policy, placement) = plan.event_policy(&ctx)?;
            EventEngine::new(plan.event_config()?, policy, jobs).and_then(|engine| {
                let engine = match placement {
                    Some(make) => engine.with_placement(make),
                    None => engine,
                };
                engine.with_stop(stop).run_into(sink)
            })
        }
    };
    // A streamed trace that ended before its file did would leave the run silently short.
    if let Some(reason) = cut_short.reason() {
        return Err(reason);
    }
    output.map(|tables| (tables, attempts)).map_err(|e| e.to_string())
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}
