//! Project automation: `cargo xtask bench` and `cargo xtask reproduce-figures`.

use blox::paper::{Outcome, evaluate, outcome_table, read_expected, sidecar_path};
use blox::runner::{self, RunnerOptions};
use blox::spec::{Spec, SpecSource};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage: cargo xtask <task>

tasks:
  reproduce-figures [--check] [--only NAME] [-j N]
                                     run every specs/paper/*.yaml, render its figures into results/paper/
                                     and write results/paper/REPORT.md comparing reproduced with expected
                                     values; --check exits non-zero if any value fails
  bench [SPEC] [-j N] [--repeat K]   time a full sweep (default specs/paper/blox-fig6.yaml): wall time,
                                     runs/s and peak memory; results go to a temporary directory
  bench-traces [--philly-jobs N] [--dir DIR]
                                     time the trace readers: a generated Philly cluster_job_log of N jobs
                                     (default 500000, streamed), then every file of the dataset registry
                                     (fetched into the data cache first, as `blox data fetch` does:
                                     BLOX_DATA_DIR, BLOX_DATA_MIRROR) or, with --dir, every file under DIR";

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
        Some("bench-traces") => match bench_traces(&args[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Some("reproduce-figures") => match reproduce_figures(&args[1..]) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
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

/// Times reading a generated Philly `cluster_job_log` (the 6 GB real one is not fetchable) and every
/// real trace (the registry's datasets through the data cache, or the files under `--dir`); prints
/// throughput and peak memory.
fn bench_traces(args: &[String]) -> Result<(), String> {
    let usage = "usage: cargo xtask bench-traces [--philly-jobs N] [--dir DIR]";
    let mut jobs: u64 = 500_000;
    let mut dir = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--philly-jobs" => jobs = it.next().and_then(|n| n.parse().ok()).ok_or("--philly-jobs needs a number")?,
            "--dir" => dir = Some(PathBuf::from(it.next().ok_or("--dir needs a directory")?)),
            _ => return Err(usage.into()),
        }
    }
    let path = std::env::temp_dir().join(format!("blox-bench-philly-{}.json", std::process::id()));
    write_philly_log(&path, jobs).map_err(|e| format!("{}: {e}", path.display()))?;
    let bytes = std::fs::metadata(&path).map_err(|e| e.to_string())?.len();
    let started = Instant::now();
    let trace = blox::trace::read_trace(&path, None);
    let seconds = started.elapsed().as_secs_f64();
    let _ = std::fs::remove_file(&path);
    let trace = trace.map_err(|e| e.to_string())?;
    println!(
        "philly-json: {} jobs, {:.0} MB in {seconds:.2} s ({:.0} MB/s), {} kept; peak RSS {}",
        trace.report.rows_read,
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / seconds,
        trace.jobs.len(),
        peak_memory().unwrap_or_else(|| "unknown".into())
    );
    let (files, what) = match dir {
        Some(dir) => (files_under(&dir)?, dir.display().to_string()),
        None => (registry_files()?, "registry datasets".to_string()),
    };
    let started = Instant::now();
    let (mut traces, mut rows, mut bytes) = (0, 0, 0);
    for path in &files {
        if let Ok(trace) = blox::trace::read_trace(path, None) {
            traces += 1;
            rows += trace.report.rows_read;
            bytes += std::fs::metadata(path).map_or(0, |m| m.len());
        }
    }
    println!(
        "{what}: {traces} trace files of {}, {rows} rows, {:.1} MB in {:.2} s",
        files.len(),
        bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))? {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.is_dir() { stack.push(path) } else { files.push(path) }
        }
    }
    files.sort();
    Ok(files)
}

/// Every file of every registry dataset, fetched (or found verified) in the data cache the way
/// `blox data fetch` does; files only a mirror has are left out, with a note, when none is set.
fn registry_files() -> Result<Vec<PathBuf>, String> {
    let mut options = blox::data::FetchOptions::from_env(None).map_err(|e| e.to_string())?;
    options.quiet = true;
    let mut files = Vec::new();
    for dataset in blox::data::datasets() {
        let report = blox::data::fetch(dataset, &options)
            .map_err(|e| format!("{e} (set BLOX_DATA_MIRROR, or pass --dir DIR to time a folder of traces)"))?;
        for (path, outcome) in report.files {
            match outcome {
                blox::data::Outcome::MirrorOnly { .. } => {
                    eprintln!("{}: left out, only a mirror has it (set BLOX_DATA_MIRROR)", path.display())
                }
                _ => files.push(path),
            }
        }
    }
    Ok(files)
}

/// A Philly-shaped job log: one to three attempts per job on one or two machines, some jobs
/// without attempts. Deterministic (a fixed linear congruential sequence).
fn write_philly_log(path: &Path, jobs: u64) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |modulo: u64| {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % modulo
    };
    let time = |s: u64| {
        let (day, rest) = (s / 86_400, s % 86_400);
        format!(
            "2017-{:02}-{:02} {:02}:{:02}:{:02}",
            8 + day / 28,
            1 + day % 28,
            rest / 3600,
            rest % 3600 / 60,
            rest % 60
        )
    };
    out.write_all(b"[")?;
    for i in 0..jobs {
        let submitted = i * 9_000_000 / jobs.max(1);
        let mut attempts = Vec::new();
        let mut start = submitted + next(600);
        for _ in 0..next(4) {
            let end = start + 1 + next(20_000);
            let gpus: Vec<String> = (0..1 << next(4)).map(|g| format!("\"gpu{g}\"")).collect();
            attempts.push(format!(
                r#"{{"start_time": "{}", "end_time": "{}", "detail": [{{"ip": "m{}", "gpus": [{}]}}]}}"#,
                time(start),
                time(end),
                next(500),
                gpus.join(", ")
            ));
            start = end + next(100);
        }
        let separator = if i == 0 { "" } else { ", " };
        write!(
            out,
            r#"{separator}{{"status": "Pass", "vc": "vc{}", "jobid": "application_{i}", "attempts": [{}], "submitted_time": "{}", "user": "u{}"}}"#,
            next(15),
            attempts.join(", "),
            time(submitted),
            next(1000)
        )?;
    }
    out.write_all(b"]")?;
    out.flush()
}

/// Peak resident set size of this process (Linux `VmHWM`).
fn peak_memory() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l["VmHWM:".len()..].trim().to_string())
}

/// Runs the paper specs, renders their figures and writes the report; `Ok(false)` when `--check`
/// finds a failing value, a failed run or a figure that could not be drawn.
fn reproduce_figures(args: &[String]) -> Result<bool, String> {
    let mut check = false;
    let mut only = None;
    let mut threads = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--check" => check = true,
            "--only" => only = Some(it.next().ok_or("--only needs a spec name")?.clone()),
            "-j" => threads = Some(it.next().and_then(|v| v.parse().ok()).ok_or("-j needs a number")?),
            other => return Err(format!("unknown argument `{other}`\n\n{USAGE}")),
        }
    }
    let root = workspace_root();
    let out = root.join("results/paper");
    let mut specs: Vec<PathBuf> = std::fs::read_dir(root.join("specs/paper"))
        .map_err(|e| format!("specs/paper: {e}"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml") && !p.to_string_lossy().ends_with(".expected.yaml"))
        .collect();
    specs.sort();
    if let Some(name) = &only {
        specs.retain(|p| p.file_stem().is_some_and(|s| s.to_string_lossy() == *name));
        if specs.is_empty() {
            return Err(format!("no spec specs/paper/{name}.yaml"));
        }
    }

    let mut report = String::from(
        "# Reproduced paper figures\n\nGenerated by `cargo xtask reproduce-figures`: every spec in `specs/paper/` is run, its figures are\nrendered, and every value in its `*.expected.yaml` sidecar is compared with the reproduction.\n",
    );
    let (mut passed, mut failed, mut references, mut problems) = (0, 0, 0, Vec::<String>::new());
    for spec_path in &specs {
        let source = SpecSource::read(spec_path).map_err(|e| e.to_string())?;
        let spec = Spec::parse(&source).map_err(|e| e.to_string())?;
        let name = spec.name.value.0.clone();
        eprintln!("reproducing {name} ...");
        let options = RunnerOptions { out: out.clone(), threads, force: true, quiet: true };
        let sweep = runner::run(&source, &spec, &options)?;
        for (key, reason) in &sweep.failures {
            problems.push(format!("{name}: run {key} failed: {reason}"));
        }
        let _ = write!(report, "\n## {name}\n\n");
        if let Some(description) = &spec.description {
            let _ = writeln!(report, "{description}\n");
        }
        let _ = writeln!(
            report,
            "Spec: `specs/paper/{}`, {} runs.\n",
            spec_path.file_name().unwrap_or_default().to_string_lossy(),
            sweep.rows.len()
        );
        let sidecar = sidecar_path(spec_path);
        let expected = if sidecar.exists() {
            Some(read_expected(&sidecar)?)
        } else {
            problems.push(format!("{name}: no expected values ({} is missing)", sidecar.display()));
            None
        };
        let outcomes = expected.as_ref().map(|e| evaluate(e, &sweep.rows, &sweep.experiment_dir)).unwrap_or_default();
        let mut drawn = Vec::new();
        for figure in &sweep.figures {
            match figure {
                Ok(rendered) => {
                    let png = rendered.png.strip_prefix(&out).unwrap_or(&rendered.png);
                    let _ = writeln!(report, "### {}\n\n![{}]({})\n", rendered.name, rendered.name, png.display());
                    let mine: Vec<&Outcome> =
                        outcomes.iter().filter(|o| o.figure.as_deref() == Some(rendered.name.as_str())).collect();
                    if !mine.is_empty() {
                        let _ = writeln!(report, "{}", outcome_table(&mine));
                    }
                    drawn.push(rendered.name.as_str());
                }
                Err(e) => problems.push(format!("{name}: {e}")),
            }
        }
        let rest: Vec<&Outcome> =
            outcomes.iter().filter(|o| o.figure.as_deref().is_none_or(|f| !drawn.contains(&f))).collect();
        if !rest.is_empty() {
            let _ = writeln!(report, "### Other reproduced values\n\n{}", outcome_table(&rest));
        }
        if let Some(expected) = &expected {
            let _ = writeln!(report, "Sources:\n");
            for c in &expected.checks {
                let _ = writeln!(report, "- {}: {} (tolerance {})", c.name, c.source, c.tolerance);
            }
            if let Some(notes) = &expected.notes {
                let _ = writeln!(report, "\n{}", notes.trim_end());
            }
        }
        let asserted: Vec<&Outcome> = outcomes.iter().filter(|o| !o.reference).collect();
        let ok = asserted.iter().filter(|o| o.pass).count();
        passed += ok;
        failed += asserted.len() - ok;
        references += outcomes.len() - asserted.len();
    }
    let all_pass = failed == 0 && problems.is_empty();
    let summary = format!(
        "{}: {passed} of {} values reproduced within tolerance across {} specs ({references} reference values reported beside them).",
        if all_pass { "PASS" } else { "FAIL" },
        passed + failed,
        specs.len()
    );
    let _ = write!(report, "\n## Summary\n\n{summary}\n");
    for p in &problems {
        let _ = writeln!(report, "- {p}");
    }
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let report_path = out.join("REPORT.md");
    std::fs::write(&report_path, report).map_err(|e| format!("{}: {e}", report_path.display()))?;
    println!("{summary}\nreport: {}", report_path.display());
    for p in &problems {
        eprintln!("problem: {p}");
    }
    Ok(!check || all_pass)
}
