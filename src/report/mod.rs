//! `blox report`: one self-contained HTML page of an experiment directory, to open offline from
//! disk: the spec and its provenance, the grid with each run's state, the runs' metrics (sorted
//! and filtered in the page), the spec's figures inline as SVG, a drill-down per run, and the
//! pairings of `blox compare` outputs found in the directory.
//!
//! Everything is read through the results readers (`grid.json`, [`crate::results`]); the
//! figures are drawn by [`crate::figures`], the same drawing as their SVG files. Per-run data
//! for the drill-downs is thinned to a budget shared by all runs ([`DrillBudget`]), so that a
//! grid of thousands of runs still makes a page a browser opens quickly; the page draws a
//! drill-down only when it is opened. Text from the spec and the tables reaches the page escaped
//! ([`html`]), never as markup.

mod compare;
mod drill;
mod html;
pub mod paper;

use crate::figures;
use crate::results::metric::RunMetric;
use crate::results::schema::TableRow;
use crate::results::{RunRow, RunState};
use crate::runner::{GridFile, GridPoint};
use crate::spec::{Spec, SpecSource};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub(crate) use compare::base64;
pub use compare::is_compare_dir;
pub use drill::DrillBudget;

/// What a written report holds, for the command's one-line summary.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub path: PathBuf,
    pub bytes: usize,
    pub runs: usize,
    pub done: usize,
    pub figures: usize,
    /// Figures that could not be drawn, with why (also said on the page).
    pub figure_errors: Vec<String>,
    /// Runs whose drill-down tables could not be read (also said on the page).
    pub unreadable: usize,
}

/// Writes the report of `dir` (an experiment directory, or the output directory of `blox
/// compare`) to `out`, replacing it atomically: a symbolic link at `out` is replaced, never
/// written through.
pub fn write(dir: &Path, out: &Path) -> Result<Written, String> {
    let page = render(dir)?;
    let parent = match out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(format!("cannot write {}: the directory {} does not exist", out.display(), parent.display()));
    }
    if out.is_dir() {
        return Err(format!("cannot write {}: it is a directory", out.display()));
    }
    crate::results::store::write_file_atomically(out, page.html.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    Ok(Written {
        path: out.to_path_buf(),
        bytes: page.html.len(),
        runs: page.runs,
        done: page.done,
        figures: page.figures,
        figure_errors: page.figure_errors,
        unreadable: page.unreadable,
    })
}

/// A report page in memory.
#[derive(Debug, Clone)]
pub struct Page {
    pub html: String,
    pub runs: usize,
    pub done: usize,
    pub figures: usize,
    pub figure_errors: Vec<String>,
    pub unreadable: usize,
}

/// The report page of `dir`: an experiment directory written by `blox run`, or the output
/// directory of `blox compare`.
pub fn render(dir: &Path) -> Result<Page, String> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(format!("{} is not a directory", dir.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!("{}: no such directory", dir.display()));
        }
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    }
    if compare::is_compare_dir(dir) && !dir.join(crate::runner::GRID_FILE).exists() {
        let section = compare::section(dir)?;
        let title = format!("blox compare: {}", dir.file_name().unwrap_or_default().to_string_lossy());
        let html = html::compare_page(&title, &section);
        return Ok(Page { html, runs: 0, done: 0, figures: 0, figure_errors: Vec::new(), unreadable: 0 });
    }
    let experiment = Experiment::read(dir)?;
    let html = html::page(&experiment);
    Ok(Page {
        html,
        runs: experiment.runs.len(),
        done: experiment.rows().len(),
        figures: experiment.figures.iter().filter(|f| f.is_ok()).count(),
        figure_errors: experiment.figures.iter().filter_map(|f| f.as_ref().err().map(|e| e.to_string())).collect(),
        unreadable: experiment.drill.iter().filter(|d| d.as_ref().is_some_and(|d| d.error.is_some())).count(),
    })
}

/// One run of the grid and where it stands.
struct GridRun {
    point: GridPoint,
    state: RunState,
}

/// Everything the page shows of one experiment directory.
struct Experiment {
    dir: PathBuf,
    grid: GridFile,
    spec_text: Option<String>,
    description: Option<String>,
    runs: Vec<GridRun>,
    /// When the runs files were written: the earliest and the latest.
    written: Option<(SystemTime, SystemTime)>,
    figures: Vec<Result<figures::InlineFigure, figures::FigureError>>,
    /// Why no figure is drawn at all (the spec copy does not parse, no run is complete).
    figures_note: Option<String>,
    /// Per run (in `runs` order), its drill-down data; `None` for runs not complete.
    drill: Vec<Option<drill::RunDrill>>,
    budget: DrillBudget,
    compares: Vec<Result<compare::Section, String>>,
}

