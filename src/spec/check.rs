//! The checks a spec meets before its first run, shared by `blox run` and `blox validate` and
//! open to programs that drive the library: datasets fetched, every workload read at every grid
//! point and checked against what the engine and the policies need, policy inputs parsed.

use crate::core::engine::MAX_ROUNDS;
use crate::core::events::{EventJob, EventPolicy};
use crate::core::{ClusterSpec, JobSpec, RoundPolicy};
use crate::data;
use crate::policies::{BuildContext, InputReader, InputSource};
use crate::profiles::ThroughputTable;
use crate::spec::inputs::{InputFiles, declared};
use crate::spec::{ClusterEntry, EngineMode, MAX_HORIZON_H, MAX_JOB_SECONDS, Spec, SpecError, SpecSource, TrackSpec};
use crate::text::escape_control;
use crate::trace::{TraceError, TraceFormat};
use crate::workload::trace_workload::job_spec;
use crate::workload::{WorkloadContext, WorkloadSpec, check_simulable, describe_read};
use std::collections::{BTreeSet, HashSet};

/// Fetches (or checks in the cache) every dataset file the spec's workloads and policies name,
/// once and before any run starts, so that parallel runs find them in place.
pub fn fetch_datasets(spec: &Spec, quiet: bool) -> Result<(), String> {
    let workloads = spec.workloads.value.iter().filter_map(|w| match w.value.reads()? {
        InputSource::Dataset(reference) => Some(reference),
        InputSource::Path(_) => None,
    });
    let policies = spec.policies.value.iter().flat_map(declared).filter_map(|input| match input.source {
        InputSource::Dataset(reference) => Some(reference),
        InputSource::Path(_) => None,
    });
    let references: BTreeSet<String> =
        workloads.chain(policies).chain(crate::spec::placements::datasets(spec)).collect();
    for reference in &references {
        let options = data::FetchOptions::from_env(None).map_err(|e| e.to_string())?;
        let options = data::FetchOptions { quiet, ..options };
        // A folder's files are fetched like one file each, without a line per file.
        let fetched = if data::names_folder(reference) {
            data::resolve_folder(reference, &data::FetchOptions { quiet: true, ..options }).map(drop)
        } else {
            data::resolve(reference, &options).map(drop)
        };
        fetched.map_err(|e| format!("dataset `{}`: {e}", escape_control(reference)))?;
    }
    Ok(())
}

