//! Content digests of the files a spec's runs read, so that a run key changes when an input's
//! contents change and a rerun never takes results computed from an older file for complete.
//!
//! Local files (a trace's `path`, a `csv:` workload, the files and directories policies declare
//! with a `path`) are hashed once per sweep; a directory (an external policy's `inputs` may name
//! one, and so may a policy's folder input) is hashed as the list of its files' relative paths and
//! digests. Dataset references (`dataset: NAME/PATH`, or a folder `NAME/PREFIX/`) are pinned by
//! the registry's SHA-256s, so they need neither I/O nor a download. What a policy reads comes from
//! its own declaration ([`crate::policies::PolicyConfig::inputs`]), so no policy is named here.

use super::{ClusterEntry, PolicyEntry, Spec};
use crate::data;
use crate::digest::{sha256_hex, sha256_of_reader};
use crate::policies::{InputParser, InputReader, InputSource, ParsedInput, PolicyInput};
use crate::workload::WorkloadSpec;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// The SHA-256 of every input file of a spec, by where the spec names it.
#[derive(Debug, Clone, Default)]
pub struct InputDigests {
    base_dir: PathBuf,
    files: BTreeMap<PathBuf, String>,
}

/// The same inputs hashed again after a sweep: each one's digest now, or why it could not be
/// read (another file may have been moved away; only the runs that read it are concerned).
#[derive(Debug, Clone, Default)]
pub struct DigestsAgain {
    files: BTreeMap<PathBuf, Result<String, String>>,
}

/// How an input of a run differs after the sweep from what its key was made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputChange {
    /// Its contents changed.
    Changed(PathBuf),
    /// It could not be read again (moved away, deleted, no longer readable), with the error.
    Unreadable(PathBuf, String),
}

