//! Project automation: `cargo xtask bench` and `cargo xtask reproduce-figures`.

use blox::paper::{outcome_table, sidecar_path};
use blox::report::paper::{Cost, PaperSpec, ProcessClock, ProcessCost, Tally};
use blox::runner::{self, RunnerOptions};
use blox::spec::{Spec, SpecSource};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage: cargo xtask <task>

tasks:
  reproduce-figures [--check] [--only NAME] [--spec PATH]... [-j N]
                                     run every specs/paper/*.yaml, render its figures into results/paper/
                                     and write results/paper/REPORT.md and REPORT.html comparing reproduced
                                     with expected values (REPORT.html marks the published values on the
                                     figures); --check exits non-zero if any value fails; --only NAME
                                     runs specs/paper/NAME.yaml and writes REPORT-NAME.md and .html;
                                     --spec PATH runs a spec with a sidecar from elsewhere instead (the
                                     ones too long for CI, e.g. specs/pollux-fig8b.yaml), as --only does
  bench [SPEC] [-j N] [--repeat K]   time a full sweep (default specs/paper/blox-fig6.yaml): wall time,
                                     runs/s and peak memory; results go to a temporary directory
  bench-traces [--philly-jobs N] [--dir DIR]
                                     time the trace readers: a generated Philly cluster_job_log of N jobs
                                     (default 500000, streamed), then every file of the dataset registry
                                     (fetched into the data cache first, as `blox data fetch` does:
                                     BLOX_DATA_DIR, BLOX_DATA_MIRROR) or, with --dir, every file under DIR
  bench-scale [--jobs N,N,...] [--dir DIR] [-j N]
                                     time whole runs of generated blox-csv traces of N jobs (default
                                     1000000,3000000,10000000) on 2,500 x 4 GPUs with LAS, every job
                                     tracked, each size in a process of its own: wall, CPU, peak memory";

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
        Some("bench-scale") => match bench_scale(&args[1..]) {
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
/// Runs generated traces of growing size, one process per size so that each peak memory is its
/// own: the growth of a run's time and memory with its jobs.
fn bench_scale(args: &[String]) -> Result<(), String> {
    let mut sizes = vec![1_000_000u64, 3_000_000, 10_000_000];
    let mut dir = std::env::temp_dir().join("blox-bench-scale");
    let mut threads = "1".to_string();
    let mut one = false;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--jobs" => {
                let list = it.next().ok_or("--jobs needs N[,N...]")?;
                sizes = list
                    .split(',')
                    .map(|n| n.trim().parse().map_err(|_| format!("--jobs: `{n}` is not a number")))
                    .collect::<Result<_, _>>()?;
            }
            "--dir" => dir = PathBuf::from(it.next().ok_or("--dir needs a directory")?),
            "-j" => threads = it.next().ok_or("-j needs a number")?.clone(),
            // Internal: run one size in this process (the parent starts one process per size).
            "--one" => one = true,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if one {
        let &[jobs] = sizes.as_slice() else { return Err("--one runs exactly one size".into()) };
        return bench_scale_one(jobs, &dir, &threads);
    }
    println!("| jobs | wall | CPU | peak memory | trace file |");
    println!("|---|---|---|---|---|");
    for jobs in sizes {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let output = std::process::Command::new(exe)
            .args(["bench-scale", "--one", "--jobs", &jobs.to_string(), "-j", &threads, "--dir"])
            .arg(&dir)
            .output()
            .map_err(|e| e.to_string())?;
        if !output.status.success() {
            return Err(format!("{jobs} jobs: {}", String::from_utf8_lossy(&output.stderr)));
        }
        print!("{}", String::from_utf8_lossy(&output.stdout));
    }
    Ok(())
}

fn bench_scale_one(jobs: u64, dir: &Path, threads: &str) -> Result<(), String> {
    let trace = dir.join(format!("scale-{jobs}.csv"));
    if !trace.exists() {
        write_scale_trace(&trace, jobs).map_err(|e| format!("{}: {e}", trace.display()))?;
    }
    let trace_mb = std::fs::metadata(&trace).map_or(0, |m| m.len()) / 1_000_000;
    let spec_path = dir.join(format!("scale-{jobs}.yaml"));
    let spec_text = format!(
        "name: scale-{jobs}\n\
         description: {jobs} generated jobs on 10,000 GPUs, LAS, every job tracked\n\
         policies: [{{label: LAS, scheduler: las}}]\n\
         clusters: [{{nodes: 2500, gpus_per_node: 4}}]\n\
         workloads: [{{trace: {{path: scale-{jobs}.csv, format: blox-csv}}}}]\n\
         seeds: [1]\n\
         measure: {{track: all}}\n"
    );
    std::fs::write(&spec_path, spec_text).map_err(|e| format!("{}: {e}", spec_path.display()))?;
    let source = SpecSource::read(&spec_path).map_err(|e| e.to_string())?;
    let spec = Spec::parse(&source).map_err(|e| e.to_string())?;
    let out = dir.join(format!("results-{}", std::process::id()));
    let threads = threads.parse().map_err(|_| format!("-j: `{threads}` is not a number"))?;
    let options = RunnerOptions { out: out.clone(), threads: Some(threads), force: true, quiet: true };
    let cpu_before = cpu_seconds();
    let started = Instant::now();
    let report = runner::run(&source, &spec, &options)?;
    let wall = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds()
        .zip(cpu_before)
        .map_or_else(|| "unknown".into(), |(after, before)| format!("{:.1} s", after - before));
    let _ = std::fs::remove_dir_all(&out);
    if !report.failures.is_empty() {
        return Err(format!("the run failed: {:?}", report.failures));
    }
    println!(
        "| {jobs} | {wall:.1} s | {cpu} | {} | {trace_mb} MB |",
        peak_memory().unwrap_or_else(|| "unknown".into())
    );
    Ok(())
}

/// User plus system CPU seconds of this process so far (Linux; clock ticks of 1/100 s).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// A blox-csv trace of `jobs` jobs at load about 0.9 on 10,000 GPUs: Poisson arrivals every
/// 0.95 s on average, 1/2/4/8 GPUs with probabilities 0.4/0.25/0.2/0.15 (2.9 on average),
/// exponential durations of mean 3,000 s (at least 1 s). Deterministic (SplitMix64, seed 1).
fn write_scale_trace(path: &Path, jobs: u64) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut state: u64 = 1;
    let mut uniform = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    let temp = path.with_extension("csv.partial");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&temp)?);
    writeln!(out, "job_id,arrival_s,gpus,duration_s")?;
    let mut arrival = 0.0f64;
    for id in 0..jobs {
        arrival += -0.95 * (1.0 - uniform()).ln();
        let gpus = match uniform() {
            u if u < 0.40 => 1,
            u if u < 0.65 => 2,
            u if u < 0.85 => 4,
            _ => 8,
        };
        let duration = (-3000.0 * (1.0 - uniform()).ln()).max(1.0);
        writeln!(out, "{id},{arrival:.3},{gpus},{duration:.1}")?;
    }
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    std::fs::rename(temp, path)
}

fn peak_memory() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l["VmHWM:".len()..].trim().to_string())
}

/// Runs the paper specs, renders their figures and writes the report; `Ok(false)` when `--check`
/// finds a failing value, a failed run or a figure that could not be drawn.
fn reproduce_figures(args: &[String]) -> Result<bool, String> {
    let mut check = false;
    let mut only = None;
    let mut chosen: Vec<PathBuf> = Vec::new();
    let mut threads = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--check" => check = true,
            "--only" => only = Some(it.next().ok_or("--only needs a spec name")?.clone()),
            "--spec" => chosen.push(PathBuf::from(it.next().ok_or("--spec needs a spec's path")?)),
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
    // Specs named by path replace the paper set; the report is named after them, as with --only.
    let partial = if chosen.is_empty() {
        only.clone()
    } else {
        if only.is_some() {
            return Err("give --only or --spec, not both".into());
        }
        for path in &chosen {
            if !sidecar_path(path).is_file() {
                return Err(format!("{}: no sidecar {} beside it", path.display(), sidecar_path(path).display()));
            }
        }
        specs = chosen;
        Some(specs.iter().map(|p| p.file_stem().unwrap_or_default().to_string_lossy()).collect::<Vec<_>>().join("+"))
    };

    let mut problems = Vec::<String>::new();
    let mut sources = Vec::new();
    for spec_path in &specs {
        let source = SpecSource::read(spec_path).map_err(|e| e.to_string())?;
        let spec = Spec::parse(&source).map_err(|e| e.to_string())?;
        sources.push((source, spec));
    }
    // Every spec's runs in one pool, longest first: two cores stay busy to the end.
    eprintln!("reproducing {} specs ...", sources.len());
    let clock = ProcessClock::start();
    // Not quiet: a pipe (CI) gets a line per finished run and a heartbeat naming long ones.
    let options = RunnerOptions { out: out.clone(), threads, force: true, quiet: false };
    let pairs: Vec<(&SpecSource, &Spec)> = sources.iter().map(|(source, spec)| (source, spec)).collect();
    let sweeps = runner::run_many(&pairs, &options, &runner::SweepControl::default())?;
    let process = clock.cost();
    let mut costs = Vec::new();
    let mut papers = Vec::new();
    for ((spec_path, (_, spec)), sweep) in specs.iter().zip(&sources).zip(sweeps) {
        let paper = PaperSpec::evaluate(spec_path, spec, &sweep.experiment_dir, &sweep.rows, &out)?;
        if paper.sources.is_none() {
            problems.push(format!(
                "{}: no expected values ({} is missing)",
                paper.name,
                sidecar_path(spec_path).display()
            ));
        }
        problems.extend(sweep.figures.iter().filter_map(|f| f.as_ref().err()).map(|e| format!("{}: {e}", paper.name)));
        costs.push(Cost::of(&paper.name, &sweep.rows));
        papers.push(paper);
    }
    let tally = Tally::of(&papers);
    let all_pass = tally.failed == 0 && problems.is_empty();
    let summary = tally.summary(papers.len(), problems.len());
    let costs_md = costs_markdown(&costs);
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    // A partial check (`--only`, `--spec`) writes its own report, so it never replaces the whole one.
    let stem = partial.as_ref().map_or_else(|| "REPORT".to_string(), |name| format!("REPORT-{name}"));
    let report_path = out.join(format!("{stem}.md"));
    let markdown = report_markdown(&papers, &summary, process, &costs_md, &problems);
    std::fs::write(&report_path, markdown).map_err(|e| format!("{}: {e}", report_path.display()))?;
    let html_path = out.join(format!("{stem}.html"));
    let html = blox::report::paper::page(&papers, &summary, process, &costs, &problems);
    std::fs::write(&html_path, html).map_err(|e| format!("{}: {e}", html_path.display()))?;
    println!(
        "{summary}\n{}\nPer spec:\n{costs_md}report: {} and {}",
        process.sentence(),
        report_path.display(),
        html_path.display()
    );
    for p in &problems {
        eprintln!("problem: {p}");
    }
    Ok(!check || all_pass)
}

fn costs_markdown(costs: &[Cost]) -> String {
    let mut table =
        String::from("| spec | runs | CPU | sum of run walls | costliest run (CPU) |\n|---|---|---|---|---|\n");
    for c in costs {
        let _ = writeln!(
            table,
            "| {} | {} | {:.1} s | {:.1} s | {:.1} s |",
            c.spec, c.runs, c.cpu_s, c.wall_s, c.longest_cpu_s
        );
    }
    let (cpu, wall) = (costs.iter().map(|c| c.cpu_s).sum::<f64>(), costs.iter().map(|c| c.wall_s).sum::<f64>());
    let _ = writeln!(table, "| all | {} | {cpu:.1} s | {wall:.1} s | |", costs.iter().map(|c| c.runs).sum::<usize>());
    table
}

/// REPORT.md from the same specs as REPORT.html.
fn report_markdown(
    papers: &[PaperSpec],
    summary: &str,
    process: ProcessCost,
    costs: &str,
    problems: &[String],
) -> String {
    let mut report = String::from(
        "# Reproduced paper figures\n\nGenerated by `cargo xtask reproduce-figures`: every spec in `specs/paper/` is run, its figures are\nrendered, and every value in its `*.expected.yaml` sidecar is compared with the reproduction.\n",
    );
    for paper in papers {
        let _ = write!(report, "\n## {}\n\n", paper.name);
        if let Some(description) = &paper.description {
            let _ = writeln!(report, "{description}\n");
        }
        let _ = writeln!(report, "Spec: `specs/paper/{}`, {} runs.\n", paper.spec_file, paper.runs);
        for figure in &paper.figures {
            match &figure.svg {
                Ok(_) => {
                    let _ = writeln!(report, "### {}\n\n![{}]({})\n", figure.name, figure.name, figure.png.display());
                }
                Err(why) => {
                    let _ = writeln!(report, "### {}\n\nThe figure could not be drawn: {why}\n", figure.name);
                }
            }
            if !figure.outcomes.is_empty() {
                let _ = writeln!(report, "{}", outcome_table(&figure.outcomes.iter().collect::<Vec<_>>()));
            }
        }
        if !paper.other.is_empty() {
            let _ = writeln!(
                report,
                "### Other reproduced values\n\n{}",
                outcome_table(&paper.other.iter().collect::<Vec<_>>())
            );
        }
        if let Some(sources) = &paper.sources {
            let _ = writeln!(report, "Sources:\n");
            for c in sources {
                let _ = writeln!(report, "- {}: {} (tolerance {})", c.check, c.source, c.tolerance);
            }
            if let Some(notes) = &paper.notes {
                let _ = writeln!(report, "\n{}", notes.trim_end());
            }
        }
    }
    let _ = write!(report, "\n## Summary\n\n{summary}\n");
    let _ = write!(report, "\n## Cost\n\n{}\n\n{costs}", process.sentence());
    for p in problems {
        let _ = writeln!(report, "- {p}");
    }
    report
}