impl Experiment {
    fn read(dir: &Path) -> Result<Experiment, String> {
        let grid = GridFile::read(dir)?;
        let spec_path = dir.join("spec.yaml");
        let spec_text = std::fs::read_to_string(&spec_path).ok();
        let runs: Vec<GridRun> = {
            use rayon::prelude::*;
            grid.runs
                .par_iter()
                .map(|point| GridRun { point: point.clone(), state: crate::results::run_state(dir, &point.run_key) })
                .collect()
        };
        let written = runs
            .iter()
            .filter(|r| matches!(r.state, RunState::Done(_)))
            .filter_map(|r| {
                std::fs::metadata(dir.join("runs").join(format!("{}.parquet", r.point.run_key))).ok()?.modified().ok()
            })
            .fold(None, |span: Option<(SystemTime, SystemTime)>, t| {
                Some(span.map_or((t, t), |(first, last)| (first.min(t), last.max(t))))
            });
        let rows: Vec<RunRow> = runs
            .iter()
            .filter_map(|r| match &r.state {
                RunState::Done(row) => Some((**row).clone()),
                _ => None,
            })
            .collect();
        let (figures, figures_note, description) = match &spec_text {
            None => (Vec::new(), Some(format!("{} is missing: no figures to draw", spec_path.display())), None),
            Some(_) => match SpecSource::read(&spec_path).and_then(|source| Spec::parse(&source)) {
                Err(e) => (Vec::new(), Some(format!("the spec copy does not parse, so no figure is drawn: {e}")), None),
                Ok(spec) if rows.is_empty() => {
                    let note =
                        (!spec.figures.is_empty()).then(|| "no run is complete yet: no figure to draw".to_string());
                    (Vec::new(), note, spec.description.clone())
                }
                Ok(spec) => (
                    figures::inline_svgs(spec.figures.iter().map(|f| &f.value), dir, &rows, &|_, _| Vec::new()),
                    None,
                    spec.description.clone(),
                ),
            },
        };
        let budget = DrillBudget::for_runs(rows.len());
        let drill = {
            use rayon::prelude::*;
            runs.par_iter()
                .map(|r| match &r.state {
                    RunState::Done(row) => Some(drill::RunDrill::read(dir, row, budget)),
                    _ => None,
                })
                .collect()
        };
        let compares = compare::sections_in(dir);
        Ok(Experiment {
            dir: dir.to_path_buf(),
            grid,
            spec_text,
            description,
            runs,
            written,
            figures,
            figures_note,
            drill,
            budget,
            compares,
        })
    }

    fn rows(&self) -> Vec<&RunRow> {
        self.runs
            .iter()
            .filter_map(|r| match &r.state {
                RunState::Done(row) => Some(&**row),
                _ => None,
            })
            .collect()
    }
}

/// The run metrics the table shows: every metric column of the runs table, then the wall time.
fn run_metrics() -> Vec<RunMetric> {
    RunRow::METRIC_NAMES.iter().filter_map(|name| RunMetric::parse(name)).collect()
}

/// A metric's description for the page: its column name, caption and how its values are shown.
#[derive(Serialize)]
struct MetricColumn {
    name: String,
    caption: &'static str,
    /// `s` for seconds (shown in the page's time unit), `%` for 0-1 fractions, empty otherwise.
    unit: &'static str,
}

fn metric_columns() -> Vec<MetricColumn> {
    let mut columns: Vec<MetricColumn> = run_metrics()
        .into_iter()
        .map(|metric| {
            let unit = match metric.unit_name(crate::results::metric::TimeUnit::Seconds) {
                "seconds" => "s",
                other => other,
            };
            let name = if unit == "s" { format!("{}_s", metric.name()) } else { metric.name().to_string() };
            MetricColumn { name, caption: metric.caption(), unit }
        })
        .collect();
    columns.push(MetricColumn { name: "wall_time_s".into(), caption: "Wall time of the run", unit: "s" });
    columns.push(MetricColumn { name: "cpu_time_s".into(), caption: "CPU time of the run", unit: "s" });
    columns
}

/// `2026-11-28 17:05:09 UTC`.
fn utc(time: SystemTime) -> String {
    let [year, month, day, hour, minute, second] = crate::results::store::utc_fields(time);
    format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02} UTC")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn utc_formats_calendar_dates() {
        assert_eq!(utc(UNIX_EPOCH), "1970-01-01 00:00:00 UTC");
        // 2024-02-29 12:34:56, a leap day.
        assert_eq!(utc(UNIX_EPOCH + Duration::from_secs(1_709_210_096)), "2024-02-29 12:34:56 UTC");
    }
}
