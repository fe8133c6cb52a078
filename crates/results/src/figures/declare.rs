//! The `figures:` section of a spec: what to plot, from which runs, with which axes.

use super::render::{MAX_SIDE, MIN_SIDE, Size};
use crate::core::placements::axis::{AxisMeasure, LAST_COLUMN};
use crate::results::RunInfo;
use crate::results::metric::{JobMetric, RunMetric, TimeUnit, TimelineMetric};
use serde::{Deserialize, Deserializer, Serialize, de};

/// One figure, as a spec declares it (`- metric-vs: {...}`, `- cdf: {...}`, ...).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum FigureSpec {
    /// A run metric against a grid axis, one line per policy (avg/p99 JCT vs load, ...).
    MetricVs(MetricVsFigure),
    /// Cumulative distribution of a per-job metric, one curve per policy.
    Cdf(CdfFigure),
    /// A per-round series over simulated time, one curve per run.
    Timeline(TimelineFigure),
    /// Grouped bars of a run metric: categories on x, one bar per group.
    Bars(BarsFigure),
    /// A placement experiment's measure against the arrived workload (% of the cluster's GPUs
    /// asked for so far), one line per policy, the mean over seeds with min-max bars.
    ArrivedAxis(ArrivedAxisFigure),
    /// A placement experiment's measure at one point of the arrived axis as grouped bars: a grid
    /// axis (the workload) on x, one bar per policy.
    ArrivedBars(ArrivedBarsFigure),
}

impl FigureSpec {
    pub fn name(&self) -> &str {
        match self {
            FigureSpec::MetricVs(f) => &f.name.0,
            FigureSpec::Cdf(f) => &f.name.0,
            FigureSpec::Timeline(f) => &f.name.0,
            FigureSpec::Bars(f) => &f.name.0,
            FigureSpec::ArrivedAxis(f) => &f.name.0,
            FigureSpec::ArrivedBars(f) => &f.name.0,
        }
    }

    pub fn size(&self) -> Size {
        match self {
            FigureSpec::MetricVs(f) => f.size,
            FigureSpec::Cdf(f) => f.size,
            FigureSpec::Timeline(f) => f.size,
            FigureSpec::Bars(f) => f.size,
            FigureSpec::ArrivedAxis(f) => f.size,
            FigureSpec::ArrivedBars(f) => f.size,
        }
    }

    pub fn selection(&self) -> &Selection {
        match self {
            FigureSpec::MetricVs(f) => &f.select,
            FigureSpec::Cdf(f) => &f.select,
            FigureSpec::Timeline(f) => &f.select,
            FigureSpec::Bars(f) => &f.select,
            FigureSpec::ArrivedAxis(f) => &f.select,
            FigureSpec::ArrivedBars(f) => &f.select,
        }
    }

    /// Policy labels the figure names (filters and baselines), to check against the spec.
    pub fn labels_named(&self) -> Vec<&str> {
        let mut labels: Vec<&str> = self.selection().label.iter().map(String::as_str).collect();
        let baseline = match self {
            FigureSpec::MetricVs(f) => f.normalize_to.as_deref(),
            FigureSpec::Bars(f) => f.normalize_to.as_deref(),
            _ => None,
        };
        labels.extend(baseline);
        labels
    }
}

/// A figure name usable as a file stem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FigureName(pub String);

impl<'de> Deserialize<'de> for FigureName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let ok =
            !s.is_empty() && !s.starts_with('.') && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        if ok {
            Ok(FigureName(s))
        } else {
            Err(de::Error::custom(format!(
                "figure name `{s}` must be non-empty, use only letters, digits, '-', '_' or '.', and not start with '.'"
            )))
        }
    }
}

/// An axis of the grid, to plot against or to group by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GridAxis {
    Label,
    Cluster,
    Workload,
    Load,
    Seed,
}

impl GridAxis {
    pub const ALL: [GridAxis; 5] =
        [GridAxis::Label, GridAxis::Cluster, GridAxis::Workload, GridAxis::Load, GridAxis::Seed];

    /// The run's value on this axis, as text (for grouping and legends).
    pub fn key(self, info: &RunInfo) -> String {
        match self {
            GridAxis::Label => info.label.clone(),
            GridAxis::Cluster => info.cluster.clone(),
            GridAxis::Workload => info.workload.clone(),
            GridAxis::Load => info.load.map(crate::text::fmt_number).unwrap_or_else(|| "-".into()),
            GridAxis::Seed => info.seed.to_string(),
        }
    }

    /// The run's value on a numeric axis (load, seed).
    pub fn number(self, info: &RunInfo) -> Option<f64> {
        match self {
            GridAxis::Load => info.load,
            GridAxis::Seed => Some(info.seed as f64),
            _ => None,
        }
    }

