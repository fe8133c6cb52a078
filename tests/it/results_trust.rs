//! A results directory never mixes versions and never loses a run: the adversarial cases of
//! issue 11 (label collisions, changed specs and inputs, damaged files, two processes, Ctrl-C,
//! time limits), plus `status`, `--dry-run`, `--only`, `export`, completions and the man page.

use crate::common;

use blox::results;
use common::{blox, text};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn write(dir: &Path, name: &str, contents: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, contents).unwrap();
    path
}

fn run_keys(experiment: &Path) -> Vec<String> {
    results::read_runs(experiment).unwrap().into_iter().map(|r| r.info.run_key).collect()
}

/// Hidden files (temporaries) under the three table directories.
fn hidden_files(experiment: &Path) -> Vec<String> {
    let mut hidden = Vec::new();
    for table in ["runs", "jobs", "timeline"] {
        for entry in fs::read_dir(experiment.join(table)).into_iter().flatten() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                hidden.push(name);
            }
        }
    }
    hidden
}

const SMALL: &str = "name: small
policies:
  - {label: FIFO, scheduler: fifo}
  - {label: LAS, scheduler: las}
clusters: [{nodes: 2, gpus_per_node: 4}]
workloads: [{blox-philly-synthetic: {}}]
loads: [0.3, 0.6]
seeds: [1, 2]
measure: {track: {ids: [20, 60]}}
";

/// `'A B'` and `'A-B'` read the same in a file name; before, one of the two runs was silently
/// taken for the other ("already complete").
#[test]
fn labels_that_sanitise_alike_still_get_their_own_runs() {
    let dir = tempfile::tempdir().unwrap();
    let spec =
        SMALL.replace("label: FIFO", "label: A B").replace("label: LAS, scheduler: las", "label: A-B, scheduler: fifo");
    let spec = write(dir.path(), "s.yaml", &spec);
    for jobs in ["1", "2"] {
        let out = blox(&["run", spec.to_str().unwrap(), "--out", "out", "-j", jobs, "--force"], dir.path());
        assert!(out.status.success(), "{}", text(&out.stderr));
        let runs = results::read_runs(&dir.path().join("out/small")).unwrap();
        assert_eq!(runs.len(), 8, "-j {jobs}");
        assert_eq!(runs.iter().filter(|r| r.info.label == "A B").count(), 4);
        assert_eq!(runs.iter().filter(|r| r.info.label == "A-B").count(), 4);
    }
}

