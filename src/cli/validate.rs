//! `blox validate`, and the checks `blox run` shares with it: datasets fetched, workloads read and
//! checked against what the engine needs.

use super::{emit, read_spec};
use crate::core::JobSpec;
use crate::core::events::{ElasticJob, EventPolicy};
use crate::data;
use crate::policies::{BuildContext, InputReader, InputSource};
use crate::profiles::ThroughputTable;
use crate::spec::inputs::{InputFiles, declared};
use crate::spec::{ClusterEntry, EngineMode, Spec, SpecError, SpecSource, TrackSpec};
use crate::text::escape_control;
use crate::workload::{TraceParams, WorkloadContext, WorkloadSpec, check_simulable, describe_read};
use clap::Args;
use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub(super) struct ValidateArgs {
    /// Experiment spec (YAML) to check.
    spec: PathBuf,
}

/// Checks everything `blox run` would meet before its first run (the spec, its datasets, every
/// workload at every grid point) and prints the grid size last, so that "ok" follows every check.
pub(super) fn validate(args: ValidateArgs) -> Result<ExitCode, String> {
    let (source, spec) = read_spec(Some(&args.spec)).map_err(|e| e.to_string())?;
    spec.check_live_token(&source).map_err(|e| e.to_string())?;
    fetch_datasets(&spec, false)?;
    emit(&check_workloads(&source, &spec)?);
    emit(&crate::spec::inputs::external_policy_notes(&spec, &source.base_dir));
    let runs = crate::runner::plan(&source, &spec)?.len();
    emit(&format!("{}: ok, {}\n", source.file.display(), grid_size(&spec, runs)));
    Ok(ExitCode::SUCCESS)
}

/// `N runs (axes)`, counted from the expanded grid: zipped clusters and workloads are pairs, and
/// loads multiply only the workloads that take one.
fn grid_size(spec: &Spec, runs: usize) -> String {
    let count = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let workloads = spec.workloads.value.len();
    let mut axes = vec![count(spec.policies.value.len(), "policy", "policies")];
    if spec.zip_clusters_workloads.value {
        axes.push(count(workloads, "cluster-workload pair", "cluster-workload pairs"));
    } else {
        axes.push(count(spec.clusters.value.len(), "cluster", "clusters"));
        axes.push(count(workloads, "workload", "workloads"));
    }
    let with_load = spec.workloads.value.iter().filter(|w| w.value.needs_load()).count();
    let loads = count(spec.loads.len(), "load", "loads");
    if with_load == workloads {
        axes.push(loads.clone());
    }
    axes.push(count(spec.seeds.value.len(), "seed", "seeds"));
    let note = if with_load == workloads {
        String::new()
    } else if with_load > 0 {
        let which = if spec.zip_clusters_workloads.value { "pairs" } else { "workloads" };
        format!("; {loads} for the {with_load} of {workloads} {which} that take a load")
    } else if !spec.loads.is_empty() {
        "; no workload takes a load, so `loads` is unused".to_string()
    } else {
        String::new()
    };
    format!("{} ({}{note})", count(runs, "run", "runs"), axes.join(" x "))
}

/// Fetches (or checks in the cache) every dataset file the spec's workloads and policies name,
/// once and before any run starts, so that parallel runs find them in place.
pub(super) fn fetch_datasets(spec: &Spec, quiet: bool) -> Result<(), String> {
    let traces = spec.workloads.value.iter().filter_map(|w| match &w.value {
        WorkloadSpec::Trace(TraceParams { dataset: Some(reference), .. }) => Some(reference.clone()),
        WorkloadSpec::GavelGenerator(p) => Some(p.throughputs.dataset_reference().to_string()),
        _ => None,
    });
    let policies = spec.policies.value.iter().flat_map(declared).filter_map(|input| match input.source {
        InputSource::Dataset(reference) => Some(reference),
        InputSource::Path(_) => None,
    });
    let references: BTreeSet<String> = traces.chain(policies).chain(crate::spec::placements::datasets(spec)).collect();
    for reference in &references {
        let options = data::FetchOptions::from_env(None).map_err(|e| e.to_string())?;
        data::resolve(reference, &data::FetchOptions { quiet, ..options })
            .map_err(|e| format!("dataset `{}`: {e}", escape_control(reference)))?;
    }
    Ok(())
}