    /// How a value of this axis reads in a legend: "FIFO", "load 8", "seed 2", "32x4".
    pub fn describe(self, info: &RunInfo) -> String {
        match self {
            GridAxis::Load => format!("load {}", self.key(info)),
            GridAxis::Seed => format!("seed {}", self.key(info)),
            _ => self.key(info),
        }
    }

    pub fn caption(self) -> &'static str {
        match self {
            GridAxis::Label => "Policy",
            GridAxis::Cluster => "Cluster",
            GridAxis::Workload => "Workload",
            GridAxis::Load => "Load (jobs/hour)",
            GridAxis::Seed => "Seed",
        }
    }
}

/// Which runs a figure draws from; an empty list means no restriction on that axis.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Selection {
    #[serde(default)]
    pub label: Vec<String>,
    #[serde(default)]
    pub cluster: Vec<String>,
    #[serde(default)]
    pub workload: Vec<String>,
    #[serde(default)]
    pub load: Vec<f64>,
    #[serde(default)]
    pub seed: Vec<u64>,
}

impl Selection {
    pub fn matches(&self, info: &RunInfo) -> bool {
        let ok = |list: &[String], value: &str| list.is_empty() || list.iter().any(|v| v == value);
        ok(&self.label, &info.label)
            && ok(&self.cluster, &info.cluster)
            && ok(&self.workload, &info.workload)
            && (self.load.is_empty() || info.load.is_some_and(|l| self.load.contains(&l)))
            && (self.seed.is_empty() || self.seed.contains(&info.seed))
    }
}

fn yes() -> bool {
    true
}

fn load_axis() -> GridAxis {
    GridAxis::Load
}

fn label_axis() -> GridAxis {
    GridAxis::Label
}

fn figure_size<'de, D: Deserializer<'de>>(d: D) -> Result<Size, D::Error> {
    let [width, height] = <[u32; 2]>::deserialize(d)?;
    if [width, height].iter().all(|side| (MIN_SIDE..=MAX_SIDE).contains(side)) {
        Ok(Size { width, height })
    } else {
        Err(de::Error::custom(format!(
            "figure size {width}x{height}: each side must be {MIN_SIDE}..={MAX_SIDE} pixels"
        )))
    }
}

fn jct() -> JobMetric {
    const { JobMetric::named("jct") }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricVsFigure {
    pub name: FigureName,
    #[serde(default)]
    pub title: Option<String>,
    /// Grid axis on x (default: load).
    #[serde(default = "load_axis")]
    pub x: GridAxis,
    pub y: RunMetric,
    /// Unit of time metrics (default: hours).
    #[serde(default)]
    pub unit: TimeUnit,
    #[serde(default)]
    pub x_log: bool,
    #[serde(default)]
    pub y_log: bool,
    #[serde(default)]
    pub x_label: Option<String>,
    #[serde(default)]
    pub y_label: Option<String>,
    /// Divide every line by this policy's value at the same point.
    #[serde(default)]
    pub normalize_to: Option<String>,
    /// Size `[width, height]` in units of 1/192 inch (default 640 x 400: a 3.33 x 2.08 in paper
    /// column); the PNG has 300 dpi at that size.
    #[serde(default, deserialize_with = "figure_size")]
    pub size: Size,
    #[serde(default)]
    pub select: Selection,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CdfFigure {
    pub name: FigureName,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default = "jct")]
    pub metric: JobMetric,
    #[serde(default)]
    pub unit: TimeUnit,
    /// Log-scaled x (default: yes, as JCTs span orders of magnitude).
    #[serde(default = "yes")]
    pub x_log: bool,
    #[serde(default)]
    pub x_label: Option<String>,
    /// Size `[width, height]` in units of 1/192 inch (default 640 x 400: a 3.33 x 2.08 in paper
    /// column); the PNG has 300 dpi at that size.
    #[serde(default, deserialize_with = "figure_size")]
    pub size: Size,
    #[serde(default)]
    pub select: Selection,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimelineFigure {
    pub name: FigureName,
    #[serde(default)]
    pub title: Option<String>,
    pub series: TimelineMetric,
    /// Unit of simulated time on x (default: hours).
    #[serde(default)]
    pub unit: TimeUnit,
    #[serde(default)]
    pub x_log: bool,
    #[serde(default)]
    pub y_log: bool,
    #[serde(default)]
    pub y_label: Option<String>,
    /// Size `[width, height]` in units of 1/192 inch (default 640 x 400: a 3.33 x 2.08 in paper
    /// column); the PNG has 300 dpi at that size.
    #[serde(default, deserialize_with = "figure_size")]
    pub size: Size,
    #[serde(default)]
    pub select: Selection,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BarsFigure {
    pub name: FigureName,
    #[serde(default)]
    pub title: Option<String>,
    pub y: RunMetric,
    #[serde(default)]
    pub unit: TimeUnit,
    /// Grid axis whose values are the categories on x (default: label).
    #[serde(default = "label_axis")]
    pub categories: GridAxis,
    #[serde(default)]
    pub y_log: bool,
    #[serde(default)]
    pub y_label: Option<String>,
    #[serde(default = "yes")]
    pub value_labels: bool,
    #[serde(default)]
    pub normalize_to: Option<String>,
    /// Size `[width, height]` in units of 1/192 inch (default 640 x 400: a 3.33 x 2.08 in paper
    /// column); the PNG has 300 dpi at that size.
    #[serde(default, deserialize_with = "figure_size")]
    pub size: Size,
    #[serde(default)]
    pub select: Selection,
}

/// `arrived-axis`: the placement engine's discrete axis ([`AxisMeasure`], averaged per whole
/// percent of GPU capacity arrived as FGD's analysis does) for every run, then over seeds per
/// policy as `over_seeds` says.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArrivedAxisFigure {
    pub name: FigureName,
    #[serde(default)]
    pub title: Option<String>,
    pub y: AxisMeasure,
    /// A point over the seeds: their mean with min-max bars (default), or their median with the
    /// 25-75 % percentile range as bars (FGD's figures).
    #[serde(default)]
    pub over_seeds: OverSeeds,
    /// Arrived percentages shown, `[from, to]` (default: all, 0 to 130).
    #[serde(default)]
    pub x_range: Option<[f64; 2]>,
    /// Fixed y limits `[from, to]` (default: fitted).
    #[serde(default)]
    pub y_range: Option<[f64; 2]>,
    #[serde(default)]
    pub y_label: Option<String>,
    /// Size `[width, height]` in units of 1/192 inch (default 640 x 400: a 3.33 x 2.08 in paper
    /// column); the PNG has 300 dpi at that size.
    #[serde(default, deserialize_with = "figure_size")]
    pub size: Size,
    #[serde(default)]
    pub select: Selection,
}

/// How a figure summarises the seeds at one point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OverSeeds {
    /// The mean, with the minimum and maximum as bars.
    #[default]
    Mean,
    /// The median, with the 25th and 75th percentiles (linear interpolation, numpy's default) as
    /// bars.
    Median,
}