/// After a spec change, `runs/`, `jobs/` and `timeline/` hold only the current grid; the rest
/// is moved to `set-aside/` (not deleted) and reported, so a glob never counts a point twice.
#[test]
fn a_changed_spec_leaves_only_its_own_runs_and_reports_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write(dir.path(), "s.yaml", SMALL);
    assert!(blox(&["run", spec.to_str().unwrap(), "--out", "out"], dir.path()).status.success());
    write(dir.path(), "s.yaml", &SMALL.replace("[0.3, 0.6]", "[0.3, 0.7]"));
    let out = blox(&["run", spec.to_str().unwrap(), "--out", "out"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("set aside 4 runs") && stderr.contains("not in the current grid"), "{stderr}");
    let experiment = dir.path().join("out/small");
    let runs = results::read_runs(&experiment).unwrap();
    assert_eq!(runs.len(), 8);
    assert!(runs.iter().all(|r| r.info.load != Some(0.6)));
    for table in ["jobs", "timeline"] {
        assert_eq!(fs::read_dir(experiment.join(table)).unwrap().count(), 8, "{table}");
    }
    let set_aside: Vec<_> = fs::read_dir(experiment.join("set-aside")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(set_aside.len(), 1);
    assert_eq!(fs::read_dir(set_aside[0].join("runs")).unwrap().count(), 4);
    // Every row names the spec version it was written under: the load-0.3 runs were kept from
    // the first version, the load-0.7 runs are new.
    let sha_of = |load: f64| {
        runs.iter()
            .filter(|r| r.info.load == Some(load))
            .map(|r| r.spec_sha256.clone())
            .collect::<std::collections::BTreeSet<_>>()
    };
    let (kept, new) = (sha_of(0.3), sha_of(0.7));
    assert!(kept.len() == 1 && new.len() == 1 && kept != new, "{kept:?} {new:?}");
    assert!(kept.iter().chain(&new).all(|sha| sha.len() == 64));
}

/// The run key hashes the trace's contents, not only its path: editing the file reruns.
#[test]
fn a_changed_trace_file_is_not_taken_for_complete() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "t.csv", "job_id,arrival_s,gpus,duration_s\n0,0,1,3600\n1,60,2,7200\n");
    let spec = write(
        dir.path(),
        "s.yaml",
        "name: t\npolicies: [{label: FIFO, scheduler: fifo}]\nclusters: [{nodes: 1, gpus_per_node: 2}]\nworkloads: [{csv: {path: t.csv}}]\nmeasure: {track: all}\n",
    );
    let run = || blox(&["run", spec.to_str().unwrap(), "--out", "out"], dir.path());
    assert!(run().status.success());
    let first = run_keys(&dir.path().join("out/t"));
    let again = run();
    assert!(text(&again.stdout).contains("0 executed, 1 already complete"), "{}", text(&again.stdout));
    write(dir.path(), "t.csv", "job_id,arrival_s,gpus,duration_s\n0,0,1,3600\n1,60,2,9000\n");
    let changed = run();
    assert!(text(&changed.stdout).contains("1 executed, 0 already complete"), "{}", text(&changed.stdout));
    let second = run_keys(&dir.path().join("out/t"));
    assert_eq!(second.len(), 1);
    assert_ne!(first, second);
}

/// A truncated runs file no longer stops the sweep with "Corrupt footer": it is set aside, said
/// so, and the run is redone.
#[test]
fn a_truncated_runs_file_is_set_aside_and_redone() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write(dir.path(), "s.yaml", SMALL);
    assert!(blox(&["run", spec.to_str().unwrap(), "--out", "out"], dir.path()).status.success());
    let runs_dir = dir.path().join("out/small/runs");
    let victim = fs::read_dir(&runs_dir).unwrap().next().unwrap().unwrap().path();
    let bytes = fs::read(&victim).unwrap();
    fs::write(&victim, &bytes[..bytes.len() / 2]).unwrap();
    let out = blox(&["run", spec.to_str().unwrap(), "--out", "out"], dir.path());
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("unreadable runs file") && stderr.contains("it will be redone"), "{stderr}");
    assert!(stdout.contains("1 executed, 7 already complete"), "{stdout}");
    assert_eq!(results::read_runs(&dir.path().join("out/small")).unwrap().len(), 8);
}

/// Two processes on one results directory: each run is done once, neither reports a failure,
/// and together they complete the grid.
#[test]
fn two_processes_on_one_directory_share_the_grid() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write(dir.path(), "s.yaml", &SMALL.replace("seeds: [1, 2]", "seeds: [1, 2, 3, 4, 5, 6]"));
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_blox"))
            .args(["run", spec.to_str().unwrap(), "--out", "out", "-j", "1"])
            .current_dir(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    for out in [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()] {
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{stdout}\n{stderr}");
        assert!(stdout.contains("0 failed") && !stderr.contains("FAILED"), "{stdout}\n{stderr}");
    }
    let experiment = dir.path().join("out/small");
    assert_eq!(results::read_runs(&experiment).unwrap().len(), 24);
    assert!(hidden_files(&experiment).is_empty());
    let status = blox(&["status", experiment.to_str().unwrap()], dir.path());
    assert!(text(&status.stdout).contains("24 done, 0 missing, 0 failed"), "{}", text(&status.stdout));
}

