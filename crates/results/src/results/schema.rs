//! The results schema: every column of the runs, jobs and timeline tables, declared once.
//!
//! A table is a list of [`Column`]s in file order. A column names itself, holds the functions
//! that take its value from the in-memory row and put it back, and by the Rust type of that value
//! (`Access`) fixes its Arrow type and nullability. The Parquet writer and reader (`tables`) and
//! the metric names, captions and units of figures and expected values ([`super::metric`]) all
//! derive from these lists, so they cannot drift apart.
//!
//! Every table starts with `STAMP`, the run's grid keys and provenance, repeated on each row;
//! then come the table's own columns ([`TableRow::COLUMNS`]): `RUNS` over [`RunRow`], `JOBS` over
//! [`JobRecord`] and `TIMELINE` over [`TimelineRow`].
//!
//! # Adding a column
//!
//! Add the field to the row type (computing it where the run is summarised) and one entry to
//! `RUNS`, `JOBS` or `TIMELINE` below, where the column is to appear in the file. The writer, the
//! reader, `blox export` and the round-trip tests follow. To let specs plot it and sidecars check
//! it, declare it with `Column::metric` and its unit and caption: its metric name is the column's
//! without the `_s` that marks seconds. Then add that name to the guide's list of metrics
//! (`docs/guide/results-and-figures.md`; a test compares them).

use super::{AttemptRow, RunRow};
use crate::core::{JobRecord, TimelineRow};

/// One column of a results table over rows of type `R`.
pub struct Column<R> {
    name: &'static str,
    pub(super) access: Access<R>,
    metric: Option<MetricInfo>,
}

/// The Rust type a column holds in the row, which fixes its Arrow type and nullability, with the
/// functions that read it from a row and set it in a row read back. Integers are Int64 (Java has
/// no unsigned integers), and a missing value is null, never NaN.
pub(super) enum Access<R> {
    /// Utf8, not null.
    Text(fn(&R) -> &str, fn(&mut R, String)),
    /// Int64, not null.
    U64(fn(&R) -> u64, fn(&mut R, u64)),
    /// Int64, not null.
    U32(fn(&R) -> u32, fn(&mut R, u32)),
    /// Int64, nullable.
    OptionalU32(fn(&R) -> Option<u32>, fn(&mut R, Option<u32>)),
    /// Int64, nullable.
    OptionalU64(fn(&R) -> Option<u64>, fn(&mut R, Option<u64>)),
    /// Float64, not null.
    F64(fn(&R) -> f64, fn(&mut R, f64)),
    /// Float64, null where the row holds NaN ([`crate::core::RunSummary`]'s "no value"), read
    /// back as NaN.
    F64NanAsNull(fn(&R) -> f64, fn(&mut R, f64)),
    /// Float64, nullable.
    OptionalF64(fn(&R) -> Option<f64>, fn(&mut R, Option<f64>)),
    /// Float64, nullable, computed from other fields: written for readers of the files, not read
    /// back.
    DerivedF64(fn(&R) -> Option<f64>),
    /// Boolean, not null.
    Bool(fn(&R) -> bool, fn(&mut R, bool)),
    /// Boolean, nullable.
    OptionalBool(fn(&R) -> Option<bool>, fn(&mut R, Option<bool>)),
}

/// How a metric's stored value is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MetricUnit {
    /// Seconds, shown in the figure's or check's [`TimeUnit`](super::metric::TimeUnit).
    Seconds,
    /// A 0-1 fraction, shown in percent.
    Fraction,
    /// A count or a ratio, shown as stored.
    Plain,
}

/// What makes a column a metric that specs can name.
#[derive(Debug, Clone, Copy)]
pub(super) struct MetricInfo {
    pub(super) name: &'static str,
    /// Axis or table caption without the unit, e.g. "Average JCT".
    pub(super) caption: &'static str,
    pub(super) unit: MetricUnit,
}

/// A row type with a results table of its own; the reader sets each field of a default row.
pub trait TableRow: Default + 'static {
    /// The table's columns after the `STAMP` columns, in file order.
    const COLUMNS: &'static [Column<Self>];
    /// The names of its metric columns, in column order, which spec errors list.
    const METRIC_NAMES: &'static [&'static str];
    /// The metric type's name, as serde sees it (`RunMetric`).
    const METRIC_TYPE: &'static str;
}

impl<R> Column<R> {
    const fn new(name: &'static str, access: Access<R>) -> Self {
        Self { name, access, metric: None }
    }

