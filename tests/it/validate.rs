//! `blox validate` catches what `blox run` would hit, prints "ok" only after every check, and
//! counts the grid truthfully; the README's example spec validates and runs as written.
//!
//! Fixtures are written by each test; the README spec's dataset comes through `blox data` (the
//! mirror in `BLOX_DATA_MIRROR` when set, else its origin) into a temporary cache.

use crate::common;

use blox::results;
use common::{blox, text};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Asserts a failed `validate` (exit 2, the message in stderr) that printed no "ok".
fn assert_rejected(out: &Output, message: &str) {
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stderr.contains(message), "expected `{message}` in:\n{stderr}");
    assert!(!stdout.contains(": ok,"), "printed ok before an error:\n{stdout}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// The last line of `validate`'s stdout.
fn ok_line(out: &Output) -> String {
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    text(&out.stdout).lines().last().unwrap_or_default().to_string()
}

/// The 40-job plain CSV trace the guide's whole spec and these tests use.
fn example_csv(dir: &Path) {
    std::fs::create_dir_all(dir.join("traces")).unwrap();
    std::fs::copy(repo().join("traces/example.csv"), dir.join("traces/example.csv")).unwrap();
}

/// The first ```yaml block after `## A whole spec` in the guide's spec chapter.
fn guide_spec() -> String {
    let guide = std::fs::read_to_string(repo().join("docs/guide/spec.md")).unwrap();
    let section = &guide[guide.find("## A whole spec").expect("docs/guide/spec.md has `## A whole spec`")..];
    let start = section.find("```yaml\n").expect("a yaml block") + "```yaml\n".len();
    let end = start + section[start..].find("```").expect("the block ends");
    section[start..end].to_string()
}

#[test]
fn the_guide_spec_validates_and_runs_as_written() {
    let dir = tempfile::tempdir().unwrap();
    example_csv(dir.path());
    let spec = guide_spec();
    assert!(spec.contains("name: my-study") && spec.contains("csv: {path: traces/example.csv}"), "{spec}");
    std::fs::write(dir.path().join("my-study.yaml"), &spec).unwrap();

    let out = blox(&["validate", "my-study.yaml"], dir.path());
    let line = ok_line(&out);
    // FIFO, Tiresias and LAS 1.2x on the generator and the ITP trace at 3 loads, and on the CSV
    // trace once: 3 x (3 + 1 + 3).
    assert_eq!(
        line,
        "my-study.yaml: ok, 21 runs (3 policies x 1 cluster x 3 workloads x 1 seed; 3 loads for the 2 of 3 workloads that take a load)"
    );
    assert!(text(&out.stdout).contains("csv-example: blox-csv format, 40 rows read, 40 jobs kept"));

    let out = blox(&["run", "my-study.yaml", "--out", "out", "-q", "-j", "2"], dir.path());
    let stdout = text(&out.stdout);
    // Exit 0: every run and every figure, the load-axis figure over the load-free CSV trace too.
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("21 runs: 21 executed, 0 already complete, 0 failed"), "{stdout}\n{}", text(&out.stderr));
    let runs = results::read_runs(&dir.path().join("out/my-study")).unwrap();
    assert_eq!(runs.len(), 21);
    // The window [10, 39] measures 30 jobs of every workload, the CSV trace's last 30 included.
    assert!(runs.iter().all(|r| r.summary.tracked_jobs == 30 && r.summary.tracked_finished == 30), "{runs:?}");
}

const CSV_SPEC: &str = "name: window
policies: [{label: FIFO, scheduler: fifo}]
clusters: [{nodes: 4, gpus_per_node: 4}]
workloads: [{csv: {path: traces/example.csv}}]
measure: {track: {ids: [3000, 4000]}}
";