/// A run that never ends on this cluster: 20,000 tracked jobs at an overload.
const ENDLESS: &str = "name: endless
policies: [{label: LAS, scheduler: las}]
clusters: [{nodes: 2, gpus_per_node: 4}]
workloads: [{blox-philly-synthetic: {}}]
loads: [4]
measure: {track: {ids: [0, 20000]}}
";

/// `--run-timeout` fails that run cleanly (recorded for `status`, exit 1, no temporaries) and
/// the other runs of the grid complete: the same workload on a cluster 128 times larger takes a
/// fraction of a second.
#[test]
fn a_run_over_its_time_limit_fails_cleanly_and_the_others_complete() {
    let dir = tempfile::tempdir().unwrap();
    let spec = ENDLESS.replace(
        "clusters: [{nodes: 2, gpus_per_node: 4}]",
        "clusters: [{nodes: 2, gpus_per_node: 4}, {nodes: 128, gpus_per_node: 8}]",
    );
    let spec = write(dir.path(), "e.yaml", &spec);
    let out = blox(&["run", spec.to_str().unwrap(), "--out", "out", "--run-timeout", "10"], dir.path());
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("LAS_2x4") && stderr.contains("exceeded --run-timeout 10s"), "{stderr}");
    assert!(stdout.contains("2 runs: 1 executed, 0 already complete, 1 failed"), "{stdout}");
    let experiment = dir.path().join("out/endless");
    assert!(hidden_files(&experiment).is_empty());
    assert_eq!(results::read_runs(&experiment).unwrap()[0].info.cluster, "128x8");
    let status = text(&blox(&["status", experiment.to_str().unwrap()], dir.path()).stdout);
    assert!(status.contains("1 done, 0 missing, 1 failed") && status.contains("exceeded --run-timeout"), "{status}");
}

/// Ctrl-C (SIGINT) and SIGTERM say what is complete and what is left, exit 130 and leave no
/// temporary file; before, the process died silently.
#[test]
fn an_interrupted_sweep_says_what_is_left() {
    for signal in ["INT", "TERM"] {
        let dir = tempfile::tempdir().unwrap();
        let spec = write(dir.path(), "e.yaml", ENDLESS);
        let child = Command::new(env!("CARGO_BIN_EXE_blox"))
            .args(["run", spec.to_str().unwrap(), "--out", "out"])
            .current_dir(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(1500));
        let killed = Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap();
        assert!(killed.success());
        let out = child.wait_with_output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{signal}: {stderr}");
        assert!(stderr.contains("interrupted: 0 runs complete, 1 left; rerun to resume"), "{signal}: {stderr}");
        assert!(hidden_files(&dir.path().join("out/endless")).is_empty());
    }
}

/// `-j 65535` on a one-run grid starts one worker, not 65,535.
#[test]
fn threads_are_capped_at_the_runs_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write(
        dir.path(),
        "s.yaml",
        &SMALL.replace("loads: [0.3, 0.6]", "loads: [0.3]").replace("seeds: [1, 2]", "seeds: [1]"),
    );
    let out = blox(&["run", spec.to_str().unwrap(), "--out", "out", "-j", "65535", "--only", "label=FIFO"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("1 runs: 1 executed"), "{}", text(&out.stdout));
}

