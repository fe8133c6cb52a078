//! `blox trace inspect|convert|formats` and trace workloads in specs, as a user runs them, on the
//! real public traces (registry datasets, fetched through the data layer as a user does).

use crate::common;

use blox::results;
use blox::trace::{TraceFormat, read_trace};
use common::{dataset_file, mirror_with};
use std::path::Path;
use std::process::{Command, Output};

fn blox(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_blox")).args(args).current_dir(cwd).output().expect("blox runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn arg(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// Processed Philly: 82,247 jobs, 93.2 % 1-GPU, duration quantiles p10 61 / p50 1,144 / p90 11,265 /
/// p99 254,758 s, 2,613.5 h of arrivals (statistics computed from the public file, quantiles by
/// linear interpolation).
#[test]
fn inspect_prints_the_recorded_statistics_of_processed_philly() {
    let file = dataset_file("philly/pollux_philly.csv");
    let out = blox(&["trace", "inspect", arg(&file), "--gpus", "128"], Path::new("."));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("philly-csv format, 82,247 rows read, 82,247 jobs kept, 0 dropped"), "{stdout}");
    assert!(stdout.contains("1: 76,627 (93.2%)"), "{stdout}");
    assert!(stdout.contains("durations  p10 61 s, p50 1,144 s, p90 11,265 s, p99 254,758 s"), "{stdout}");
    assert!(stdout.contains("(2613.5 h), 31.47 jobs/h"), "{stdout}");
    assert!(stdout.contains("GPU-time   62.0% in jobs of 8 or more GPUs"), "{stdout}");
    assert!(stdout.contains("of 128 GPUs over the arrival span"), "{stdout}");

    let out = blox(&["trace", "inspect", arg(&file), "--json"], Path::new("."));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("inspect --json prints JSON");
    let stats = &json[0]["stats"];
    assert_eq!(stats["jobs"], 82_247);
    assert_eq!(stats["gpu_mix"]["1"], 76_627);
    assert_eq!(stats["duration_s"]["p50"], 1144.0);
    assert_eq!(json[0]["format"], "philly-csv");
}

#[test]
fn inspect_reports_every_file_and_fails_on_bad_ones() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "job_id,submission_time,duration,num_gpu\na,0,10,1\nb,5,ten,1\n").unwrap();
    let spec = dataset_file("elasticflow-artifact/artifact/cluster_specs/n16g8.csv");
    let good = dataset_file("itp-raw/raw/cluster10.csv");
    let out = blox(&["trace", "inspect", arg(&good), arg(&bad), arg(&spec)], Path::new("."));
    assert_eq!(out.status.code(), Some(2));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(stdout.contains("itp format, 260 rows read"), "{stdout}");
    assert!(stderr.contains("bad.csv:3: column `duration`: expected a number >= 0, found `ten`"), "{stderr}");
    assert!(stderr.contains("n16g8.csv: this is a cluster spec"), "{stderr}");

    let out = blox(&["trace", "inspect", arg(&good), "--format", "phily"], Path::new("."));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("unknown trace format `phily`; the formats are blox-csv,"),
        "{}",
        text(&out.stderr)
    );
    let out = blox(&["trace", "inspect", arg(&dir.path().join("missing.csv"))], Path::new("."));
    assert!(text(&out.stderr).contains("missing.csv: cannot read the trace"), "{}", text(&out.stderr));
}

#[test]
fn convert_writes_canonical_csv_and_parquet_that_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let source = dataset_file("muri/cluster_exp/cluster_trace.csv");
    let original = read_trace(&source, None).unwrap();
    let csv = dir.path().join("muri.csv");
    let out = blox(&["trace", "convert", arg(&source), "--to", "csv", "-o", arg(&csv)], Path::new("."));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("400 jobs (400 rows read, 0 dropped)"), "{}", text(&out.stderr));
    let back = read_trace(&csv, None).unwrap();
    assert_eq!(back.format, TraceFormat::Canonical);
    assert_eq!(back.jobs, original.jobs);

    let parquet = dir.path().join("muri.parquet");
    let out = blox(&["trace", "convert", arg(&source), "--to", "parquet", "-o", arg(&parquet)], Path::new("."));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let bytes = std::fs::read(&parquet).unwrap();
    assert_eq!(&bytes[..4], b"PAR1");

    let out = blox(&["trace", "convert", arg(&csv), "--to", "csv", "-o", arg(&csv)], Path::new("."));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("would overwrite the input"), "{}", text(&out.stderr));
}

#[test]
fn formats_lists_every_reader() {
    let out = blox(&["trace", "formats"], Path::new("."));
    let stdout = text(&out.stdout);
    for format in TraceFormat::ALL {
        assert!(stdout.contains(format.name()), "{} missing from\n{stdout}", format.name());
    }
}

