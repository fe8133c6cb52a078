//! Turns a declared figure and an experiment's tables into chart data.
//!
//! Grouping rule shared by all kinds: among the selected runs, every grid axis that takes more
//! than one value and is not the figure's own axis splits the data into series, except a cluster
//! or workload that follows from the other keys (`zip_clusters_workloads`: each trace on its own
//! cluster), which is named beside the key it follows instead; seeds are averaged (metric-vs,
//! bars: the mean, with min-max error bars) or pooled (CDF) unless the figure plots against them.
//!
//! Styles come from the whole experiment, not from one figure: a policy's colour, dash, marker
//! and hatch are fixed by its place in the spec's `policies:` list ([`Order`]), so `select:`
//! filters never reshuffle them.

use super::declare::{
    ArrivedAxisFigure, ArrivedBarsFigure, BarsFigure, CdfFigure, FigureSpec, GridAxis, MetricVsFigure, OverSeeds,
    TimelineFigure,
};
use super::render::{Axis, BarChart, BarSeries, LineChart, Scale, Series, Spread, Style};
use crate::core::placements::axis::LAST_COLUMN;
use crate::results::{self, RunInfo, RunRow};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A figure ready to render.
pub enum Chart {
    Line(LineChart),
    Bars(BarChart),
}

/// A chart and what the user should hear about it (also drawn on it as notes where it matters).
pub struct Built {
    pub chart: Chart,
    pub warnings: Vec<String>,
}

/// Most points kept per CDF curve: enough to look continuous in print, small enough for SVG.
const CDF_POINTS: usize = 500;
/// Most points kept per timeline curve (as min/max pairs per bucket, so spikes survive).
const TIMELINE_POINTS: usize = 2000;

/// The experiment-wide order of every grid axis' values: policy labels in the spec's
/// `policies:` order (then any others in grid order), every other axis in grid order of all
/// runs. Series styles are indices into it.
#[derive(Debug, Clone, Default)]
pub struct Order {
    values: BTreeMap<&'static str, Vec<String>>,
}

fn axis_name(axis: GridAxis) -> &'static str {
    match axis {
        GridAxis::Label => "label",
        GridAxis::Cluster => "cluster",
        GridAxis::Workload => "workload",
        GridAxis::Load => "load",
        GridAxis::Seed => "seed",
    }
}

impl Order {
    /// `policy_labels` is the spec's `policies:` order (may be empty); `rows` are all runs of
    /// the experiment (not one figure's selection), in grid order.
    pub fn new(policy_labels: &[String], rows: &[RunRow]) -> Order {
        let mut values: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
        values.insert(axis_name(GridAxis::Label), policy_labels.to_vec());
        for axis in GridAxis::ALL {
            let list = values.entry(axis_name(axis)).or_default();
            for row in rows {
                let key = axis.key(&row.info);
                if !list.contains(&key) {
                    list.push(key);
                }
            }
        }
        Order { values }
    }

    fn list(&self, axis: GridAxis) -> &[String] {
        self.values.get(axis_name(axis)).map_or(&[], Vec::as_slice)
    }

    /// Place of `info`'s value on `axis` (values never seen go after the known ones).
    fn index(&self, axis: GridAxis, info: &RunInfo) -> usize {
        let list = self.list(axis);
        let key = axis.key(info);
        list.iter().position(|k| *k == key).unwrap_or(list.len())
    }

    /// Place of `info`'s combination of values on `axes` among all combinations (mixed radix).
    fn combination(&self, axes: &[GridAxis], info: &RunInfo) -> usize {
        axes.iter().fold(0, |acc, axis| acc * (self.list(*axis).len() + 1) + self.index(*axis, info))
    }

    /// The look of a series whose runs share `info`'s values on `axes`: colour by policy
    /// whenever one policy stands behind the series, dash/marker/hatch by policy too unless other
    /// axes split the series (then by their combination); without a policy, both by the
    /// combination.
    fn style(&self, axes: &[GridAxis], info: &RunInfo, one_policy: bool) -> Style {
        let others: Vec<GridAxis> = axes.iter().copied().filter(|a| *a != GridAxis::Label).collect();
        if axes.contains(&GridAxis::Label) || one_policy {
            let color = self.index(GridAxis::Label, info);
            let pattern = if others.is_empty() { color } else { self.combination(&others, info) };
            Style { color, pattern }
        } else {
            Style::nth(self.combination(&others, info))
        }
    }
}

/// Builds `figure` from the runs `rows` of `experiment_dir` (jobs and timelines are read there);
/// `order` is the experiment's, so styles agree across figures.
pub fn build(figure: &FigureSpec, experiment_dir: &Path, rows: &[RunRow], order: &Order) -> Result<Built, String> {
    let selected: Vec<&RunRow> = rows.iter().filter(|r| figure.selection().matches(&r.info)).collect();
    if selected.is_empty() {
        return Err("no run matches the figure's `select`".into());
    }
    match figure {
        FigureSpec::MetricVs(f) => metric_vs(f, &selected, order),
        FigureSpec::Cdf(f) => cdf(f, experiment_dir, &selected, order),
        FigureSpec::Timeline(f) => timeline(f, experiment_dir, &selected, order),
        FigureSpec::Bars(f) => bars(f, &selected, order),
        FigureSpec::ArrivedAxis(f) => arrived_axis(f, experiment_dir, &selected, order),
        FigureSpec::ArrivedBars(f) => arrived_bars(f, experiment_dir, &selected, order),
    }
}