/// `--dry-run` lists run keys as done/todo and runs nothing; `--only` runs a subset; `status`
/// reports the union; `plot` warns about the missing points.
#[test]
fn dry_run_only_status_and_plot_agree() {
    let dir = tempfile::tempdir().unwrap();
    let spec = SMALL.to_string() + "figures:\n  - metric-vs: {name: jct, y: avg_jct}\n";
    let spec = write(dir.path(), "s.yaml", &spec);
    let spec = spec.to_str().unwrap();
    let dry = blox(&["run", spec, "--out", "out", "--dry-run"], dir.path());
    let stdout = text(&dry.stdout);
    assert!(dry.status.success(), "{}", text(&dry.stderr));
    assert_eq!(stdout.lines().filter(|l| l.starts_with("todo")).count(), 8, "{stdout}");
    assert!(stdout.contains("8 runs selected of 8; 8 to do, 0 done (nothing was run)"), "{stdout}");
    assert!(!dir.path().join("out").exists(), "a dry run writes nothing");

    let only = blox(&["run", spec, "--out", "out", "--only", "label=LAS,load=0.6"], dir.path());
    assert!(only.status.success(), "{}", text(&only.stderr));
    assert!(text(&only.stdout).contains("2 runs: 2 executed"), "{}", text(&only.stdout));
    assert_eq!(results::read_runs(&dir.path().join("out/small")).unwrap().len(), 2);

    let dry = text(&blox(&["run", spec, "--out", "out", "--dry-run"], dir.path()).stdout);
    assert_eq!(dry.lines().filter(|l| l.starts_with("done")).count(), 2, "{dry}");
    let status = text(&blox(&["status", "out/small"], dir.path()).stdout);
    assert!(status.contains("8 runs in the grid") && status.contains("2 done, 6 missing"), "{status}");
    assert!(status.contains("missing FIFO_2x4"), "{status}");

    let plot = blox(&["plot", "out/small"], dir.path());
    assert!(plot.status.success(), "{}", text(&plot.stderr));
    assert!(text(&plot.stderr).contains("warning: 6 of 8 runs of the grid are not complete"), "{}", text(&plot.stderr));

    let bad = blox(&["run", spec, "--out", "out", "--only", "label=SRTF"], dir.path());
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("--only matches none of the 8 runs"), "{}", text(&bad.stderr));
}

/// `export` writes one file per table with every row of the grid, readable as CSV and Parquet.
#[test]
fn export_merges_each_table_into_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write(dir.path(), "s.yaml", SMALL);
    assert!(blox(&["run", spec.to_str().unwrap(), "--out", "out"], dir.path()).status.success());
    let jobs_rows: usize = results::read_runs(&dir.path().join("out/small"))
        .unwrap()
        .iter()
        .map(|r| results::read_jobs(&dir.path().join("out/small"), &r.info.run_key).unwrap().len())
        .sum();
    let csv = blox(&["export", "out/small", "--to", "csv"], dir.path());
    assert!(csv.status.success(), "{}", text(&csv.stderr));
    let runs_csv = fs::read_to_string(dir.path().join("out/small/export/runs.csv")).unwrap();
    assert_eq!(runs_csv.lines().count(), 9, "header + 8 runs");
    assert!(runs_csv.starts_with("spec_sha256,blox_version,experiment,run_key,label"), "{runs_csv}");
    let jobs_csv = fs::read_to_string(dir.path().join("out/small/export/jobs.csv")).unwrap();
    assert_eq!(jobs_csv.lines().count(), jobs_rows + 1);
    let parquet = blox(&["export", "out/small", "--to", "parquet", "-o", "merged"], dir.path());
    assert!(parquet.status.success(), "{}", text(&parquet.stderr));
    assert!(text(&parquet.stdout).contains(&format!("jobs.parquet: {jobs_rows} rows")), "{}", text(&parquet.stdout));
    assert!(dir.path().join("merged/timeline.parquet").is_file());
}

#[test]
fn completions_man_page_and_version_work() {
    let dir = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let out = blox(&["completions", shell], dir.path());
        assert!(out.status.success() && text(&out.stdout).contains("blox"), "{shell}");
    }
    let man = blox(&["man"], dir.path());
    assert!(man.status.success() && text(&man.stdout).contains(".TH blox"), "{}", text(&man.stdout));
    let pages = blox(&["man", "--dir", "man1"], dir.path());
    assert!(pages.status.success());
    assert!(dir.path().join("man1/blox.1").is_file() && dir.path().join("man1/blox-run.1").is_file());
    let version = text(&blox(&["--version"], dir.path()).stdout);
    assert!(version.contains("commit ") && version.contains("source "), "{version}");
    let help = text(&blox(&["run", "--help"], dir.path()).stdout);
    assert!(help.contains("BLOX_DATA_MIRROR") && help.contains("BLOX_DATA_DIR"), "{help}");
}

