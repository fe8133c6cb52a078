//! Commands on an existing results directory: `blox status`, `blox plot`, `blox export`.
//! Each reads the grid of the last `blox run` from its `grid.json`.

use super::run::{print_figures, run_state};
use crate::results::export::{ExportFormat, export};
use crate::runner::{self, GridFile};
use crate::spec::{Spec, SpecSource};
use clap::{Args, ValueEnum};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub(super) struct StatusArgs {
    /// Experiment directory written by `blox run`, e.g. results/blox-fig6.
    results: PathBuf,
}

#[derive(Args)]
pub(super) struct PlotArgs {
    /// Experiment directory written by `blox run`, e.g. results/blox-fig6.
    results: PathBuf,
    /// Spec whose `figures:` to draw (default: the spec copy in the directory).
    #[arg(long)]
    spec: Option<PathBuf>,
}

#[derive(Args)]
pub(super) struct ExportArgs {
    /// Experiment directory written by `blox run`, e.g. results/blox-fig6.
    results: PathBuf,
    /// Format of the merged files.
    #[arg(long, value_enum)]
    to: ExportTo,
    /// Directory for runs, jobs and timeline files (default: <results>/export).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
pub(super) enum ExportTo {
    Csv,
    Parquet,
}

pub(super) fn status(args: StatusArgs) -> Result<ExitCode, String> {
    let dir = &args.results;
    let grid = GridFile::read(dir)?;
    let mut by_state: BTreeMap<&str, Vec<&runner::GridPoint>> = BTreeMap::new();
    for point in &grid.runs {
        by_state.entry(run_state(dir, &point.run_key)).or_default().push(point);
    }
    let count = |state: &str| by_state.get(state).map_or(0, Vec::len);
    outln!(
        "{}: {} runs in the grid of spec {} (written by blox {})",
        dir.display(),
        grid.runs.len(),
        &grid.spec_sha256[..grid.spec_sha256.len().min(12)],
        grid.blox_version
    );
    outln!(
        "  {} done, {} missing, {} failed, {} running in another process, {} damaged",
        count("done"),
        count("todo"),
        count("failed"),
        count("running"),
        count("damaged")
    );
    for (state, title) in [
        ("failed", "failed"),
        ("damaged", "damaged (redone by the next run)"),
        ("running", "running"),
        ("todo", "missing"),
    ] {
        for point in by_state.get(state).into_iter().flatten() {
            let why = match state {
                "failed" => crate::results::store::failure(dir, &point.run_key).map(|r| format!(": {r}")),
                "damaged" => crate::results::complete_run(dir, &point.run_key).err().map(|e| format!(": {e}")),
                _ => None,
            };
            outln!("{title:>8} {}  {}{}", point.run_key, point.describe(), why.unwrap_or_default());
        }
    }
    let set_aside = dir.join("set-aside");
    if let Ok(entries) = std::fs::read_dir(&set_aside) {
        let batches = entries.filter_map(Result::ok).count();
        if batches > 0 {
            outln!("  {} earlier sets of files in {} (each with a reasons.txt)", batches, set_aside.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) fn plot(args: PlotArgs) -> Result<ExitCode, String> {
    let spec_path = args.spec.unwrap_or_else(|| args.results.join("spec.yaml"));
    let spec = SpecSource::read(&spec_path).and_then(|source| Spec::parse(&source)).map_err(|e| e.to_string())?;
    if spec.figures.is_empty() {
        return Err(format!("{} declares no `figures:`", spec_path.display()));
    }
    let grid = GridFile::read(&args.results)?;
    let rows = complete_rows(&args.results, &grid)?;
    Ok(if print_figures(&runner::render_figures(&spec, &args.results, &rows), false) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

pub(super) fn export_tables(args: ExportArgs) -> Result<ExitCode, String> {
    let grid = GridFile::read(&args.results)?;
    let rows = complete_rows(&args.results, &grid)?;
    let keys: Vec<String> = rows.iter().map(|r| r.info.run_key.clone()).collect();
    let format = match args.to {
        ExportTo::Csv => ExportFormat::Csv,
        ExportTo::Parquet => ExportFormat::Parquet,
    };
    let out = match args.output {
        Some(out) => out,
        None => {
            // Inside the results directory: not through a link planted there.
            let out = args.results.join("export");
            crate::results::store::ensure_dir(&out).map_err(|e| format!("{}: {e}", out.display()))?;
            out
        }
    };
    for table in export(&args.results, &keys, format, &out).map_err(|e| e.to_string())? {
        outln!("{}: {} rows", table.path.display(), table.rows);
    }
    Ok(ExitCode::SUCCESS)
}

/// The complete runs of the grid, warning (and saying which) when some are not; an error when
/// none is.
pub(super) fn complete_rows(dir: &Path, grid: &GridFile) -> Result<Vec<crate::results::RunRow>, String> {
    let (rows, unreadable) = runner::grid_rows(dir, grid.runs.iter().map(|p| p.run_key.as_str()));
    for (key, error) in &unreadable {
        eprintln!("warning: run {key} is left out: {error}");
    }
    if rows.is_empty() {
        return Err(format!("{} holds no complete run of its grid", dir.display()));
    }
    if rows.len() < grid.runs.len() {
        let done: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.info.run_key.as_str()).collect();
        let missing: Vec<String> =
            grid.runs.iter().filter(|p| !done.contains(p.run_key.as_str())).map(|p| p.describe()).collect();
        eprintln!(
            "warning: {} of {} runs of the grid are not complete (see `blox status {}`); using the {} that are. Missing: {}{}",
            missing.len(),
            grid.runs.len(),
            dir.display(),
            rows.len(),
            missing.iter().take(5).cloned().collect::<Vec<_>>().join("; "),
            if missing.len() > 5 { format!("; and {} more", missing.len() - 5) } else { String::new() }
        );
    }
    Ok(rows)
}