/// A window past a trace's last job used to run with null metrics; it is a validation error
/// naming the window and the job count, for `run` as well.
#[test]
fn a_tracking_window_past_the_last_job_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    example_csv(dir.path());
    std::fs::write(dir.path().join("s.yaml"), CSV_SPEC).unwrap();
    let message = "s.yaml:5:18: `track: {ids: [3000, 4000]}` selects no job of workload `csv-example`, which has 40 jobs (ids 0 to 39)";
    assert_rejected(&blox(&["validate", "s.yaml"], dir.path()), message);
    let run = blox(&["run", "s.yaml", "--out", "out", "-q"], dir.path());
    assert_rejected(&run, message);
    assert!(!dir.path().join("out/window/runs").exists(), "nothing ran");
    // A window that reaches into the trace is fine.
    std::fs::write(dir.path().join("s.yaml"), CSV_SPEC.replace("[3000, 4000]", "[39, 4000]")).unwrap();
    assert!(
        ok_line(&blox(&["validate", "s.yaml"], dir.path()))
            .ends_with("ok, 1 run (1 policy x 1 cluster x 1 workload x 1 seed)")
    );
    // A transform that leaves fewer jobs moves the end of the trace.
    let first = CSV_SPEC
        .replace(
            "[{csv: {path: traces/example.csv}}]",
            "[{trace: {path: traces/example.csv, transforms: [{first: 10}]}}]",
        )
        .replace("[3000, 4000]", "[10, 20]");
    std::fs::write(dir.path().join("s.yaml"), first).unwrap();
    assert_rejected(&blox(&["validate", "s.yaml"], dir.path()), "which has 10 jobs (ids 0 to 9)");
}

const EVENTS_SPEC: &str = "name: events
engine: {mode: events, slot_s: 240}
policies: [{label: EDF, scheduler: edf}]
clusters: [{nodes: 2, gpus_per_node: 8}]
workloads: [{trace: {path: t.csv}}]
measure: {track: all}
";

#[test]
fn events_mode_needs_iterations_models_and_curves() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.yaml"), EVENTS_SPEC).unwrap();
    // A plain CSV trace: durations, but no iterations or batch sizes.
    example_csv(dir.path());
    std::fs::write(dir.path().join("t.csv"), std::fs::read(dir.path().join("traces/example.csv")).unwrap()).unwrap();
    assert_rejected(
        &blox(&["validate", "s.yaml"], dir.path()),
        "s.yaml:5:13: workload `trace-t` at seed 1, cluster `2x8`: policy `EDF` cannot run job 0 (`0` in t.csv) on `gpu: a100` (elasticflow-a100.csv): ",
    );
    assert!(text(&blox(&["validate", "s.yaml"], dir.path()).stderr).contains("has no iteration count"));

    // An ElasticFlow trace with a model the original knows nothing of: it used to run as resnet50.
    let header = "job_id,submit_time,iteration,model_name,ddl,batch_size,num_gpu,duration,best_effort\n";
    std::fs::write(
        dir.path().join("t.csv"),
        format!("{header}0,0,7246,resnet50,5896,256,1,3930,0\n1,10,900,lstm,5896,64,2,600,0\n"),
    )
    .unwrap();
    let message = "job 1 (`1` in t.csv) on `gpu: a100` (elasticflow-a100.csv): model `lstm` is not one of ElasticFlow's models (vgg16, resnet50,";
    assert_rejected(&blox(&["validate", "s.yaml"], dir.path()), message);
    assert_rejected(&blox(&["run", "s.yaml", "--out", "out", "-q"], dir.path()), message);

    // Known models are fine on A100; on T4 the A100 models have no curve.
    std::fs::write(dir.path().join("t.csv"), format!("{header}0,0,7246,resnet50,5896,256,1,3930,0\n")).unwrap();
    assert!(ok_line(&blox(&["validate", "s.yaml"], dir.path())).contains("ok, 1 run"));
    std::fs::write(dir.path().join("s.yaml"), EVENTS_SPEC.replace("gpus_per_node: 8}", "gpus_per_node: 8, gpu: t4}"))
        .unwrap();
    assert_rejected(
        &blox(&["validate", "s.yaml"], dir.path()),
        "job 0 (`0` in t.csv) on `gpu: t4` (elasticflow-t4.csv): the throughput table `elasticflow-t4.csv` has no curve for resnet50 at global batch 256",
    );
}