/// Reads every workload at every grid point it runs at and checks what a run would otherwise
/// fail on or silently get wrong: a trace that yields no simulable job, a tracking window past a
/// finite workload's last job (a warning when it reaches only partly past), arrivals and
/// durations beyond what the engine can reach, jobs a round policy refuses (Gavel's: job types,
/// steps, AlloX's single GPU), and in events mode jobs without iterations, batch or known model,
/// or without a throughput curve for their cluster's GPU type. Warnings go to stderr. Returns
/// what reading each trace workload gave at its first grid point (loads and seeds can change
/// transforms' results; the runs table has every point) and the files each policy reads (read and
/// parsed here, so that a bad file fails before any run).
pub fn check_workloads(source: &SpecSource, spec: &Spec) -> Result<String, String> {
    let mut text = String::new();
    let mut warnings = Warnings::default();
    let files = InputFiles::new(&source.base_dir);
    text += &crate::spec::placements::check(source, spec, &files)?;
    for (index, workload) in spec.workloads.value.iter().enumerate() {
        if matches!(workload.value, WorkloadSpec::PodList(_)) {
            continue;
        }
        let at = |message: String| {
            let position =
                (workload.referenced.line() > 0).then(|| (workload.referenced.line(), workload.referenced.column()));
            SpecError { file: source.file.clone(), position, message }.to_string()
        };
        let workload = &workload.value;
        let label = workload.label();
        let clusters: Vec<&ClusterEntry> = if spec.zip_clusters_workloads.value {
            spec.clusters.value.get(index).into_iter().collect()
        } else {
            spec.clusters.value.iter().collect()
        };
        let loads: Vec<Option<f64>> =
            if workload.needs_load() { spec.loads.iter().map(|l| Some(l.0)).collect() } else { vec![None] };
        // Grid points that can differ for this workload: the cluster (its size and GPU types
        // decide `cap-gpus: cluster` and what Gavel's policies can run), the load and the seed.
        let mut seen = HashSet::new();
        let mut points = Vec::new();
        for &cluster in &clusters {
            for &load in &loads {
                for &seed in &spec.seeds.value {
                    if seen.insert((format!("{:?}", cluster.groups), load.map(f64::to_bits), seed)) {
                        points.push((cluster, load, seed));
                    }
                }
            }
        }
        let context = |cluster: &ClusterEntry, load, seed| WorkloadContext {
            load,
            seed,
            base_dir: &source.base_dir,
            cluster_gpus: cluster.total_gpus(),
        };
        let point_name = |cluster: &ClusterEntry, load: Option<f64>, seed: u64| {
            let load = load.map(|l| format!("load {}, ", crate::text::fmt_number(l))).unwrap_or_default();
            format!("{load}seed {seed}, cluster `{}`", cluster.label())
        };
        let checks = |cluster: &ClusterEntry, load, seed| JobChecks::new(source, spec, &files, cluster, load, seed);
        match workload.trace_params() {
            // Counted streaming, so that a trace of millions of jobs is never held; runs in rounds
            // mode read it the same way. Per-job transforms draw nothing and take no load, so only
            // the cluster can change what they keep and what the policies accept.
            Some(params) if params.streams() && spec.engine.mode == EngineMode::Rounds => {
                let mut clusters_seen = HashSet::new();
                let points =
                    points.iter().filter(|(cluster, _, _)| clusters_seen.insert(format!("{:?}", cluster.groups)));
                for (i, &(cluster, load, seed)) in points.enumerate() {
                    let context = context(cluster, load, seed);
                    let where_ = point_name(cluster, load, seed);
                    let path = params.local_path(&context).map_err(|e| e.to_string())?;
                    let mut checks = checks(cluster, load, seed)?;
                    let (mut missing, mut refused) = (0, None);
                    let read = params
                        .stream(&path, &context, &mut |job| {
                            missing += u64::from(job.duration_s.is_none());
                            let name = format!(" (`{}` in {})", job.source_id, path.display());
                            let job = job_spec(checks.count, job);
                            match checks.check(&job, &|_| name.clone()) {
                                Ok(()) => Ok(()),
                                Err(reason) => {
                                    refused = Some(reason);
                                    Err(TraceError {
                                        file: path.clone(),
                                        line: None,
                                        column: None,
                                        message: String::new(),
                                    })
                                }
                            }
                        })
                        .map_err(|e| e.to_string());
                    if let Some(reason) = refused {
                        return Err(at(format!("workload `{label}` at {where_}: {reason}")));
                    }
                    let read = read?;
                    checks.refuses_format(read.format).map_err(|e| at(format!("workload `{label}`: {e}")))?;
                    if i == 0 {
                        text += &describe_read(&label, &path, read.format, &read.report);
                    }
                    check_simulable(&path, read.format, &read.report, missing).map_err(|e| e.to_string())?;
                    check_window(spec, source, &label, &where_, checks.count, &mut warnings)?;
                    if let Some(warning) = checks.unschedulable_warning(&label, &where_) {
                        warnings.add(at(warning));
                    }
                }
            }
            Some(params) => {
                let Some(&(cluster, load, seed)) = points.first() else { continue };
                let (path, trace) = params.read(&context(cluster, load, seed)).map_err(|e| e.to_string())?;
                for (i, &(cluster, load, seed)) in points.iter().enumerate() {
                    let loaded = params
                        .transform(path.clone(), trace.clone(), &context(cluster, load, seed))
                        .map_err(|e| e.to_string())?;
                    if i == 0 {
                        text += &loaded.describe(&label);
                    }
                    let names: Vec<String> = loaded.jobs.iter().map(|j| j.source_id.clone()).collect();
                    let format = loaded.format;
                    let jobs = loaded.into_job_stream().map_err(|e| e.to_string())?;
                    let where_ = point_name(cluster, load, seed);
                    let mut checks = checks(cluster, load, seed)?;
                    checks.refuses_format(format).map_err(|e| at(format!("workload `{label}`: {e}")))?;
                    let name = |id: u64| {
                        names.get(id as usize).map(|n| format!(" (`{n}` in {})", path.display())).unwrap_or_default()
                    };
                    for job in jobs {
                        checks.check(&job, &name).map_err(|e| at(format!("workload `{label}` at {where_}: {e}")))?;
                    }
                    check_window(spec, source, &label, &where_, checks.count, &mut warnings)?;
                    if let Some(warning) = checks.unschedulable_warning(&label, &where_) {
                        warnings.add(at(warning));
                    }
                }
            }
            None => {
                for &(cluster, load, seed) in &points {
                    let mut checks = checks(cluster, load, seed)?;
                    // An endless generator is checked as far as a run pulls it: to the tracked
                    // window's last id, or to the horizon.
                    let endless = workload.is_endless();
                    if endless && !checks.refuses_jobs() {
                        continue;
                    }
                    let jobs = workload.jobs(&context(cluster, load, seed)).map_err(|e| at(e.to_string()))?;
                    let where_ = point_name(cluster, load, seed);
                    let pulled = |job: &JobSpec| !endless || spec.reaches(job);
                    for job in jobs.take_while(pulled) {
                        checks
                            .check(&job, &|_| String::new())
                            .map_err(|e| at(format!("workload `{label}` at {where_}: {e}")))?;
                    }
                    if !endless {
                        check_window(spec, source, &label, &where_, checks.count, &mut warnings)?;
                    }
                    if let Some(warning) = checks.unschedulable_warning(&label, &where_) {
                        warnings.add(at(warning));
                    }
                }
            }
        }
    }
    for policy in &spec.policies.value {
        for input in declared(policy).into_iter().filter(|input| input.parse.is_some()) {
            let read = files.read(&input).map_err(|e| format!("policy `{}`: {e}", policy.label.value.0))?;
            let (label, what, source) = (&policy.label.value.0, input.what, input.source.describe());
            text += &format!("{label}: {what} from {source}: {}\n", read.summary());
        }
    }
    warnings.print();
    Ok(text)
}

