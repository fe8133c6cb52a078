//! Named quantities of the result tables, as specs refer to them in figures and expected values.

use crate::core::{JobRecord, RunSummary, TimelineRow};
use serde::{Deserialize, Serialize};

/// A per-run quantity (one value per row of the runs table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunMetric {
    AvgJct,
    MedianJct,
    P95Jct,
    P99Jct,
    AvgResponsiveness,
    Makespan,
    GpuUtilization,
    Preemptions,
    PromotedJobs,
    JobsFinished,
    TrackedFinished,
    Rounds,
    DeadlineJobs,
    Accepted,
    Declined,
    DeadlineRatio,
    BestEffortAvgJct,
}

impl RunMetric {
    /// The value in base units: seconds for times, a 0-1 fraction for utilisation, else a count.
    pub fn value(self, s: &RunSummary) -> f64 {
        match self {
            RunMetric::AvgJct => s.avg_jct,
            RunMetric::MedianJct => s.median_jct,
            RunMetric::P95Jct => s.p95_jct,
            RunMetric::P99Jct => s.p99_jct,
            RunMetric::AvgResponsiveness => s.avg_responsiveness,
            RunMetric::Makespan => s.makespan,
            RunMetric::GpuUtilization => s.gpu_utilization,
            RunMetric::Preemptions => s.preemptions as f64,
            RunMetric::PromotedJobs => s.promoted_jobs as f64,
            RunMetric::JobsFinished => s.jobs_finished as f64,
            RunMetric::TrackedFinished => s.tracked_finished as f64,
            RunMetric::Rounds => s.rounds as f64,
            RunMetric::DeadlineJobs => s.deadlines.deadline_jobs as f64,
            RunMetric::Accepted => s.deadlines.accepted as f64,
            RunMetric::Declined => s.deadlines.declined as f64,
            RunMetric::DeadlineRatio => s.deadlines.deadline_ratio.unwrap_or(f64::NAN),
            RunMetric::BestEffortAvgJct => s.deadlines.best_effort_avg_jct.unwrap_or(f64::NAN),
        }
    }

    pub fn is_time(self) -> bool {
        matches!(
            self,
            RunMetric::AvgJct
                | RunMetric::MedianJct
                | RunMetric::P95Jct
                | RunMetric::P99Jct
                | RunMetric::AvgResponsiveness
                | RunMetric::Makespan
                | RunMetric::BestEffortAvgJct
        )
    }

    /// Axis or table caption without the unit, e.g. "Average JCT".
    pub fn caption(self) -> &'static str {
        match self {
            RunMetric::AvgJct => "Average JCT",
            RunMetric::MedianJct => "Median JCT",
            RunMetric::P95Jct => "95th-percentile JCT",
            RunMetric::P99Jct => "99th-percentile JCT",
            RunMetric::AvgResponsiveness => "Average responsiveness",
            RunMetric::Makespan => "Makespan",
            RunMetric::GpuUtilization => "GPU utilization",
            RunMetric::Preemptions => "Preemptions",
            RunMetric::PromotedJobs => "Jobs promoted by a starvation rule",
            RunMetric::JobsFinished => "Jobs finished",
            RunMetric::TrackedFinished => "Tracked jobs finished",
            RunMetric::Rounds => "Rounds",
            RunMetric::DeadlineJobs => "Jobs with a deadline",
            RunMetric::Accepted => "Jobs that met their deadline",
            RunMetric::Declined => "Jobs declined or late",
            RunMetric::DeadlineRatio => "Deadline satisfactory ratio",
            RunMetric::BestEffortAvgJct => "Average JCT of best-effort jobs",
        }
    }
}

/// A per-job quantity (one value per row of the jobs table), for CDFs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobMetric {
    Jct,
    QueueingDelay,
    Responsiveness,
}

impl JobMetric {
    /// Seconds, or `None` for a job that never reached the point measured.
    pub fn value(self, job: &JobRecord) -> Option<f64> {
        match self {
            JobMetric::Jct => job.jct(),
            JobMetric::QueueingDelay => job.first_start.map(|s| s - job.arrival),
            JobMetric::Responsiveness => job.responsiveness(),
        }
    }

    pub fn caption(self) -> &'static str {
        match self {
            JobMetric::Jct => "Job completion time",
            JobMetric::QueueingDelay => "Queueing delay",
            JobMetric::Responsiveness => "Responsiveness",
        }
    }
}

/// A per-round quantity (one value per row of the timeline table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimelineMetric {
    FreeGpus,
    GpuDemand,
    Running,
    Queued,
    AdmissionBacklog,
    Preemptions,
    ClusterEfficiency,
}

impl TimelineMetric {
    pub fn value(self, row: &TimelineRow) -> f64 {
        match self {
            TimelineMetric::FreeGpus => f64::from(row.free_gpus),
            TimelineMetric::GpuDemand => row.gpu_demand as f64,
            TimelineMetric::Running => f64::from(row.running),
            TimelineMetric::Queued => f64::from(row.queued),
            TimelineMetric::AdmissionBacklog => row.admission_backlog.map_or(f64::NAN, f64::from),
            TimelineMetric::Preemptions => f64::from(row.preemptions),
            TimelineMetric::ClusterEfficiency => row.cluster_efficiency.unwrap_or(f64::NAN),
        }
    }

    pub fn caption(self) -> &'static str {
        match self {
            TimelineMetric::FreeGpus => "Free GPUs",
            TimelineMetric::GpuDemand => "GPU demand",
            TimelineMetric::Running => "Running jobs",
            TimelineMetric::Queued => "Queued jobs",
            TimelineMetric::AdmissionBacklog => "Jobs held by admission",
            TimelineMetric::Preemptions => "Preemptions per round",
            TimelineMetric::ClusterEfficiency => "Cluster efficiency",
        }
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

impl RunMetric {
    /// The value as shown: times in `unit`, utilisation in percent, counts as they are.
    pub fn display_value(self, s: &RunSummary, unit: TimeUnit) -> f64 {
        let v = self.value(s);
        if self.is_time() {
            unit.from_seconds(v)
        } else if self == RunMetric::GpuUtilization {
            v * 100.0
        } else {
            v
        }
    }

    /// Caption with its unit, e.g. "Average JCT (hours)" or "GPU utilization (%)".
    pub fn axis_label(self, unit: TimeUnit) -> String {
        if self.is_time() {
            format!("{} ({})", self.caption(), unit.name())
        } else if self == RunMetric::GpuUtilization {
            format!("{} (%)", self.caption())
        } else {
            self.caption().to_string()
        }
    }
}
