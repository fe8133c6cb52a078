//! Inputs an adversarial (or unlucky) user gives blox: each used to be accepted and fail later,
//! hang, abort, overwrite a file, garble the terminal or answer in a library's words. Each test
//! pins the fix: a bounded, positioned error in the spec's words, before any run starts.

use crate::common;

use common::{blox, text};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

const VALID: &str = "name: small
policies:
  - {label: FIFO, scheduler: fifo}
clusters: [{nodes: 2, gpus_per_node: 4}]
workloads: [{blox-philly-synthetic: {}}]
loads: [0.5]
seeds: [1]
measure: {track: {ids: [20, 60]}}
";

/// Runs `validate` then `run` on `yaml` and asserts both fail at once with exit 2, every part of
/// `expected` in the message and nothing written.
fn assert_spec_error(yaml: &str, expected: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.yaml"), yaml).unwrap();
    for args in [&["validate", "s.yaml"][..], &["run", "s.yaml", "--out", "out", "-q"]] {
        let started = Instant::now();
        let out = blox(args, dir.path());
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?} on\n{yaml}\n{stderr}{}", text(&out.stdout));
        for part in expected {
            assert!(stderr.contains(part), "{args:?}: expected `{part}` in:\n{stderr}");
        }
        assert!(!text(&out.stdout).contains("ok,"), "{}", text(&out.stdout));
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(started.elapsed() < Duration::from_secs(20), "{args:?} took {:?}", started.elapsed());
    }
    assert!(!dir.path().join("out/small/runs").exists(), "a run started");
}

#[test]
fn labels_that_make_bad_file_names_are_rejected() {
    assert_spec_error(&VALID.replace("label: FIFO", "label: '..'"), &["s.yaml:3:13:", "must not start with '.'"]);
    assert_spec_error(&VALID.replace("label: FIFO", "label: .hidden"), &["s.yaml:3:13:", "must not start with '.'"]);
    let long = "L".repeat(300);
    assert_spec_error(
        &VALID.replace("label: FIFO", &format!("label: {long}")),
        &["s.yaml:3:13:", "has 300 characters", "at most 64"],
    );
    assert_spec_error(
        &VALID.replace("{nodes: 2, gpus_per_node: 4}", "{nodes: 2, gpus_per_node: 4, label: .c}"),
        &["s.yaml:4:", "must not start with '.'"],
    );
    assert_spec_error(&VALID.replace("name: small", &format!("name: {long}")), &["s.yaml:1:7:", "1 to 100 characters"]);
}

/// `loads: [1e300]` simulated for 21 s and then failed writing a file named with 300 digits.
#[test]
fn loads_are_bounded() {
    for load in ["1e300", "1e-300", "100001"] {
        assert_spec_error(
            &VALID.replace("loads: [0.5]", &format!("loads: [0.5, {load}]")),
            &["s.yaml:6:", "a load must be from 0.001 to 100000 jobs per hour"],
        );
    }
    assert_spec_error(&VALID.replace("loads: [0.5]", "loads: [0]"), &["s.yaml:6:", "positive number of jobs per hour"]);
}

/// 10^12 GPUs aborted on allocation, and `total_gpus` wrapped in `u32` above 4.29e9.
#[test]
fn clusters_are_bounded_in_gpus() {
    assert_spec_error(
        &VALID.replace("{nodes: 2, gpus_per_node: 4}", "{nodes: 1000000, gpus_per_node: 1000000}"),
        &["s.yaml:4:", "1000000 nodes x 1000000 GPUs has 1000000000000 GPUs", "at most 1000000"],
    );
    assert_spec_error(
        &VALID.replace("{nodes: 2, gpus_per_node: 4}", "{nodes: 70000, gpus_per_node: 70000}"),
        &["has 4900000000 GPUs"],
    );
    assert_spec_error(
        &VALID.replace("nodes: 2,", "nodes: 5000000000,"),
        &["s.yaml:4:20:", "must be a whole number from 1 to 1000000, got 5000000000"],
    );
}