    /// A column that is also a metric, named like the column without the `_s` of seconds.
    /// Checked when the tables are compiled: only numeric columns are metrics, and a column's name
    /// ends in `_s` exactly when its unit is seconds.
    const fn metric(name: &'static str, access: Access<R>, unit: MetricUnit, caption: &'static str) -> Self {
        if matches!(access, Access::Text(..) | Access::Bool(..) | Access::OptionalBool(..)) {
            panic!("only numeric columns are metrics");
        }
        let metric_name = match (name.as_bytes(), unit) {
            ([stem @ .., b'_', b's'], MetricUnit::Seconds) => match std::str::from_utf8(stem) {
                Ok(stem) => stem,
                Err(_) => panic!("column names are ASCII"),
            },
            ([.., b'_', b's'], _) => panic!("a column ending in `_s` holds seconds"),
            (_, MetricUnit::Seconds) => panic!("a column of seconds ends in `_s`"),
            (_, _) => name,
        };
        Self { name, access, metric: Some(MetricInfo { name: metric_name, caption, unit }) }
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Whether the column may hold nulls, as its Arrow field declares.
    pub fn nullable(&self) -> bool {
        !matches!(
            self.access,
            Access::Text(..) | Access::U64(..) | Access::U32(..) | Access::F64(..) | Access::Bool(..)
        )
    }

    pub(super) const fn metric_info(&self) -> Option<MetricInfo> {
        self.metric
    }

    /// The value as a number for figures and checks; `None` for null. Only metric columns, which
    /// are numeric, are asked.
    pub(super) fn number(&self, row: &R) -> Option<f64> {
        match self.access {
            Access::U64(get, _) => Some(get(row) as f64),
            Access::U32(get, _) => Some(f64::from(get(row))),
            Access::OptionalU32(get, _) => get(row).map(f64::from),
            Access::OptionalU64(get, _) => get(row).map(|v| v as f64),
            Access::F64(get, _) => Some(get(row)),
            Access::F64NanAsNull(get, _) => nan_to_null(get(row)),
            Access::OptionalF64(get, _) | Access::DerivedF64(get) => get(row),
            Access::Text(..) | Access::Bool(..) | Access::OptionalBool(..) => {
                unreachable!("column `{}` is not numeric", self.name)
            }
        }
    }
}

/// NaN marks "no value" in [`crate::core::RunSummary`]; readers of the files expect null.
pub(super) fn nan_to_null(value: f64) -> Option<f64> {
    (!value.is_nan()).then_some(value)
}

/// Number of metric columns in `columns`.
const fn metric_count<R>(columns: &[Column<R>]) -> usize {
    let (mut count, mut i) = (0, 0);
    while i < columns.len() {
        if columns[i].metric.is_some() {
            count += 1;
        }
        i += 1;
    }
    count
}

/// The names of the `N` metric columns of `columns`, in column order.
const fn metric_names<const N: usize, R>(columns: &[Column<R>]) -> [&'static str; N] {
    let (mut names, mut count, mut i) = ([""; N], 0, 0);
    while i < columns.len() {
        if let Some(metric) = &columns[i].metric {
            names[count] = metric.name;
            count += 1;
        }
        i += 1;
    }
    names
}

/// The access `$kind` to one field of the row: its getter and setter name the field once.
macro_rules! field {
    (Text, $($path:ident).+) => {
        Access::Text(|row| &row.$($path).+, |row, value| row.$($path).+ = value)
    };
    ($kind:ident, $($path:ident).+) => {
        Access::$kind(|row| row.$($path).+, |row, value| row.$($path).+ = value)
    };
}

use MetricUnit::{Fraction, Plain, Seconds};

/// The columns every table starts with: the run's grid keys, then the spec and build that wrote
/// it, the same on each row so that every table can be filtered or joined on its own. Read back
/// from the runs table only.
pub const STAMP: &[Column<RunRow>] = &[
    Column::new("spec_sha256", field!(Text, spec_sha256)),
    Column::new("blox_version", field!(Text, blox_version)),
    Column::new("experiment", field!(Text, info.experiment)),
    Column::new("run_key", field!(Text, info.run_key)),
    Column::new("label", field!(Text, info.label)),
    Column::new("scheduler", field!(Text, info.scheduler)),
    Column::new("placement", field!(Text, info.placement)),
    Column::new("admission", field!(Text, info.admission)),
    Column::new("policy_params", field!(Text, info.policy_params)),
    Column::new("cluster", field!(Text, info.cluster)),
    Column::new("nodes", field!(U32, info.nodes)),
    Column::new("total_gpus", field!(U32, info.total_gpus)),
    Column::new("workload", field!(Text, info.workload)),
    Column::new("load", field!(OptionalF64, info.load)),
    Column::new("seed", field!(U64, info.seed)),
    // The decision period: `round_s` on the rounds engine, `slot_s` on the events engine (the
    // name predates the events engine and stays, as users' queries read it; the guide's "Results and figures").
    Column::new("round_s", field!(F64, info.round_seconds)),
];

/// The runs table: one row per run.
const RUNS: &[Column<RunRow>] = &[
    Column::new("tracked_jobs", field!(U64, summary.tracked_jobs)),
    Column::metric("tracked_finished", field!(U64, summary.tracked_finished), Plain, "Tracked jobs finished"),
    Column::metric("jobs_finished", field!(U64, summary.jobs_finished), Plain, "Jobs finished"),
    Column::new("jobs_unschedulable", field!(U64, summary.jobs_unschedulable)),
    Column::metric("avg_jct_s", field!(F64NanAsNull, summary.avg_jct), Seconds, "Average JCT"),
    Column::metric("median_jct_s", field!(F64NanAsNull, summary.median_jct), Seconds, "Median JCT"),
    Column::metric("p95_jct_s", field!(F64NanAsNull, summary.p95_jct), Seconds, "95th-percentile JCT"),
    Column::metric("p99_jct_s", field!(F64NanAsNull, summary.p99_jct), Seconds, "99th-percentile JCT"),
    Column::metric(
        "avg_responsiveness_s",
        field!(F64NanAsNull, summary.avg_responsiveness),
        Seconds,
        "Average responsiveness",
    ),
    Column::metric("makespan_s", field!(F64NanAsNull, summary.makespan), Seconds, "Makespan"),
    Column::metric("rounds", field!(U64, summary.rounds), Plain, "Rounds"),
    Column::metric("preemptions", field!(U64, summary.preemptions), Plain, "Preemptions"),
    Column::metric("resizes", field!(U64, summary.resizes), Plain, "Resizes of running jobs"),
    Column::metric("promoted_jobs", field!(U64, summary.promoted_jobs), Plain, "Jobs promoted by a starvation rule"),
    Column::metric("gpu_utilization", field!(F64NanAsNull, summary.gpu_utilization), Fraction, "GPU utilization"),
    Column::metric("deadline_jobs", field!(U64, summary.deadlines.deadline_jobs), Plain, "Jobs with a deadline"),
    Column::metric("accepted", field!(U64, summary.deadlines.accepted), Plain, "Jobs that met their deadline"),
    Column::metric("declined", field!(U64, summary.deadlines.declined), Plain, "Jobs declined or late"),
    Column::metric(
        "deadline_ratio",
        field!(OptionalF64, summary.deadlines.deadline_ratio),
        Plain,
        "Deadline satisfactory ratio",
    ),
    Column::metric(
        "best_effort_avg_jct_s",
        field!(OptionalF64, summary.deadlines.best_effort_avg_jct),
        Seconds,
        "Average JCT of best-effort jobs",
    ),
    Column::new("wall_time_s", field!(F64, wall_time_s)),
    Column::new("cpu_time_s", field!(F64, cpu_time_s)),
];

impl TableRow for RunRow {
    const COLUMNS: &'static [Column<Self>] = RUNS;
    const METRIC_NAMES: &'static [&'static str] = &metric_names::<{ metric_count(RUNS) }, _>(RUNS);
    const METRIC_TYPE: &'static str = "RunMetric";
}

