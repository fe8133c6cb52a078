//! Turns a declared figure and an experiment's tables into chart data.
//!
//! Grouping rule shared by all kinds: among the selected runs, every grid axis that takes more
//! than one value and is not the figure's own axis splits the data into series; seeds are
//! averaged (metric-vs, bars) or pooled (CDF) unless the figure plots against them.

use super::declare::{BarsFigure, CdfFigure, FigureSpec, GridAxis, MetricVsFigure, TimelineFigure};
use super::render::{Axis, BarChart, LineChart, Scale, Series};
use crate::results::{self, RunInfo, RunRow};
use std::collections::BTreeSet;
use std::path::Path;

/// A figure ready to render.
pub enum Chart {
    Line(LineChart),
    Bars(BarChart),
}

/// Most points kept per CDF curve: enough to look continuous in print, small enough for SVG.
const CDF_POINTS: usize = 500;
/// Most points kept per timeline curve (as min/max pairs per bucket, so spikes survive).
const TIMELINE_POINTS: usize = 2000;

/// Builds `figure` from the runs `rows` of `experiment_dir` (jobs and timelines are read there).
pub fn build(figure: &FigureSpec, experiment_dir: &Path, rows: &[RunRow]) -> Result<Chart, String> {
    let selected: Vec<&RunRow> = rows.iter().filter(|r| figure.selection().matches(&r.info)).collect();
    if selected.is_empty() {
        return Err("no run matches the figure's `select`".into());
    }
    match figure {
        FigureSpec::MetricVs(f) => metric_vs(f, &selected).map(Chart::Line),
        FigureSpec::Cdf(f) => cdf(f, experiment_dir, &selected).map(Chart::Line),
        FigureSpec::Timeline(f) => timeline(f, experiment_dir, &selected).map(Chart::Line),
        FigureSpec::Bars(f) => bars(f, &selected).map(Chart::Bars),
    }
}

/// Grid axes with more than one value among `rows`, in a fixed order.
fn varying(rows: &[&RunRow]) -> Vec<GridAxis> {
    GridAxis::ALL
        .into_iter()
        .filter(|axis| rows.iter().map(|r| axis.key(&r.info)).collect::<BTreeSet<_>>().len() > 1)
        .collect()
}

/// Legend text of a run on `axes`; the policy label alone when nothing else varies.
fn series_name(row: &RunRow, axes: &[GridAxis]) -> String {
    let parts: Vec<String> = axes.iter().map(|a| a.describe(&row.info)).collect();
    if parts.is_empty() { row.info.label.clone() } else { parts.join(", ") }
}

/// Groups rows by their value on `axes`, keeping first-appearance (grid) order.
fn group_by<'a>(rows: &[&'a RunRow], axes: &[GridAxis]) -> Vec<(String, Vec<&'a RunRow>)> {
    let mut groups: Vec<(Vec<String>, String, Vec<&RunRow>)> = Vec::new();
    for &row in rows {
        let key: Vec<String> = axes.iter().map(|a| a.key(&row.info)).collect();
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.2.push(row),
            None => groups.push((key, series_name(row, axes), vec![row])),
        }
    }
    groups.into_iter().map(|(_, name, rows)| (name, rows)).collect()
}

fn scale(log: bool) -> Scale {
    if log { Scale::Log } else { Scale::Linear }
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = values.filter(|x| x.is_finite()).collect();
    if v.is_empty() { f64::NAN } else { v.iter().sum::<f64>() / v.len() as f64 }
}

/// For metric-vs and bars: `(series, category) -> value`, seeds averaged.
struct Table {
    series: Vec<String>,
    /// One run of each series, for its grid keys.
    representative: Vec<RunInfo>,
    series_axes: Vec<GridAxis>,
    categories: Vec<(String, Option<f64>)>,
    values: Vec<Vec<f64>>,
}

fn tabulate(rows: &[&RunRow], category_axis: GridAxis, value: impl Fn(&RunRow) -> f64) -> Table {
    let series_axes: Vec<GridAxis> =
        varying(rows).into_iter().filter(|a| *a != category_axis && *a != GridAxis::Seed).collect();
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
    let groups = group_by(rows, &series_axes);
    let values = groups
        .iter()
        .map(|(_, members)| {
            let at = |c: &str| mean(members.iter().filter(|r| category_axis.key(&r.info) == c).map(|r| value(r)));
            categories.iter().map(|(c, _)| at(c)).collect()
        })
        .collect();
    // When the policies are the categories and nothing else varies, the one series needs no name
    // (and no legend); otherwise `group_by` named it.
    let unnamed = series_axes.is_empty() && category_axis == GridAxis::Label;
    let series = groups.iter().map(|(name, _)| if unnamed { String::new() } else { name.clone() });
    Table {
        series: series.collect(),
        representative: groups.iter().map(|(_, m)| m[0].info.clone()).collect(),
        series_axes,
        categories,
        values,
    }
}

/// Divides every value by the `baseline` policy's value at the same point: the same category of
/// the same series when policies are the categories, else the same category of the series that
/// differs only in its label.
fn normalize(table: &mut Table, category_axis: GridAxis, baseline: &str) -> Result<(), String> {
    let original = table.values.clone();
    if category_axis == GridAxis::Label {
        let b = table
            .categories
            .iter()
            .position(|c| c.0 == baseline)
            .ok_or_else(|| format!("normalize_to: no policy `{baseline}` among the bars"))?;
        for (row, base) in table.values.iter_mut().zip(&original) {
            row.iter_mut().for_each(|v| *v /= base[b]);
        }
        return Ok(());
    }
    let others = |info: &RunInfo| -> Vec<String> {
        table.series_axes.iter().filter(|a| **a != GridAxis::Label).map(|a| a.key(info)).collect()
    };
    for i in 0..table.values.len() {
        let want = others(&table.representative[i]);
        let b = (0..table.values.len())
            .find(|&k| table.representative[k].label == baseline && others(&table.representative[k]) == want)
            .ok_or_else(|| format!("normalize_to: no `{baseline}` line to compare `{}` with", table.series[i]))?;
        for (v, base) in table.values[i].iter_mut().zip(&original[b]) {
            *v /= base;
        }
    }
    Ok(())
}

