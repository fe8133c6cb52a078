//! Embeds what identifies this build of blox: the git commit it was built from (with `-dirty`
//! when tracked files had uncommitted changes) and a hash of the sources that decide results.
//!
//! The source hash goes into every run key, so results written by a build whose simulation code
//! differs are never taken for complete by another build; the commit is for people (`--version`,
//! the tables' metadata). It covers what turns a spec's run into its rows: the crates `blox-sim`
//! (engines, policies, profiles) and `blox-io` (trace readers, workload generators), this crate's
//! `spec` and `runner` (defaults, the expansion into runs, the measurement window), and
//! `Cargo.lock` (a solver's new version can move an optimum). The tables and figures
//! (`blox-results`), live mode, the CLI and the report only carry results out, so redrawing a
//! figure or editing live mode does not invalidate runs.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The crates whose sources decide result rows.
const DECIDING_SOURCES: [&str; 4] = ["crates/sim/src", "crates/io/src", "src/spec", "src/runner"];

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in DECIDING_SOURCES {
        println!("cargo:rerun-if-changed={dir}");
        collect(&root.join(dir), &mut files);
    }
    println!("cargo:rerun-if-changed=Cargo.lock");
    files.push(root.join("Cargo.lock"));
    files.sort();
    let mut hasher = Sha256::new();
    for file in &files {
        let relative = file.strip_prefix(&root).unwrap_or(file);
        let name = relative.to_string_lossy().replace('\\', "/");
        let bytes = std::fs::read(file).unwrap_or_default();
        hasher.update((name.len() as u64).to_le_bytes());
        hasher.update(name.as_bytes());
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    let digest = hasher.finalize();
    let source_hash: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=BLOX_SOURCE_HASH={source_hash}");
    println!("cargo:rustc-env=BLOX_GIT_COMMIT={}", git_commit(&root));
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// `abcdef123456`, `abcdef123456-dirty`, or `unknown` outside a git checkout.
fn git_commit(root: &Path) -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    // HEAD and the branch it names move with each commit; git's index is left out because
    // `git status` rewrites it, which would recompile the crate for nothing. The `-dirty` mark
    // is therefore refreshed whenever `src` or the commit changes, which is when it can.
    // `--git-path` finds each file where git keeps it (a worktree's HEAD is its own, its refs are
    // the repository's), and only files that exist are watched: cargo takes a missing one for
    // changed, which reran this script and recompiled blox on every cargo command.
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--path-format=absolute", "--git-path", &name])
            && Path::new(&path).exists()
        {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    let Some(commit) = git(&["rev-parse", "--short=12", "HEAD"]) else { return "unknown".into() };
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    if dirty { format!("{commit}-dirty") } else { commit }
}