/// Events-mode timelines count preemptions (their sum is the run's total) and leave the
/// admission backlog null, since admission there decides at arrival; before, both were a
/// hard-coded 0.
#[test]
fn event_timelines_count_preemptions_and_have_no_backlog() {
    use blox::core::ClusterSpec;
    use blox::core::events::{EventConfig, EventEngine, EventPolicy};
    use blox::policies::events::{themis::Themis, tiresias::Tiresias};
    use blox::profiles::ThroughputTable;
    use blox::workload::elasticflow_generator::{ElasticflowGeneratorParams, job_stream};
    use std::num::NonZeroUsize;
    use std::sync::Arc;

    let policies: [(&str, Box<dyn EventPolicy>); 2] =
        [("tiresias", Box::new(Tiresias::default())), ("themis", Box::new(Themis::default()))];
    for (name, policy) in policies {
        let params = ElasticflowGeneratorParams::new(NonZeroUsize::new(100).unwrap(), 1500.0);
        let config = EventConfig {
            cluster: ClusterSpec::uniform(4, 8),
            slot: 240.0,
            throughput: Arc::new(ThroughputTable::elasticflow_a100().clone()),
            record_timeline: true,
        };
        let out = EventEngine::new(config, policy, job_stream(&params, 1).unwrap()).unwrap().run().unwrap();
        let logged: u64 = out.timeline.iter().map(|t| u64::from(t.preemptions)).sum();
        assert!(out.summary.preemptions > 0, "{name}: the test needs a run with preemptions");
        assert_eq!(logged, out.summary.preemptions, "{name}");
        assert!(out.timeline.iter().all(|t| t.admission_backlog.is_none()), "{name}");
    }
}

/// A figure dropped from the spec, or one that cannot be drawn any more, leaves no earlier
/// drawing behind to be taken for a figure of the current results.
#[test]
fn stale_figures_do_not_survive_a_spec_change() {
    let dir = tempfile::tempdir().unwrap();
    let figures = "figures:\n  - metric-vs: {name: jct, y: avg_jct}\n  - metric-vs: {name: p99, y: p99_jct}\n  - bars: {name: at-06, y: avg_jct, select: {load: [0.6]}}\n";
    let spec = write(dir.path(), "s.yaml", &(SMALL.to_string() + figures));
    assert!(blox(&["run", spec.to_str().unwrap(), "--out", "out"], dir.path()).status.success());
    let figure_dir = dir.path().join("out/small/figures");
    for name in ["jct", "p99", "at-06"] {
        assert!(figure_dir.join(format!("{name}.png")).is_file(), "{name}");
    }
    let figures = "figures:\n  - metric-vs: {name: jct, y: avg_jct}\n  - bars: {name: at-06, y: avg_jct, select: {load: [0.6]}}\n";
    write(dir.path(), "s.yaml", &(SMALL.replace("[0.3, 0.6]", "[0.3, 0.7]") + figures));
    let out = blox(&["run", spec.to_str().unwrap(), "--out", "out"], dir.path());
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("figure `at-06`") && stderr.contains("its earlier files were removed"), "{stderr}");
    assert!(stderr.contains("p99.png (its figure is no longer in the spec)"), "{stderr}");
    let mut left: Vec<String> =
        fs::read_dir(&figure_dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    left.sort();
    assert_eq!(left, ["jct.csv", "jct.pdf", "jct.png", "jct.svg"]);
}