fn metric_vs(f: &MetricVsFigure, rows: &[&RunRow]) -> Result<LineChart, String> {
    let numeric = rows.iter().all(|r| f.x.number(&r.info).is_some());
    if !numeric {
        return Err(format!("x axis `{}` has no numeric values: plot it with `bars` instead", f.x.caption()));
    }
    let mut table = tabulate(rows, f.x, |r| f.y.display_value(&r.summary, f.unit));
    let mut y_label = f.y_label.clone().unwrap_or_else(|| f.y.axis_label(f.unit));
    if let Some(baseline) = &f.normalize_to {
        normalize(&mut table, f.x, baseline)?;
        y_label = f.y_label.clone().unwrap_or_else(|| format!("{} (normalized to {baseline})", f.y.caption()));
    }
    let series = table
        .series
        .iter()
        .zip(&table.values)
        .map(|(label, values)| Series {
            label: label.clone(),
            points: table.categories.iter().zip(values).filter_map(|(c, v)| Some((c.1?, *v))).collect(),
        })
        .collect();
    Ok(LineChart {
        title: f.title.clone().unwrap_or_else(|| format!("{} vs {}", f.y.caption(), f.x.caption().to_lowercase())),
        x: Axis {
            label: f.x_label.clone().unwrap_or_else(|| f.x.caption().into()),
            scale: scale(f.x_log),
            range: None,
        },
        y: Axis { label: y_label, scale: scale(f.y_log), range: None },
        series,
        markers: true,
    })
}

fn bars(f: &BarsFigure, rows: &[&RunRow]) -> Result<BarChart, String> {
    let mut table = tabulate(rows, f.categories, |r| f.y.display_value(&r.summary, f.unit));
    let mut y_label = f.y_label.clone().unwrap_or_else(|| f.y.axis_label(f.unit));
    if let Some(baseline) = &f.normalize_to {
        normalize(&mut table, f.categories, baseline)?;
        y_label = f.y_label.clone().unwrap_or_else(|| format!("{} (normalized to {baseline})", f.y.caption()));
    }
    let categories = table.categories.iter().map(|c| match f.categories {
        GridAxis::Load => format!("load {}", c.0),
        _ => c.0.clone(),
    });
    Ok(BarChart {
        title: f
            .title
            .clone()
            .unwrap_or_else(|| format!("{} by {}", f.y.caption(), f.categories.caption().to_lowercase())),
        categories: categories.collect(),
        y: Axis { label: y_label, scale: scale(f.y_log), range: None },
        series: table
            .series
            .into_iter()
            .zip(table.values)
            .map(|(name, values)| (name, values.into_iter().map(|v| v.is_finite().then_some(v)).collect()))
            .collect(),
        value_labels: f.value_labels,
    })
}

fn cdf(f: &CdfFigure, experiment_dir: &Path, rows: &[&RunRow]) -> Result<LineChart, String> {
    let axes: Vec<GridAxis> = varying(rows).into_iter().filter(|a| *a != GridAxis::Seed).collect();
    let mut series = Vec::new();
    for (name, members) in group_by(rows, &axes) {
        let mut values = Vec::new();
        for r in &members {
            let jobs = results::read_jobs(experiment_dir, &r.info.run_key).map_err(|e| e.to_string())?;
            values.extend(jobs.iter().filter_map(|j| f.metric.value(j)).map(|s| f.unit.from_seconds(s)));
        }
        values.sort_by(f64::total_cmp);
        series.push(Series { label: name, points: cdf_points(&values) });
    }
    Ok(LineChart {
        title: f.title.clone().unwrap_or_else(|| format!("CDF of {}", f.metric.caption().to_lowercase())),
        x: Axis {
            label: f.x_label.clone().unwrap_or_else(|| format!("{} ({})", f.metric.caption(), f.unit.name())),
            scale: scale(f.x_log),
            range: None,
        },
        y: Axis { label: "Fraction of jobs".into(), scale: Scale::Linear, range: Some((0.0, 1.0)) },
        series,
        markers: false,
    })
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

fn timeline(f: &TimelineFigure, experiment_dir: &Path, rows: &[&RunRow]) -> Result<LineChart, String> {
    let axes = varying(rows);
    let mut series = Vec::new();
    for r in rows {
        let rounds = results::read_timeline(experiment_dir, &r.info.run_key).map_err(|e| e.to_string())?;
        if rounds.is_empty() {
            return Err(format!("run {} has no timeline (was `output: {{timeline: false}}` set?)", r.info.run_key));
        }
        let points: Vec<(f64, f64)> =
            rounds.iter().map(|row| (f.unit.from_seconds(row.time), f.series.value(row))).collect();
        series.push(Series { label: series_name(r, &axes), points: decimate(&points) });
    }
    Ok(LineChart {
        title: f.title.clone().unwrap_or_else(|| format!("{} over time", f.series.caption())),
        x: Axis { label: format!("Simulated time ({})", f.unit.name()), scale: scale(f.x_log), range: None },
        y: Axis {
            label: f.y_label.clone().unwrap_or_else(|| f.series.caption().into()),
            scale: scale(f.y_log),
            range: None,
        },
        series,
        markers: false,
    })
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