/// Warnings of the checks, each once, printed to stderr (so that `blox run -q` shows them too).
#[derive(Default)]
struct Warnings(Vec<String>);

impl Warnings {
    fn add(&mut self, warning: String) {
        if !self.0.contains(&warning) {
            self.0.push(warning);
        }
    }

    fn print(&self) {
        for warning in &self.0 {
            eprintln!("warning: {}", escape_control(warning));
        }
    }
}

/// The checks one run meets job by job, in its order: the time bounds and each policy's own
/// refusals ([`RoundPolicy::check_job`], [`EventPolicy::check_job`], which in events mode also
/// says what the event engine needs of a job). Counts the jobs it saw.
struct JobChecks<'a> {
    spec: &'a Spec,
    cluster_spec: ClusterSpec,
    /// Latest arrival and longest duration the round engine reaches (no horizon): its
    /// `MAX_ROUNDS` rounds of `round_s`.
    reach: Option<f64>,
    /// Round policies (rounds and live mode), by label.
    round: Vec<(&'a str, Box<dyn RoundPolicy>)>,
    /// Event policies (events mode, live mode's event schedulers) by label, the cluster's GPU
    /// type and its throughput table.
    event: Vec<(&'a str, Box<dyn EventPolicy>)>,
    table: Option<(String, &'static ThroughputTable)>,
    count: u64,
    /// Round engine: jobs asking for more GPUs than the cluster has for them (dropped at arrival
    /// as unschedulable), and the most any of them asks for.
    unschedulable: u64,
    widest: u32,
}

impl<'a> JobChecks<'a> {
    /// Builds the spec's policies for one grid point; a policy that cannot be built (an input it
    /// reads is missing or malformed) is reported at its scheduler in the spec file.
    fn new(
        source: &SpecSource,
        spec: &'a Spec,
        files: &InputFiles,
        cluster: &ClusterEntry,
        load: Option<f64>,
        seed: u64,
    ) -> Result<Self, String> {
        let cluster_spec = cluster.cluster_spec();
        let mode = spec.engine.mode;
        let round_seconds = if mode == EngineMode::Events { spec.engine.slot_s.0 } else { spec.engine.round_s.0 };
        let ctx = BuildContext {
            load,
            base_dir: files.base_dir(),
            round_seconds,
            cluster: &cluster_spec,
            seed,
            inputs: files,
        };
        let reach = (mode.policy_engine() == crate::policies::Engine::Rounds && spec.measure.horizon_h.is_none())
            .then_some(MAX_ROUNDS as f64 * spec.engine.round_s.0);
        let (mut round, mut event, mut table) = (Vec::new(), Vec::new(), None);
        for policy in &spec.policies.value {
            let (label, scheduler) = (policy.label.value.0.as_str(), &policy.scheduler.value);
            let built = if spec.runs_on_events(policy) {
                scheduler.build_event(&ctx).map(|p| event.push((label, p)))
            } else {
                scheduler.build_round(&ctx, &policy.placement.value).map(|p| round.push((label, p)))
            };
            built.map_err(|e| {
                let at = &policy.scheduler.referenced;
                let position = (at.line() > 0).then(|| (at.line(), at.column()));
                SpecError { file: source.file.clone(), position, message: format!("policy `{label}`: {e}") }.to_string()
            })?;
        }
        if !event.is_empty() {
            // Spec validation has checked that an event scheduler's cluster has one GPU type with a profile.
            let gpu = cluster.gpu_type().map_or("", |t| t.name());
            let found = ThroughputTable::for_gpu(gpu)
                .ok_or_else(|| format!("cluster `{}`: no throughput profile for `gpu: {gpu}`", cluster.label()))?;
            table = Some((gpu.to_string(), found));
        }
        Ok(Self { spec, cluster_spec, reach, round, event, table, count: 0, unschedulable: 0, widest: 0 })
    }

    /// For a trace format that gives no durations (its jobs' work comes from a job model, e.g.
    /// an application's training target): the first policy that has no such model and would
    /// run every job with no work.
    fn refuses_format(&self, format: TraceFormat) -> Result<(), String> {
        if !format.work_from_application() {
            return Ok(());
        }
        let round = self.round.iter().find(|(_, policy)| !policy.computes_work()).map(|(label, _)| *label);
        let Some(label) = round.or(self.event.first().map(|(label, _)| *label)) else { return Ok(()) };
        Err(format!(
            "a `{}` trace gives no job durations (a job's work is computed from its application by policies \
             with a job model of their own); policy `{label}` has none and would run every job with no work",
            format.name()
        ))
    }

    /// Whether some check may refuse a job (so that an endless generator is worth drawing).
    fn refuses_jobs(&self) -> bool {
        !self.round.is_empty() || !self.event.is_empty() || self.reach.is_some()
    }

    /// Checks the run's next job; `name` says where job `id` comes from.
    fn check(&mut self, job: &JobSpec, name: &dyn Fn(u64) -> String) -> Result<(), String> {
        self.count += 1;
        self.check_times(job, name)?;
        if self.spec.engine.mode == EngineMode::Rounds && job.gpus > self.cluster_spec.gpus_available_to(job) {
            self.unschedulable += 1;
            self.widest = self.widest.max(job.gpus);
        }
        for (label, policy) in &self.round {
            policy.check_job(job).map_err(|reason| format!("policy `{label}`: {reason}{}", name(job.id)))?;
        }
        let Some((gpu, table)) = &self.table else { return Ok(()) };
        let elastic = EventJob::new(job.clone(), table);
        for (label, policy) in &self.event {
            if let Err(reason) = policy.check_job(&elastic, &self.cluster_spec) {
                let id = job.id;
                return Err(format!(
                    "policy `{label}` cannot run job {id}{} on `gpu: {gpu}` ({}): {reason}",
                    name(id),
                    table.source()
                ));
            }
        }
        Ok(())
    }

    /// A warning when jobs of this grid point can never run on its cluster: the run drops them
    /// at arrival and counts them (`jobs_unschedulable`), which a summary alone does not show.
    fn unschedulable_warning(&self, label: &str, where_: &str) -> Option<String> {
        (self.unschedulable > 0).then(|| {
            format!(
                "workload `{label}` at {where_}: {} of its {} jobs ask for more GPUs than the cluster has for them \
                 (up to {}, of {}); runs drop them at arrival as unschedulable (`jobs_unschedulable` in the runs table)",
                self.unschedulable,
                self.count,
                self.widest,
                self.cluster_spec.total_gpus()
            )
        })
    }

    /// Arrivals and durations within [`MAX_JOB_SECONDS`] (both engines' clocks), and for the
    /// round engine without a horizon, a tracked job within its last round.
    fn check_times(&self, job: &JobSpec, name: &dyn Fn(u64) -> String) -> Result<(), String> {
        let id = job.id;
        let limit =
            format!("blox simulates times up to {} s ({} h, the largest `horizon_h`)", MAX_JOB_SECONDS, MAX_HORIZON_H);
        if job.arrival.is_nan() || job.arrival > MAX_JOB_SECONDS {
            return Err(format!("job {id}{} arrives at {} s; {limit}", name(id), seconds(job.arrival)));
        }
        if job.work.is_nan() || job.work > MAX_JOB_SECONDS {
            return Err(format!("job {id}{} runs for {} s; {limit}", name(id), seconds(job.work)));
        }
        let Some(reach) = self.reach.filter(|_| self.spec.tracks(id)) else { return Ok(()) };
        let engine = format!(
            "the round engine runs at most {MAX_ROUNDS} rounds of `engine.round_s` ({} s), {} s in all; \
             set `horizon_h`, a longer `round_s`, or leave the job out (a `filter` or `window` transform)",
            self.spec.engine.round_s.0,
            seconds(reach)
        );
        if job.arrival >= reach {
            return Err(format!(
                "tracked job {id}{} arrives at {} s, after the last round: {engine}",
                name(id),
                seconds(job.arrival)
            ));
        }
        if job.work >= reach {
            return Err(format!(
                "tracked job {id}{} runs for {} s, longer than a run can last: {engine}",
                name(id),
                seconds(job.work)
            ));
        }
        Ok(())
    }
}

/// Seconds as a spec author writes them, short even when huge (`1e15`, not 16 digits).
fn seconds(s: f64) -> String {
    if s.abs() >= 1e12 || !s.is_finite() { format!("{s:e}") } else { crate::text::fmt_number(s) }
}

/// A tracking window must select some job of a finite workload of `count` jobs; otherwise every
/// metric of the run is empty (an error). A window reaching past the last job tracks fewer jobs
/// than it names (a warning with both numbers): the measurement is still well defined, the same
/// jobs for every policy, and "from job `first` to the end" has no other spelling when one window
/// serves workloads of several lengths, but the runs measure fewer jobs than the spec says.
fn check_window(
    spec: &Spec,
    source: &SpecSource,
    label: &str,
    where_: &str,
    count: u64,
    warnings: &mut Warnings,
) -> Result<(), String> {
    let track = &spec.measure.track;
    let TrackSpec::Ids(window) = track.value else { return Ok(()) };
    if window.last < count {
        return Ok(());
    }
    let position = (track.referenced.line() > 0).then(|| (track.referenced.line(), track.referenced.column()));
    let named = format!("`track: {{ids: [{}, {}]}}`", window.first, window.last);
    let jobs = format!("workload `{label}`, which has {count} jobs (ids 0 to {}) at {where_}", count.saturating_sub(1));
    if window.first < count {
        let message = format!(
            "{named} reaches past the end of {jobs}: its runs track {} jobs (ids {} to {}), not the {} the window names; \
             end the window at {} to say so",
            count - window.first,
            window.first,
            count - 1,
            window.last - window.first + 1,
            count - 1
        );
        warnings.add(SpecError { file: source.file.clone(), position, message }.to_string());
        return Ok(());
    }
    let message = format!("{named} selects no job of {jobs}; track ids below {count}, or `track: all`");
    Err(SpecError { file: source.file.clone(), position, message }.to_string())
}