/// Themis rates each job at the GPU count it asks for: a count the curve lacks failed the run.
#[test]
fn themis_needs_a_rate_at_each_job_s_own_gpu_count() {
    let dir = tempfile::tempdir().unwrap();
    let spec = EVENTS_SPEC
        .replace("{label: EDF, scheduler: edf}", "{label: EDF, scheduler: edf}, {label: Themis, scheduler: themis}");
    std::fs::write(dir.path().join("s.yaml"), &spec).unwrap();
    let header = "job_id,submit_time,iteration,model_name,ddl,batch_size,num_gpu,duration,best_effort\n";
    std::fs::write(
        dir.path().join("t.csv"),
        format!("{header}0,0,7246,resnet50,5896,256,1,3930,0\n1,10,900,gpt2,5896,128,3,600,0\n"),
    )
    .unwrap();
    let message = "policy `Themis` cannot run job 1 (`1` in t.csv) on `gpu: a100` (elasticflow-a100.csv): themis runs it at the 3 GPUs it asks for, and its throughput curve has no rate for gpt2 at global batch 128 on 3 GPUs";
    assert_rejected(&blox(&["validate", "s.yaml"], dir.path()), message);
    assert_rejected(&blox(&["run", "s.yaml", "--out", "out", "-q"], dir.path()), message);
    // Without Themis the elastic policies pick measured counts themselves.
    std::fs::write(dir.path().join("s.yaml"), EVENTS_SPEC).unwrap();
    assert!(ok_line(&blox(&["validate", "s.yaml"], dir.path())).contains("ok, 1 run"));
}

/// Whole-job policies run jobs without a throughput curve (a Muri trace: its own model names,
/// per-iteration times) at their own size; the elastic ones still refuse them, naming the job.
#[test]
fn whole_job_policies_run_jobs_without_curves() {
    let dir = tempfile::tempdir().unwrap();
    let header = "job_id,num_gpu,submit_time,iterations,model_name,batch_size,duration,interval,iteration_time,resource_time_0,resource_time_1,resource_time_2,priority\n";
    std::fs::write(
        dir.path().join("t.csv"),
        format!("{header}0,1,0,1000,resnet18,64,600000,0,600,100,450,0,0\n1,4,60000,2000,a2c,32,1200000,60000,600,300,200,50,1\n"),
    )
    .unwrap();
    let whole = EVENTS_SPEC.replace(
        "[{label: EDF, scheduler: edf}]",
        "[{label: T, scheduler: tiresias}, {label: Th, scheduler: themis}, {label: G, scheduler: gandiva}]",
    );
    std::fs::write(dir.path().join("s.yaml"), &whole).unwrap();
    assert!(ok_line(&blox(&["validate", "s.yaml"], dir.path())).contains("ok, 3 runs"));
    let run = blox(&["run", "s.yaml", "--out", "out", "-q"], dir.path());
    assert!(run.status.success(), "{}", text(&run.stderr));
    let runs = results::read_runs(&dir.path().join("out/events")).unwrap();
    assert_eq!(runs.len(), 3);
    assert!(runs.iter().all(|r| r.summary.tracked_jobs == 2 && r.summary.tracked_finished == 2), "{runs:?}");
    std::fs::write(dir.path().join("s.yaml"), EVENTS_SPEC).unwrap();
    let message = "policy `EDF` cannot run job 0 (`0` in t.csv) on `gpu: a100` (elasticflow-a100.csv): model `resnet18` is not one of ElasticFlow's models";
    assert_rejected(&blox(&["validate", "s.yaml"], dir.path()), message);
}

/// `elasticflow-generator` draws A100 models; on a T4 cluster every run would fail.
#[test]
fn events_mode_generator_on_a_t4_cluster_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let spec = EVENTS_SPEC
        .replace("gpus_per_node: 8}", "gpus_per_node: 8, gpu: t4}")
        .replace("{trace: {path: t.csv}}", "{elasticflow-generator: {num_jobs: 20, lam_s: 100}}");
    std::fs::write(dir.path().join("s.yaml"), &spec).unwrap();
    assert_rejected(
        &blox(&["validate", "s.yaml"], dir.path()),
        "workload `elasticflow-generator-20jobs-100lam` at seed 1, cluster `2x8`: policy `EDF` cannot run job 0 on `gpu: t4`",
    );
    std::fs::write(dir.path().join("s.yaml"), spec.replace(", gpu: t4", "")).unwrap();
    assert!(ok_line(&blox(&["validate", "s.yaml"], dir.path())).contains("ok, 1 run"));
}

