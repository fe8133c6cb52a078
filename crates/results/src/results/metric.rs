//! Named quantities of the result tables, as specs refer to them in figures and expected values:
//! the metric columns of the [`schema`](super::schema), looked up by name.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, VariantAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::RunRow;
use super::schema::{Column, MetricInfo, MetricUnit, TableRow};
use crate::core::{JobRecord, TimelineRow};

/// A metric column of the table whose rows are `R`. Specs name it by the column's name without
/// the `_s` of seconds (`avg_jct` is the column `avg_jct_s`).
pub struct Metric<R: 'static> {
    column: &'static Column<R>,
    info: MetricInfo,
}

/// A per-run quantity (one value per row of the runs table).
pub type RunMetric = Metric<RunRow>;
/// A per-job quantity (one value per row of the jobs table), for CDFs.
pub type JobMetric = Metric<JobRecord>;
/// A per-round quantity (one value per row of the timeline table).
pub type TimelineMetric = Metric<TimelineRow>;

impl<R: TableRow> Metric<R> {
    /// The metric called `name`, or `None` if the table has none.
    pub const fn parse(name: &str) -> Option<Self> {
        let columns = R::COLUMNS;
        let mut i = 0;
        while i < columns.len() {
            if let Some(info) = columns[i].metric_info()
                && same_str(info.name, name)
            {
                return Some(Self { column: &columns[i], info });
            }
            i += 1;
        }
        None
    }

    /// The metric called `name`, for code that names one; in a `const` block, an unknown name
    /// fails the build.
    pub const fn named(name: &str) -> Self {
        match Self::parse(name) {
            Some(metric) => metric,
            None => panic!("no metric of that name"),
        }
    }

    pub fn name(self) -> &'static str {
        self.info.name
    }

    /// Axis or table caption without the unit, e.g. "Average JCT".
    pub fn caption(self) -> &'static str {
        self.info.caption
    }

    /// The value in base units (seconds for times, a 0-1 fraction for utilisation, else a count
    /// or ratio); `None` where the table holds null (e.g. the JCT of a job that never finished).
    pub fn value(self, row: &R) -> Option<f64> {
        self.column.number(row)
    }

    /// The value as shown: times in `unit`, fractions in percent, others as they are; NaN for
    /// no value.
    pub fn display_value(self, row: &R, unit: TimeUnit) -> f64 {
        let value = self.value(row).unwrap_or(f64::NAN);
        match self.info.unit {
            MetricUnit::Seconds => unit.from_seconds(value),
            MetricUnit::Fraction => value * 100.0,
            MetricUnit::Plain => value,
        }
    }

    /// The unit of [`display_value`](Self::display_value): `unit`'s name for times, "%" for
    /// fractions, empty for counts and ratios.
    pub fn unit_name(self, unit: TimeUnit) -> &'static str {
        match self.info.unit {
            MetricUnit::Seconds => unit.name(),
            MetricUnit::Fraction => "%",
            MetricUnit::Plain => "",
        }
    }

    /// Caption with its unit, e.g. "Average JCT (hours)" or "GPU utilization (%)".
    pub fn axis_label(self, unit: TimeUnit) -> String {
        match self.unit_name(unit) {
            "" => self.caption().to_string(),
            unit => format!("{} ({unit})", self.caption()),
        }
    }
}

/// `str` equality in a `const fn`.
const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

// By hand rather than derived, which would require the same of `R`.
impl<R> Clone for Metric<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R> Copy for Metric<R> {}

impl<R> PartialEq for Metric<R> {
    fn eq(&self, other: &Self) -> bool {
        self.info.name == other.info.name
    }
}

impl<R> Eq for Metric<R> {}

impl<R> fmt::Debug for Metric<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.info.name)
    }
}

/// A metric deserialises as a unit enum variant named by the metric, as the enums it replaced
/// did: the same YAML forms are accepted and an unknown name lists the valid ones.
impl<'de, R: TableRow> Deserialize<'de> for Metric<R> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_enum(R::METRIC_TYPE, R::METRIC_NAMES, MetricVisitor(PhantomData))
    }
}