/// `arrived-bars`: each run's [`AxisMeasure`] at one column of the arrived axis (FGD's
/// per-variant bar charts read the unallocated share at 100 % arrived), as grouped bars: the
/// categories on x, one bar per policy, the mean over seeds with min-max bars.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArrivedBarsFigure {
    pub name: FigureName,
    #[serde(default)]
    pub title: Option<String>,
    pub y: AxisMeasure,
    /// The column read: the arrived workload in whole percent of the cluster's GPU capacity.
    pub at: ArrivedPercent,
    /// Grid axis whose values are the categories on x (default: workload).
    #[serde(default = "workload_axis")]
    pub categories: GridAxis,
    #[serde(default)]
    pub y_label: Option<String>,
    #[serde(default = "yes")]
    pub value_labels: bool,
    /// Size `[width, height]` in units of 1/192 inch (default 640 x 400: a 3.33 x 2.08 in paper
    /// column); the PNG has 300 dpi at that size.
    #[serde(default, deserialize_with = "figure_size")]
    pub size: Size,
    #[serde(default)]
    pub select: Selection,
}

fn workload_axis() -> GridAxis {
    GridAxis::Workload
}

/// A column of the arrived axis: a whole percent from 0 to the axis' last column.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArrivedPercent(pub usize);

impl<'de> Deserialize<'de> for ArrivedPercent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = f64::deserialize(deserializer)?;
        let last = LAST_COLUMN as f64;
        if value.fract() != 0.0 || !(0.0..=last).contains(&value) {
            return Err(de::Error::custom(format!(
                "at: {value} is not a whole percent from 0 to {LAST_COLUMN} (the arrived axis' columns)"
            )));
        }
        Ok(ArrivedPercent(value as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrived_bars(yaml: &str) -> Result<ArrivedBarsFigure, String> {
        serde_saphyr::from_str(yaml).map_err(|e| e.to_string())
    }

    #[test]
    fn arrived_bars_read_one_whole_column_of_the_axis() {
        let figure = arrived_bars("{name: f, y: unallocated, at: 100}").unwrap();
        assert_eq!(figure.at, ArrivedPercent(100));
        assert_eq!(figure.categories, GridAxis::Workload);
        for bad in ["50.5", "131", "-1", ".nan"] {
            let error = arrived_bars(&format!("{{name: f, y: unallocated, at: {bad}}}")).unwrap_err();
            assert!(error.contains("is not a whole percent from 0 to 130"), "{bad}: {error}");
        }
    }
}
