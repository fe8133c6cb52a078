//! The `blox` binary as a user runs it: exit codes, messages, outputs, skipping and determinism.

use blox::results;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn blox(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_blox")).args(args).current_dir(cwd).output().expect("blox runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn write_spec(dir: &Path, name: &str, yaml: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, yaml).unwrap();
    path
}

const VALID: &str = "name: small
policies:
  - {label: FIFO, scheduler: fifo}
  - {label: LAS, scheduler: las}
clusters: [{nodes: 2, gpus_per_node: 4}]
workloads: [{blox-philly-synthetic: {}}]
loads: [0.3, 0.6]
seeds: [1, 2]
measure: {track: {ids: [20, 60]}}
";

#[test]
fn list_names_every_registered_policy_and_workload() {
    let out = blox(&["list"], &repo());
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    for name in [
        "fifo",
        "las",
        "srtf",
        "optimus-oracle",
        "scattered",
        "consolidated",
        "accept-all",
        "load-based",
        "fixed",
        "blox-philly-synthetic",
        "blox-bursty",
        "csv",
    ] {
        assert!(stdout.contains(name), "`blox list` lacks {name}:\n{stdout}");
    }
}

#[test]
fn help_shows_examples() {
    let out = blox(&["run", "--help"], &repo());
    assert!(out.status.success());
    assert!(text(&out.stdout).contains("blox run specs/paper/blox-fig6.yaml"));
}

#[test]
fn validate_prints_the_grid_size() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(dir.path(), "s.yaml", VALID);
    let out = blox(&["validate", spec.to_str().unwrap()], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("8 runs"), "{}", text(&out.stdout));
    let paper = blox(&["validate", "specs/paper/blox-fig6.yaml"], &repo());
    assert!(text(&paper.stdout).contains("27 runs"), "{}", text(&paper.stdout));
}

#[test]
fn bad_specs_give_file_line_column_and_the_valid_choices() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            VALID.replace("scheduler: las", "scheduler: sjf"),
            "s.yaml:4:",
            "expected one of fifo, las, srtf, optimus-oracle",
        ),
        (VALID.replace("gpus_per_node", "gpus_per_nod"), "s.yaml:5:", "unknown field `gpus_per_nod`"),
        (VALID.replace("nodes: 2", "nodes: 0"), "s.yaml:5:", "from 1 to"),
        (VALID.replace("[0.3, 0.6]", "[0.3, high]"), "s.yaml:7:", ""),
        (VALID.replace("[0.3, 0.6]", "[0.3, -1]"), "s.yaml:7:", "positive"),
        (VALID.replace("label: LAS", "label: FIFO"), "s.yaml:4:", "used twice"),
        (VALID.replace("[20, 60]", "[60, 20]"), "s.yaml:9:", "after the last"),
        (VALID.replace("loads: [0.3, 0.6]\n", ""), "s.yaml:6:", "add `loads"),
        (VALID.replace("{ids: [20, 60]}", "all"), "s.yaml:9:", "never stops"),
        (
            VALID.replace("scheduler: las}", "scheduler: las, admission: {load-based: {threshold: 0}}}"),
            "s.yaml:4:",
            "positive",
        ),
        (
            VALID.replace(
                "policies:\n  - {label: FIFO, scheduler: fifo}\n  - {label: LAS, scheduler: las}",
                "policies: []",
            ),
            "s.yaml:2:",
            "empty",
        ),
        (VALID.replace("name: small", "name: ../escape"), "s.yaml:1:", "letters, digits"),
        (VALID.replace("scheduler: las", "scheduler: edf"), "s.yaml:4:", "runs on the events engine"),
        (
            VALID.replace("name: small", "name: small\nengine: {mode: events}"),
            "s.yaml:4:",
            "scheduler `fifo` runs on the rounds engine",
        ),
        (
            VALID.replace("name: small", "name: small\nengine: {mode: events}").replace(
                "policies:\n  - {label: FIFO, scheduler: fifo}\n  - {label: LAS, scheduler: las}",
                "policies:\n  - {label: EDF, scheduler: edf}",
            ),
            "s.yaml:9:",
            "use `track: all`",
        ),
        (
            VALID.replace("gpus_per_node: 4}", "gpus_per_node: 4, gpu: H100}"),
            "s.yaml:5:",
            "GPU type `H100` is not a name",
        ),
        ("name: [".to_string(), "s.yaml:1:", ""),
        (String::new(), "s.yaml", ""),
    ];
    for (yaml, location, message) in cases {
        let spec = write_spec(dir.path(), "s.yaml", &yaml);
        for command in ["validate", "run"] {
            let out = blox(
                &[command, spec.to_str().unwrap(), "--out", "out"].as_slice()[..if command == "run" { 4 } else { 2 }],
                dir.path(),
            );
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command} {yaml}\n{stderr}");
            assert!(
                stderr.contains(location) && stderr.contains(message),
                "{command}: expected `{location}` and `{message}` in:\n{stderr}"
            );
            assert!(!stderr.contains("panicked"), "{stderr}");
        }
    }
    let missing = blox(&["run", "nope.yaml"], dir.path());
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("nope.yaml: cannot read the spec"));
}

