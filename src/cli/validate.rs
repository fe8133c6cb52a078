//! `blox validate`, and the checks `blox run` shares with it: datasets fetched, traces read.

use super::{emit, read_spec};
use crate::data;
use crate::policies::GpuTimeSource;
use crate::spec::{Spec, SpecSource};
use crate::workload::{TraceParams, WorkloadContext, WorkloadSpec};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub(super) struct ValidateArgs {
    /// Experiment spec (YAML) to check.
    spec: PathBuf,
}

pub(super) fn validate(args: ValidateArgs) -> Result<ExitCode, String> {
    let (source, spec) = read_spec(Some(&args.spec)).map_err(|e| e.to_string())?;
    let runs = crate::runner::plan(&source, &spec)?;
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
    fetch_datasets(&spec, false)?;
    emit(&describe_traces(&source, &spec)?);
    Ok(ExitCode::SUCCESS)
}

/// Fetches (or checks in the cache) every dataset file the spec's workloads and policies (Gittins
/// distributions) name, once and before any run starts, so that parallel runs find them in place.
pub(super) fn fetch_datasets(spec: &Spec, quiet: bool) -> Result<(), String> {
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
pub(super) fn describe_traces(source: &SpecSource, spec: &Spec) -> Result<String, String> {
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
