//! External policies: a Python program speaking blox's protocol (docs/external-policy.md)
//! reproduces the built-in `las` on Blox's Figure 6 grid, and programs that crash, hang or answer
//! wrongly fail their own run with what went wrong while the sweep's other runs complete.
//!
//! Needs `python3` on the PATH, as the examples do.

use crate::common;

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

/// The external-program protocol decides exactly as the built-in policy, at the lowest, a middle
/// and the highest load of Figure 6 (the most queueing and preemption); the other six loads add
/// time, not paths (the Python package's tests run the whole grid in-process).
#[test]
fn python_las_equals_the_built_in_las_on_three_loads_of_figure_6() {
    let dir = tempfile::tempdir().unwrap();
    let las_py = repo().join("examples/python/las.py");
    let policies = format!(
        "policies:\n  - {{label: Tiresias, scheduler: las}}\n  - {{label: Tiresias-py, scheduler: {{external: {{command: [python3, {}]}}}}}}",
        las_py.display()
    );
    let out = run(dir.path(), &fig6_with(&policies), &["--only", "load=1,load=5,load=9"]);
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    let experiment = dir.path().join("out/ext");
    let runs = results::read_runs(&experiment).unwrap();
    assert_eq!(runs.len(), 6, "2 policies x 3 loads");
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
    // A timeout far above a loaded machine's Python start-up, so that only `hang` runs into it,
    // and at a decision rather than at the greeting.
    let mut policies = String::from("policies:\n  - {label: good, scheduler: las}\n");
    for (name, code) in &programs {
        std::fs::write(dir.path().join(format!("{name}.py")), code).unwrap();
        policies += &format!(
            "  - {{label: {name}, scheduler: {{external: {{command: [python3, {name}.py], timeout_s: 10}}}}}}\n"
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
        "external policy `python3 hang.py` did not answer a decision within 10 s (`timeout_s`)",
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

/// A Python preamble: reads the greeting and says hello.
const HELLO: &str =
    "import json, os, sys, time\nsys.stdin.readline()\nprint(json.dumps({'blox_policy': 1}), flush=True)\n";
/// Then answers every decision with the order it was given.
const ANSWER: &str =
    "for line in sys.stdin:\n    print(json.dumps({'order': [j[0] for j in json.loads(line)['jobs']]}), flush=True)\n";

/// A spec of `policies` on one 4-GPU node and `jobs` one-GPU jobs that all arrive at 0: the first
/// decision lists every job, so with thousands of them it does not fit a pipe's buffer.
fn spec_with(dir: &Path, policies: &str, jobs: usize) -> String {
    let mut csv = String::from("job_id,arrival_s,gpus,duration_s\n");
    for id in 0..jobs {
        csv += &format!("{id},0,1,60\n");
    }
    std::fs::write(dir.join("jobs.csv"), csv).unwrap();
    format!(
        "name: ext\npolicies:\n{policies}clusters: [{{nodes: 1, gpus_per_node: 4}}]\nworkloads: [{{csv: {{path: jobs.csv}}}}]\nmeasure: {{track: all}}\n"
    )
}

/// `blox args` in `dir`, killed (and the test failed) if it has not ended after a generous
/// limit: the cases below used to hang forever.
fn blox_guarded(args: &[&str], dir: &Path, signal_when: Option<(&Path, &str)>) -> std::process::Output {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let mut child = Command::new(env!("CARGO_BIN_EXE_blox"))
        .args(args)
        .current_dir(dir)
        .env("BLOX_DATA_DIR", dir.join("cache"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let give_up = Instant::now() + Duration::from_secs(180);
    let mut signal_when = signal_when;
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if let Some((file, signal)) = signal_when
            && file.exists()
        {
            // The program has started; give blox a moment to be inside its write.
            std::thread::sleep(Duration::from_millis(300));
            assert!(Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap().success());
            signal_when = None;
        }
        if Instant::now() > give_up {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("blox {args:?} hung; stderr so far:\n{}", text(&out.stderr));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether the process `pid` (named in `file`) is gone, waiting for it a little: killed
/// processes take a moment to leave.
fn ended(file: &Path) -> bool {
    let pid = std::fs::read_to_string(file).unwrap();
    let stat = PathBuf::from(format!("/proc/{}/stat", pid.trim()));
    for _ in 0..200 {
        match std::fs::read_to_string(&stat) {
            // A zombie has ended; its parent (init) has not reaped it yet.
            Ok(s) if s.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')) => return true,
            Ok(_) => std::thread::sleep(std::time::Duration::from_millis(50)),
            Err(_) => return true,
        }
    }
    false
}

fn failures(dir: &Path) -> String {
    std::fs::read_dir(dir.join("out/ext/failed"))
        .map(|entries| {
            entries.map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap()).collect::<Vec<_>>().join("\n")
        })
        .unwrap_or_default()
}

/// A program that answers the greeting and then never reads its input: the decision (10,000
/// jobs, more than a pipe holds) used to block blox in its write forever, past `timeout_s`,
/// `--run-timeout` and the first Ctrl-C. Each now ends the run, and the program with it.
#[test]
fn a_program_that_never_reads_is_ended_by_its_timeout_the_run_timeout_and_ctrl_c() {
    let stuck = format!("{HELLO}open('stuck.pid', 'w').write(str(os.getpid()))\ntime.sleep(600)\n");
    for (case, timeout_s, extra) in [("timeout_s", 2, vec![]), ("--run-timeout", 1000, vec!["--run-timeout", "3"])] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("stuck.py"), &stuck).unwrap();
        let policies = format!(
            "  - {{label: stuck, scheduler: {{external: {{command: [python3, stuck.py], timeout_s: {timeout_s}}}}}}}\n  - {{label: good, scheduler: fifo}}\n"
        );
        std::fs::write(dir.path().join("s.yaml"), spec_with(dir.path(), &policies, 10_000)).unwrap();
        let mut args = vec!["run", "s.yaml", "--out", "out", "-q", "-j", "2"];
        args.extend(extra);
        let out = blox_guarded(&args, dir.path(), None);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(1), "{case}: {stdout}\n{stderr}");
        assert!(stdout.contains("2 runs: 1 executed, 0 already complete, 1 failed"), "{case}: {stdout}\n{stderr}");
        let expected = match case {
            "timeout_s" => "external policy `python3 stuck.py` did not read a decision within 2 s (`timeout_s`)",
            _ => "exceeded --run-timeout 3s",
        };
        assert!(failures(dir.path()).contains(expected), "{case}: {}", failures(dir.path()));
        assert!(ended(&dir.path().join("stuck.pid")), "{case}: the program outlived its run");
    }

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("stuck.py"), &stuck).unwrap();
    let policies = "  - {label: stuck, scheduler: {external: {command: [python3, stuck.py], timeout_s: 1000}}}\n";
    std::fs::write(dir.path().join("s.yaml"), spec_with(dir.path(), policies, 10_000)).unwrap();
    let pid_file = dir.path().join("stuck.pid");
    let out = blox_guarded(&["run", "s.yaml", "--out", "out"], dir.path(), Some((&pid_file, "-INT")));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted: 0 runs complete, 1 left; rerun to resume"), "{stderr}");
    assert!(ended(&pid_file), "the program outlived the interrupted sweep");
}

/// Processes the program starts (here one that keeps its stdout open) end with its run; before,
/// they were orphaned and kept running.
#[test]
fn helpers_the_program_started_end_with_its_run() {
    let dir = tempfile::tempdir().unwrap();
    let program = format!(
        "{HELLO}import subprocess\nhelper = subprocess.Popen(['sleep', '300'])\nopen('helper.pid', 'w').write(str(helper.pid))\n{ANSWER}"
    );
    std::fs::write(dir.path().join("p.py"), program).unwrap();
    let policies = "  - {label: p, scheduler: {external: {command: [python3, p.py]}}}\n";
    std::fs::write(dir.path().join("s.yaml"), spec_with(dir.path(), policies, 20)).unwrap();
    let out = blox_guarded(&["run", "s.yaml", "--out", "out", "-q"], dir.path(), None);
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    assert!(ended(&dir.path().join("helper.pid")), "the helper outlived the run");
}

/// Lines are bounded: an answer longer than its bound fails its run without being held, a
/// stderr line is kept cut to 1,000 bytes, and a program that logs a lot, in any encoding, is
/// never blocked on its stderr (it was, after a line that is not UTF-8: blox stopped reading
/// it). The good run of the sweep completes.
#[test]
fn long_lines_and_heavy_logging_fail_or_slow_only_their_own_run() {
    let dir = tempfile::tempdir().unwrap();
    let programs = [
        ("long_stdout", format!("{HELLO}sys.stdin.readline()\nprint('x' * 3000000, flush=True)\ntime.sleep(60)\n")),
        (
            "long_stderr",
            format!("{HELLO}sys.stdin.readline()\nprint('y' * 5000000, file=sys.stderr, flush=True)\nsys.exit(4)\n"),
        ),
        (
            "noisy",
            format!(
                "{HELLO}sys.stderr.buffer.write(b'\\xff\\xfe not UTF-8\\n')\nfor line in sys.stdin:\n    sys.stderr.write('z' * 200000 + '\\n')\n    print(json.dumps({{'order': [j[0] for j in json.loads(line)['jobs']]}}), flush=True)\n"
            ),
        ),
    ];
    let mut policies = String::from("  - {label: good, scheduler: fifo}\n");
    for (name, code) in &programs {
        std::fs::write(dir.path().join(format!("{name}.py")), code).unwrap();
        policies += &format!(
            "  - {{label: {name}, scheduler: {{external: {{command: [python3, {name}.py], timeout_s: 10}}}}}}\n"
        );
    }
    std::fs::write(dir.path().join("s.yaml"), spec_with(dir.path(), &policies, 40)).unwrap();
    let out = blox_guarded(&["run", "s.yaml", "--out", "out", "-q", "-j", "2"], dir.path(), None);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(stdout.contains("4 runs: 2 executed, 0 already complete, 2 failed"), "{stdout}\n{stderr}");
    let failures = failures(dir.path());
    let bound = 1_048_576 + 24 * 40;
    assert!(
        failures.contains(&format!(
            "external policy `python3 long_stdout.py` answered a decision with a line longer than {bound} bytes"
        )),
        "{failures}"
    );
    assert!(failures.contains(&format!("its stderr ends with:\n  {} [cut]", "y".repeat(1000))), "{failures}");
    assert!(!failures.contains(&"y".repeat(1001)), "a stderr line is kept cut");
    let mut labels: Vec<String> =
        results::read_runs(&dir.path().join("out/ext")).unwrap().into_iter().map(|r| r.info.label).collect();
    labels.sort();
    assert_eq!(labels, ["good", "noisy"]);
}

/// A module the script imports is an input only when declared in `inputs`: `blox validate` says
/// what its keys hash, and editing a declared module reruns the runs.
#[test]
fn a_declared_module_is_an_input_and_validate_says_what_is_hashed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("helper.py"), "def order(jobs):\n    return [j[0] for j in jobs]\n").unwrap();
    let program = "import json, sys\nfrom helper import order\nsys.stdin.readline()\nprint(json.dumps({'blox_policy': 1}), flush=True)\nfor line in sys.stdin:\n    print(json.dumps({'order': order(json.loads(line)['jobs'])}), flush=True)\n";
    std::fs::write(dir.path().join("p.py"), program).unwrap();
    let undeclared = "  - {label: py, scheduler: {external: {command: [python3, p.py]}}}\n";
    std::fs::write(dir.path().join("s.yaml"), spec_with(dir.path(), undeclared, 20)).unwrap();
    let validate = blox(&["validate", "s.yaml"], dir.path());
    assert!(validate.status.success(), "{}", text(&validate.stderr));
    assert!(
        text(&validate.stdout).contains(
            "note: policy `py` runs a program of its own: run keys hash p.py; anything else the program reads (a module it imports, a data file) is not hashed unless listed in its `inputs:`"
        ),
        "{}",
        text(&validate.stdout)
    );

    let declared = "  - {label: py, scheduler: {external: {command: [python3, p.py], inputs: [helper.py]}}}\n";
    let spec = spec_with(dir.path(), declared, 20);
    let first = run(dir.path(), &spec, &[]);
    assert!(text(&first.stdout).contains("1 executed, 0 already complete"), "{}", text(&first.stderr));
    assert!(text(&blox(&["validate", "s.yaml"], dir.path()).stdout).contains("run keys hash p.py, helper.py;"));
    let again = run(dir.path(), &spec, &[]);
    assert!(text(&again.stdout).contains("0 executed, 1 already complete"), "{}", text(&again.stdout));
    std::fs::write(dir.path().join("helper.py"), "def order(jobs):\n    return [j[0] for j in jobs]  # edited\n")
        .unwrap();
    let edited = run(dir.path(), &spec, &[]);
    assert!(text(&edited.stdout).contains("1 executed, 0 already complete"), "{}", text(&edited.stdout));
}