/// The jobs table: one row per tracked job, in the order the run recorded them.
const JOBS: &[Column<JobRecord>] = &[
    Column::new("job_id", field!(U64, id)),
    Column::new("arrival_s", field!(F64, arrival)),
    Column::new("gpus", field!(U32, gpus)),
    Column::new("work_s", field!(F64, work)),
    Column::new("first_start_s", field!(OptionalF64, first_start)),
    Column::new("first_progress_s", field!(OptionalF64, first_progress)),
    Column::new("finish_s", field!(OptionalF64, finish)),
    Column::metric("jct_s", Access::DerivedF64(JobRecord::jct), Seconds, "Job completion time"),
    Column::metric("responsiveness_s", Access::DerivedF64(JobRecord::responsiveness), Seconds, "Responsiveness"),
    Column::metric(
        "queueing_delay_s",
        Access::DerivedF64(|job| job.first_start.map(|start| start - job.arrival)),
        Seconds,
        "Queueing delay",
    ),
    Column::new("preemptions", field!(U32, preemptions)),
    Column::new("resizes", field!(U32, resizes)),
    Column::new("attained_service_s", field!(F64, attained_service)),
    Column::new("promoted", field!(Bool, promoted)),
    Column::new("deadline_s", field!(OptionalF64, deadline)),
    Column::new("best_effort", field!(Bool, best_effort)),
    Column::new("met_deadline", field!(OptionalBool, met_deadline)),
    Column::new("final_gpus", field!(OptionalU32, final_gpus)),
];