/// A window near 2^64 on an endless generator never finished.
#[test]
fn generator_windows_and_horizons_are_bounded() {
    assert_spec_error(
        &VALID.replace("[20, 60]", "[18446744073709551614, 18446744073709551615]"),
        &["s.yaml:8:18:", "generates every job up to the last tracked id", "below 1000000"],
    );
    assert_spec_error(
        &VALID.replace("{track: {ids: [20, 60]}}", "{track: all, horizon_h: 1000000}").replace("[0.5]", "[100]"),
        &["about 100000000 jobs", "at most 1000000"],
    );
    assert_spec_error(
        &VALID.replace("{track: {ids: [20, 60]}}", "{track: all, horizon_h: 1e300}"),
        &["s.yaml:8:", "horizon_h must be a number of hours above 0 and up to 1000000"],
    );
    assert_spec_error(
        &VALID.replace("{blox-philly-synthetic: {}}", "{elasticflow-generator: {num_jobs: 1000000000000, lam_s: 1}}"),
        &["num_jobs is 1000000000000", "at most 1000000"],
    );
}

/// `round_s: 1e-9` took a step per nanosecond of simulated time.
#[test]
fn rounds_and_slots_are_bounded() {
    for (engine, field) in [("{round_s: 1e-9}", "round_s"), ("{mode: events, slot_s: 0.001}", "slot_s")] {
        assert_spec_error(
            &VALID.replace("name: small", &format!("name: small\nengine: {engine}")),
            &["s.yaml:2:", &format!("{field} (seconds) must be a number from 1 to 604800")],
        );
    }
}

/// Long labels (each at its 64-character bound) still give run keys that fit a file name: the
/// readable part of a key is cut, its hash keeps it unique.
#[test]
fn long_labels_give_run_keys_that_fit_a_file_name() {
    let label = "w".repeat(64);
    let policy = "p".repeat(64);
    let cluster = "c".repeat(64);
    let yaml = VALID
        .replace("label: FIFO", &format!("label: {policy}"))
        .replace("gpus_per_node: 4}", &format!("gpus_per_node: 4, label: {cluster}}}"))
        .replace(
            "[{blox-philly-synthetic: {}}]",
            &format!("[{{elasticflow-generator: {{num_jobs: 10, lam_s: 1, label: {label}}}}}]"),
        )
        .replace("measure: {track: {ids: [20, 60]}}", "measure: {track: all}");
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("s.yaml");
    std::fs::write(&spec, yaml).unwrap();
    let source = blox::spec::SpecSource::read(&spec).unwrap();
    let spec = blox::spec::Spec::parse(&source).unwrap();
    for plan in blox::runner::plan(&source, &spec).unwrap() {
        let key = &plan.info.run_key;
        assert!(key.len() <= 140 && key.starts_with(&policy), "{key}");
    }
}

/// Library wording (`set DuplicateKeyPolicy in Options`, `use Option<String>`, `invalid i64`,
/// `budget breached: Nodes {..}`) is translated, with line and column kept.
#[test]
fn parser_messages_are_in_the_spec_s_words() {
    let internals = ["DuplicateKeyPolicy", "Options", "Option<String>", "i64", "u64", "budget breached", "Nodes {"];
    let cases: Vec<(String, Vec<&str>)> = vec![
        (VALID.replace("seeds: [1]", "seeds: [1]\nseeds: [2]"), vec!["s.yaml:8:1:", "key `seeds` is given twice"]),
        (
            VALID.replace("label: FIFO", "label: null"),
            vec!["s.yaml:3:13:", "expected a text value, found nothing (null)"],
        ),
        (VALID.replace("nodes: 2", "nodes: four"), vec!["s.yaml:4:20:", "whole number from 1 to 1000000, got `four`"]),
        (VALID.replace("seeds: [1]", "seeds: [one]"), vec!["s.yaml:7:", "expected a whole number >= 0, found `one`"]),
        (
            VALID.replace("seeds: [1]", &format!("seeds: [{}]", vec!["1"; 300_000].join(","))),
            vec!["s.yaml:", "too large or too complex for a spec"],
        ),
    ];
    for (yaml, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.yaml"), &yaml).unwrap();
        let out = blox(&["validate", "s.yaml"], dir.path());
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        for part in expected {
            assert!(stderr.contains(part), "expected `{part}` in:\n{stderr}");
        }
        for internal in internals {
            assert!(!stderr.contains(internal), "`{internal}` leaked into:\n{stderr}");
        }
    }
}

