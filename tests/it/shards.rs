//! `blox run --shard K/N`: N shards on one results directory do every run of the grid exactly
//! once, with tables identical to an unsharded run, and the figures once the grid is whole.

use crate::common;

use blox::results::{self, RunRow};
use common::{blox, text};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

const SPEC: &str = "name: sharded
policies:
  - {label: FIFO, scheduler: fifo}
  - {label: LAS, scheduler: las}
  - {label: SRTF, scheduler: srtf}
clusters: [{nodes: 2, gpus_per_node: 4}]
workloads: [{blox-philly-synthetic: {}}]
loads: [0.3, 0.6]
seeds: [1, 2]
measure: {track: {ids: [20, 60]}}
figures:
  - metric-vs: {name: jct, y: avg_jct}
";

/// Everything a run wrote but its wall time and the build-dependent key, by grid point.
fn tables(experiment: &Path) -> BTreeMap<String, String> {
    let mut all = BTreeMap::new();
    for RunRow { info, summary, .. } in results::read_runs(experiment).unwrap() {
        let point = format!("{} {} {:?} {}", info.label, info.workload, info.load, info.seed);
        let jobs = results::read_jobs(experiment, &info.run_key).unwrap();
        let timeline = results::read_timeline(experiment, &info.run_key).unwrap();
        all.insert(point, format!("{summary:?} {jobs:?} {timeline:?}"));
    }
    all
}

#[test]
fn shards_do_every_run_once_and_match_an_unsharded_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.yaml"), SPEC).unwrap();
    let whole = blox(&["run", "s.yaml", "--out", "whole"], dir.path());
    assert!(whole.status.success(), "{}", text(&whole.stderr));

    let mut counts = Vec::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let out = blox(&["run", "s.yaml", "--out", "sharded", "--shard", &shard], dir.path());
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{shard}: {}", text(&out.stderr));
        let executed: usize = stdout
            .split(&format!("shard {shard}: "))
            .nth(1)
            .and_then(|rest| rest.split(" runs").next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{stdout}"));
        counts.push(executed);
        let figure = dir.path().join("sharded/sharded/figures/jct.png");
        // Only the shard that completes the grid draws the figure.
        assert_eq!(figure.exists(), k == 3, "{shard}: {}", text(&out.stderr));
    }
    assert_eq!(counts.iter().sum::<usize>(), 12, "{counts:?}");
    assert!(counts.iter().all(|&c| c == 4), "balanced: {counts:?}");
    assert_eq!(tables(&dir.path().join("sharded/sharded")), tables(&dir.path().join("whole/sharded")));
}

/// Shards started together, as array tasks are, share the directory without stepping on each
/// other: same union, no failure, no temporary left.
#[test]
fn concurrent_shards_share_one_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.yaml"), SPEC).unwrap();
    let children: Vec<_> = (0..4)
        .map(|index| {
            Command::new(env!("CARGO_BIN_EXE_blox"))
                .args(["run", "s.yaml", "--out", "out", "--shard", "auto", "-j", "1"])
                .env_remove("SLURM_ARRAY_TASK_ID")
                .env("JOB_COMPLETION_INDEX", index.to_string())
                .env("BLOX_SHARDS", "4")
                .current_dir(dir.path())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
        assert!(text(&out.stdout).contains("0 failed"), "{}", text(&out.stdout));
    }
    let status = text(&blox(&["status", "out/sharded"], dir.path()).stdout);
    assert!(status.contains("12 done, 0 missing, 0 failed"), "{status}");
    let unsharded = blox(&["run", "s.yaml", "--out", "whole"], dir.path());
    assert!(unsharded.status.success());
    assert_eq!(tables(&dir.path().join("out/sharded")), tables(&dir.path().join("whole/sharded")));
}

#[test]
fn bad_shards_are_errors_naming_what_to_give() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.yaml"), SPEC).unwrap();
    let out = blox(&["run", "s.yaml", "--shard", "4/3"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("1 <= K <= N"), "{}", text(&out.stderr));
    let out = Command::new(env!("CARGO_BIN_EXE_blox"))
        .args(["run", "s.yaml", "--shard", "auto"])
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("SLURM_ARRAY_TASK_ID"), "{}", text(&out.stderr));
}

