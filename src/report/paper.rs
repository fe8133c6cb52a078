//! `REPORT.html` of `cargo xtask reproduce-figures`: per paper spec, each figure reproduced with
//! the published values it is checked against drawn over it ([`marks`]), every value PASS or FAIL
//! with its tolerance and source, and the sidecar's notes. [`PaperSpec::evaluate`] gathers one
//! spec's reproduction from its results; the xtask writes both `REPORT.md` and this [`page`]
//! from the same [`PaperSpec`]s. The page is built with `blox report`'s head, escaping and
//! script, so it holds to the same policy: offline, text escaped, only its own script runs.

use super::html::{self, text};
use crate::figures::build::Chart;
use crate::figures::render::Mark;
use crate::paper::{Outcome, evaluate, format_value, read_expected, sidecar_path};
use crate::results::RunRow;
use crate::results::metric::TimeUnit;
use crate::spec::Spec;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One paper spec's reproduction.
#[derive(Debug, Clone)]
pub struct PaperSpec {
    pub name: String,
    pub description: Option<String>,
    /// The spec's file name in `specs/paper/`.
    pub spec_file: String,
    pub runs: usize,
    /// The spec's figures, in its order.
    pub figures: Vec<PaperFigure>,
    /// Outcomes of no figure of the spec.
    pub other: Vec<Outcome>,
    /// The sidecar's checks (`None` without a sidecar).
    pub sources: Option<Vec<Source>>,
    /// The sidecar's notes (Markdown).
    pub notes: Option<String>,
}

/// A figure of a paper spec and the outcomes of its values.
#[derive(Debug, Clone)]
pub struct PaperFigure {
    pub name: String,
    /// Its PNG, relative to the report.
    pub png: PathBuf,
    pub outcomes: Vec<Outcome>,
    /// The figure as SVG text with its published values marked, or why it could not be drawn.
    pub svg: Result<String, String>,
    /// How many of `outcomes` are marked on the figure.
    pub marked: usize,
}

/// Where a check's values come from.
#[derive(Debug, Clone)]
pub struct Source {
    pub check: String,
    pub source: String,
    pub tolerance: f64,
}

/// One line of the cost table: a spec's runs, from their rows' `cpu_time_s` and `wall_time_s`.
#[derive(Debug, Clone)]
pub struct Cost {
    pub spec: String,
    pub runs: usize,
    /// CPU seconds of all its runs: what the spec costs, however loaded the machine was.
    pub cpu_s: f64,
    /// The sum of its runs' walls: above `cpu_s` by what waiting for the cores cost.
    pub wall_s: f64,
    /// CPU seconds of its costliest run, which no number of cores shortens.
    pub longest_cpu_s: f64,
}

impl Cost {
    pub fn of(spec: &str, rows: &[crate::results::RunRow]) -> Self {
        Self {
            spec: spec.to_string(),
            runs: rows.len(),
            cpu_s: rows.iter().map(|row| row.cpu_time_s).sum(),
            wall_s: rows.iter().map(|row| row.wall_time_s).sum(),
            longest_cpu_s: rows.iter().map(|row| row.cpu_time_s).fold(0.0, f64::max),
        }
    }
}

/// What the whole reproduction cost its process.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessCost {
    /// Wall seconds from the pool's start (the sweeps' preparation included) to its end.
    pub wall_s: f64,
    /// CPU seconds of the process over that span.
    pub cpu_s: f64,
    /// The process's peak resident memory, in MiB.
    pub peak_rss_mib: f64,
}

/// Measures a [`ProcessCost`] from the moment it starts.
pub struct ProcessClock {
    started: std::time::Instant,
    cpu_at_start: f64,
}

impl ProcessClock {
    pub fn start() -> Self {
        Self { started: std::time::Instant::now(), cpu_at_start: usage().0 }
    }

    pub fn cost(&self) -> ProcessCost {
        let (cpu_s, peak_rss_mib) = usage();
        ProcessCost { wall_s: self.started.elapsed().as_secs_f64(), cpu_s: cpu_s - self.cpu_at_start, peak_rss_mib }
    }
}

