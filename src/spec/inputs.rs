//! Content digests of the files a spec's runs read, so that a run key changes when an input's
//! contents change and a rerun never takes results computed from an older file for complete.
//!
//! Local files (a trace's `path`, a `csv:` workload, a GPU-time distribution's `path`) are
//! hashed once per sweep; dataset references (`dataset: NAME/PATH`) are pinned by the registry's
//! SHA-256, so they need neither I/O nor a download.

use super::Spec;
use crate::data;
use crate::policies::{GpuTimeSource, SchedulerSpec};
use crate::workload::{TraceParams, WorkloadSpec};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

/// The SHA-256 of every input file of a spec, by where the spec names it.
#[derive(Debug, Clone, Default)]
pub struct InputDigests {
    base_dir: PathBuf,
    files: BTreeMap<PathBuf, String>,
}

/// One input of a run: a local file, or a registered dataset file.
enum Input<'a> {
    Path(Cow<'a, Path>),
    Dataset(&'a str),
}

impl InputDigests {
    /// Hashes every local input file of `spec` (relative paths against `base_dir`, the spec
    /// file's directory). Fails naming the file when one cannot be read.
    pub fn of(spec: &Spec, base_dir: &Path) -> Result<Self, String> {
        let mut digests = InputDigests { base_dir: base_dir.to_path_buf(), files: BTreeMap::new() };
        let workloads = spec.workloads.value.iter().filter_map(|w| workload_input(&w.value));
        let policies = spec.policies.value.iter().flat_map(|p| policy_inputs(&p.scheduler.value, base_dir));
        for input in workloads.chain(policies) {
            if let Input::Path(path) = input {
                let local = base_dir.join(path);
                if digests.files.contains_key(&local) {
                    continue;
                }
                let digest = File::open(&local)
                    .and_then(crate::digest::sha256_of_reader)
                    .map_err(|e| format!("{}: cannot read this input: {e}", local.display()))?;
                digests.files.insert(local, digest);
            }
        }
        Ok(digests)
    }

    /// The digest of the file `workload` reads, if it reads one.
    pub fn of_workload(&self, workload: &WorkloadSpec) -> Option<String> {
        workload_input(workload).map(|input| self.digest(input))
    }

    /// The digests of the files `scheduler` reads (a GPU-time distribution, an external
    /// policy's script), if it reads any.
    pub fn of_scheduler(&self, scheduler: &SchedulerSpec) -> Option<String> {
        let digests: Vec<String> =
            policy_inputs(scheduler, &self.base_dir).into_iter().map(|input| self.digest(input)).collect();
        (!digests.is_empty()).then(|| digests.join(","))
    }

    /// The local file a run of `workload` and `scheduler` read whose digest differs between
    /// `self` (taken before the runs) and `now` (after them), if any.
    pub fn changed_input(
        &self,
        now: &InputDigests,
        workload: &WorkloadSpec,
        scheduler: &SchedulerSpec,
    ) -> Option<PathBuf> {
        let inputs = workload_input(workload).into_iter().chain(policy_inputs(scheduler, &self.base_dir));
        inputs.into_iter().find_map(|input| match input {
            Input::Path(path) if self.digest(Input::Path(path.clone())) != now.digest(Input::Path(path.clone())) => {
                Some(self.base_dir.join(path))
            }
            _ => None,
        })
    }

    fn digest(&self, input: Input<'_>) -> String {
        match input {
            // Every path was hashed by `of`; a plan built from another spec's digests gets a key
            // that matches nothing rather than a wrong match.
            Input::Path(path) => {
                self.files.get(&self.base_dir.join(path)).cloned().unwrap_or_else(|| "unhashed".into())
            }
            Input::Dataset(reference) => match data::lookup(reference) {
                Ok((_, file)) => file.sha256.to_owned(),
                Err(_) => format!("unknown dataset {reference}"),
            },
        }
    }
}

fn workload_input(workload: &WorkloadSpec) -> Option<Input<'_>> {
    match workload {
        WorkloadSpec::Csv(p) => Some(Input::Path(Cow::Borrowed(&p.path))),
        WorkloadSpec::Trace(TraceParams { path: Some(path), .. }) => Some(Input::Path(Cow::Borrowed(path))),
        WorkloadSpec::Trace(TraceParams { dataset: Some(reference), .. }) => Some(Input::Dataset(reference)),
        WorkloadSpec::GavelGenerator(p) => Some(Input::Dataset(p.throughputs.dataset_reference())),
        _ => None,
    }
}

fn policy_inputs<'a>(scheduler: &'a SchedulerSpec, base_dir: &Path) -> Vec<Input<'a>> {
    let mut inputs = Vec::new();
    match scheduler.gpu_time_source() {
        Some(GpuTimeSource::Path(path)) => inputs.push(Input::Path(Cow::Borrowed(path))),
        Some(GpuTimeSource::Dataset(reference)) => inputs.push(Input::Dataset(reference)),
        None => {}
    }
    if let Some(file) = scheduler.gavel_oracle() {
        inputs.push(Input::Dataset(file.dataset_reference()));
    }
    if let SchedulerSpec::External(external) = scheduler {
        inputs.extend(external.files(base_dir).into_iter().map(|p| Input::Path(Cow::Owned(p))));
    }
    inputs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::SpecSource;
    use crate::spec::grid::expand;

    const SPEC: &str = "name: inputs
engine: {mode: events, slot_s: 60}
policies:
  - label: Gittins
    scheduler: {tiresias: {gittins: {path: sizes.csv}}}
  - label: Gittins-YARN
    scheduler: {tiresias: {gittins: {dataset: tiresias/yarn-gput1000.csv}}}
clusters: [{nodes: 1, gpus_per_node: 4}]
workloads: [{trace: {path: jobs.csv}}]
measure: {track: all}
";

    fn keys(dir: &Path) -> Vec<String> {
        let source = SpecSource { file: dir.join("s.yaml"), text: SPEC.into(), base_dir: dir.to_path_buf() };
        let spec = Spec::parse(&source).unwrap();
        expand(&spec, &InputDigests::of(&spec, dir).unwrap()).into_iter().map(|p| p.info.run_key).collect()
    }

    /// Run keys follow the contents of every file a run reads, a Gittins distribution's too;
    /// a dataset file is pinned by the registry and needs no I/O.
    #[test]
    fn keys_follow_trace_and_distribution_contents() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("jobs.csv"), "job_id,arrival_s,gpus,duration_s\n0,0,1,60\n").unwrap();
        std::fs::write(dir.path().join("sizes.csv"), "duration\n500\n2000\n").unwrap();
        let first = keys(dir.path());
        assert_eq!(first, keys(dir.path()));
        std::fs::write(dir.path().join("sizes.csv"), "duration\n500\n9000\n").unwrap();
        let second = keys(dir.path());
        assert_ne!(first[0], second[0], "the local distribution changed");
        assert_eq!(first[1], second[1], "the dataset distribution did not");
        std::fs::write(dir.path().join("jobs.csv"), "job_id,arrival_s,gpus,duration_s\n0,0,2,60\n").unwrap();
        let third = keys(dir.path());
        assert!(third.iter().zip(&second).all(|(a, b)| a != b), "the trace changed");
    }

    #[test]
    fn a_missing_input_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let source = SpecSource { file: dir.path().join("s.yaml"), text: SPEC.into(), base_dir: dir.path().into() };
        let spec = Spec::parse(&source).unwrap();
        let error = InputDigests::of(&spec, dir.path()).unwrap_err();
        assert!(error.contains("jobs.csv: cannot read this input"), "{error}");
    }
}
