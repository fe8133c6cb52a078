//! blox as a library extended from another crate: `examples/custom-policy` registers a Rust
//! scheduler (`my-las`) and runs blox's own command line with it; its default options make the
//! built-in `las`'s decisions job for job, its option changes them, and bad options are spec
//! errors with a position. The registry itself is checked in this process: names clash with
//! built-ins, registration happens once, and a registered policy runs through the runner.

use crate::common;

use blox::core::{JobSlot, JobTable, PolicyError, Scheduler, SimTime};
use blox::plugin::{About, Registry, install};
use blox::policies::events::muri::srtf::ShortestFirst;
use blox::policies::rounds::admission::load_based::LoadBased;
use blox::policies::rounds::placement::consolidated::Consolidated;
use blox::results;
use blox::runner::{self, RunnerOptions, SweepControl};
use blox::spec::{Spec, SpecSource};
use common::text;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The example's binary, which `cargo test` builds with the other targets (built here when this
/// test runs alone).
fn example() -> PathBuf {
    let test = std::env::current_exe().unwrap();
    let profile_dir = test.parent().and_then(Path::parent).unwrap();
    let binary = profile_dir.join("examples").join(format!("custom-policy{}", std::env::consts::EXE_SUFFIX));
    if !binary.exists() {
        let mut build = Command::new(env!("CARGO"));
        build.args(["build", "--example", "custom-policy"]).current_dir(repo());
        if profile_dir.ends_with("release") {
            build.arg("--release");
        }
        assert!(build.status().unwrap().success(), "cargo build --example custom-policy");
    }
    binary
}

fn custom_blox(args: &[&str], cwd: &Path) -> Output {
    Command::new(example()).args(args).current_dir(cwd).env("BLOX_DATA_DIR", cwd.join("cache")).output().unwrap()
}

#[test]
fn a_rust_policy_registered_by_another_program_runs_like_a_built_in() {
    let dir = tempfile::tempdir().unwrap();
    let listed = custom_blox(&["list"], dir.path());
    assert!(text(&listed.stdout).contains("my-las "), "{}", text(&listed.stdout));
    assert!(text(&listed.stdout).contains("gpu_weighted: count attained service in GPU-seconds"));

    let spec = repo().join("examples/custom-policy/spec.yaml");
    let out = custom_blox(&["run", spec.to_str().unwrap(), "--out", "out", "-q"], dir.path());
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    let experiment = dir.path().join("out/custom-policy");
    let runs = results::read_runs(&experiment).unwrap();
    let run = |label: &str| runs.iter().find(|r| r.info.label == label).unwrap();
    let jobs = |label: &str| results::read_jobs(&experiment, &run(label).info.run_key).unwrap();
    assert_eq!(run("LAS").summary, run("my-las").summary);
    assert_eq!(jobs("LAS"), jobs("my-las"), "my-las with default options decides as las, job for job");
    assert_eq!(run("my-las").summary.tracked_finished, 992, "Muri's trace3");
    assert_ne!(jobs("LAS"), jobs("my-las GPU-weighted"), "GPU-weighted service reorders multi-GPU jobs");
    assert!(run("my-las GPU-weighted").info.policy_params.contains("gpu_weighted"));

    // Its options are checked like a built-in's: unknown or mistyped, an error at the position.
    let original = std::fs::read_to_string(&spec).unwrap();
    for (bad, said) in
        [("bogus: 1", "unknown option `bogus`"), ("gpu_weighted: 3", "expected true or false, found `3`")]
    {
        std::fs::write(dir.path().join("bad.yaml"), original.replace("gpu_weighted: true", bad)).unwrap();
        let out = custom_blox(&["validate", "bad.yaml"], dir.path());
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("bad.yaml:12:") && err.contains("scheduler `my-las`") && err.contains(said), "{err}");
    }
    // blox itself does not know it, and says which schedulers it knows.
    let out = common::blox(&["validate", spec.to_str().unwrap()], dir.path());
    assert!(text(&out.stderr).contains("unknown scheduler `my-las`"), "{}", text(&out.stderr));
}

/// Largest GPU demand first, ties by id: a rule no built-in has.
struct WidestFirst;