/// The process's CPU seconds (user and system) and peak resident memory in MiB so far; zeros if
/// the system will not say.
fn usage() -> (f64, f64) {
    // SAFETY: all-zero bytes are a valid `rusage`, which the call fills.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable `rusage`.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return (0.0, 0.0);
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    // Linux counts the peak in KiB, macOS in bytes.
    let rss_unit = if cfg!(target_os = "macos") { 1.0 } else { 1024.0 };
    (seconds(usage.ru_utime) + seconds(usage.ru_stime), usage.ru_maxrss as f64 * rss_unit / (1024.0 * 1024.0))
}

impl ProcessCost {
    pub fn sentence(&self) -> String {
        format!(
            "All runs in one pool: {:.1} s wall, {:.1} s of CPU, peak resident memory {:.0} MiB.",
            self.wall_s, self.cpu_s, self.peak_rss_mib
        )
    }
}

/// Values asserted and reported across specs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub passed: usize,
    pub failed: usize,
    /// Reference values (reported, not asserted).
    pub references: usize,
}

impl PaperSpec {
    /// The reproduction of the paper spec at `spec_path` (parsed as `spec`) from its runs `rows`
    /// in `experiment_dir`: the values of its sidecar (`NAME.expected.yaml`, if there is one)
    /// evaluated, and its figures drawn again as SVG with the published values marked. Figure
    /// paths are made relative to `report_dir`, where the report goes.
    pub fn evaluate(
        spec_path: &Path,
        spec: &Spec,
        experiment_dir: &Path,
        rows: &[RunRow],
        report_dir: &Path,
    ) -> Result<PaperSpec, String> {
        let sidecar = sidecar_path(spec_path);
        let expected = if sidecar.exists() { Some(read_expected(&sidecar)?) } else { None };
        let outcomes = expected.as_ref().map(|e| evaluate(e, rows, experiment_dir)).unwrap_or_default();
        let of_figure =
            |figure: &str| outcomes.iter().filter(|o| o.figure.as_deref() == Some(figure)).cloned().collect::<Vec<_>>();
        let drawn = crate::figures::inline_svgs(
            spec.figures.iter().map(|f| &f.value),
            experiment_dir,
            rows,
            &|figure, chart| marks(&of_figure(figure), chart),
        );
        let figures: Vec<PaperFigure> = spec
            .figures
            .iter()
            .zip(drawn)
            .map(|(declared, drawn)| {
                let name = declared.value.name().to_string();
                let png = experiment_dir.join("figures").join(format!("{name}.png"));
                PaperFigure {
                    png: png.strip_prefix(report_dir).unwrap_or(&png).to_path_buf(),
                    outcomes: of_figure(&name),
                    marked: drawn.as_ref().map_or(0, |d| d.marks),
                    svg: drawn.map(|d| d.svg).map_err(|e| e.message),
                    name,
                }
            })
            .collect();
        let other = outcomes
            .iter()
            .filter(|o| o.figure.as_deref().is_none_or(|f| !figures.iter().any(|d| d.name == f)))
            .cloned()
            .collect();
        Ok(PaperSpec {
            name: spec.name.value.0.clone(),
            description: spec.description.clone(),
            spec_file: spec_path.file_name().unwrap_or_default().to_string_lossy().into_owned(),
            runs: rows.len(),
            figures,
            other,
            sources: expected.as_ref().map(|e| {
                e.checks
                    .iter()
                    .map(|c| Source { check: c.name.clone(), source: c.source.clone(), tolerance: c.tolerance })
                    .collect()
            }),
            notes: expected.and_then(|e| e.notes),
        })
    }

    /// Every outcome of the spec: its figures' then the others.
    pub fn outcomes(&self) -> impl Iterator<Item = &Outcome> {
        self.figures.iter().flat_map(|f| &f.outcomes).chain(&self.other)
    }