/// One input of a run: a local file or directory, or a registered dataset file.
enum Input<'a> {
    Path(Cow<'a, Path>),
    Dataset(Cow<'a, str>),
}

impl InputDigests {
    /// Hashes every local input of `spec` (relative paths against `base_dir`, the spec file's
    /// directory). Fails naming the file when one cannot be read.
    pub fn of(spec: &Spec, base_dir: &Path) -> Result<Self, String> {
        let mut digests = InputDigests { base_dir: base_dir.to_path_buf(), files: BTreeMap::new() };
        for local in local_inputs(spec, base_dir) {
            if digests.files.contains_key(&local) {
                continue;
            }
            let digest =
                digest_path(&local).map_err(|e| format!("{}: cannot read this input: {e}", local.display()))?;
            digests.files.insert(local, digest);
        }
        Ok(digests)
    }

    /// Hashes every input of `self` again, each on its own: one that cannot be read is recorded
    /// as such and the others are still compared.
    pub fn hash_again(&self) -> DigestsAgain {
        let files = self.files.keys().map(|path| (path.clone(), digest_path(path).map_err(|e| e.to_string())));
        DigestsAgain { files: files.collect() }
    }

    /// The digest of the file `workload` reads, if it reads one.
    pub fn of_workload(&self, workload: &WorkloadSpec) -> Option<String> {
        workload_input(workload).map(|input| self.digest(input))
    }

    /// The digest of a cluster's node list, if it reads one.
    pub fn of_cluster(&self, cluster: &ClusterEntry) -> Option<String> {
        cluster.node_list.as_ref().map(|list| self.digest(source_input(&list.value)))
    }

    /// The digests of the files `policy`'s policies read (a GPU-time distribution, an external
    /// policy's script), if they read any.
    pub fn of_policy(&self, policy: &PolicyEntry) -> Option<String> {
        let digests: Vec<String> =
            policy_inputs(policy, &is_file_in(&self.base_dir)).into_iter().map(|input| self.digest(input)).collect();
        (!digests.is_empty()).then(|| digests.join(","))
    }

    /// The first local input of a run of `workload` and `policy` that `again` (hashed after the
    /// runs) finds changed or cannot read, if any.
    pub fn changed_input(
        &self,
        again: &DigestsAgain,
        workload: &WorkloadSpec,
        policy: &PolicyEntry,
    ) -> Option<InputChange> {
        // The files the runs were keyed on, even one that is gone now.
        let hashed = |path: &Path| self.files.contains_key(&self.base_dir.join(path));
        let inputs = workload_input(workload).into_iter().chain(policy_inputs(policy, &hashed));
        inputs.into_iter().find_map(|input| {
            let Input::Path(path) = input else { return None };
            let local = self.base_dir.join(path);
            match (self.files.get(&local), again.files.get(&local)) {
                (Some(before), Some(Ok(now))) if before == now => None,
                (_, Some(Err(error))) => Some(InputChange::Unreadable(local, error.clone())),
                _ => Some(InputChange::Changed(local)),
            }
        })
    }

    fn digest(&self, input: Input<'_>) -> String {
        match input {
            // Every path was hashed by `of`; a plan built from another spec's digests gets a key
            // that matches nothing rather than a wrong match.
            Input::Path(path) => {
                self.files.get(&self.base_dir.join(path)).cloned().unwrap_or_else(|| "unhashed".into())
            }
            Input::Dataset(reference) => {
                data::pinned_sha256(&reference).unwrap_or_else(|_| format!("unknown dataset {reference}"))
            }
        }
    }
}

/// For each policy whose own program reads files (an external policy), one line saying what its
/// run keys hash, and that what else the program reads is not: editing a module the script
/// imports would otherwise reuse results computed with the old one without a word.
pub fn external_policy_notes(spec: &Spec, base_dir: &Path) -> String {
    let mut notes = String::new();
    for policy in &spec.policies.value {
        let declared = declared(policy);
        if declared.iter().all(|input| input.parse.is_some()) {
            continue;
        }
        let hashed: Vec<String> = policy_inputs(policy, &is_file_in(base_dir))
            .into_iter()
            .filter_map(|input| match input {
                Input::Path(path) => Some(path.display().to_string()),
                Input::Dataset(_) => None,
            })
            .collect();
        let hashed = if hashed.is_empty() { "no file".to_string() } else { hashed.join(", ") };
        notes += &format!(
            "note: policy `{}` runs a program of its own: run keys hash {hashed}; anything else the program reads \
             (a module it imports, a data file) is not hashed unless listed in its `inputs:`, and editing it would \
             not redo its runs\n",
            policy.label.value.0
        );
    }
    notes
}

/// Every local input file or directory of `spec`, as read (against `base_dir`).
fn local_inputs<'a>(spec: &'a Spec, base_dir: &'a Path) -> impl Iterator<Item = PathBuf> + 'a {
    let workloads = spec.workloads.value.iter().filter_map(|w| workload_input(&w.value));
    let policies = spec.policies.value.iter().flat_map(move |p| policy_inputs(p, &is_file_in(base_dir)));
    let clusters = spec.clusters.value.iter().filter_map(|c| c.node_list.as_ref().map(|l| source_input(&l.value)));
    workloads.chain(policies).chain(clusters).filter_map(move |input| match input {
        Input::Path(path) => Some(base_dir.join(path)),
        Input::Dataset(_) => None,
    })
}

/// A file's SHA-256, or a directory's: of the list of its files' relative paths and digests, in
/// name order. Hidden entries (`.git`) and `__pycache__` directories (caches an interpreter
/// writes beside the sources it runs) are left out, and links to directories are not followed.
fn digest_path(path: &Path) -> io::Result<String> {
    if fs::metadata(path)?.is_dir() {
        let mut listing = String::new();
        list_tree(path, Path::new(""), &mut listing)?;
        Ok(sha256_hex(listing.as_bytes()))
    } else {
        File::open(path).and_then(sha256_of_reader)
    }
}

fn list_tree(root: &Path, relative: &Path, listing: &mut String) -> io::Result<()> {
    let mut entries = fs::read_dir(root.join(relative))?.collect::<Result<Vec<_>, _>>()?;
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') || name == "__pycache__" {
            continue;
        }
        let relative = relative.join(&name);
        if entry.file_type()?.is_dir() {
            list_tree(root, &relative, listing)?;
        } else if fs::metadata(entry.path()).is_ok_and(|m| m.is_file()) {
            let digest = File::open(entry.path()).and_then(sha256_of_reader)?;
            *listing += &format!("{}\0{digest}\n", relative.display());
        }
    }
    Ok(())
}

fn source_input(source: &InputSource) -> Input<'_> {
    match source {
        InputSource::Path(path) => Input::Path(Cow::Borrowed(path)),
        InputSource::Dataset(reference) => Input::Dataset(Cow::Borrowed(reference)),
    }
}

