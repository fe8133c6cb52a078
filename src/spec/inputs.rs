//! Content digests of the files a spec's runs read, so that a run key changes when an input's
//! contents change and a rerun never takes results computed from an older file for complete.
//!
//! Local files (a trace's `path`, a `csv:` workload, the files policies declare with a `path`)
//! are hashed once per sweep; dataset references (`dataset: NAME/PATH`) are pinned by the
//! registry's SHA-256, so they need neither I/O nor a download. What a policy reads comes from
//! its own declaration ([`crate::policies::PolicyConfig::inputs`]), so no policy is named here.

use super::{PolicyEntry, Spec};
use crate::data;
use crate::policies::{InputReader, InputSource, ParsedInput, PolicyInput};
use crate::workload::{TraceParams, WorkloadSpec};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// The SHA-256 of every input file of a spec, by where the spec names it.
#[derive(Debug, Clone, Default)]
pub struct InputDigests {
    base_dir: PathBuf,
    files: BTreeMap<PathBuf, String>,
}

/// One input of a run: a local file, or a registered dataset file.
enum Input<'a> {
    Path(Cow<'a, Path>),
    Dataset(Cow<'a, str>),
}

impl InputDigests {
    /// Hashes every local input file of `spec` (relative paths against `base_dir`, the spec
    /// file's directory). Fails naming the file when one cannot be read.
    pub fn of(spec: &Spec, base_dir: &Path) -> Result<Self, String> {
        let mut digests = InputDigests { base_dir: base_dir.to_path_buf(), files: BTreeMap::new() };
        let workloads = spec.workloads.value.iter().filter_map(|w| workload_input(&w.value));
        let policies = spec.policies.value.iter().flat_map(|p| policy_inputs(p, base_dir));
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

    /// The digests of the files `policy`'s policies read (a GPU-time distribution, an external
    /// policy's script), if they read any.
    pub fn of_policy(&self, policy: &PolicyEntry) -> Option<String> {
        let digests: Vec<String> =
            policy_inputs(policy, &self.base_dir).into_iter().map(|input| self.digest(input)).collect();
        (!digests.is_empty()).then(|| digests.join(","))
    }

    /// The local file a run of `workload` and `policy` read whose digest differs between
    /// `self` (taken before the runs) and `now` (after them), if any.
    pub fn changed_input(&self, now: &InputDigests, workload: &WorkloadSpec, policy: &PolicyEntry) -> Option<PathBuf> {
        let inputs = workload_input(workload).into_iter().chain(policy_inputs(policy, &self.base_dir));
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
            Input::Dataset(reference) => match data::lookup(&reference) {
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
        WorkloadSpec::Trace(TraceParams { dataset: Some(reference), .. }) => {
            Some(Input::Dataset(Cow::Borrowed(reference)))
        }
        WorkloadSpec::GavelGenerator(p) => Some(Input::Dataset(Cow::Borrowed(p.throughputs.dataset_reference()))),
        _ => None,
    }
}

/// Reads the files policies declare ([`crate::policies::PolicyConfig::inputs`]), each once per
/// sweep and shared by every run that uses it: a local path against the spec's directory, a
/// dataset from the cache (fetched and verified first when missing).
pub struct InputFiles {
    base_dir: PathBuf,
    read: Mutex<HashMap<(PathBuf, &'static str), ParsedInput>>,
}

impl InputFiles {
    pub fn new(base_dir: &Path) -> Self {
        Self { base_dir: base_dir.to_path_buf(), read: Mutex::default() }
    }

    /// The spec file's directory.
    pub fn base_dir(&self) -> &Path {
        &self.base_dir
    }

    /// Where `source` is on this machine.
    pub fn local_path(&self, source: &InputSource) -> Result<PathBuf, String> {
        match source {
            InputSource::Path(path) => Ok(self.base_dir.join(path)),
            InputSource::Dataset(reference) => data::FetchOptions::from_env(None)
                .and_then(|options| data::resolve(reference, &data::FetchOptions { quiet: true, ..options }))
                .map_err(|e| format!("dataset `{reference}`: {e}")),
        }
    }
}

impl InputReader for InputFiles {
    fn read(&self, input: &PolicyInput) -> Result<ParsedInput, String> {
        let what = input.what;
        let Some(parse) = input.parse else {
            return Err(format!(
                "{what} ({}) is read by the policy's own program, not by blox",
                input.source.describe()
            ));
        };
        let path = self.local_path(&input.source).map_err(|e| format!("{what}: {e}"))?;
        // Held while parsing, so that runs starting together parse a file once.
        let mut read = self.read.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(parsed) = read.get(&(path.clone(), what)) {
            return Ok(parsed.clone());
        }
        let bytes = std::fs::read(&path).map_err(|e| format!("{what}: {}: {e}", path.display()))?;
        let parsed = parse(&bytes, &path.display().to_string()).map_err(|e| format!("{what}: {e}"))?;
        read.insert((path, what), parsed.clone());
        Ok(parsed)
    }
}

/// Every file the policies of `policy` declare.
pub fn declared(policy: &PolicyEntry) -> Vec<PolicyInput> {
    let mut inputs = policy.scheduler.value.inputs();
    inputs.extend(policy.placement.value.inputs());
    inputs.extend(policy.admission.inputs());
    inputs
}

/// The files run keys hash for `policy`: what its policies parse, and the files only their own
/// programs read where an argument names an existing file.
fn policy_inputs(policy: &PolicyEntry, base_dir: &Path) -> Vec<Input<'static>> {
    declared(policy)
        .into_iter()
        .filter_map(|input| match input.source {
            InputSource::Path(path) if input.parse.is_some() || base_dir.join(&path).is_file() => {
                Some(Input::Path(Cow::Owned(path)))
            }
            InputSource::Path(_) => None,
            InputSource::Dataset(reference) => Some(Input::Dataset(Cow::Owned(reference))),
        })
        .collect()
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