/// A truncated jobs or timeline file was never noticed: `status` said every run done, `run` took
/// it for complete, `export` failed for the whole experiment. The runs file now records each
/// table's length, rows and write, so the damaged run is reported, left out of `export`, set
/// aside with a reason by the next `run`, and redone.
#[test]
fn a_truncated_jobs_or_timeline_file_is_found_set_aside_and_redone() {
    for table in ["jobs", "timeline"] {
        let dir = tempfile::tempdir().unwrap();
        let spec = write(dir.path(), "s.yaml", SMALL);
        assert!(blox(&["run", spec.to_str().unwrap(), "--out", "out"], dir.path()).status.success());
        let experiment = dir.path().join("out/small");
        let victim = fs::read_dir(experiment.join(table)).unwrap().next().unwrap().unwrap().path();
        let bytes = fs::read(&victim).unwrap();
        fs::write(&victim, &bytes[..bytes.len() / 2]).unwrap();
        let name = victim.file_name().unwrap().to_string_lossy().into_owned();

        let status = text(&blox(&["status", "out/small"], dir.path()).stdout);
        assert!(status.contains("7 done, 0 missing, 0 failed, 0 running in another process, 1 damaged"), "{status}");
        assert!(status.contains(&name) && status.contains("truncated or replaced"), "{table}: {status}");

        let export = blox(&["export", "out/small", "--to", "csv"], dir.path());
        assert!(export.status.success(), "{table}: {}", text(&export.stderr));
        assert!(text(&export.stderr).contains("is left out"), "{}", text(&export.stderr));
        let runs_csv = fs::read_to_string(experiment.join("export/runs.csv")).unwrap();
        assert_eq!(runs_csv.lines().count(), 8, "header + the 7 sound runs");

        let out = blox(&["run", spec.to_str().unwrap(), "--out", "out"], dir.path());
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{stderr}");
        assert!(stderr.contains("damaged table") && stderr.contains(&name), "{table}: {stderr}");
        assert!(stdout.contains("1 executed, 7 already complete"), "{table}: {stdout}");
        let status = text(&blox(&["status", "out/small"], dir.path()).stdout);
        assert!(status.contains("8 done, 0 missing, 0 failed, 0 running in another process, 0 damaged"), "{status}");
    }
}

/// An input that cannot be hashed again after the sweep (here the external policy removes a
/// file it was given) is reported as such, and only the runs that read it are set aside; before,
/// every run of the sweep was set aside as "changed".
#[test]
fn an_input_that_cannot_be_read_again_sets_aside_only_its_own_runs() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "t.csv", "job_id,arrival_s,gpus,duration_s\n0,0,1,3600\n1,60,2,7200\n");
    write(dir.path(), "scratch.txt", "read once\n");
    write(
        dir.path(),
        "p.py",
        "import json, os, sys\nos.remove(sys.argv[1])\nsys.stdin.readline()\nprint(json.dumps({'blox_policy': 1}), flush=True)\nfor line in sys.stdin:\n    print(json.dumps({'order': [j[0] for j in json.loads(line)['jobs']]}), flush=True)\n",
    );
    let spec = write(
        dir.path(),
        "s.yaml",
        "name: t\npolicies:\n  - {label: FIFO, scheduler: fifo}\n  - {label: py, scheduler: {external: {command: [python3, p.py, scratch.txt]}}}\nclusters: [{nodes: 1, gpus_per_node: 2}]\nworkloads: [{csv: {path: t.csv}}]\nmeasure: {track: all}\n",
    );
    let out = blox(&["run", spec.to_str().unwrap(), "--out", "out", "-j", "1"], dir.path());
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("scratch.txt could not be read again after the run"), "{stderr}");
    assert!(!stderr.contains("changed while the run read it") && !stderr.contains("  FIFO_"), "{stderr}");
    let runs = results::read_runs(&dir.path().join("out/t")).unwrap();
    assert_eq!(runs.iter().map(|r| r.info.label.as_str()).collect::<Vec<_>>(), ["FIFO"]);
}

/// Files under `dir`, recursively, with their contents.
fn files_in(dir: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_in(&path));
        } else {
            found.push((path.display().to_string(), fs::read_to_string(&path).unwrap_or_default()));
        }
    }
    found
}