/// Control bytes from a spec, a trace or a dataset reference reach the terminal escaped.
#[test]
fn control_bytes_in_messages_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, content: &str| std::fs::write(dir.path().join(name), content).unwrap();
    let check = |out: &Output, visible: &str| {
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(!stderr.bytes().any(|b| b == 0x1b || b == b'\r'), "raw control bytes in {stderr:?}");
        assert!(stderr.contains(visible), "expected `{visible}` in {stderr:?}");
    };
    write("label.yaml", &VALID.replace("label: FIFO", "label: \"A\\e[2J\""));
    check(&blox(&["validate", "label.yaml"], dir.path()), "A\\u{1b}[2J");
    write("t.csv", "job_id,arrival_s,gpus,duration_s\n0,0,1\u{1b}[31m,60\n1,0,1,\r60\n");
    check(&blox(&["trace", "inspect", "t.csv"], dir.path()), "1\\u{1b}[31m");
    write(
        "ds.yaml",
        &VALID
            .replace("[{blox-philly-synthetic: {}}]", "[{trace: {dataset: \"nope\\e]0;title\\a/x.csv\"}}]")
            .replace("loads: [0.5]\n", "")
            .replace("{ids: [20, 60]}", "all"),
    );
    check(&blox(&["validate", "ds.yaml"], dir.path()), "unknown dataset `nope\\u{1b}]0;title\\u{7}`");
}