    pub fn tally(&self) -> Tally {
        self.outcomes().fold(Tally::default(), |mut t, o| {
            match (o.reference, o.pass) {
                (true, _) => t.references += 1,
                (false, true) => t.passed += 1,
                (false, false) => t.failed += 1,
            }
            t
        })
    }
}

impl Tally {
    /// Across `specs`.
    pub fn of(specs: &[PaperSpec]) -> Tally {
        specs.iter().map(PaperSpec::tally).fold(Tally::default(), |a, b| Tally {
            passed: a.passed + b.passed,
            failed: a.failed + b.failed,
            references: a.references + b.references,
        })
    }

    /// `PASS: 12 of 12 values reproduced within tolerance across 2 specs (...)`; FAIL when a
    /// value fails or `problems` (failed runs, figures not drawn) is not empty.
    pub fn summary(&self, specs: usize, problems: usize) -> String {
        format!(
            "{}: {} of {} values reproduced within tolerance across {specs} specs ({} reference values reported beside them).",
            if self.failed == 0 && problems == 0 { "PASS" } else { "FAIL" },
            self.passed,
            self.passed + self.failed,
            self.references
        )
    }
}

const TIME_UNITS: [TimeUnit; 3] = [TimeUnit::Seconds, TimeUnit::Minutes, TimeUnit::Hours];

/// Whether a drawn value `y` is the value `v` (up to the rounding of a unit conversion).
fn same(y: f64, v: f64) -> bool {
    (y - v).abs() <= 1e-6 * v.abs().max(1e-9)
}

/// Every value `chart` draws.
fn chart_values(chart: &Chart) -> Box<dyn Iterator<Item = f64> + '_> {
    match chart {
        Chart::Line(c) => Box::new(c.series.iter().flat_map(|s| s.points.iter().map(|p| p.1))),
        Chart::Bars(c) => Box::new(c.series.iter().flat_map(|s| s.values.iter().flatten().copied())),
    }
}

/// The published values among `outcomes` placed on `chart` where the reproduction draws the
/// value it was compared with: a point or bar whose height is the reproduced value (so a value
/// the figure draws in another unit, or aggregated otherwise, gets no mark rather than a wrong
/// one) and whose series and category name the value's label; among several, the one that
/// names most of the value's other keys (load, cluster, workload, seed).
pub fn marks(outcomes: &[Outcome], chart: &Chart) -> Vec<Mark> {
    outcomes
        .iter()
        .filter_map(|outcome| {
            let value = outcome.value.as_ref()?;
            // The figure may draw a time in another unit than the check's: each is tried.
            let factors: Vec<f64> = match TIME_UNITS.iter().find(|u| u.name() == outcome.unit) {
                Some(unit) => TIME_UNITS.iter().map(|to| to.from_seconds(1.0) / unit.from_seconds(1.0)).collect(),
                None => vec![1.0],
            };
            let (factor, actual) = factors.iter().find_map(|&factor| {
                let actual = outcome.actual? * factor;
                chart_values(chart).any(|y| same(y, actual)).then_some((factor, actual))
            })?;
            let same = |y: f64| same(y, actual);
            // A name's parts: "LAS, 8x8 (w)" is "LAS" and "8x8 (w)".
            let parts = |name: &str| name.split(", ").map(str::to_string).collect::<Vec<_>>();
            let load = value.load.map(crate::text::fmt_number);
            let seed = value.seed.map(|s| s.to_string());
            // How many of the value's keys other than its label a place's names hold.
            let score = |names: &[String], x_load: Option<f64>| {
                let holds = |key: &str| names.iter().any(|n| n == key || n.contains(key));
                usize::from(value.cluster.as_deref().is_some_and(holds))
                    + usize::from(value.workload.as_deref().is_some_and(holds))
                    + usize::from(
                        value.load.is_some_and(|l| x_load == Some(l))
                            || load.as_ref().is_some_and(|l| names.iter().any(|n| *n == format!("load {l}"))),
                    )
                    + usize::from(seed.as_ref().is_some_and(|s| names.iter().any(|n| *n == format!("seed {s}"))))
            };
            let labelled = |names: &[String]| {
                names.iter().any(|n| *n == value.label || n.starts_with(&format!("{} (", value.label)))
            };
            // (score, series, position)
            let mut places: Vec<(usize, usize, f64)> = Vec::new();
            match chart {
                Chart::Line(c) => {
                    for (index, series) in c.series.iter().enumerate() {
                        let names = parts(&series.label);
                        if !(labelled(&names) || c.series.len() == 1) {
                            continue;
                        }
                        for &(x, _) in series.points.iter().filter(|p| same(p.1)) {
                            places.push((score(&names, Some(x)), index, x));
                        }
                    }
                }
                Chart::Bars(c) => {
                    for (index, series) in c.series.iter().enumerate() {
                        for (category, y) in series.values.iter().enumerate() {
                            let mut names = parts(&series.label);
                            names.extend(parts(&c.categories[category]));
                            let single = c.series.len() == 1 && c.categories.len() == 1;
                            if (labelled(&names) || single) && y.is_some_and(same) {
                                places.push((score(&names, None), index, category as f64));
                            }
                        }
                    }
                }
            }
            // The first of the best: `max_by_key` would keep the last.
            let best = places.iter().map(|p| p.0).max()?;
            let (_, series, position) = places.into_iter().find(|p| p.0 == best)?;
            let within = outcome.actual.is_some_and(|a| (a - outcome.expected).abs() <= outcome.tolerance);
            Some(Mark { series, position, value: outcome.expected * factor, within })
        })
        .collect()
}