/// Reads the enum form of a metric: the variant (its name), then no payload.
struct MetricVisitor<R>(PhantomData<R>);

impl<'de, R: TableRow> Visitor<'de> for MetricVisitor<R> {
    type Value = Metric<R>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "enum {}", R::METRIC_TYPE)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        let (metric, variant) = data.variant_seed(self)?;
        variant.unit_variant()?;
        Ok(metric)
    }
}

/// Reads the variant's name.
impl<'de, R: TableRow> DeserializeSeed<'de> for MetricVisitor<R> {
    type Value = Metric<R>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_identifier(MetricName(PhantomData))
    }
}

struct MetricName<R>(PhantomData<R>);

impl<R: TableRow> Visitor<'_> for MetricName<R> {
    type Value = Metric<R>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("variant identifier")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Self::Value, E> {
        Metric::parse(name).ok_or_else(|| E::unknown_variant(name, R::METRIC_NAMES))
    }
}

/// Unit in which a time is shown or compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeUnit {
    Seconds,
    Minutes,
    #[default]
    Hours,
}

impl TimeUnit {
    pub fn from_seconds(self, seconds: f64) -> f64 {
        match self {
            TimeUnit::Seconds => seconds,
            TimeUnit::Minutes => seconds / 60.0,
            TimeUnit::Hours => seconds / 3600.0,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Seconds => "seconds",
            TimeUnit::Minutes => "minutes",
            TimeUnit::Hours => "hours",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::RunSummary;

    /// The names specs and sidecars accepted when each table's metrics were an enum of their own;
    /// they must all keep working.
    const RUN_METRICS: [&str; 18] = [
        "avg_jct",
        "median_jct",
        "p95_jct",
        "p99_jct",
        "avg_responsiveness",
        "makespan",
        "gpu_utilization",
        "preemptions",
        "resizes",
        "promoted_jobs",
        "jobs_finished",
        "tracked_finished",
        "rounds",
        "deadline_jobs",
        "accepted",
        "declined",
        "deadline_ratio",
        "best_effort_avg_jct",
    ];
    const JOB_METRICS: [&str; 3] = ["jct", "queueing_delay", "responsiveness"];
    const TIMELINE_METRICS: [&str; 14] = [
        "free_gpus",
        "gpu_demand",
        "running",
        "queued",
        "admission_backlog",
        "preemptions",
        "resizes",
        "cluster_efficiency",
        "cpus_in_use",
        "memory_gb_in_use",
        "arrived_gpu_milli",
        "allocated_gpu_milli",
        "fragmented_gpu_milli",
        "fragmentation_ratio",
    ];

    fn sorted<'a>(names: impl IntoIterator<Item = &'a &'a str>) -> Vec<&'a str> {
        let mut names: Vec<&str> = names.into_iter().copied().collect();
        names.sort_unstable();
        names
    }

    /// A table's metrics are its metric columns, named without the `_s` of seconds, and nothing
    /// else: listing a column in the schema is what makes a metric.
    fn metrics_are_the_metric_columns<R: TableRow>() {
        let columns: Vec<&str> = R::COLUMNS
            .iter()
            .filter(|column| column.metric_info().is_some())
            .map(|column| column.name().strip_suffix("_s").unwrap_or(column.name()))
            .collect();
        assert_eq!(R::METRIC_NAMES, columns);
        for name in R::METRIC_NAMES {
            assert_eq!(Metric::<R>::parse(name).map(Metric::name), Some(*name));
        }
    }

    #[test]
    fn metric_names_derive_from_the_schema() {
        metrics_are_the_metric_columns::<RunRow>();
        metrics_are_the_metric_columns::<JobRecord>();
        metrics_are_the_metric_columns::<TimelineRow>();
        assert_eq!(RunMetric::parse("avg_jct_s"), None, "specs name metrics, not columns");
        assert_eq!(RunMetric::parse("wall_time_s"), None);
    }

    #[test]
    fn specs_keep_every_metric_name_they_accepted() {
        assert_eq!(sorted(RunRow::METRIC_NAMES), sorted(&RUN_METRICS));
        assert_eq!(sorted(JobRecord::METRIC_NAMES), sorted(&JOB_METRICS));
        assert_eq!(sorted(TimelineRow::METRIC_NAMES), sorted(&TIMELINE_METRICS));
        for name in RUN_METRICS {
            // The plain, tagged and mapping forms of a unit enum variant.
            for yaml in [name.to_owned(), format!("!{name}"), format!("{{{name}: null}}")] {
                let metric: RunMetric = serde_saphyr::from_str(&yaml).unwrap();
                assert_eq!(metric.name(), name, "{yaml}");
            }
        }
        let error = serde_saphyr::from_str::<RunMetric>("avg_happiness").unwrap_err().to_string();
        assert!(error.contains("unknown variant `avg_happiness`, expected one of"), "{error}");
        assert!(RUN_METRICS.iter().all(|name| error.contains(name)), "{error}");
        let error = serde_saphyr::from_str::<JobMetric>("jot").unwrap_err().to_string();
        assert!(error.contains("expected one of jct, responsiveness, queueing_delay"), "{error}");
    }

    #[test]
    fn the_guide_lists_every_metric() {
        let guide = include_str!("../../../../docs/guide/results-and-figures.md");
        let listed = |after: &str, until: &str| -> Vec<&str> {
            let start = guide.find(after).expect(after) + after.len();
            let text = &guide[start..][..guide[start..].find(until).expect(until)];
            text.split('`').skip(1).step_by(2).collect()
        };
        assert_eq!(sorted(&listed("Run metrics: ", ".")), sorted(RunRow::METRIC_NAMES));
        assert_eq!(sorted(&listed("`cdf` (of ", ")")), sorted(JobRecord::METRIC_NAMES));
        assert_eq!(sorted(&listed("`timeline` (", " per round")), sorted(TimelineRow::METRIC_NAMES));
    }

    #[test]
    fn values_are_shown_in_the_unit_of_their_kind() {
        let row = RunRow {
            summary: RunSummary {
                avg_jct: 5400.0,
                gpu_utilization: 0.75,
                rounds: 12,
                p99_jct: f64::NAN,
                ..Default::default()
            },
            ..Default::default()
        };
        let shown = |name: &str, unit| {
            let metric = RunMetric::named(name);
            (metric.display_value(&row, unit), metric.axis_label(unit))
        };
        assert_eq!(shown("avg_jct", TimeUnit::Hours), (1.5, "Average JCT (hours)".to_owned()));
        assert_eq!(shown("avg_jct", TimeUnit::Minutes), (90.0, "Average JCT (minutes)".to_owned()));
        assert_eq!(shown("gpu_utilization", TimeUnit::Hours), (75.0, "GPU utilization (%)".to_owned()));
        assert_eq!(shown("rounds", TimeUnit::Hours), (12.0, "Rounds".to_owned()));
        assert_eq!(RunMetric::named("p99_jct").value(&row), None, "NaN is no value");
        assert!(shown("p99_jct", TimeUnit::Hours).0.is_nan());
        assert_eq!(RunMetric::named("deadline_ratio").value(&row), None);

        let unfinished = JobRecord { arrival: 10.0, first_start: Some(70.0), ..Default::default() };
        assert_eq!(JobMetric::named("queueing_delay").value(&unfinished), Some(60.0));
        assert_eq!(JobMetric::named("jct").value(&unfinished), None);
        let round = TimelineRow { free_gpus: 3, admission_backlog: None, ..Default::default() };
        assert_eq!(TimelineMetric::named("free_gpus").value(&round), Some(3.0));
        assert_eq!(TimelineMetric::named("admission_backlog").value(&round), None);
    }
}
