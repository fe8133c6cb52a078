//! External policies: a Python program speaking blox's protocol (docs/external-policy.md)
//! reproduces the built-in `las` on Blox's Figure 6 grid, and programs that crash, hang or answer
//! wrongly fail their own run with what went wrong while the sweep's other runs complete.
//!
//! Needs `python3` on the PATH, as the examples do.

mod common;

use blox::results;
use common::{blox, text};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Blox's Figure 6 spec with `policies` replaced by `policies` and no figures.
fn fig6_with(policies: &str) -> String {
    let spec = std::fs::read_to_string(repo().join("specs/paper/blox-fig6.yaml")).unwrap();
    let start = spec.find("policies:\n").unwrap();
    let end = spec.find("clusters:\n").unwrap();
    let figures = spec.find("figures:\n").unwrap();
    format!("{}{policies}\n{}", &spec[..start], &spec[end..figures]).replace("name: blox-fig6", "name: ext")
}

fn run(dir: &Path, spec: &str, extra: &[&str]) -> std::process::Output {
    std::fs::write(dir.join("s.yaml"), spec).unwrap();
    let mut args = vec!["run", "s.yaml", "--out", "out", "-q"];
    args.extend_from_slice(extra);
    blox(&args, dir)
}

#[test]
fn python_las_equals_the_built_in_las_on_figure_6() {
    let dir = tempfile::tempdir().unwrap();
    let las_py = repo().join("examples/python/las.py");
    let policies = format!(
        "policies:\n  - {{label: Tiresias, scheduler: las}}\n  - {{label: Tiresias-py, scheduler: {{external: {{command: [python3, {}]}}}}}}",
        las_py.display()
    );
    let out = run(dir.path(), &fig6_with(&policies), &[]);
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    let experiment = dir.path().join("out/ext");
    let runs = results::read_runs(&experiment).unwrap();
    assert_eq!(runs.len(), 18, "2 policies x 9 loads");
    let mut by_load: BTreeMap<u64, BTreeMap<String, &results::RunRow>> = BTreeMap::new();
    for run in &runs {
        by_load.entry(run.info.load.unwrap().to_bits()).or_default().insert(run.info.label.clone(), run);
    }
    for (_, pair) in by_load {
        let (built_in, python) = (pair["Tiresias"], pair["Tiresias-py"]);
        assert_eq!(built_in.summary, python.summary, "load {:?}", built_in.info.load);
        let jobs = |r: &results::RunRow| results::read_jobs(&experiment, &r.info.run_key).unwrap();
        assert_eq!(jobs(built_in), jobs(python), "load {:?}", built_in.info.load);
        assert_eq!(built_in.summary.tracked_finished, 1001);
    }
}

/// Each faulty program fails its run with the decision time and what was wrong; the good run of
/// the same sweep completes and is kept.
#[test]
fn protocol_faults_fail_their_run_with_what_was_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let greet = "import json,sys\nsys.stdin.readline()\nprint(json.dumps({'blox_policy': 1}), flush=True)\n";
    let programs = [
        ("crash", format!("{greet}sys.stdin.readline()\nprint('bad input', file=sys.stderr)\nsys.exit(3)\n")),
        ("hang", format!("{greet}import time\ntime.sleep(60)\n")),
        ("garbage", format!("{greet}for line in sys.stdin:\n    print('not json', flush=True)\n")),
        (
            "unknown",
            format!("{greet}for line in sys.stdin:\n    print(json.dumps({{'order': [123456789]}}), flush=True)\n"),
        ),
        ("partial", format!("{greet}for line in sys.stdin:\n    print(json.dumps({{'order': []}}), flush=True)\n")),
        ("version", "import sys\nsys.stdin.readline()\nprint('{\"blox_policy\": 7}', flush=True)\n".to_string()),
    ];
    let mut policies = String::from("policies:\n  - {label: good, scheduler: las}\n");
    for (name, code) in &programs {
        std::fs::write(dir.path().join(format!("{name}.py")), code).unwrap();
        policies += &format!(
            "  - {{label: {name}, scheduler: {{external: {{command: [python3, {name}.py], timeout_s: 2}}}}}}\n"
        );
    }
    let spec = fig6_with(&policies).replace("loads: [1, 2, 3, 4, 5, 6, 7, 8, 9]", "loads: [3]");
    let out = run(dir.path(), &spec, &["-j", "2"]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("7 runs: 1 executed, 0 already complete, 6 failed"), "{stdout}\n{stderr}");
    let failures = std::fs::read_dir(dir.path().join("out/ext/failed"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    for expected in [
        "the scheduler failed at the decision at t = 0 s: external policy `python3 crash.py` ended without answering a decision; it exited with exit status: 3; its stderr ends with:\n  bad input",
        "external policy `python3 hang.py` did not answer a decision within 2 s (`timeout_s`)",
        "external policy `python3 garbage.py` answered `not json`, which is not an order",
        "external policy `python3 unknown.py` named job 123456789, which is not active",
        "external policy `python3 partial.py` ordered 0 of the",
        "external policy `python3 version.py` speaks protocol version 7; this blox speaks 1",
    ] {
        assert!(failures.contains(expected), "expected `{expected}` in:\n{failures}");
    }
    let runs = results::read_runs(&dir.path().join("out/ext")).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].info.label, "good");
}

/// The program's script is an input: editing it gives the run a new key, so a rerun recomputes.
#[test]
fn editing_the_program_reruns_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(repo().join("examples/python/las.py"), dir.path().join("p.py")).unwrap();
    let spec = fig6_with("policies:\n  - {label: py, scheduler: {external: {command: [python3, p.py]}}}")
        .replace("loads: [1, 2, 3, 4, 5, 6, 7, 8, 9]", "loads: [2]");
    let first = run(dir.path(), &spec, &[]);
    assert!(text(&first.stdout).contains("1 executed, 0 already complete"), "{}", text(&first.stdout));
    let again = run(dir.path(), &spec, &[]);
    assert!(text(&again.stdout).contains("0 executed, 1 already complete"), "{}", text(&again.stdout));
    let mut script = std::fs::read_to_string(dir.path().join("p.py")).unwrap();
    script += "\n# edited\n";
    std::fs::write(dir.path().join("p.py"), script).unwrap();
    let edited = run(dir.path(), &spec, &[]);
    assert!(text(&edited.stdout).contains("1 executed, 0 already complete"), "{}", text(&edited.stdout));
}