/// The page: a summary, then per spec its figures with their values, the other values, the
/// sources and notes, then the cost of the runs and the problems met. Each value's check links
/// to its source in the spec's list.
pub fn page(specs: &[PaperSpec], summary: &str, process: ProcessCost, costs: &[Cost], problems: &[String]) -> String {
    let mut out = String::new();
    html::head(&mut out, "Reproduced paper figures");
    out.push_str(
        "<header><h1>Reproduced paper figures</h1>\n<p class=\"description\">Generated by <code>cargo xtask \
         reproduce-figures</code>: every spec in <code>specs/paper/</code> is run, its figures are drawn, and every \
         value in its <code>*.expected.yaml</code> sidecar is compared with the reproduction. On each figure, a \
         diamond marks a published value the reproduction matches within tolerance, a ringed cross one it does \
         not; a value the figure draws otherwise (another unit, another aggregate) is in its table only.</p>\n",
    );
    let verdict = if summary.starts_with("PASS") { "pass" } else { "fail" };
    let _ = writeln!(out, "<p class=\"verdict {verdict}\"><strong>{}</strong></p>", text(summary));
    out.push_str("<nav aria-label=\"specs\">");
    for (i, spec) in specs.iter().enumerate() {
        let tally = spec.tally();
        let failed = if tally.failed > 0 {
            format!(" <span class=\"fail\">{} FAIL</span>", tally.failed)
        } else {
            String::new()
        };
        let separator = if i == 0 { "" } else { " · " };
        let _ = write!(
            out,
            "{separator}<a href=\"#spec-{}\">{}</a> ({}){failed}",
            text(&spec.name),
            text(&spec.name),
            tally.passed + tally.failed
        );
    }
    out.push_str(" · <a href=\"#cost\">Cost</a></nav></header>\n<main>\n");
    out.push_str("<div id=\"js-errors\" class=\"error\" role=\"alert\" hidden></div>\n");
    for spec in specs {
        let _ = writeln!(out, "<section id=\"spec-{}\"><h2>{}</h2>", text(&spec.name), text(&spec.name));
        if let Some(description) = &spec.description {
            let _ = writeln!(out, "<p>{}</p>", text(description));
        }
        let _ = writeln!(out, "<p>Spec: <code>specs/paper/{}</code>, {} runs.</p>", text(&spec.spec_file), spec.runs);
        if spec.sources.is_none() {
            out.push_str("<p class=\"warn\">The spec has no sidecar of expected values.</p>\n");
        }
        for figure in &spec.figures {
            let id = format!("figure-{}-{}", spec.name, figure.name);
            let _ = writeln!(out, "<h3 id=\"{}\">{}</h3>", text(&id), text(&figure.name));
            match &figure.svg {
                Ok(svg) => {
                    let checked = figure.outcomes.iter().filter(|o| o.value.is_some()).count();
                    let marked = if checked == 0 {
                        String::new()
                    } else {
                        format!(": {} of its {checked} published values marked", figure.marked)
                    };
                    let _ = writeln!(
                        out,
                        "<figure class=\"chart\">{svg}<figcaption>{}{marked}</figcaption></figure>",
                        text(&figure.name)
                    );
                }
                Err(why) => {
                    let _ = writeln!(out, "<p class=\"error\">The figure could not be drawn: {}</p>", text(why));
                }
            }
            if !figure.outcomes.is_empty() {
                outcome_table(&mut out, spec, &figure.outcomes, &format!("Values of {}", figure.name));
            }
        }
        if !spec.other.is_empty() {
            out.push_str("<h3>Other reproduced values</h3>\n");
            outcome_table(&mut out, spec, &spec.other, "Values of no figure");
        }
        if let Some(sources) = &spec.sources {
            out.push_str("<h3>Sources</h3>\n<ul>\n");
            for (index, source) in sources.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "<li id=\"{}\">{}: {} (tolerance {})</li>",
                    text(&source_id(spec, index)),
                    text(&source.check),
                    text(&source.source),
                    text(&source.tolerance.to_string())
                );
            }
            out.push_str("</ul>\n");
        }
        if let Some(notes) = &spec.notes {
            let _ = writeln!(out, "<h3>Notes</h3>\n<div class=\"notes\">{}</div>", text(notes.trim_end()));
        }
        out.push_str("</section>\n");
    }
    let _ = writeln!(
        out,
        "<section id=\"cost\"><h2>Cost</h2>\n<p>{}</p>\n\
         <table class=\"data sortable\"><caption>Runs and their CPU time per spec</caption><thead><tr>\
         <th scope=\"col\" class=\"text\">spec</th><th scope=\"col\">runs</th><th scope=\"col\">CPU (s)</th>\
         <th scope=\"col\">sum of run walls (s)</th><th scope=\"col\">costliest run (CPU s)</th></tr></thead><tbody>",
        text(&process.sentence())
    );
    for cost in costs {
        let _ = writeln!(
            out,
            "<tr><th scope=\"row\" class=\"text\">{}</th><td>{}</td><td>{:.1}</td><td>{:.1}</td><td>{:.1}</td></tr>",
            text(&cost.spec),
            cost.runs,
            cost.cpu_s,
            cost.wall_s,
            cost.longest_cpu_s
        );
    }
    out.push_str("</tbody></table>\n");
    if !problems.is_empty() {
        out.push_str("<h3>Problems</h3>\n<ul>\n");
        for problem in problems {
            let _ = writeln!(out, "<li class=\"error\">{}</li>", text(problem));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</section>\n</main>\n");
    html::tail(&mut out);
    out
}

/// The id of the `index`-th source of `spec`'s list.
fn source_id(spec: &PaperSpec, index: usize) -> String {
    format!("source-{}-{index}", spec.name)
}

fn outcome_table(out: &mut String, spec: &PaperSpec, outcomes: &[Outcome], caption: &str) {
    let _ = write!(
        out,
        "<div class=\"scroll\"><table class=\"data sortable outcomes\"><caption>{}</caption><thead><tr>",
        text(caption)
    );
    for column in ["check", "point", "expected", "unit", "reproduced", "difference", "tolerance", "result"] {
        let class = if matches!(column, "check" | "point" | "unit" | "result") { " class=\"text\"" } else { "" };
        let _ = write!(out, "<th scope=\"col\"{class}>{column}</th>");
    }
    out.push_str("</tr></thead><tbody>\n");
    let sources = spec.sources.as_deref().unwrap_or_default();
    for o in outcomes {
        let (actual, difference) = match o.actual {
            Some(a) => (format_value(a), format!("{:+.4}", a - o.expected)),
            None => ("no run".into(), "-".into()),
        };
        let (class, result) = if o.reference {
            ("reference", "reference")
        } else if o.pass {
            ("pass", "PASS")
        } else {
            ("fail", "FAIL")
        };
        let check = match sources.iter().position(|s| s.check == o.check) {
            Some(index) => format!("<a href=\"#{}\">{}</a>", text(&source_id(spec, index)), text(&o.check)),
            None => text(&o.check),
        };
        let _ = writeln!(
            out,
            "<tr class=\"{class}\"><td class=\"text\">{check}</td><th scope=\"row\" class=\"text\">{}</th><td>{}</td>\
             <td class=\"text\">{}</td><td>{actual}</td><td>{difference}</td><td>{}</td>\
             <td class=\"text\"><span class=\"status {class}\">{result}</span></td></tr>",
            text(&o.point),
            format_value(o.expected),
            text(&o.unit),
            format_value(o.tolerance),
        );
    }
    out.push_str("</tbody></table></div>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::render::{Axis, BarChart, BarSeries, LineChart, Scale, Series, Style};
    use crate::paper::ExpectedValue;

    fn outcome(label: &str, load: Option<f64>, expected: f64, actual: f64, tolerance: f64) -> Outcome {
        Outcome {
            check: "c".into(),
            figure: Some("f".into()),
            point: label.into(),
            unit: "hours".into(),
            expected,
            actual: Some(actual),
            tolerance,
            pass: (actual - expected).abs() <= tolerance,
            reference: false,
            value: Some(ExpectedValue {
                label: label.into(),
                load,
                cluster: None,
                workload: None,
                seed: None,
                value: expected,
                tolerance: None,
            }),
        }
    }

    fn series(label: &str, points: Vec<(f64, f64)>) -> Series {
        Series { label: label.into(), style: Style::nth(0), points, spread: Vec::new() }
    }

    #[test]
    fn published_values_go_where_the_reproduction_draws_the_compared_value() {
        let chart = Chart::Line(LineChart {
            title: String::new(),
            x: Axis::new("load", Scale::Linear),
            y: Axis::new("JCT", Scale::Linear),
            // FIFO and LAS draw the same value at load 1; each mark goes on its own series.
            series: vec![series("FIFO", vec![(1.0, 5.0), (2.0, 7.0)]), series("LAS", vec![(1.0, 5.0), (2.0, 6.0)])],
            markers: true,
            notes: Vec::new(),
        });
        let outcomes = [
            outcome("LAS", Some(1.0), 5.1, 5.0, 0.5),
            outcome("FIFO", Some(2.0), 9.0, 7.0, 0.5),
            // Drawn in another unit: no place has the reproduced value, so no mark.
            outcome("LAS", Some(2.0), 6.0, 360.0, 0.5),
        ];
        assert_eq!(
            marks(&outcomes, &chart),
            vec![
                Mark { series: 1, position: 1.0, value: 5.1, within: true },
                Mark { series: 0, position: 2.0, value: 9.0, within: false },
            ]
        );
        let bars = Chart::Bars(BarChart {
            title: String::new(),
            categories: vec!["FIFO".into(), "LAS".into()],
            category_styles: Vec::new(),
            y: Axis::new("JCT", Scale::Linear),
            series: vec![BarSeries {
                label: String::new(),
                style: Style::nth(0),
                values: vec![Some(3.0), Some(4.0)],
                spread: Vec::new(),
            }],
            value_labels: false,
            notes: Vec::new(),
        });
        assert_eq!(
            marks(&[outcome("LAS", None, 4.2, 4.0, 0.1)], &bars),
            vec![Mark { series: 0, position: 1.0, value: 4.2, within: false }]
        );
    }

    fn with_value(mut o: Outcome, cluster: &str) -> Outcome {
        o.value.as_mut().unwrap().cluster = Some(cluster.into());
        o.unit = "seconds".into();
        o
    }

    /// A value checked in seconds on a figure drawn in hours is marked in hours; of two
    /// clusters drawing the same value, the mark goes to the value's own.
    #[test]
    fn marks_follow_the_figure_s_unit_and_the_value_s_keys() {
        let chart = Chart::Bars(BarChart {
            title: String::new(),
            categories: vec!["8x8".into(), "16x8".into()],
            category_styles: Vec::new(),
            y: Axis::new("JCT (hours)", Scale::Linear),
            series: vec![BarSeries {
                label: "EDF".into(),
                style: Style::nth(0),
                values: vec![Some(2.0), Some(2.0)],
                spread: Vec::new(),
            }],
            value_labels: false,
            notes: Vec::new(),
        });
        let outcome = with_value(outcome("EDF", None, 7300.0, 7200.0, 50.0), "16x8");
        let marks = marks(&[outcome], &chart);
        assert_eq!(marks.len(), 1);
        assert_eq!((marks[0].series, marks[0].position, marks[0].within), (0, 1.0, false));
        assert!((marks[0].value - 7300.0 / 3600.0).abs() < 1e-12, "{marks:?}");
    }

    #[test]
    fn tallies_count_asserted_and_reference_values_apart() {
        let mut reference = outcome("L", None, 1.0, 9.0, 0.0);
        reference.reference = true;
        reference.pass = true;
        let spec = PaperSpec {
            name: "x".into(),
            description: None,
            spec_file: "x.yaml".into(),
            runs: 1,
            figures: Vec::new(),
            other: vec![outcome("L", None, 1.0, 1.0, 0.0), outcome("L", None, 1.0, 2.0, 0.5), reference],
            sources: None,
            notes: None,
        };
        let tally = Tally::of(&[spec.clone(), spec]);
        assert_eq!(tally, Tally { passed: 2, failed: 2, references: 2 });
        assert!(
            tally
                .summary(2, 0)
                .starts_with("FAIL: 2 of 4 values reproduced within tolerance across 2 specs (2 reference")
        );
        assert!(
            Tally { passed: 1, failed: 0, references: 0 }.summary(1, 1).starts_with("FAIL"),
            "a problem fails the run"
        );
    }

    #[test]
    fn text_of_sidecars_is_escaped() {
        let spec = PaperSpec {
            name: "x".into(),
            description: Some("<script>alert(1)</script>".into()),
            spec_file: "x.yaml".into(),
            runs: 1,
            figures: Vec::new(),
            other: vec![outcome("<b>L</b>", None, 1.0, 1.0, 0.0)],
            sources: Some(vec![Source {
                check: "c".into(),
                source: "<img src=x onerror=alert(2)>".into(),
                tolerance: 0.5,
            }]),
            notes: Some("a < b".into()),
        };
        let page = page(&[spec], "PASS: 1 of 1", ProcessCost::default(), &[], &[]);
        assert_eq!(page.matches("<script").count(), 2);
        assert!(!page.contains("<img") && !page.contains("<b>L"));
        assert!(page.contains("&lt;img src=x onerror=alert(2)&gt;") && page.contains("a &lt; b"));
    }

    /// A spec's cost sums CPU and wall separately, its costliest run is the one with the most
    /// CPU, and the process's cost is measured: CPU spent between start and cost counts.
    #[test]
    fn costs_count_cpu_apart_from_wall() {
        let row = |wall_time_s, cpu_time_s| crate::results::RunRow { wall_time_s, cpu_time_s, ..Default::default() };
        let cost = Cost::of("s", &[row(3.0, 1.0), row(1.0, 2.0)]);
        assert_eq!((cost.runs, cost.cpu_s, cost.wall_s, cost.longest_cpu_s), (2, 3.0, 4.0, 2.0));
        let clock = ProcessClock::start();
        let mut x = 1u64;
        for i in 0..20_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
        }
        let process = clock.cost();
        assert!(process.cpu_s > 0.0 && process.peak_rss_mib > 0.0, "{process:?}");
        let page = page(&[], "PASS", process, &[cost], &[]);
        assert!(page.contains("<td>3.0</td><td>4.0</td><td>2.0</td>"), "{page}");
    }
}