impl Scheduler for WidestFirst {
    fn order(&mut self, _now: SimTime, jobs: &JobTable, order: &mut [JobSlot]) -> Result<(), PolicyError> {
        order.sort_by_key(|&slot| (std::cmp::Reverse(jobs[slot].spec.gpus), jobs[slot].spec.id));
        Ok(())
    }
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct NoOptions {}

#[derive(Deserialize, Serialize)]
struct Undocumented {
    #[serde(default)]
    secret: u32,
}

#[test]
fn the_registry_is_checked_and_installed_once_per_process() {
    let clash = Registry::new().scheduler(About::new("las", "a second las"), |_: &NoOptions, _| Box::new(WidestFirst));
    let err = install(clash).unwrap_err();
    assert!(err.contains("scheduler `las`"), "{err}");

    // Built-in policies registered again under other names: each kind's registration must run
    // exactly as the built-in does.
    let registry = Registry::new()
        .scheduler(About::new("widest-first", "largest GPU demand first"), |_: &NoOptions, _| Box::new(WidestFirst))
        .scheduler(About::new("undocumented", "options not in About"), |_: &Undocumented, _| Box::new(WidestFirst))
        .placement(About::new("packed", "consolidated, registered"), |_: &NoOptions| Box::new(Consolidated::default()))
        .admission(About::new("gate", "load-based at 1.2, registered"), |_: &NoOptions| Box::new(LoadBased::new(1.2)))
        .event_scheduler(About::new("my-srtf", "muri-srtf, registered"), |_: &NoOptions| {
            Box::new(ShortestFirst::new(false))
        });
    install(registry).unwrap();
    assert!(install(Registry::new()).unwrap_err().contains("already registered"));

    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("job_id,arrival_s,gpus,duration_s\n");
    for id in 0..60u32 {
        csv += &format!("{id},{},{},{}\n", id * 200, 1 << (id % 4), 3000 + (id * 7919) % 20000);
    }
    std::fs::write(dir.path().join("jobs.csv"), csv).unwrap();
    let spec_text = "name: lib\nengine: {mode: rounds, round_s: 300}\npolicies:\n  - {label: FIFO, scheduler: fifo}\n  - {label: Widest, scheduler: widest-first}\nclusters:\n  - {nodes: 2, gpus_per_node: 8}\nworkloads:\n  - csv: {path: jobs.csv}\nseeds: [0]\nmeasure: {track: all}\n";
    let path = dir.path().join("lib.yaml");
    std::fs::write(&path, spec_text).unwrap();
    let source = SpecSource::read(&path).unwrap();
    let spec = Spec::parse(&source).unwrap();
    let options = RunnerOptions { out: dir.path().join("out"), threads: None, force: false, quiet: true };
    let report = runner::run_with(&source, &spec, &options, &SweepControl::default()).unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    let widest = report.rows.iter().find(|r| r.info.label == "Widest").unwrap();
    let fifo = report.rows.iter().find(|r| r.info.label == "FIFO").unwrap();
    assert_eq!(widest.summary.tracked_finished, 60);
    assert_ne!(widest.summary.avg_jct, fifo.summary.avg_jct, "a different order, different JCTs");

    // The registered placement, admission and event scheduler decide as the built-ins they wrap.
    let pairs = "policies:\n  - {label: built-in, scheduler: fifo, placement: consolidated, admission: {load-based: {threshold: 1.2}}}\n  - {label: registered, scheduler: fifo, placement: packed, admission: gate}\n";
    let rounds = spec_text
        .replace(&spec_text[spec_text.find("policies:").unwrap()..spec_text.find("clusters:").unwrap()], pairs);
    let events = pairs
        .replace(
            "scheduler: fifo, placement: consolidated, admission: {load-based: {threshold: 1.2}}",
            "scheduler: muri-srtf",
        )
        .replace("scheduler: fifo, placement: packed, admission: gate", "scheduler: my-srtf");
    let events = rounds
        .replace("{mode: rounds, round_s: 300}", "{mode: events}")
        .replace(&rounds[rounds.find("policies:").unwrap()..rounds.find("clusters:").unwrap()], &events)
        .replace("csv: {path: jobs.csv}", "trace: {path: muri.csv}");
    let mut muri = String::from(
        "job_id,num_gpu,submit_time,iterations,model_name,batch_size,duration,interval,iteration_time,resource_time_0,resource_time_1,resource_time_2,priority\n",
    );
    for id in 0..40u32 {
        let iterations = 1000 + (id * 7919) % 5000;
        muri += &format!(
            "{id},{},{},{iterations},resnet18,128,{},30000,60,5,40,10,0\n",
            1 << (id % 3),
            id * 30000,
            iterations * 60
        );
    }
    std::fs::write(dir.path().join("muri.csv"), muri).unwrap();
    for (name, text) in [("rounds", rounds), ("events", events)] {
        let path = dir.path().join(format!("{name}.yaml"));
        std::fs::write(&path, text.replace("name: lib", &format!("name: {name}"))).unwrap();
        let source = SpecSource::read(&path).unwrap();
        let spec = Spec::parse(&source).unwrap_or_else(|e| panic!("{name}: {e}"));
        let report = runner::run_with(&source, &spec, &options, &SweepControl::default()).unwrap();
        assert!(report.failures.is_empty(), "{name}: {:?}", report.failures);
        let row = |label: &str| report.rows.iter().find(|r| r.info.label == label).unwrap();
        let jobs = |label: &str| results::read_jobs(&report.experiment_dir, &row(label).info.run_key).unwrap();
        assert!(row("built-in").summary.tracked_finished > 0, "{name}");
        // Debug forms, so that a NaN metric (no responsiveness in events mode) compares equal.
        let summary = |label: &str| format!("{:?}", row(label).summary);
        assert_eq!(summary("built-in"), summary("registered"), "{name}");
        assert_eq!(jobs("built-in"), jobs("registered"), "{name}");
    }

    // A policy whose options type writes a field its About does not document is refused at parse.
    std::fs::write(&path, spec_text.replace("widest-first", "undocumented")).unwrap();
    let err = Spec::parse(&SpecSource::read(&path).unwrap()).unwrap_err().to_string();
    assert!(err.contains("option `secret` is not documented"), "{err}");
}