/// The file or dataset a workload reads, as its kind declares it.
fn workload_input(workload: &WorkloadSpec) -> Option<Input<'static>> {
    workload.reads().map(|source| match source {
        InputSource::Path(path) => Input::Path(Cow::Owned(path)),
        InputSource::Dataset(reference) => Input::Dataset(Cow::Owned(reference)),
    })
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
            InputSource::Dataset(reference) => fetch_options()
                .and_then(|options| data::resolve(reference, &options))
                .map_err(|e| format!("dataset `{reference}`: {e}")),
        }
    }

    /// Where the folder `source` is on this machine (a dataset folder's cache directory) and its
    /// files, each with its path under the folder, in path order.
    fn folder_files(&self, source: &InputSource) -> Result<(PathBuf, Vec<(String, PathBuf)>), String> {
        match source {
            InputSource::Path(path) => {
                let dir = self.base_dir.join(path);
                if !dir.is_dir() {
                    return Err(format!("{}: expected a directory", dir.display()));
                }
                let mut files = Vec::new();
                list_files(&dir, Path::new(""), &mut files).map_err(|e| format!("{}: {e}", dir.display()))?;
                files.sort();
                Ok((dir, files))
            }
            InputSource::Dataset(reference) => {
                if !data::names_folder(reference) {
                    return Err(format!(
                        "dataset `{reference}` names one file; a folder is `DATASET` or `DATASET/PREFIX/`"
                    ));
                }
                let files = fetch_options()
                    .and_then(|options| data::resolve_folder(reference, &options))
                    .map_err(|e| format!("dataset `{reference}`: {e}"))?;
                let dir = PathBuf::from(format!("dataset {reference}"));
                let mut files: Vec<(String, PathBuf)> =
                    files.into_iter().map(|(relative, path)| (relative.to_string(), path)).collect();
                files.sort();
                Ok((dir, files))
            }
        }
    }
}

/// The data layer's options from the environment, quiet.
fn fetch_options() -> Result<data::FetchOptions, data::DataError> {
    data::FetchOptions::from_env(None).map(|options| data::FetchOptions { quiet: true, ..options })
}

/// Every file under `root/relative`, as (path under `root` with `/` separators, path), leaving
/// out hidden entries as [`digest_path`] does.
fn list_files(root: &Path, relative: &Path, files: &mut Vec<(String, PathBuf)>) -> io::Result<()> {
    for entry in fs::read_dir(root.join(relative))? {
        let entry = entry?;
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') || name == "__pycache__" {
            continue;
        }
        let relative = relative.join(&name);
        if entry.file_type()?.is_dir() {
            list_files(root, &relative, files)?;
        } else if fs::metadata(entry.path()).is_ok_and(|m| m.is_file()) {
            let names: Vec<String> = relative.components().map(|c| c.as_os_str().to_string_lossy().into()).collect();
            files.push((names.join("/"), entry.path()));
        }
    }
    Ok(())
}