/// A symbolic link planted inside a results directory (a lock file, `.locks/`, `failed/`,
/// `jobs/`, `figures/`, `set-aside/`, `export/`) never takes a write (or a removal) out of it: the command
/// refuses it, says why, and the place it points to is left as it was. Before, a lock-file link
/// created a file wherever it pointed.
#[test]
fn no_write_follows_a_link_out_of_the_results_directory() {
    use std::os::unix::fs::symlink;
    let figures = "figures:\n  - metric-vs: {name: jct, y: avg_jct}\n";
    // `failed/` is planted with the lock-file link, whose run fails.
    let cases = [".locks/KEY.lock", ".locks", "jobs", "figures", "set-aside", "export"];
    for case in cases {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        fs::create_dir(&outside).unwrap();
        fs::write(outside.join("jct.png"), "precious").unwrap();
        let spec = write(dir.path(), "s.yaml", &(SMALL.to_string() + figures));
        let spec = spec.to_str().unwrap();
        let experiment = dir.path().join("out/small");
        fs::create_dir_all(&experiment).unwrap();
        let run = || blox(&["run", spec, "--out", "out"], dir.path());
        let out = match case {
            ".locks/KEY.lock" => {
                let dry = text(&blox(&["run", spec, "--out", "out", "--dry-run"], dir.path()).stdout);
                let key = dry.lines().next().unwrap().split_whitespace().nth(1).unwrap().to_owned();
                fs::create_dir(experiment.join(".locks")).unwrap();
                symlink(outside.join("victim"), experiment.join(format!(".locks/{key}.lock"))).unwrap();
                // The failed run's record must not go out through a link either.
                symlink(&outside, experiment.join("failed")).unwrap();
                run()
            }
            "set-aside" => {
                assert!(run().status.success());
                symlink(&outside, experiment.join(case)).unwrap();
                write(dir.path(), "s.yaml", &(SMALL.replace("[0.3, 0.6]", "[0.3, 0.7]") + figures));
                run()
            }
            "export" => {
                assert!(run().status.success());
                symlink(&outside, experiment.join(case)).unwrap();
                blox(&["export", "out/small", "--to", "csv"], dir.path())
            }
            _ => {
                symlink(&outside, experiment.join(case)).unwrap();
                run()
            }
        };
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{case}: {stderr}");
        assert!(stderr.contains("is a symbolic link; blox writes nothing through links"), "{case}: {stderr}");
        assert!(!stderr.contains("panicked"), "{case}: {stderr}");
        let expected = vec![(outside.join("jct.png").display().to_string(), "precious".to_string())];
        assert_eq!(files_in(&outside), expected, "{case}");
    }
}

/// Every command that prints ends quietly when its stdout is closed (`blox status DIR | head
/// -0`): no panic, no backtrace; five of them panicked.
#[test]
fn a_closed_stdout_ends_every_printing_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write(dir.path(), "s.yaml", &(SMALL.to_string() + "figures:\n  - metric-vs: {name: jct, y: avg_jct}\n"));
    let spec = spec.to_str().unwrap();
    assert!(blox(&["run", spec, "--out", "out"], dir.path()).status.success());
    let commands: [&[&str]; 14] = [
        &["run", spec, "--out", "out"],
        &["run", spec, "--out", "out", "-q"],
        &["run", spec, "--out", "out", "--dry-run"],
        &["status", "out/small"],
        &["plot", "out/small"],
        &["export", "out/small", "--to", "csv"],
        &["compare", "out/small", "out/small", "--out", "cmp"],
        &["validate", spec],
        &["list"],
        &["completions", "bash"],
        &["man"],
        &["data", "list"],
        &["trace", "formats"],
        &["k8s", spec, "--tasks", "2", "--image", "blox:latest"],
    ];
    for args in commands {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_blox"))
            .args(args)
            .current_dir(dir.path())
            .env("BLOX_DATA_DIR", dir.path().join("cache"))
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
}
