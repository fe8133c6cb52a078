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