impl InputReader for InputFiles {
    fn read(&self, input: &PolicyInput) -> Result<ParsedInput, String> {
        let what = input.what;
        let Some(parser) = input.parse else {
            return Err(format!(
                "{what} ({}) is read by the policy's own program, not by blox",
                input.source.describe()
            ));
        };
        match parser {
            InputParser::File(parse) => {
                let path = self.local_path(&input.source).map_err(|e| format!("{what}: {e}"))?;
                self.parsed_once(path, what, |path, name| {
                    let bytes = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
                    parse(&bytes, name)
                })
            }
            InputParser::Folder(parse) => {
                let (dir, files) = self.folder_files(&input.source).map_err(|e| format!("{what}: {e}"))?;
                self.parsed_once(dir, what, |_, name| {
                    let contents = files
                        .into_iter()
                        .map(|(relative, file)| {
                            std::fs::read(&file)
                                .map(|bytes| (relative, bytes))
                                .map_err(|e| format!("{}: {e}", file.display()))
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    parse(&contents, name)
                })
            }
        }
    }
}

impl InputFiles {
    /// What `load` makes of the input at `path`, loaded once per sweep: the cache is held while
    /// loading, so that runs starting together parse an input once.
    fn parsed_once(
        &self,
        path: PathBuf,
        what: &'static str,
        load: impl FnOnce(&Path, &str) -> Result<ParsedInput, String>,
    ) -> Result<ParsedInput, String> {
        let mut read = self.read.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(parsed) = read.get(&(path.clone(), what)) {
            return Ok(parsed.clone());
        }
        let parsed = load(&path, &path.display().to_string()).map_err(|e| format!("{what}: {e}"))?;
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

/// Whether a path names a file in `base_dir` (an argument of a policy's program that is its
/// script).
fn is_file_in(base_dir: &Path) -> impl Fn(&Path) -> bool + '_ {
    move |path| base_dir.join(path).is_file()
}

/// The files run keys hash for `policy`: what its policies parse or declare as read by their own
/// programs, and the arguments of those programs that `names_a_file` accepts.
fn policy_inputs(policy: &PolicyEntry, names_a_file: &dyn Fn(&Path) -> bool) -> Vec<Input<'static>> {
    declared(policy)
        .into_iter()
        .filter_map(|input| match input.source {
            InputSource::Path(path) if !input.only_if_a_file || names_a_file(&path) => {
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

    const EXTERNAL: &str = "name: ext
policies:
  - label: py
    scheduler: {external: {command: [python3, p.py], inputs: [lib]}}
clusters: [{nodes: 1, gpus_per_node: 4}]
workloads: [{csv: {path: a.csv}}, {csv: {path: b.csv}}]
measure: {track: all}
";

    fn external_spec(dir: &Path) -> Spec {
        let source = SpecSource { file: dir.join("s.yaml"), text: EXTERNAL.into(), base_dir: dir.to_path_buf() };
        Spec::parse(&source).unwrap()
    }

    fn external_files(dir: &Path) {
        let csv = "job_id,arrival_s,gpus,duration_s\n0,0,1,60\n";
        for (name, text) in [("a.csv", csv), ("b.csv", csv), ("p.py", "import helper\n"), ("lib/helper.py", "X = 1\n")]
        {
            std::fs::create_dir_all(dir.join(name).parent().unwrap()).unwrap();
            std::fs::write(dir.join(name), text).unwrap();
        }
    }

    /// A directory an external policy declares in `inputs` is hashed by its files: editing a
    /// module there gives new keys; the interpreter's `__pycache__` and hidden files do not.
    #[test]
    fn a_declared_directory_is_hashed_by_its_files() {
        let dir = tempfile::tempdir().unwrap();
        external_files(dir.path());
        let keys = || {
            let spec = external_spec(dir.path());
            expand(&spec, &InputDigests::of(&spec, dir.path()).unwrap()).into_iter().map(|p| p.info.run_key).collect()
        };
        let first: Vec<String> = keys();
        std::fs::create_dir_all(dir.path().join("lib/__pycache__")).unwrap();
        std::fs::write(dir.path().join("lib/__pycache__/helper.cpython-312.pyc"), "compiled").unwrap();
        std::fs::write(dir.path().join("lib/.helper.py.swp"), "editor").unwrap();
        assert_eq!(keys(), first, "caches and hidden files are not inputs");
        std::fs::write(dir.path().join("lib/helper.py"), "X = 2\n").unwrap();
        let edited = keys();
        assert!(edited.iter().zip(&first).all(|(a, b)| a != b), "the imported module changed");
        let notes = external_policy_notes(&external_spec(dir.path()), dir.path());
        assert!(notes.contains("policy `py` runs a program of its own: run keys hash p.py, lib;"), "{notes}");
    }

    /// An input that cannot be hashed again after the sweep is reported as unreadable, and only
    /// for the runs that read it; before, every run was set aside as "changed".
    #[test]
    fn an_input_that_cannot_be_read_again_concerns_only_its_runs() {
        let dir = tempfile::tempdir().unwrap();
        external_files(dir.path());
        let spec = external_spec(dir.path());
        let before = InputDigests::of(&spec, dir.path()).unwrap();
        std::fs::remove_file(dir.path().join("b.csv")).unwrap();
        let again = before.hash_again();
        let [a, b] = [0, 1].map(|i| &spec.workloads.value[i].value);
        let scheduler = &spec.policies.value[0];
        assert_eq!(before.changed_input(&again, a, scheduler), None);
        let change = before.changed_input(&again, b, scheduler);
        assert!(matches!(&change, Some(InputChange::Unreadable(path, _)) if path.ends_with("b.csv")), "{change:?}");
        std::fs::write(dir.path().join("p.py"), "import helper  # edited\n").unwrap();
        let change = before.changed_input(&before.hash_again(), a, scheduler);
        assert_eq!(change, Some(InputChange::Changed(dir.path().join("p.py"))));
    }
}