/// Distinct values of `axis` among `rows`.
fn distinct(rows: &[&RunRow], axis: GridAxis) -> BTreeSet<String> {
    rows.iter().map(|r| axis.key(&r.info)).collect()
}

/// Grid axes with more than one value among `rows`, in a fixed order.
fn varying(rows: &[&RunRow]) -> Vec<GridAxis> {
    GridAxis::ALL.into_iter().filter(|axis| distinct(rows, *axis).len() > 1).collect()
}

/// Whether `rows`' value on `target` follows from their values on `by`.
fn determined(rows: &[&RunRow], target: GridAxis, by: &[GridAxis]) -> bool {
    let mut seen: BTreeMap<Vec<String>, String> = BTreeMap::new();
    rows.iter().all(|r| {
        let key: Vec<String> = by.iter().map(|a| a.key(&r.info)).collect();
        let value = target.key(&r.info);
        seen.entry(key).or_insert_with(|| value.clone()) == &value
    })
}

/// How series are formed: the axes that split them, and a cluster or workload that follows from
/// the category axis or the other series axes (named beside them instead of splitting).
struct Split {
    axes: Vec<GridAxis>,
    /// (folded axis, whether the category axis alone determines it)
    folded: Option<(GridAxis, bool)>,
}

fn split(rows: &[&RunRow], category_axis: Option<GridAxis>, mut axes: Vec<GridAxis>) -> Split {
    let mut folded = None;
    for candidate in [GridAxis::Cluster, GridAxis::Workload] {
        if folded.is_some() || !axes.contains(&candidate) {
            continue;
        }
        let others: Vec<GridAxis> = axes.iter().copied().filter(|a| *a != candidate).chain(category_axis).collect();
        if !others.is_empty() && determined(rows, candidate, &others) {
            let by_category = category_axis.is_some_and(|c| determined(rows, candidate, &[c]));
            axes.retain(|a| *a != candidate);
            folded = Some((candidate, by_category));
        }
    }
    Split { axes, folded }
}

impl Split {
    /// Legend text of a run: its values on the series axes (the folded one beside them in
    /// parentheses); the policy label alone when nothing else varies.
    fn name(&self, info: &RunInfo) -> String {
        let mut parts: Vec<String> = self.axes.iter().map(|a| a.describe(info)).collect();
        if let Some((axis, false)) = self.folded {
            // Beside the cluster's or workload's own part when there is one, else last.
            let partner = self.axes.iter().position(|a| matches!(a, GridAxis::Cluster | GridAxis::Workload));
            if let Some(part) = partner.or(parts.len().checked_sub(1)).and_then(|i| parts.get_mut(i)) {
                part.push_str(&format!(" ({})", axis.key(info)));
            }
        }
        if parts.is_empty() { info.label.clone() } else { parts.join(", ") }
    }
}

/// Groups rows by their value on `axes`, keeping first-appearance (grid) order.
fn group_by<'a>(rows: &[&'a RunRow], axes: &[GridAxis]) -> Vec<Vec<&'a RunRow>> {
    let mut groups: Vec<(Vec<String>, Vec<&RunRow>)> = Vec::new();
    for &row in rows {
        let key: Vec<String> = axes.iter().map(|a| a.key(&row.info)).collect();
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(row),
            None => groups.push((key, vec![row])),
        }
    }
    groups.into_iter().map(|(_, rows)| rows).collect()
}

fn scale(log: bool) -> Scale {
    if log { Scale::Log } else { Scale::Linear }
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = values.filter(|x| x.is_finite()).collect();
    if v.is_empty() { f64::NAN } else { v.iter().sum::<f64>() / v.len() as f64 }
}

/// Minimum, maximum and sample standard deviation of finite `values`.
fn spread_of(values: &[f64]) -> Option<Spread> {
    let v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    let n = v.len();
    let m = v.iter().sum::<f64>() / n as f64;
    let sd = if n > 1 { (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt() } else { f64::NAN };
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some(Spread { min, max, sd, n })
}

/// The median of finite `values` with their 25th and 75th percentiles as the spread's range
/// (linear interpolation between order statistics, numpy's and pandas' default; the standard
/// deviation kept for the figure's CSV).
fn median_and_quartiles(values: &[f64]) -> Point {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if sorted.is_empty() {
        return Point { y: f64::NAN, spread: None };
    }
    sorted.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let rank = q * (sorted.len() - 1) as f64;
        let (low, high) = (rank.floor() as usize, rank.ceil() as usize);
        sorted[low] + (sorted[high] - sorted[low]) * (rank - low as f64)
    };
    let spread = spread_of(&sorted).map(|s| Spread { min: at(0.25), max: at(0.75), ..s });
    Point { y: at(0.5), spread }
}

/// "1, 2 and 3", "1-10": the seeds behind a figure, for its notes.
fn describe_seeds(rows: &[&RunRow]) -> String {
    let seeds: BTreeSet<u64> = rows.iter().map(|r| r.info.seed).collect();
    let list: Vec<u64> = seeds.into_iter().collect();
    let consecutive = list.windows(2).all(|w| w[1] == w[0] + 1);
    match list.as_slice() {
        [first, .., last] if consecutive && list.len() > 3 => format!("{first}–{last}"),
        [init @ .., last] if !init.is_empty() => {
            format!("{} and {last}", init.iter().map(u64::to_string).collect::<Vec<_>>().join(", "))
        }
        _ => list.iter().map(u64::to_string).collect(),
    }
}