#[test]
fn run_writes_tables_skips_finished_runs_and_force_redoes_them() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(dir.path(), "s.yaml", VALID);
    let first = blox(&["run", spec.to_str().unwrap(), "--out", "out"], dir.path());
    assert!(first.status.success(), "{}", text(&first.stderr));
    let stdout = text(&first.stdout);
    assert!(stdout.contains("8 runs: 8 executed, 0 already complete, 0 failed"), "{stdout}");
    assert!(stdout.contains("avg JCT h") && stdout.contains("out/small"), "{stdout}");
    let experiment = dir.path().join("out/small");
    for table in ["runs", "jobs", "timeline"] {
        let files = std::fs::read_dir(experiment.join(table)).unwrap().count();
        assert_eq!(files, 8, "{table}");
    }
    assert_eq!(std::fs::read_to_string(experiment.join("spec.yaml")).unwrap(), VALID);

    let again = blox(&["run", spec.to_str().unwrap(), "--out", "out", "--quiet"], dir.path());
    assert!(text(&again.stdout).contains("8 runs: 0 executed, 8 already complete"), "{}", text(&again.stdout));
    assert!(text(&again.stderr).is_empty(), "--quiet printed: {}", text(&again.stderr));

    // Growing the grid runs only the new points.
    let grown = write_spec(dir.path(), "s.yaml", &VALID.replace("[0.3, 0.6]", "[0.3, 0.6, 0.9]"));
    let third = blox(&["run", grown.to_str().unwrap(), "--out", "out", "-q"], dir.path());
    assert!(text(&third.stdout).contains("12 runs: 4 executed, 8 already complete"), "{}", text(&third.stdout));

    let forced = blox(&["run", grown.to_str().unwrap(), "--out", "out", "-q", "--force"], dir.path());
    assert!(text(&forced.stdout).contains("12 runs: 12 executed"), "{}", text(&forced.stdout));
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(dir.path(), "s.yaml", VALID);
    for (threads, out) in [("1", "one"), ("2", "two"), ("5", "five")] {
        let run = blox(&["run", spec.to_str().unwrap(), "--out", out, "-j", threads, "-q"], dir.path());
        assert!(run.status.success(), "{}", text(&run.stderr));
    }
    let read = |out: &str| {
        let experiment = dir.path().join(out).join("small");
        let runs = results::read_runs(&experiment).unwrap();
        runs.iter()
            .map(|r| {
                (
                    r.info.clone(),
                    r.summary.clone(),
                    results::read_jobs(&experiment, &r.info.run_key).unwrap(),
                    results::read_timeline(&experiment, &r.info.run_key).unwrap(),
                )
            })
            .collect::<Vec<_>>()
    };
    let one = read("one");
    assert_eq!(one.len(), 8);
    assert_eq!(one, read("two"));
    assert_eq!(one, read("five"));
}

#[test]
fn a_failing_run_is_reported_and_the_others_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("good.csv"), "job_id,arrival_s,gpus,duration_s\n0,0,1,600\n1,60,2,1200\n").unwrap();
    std::fs::write(dir.path().join("bad.csv"), "job_id,arrival_s,gpus,duration_s\n0,0,1,600\n1,60,zero,1200\n")
        .unwrap();
    let spec = write_spec(
        dir.path(),
        "s.yaml",
        "name: mixed
policies: [{label: FIFO, scheduler: fifo}]
clusters: [{nodes: 1, gpus_per_node: 2}]
workloads: [{csv: {path: good.csv}}, {csv: {path: bad.csv}}]
measure: {track: all}
",
    );
    let out = blox(&["run", spec.to_str().unwrap(), "--out", "out", "-q"], dir.path());
    // `run` reads every workload before its first run, as `validate` does (with or without -q):
    // the bad trace stops the sweep before anything runs.
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("bad.csv:3") && stderr.contains("gpus"), "{stderr}");
    assert!(!dir.path().join("out/mixed/runs").exists());
}

#[test]
fn the_embedded_default_spec_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = blox(&["run", "--out", "out", "-q"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("9 runs: 9 executed") && stdout.contains("out/default"), "{stdout}");
    assert!(stdout.contains("LAS") && stdout.contains("SRTF"), "{stdout}");
}

#[test]
fn the_example_csv_spec_runs() {
    let dir = tempfile::tempdir().unwrap();
    let spec = repo().join("specs/examples/csv-trace.yaml");
    let out = blox(&["run", spec.to_str().unwrap(), "--out", dir.path().to_str().unwrap(), "-q"], &repo());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let runs = results::read_runs(&dir.path().join("example-csv-trace")).unwrap();
    assert_eq!(runs.len(), 4);
    assert!(runs.iter().all(|r| r.summary.tracked_finished == 40 && r.summary.tracked_jobs == 40));
}

#[test]
fn zipped_clusters_and_workloads_pair_by_position() {
    let dir = tempfile::tempdir().unwrap();
    let zipped = "name: zipped
policies: [{label: FIFO, scheduler: fifo}]
clusters: [{nodes: 2, gpus_per_node: 4}, {nodes: 2, gpus_per_node: 4}]
workloads: [{blox-philly-synthetic: {}}, {blox-bursty: {}}]
zip_clusters_workloads: true
loads: [1]
measure: {track: {ids: [20, 60]}}
";
    let spec = write_spec(dir.path(), "zip.yaml", zipped);
    let out = blox(&["validate", spec.to_str().unwrap()], dir.path());
    assert!(text(&out.stdout).contains("2 runs"), "{}{}", text(&out.stdout), text(&out.stderr));
    // Repeating a cluster is how several traces share a size; outside a zip it is a mistake.
    let crossed = zipped.replace("zip_clusters_workloads: true\n", "");
    let spec = write_spec(dir.path(), "crossed.yaml", &crossed);
    let out = blox(&["validate", spec.to_str().unwrap()], dir.path());
    assert!(text(&out.stderr).contains("cluster label `2x4` is used twice"), "{}", text(&out.stderr));
    let uneven = zipped.replace(", {blox-bursty: {}}]", "]");
    let spec = write_spec(dir.path(), "uneven.yaml", &uneven);
    let out = blox(&["validate", spec.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("uneven.yaml:5:25: zip_clusters_workloads pairs clusters and workloads by position, but there are 2 clusters and 1 workloads"),
        "{}",
        text(&out.stderr)
    );
}