/// An unclosed quote swallowed every following row into one field: 1 job, "0 dropped".
#[test]
fn an_unclosed_quote_is_an_error_on_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("job_id,arrival_s,gpus,duration_s,model\n0,0,1,60,resnet50\n1,10,1,60,\"gpt2\n");
    for i in 2..50 {
        csv += &format!("{i},{},1,60,bert\n", i * 10);
    }
    std::fs::write(dir.path().join("t.csv"), csv).unwrap();
    let expected = "t.csv:3: column `model`: a quoted field starting `gpt2` runs over a line break (to line 51)";
    let out = blox(&["trace", "inspect", "t.csv"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains(expected), "{}", text(&out.stderr));
    std::fs::write(
        dir.path().join("s.yaml"),
        "name: q\npolicies: [{label: FIFO, scheduler: fifo}]\nclusters: [{nodes: 1, gpus_per_node: 1}]\nworkloads: [{csv: {path: t.csv}}]\nmeasure: {track: all}\n",
    )
    .unwrap();
    let out = blox(&["validate", "s.yaml"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains(expected), "{}", text(&out.stderr));
}

/// `trace convert` compared path strings: `./x.csv`, a symbolic and a hard link all passed and
/// the input was truncated while being read.
#[test]
fn trace_convert_never_overwrites_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let input = "job_id,arrival_s,gpus,duration_s\n0,0,1,60\n1,10,2,120\n";
    std::fs::write(dir.path().join("x.csv"), input).unwrap();
    std::fs::hard_link(dir.path().join("x.csv"), dir.path().join("hard.csv")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("x.csv", dir.path().join("soft.csv")).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let outputs = ["x.csv", "./x.csv", "sub/../x.csv", "hard.csv", "soft.csv"];
    for output in outputs {
        if !dir.path().join(output).exists() {
            continue;
        }
        let out = blox(&["trace", "convert", "x.csv", "--to", "csv", "-o", output], dir.path());
        assert_eq!(out.status.code(), Some(2), "-o {output}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains("would overwrite the input; name another with -o"), "{}", text(&out.stderr));
        assert_eq!(std::fs::read_to_string(dir.path().join("x.csv")).unwrap(), input, "-o {output}");
    }
    let out = blox(&["trace", "convert", "./x.csv", "--to", "csv", "-o", "y.csv"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::read_to_string(dir.path().join("y.csv")).unwrap().lines().count() == 3);
}

/// `trace inspect` takes dataset files as specs name them, fetched through the data layer.
#[test]
fn trace_inspect_accepts_dataset_names() {
    let dir = tempfile::tempdir().unwrap();
    let out = blox(&["trace", "inspect", "itp-raw/raw/cluster10.csv"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("itp format, 260 rows read"), "{stdout}");
    assert!(dir.path().join("cache/itp-raw/raw/cluster10.csv").is_file(), "fetched into the cache");
    // A name that is neither a file nor a dataset file is reported as a missing file; a dataset
    // with no such file lists its files.
    let out = blox(&["trace", "inspect", "nope/x.csv", "itp-raw/raw/nope.csv"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("nope/x.csv: cannot read the trace"), "{stderr}");
    assert!(
        stderr.contains("dataset `itp-raw/raw/nope.csv`: dataset `itp-raw` has no file `raw/nope.csv`"),
        "{stderr}"
    );
}

/// A mirror serving 400 MB for a 2,771-byte pinned file is read to one byte past the pin.
#[test]
fn an_oversized_mirror_file_is_not_downloaded() {
    let dir = tempfile::tempdir().unwrap();
    let mirror = dir.path().join("mirror");
    std::fs::create_dir_all(mirror.join("synergy")).unwrap();
    let big = std::fs::File::create(mirror.join("synergy/model_profiles.csv")).unwrap();
    big.set_len(400_000_000).unwrap();
    let cache = dir.path().join("cache");
    let options =
        blox::data::FetchOptions { cache_dir: cache.clone(), mirror: Some(mirror.display().to_string()), quiet: true };
    let err = blox::data::resolve("synergy/model_profiles.csv", &options).err().unwrap().to_string();
    assert!(err.contains("larger than its pinned size of 2771 bytes; stopped reading there"), "{err}");
    let left: Vec<PathBuf> = walk(&cache);
    assert!(left.is_empty(), "left in the cache: {left:?}");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries.flatten().flat_map(|e| if e.path().is_dir() { walk(&e.path()) } else { vec![e.path()] }).collect()
}

/// A trace with one job of `duration` seconds arriving at `arrival`, as a `csv:` workload spec.
fn trace_spec(dir: &Path, arrival: &str, duration: &str, engine: &str) -> String {
    let csv = format!("job_id,arrival_s,gpus,duration_s\n0,0,1,60\n1,{arrival},1,{duration}\n");
    std::fs::write(dir.join("t.csv"), csv).unwrap();
    format!(
        "name: small\n{engine}policies: [{{label: FIFO, scheduler: fifo}}]\nclusters: [{{nodes: 1, gpus_per_node: 1}}]\nworkloads: [{{csv: {{path: t.csv}}}}]\nmeasure: {{track: all}}\n"
    )
}

/// Runs `validate` then `run` on `yaml` in `dir` (its inputs already there) and asserts both fail
/// with exit 2 and every part of `expected`, and that no run started.
fn assert_rejected_in(dir: &Path, yaml: &str, expected: &[&str]) {
    std::fs::write(dir.join("s.yaml"), yaml).unwrap();
    for args in [&["validate", "s.yaml"][..], &["run", "s.yaml", "--out", "rejected", "-q"]] {
        let out = blox(args, dir);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}{}", text(&out.stdout));
        for part in expected {
            assert!(stderr.contains(part), "{args:?}: expected `{part}` in:\n{stderr}");
        }
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    assert!(!dir.join("rejected/small/runs").exists(), "a run started");
}

/// Durations of 1e308 s and arrivals of 1e15 s passed validation and failed after ten million
/// rounds; the round engine's reach (its rounds times `round_s`) bounds tracked jobs too.
#[test]
fn arrivals_and_durations_are_bounded_before_any_run() {
    let dir = tempfile::tempdir().unwrap();
    let limit = "blox simulates times up to 3600000000 s (1000000 h, the largest `horizon_h`)";
    let yaml = trace_spec(dir.path(), "10", "1e308", "");
    assert_rejected_in(dir.path(), &yaml, &["s.yaml:4:13:", "job 1 (`1` in t.csv) runs for 1e308 s", limit]);
    let yaml = trace_spec(dir.path(), "1e15", "60", "");
    assert_rejected_in(dir.path(), &yaml, &["job 1 (`1` in t.csv) arrives at 1e15 s", limit]);
    // One-second rounds reach 10^7 s: a job arriving later is never reached.
    let yaml = trace_spec(dir.path(), "2e7", "60", "engine: {round_s: 1}\n");
    assert_rejected_in(
        dir.path(),
        &yaml,
        &[
            "tracked job 1",
            "arrives at 20000000 s, after the last round",
            "at most 10000000 rounds of `engine.round_s` (1 s), 10000000 s in all",
        ],
    );
    // With a horizon the run stops there: the same job is fine, as is a plain long trace.
    std::fs::write(dir.path().join("s.yaml"), yaml.replace("{track: all}", "{track: all, horizon_h: 100}")).unwrap();
    let out = blox(&["validate", "s.yaml"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::write(dir.path().join("s.yaml"), trace_spec(dir.path(), "2e9", "1e6", "")).unwrap();
    let out = blox(&["validate", "s.yaml"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// A grid of 10^6 points took 1.8 GB just to validate: its size is checked from the axes first.
#[test]
fn grids_are_capped_before_they_are_expanded() {
    let loads: Vec<String> = (1..=500).map(|l| format!("{}", f64::from(l) / 100.0)).collect();
    let seeds: Vec<String> = (1..=400).map(|s| s.to_string()).collect();
    let yaml = VALID
        .replace("loads: [0.5]", &format!("loads: [{}]", loads.join(", ")))
        .replace("seeds: [1]", &format!("seeds: [{}]", seeds.join(", ")));
    assert_spec_error(
        &yaml,
        &[
            "s.yaml:1:7:",
            "the grid has 200000 runs (1 policy x 1 cluster x 500 workload-load points x 400 seeds)",
            "at most 100000 runs",
        ],
    );
}

/// `seeds: [1, 1]` was blamed on the policies' labels (two runs shared a key).
#[test]
fn repeated_seeds_and_loads_are_named_as_such() {
    assert_spec_error(
        &VALID.replace("seeds: [1]", "seeds: [1, 2, 1]"),
        &["s.yaml:7:", "seed 1 is given twice in `seeds` (entries 1 and 3)"],
    );
    assert_spec_error(
        &VALID.replace("loads: [0.5]", "loads: [0.5, 1, 0.50]"),
        &["s.yaml:6:", "load 0.5 is given twice in `loads` (entries 1 and 3)"],
    );
    for yaml in [VALID.replace("seeds: [1]", "seeds: [1, 1]"), VALID.replace("loads: [0.5]", "loads: [2, 2]")] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.yaml"), yaml).unwrap();
        let stderr = text(&blox(&["validate", "s.yaml"], dir.path()).stderr);
        assert!(!stderr.contains("label"), "blamed on labels: {stderr}");
    }
}

/// A Muri trace (job id, GPUs, submit ms, iterations, model, batch, duration ms, interval,
/// iteration ms, stage ms x 3, priority) of `jobs` rows `(gpus, submit_ms)`.
fn muri_trace(dir: &Path, jobs: &[(u32, u64)]) {
    let mut csv = String::from(
        "job_id,num_gpu,submit_time,iterations,model_name,batch_size,duration,interval,iteration_time,resource_time_0,resource_time_1,resource_time_2,priority\n",
    );
    for (i, (gpus, submit)) in jobs.iter().enumerate() {
        csv += &format!("{i},{gpus},{submit},1000,resnet18,64,600000,0,600,100,450,50,0\n");
    }
    std::fs::write(dir.join("t.csv"), csv).unwrap();
}

const MURI: &str = "name: small
engine: {mode: events}
policies: [{label: SRTF, scheduler: muri-srtf}]
clusters: [{nodes: 1, gpus_per_node: 8, cpus_per_node: 30}]
workloads: [{trace: {path: t.csv}}]
measure: {track: all}
";

/// Muri's MS-YARN asks 2 CPUs for a 1-GPU job and 6 per GPU otherwise: on a node of 30 CPUs two
/// 4-GPU jobs (24 CPUs each) take turns, where blox used to run them side by side; a job no
/// node can give its CPUs is refused, as the original never runs it.
#[test]
fn muri_cpus_bind_where_the_nodes_give_them() {
    let dir = tempfile::tempdir().unwrap();
    muri_trace(dir.path(), &[(4, 0), (4, 0)]);
    std::fs::write(dir.path().join("s.yaml"), MURI).unwrap();
    let out = blox(&["run", "s.yaml", "--out", "out", "-q"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let runs = blox::results::read_runs(&dir.path().join("out/small")).unwrap();
    let jobs = blox::results::read_jobs(&dir.path().join("out/small"), &runs[0].info.run_key).unwrap();
    let (first, second) = (&jobs[0], &jobs[1]);
    assert_eq!(first.first_start, Some(0.0));
    assert_eq!(second.first_start, first.finish, "the second job waits for the first's CPUs");
    // Without CPUs per node both start at once, as on the paper's cluster.
    std::fs::write(dir.path().join("s.yaml"), MURI.replace(", cpus_per_node: 30", "")).unwrap();
    let out = blox(&["run", "s.yaml", "--out", "out2", "-q"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let runs = blox::results::read_runs(&dir.path().join("out2/small")).unwrap();
    let jobs = blox::results::read_jobs(&dir.path().join("out2/small"), &runs[0].info.run_key).unwrap();
    assert_eq!((jobs[0].first_start, jobs[1].first_start), (Some(0.0), Some(0.0)));

    muri_trace(dir.path(), &[(1, 0), (8, 0)]);
    assert_rejected_in(
        dir.path(),
        MURI,
        &[
            "policy `SRTF` cannot run job 1",
            "asks for 8 GPUs; MS-YARN (as Muri's simulator places it) asks 48 CPUs on the node that holds it, and a node has 30",
        ],
    );
    // Muri's Tiresias counts GPUs only: CPUs change nothing there.
    std::fs::write(dir.path().join("s.yaml"), MURI.replace("muri-srtf", "muri-tiresias")).unwrap();
    let out = blox(&["validate", "s.yaml"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// AntMan's placement crashes or overcommits in the original where CPUs or memory run short:
/// such clusters are refused for it, naming what it needs.
#[test]
fn antman_refuses_nodes_whose_cpus_or_memory_could_run_short() {
    let dir = tempfile::tempdir().unwrap();
    muri_trace(dir.path(), &[(1, 0)]);
    let antman = MURI.replace("{label: SRTF, scheduler: muri-srtf}", "{label: AntMan, scheduler: antman}");
    assert_rejected_in(
        dir.path(),
        &antman,
        &["s.yaml:4:", "antman on nodes of 30 CPUs", "give nodes at least 48 `cpus_per_node`"],
    );
    std::fs::write(
        dir.path().join("s.yaml"),
        antman.replace("cpus_per_node: 30", "cpus_per_node: 92, memory_gb_per_node: 520"),
    )
    .unwrap();
    let out = blox(&["validate", "s.yaml"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// Pods over time need times in their list, and exclude the paper's tuning; a pod deleted before
/// it was created is named with its line; every one is refused before a run starts.
#[test]
fn pods_over_time_need_consistent_times_and_no_tuning() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("nodes.csv"), "sn,cpu_milli,memory_mib,gpu,model\nn0,8000,8192,2,T4\n").unwrap();
    let header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time,scheduled_time\n";
    std::fs::write(
        dir.path().join("untimed.csv"),
        format!("{header}p0,1000,1024,1,500,0,10,0\np1,1000,1024,1,500,,,\n"),
    )
    .unwrap();
    std::fs::write(dir.path().join("backwards.csv"), format!("{header}p0,1000,1024,1,500,50,10,\n")).unwrap();
    let spec = |pods: &str| {
        format!(
            "name: small\nengine: {{mode: placements}}\npolicies: [{{label: FGD, scheduler: fgd}}]\n\
             clusters: [{{node_list: {{path: nodes.csv}}}}]\nworkloads: [{{pod-list: {{path: {pods}}}}}]\n\
             measure: {{track: all}}\n"
        )
    };
    let untimed = spec("untimed.csv, over_time: true");
    assert_rejected_in(dir.path(), &untimed, &["s.yaml:5", "pod `p1`", "no creation and deletion time"]);
    assert_rejected_in(
        dir.path(),
        &spec("backwards.csv, over_time: true"),
        &["backwards.csv:2", "before its creation"],
    );
    let both = spec("untimed.csv, over_time: true, tune_ratio: 1.3");
    assert_rejected_in(dir.path(), &both, &["s.yaml:5", "exclude each other"]);
    assert_rejected_in(dir.path(), &spec("untimed.csv"), &["`tune_ratio` is required"]);
    let speedup = spec("untimed.csv, tune_ratio: 1.3, arrival_speedup: 4");
    assert_rejected_in(dir.path(), &speedup, &["`arrival_speedup` speeds up pods that come and go"]);
    let untimed_horizon = spec("untimed.csv, tune_ratio: 1.3").replace("{track: all}", "{track: all, horizon_h: 5}");
    assert_rejected_in(dir.path(), &untimed_horizon, &["s.yaml:5", "`measure.horizon_h` ends runs over time"]);
    let thinned = "name: small\npolicies: [{label: A, scheduler: fifo}]\nclusters: [{nodes: 2, gpus_per_node: 4, every_nth_node: 2}]\nworkloads: [{blox-philly-synthetic: {}}]\nloads: [1]\nmeasure: {track: {ids: [0, 1]}}\n";
    assert_rejected_in(dir.path(), thinned, &["`every_nth_node` thins a `node_list` cluster"]);
}
