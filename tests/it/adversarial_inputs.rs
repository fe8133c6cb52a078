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