/// A plotted value: the mean over seeds, and its spread when seeds were averaged.
#[derive(Clone, Copy, Debug)]
struct Point {
    y: f64,
    spread: Option<Spread>,
}

/// For metric-vs and bars: `(series, category) -> values per seed`.
struct Table {
    split: Split,
    /// Per series: its name, one of its runs (for its grid keys) and its style.
    series: Vec<(String, RunInfo, Style)>,
    categories: Vec<(String, Option<f64>)>,
    /// `[series][category]`: (seed, value) of each run there.
    cells: Vec<Vec<Vec<(u64, f64)>>>,
    /// Whether more than one seed is averaged (so a spread is worth reporting).
    seeds_averaged: bool,
}

fn tabulate(rows: &[&RunRow], category_axis: GridAxis, order: &Order, value: impl Fn(&RunRow) -> f64) -> Table {
    let axes: Vec<GridAxis> =
        varying(rows).into_iter().filter(|a| *a != category_axis && *a != GridAxis::Seed).collect();
    let split = split(rows, Some(category_axis), axes);
    let mut categories: Vec<(String, Option<f64>)> = Vec::new();
    for r in rows {
        let key = category_axis.key(&r.info);
        if !categories.iter().any(|c| c.0 == key) {
            categories.push((key, category_axis.number(&r.info)));
        }
    }
    if categories.iter().all(|c| c.1.is_some()) {
        categories.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal));
    }
    let one_policy = distinct(rows, GridAxis::Label).len() == 1;
    let groups = group_by(rows, &split.axes);
    let cells = groups
        .iter()
        .map(|members| {
            categories
                .iter()
                .map(|(c, _)| {
                    members
                        .iter()
                        .filter(|r| category_axis.key(&r.info) == *c)
                        .map(|r| (r.info.seed, value(r)))
                        .filter(|(_, v)| v.is_finite())
                        .collect()
                })
                .collect()
        })
        .collect();
    // When the policies are the categories and nothing else varies, the one series needs no name
    // (and no legend).
    let unnamed = split.axes.is_empty() && category_axis == GridAxis::Label;
    let series = groups
        .iter()
        .map(|members| {
            let info = members[0].info.clone();
            let name = if unnamed { String::new() } else { split.name(&info) };
            let style = order.style(&split.axes, &info, one_policy);
            (name, info, style)
        })
        .collect();
    let seeds_averaged = category_axis != GridAxis::Seed && distinct(rows, GridAxis::Seed).len() > 1;
    Table { split, series, categories, cells, seeds_averaged }
}

impl Table {
    fn point(&self, cell: &[(u64, f64)]) -> Point {
        let values: Vec<f64> = cell.iter().map(|(_, v)| *v).collect();
        Point { y: mean(values.iter().copied()), spread: spread_of(&values).filter(|_| self.seeds_averaged) }
    }

    /// Means over seeds, with their spread.
    fn points(&self) -> Vec<Vec<Point>> {
        self.cells.iter().map(|row| row.iter().map(|cell| self.point(cell)).collect()).collect()
    }

    /// Each value divided by the `baseline` policy's at the same point: the same category of the
    /// same series when policies are the categories, else the same category of the series that
    /// differs only in its label. The plotted value is the ratio of the means over seeds (as
    /// before seeds had error bars); its spread is that of the per-seed ratios (same seed: same
    /// jobs).
    fn normalized(&self, category_axis: GridAxis, baseline: &str) -> Result<Vec<Vec<Point>>, String> {
        let ratio = |cell: &[(u64, f64)], base: &[(u64, f64)]| -> Point {
            let y = mean(cell.iter().map(|(_, v)| *v)) / mean(base.iter().map(|(_, v)| *v));
            let ratios: Vec<f64> =
                cell.iter().filter_map(|(seed, v)| base.iter().find(|(s, _)| s == seed).map(|(_, b)| v / b)).collect();
            Point { y, spread: spread_of(&ratios).filter(|_| self.seeds_averaged) }
        };
        if category_axis == GridAxis::Label {
            let b = self
                .categories
                .iter()
                .position(|c| c.0 == baseline)
                .ok_or_else(|| format!("normalize_to: no policy `{baseline}` among the bars"))?;
            return Ok(self.cells.iter().map(|row| row.iter().map(|cell| ratio(cell, &row[b])).collect()).collect());
        }
        let others = |info: &RunInfo| -> Vec<String> {
            self.split.axes.iter().filter(|a| **a != GridAxis::Label).map(|a| a.key(info)).collect()
        };
        (0..self.cells.len())
            .map(|i| {
                let want = others(&self.series[i].1);
                let b = (0..self.cells.len())
                    .find(|&k| self.series[k].1.label == baseline && others(&self.series[k].1) == want)
                    .ok_or_else(|| {
                        format!("normalize_to: no `{baseline}` line to compare `{}` with", self.series[i].0)
                    })?;
                Ok(self.cells[i].iter().zip(&self.cells[b]).map(|(cell, base)| ratio(cell, base)).collect())
            })
            .collect()
    }