/// Reads every workload at every grid point it runs at and checks what a run would otherwise
/// fail on or silently get wrong: a trace that yields no simulable job, a tracking window past a
/// finite workload's last job, and in events mode jobs without iterations, batch or known model,
/// or without a throughput curve for their cluster's GPU type. Returns what reading each trace
/// workload gave at its first grid point (loads and seeds can change transforms' results; the
/// runs table has every point) and the files each policy reads (read and parsed here, so that a
/// bad file fails before any run).
pub(super) fn check_workloads(source: &SpecSource, spec: &Spec) -> Result<String, String> {
    let mut text = String::new();
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
        // Grid points that can differ for this workload: the cluster's size and GPU type, the
        // load and the seed.
        let mut seen = HashSet::new();
        let mut points = Vec::new();
        for &cluster in &clusters {
            for &load in &loads {
                for &seed in &spec.seeds.value {
                    if seen.insert((cluster.total_gpus(), cluster.gpu_type().cloned(), load.map(f64::to_bits), seed)) {
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
            let load = load.map(|l| format!("load {}, ", crate::spec::grid::fmt_number(l))).unwrap_or_default();
            format!("{load}seed {seed}, cluster `{}`", cluster.label())
        };
        match workload.trace_params() {
            // Counted streaming, so that a trace of millions of jobs is never held; runs in rounds
            // mode need no more than the count. Per-job transforms draw nothing and take no load,
            // so only the cluster's size (`cap-gpus: cluster`) can change what they keep.
            Some(params) if params.streams() && spec.engine.mode == EngineMode::Rounds => {
                let mut sizes = HashSet::new();
                let points = points.iter().filter(|(cluster, _, _)| sizes.insert(cluster.total_gpus()));
                for (i, &(cluster, load, seed)) in points.enumerate() {
                    let context = context(cluster, load, seed);
                    let path = params.local_path(&context).map_err(|e| e.to_string())?;
                    let mut missing = 0;
                    let read = params
                        .stream(&path, &context, &mut |job| {
                            missing += u64::from(job.duration_s.is_none());
                            Ok(())
                        })
                        .map_err(|e| e.to_string())?;
                    if i == 0 {
                        text += &describe_read(&label, &path, read.format, &read.report);
                    }
                    check_simulable(&path, read.format, &read.report, missing).map_err(|e| e.to_string())?;
                    check_window(spec, source, &label, &point_name(cluster, load, seed), read.report.jobs_kept)?;
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
                    let jobs = loaded.into_job_stream().map_err(|e| e.to_string())?;
                    let where_ = point_name(cluster, load, seed);
                    let count = check_jobs(spec, &files, (cluster, load, seed), jobs, &|id| {
                        names.get(id as usize).map(|n| format!(" (`{n}` in {})", path.display())).unwrap_or_default()
                    })
                    .map_err(|e| at(format!("workload `{label}` at {where_}: {e}")))?;
                    check_window(spec, source, &label, &where_, count)?;
                }
            }
            None if !workload.is_endless() => {
                for &(cluster, load, seed) in &points {
                    let jobs = workload.jobs(&context(cluster, load, seed)).map_err(|e| at(e.to_string()))?;
                    let where_ = point_name(cluster, load, seed);
                    let count = check_jobs(spec, &files, (cluster, load, seed), jobs, &|_| String::new())
                        .map_err(|e| at(format!("workload `{label}` at {where_}: {e}")))?;
                    check_window(spec, source, &label, &where_, count)?;
                }
            }
            None => {}
        }
    }
    for policy in &spec.policies.value {
        for input in declared(policy).into_iter().filter(|input| input.parse.is_some()) {
            let read = files.read(&input).map_err(|e| format!("policy `{}`: {e}", policy.label.value.0))?;
            let (label, what, source) = (&policy.label.value.0, input.what, input.source.describe());
            text += &format!("{label}: {what} from {source}: {}\n", read.summary());
        }
    }
    Ok(text)
}

/// Checks one finite job stream as a run at `point` (cluster, load, seed) would meet it: in
/// events mode every job must be one each event policy can run ([`EventPolicy::check_job`]).
/// Returns the number of jobs. `name` adds where a job comes from to messages.
fn check_jobs(
    spec: &Spec,
    files: &InputFiles,
    point: (&ClusterEntry, Option<f64>, u64),
    jobs: impl Iterator<Item = JobSpec>,
    name: &dyn Fn(u64) -> String,
) -> Result<u64, String> {
    if spec.engine.mode != EngineMode::Events {
        return Ok(jobs.count() as u64);
    }
    let (cluster, load, seed) = point;
    // Spec validation has checked that an events-mode cluster has one GPU type with a profile.
    let gpu = cluster.gpu_type().map_or("", |t| t.name());
    let Some(table) = ThroughputTable::for_gpu(gpu) else {
        return Err(format!("cluster `{}`: no throughput profile for `gpu: {gpu}`", cluster.label()));
    };
    let cluster_spec = cluster.cluster_spec();
    let ctx = BuildContext {
        load,
        base_dir: files.base_dir(),
        round_seconds: spec.engine.slot_s.0,
        cluster: &cluster_spec,
        seed,
        inputs: files,
    };
    let policies = spec
        .policies
        .value
        .iter()
        .map(|p| Ok((p.label.value.0.as_str(), p.scheduler.value.build_event(&ctx)?)))
        .collect::<Result<Vec<(&str, Box<dyn EventPolicy>)>, String>>()?;
    let mut count = 0u64;
    for job in jobs {
        count += 1;
        let job = ElasticJob::new(job, table);
        for (label, policy) in &policies {
            if let Err(reason) = policy.check_job(&job, &cluster_spec) {
                let id = job.spec.id;
                return Err(format!(
                    "policy `{label}` cannot run job {id}{} on `gpu: {gpu}` ({}): {reason}",
                    name(id),
                    table.source()
                ));
            }
        }
    }
    Ok(count)
}

/// A tracking window must select some job of a finite workload of `count` jobs; otherwise every
/// metric of the run is empty.
fn check_window(spec: &Spec, source: &SpecSource, label: &str, where_: &str, count: u64) -> Result<(), String> {
    let track = &spec.measure.track;
    let TrackSpec::Ids(window) = track.value else { return Ok(()) };
    if window.first < count {
        return Ok(());
    }
    let position = (track.referenced.line() > 0).then(|| (track.referenced.line(), track.referenced.column()));
    let message = format!(
        "`track: {{ids: [{}, {}]}}` selects no job of workload `{label}`, which has {count} jobs (ids 0 to {}) at {where_}; \
         track ids below {count}, or `track: all`",
        window.first,
        window.last,
        count.saturating_sub(1)
    );
    Err(SpecError { file: source.file.clone(), position, message }.to_string())
}