impl TableRow for JobRecord {
    const COLUMNS: &'static [Column<Self>] = JOBS;
    const METRIC_NAMES: &'static [&'static str] = &metric_names::<{ metric_count(JOBS) }, _>(JOBS);
    const METRIC_TYPE: &'static str = "JobMetric";
}

/// The timeline table: the cluster's state after each round or decision.
const TIMELINE: &[Column<TimelineRow>] = &[
    Column::new("time_s", field!(F64, time)),
    Column::metric("free_gpus", field!(U32, free_gpus), Plain, "Free GPUs"),
    Column::metric("gpu_demand", field!(U64, gpu_demand), Plain, "GPU demand"),
    Column::metric("running", field!(U32, running), Plain, "Running jobs"),
    Column::metric("queued", field!(U32, queued), Plain, "Queued jobs"),
    Column::metric("admission_backlog", field!(OptionalU32, admission_backlog), Plain, "Jobs held by admission"),
    Column::metric("preemptions", field!(U32, preemptions), Plain, "Preemptions per round"),
    Column::metric("resizes", field!(U32, resizes), Plain, "Resizes per round"),
    Column::metric("cluster_efficiency", field!(OptionalF64, cluster_efficiency), Plain, "Cluster efficiency"),
    Column::metric("cpus_in_use", field!(OptionalF64, cpus_in_use), Plain, "CPUs in use"),
    Column::metric("memory_gb_in_use", field!(OptionalF64, memory_gb_in_use), Plain, "Memory in use (GB)"),
    Column::metric("arrived_gpu_milli", field!(OptionalU64, arrived_gpu_milli), Plain, "Arrived GPU request (milli)"),
    Column::metric("allocated_gpu_milli", field!(OptionalU64, allocated_gpu_milli), Plain, "Allocated GPU (milli)"),
    Column::metric("fragmented_gpu_milli", field!(OptionalF64, fragmented_gpu_milli), Plain, "Fragmented GPU (milli)"),
    Column::metric("fragmentation_ratio", field!(OptionalF64, fragmentation_ratio), Plain, "Fragmentation ratio (%)"),
];

impl TableRow for TimelineRow {
    const COLUMNS: &'static [Column<Self>] = TIMELINE;
    const METRIC_NAMES: &'static [&'static str] = &metric_names::<{ metric_count(TIMELINE) }, _>(TIMELINE);
    const METRIC_TYPE: &'static str = "TimelineMetric";
}

/// The attempts table of a live run: one row per launch of a job's process.
const ATTEMPTS: &[Column<AttemptRow>] = &[
    Column::new("job_id", field!(U64, job_id)),
    Column::new("attempt", field!(U32, attempt)),
    Column::new("node", field!(Text, node)),
    Column::new("slots", field!(Text, slots)),
    Column::new("launched_s", field!(F64, launched)),
    Column::new("started_s", field!(OptionalF64, started)),
    Column::new("first_progress_s", field!(OptionalF64, first_progress)),
    Column::new("preempted_s", field!(OptionalF64, preempted)),
    Column::new("ended_s", field!(OptionalF64, ended)),
    Column::new("end", field!(Text, end)),
    Column::new("exit_code", field!(OptionalU32, exit_code)),
    Column::new("signal", field!(OptionalU32, signal)),
    Column::new("iterations_before", field!(U64, iterations_before)),
    Column::new("iterations_after", field!(U64, iterations_after)),
    Column::new("stderr_tail", field!(Text, stderr_tail)),
    Column::new("launch_overhead_s", Access::DerivedF64(AttemptRow::launch_overhead)),
    Column::new("preemption_overhead_s", Access::DerivedF64(AttemptRow::preemption_overhead)),
    Column::new("iterations_per_s", Access::DerivedF64(AttemptRow::iterations_per_s)),
];

impl TableRow for AttemptRow {
    const COLUMNS: &'static [Column<Self>] = ATTEMPTS;
    const METRIC_NAMES: &'static [&'static str] = &[];
    const METRIC_TYPE: &'static str = "AttemptMetric";
}