    /// The note on error bars: what they show, or that seeds changed nothing.
    fn seed_note(&self, points: &[Vec<Point>], rows: &[&RunRow], bars: bool, normalized: bool) -> Option<String> {
        if !self.seeds_averaged {
            return None;
        }
        let seeds = describe_seeds(rows);
        let several: Vec<Spread> = points.iter().flatten().filter_map(|p| p.spread).filter(|s| s.n > 1).collect();
        if several.is_empty() {
            return None;
        }
        let (any_varies, all_vary) = (several.iter().any(Spread::varies), several.iter().all(Spread::varies));
        let shape = if bars { "bar" } else { "marker" };
        let per_seed = if normalized { " of the per-seed ratios" } else { "" };
        let agree = if all_vary { "" } else { "; none where all seeds agree" };
        Some(if any_varies {
            format!("Error bars: min–max{per_seed} over seeds {seeds} ({shape}: mean){agree}.")
        } else {
            format!("Seeds {seeds} give identical values at every point: no spread over seeds to show.")
        })
    }
}

/// The distinct workloads of `runs` in grid order, as "`a`, `b`", and how many there are.
fn workloads(runs: &[&RunRow]) -> (String, usize) {
    let mut names: Vec<String> = Vec::new();
    for r in runs {
        let name = format!("`{}`", r.info.workload);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    (names.join(", "), names.len())
}

fn metric_vs(f: &MetricVsFigure, rows: &[&RunRow], order: &Order) -> Result<Built, String> {
    let mut warnings = Vec::new();
    let mut notes = Vec::new();
    let mut rows = rows.to_vec();
    if f.x == GridAxis::Load {
        let (with_load, without): (Vec<&RunRow>, Vec<&RunRow>) = rows.iter().partition(|r| r.info.load.is_some());
        if with_load.is_empty() {
            return load_fallback(f, &rows, order);
        }
        if !without.is_empty() {
            let (names, count) = workloads(&without);
            let (workload, it_takes) = if count == 1 { ("workload", "it takes") } else { ("workloads", "they take") };
            let n = without.len();
            let the_runs = if n == 1 { "the run".to_string() } else { format!("the {n} runs") };
            warnings.push(format!(
                "left out {the_runs} of {workload} {names}: {it_takes} no load (no `loads:` value applies), so a load \
                 axis has no place for {}",
                if n == 1 { "it" } else { "them" }
            ));
            notes.push(format!(
                "Not shown: {workload} {names}, which {} no load.",
                if count == 1 { "takes" } else { "take" }
            ));
            rows = with_load;
        }
    } else if !rows.iter().all(|r| f.x.number(&r.info).is_some()) {
        return Err(format!(
            "x axis `{}` is not numeric: plot it with `bars` (`categories: {}`) instead",
            f.x.caption(),
            axis_name(f.x)
        ));
    }
    let table = tabulate(&rows, f.x, order, |r| f.y.display_value(r, f.unit));
    let mut y_label = f.y_label.clone().unwrap_or_else(|| f.y.axis_label(f.unit));
    let points = match &f.normalize_to {
        Some(baseline) => {
            y_label = f.y_label.clone().unwrap_or_else(|| format!("{} (normalized to {baseline})", f.y.caption()));
            table.normalized(f.x, baseline)?
        }
        None => table.points(),
    };
    notes.extend(table.seed_note(&points, &rows, false, f.normalize_to.is_some()));
    let series = table
        .series
        .iter()
        .zip(&points)
        .map(|((label, _, style), row)| {
            let placed: Vec<(f64, Point)> =
                table.categories.iter().zip(row).filter_map(|(c, p)| Some((c.1?, *p))).collect();
            Series {
                label: label.clone(),
                style: *style,
                points: placed.iter().map(|(x, p)| (*x, p.y)).collect(),
                spread: placed.iter().map(|(_, p)| p.spread).collect(),
            }
        })
        .collect();
    let chart = LineChart {
        title: f.title.clone().unwrap_or_else(|| format!("{} vs {}", f.y.caption(), f.x.caption().to_lowercase())),
        x: Axis {
            ticks_at: table.categories.iter().filter_map(|c| c.1).collect(),
            ..Axis::new(f.x_label.clone().unwrap_or_else(|| f.x.caption().into()), scale(f.x_log))
        },
        y: Axis::new(y_label, scale(f.y_log)),
        series,
        markers: true,
        notes,
    };
    Ok(Built { chart: Chart::Line(chart), warnings })
}

/// A load-axis figure whose runs have no load at all: the same metric as bars over the grid axis
/// that does vary (workload, else cluster, else policy), with a note saying so.
fn load_fallback(f: &MetricVsFigure, rows: &[&RunRow], order: &Order) -> Result<Built, String> {
    let varying = varying(rows);
    let categories =
        [GridAxis::Workload, GridAxis::Cluster].into_iter().find(|a| varying.contains(a)).unwrap_or(GridAxis::Label);
    let as_bars = BarsFigure {
        name: f.name.clone(),
        title: f.title.clone(),
        y: f.y,
        unit: f.unit,
        categories,
        y_log: f.y_log,
        y_label: f.y_label.clone(),
        value_labels: true,
        normalize_to: f.normalize_to.clone(),
        size: f.size,
        select: f.select.clone(),
    };
    let mut built = bars(&as_bars, rows, order)?;
    let axis = categories.caption().to_lowercase();
    built.warnings.insert(0, {
        let (names, count) = workloads(rows);
        let (runs, workload, take) = match (rows.len(), count) {
            (1, _) => ("the selected run has", "its workload", "takes"),
            (_, 1) => ("none of the selected runs has", "their workload", "takes"),
            _ => ("none of the selected runs has", "their workloads", "take"),
        };
        format!(
            "x is `load`, but {runs} a load: {workload} {names} {take} none (only blox-philly-synthetic, \
                 blox-bursty and traces with `rescale-arrivals: {{jobs_per_hour: load}}` do); drawn as bars by {axis} \
                 instead"
        )
    });
    if let Chart::Bars(chart) = &mut built.chart {
        chart.notes.insert(
            0,
            format!("No selected run has a load (their workloads take none): bars by {axis} instead of a load axis."),
        );
    }
    Ok(built)
}

fn bars(f: &BarsFigure, rows: &[&RunRow], order: &Order) -> Result<Built, String> {
    let table = tabulate(rows, f.categories, order, |r| f.y.display_value(r, f.unit));
    let mut y_label = f.y_label.clone().unwrap_or_else(|| f.y.axis_label(f.unit));
    let points = match &f.normalize_to {
        Some(baseline) => {
            y_label = f.y_label.clone().unwrap_or_else(|| format!("{} (normalized to {baseline})", f.y.caption()));
            table.normalized(f.categories, baseline)?
        }
        None => table.points(),
    };
    let notes: Vec<String> = table.seed_note(&points, rows, true, f.normalize_to.is_some()).into_iter().collect();
    let title =
        f.title.clone().unwrap_or_else(|| format!("{} by {}", f.y.caption(), f.categories.caption().to_lowercase()));
    let y = Axis::new(y_label, scale(f.y_log));
    Ok(bar_chart(
        &table,
        points,
        BarLayout { category_axis: f.categories, title, y, value_labels: f.value_labels, notes },
        rows,
        order,
    ))
}

/// What a bar chart says besides its values.
struct BarLayout {
    category_axis: GridAxis,
    title: String,
    y: Axis,
    value_labels: bool,
    notes: Vec<String>,
}

/// `table`'s `points` as grouped bars: its categories on x, one bar per series.
fn bar_chart(table: &Table, points: Vec<Vec<Point>>, layout: BarLayout, rows: &[&RunRow], order: &Order) -> Built {
    let BarLayout { category_axis, title, y, value_labels, notes } = layout;
    // A cluster that follows from the category is named under it.
    let folded = match table.split.folded {
        Some((axis, true)) => Some(axis),
        _ => None,
    };
    let mut categories = Vec::new();
    for (key, _) in &table.categories {
        let name = match category_axis {
            GridAxis::Load => format!("load {key}"),
            _ => key.clone(),
        };
        let beside =
            folded.and_then(|axis| rows.iter().find(|r| category_axis.key(&r.info) == *key).map(|r| axis.key(&r.info)));
        categories.push(match beside {
            Some(value) => format!("{name} ({value})"),
            None => name,
        });
    }
    // One series whose categories are the policies: each bar in its policy's look.
    let category_styles = if category_axis == GridAxis::Label && table.series.len() == 1 {
        table
            .categories
            .iter()
            .map(|(key, _)| {
                let row = rows.iter().find(|r| r.info.label == *key).expect("every category comes from a run");
                Style::nth(order.index(GridAxis::Label, &row.info))
            })
            .collect()
    } else {
        Vec::new()
    };
    let chart = BarChart {
        title,
        categories,
        category_styles,
        y,
        series: table
            .series
            .iter()
            .zip(points)
            .map(|((name, _, style), row)| BarSeries {
                label: name.clone(),
                style: *style,
                values: row.iter().map(|p| p.y.is_finite().then_some(p.y)).collect(),
                spread: row.iter().map(|p| p.spread).collect(),
            })
            .collect(),
        value_labels,
        notes,
    };
    Built { chart: Chart::Bars(chart), warnings: Vec::new() }
}

fn cdf(f: &CdfFigure, experiment_dir: &Path, rows: &[&RunRow], order: &Order) -> Result<Built, String> {
    let axes: Vec<GridAxis> = varying(rows).into_iter().filter(|a| *a != GridAxis::Seed).collect();
    let split = split(rows, None, axes);
    let one_policy = distinct(rows, GridAxis::Label).len() == 1;
    let mut series = Vec::new();
    for members in group_by(rows, &split.axes) {
        let mut values = Vec::new();
        for r in &members {
            let jobs = results::read_jobs(experiment_dir, &r.info.run_key).map_err(|e| e.to_string())?;
            values.extend(jobs.iter().filter_map(|j| f.metric.value(j)).map(|s| f.unit.from_seconds(s)));
        }
        values.sort_by(f64::total_cmp);
        let info = &members[0].info;
        series.push(Series {
            label: split.name(info),
            style: order.style(&split.axes, info, one_policy),
            points: cdf_points(&values),
            spread: Vec::new(),
        });
    }
    let mut notes = Vec::new();
    if distinct(rows, GridAxis::Seed).len() > 1 {
        notes.push(format!("Each curve pools the jobs of seeds {}.", describe_seeds(rows)));
    }
    let chart = LineChart {
        title: f.title.clone().unwrap_or_else(|| format!("CDF of {}", f.metric.caption().to_lowercase())),
        x: Axis::new(
            f.x_label.clone().unwrap_or_else(|| format!("{} ({})", f.metric.caption(), f.unit.name())),
            scale(f.x_log),
        ),
        y: Axis { range: Some((0.0, 1.0)), ..Axis::new("Fraction of jobs", Scale::Linear) },
        series,
        markers: false,
        notes,
    };
    Ok(Built { chart: Chart::Line(chart), warnings: Vec::new() })
}

/// The empirical CDF `(value, fraction <= value)` of sorted `values`, at most [`CDF_POINTS`] points.
fn cdf_points(sorted: &[f64]) -> Vec<(f64, f64)> {
    let n = sorted.len();
    if n == 0 {
        return Vec::new();
    }
    let step = n.div_ceil(CDF_POINTS).max(1);
    let mut points: Vec<(f64, f64)> =
        (step - 1..n).step_by(step).map(|i| (sorted[i], (i + 1) as f64 / n as f64)).collect();
    if points.last().is_none_or(|p| p.1 < 1.0) {
        points.push((sorted[n - 1], 1.0));
    }
    points.insert(0, (sorted[0], 1.0 / n as f64));
    points
}

fn timeline(f: &TimelineFigure, experiment_dir: &Path, rows: &[&RunRow], order: &Order) -> Result<Built, String> {
    let split = split(rows, None, varying(rows));
    let one_policy = distinct(rows, GridAxis::Label).len() == 1;
    let mut series = Vec::new();
    for r in rows {
        let rounds = results::read_timeline(experiment_dir, &r.info.run_key).map_err(|e| e.to_string())?;
        if rounds.is_empty() {
            return Err(format!("run {} has no timeline (was `output: {{timeline: false}}` set?)", r.info.run_key));
        }
        let points: Vec<(f64, f64)> =
            rounds.iter().map(|row| (f.unit.from_seconds(row.time), f.series.value(row).unwrap_or(f64::NAN))).collect();
        series.push(Series {
            label: split.name(&r.info),
            style: order.style(&split.axes, &r.info, one_policy),
            points: decimate(&points),
            spread: Vec::new(),
        });
    }
    let chart = LineChart {
        title: f.title.clone().unwrap_or_else(|| format!("{} over time", f.series.caption())),
        x: Axis::new(format!("Simulated time ({})", f.unit.name()), scale(f.x_log)),
        y: Axis::new(f.y_label.clone().unwrap_or_else(|| f.series.caption().into()), scale(f.y_log)),
        series,
        markers: false,
        notes: Vec::new(),
    };
    Ok(Built { chart: Chart::Line(chart), warnings: Vec::new() })
}

fn arrived_axis(
    f: &ArrivedAxisFigure,
    experiment_dir: &Path,
    rows: &[&RunRow],
    order: &Order,
) -> Result<Built, String> {
    let axes: Vec<GridAxis> = varying(rows).into_iter().filter(|a| *a != GridAxis::Seed).collect();
    let split = split(rows, None, axes);
    let one_policy = distinct(rows, GridAxis::Label).len() == 1;
    let (from, to) = f.x_range.map_or((0.0, LAST_COLUMN as f64), |[a, b]| (a, b));
    let mut series = Vec::new();
    for group in group_by(rows, &split.axes) {
        let mut columns: Vec<Vec<f64>> = vec![Vec::new(); LAST_COLUMN + 1];
        for r in &group {
            let axis = results::read_arrived_axis(experiment_dir, r)?;
            for (column, values) in columns.iter_mut().enumerate() {
                values.extend(f.y.at(&axis, column));
            }
        }
        let placed: Vec<(f64, Point)> = columns
            .iter()
            .enumerate()
            .filter(|(column, values)| !values.is_empty() && (from..=to).contains(&(*column as f64)))
            .map(|(column, values)| {
                let point = match f.over_seeds {
                    OverSeeds::Mean => Point { y: mean(values.iter().copied()), spread: spread_of(values) },
                    OverSeeds::Median => median_and_quartiles(values),
                };
                let spread = point.spread.filter(|_| group.len() > 1);
                (column as f64, Point { spread, ..point })
            })
            .collect();
        series.push(Series {
            label: split.name(&group[0].info),
            style: order.style(&split.axes, &group[0].info, one_policy),
            points: placed.iter().map(|(x, p)| (*x, p.y)).collect(),
            spread: placed.iter().map(|(_, p)| p.spread).collect(),
        });
    }
    let seeds = distinct(rows, GridAxis::Seed).len();
    let notes = if seeds > 1 {
        let statistic = match f.over_seeds {
            OverSeeds::Mean => "Mean over seeds {} with min-max bars.",
            OverSeeds::Median => "Median over seeds {} with bars from the 25th to the 75th percentile.",
        };
        vec![statistic.replace("{}", &describe_seeds(rows))]
    } else {
        Vec::new()
    };
    let y_label = f.y_label.clone().unwrap_or_else(|| f.y.caption().into());
    let chart = LineChart {
        title: f.title.clone().unwrap_or_else(|| format!("{y_label} vs arrived workload")),
        x: Axis { range: Some((from, to)), ..Axis::new("Arrived workload (% of GPU capacity)", Scale::Linear) },
        y: Axis { range: f.y_range.map(|[a, b]| (a, b)), ..Axis::new(y_label, Scale::Linear) },
        series,
        markers: false,
        notes,
    };
    Ok(Built { chart: Chart::Line(chart), warnings: Vec::new() })
}

/// Each run's measure at column `f.at` of its arrived axis, as bars by `f.categories`.
fn arrived_bars(
    f: &ArrivedBarsFigure,
    experiment_dir: &Path,
    rows: &[&RunRow],
    order: &Order,
) -> Result<Built, String> {
    let mut values = BTreeMap::new();
    for r in rows {
        let axis = results::read_arrived_axis(experiment_dir, r)?;
        values.insert(r.info.run_key.clone(), f.y.at(&axis, f.at.0).unwrap_or(f64::NAN));
    }
    let table = tabulate(rows, f.categories, order, |r| values[&r.info.run_key]);
    let points = table.points();
    let notes = table.seed_note(&points, rows, true, false).into_iter().collect();
    let y_label = f.y_label.clone().unwrap_or_else(|| format!("{} at {} % arrived", f.y.caption(), f.at.0));
    let title = f.title.clone().unwrap_or_else(|| format!("{y_label} by {}", f.categories.caption().to_lowercase()));
    let y = Axis::new(y_label, Scale::Linear);
    let layout = BarLayout { category_axis: f.categories, title, y, value_labels: f.value_labels, notes };
    Ok(bar_chart(&table, points, layout, rows, order))
}

/// Keeps each bucket's minimum and maximum (in time order) so peaks and troughs survive thinning.
fn decimate(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let buckets = TIMELINE_POINTS / 2;
    if points.len() <= TIMELINE_POINTS {
        return points.to_vec();
    }
    let size = points.len().div_ceil(buckets);
    let mut out = Vec::with_capacity(TIMELINE_POINTS);
    for chunk in points.chunks(size) {
        let lo = chunk.iter().min_by(|a, b| a.1.total_cmp(&b.1)).copied().unwrap_or(chunk[0]);
        let hi = chunk.iter().max_by(|a, b| a.1.total_cmp(&b.1)).copied().unwrap_or(chunk[0]);
        if lo.0 <= hi.0 {
            out.extend([lo, hi]);
        } else {
            out.extend([hi, lo]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::metrics::{DeadlineStats, RunSummary};
    use crate::figures::declare::{FigureName, Selection};
    use crate::figures::render::Size;
    use crate::results::metric::{RunMetric, TimeUnit};

    /// A run with `avg_jct` hours.
    fn row(label: &str, cluster: &str, workload: &str, load: Option<f64>, seed: u64, avg_jct_h: f64) -> RunRow {
        let info = RunInfo {
            experiment: "t".into(),
            run_key: format!("{label}_{cluster}_{workload}_{load:?}_{seed}"),
            label: label.into(),
            scheduler: "fifo".into(),
            placement: "scattered".into(),
            admission: "accept-all".into(),
            policy_params: "{}".into(),
            cluster: cluster.into(),
            nodes: 1,
            total_gpus: 8,
            workload: workload.into(),
            load,
            seed,
            round_seconds: 300.0,
        };
        let deadlines = DeadlineStats {
            deadline_jobs: 0,
            accepted: 0,
            declined: 0,
            deadline_ratio: None,
            best_effort_avg_jct: None,
        };
        let summary = RunSummary {
            tracked_jobs: 1,
            tracked_finished: 1,
            jobs_finished: 1,
            jobs_unschedulable: 0,
            avg_jct: avg_jct_h * 3600.0,
            median_jct: 0.0,
            p95_jct: 0.0,
            p99_jct: 0.0,
            avg_responsiveness: 0.0,
            makespan: 0.0,
            rounds: 1,
            preemptions: 0,
            resizes: 0,
            promoted_jobs: 0,
            gpu_utilization: 0.5,
            deadlines,
        };
        RunRow {
            info,
            spec_sha256: String::new(),
            blox_version: String::new(),
            summary,
            wall_time_s: 0.0,
            cpu_time_s: 0.0,
        }
    }

    fn metric_vs(x: GridAxis, select: Selection) -> FigureSpec {
        FigureSpec::MetricVs(MetricVsFigure {
            name: FigureName("f".into()),
            title: None,
            x,
            y: RunMetric::named("avg_jct"),
            unit: TimeUnit::Hours,
            x_log: false,
            y_log: false,
            x_label: None,
            y_label: None,
            normalize_to: None,
            size: Size::default(),
            select,
        })
    }

    fn line(built: Result<Built, String>) -> (LineChart, Vec<String>) {
        match built.unwrap() {
            Built { chart: Chart::Line(chart), warnings } => (chart, warnings),
            Built { chart: Chart::Bars(_), .. } => panic!("bars"),
        }
    }

    #[test]
    fn styles_follow_the_spec_policy_order_not_the_selection() {
        // A's runs are all missing (failed), B comes first in the rows: B keeps place 1.
        let rows: Vec<RunRow> =
            ["B", "C"].iter().flat_map(|l| [1.0, 2.0].map(|load| row(l, "1x8", "w", Some(load), 1, load))).collect();
        let order = Order::new(&["A".into(), "B".into(), "C".into()], &rows);
        let only_c = Selection { label: vec!["C".into()], ..Selection::default() };
        let (all, _) = line(build(&metric_vs(GridAxis::Load, Selection::default()), Path::new("."), &rows, &order));
        let (one, _) = line(build(&metric_vs(GridAxis::Load, only_c), Path::new("."), &rows, &order));
        let style = |chart: &LineChart, label: &str| chart.series.iter().find(|s| s.label == label).unwrap().style;
        assert_eq!(style(&all, "B"), Style::nth(1));
        assert_eq!(style(&all, "C"), Style::nth(2));
        assert_eq!(style(&one, "C"), Style::nth(2));
        assert_eq!(all.x.ticks_at, [1.0, 2.0]);
    }

    /// numpy's `percentile` with linear interpolation: [1, 2, 3, 4] has quartiles 1.75 and 3.25
    /// and median 2.5; non-finite values are left out, and one value is its own range.
    #[test]
    fn medians_come_with_the_quartiles_numpy_gives() {
        let point = median_and_quartiles(&[4.0, 1.0, f64::NAN, 3.0, 2.0]);
        let spread = point.spread.unwrap();
        assert_eq!((point.y, spread.min, spread.max, spread.n), (2.5, 1.75, 3.25, 4));
        let odd = median_and_quartiles(&[10.0, 0.0, 5.0, 7.0, 1.0]);
        assert_eq!((odd.y, odd.spread.unwrap().min, odd.spread.unwrap().max), (5.0, 1.0, 7.0));
        let one = median_and_quartiles(&[3.0]);
        assert_eq!((one.y, one.spread.unwrap().min, one.spread.unwrap().max), (3.0, 3.0, 3.0));
        assert!(median_and_quartiles(&[]).y.is_nan());
    }

    #[test]
    fn clusters_that_follow_the_workload_do_not_split_series_and_seeds_give_error_bars() {
        let mut rows = Vec::new();
        for label in ["A", "B"] {
            for (cluster, workload) in [("64x8", "w1"), ("128x8", "w2")] {
                for seed in [1, 2] {
                    rows.push(row(label, cluster, workload, Some(4.0), seed, seed as f64));
                }
                rows.push(row(label, cluster, workload, Some(8.0), 1, 5.0));
                rows.push(row(label, cluster, workload, Some(8.0), 2, 5.0));
            }
        }
        let order = Order::new(&["A".into(), "B".into()], &rows);
        let (chart, _) = line(build(&metric_vs(GridAxis::Load, Selection::default()), Path::new("."), &rows, &order));
        let names: Vec<&str> = chart.series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(names, ["A, w1 (64x8)", "A, w2 (128x8)", "B, w1 (64x8)", "B, w2 (128x8)"]);
        // Colour by policy, pattern by workload.
        assert_eq!(chart.series[1].style.color, chart.series[0].style.color);
        assert_ne!(chart.series[1].style.pattern, chart.series[0].style.pattern);
        assert_eq!(chart.series[2].style.pattern, chart.series[0].style.pattern);
        let spread = chart.series[0].spread[0].unwrap();
        assert_eq!((spread.min, spread.max, spread.n), (1.0, 2.0, 2));
        assert!((spread.sd - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-12);
        assert_eq!(chart.series[0].points[0], (4.0, 1.5));
        assert!(!chart.series[0].spread[1].unwrap().varies(), "seeds agree at load 8");
        assert!(
            chart.notes.iter().any(|n| n.starts_with("Error bars: min–max over seeds 1 and 2")),
            "{:?}",
            chart.notes
        );
    }

    #[test]
    fn a_load_axis_leaves_out_or_falls_back_and_says_so() {
        let rows = vec![
            row("A", "1x8", "gen", Some(1.0), 1, 1.0),
            row("A", "1x8", "gen", Some(2.0), 1, 2.0),
            row("A", "1x8", "trace", None, 1, 3.0),
        ];
        let order = Order::new(&[], &rows);
        let (chart, warnings) =
            line(build(&metric_vs(GridAxis::Load, Selection::default()), Path::new("."), &rows, &order));
        assert_eq!(chart.series.len(), 1);
        assert_eq!(chart.series[0].points, [(1.0, 1.0), (2.0, 2.0)]);
        assert!(warnings[0].starts_with("left out the run of workload `trace`: it takes no load"), "{warnings:?}");
        assert!(chart.notes[0].contains("`trace`"), "{:?}", chart.notes);

        let traces = vec![row("A", "1x8", "t1", None, 1, 1.0), row("A", "1x8", "t2", None, 1, 2.0)];
        let built = build(&metric_vs(GridAxis::Load, Selection::default()), Path::new("."), &traces, &order).unwrap();
        let Chart::Bars(bars) = built.chart else { panic!("a load axis without loads falls back to bars") };
        assert_eq!(bars.categories, ["t1", "t2"]);
        assert!(
            built.warnings[0].contains("none of the selected runs has a load: their workloads `t1`, `t2` take none"),
            "{:?}",
            built.warnings
        );
        let error = build(&metric_vs(GridAxis::Workload, Selection::default()), Path::new("."), &traces, &order);
        assert!(error.err().unwrap().contains("not numeric"));
    }

    #[test]
    fn cdf_points_end_at_one_and_are_thinned() {
        let values: Vec<f64> = (1..=2000).map(f64::from).collect();
        let points = cdf_points(&values);
        assert!(points.len() <= CDF_POINTS + 2);
        assert_eq!(points.first(), Some(&(1.0, 1.0 / 2000.0)));
        assert_eq!(points.last(), Some(&(2000.0, 1.0)));
        assert!(points.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1));
        assert_eq!(cdf_points(&[5.0]), vec![(5.0, 1.0), (5.0, 1.0)]);
    }

    #[test]
    fn decimation_keeps_extremes_in_time_order() {
        let mut points: Vec<(f64, f64)> = (0..10_000).map(|i| (f64::from(i), 1.0)).collect();
        points[4321].1 = 99.0;
        points[8000].1 = -5.0;
        let thin = decimate(&points);
        assert!(thin.len() <= TIMELINE_POINTS);
        assert!(thin.contains(&(4321.0, 99.0)) && thin.contains(&(8000.0, -5.0)));
        assert!(thin.windows(2).all(|w| w[0].0 <= w[1].0));
    }
}
