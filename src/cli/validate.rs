//! `blox validate`: the checks `blox run` meets before its first run ([`crate::spec::check`]),
//! then the grid size.

use super::{emit, read_spec};
use crate::spec::Spec;
use crate::spec::check::{check_workloads, fetch_datasets};
use clap::Args;
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