/// `kill -9` at any moment, then a rerun: no finished run is lost or redone, nothing a reader
/// would take for a result is left behind, and the tables equal an uninterrupted run's.
#[test]
fn a_sweep_killed_at_any_moment_resumes_to_the_same_tables() {
    let dir = tempfile::tempdir().unwrap();
    let spec = SPEC.replace("seeds: [1, 2]", "seeds: [1, 2, 3, 4]").replace("[20, 60]", "[20, 400]");
    std::fs::write(dir.path().join("s.yaml"), &spec).unwrap();
    let whole = blox(&["run", "s.yaml", "--out", "whole"], dir.path());
    assert!(whole.status.success(), "{}", text(&whole.stderr));
    let expected = tables(&dir.path().join("whole/sharded"));
    for (i, delay_ms) in [20u64, 80, 200, 400, 800].into_iter().enumerate() {
        let out = format!("killed{i}");
        let mut child = Command::new(env!("CARGO_BIN_EXE_blox"))
            .args(["run", "s.yaml", "--out", &out, "-j", "2"])
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let experiment = dir.path().join(&out).join("sharded");
        let complete_before: Vec<String> = results::read_runs(&experiment)
            .map(|rows| rows.into_iter().map(|r| r.info.run_key).collect())
            .unwrap_or_default();
        let rerun = blox(&["run", "s.yaml", "--out", &out], dir.path());
        let stdout = text(&rerun.stdout);
        assert!(rerun.status.success(), "{delay_ms} ms: {stdout}\n{}", text(&rerun.stderr));
        let skipped = format!("{} already complete", complete_before.len());
        assert!(stdout.contains(&skipped), "{delay_ms} ms: runs complete before the kill were redone:\n{stdout}");
        assert_eq!(tables(&experiment), expected, "{delay_ms} ms");
        for table in ["runs", "jobs", "timeline"] {
            let names: Vec<String> = std::fs::read_dir(experiment.join(table))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert_eq!(names.len(), 24, "{delay_ms} ms, {table}: {names:?}");
            assert!(names.iter().all(|n| !n.starts_with('.')), "{delay_ms} ms, {table}: {names:?}");
        }
    }
}

/// The shard count a results directory's `grid.json` records for its sharded sweep.
fn recorded_shards(experiment: &Path) -> Option<u64> {
    let grid: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(experiment.join("grid.json")).unwrap()).unwrap();
    grid["sharded"]["shards"].as_u64()
}

/// Array tasks started with different N, or after the spec changed, each did their own partition
/// and left runs of the other's undone without a word (the changed spec's shard even set the
/// others' runs aside). A shard that disagrees with the unfinished sweep recorded in `grid.json`
/// is refused before it writes anything; once that sweep is finished a new one may start.
#[test]
fn shards_that_disagree_with_an_unfinished_sweep_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.yaml"), SPEC).unwrap();
    let experiment = dir.path().join("out/sharded");
    let run = |shard: &str| blox(&["run", "s.yaml", "--out", "out", "-q", "--shard", shard], dir.path());
    let out = run("1/3");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(recorded_shards(&experiment), Some(3));
    let done = results::read_runs(&experiment).unwrap().len();
    assert_eq!(done, 4);

    let out = run("2/4");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("holds an unfinished sweep of 3 shards (8 of its runs neither complete nor failed)"),
        "{stderr}"
    );
    assert!(stderr.contains("it has 3 shards, this shard 4") && stderr.contains("--shard K/3"), "{stderr}");

    std::fs::write(dir.path().join("s.yaml"), SPEC.replace("seeds: [1, 2]", "seeds: [1, 2, 3]")).unwrap();
    let stderr = text(&run("2/3").stderr);
    assert!(stderr.contains("the spec changed since it began"), "{stderr}");
    // Nothing of the sweep was touched: its grid, its spec copy, its runs.
    assert_eq!(recorded_shards(&experiment), Some(3));
    assert_eq!(std::fs::read_to_string(experiment.join("spec.yaml")).unwrap(), SPEC);
    assert_eq!(results::read_runs(&experiment).unwrap().len(), done);
    assert!(!experiment.join("set-aside").exists());

    std::fs::write(dir.path().join("s.yaml"), SPEC).unwrap();
    for shard in ["2/3", "3/3"] {
        assert!(run(shard).status.success());
    }
    assert_eq!(results::read_runs(&experiment).unwrap().len(), 12);
    // Finished: a new sweep (another spec, another count) starts.
    std::fs::write(dir.path().join("s.yaml"), SPEC.replace("seeds: [1, 2]", "seeds: [1, 2, 3]")).unwrap();
    let out = run("1/4");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(recorded_shards(&experiment), Some(4));
}
