//! Public datasets for tests, obtained the way a user obtains them: through blox's own data layer
//! (`blox::data::resolve` with `FetchOptions::from_env`). A file comes from the cache
//! (`$BLOX_DATA_DIR`, else `$XDG_CACHE_HOME/blox`, else `~/.cache/blox`) when a verified copy is
//! there, else from `BLOX_DATA_MIRROR` when set, else from its pinned origin URL; every copy is
//! checked against the registry's SHA-256. Nothing here reads a folder beside the project.

use blox::data::{self, DataError, FetchOptions};
use std::path::PathBuf;

/// What to do when a dataset file cannot be had; every failure message ends with it.
pub const HOW_TO_GET_DATA: &str = "\
tests that read public datasets get them through blox's data layer, as users do: run them with \
network access (files come from their pinned origin URLs) or set BLOX_DATA_MIRROR to a mirror \
(a directory laid out <dataset folder>/<file>, such as the one CI uses, or an http(s) base \
URL). Verified files are cached in $BLOX_DATA_DIR (else $XDG_CACHE_HOME/blox or \
~/.cache/blox)";

/// The data layer's options from the environment, as the CLI builds them (quiet).
pub fn fetch_options() -> FetchOptions {
    let options = FetchOptions::from_env(None).unwrap_or_else(|e| panic!("{e}\n{HOW_TO_GET_DATA}"));
    FetchOptions { quiet: true, ..options }
}

/// The local, verified copy of the dataset file `reference` (`DATASET/PATH`, as in specs, e.g.
/// `elasticflow-artifact/artifact/traces/elasticVpollux_e.csv`); panics saying how to make it
/// available when it cannot be fetched.
pub fn dataset_file(reference: &str) -> PathBuf {
    data::resolve(reference, &fetch_options())
        .unwrap_or_else(|e| panic!("cannot get dataset file `{reference}`: {e}\n{HOW_TO_GET_DATA}"))
}

/// [`dataset_file`], except for a file the data layer says only a mirror has
/// (`Origin::MirrorOnly`) while no mirror is set: then it says loudly on stderr that the check is
/// skipped ([`skipped`]) and returns `None`. Under CI (`CI` set) a mirror is required, so there
/// that is a failure.
pub fn dataset_file_unless_mirror_only(reference: &str, check: &str) -> Option<PathBuf> {
    match data::resolve(reference, &fetch_options()) {
        Ok(path) => Some(path),
        Err(e @ DataError::MirrorOnly { .. }) => {
            assert!(std::env::var_os("CI").is_none(), "CI must set BLOX_DATA_MIRROR: {e}");
            skipped(&format!("{check}: {e}"));
            None
        }
        Err(e) => panic!("cannot get dataset file `{reference}`: {e}\n{HOW_TO_GET_DATA}"),
    }
}

/// Says on the test process's stderr, past the harness's output capture (so it shows even when
/// the test passes), that a check was skipped and why.
pub fn skipped(what: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {what}");
}

/// Every file of dataset `name` whose path starts with `prefix`, in the registry's order:
/// (path inside the dataset, local verified copy).
pub fn dataset_files(name: &str, prefix: &str) -> Vec<(&'static str, PathBuf)> {
    let dataset = data::find(name).unwrap_or_else(|e| panic!("{e}"));
    let files: Vec<_> = dataset
        .files
        .iter()
        .filter(|f| f.path.starts_with(prefix))
        .map(|f| (f.path, dataset_file(&format!("{name}/{}", f.path))))
        .collect();
    assert!(!files.is_empty(), "dataset {name} has no file under `{prefix}`");
    files
}

/// A directory mirror built by the test: copies of the dataset files `references`, obtained
/// through the data layer, laid out as a mirror is (`<mirror_dir>/<path>`). For tests of
/// fetching from a mirror (directory or served over HTTP) into an empty cache.
pub fn mirror_with(references: &[&str]) -> tempfile::TempDir {
    let mirror = tempfile::tempdir().unwrap();
    for reference in references {
        let (name, path) = reference.split_once('/').unwrap_or_else(|| panic!("`{reference}` is not DATASET/PATH"));
        let dataset = data::find(name).unwrap_or_else(|e| panic!("{e}"));
        let dest = mirror.path().join(dataset.mirror_dir).join(path);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(dataset_file(reference), &dest).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
    }
    mirror
}

/// [`mirror_with`] every file of the datasets `names`.
pub fn mirror_of_datasets(names: &[&str]) -> tempfile::TempDir {
    let references: Vec<String> = names
        .iter()
        .flat_map(|name| {
            let dataset = data::find(name).unwrap_or_else(|e| panic!("{e}"));
            dataset.files.iter().map(move |f| format!("{name}/{}", f.path))
        })
        .collect();
    mirror_with(&references.iter().map(String::as_str).collect::<Vec<_>>())
}

/// Lowercase hex SHA-256 of `bytes`, as the registry pins files.
pub use blox::digest::sha256_hex;

/// A local copy of a dataset file; a rebuilt copy lives in a temporary directory kept with it.
pub struct LocalFile {
    pub path: PathBuf,
    _dir: Option<tempfile::TempDir>,
}

/// The registry's Figure 10 trace, `elasticflow-artifact/artifact/generated/100jobs_1500lam.csv`
/// (the original's `generate_trace.py --num_jobs=100 --lam=1500 --min_ddl=1.5 --seed=1`). Only a
/// mirror has it (`Origin::MirrorOnly`: the upstream run scripts create it). Without a mirror,
/// `bytes` (blox's generator output for the same parameters) stand in for it, and only after they
/// pass the registry's pinned size and SHA-256, as a download would: they are then that file.
pub fn figure_10_trace_file(bytes: &[u8]) -> LocalFile {
    const REFERENCE: &str = "elasticflow-artifact/artifact/generated/100jobs_1500lam.csv";
    match data::resolve(REFERENCE, &fetch_options()) {
        Ok(path) => LocalFile { path, _dir: None },
        Err(e @ DataError::MirrorOnly { .. }) => {
            let dataset = data::find("elasticflow-artifact").unwrap();
            let pinned = dataset.file("artifact/generated/100jobs_1500lam.csv").unwrap();
            assert_eq!(
                (bytes.len() as u64, sha256_hex(bytes).as_str()),
                (pinned.size, pinned.sha256),
                "{e}; blox's generator output does not match the pinned file either, so there is \
                 nothing to compare with: {HOW_TO_GET_DATA}"
            );
            eprintln!(
                "{REFERENCE}: only a mirror has it; using blox's generator output, verified against its pinned SHA-256"
            );
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("100jobs_1500lam.csv");
            std::fs::write(&path, bytes).unwrap();
            LocalFile { path, _dir: Some(dir) }
        }
        Err(e) => panic!("cannot get dataset file `{REFERENCE}`: {e}\n{HOW_TO_GET_DATA}"),
    }
}
