//! Project automation: `cargo xtask bench`.

use blox::runner::{self, RunnerOptions};
use blox::spec::{Spec, SpecSource};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage: cargo xtask <task>

tasks:
  bench [SPEC] [-j N] [--repeat K]   time a full sweep (default specs/paper/blox-fig6.yaml): wall time,
                                     runs/s and peak memory; results go to a temporary directory";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("bench") => match bench(&args[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_owned()
}

fn bench(args: &[String]) -> Result<(), String> {
    let mut spec_path = workspace_root().join("specs/paper/blox-fig6.yaml");
    let mut threads = None;
    let mut repeat = 3;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-j" => threads = Some(it.next().and_then(|v| v.parse().ok()).ok_or("-j needs a number")?),
            "--repeat" => repeat = it.next().and_then(|v| v.parse().ok()).ok_or("--repeat needs a number")?,
            other => spec_path = PathBuf::from(other),
        }
    }
    let source = SpecSource::read(&spec_path).map_err(|e| e.to_string())?;
    let spec = Spec::parse(&source).map_err(|e| e.to_string())?;
    let out = std::env::temp_dir().join(format!("blox-bench-{}", std::process::id()));
    let options = RunnerOptions { out: out.clone(), threads, force: true, quiet: true };
    let mut walls = Vec::new();
    let mut runs = 0;
    for _ in 0..repeat {
        let started = Instant::now();
        let report = runner::run(&source, &spec, &options)?;
        walls.push(started.elapsed().as_secs_f64());
        if !report.failures.is_empty() {
            return Err(format!("{} runs failed: {:?}", report.failures.len(), report.failures));
        }
        runs = report.executed;
    }
    let _ = std::fs::remove_dir_all(&out);
    walls.sort_by(f64::total_cmp);
    let best = walls[0];
    println!("spec:        {}", spec_path.display());
    println!("threads:     {}", threads.map_or_else(|| format!("all ({})", rayon_threads()), |t: usize| t.to_string()));
    println!("runs:        {runs}");
    println!(
        "wall (best of {repeat}): {best:.3} s   (all: {})",
        walls.iter().map(|w| format!("{w:.3}")).collect::<Vec<_>>().join(", ")
    );
    println!("runs/s:      {:.1}", runs as f64 / best);
    println!("peak memory: {}", peak_memory().unwrap_or_else(|| "unknown".into()));
    Ok(())
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Peak resident set size of this process (Linux `VmHWM`).
fn peak_memory() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l["VmHWM:".len()..].trim().to_string())
}