/// A dataset that is neither cached nor available from the mirror fails validation before "ok".
#[test]
fn an_unfetchable_dataset_is_an_error_before_ok() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("empty-mirror")).unwrap();
    std::fs::write(
        dir.path().join("s.yaml"),
        "name: ds
policies: [{label: FIFO, scheduler: fifo}]
clusters: [{nodes: 8, gpus_per_node: 8}]
workloads: [{trace: {dataset: itp-raw/raw/cluster10.csv}}]
measure: {track: all}
",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_blox"))
        .args(["validate", "s.yaml"])
        .current_dir(dir.path())
        .env("BLOX_DATA_DIR", dir.path().join("cache"))
        .env("BLOX_DATA_MIRROR", dir.path().join("empty-mirror"))
        .output()
        .unwrap();
    assert_rejected(&out, "dataset `itp-raw/raw/cluster10.csv`: itp-raw/raw/cluster10.csv: the mirror has no");
}

/// The grid line counts the expanded grid: zipped pairs, workloads without loads, loads unused.
#[test]
fn the_grid_line_counts_zipped_and_load_free_grids() {
    let dir = tempfile::tempdir().unwrap();
    example_csv(dir.path());
    let write = |yaml: &str| std::fs::write(dir.path().join("s.yaml"), yaml).unwrap();
    let zipped = "name: zipped
policies: [{label: FIFO, scheduler: fifo}, {label: LAS, scheduler: las}]
clusters: [{nodes: 2, gpus_per_node: 4}, {nodes: 4, gpus_per_node: 4}]
workloads: [{blox-philly-synthetic: {}}, {csv: {path: traces/example.csv}}]
zip_clusters_workloads: true
loads: [1, 2, 3]
seeds: [1, 2]
measure: {track: {ids: [10, 30]}}
";
    write(zipped);
    // 2 policies x (3 loads + 1) x 2 seeds = 16, not 2 x 2 x 2 x 3 x 2 = 48.
    assert_eq!(
        ok_line(&blox(&["validate", "s.yaml"], dir.path())),
        "s.yaml: ok, 16 runs (2 policies x 2 cluster-workload pairs x 2 seeds; 3 loads for the 1 of 2 pairs that take a load)"
    );
    write(&zipped.replace("{blox-philly-synthetic: {}}, ", "").replace("{nodes: 2, gpus_per_node: 4}, ", ""));
    assert_eq!(
        ok_line(&blox(&["validate", "s.yaml"], dir.path())),
        "s.yaml: ok, 4 runs (2 policies x 1 cluster-workload pair x 2 seeds; no workload takes a load, so `loads` is unused)"
    );
}