/// A real trace in a spec: ITP cluster 10 (260 jobs), filtered and rescaled to the grid's loads.
#[test]
fn a_spec_runs_a_real_trace_with_transforms_at_each_load() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("itp.yaml");
    std::fs::write(
        &spec,
        format!(
            "name: itp10
policies: [{{label: FIFO, scheduler: fifo}}, {{label: LAS, scheduler: las}}]
clusters: [{{nodes: 4, gpus_per_node: 8}}]
workloads:
  - trace:
      path: {}
      transforms:
        - filter: {{min_duration_s: 1000}}
        - first: 200
        - rescale-arrivals: {{jobs_per_hour: load}}
loads: [1, 2]
measure: {{track: all}}
",
            dataset_file("itp-raw/raw/cluster10.csv").display()
        ),
    )
    .unwrap();
    let out = blox(&["run", arg(&spec), "--out", arg(dir.path()), "--quiet"], dir.path());
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    let runs = results::read_runs(&dir.path().join("itp10")).unwrap();
    assert_eq!(runs.len(), 4);
    for run in &runs {
        assert_eq!(run.info.workload, "trace-cluster10");
        assert_eq!(run.summary.jobs_finished, 200, "{run:?}");
    }
    let out = blox(&["validate", arg(&spec)], dir.path());
    let stdout = text(&out.stdout);
    assert!(stdout.contains("trace-cluster10: itp format, 260 rows read, 200 jobs kept"), "{stdout}");
    assert!(stdout.contains("filter: duration below 1000 s"), "{stdout}");
    assert!(stdout.contains("first: beyond the first 200 jobs"), "{stdout}");
}

/// A spec names a dataset file instead of a path: fetched into the cache (here an empty one, from
/// a directory mirror the test builds, as on an offline machine), verified, then run; `blox data
/// list` sees it cached.
#[test]
fn a_spec_runs_a_dataset_fetched_from_a_mirror() {
    let mirror = mirror_with(&["itp-raw/raw/cluster10.csv"]);
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let spec = dir.path().join("ds.yaml");
    std::fs::write(
        &spec,
        "name: ds
policies: [{label: FIFO, scheduler: fifo}]
clusters: [{nodes: 8, gpus_per_node: 8}]
workloads:
  - trace: {dataset: itp-raw/raw/cluster10.csv, transforms: [{first: 50}]}
measure: {track: all}
",
    )
    .unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_blox"))
            .args(args)
            .current_dir(dir.path())
            .env("BLOX_DATA_DIR", &cache)
            .env("BLOX_DATA_MIRROR", mirror.path())
            .output()
            .expect("blox runs")
    };
    let out = run(&["run", arg(&spec), "--out", arg(dir.path())]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("trace-cluster10: itp format, 260 rows read, 50 jobs kept"),
        "{}",
        text(&out.stderr)
    );
    assert!(cache.join("itp-raw/raw/cluster10.csv").is_file());
    let runs = results::read_runs(&dir.path().join("ds")).unwrap();
    assert_eq!(runs[0].summary.jobs_finished, 50);
    let listed = text(&run(&["data", "list"]).stdout);
    let itp_line = listed.lines().find(|l| l.trim_start().starts_with("itp-raw")).expect("itp-raw listed");
    assert!(itp_line.contains("  1 cached"), "{itp_line}");

    let bad = run(&["data", "fetch", "no-such-dataset"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("no-such-dataset"), "{}", text(&bad.stderr));
}

/// The shipped example: Philly by dataset name, windowed, filtered as Blox does, capped and
/// rescaled to each load; every kept job finishes in every run. Run from an empty cache and a
/// directory mirror the test builds.
#[test]
fn the_philly_example_spec_runs_from_a_mirror() {
    let mirror = mirror_with(&["philly/pollux_philly.csv"]);
    let dir = tempfile::tempdir().unwrap();
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/examples/philly-trace.yaml");
    let out = Command::new(env!("CARGO_BIN_EXE_blox"))
        .args(["run", arg(&spec), "--out", arg(dir.path())])
        .env("BLOX_DATA_DIR", dir.path().join("cache"))
        .env("BLOX_DATA_MIRROR", mirror.path())
        .output()
        .expect("blox runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("philly-csv format, 82247 rows read, 4548 jobs kept"), "{stderr}");
    assert!(stderr.contains("dropped 9635 (filter: duration below 1897.37 s)"), "{stderr}");
    let runs = results::read_runs(&dir.path().join("philly-trace")).unwrap();
    assert_eq!(runs.len(), 9);
    assert!(runs.iter().all(|r| r.summary.jobs_finished == 4548), "{runs:?}");
}