/// A window reaching past a trace's end used to track fewer jobs without a word. It is a
/// warning with both numbers (the measurement is well defined and the same for every policy, and
/// one window may serve traces of several lengths), from `validate` and from `run`, quiet too.
#[test]
fn a_tracking_window_partly_past_the_last_job_is_a_warning_with_the_numbers() {
    let dir = tempfile::tempdir().unwrap();
    example_csv(dir.path());
    std::fs::write(dir.path().join("s.yaml"), CSV_SPEC.replace("[3000, 4000]", "[30, 99]")).unwrap();
    let warning = "warning: s.yaml:5:18: `track: {ids: [30, 99]}` reaches past the end of workload `csv-example`, \
                   which has 40 jobs (ids 0 to 39) at seed 1, cluster `4x4`: its runs track 10 jobs (ids 30 to 39), \
                   not the 70 the window names; end the window at 39 to say so";
    let out = blox(&["validate", "s.yaml"], dir.path());
    assert!(ok_line(&out).ends_with("ok, 1 run (1 policy x 1 cluster x 1 workload x 1 seed)"));
    assert!(text(&out.stderr).contains(warning), "{}", text(&out.stderr));
    let out = blox(&["run", "s.yaml", "--out", "out", "-q"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains(warning), "{}", text(&out.stderr));
    let runs = results::read_runs(&dir.path().join("out/window")).unwrap();
    assert_eq!((runs[0].summary.tracked_jobs, runs[0].summary.tracked_finished), (10, 10));
    // A window that ends within the trace says nothing.
    std::fs::write(dir.path().join("s.yaml"), CSV_SPEC.replace("[3000, 4000]", "[30, 39]")).unwrap();
    let out = blox(&["validate", "s.yaml"], dir.path());
    assert!(out.status.success() && !text(&out.stderr).contains("warning"), "{}", text(&out.stderr));
}

/// `measure` may be left out: every job is measured until the workload runs out. A generator
/// never runs out, so without a window it is an error at the generator, saying what to add.
#[test]
fn without_measure_every_job_counts_and_a_generator_needs_a_window() {
    let dir = tempfile::tempdir().unwrap();
    example_csv(dir.path());
    let trace_only = "name: all-jobs
policies: [{label: FIFO, scheduler: fifo}]
clusters: [{nodes: 4, gpus_per_node: 4}]
workloads: [{csv: {path: traces/example.csv}}]
";
    std::fs::write(dir.path().join("s.yaml"), trace_only).unwrap();
    let run = blox(&["run", "s.yaml", "--out", "out", "-q"], dir.path());
    assert!(run.status.success(), "{}", text(&run.stderr));
    let experiment = dir.path().join("out/all-jobs");
    let row = &results::read_runs(&experiment).unwrap()[0];
    let jobs = results::read_jobs(&experiment, &row.info.run_key).unwrap();
    assert_eq!(jobs.len(), 40, "every job of the trace is measured");
    assert!(jobs.iter().all(|job| job.finish.is_some()), "the run ends when the workload has run out");

    let generator = "name: endless
policies: [{label: FIFO, scheduler: fifo}]
clusters: [{nodes: 1, gpus_per_node: 4}]
workloads:
  - blox-philly-synthetic: {}
loads: [0.5]
";
    std::fs::write(dir.path().join("s.yaml"), generator).unwrap();
    assert_rejected(
        &blox(&["validate", "s.yaml"], dir.path()),
        "s.yaml:5:5: workload `blox-philly-synthetic` never stops generating jobs: measure an id window (`measure: {track: {ids: [first, last]}}`) or set `measure.horizon_h`",
    );
}

/// Jobs wider than the cluster were dropped at arrival with nothing said but a column of the runs
/// table: `validate` and `run` now warn, with the count and the widest request.
#[test]
fn jobs_wider_than_the_cluster_are_a_warning_with_their_count() {
    let dir = tempfile::tempdir().unwrap();
    example_csv(dir.path());
    let spec = CSV_SPEC
        .replace("{nodes: 4, gpus_per_node: 4}", "{nodes: 1, gpus_per_node: 4}")
        .replace("[3000, 4000]", "[0, 39]");
    std::fs::write(dir.path().join("s.yaml"), spec).unwrap();
    let warning = "warning: s.yaml:4:13: workload `csv-example` at seed 1, cluster `1x4`: 8 of its 40 jobs ask for more GPUs than the cluster has for them (up to 8, of 4); runs drop them at arrival as unschedulable";
    let out = blox(&["validate", "s.yaml"], dir.path());
    assert!(ok_line(&out).ends_with("ok, 1 run (1 policy x 1 cluster x 1 workload x 1 seed)"));
    assert!(text(&out.stderr).contains(warning), "{}", text(&out.stderr));
    let run = blox(&["run", "s.yaml", "--out", "out", "-q"], dir.path());
    assert!(run.status.success() && text(&run.stderr).contains(warning), "{}", text(&run.stderr));
    let row = &results::read_runs(&dir.path().join("out/window")).unwrap()[0];
    assert_eq!(row.summary.jobs_unschedulable, 8, "the runs table counts the same jobs");
    // On the 16-GPU cluster every job fits: no warning.
    std::fs::write(dir.path().join("s.yaml"), CSV_SPEC.replace("[3000, 4000]", "[0, 39]")).unwrap();
    let out = blox(&["validate", "s.yaml"], dir.path());
    assert!(!text(&out.stderr).contains("unschedulable"), "{}", text(&out.stderr));
}
