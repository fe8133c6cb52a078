//! Workload transforms: what a spec does to a trace before simulating it.
//!
//! Transforms run in the order the spec lists them, on jobs sorted by submission. Each one counts
//! what it drops or changes in the trace's [`ReadReport`] under its own name, so a run can always
//! say how many of the file's jobs it simulated and why the others are missing. Seeded transforms
//! (`sample`, `redraw-durations`) draw from one CPython-compatible stream seeded with the run's
//! seed, in list order, so a spec and seed always give the same jobs.

use super::blox_synthetic::gavel_like_duration_s;
use super::python_random::PyRandom;
use crate::trace::{ReadReport, TraceJob};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::num::{NonZeroU32, NonZeroU64};

/// One entry of a trace workload's `transforms:` list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Transform {
    /// Keep jobs submitted in `[start_h, end_h)` hours after the first job's submission, then
    /// shift times so the window starts at 0 (Synergy's "2400-3000 h into Philly").
    Window(WindowParams),
    /// Keep the first `n` jobs in submission order.
    First(NonZeroU64),
    /// Keep only the jobs that meet every condition given.
    Filter(FilterParams),
    /// Scale inter-arrival gaps so the jobs arrive at `jobs_per_hour` on average over the span
    /// (a number, or `load` for the grid's load).
    RescaleArrivals(RescaleParams),
    /// Cap each job's GPU count at a number or at the cluster's size (`cluster`).
    CapGpus(GpuCap),
    /// Replace every duration with a fresh draw from a duration model.
    RedrawDurations(DurationModel),
    /// Keep each job independently with probability `fraction` (seeded).
    Sample(SampleParams),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowParams {
    #[serde(default)]
    pub start_h: f64,
    /// Open-ended when absent.
    #[serde(default)]
    pub end_h: Option<f64>,
}

/// Conditions of `filter`; bounds are inclusive. A job without the field a condition needs
/// (no duration, no status) is dropped by that condition.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterParams {
    #[serde(default)]
    pub min_duration_s: Option<f64>,
    #[serde(default)]
    pub max_duration_s: Option<f64>,
    #[serde(default)]
    pub min_gpus: Option<u32>,
    #[serde(default)]
    pub max_gpus: Option<u32>,
    /// Keep only these GPU counts.
    #[serde(default)]
    pub gpus: Option<Vec<u32>>,
    /// Keep only these statuses (compared case-insensitively: `Pass`, `COMPLETED`, ...).
    #[serde(default)]
    pub status: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RescaleParams {
    pub jobs_per_hour: Rate,
}

/// A target arrival rate: fixed, or the grid's `loads` (the trace then runs once per load).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Rate {
    Load(LoadKeyword),
    JobsPerHour(f64),
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoadKeyword {
    Load,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum GpuCap {
    Cluster(ClusterKeyword),
    Gpus(NonZeroU32),
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClusterKeyword {
    Cluster,
}

/// Duration models for `redraw-durations`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DurationModel {
    /// Blox/Gavel/Synergy `get_gavel_like_iter`: 80 % `60·10^U(1.5,3)` s, 20 % `60·10^U(3,4)` s.
    Blox,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampleParams {
    pub fraction: f64,
}

/// What transforms may depend on besides their parameters.
#[derive(Debug, Clone, Copy)]
pub struct TransformContext {
    pub seed: u64,
    /// The grid's load in jobs per hour, when the workload runs at one.
    pub load: Option<f64>,
    pub cluster_gpus: u32,
}

/// A transform that cannot apply to this trace or these parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct TransformError {
    pub transform: &'static str,
    pub message: String,
}

impl fmt::Display for TransformError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "transform `{}`: {}", self.transform, self.message)
    }
}

impl std::error::Error for TransformError {}

impl Transform {
    pub fn name(&self) -> &'static str {
        match self {
            Transform::Window(_) => "window",
            Transform::First(_) => "first",
            Transform::Filter(_) => "filter",
            Transform::RescaleArrivals(_) => "rescale-arrivals",
            Transform::CapGpus(_) => "cap-gpus",
            Transform::RedrawDurations(_) => "redraw-durations",
            Transform::Sample(_) => "sample",
        }
    }

    /// Whether the transform takes the grid's load.
    pub fn needs_load(&self) -> bool {
        matches!(self, Transform::RescaleArrivals(RescaleParams { jobs_per_hour: Rate::Load(_) }))
    }

    /// Checks parameters that serde cannot (ranges, order of bounds).
    pub fn validate(&self) -> Result<(), TransformError> {
        let fail = |message: String| Err(TransformError { transform: self.name(), message });
        let finite_non_negative = |x: f64| x.is_finite() && x >= 0.0;
        match self {
            Transform::Window(w) => {
                if !finite_non_negative(w.start_h) {
                    return fail(format!("start_h must be a number of hours >= 0, got {}", w.start_h));
                }
                if let Some(end) = w.end_h.filter(|&e| !(e.is_finite() && e > w.start_h)) {
                    return fail(format!("end_h ({end}) must be greater than start_h ({})", w.start_h));
                }
            }
            Transform::Filter(f) => {
                for (name, bound) in [("min_duration_s", f.min_duration_s), ("max_duration_s", f.max_duration_s)] {
                    if let Some(b) = bound.filter(|&b| !finite_non_negative(b)) {
                        return fail(format!("{name} must be a number of seconds >= 0, got {b}"));
                    }
                }
                if let (Some(lo), Some(hi)) = (f.min_duration_s, f.max_duration_s)
                    && lo > hi
                {
                    return fail(format!("min_duration_s ({lo}) is above max_duration_s ({hi})"));
                }
                if let (Some(lo), Some(hi)) = (f.min_gpus, f.max_gpus)
                    && lo > hi
                {
                    return fail(format!("min_gpus ({lo}) is above max_gpus ({hi})"));
                }
                if f.gpus.as_ref().is_some_and(Vec::is_empty) || f.status.as_ref().is_some_and(Vec::is_empty) {
                    return fail("an empty `gpus` or `status` list would drop every job".into());
                }
            }
            Transform::RescaleArrivals(RescaleParams { jobs_per_hour: Rate::JobsPerHour(r) })
                if !(r.is_finite() && *r > 0.0) =>
            {
                return fail(format!("jobs_per_hour must be positive, got {r}"));
            }
            Transform::Sample(s) if !(s.fraction > 0.0 && s.fraction <= 1.0) => {
                return fail(format!("fraction must be in (0, 1], got {}", s.fraction));
            }
            _ => {}
        }
        Ok(())
    }
}

/// Applies `transforms` in order to `jobs` (sorted by submission), counting in `report`.
pub fn apply(
    transforms: &[Transform],
    mut jobs: Vec<TraceJob>,
    context: TransformContext,
    report: &mut ReadReport,
) -> Result<Vec<TraceJob>, TransformError> {
    let mut rng = PyRandom::seed(context.seed);
    for transform in transforms {
        transform.validate()?;
        let step = transform.name();
        let before = jobs.len();
        match transform {
            Transform::Window(_) | Transform::First(_) | Transform::Filter(_) | Transform::CapGpus(_) => {
                let mut stage = PerJob::new(std::slice::from_ref(transform), context)?;
                jobs = jobs.into_iter().filter_map(|job| stage.apply(job)).collect();
                stage.finish(report);
            }
            Transform::RescaleArrivals(r) => {
                let target = match r.jobs_per_hour {
                    Rate::JobsPerHour(rate) => rate,
                    Rate::Load(_) => context.load.ok_or_else(|| TransformError {
                        transform: step,
                        message: "`jobs_per_hour: load` needs the spec's `loads:`".into(),
                    })?,
                };
                rescale_arrivals(&mut jobs, target, report)
                    .map_err(|message| TransformError { transform: step, message })?;
            }
            Transform::RedrawDurations(DurationModel::Blox) => {
                for job in &mut jobs {
                    job.duration_s = Some(gavel_like_duration_s(&mut rng));
                    job.iterations = None;
                }
                report.adjust_rows(
                    step,
                    "duration redrawn from the Blox/Gavel model (iterations cleared)",
                    jobs.len() as u64,
                );
            }
            Transform::Sample(s) => {
                jobs.retain(|_| rng.random() < s.fraction);
                report.drop_rows(step, &format!("not in the {} sample", s.fraction), (before - jobs.len()) as u64);
            }
        }
    }
    report.jobs_kept = jobs.len() as u64;
    Ok(jobs)
}

impl Transform {
    /// Whether the transform decides job by job in submission order, never looking at a later
    /// job (`window` takes its origin from the first job that reaches it): a list of only these
    /// can be applied to a trace read streaming ([`PerJob`]). The others need the whole trace
    /// (`rescale-arrivals` its span) or draw from the one random stream in list order over all
    /// jobs (`sample`, `redraw-durations`).
    pub fn is_per_job(&self) -> bool {
        matches!(self, Transform::Window(_) | Transform::First(_) | Transform::Filter(_) | Transform::CapGpus(_))
    }
}

/// Per-job transforms applied to one job at a time, in list order, with the same rules and
/// counts as [`apply`] (which runs each of them as a pipeline of one over the whole list).
pub struct PerJob<'a> {
    stages: Vec<Stage<'a>>,
}

/// One transform of a [`PerJob`] pipeline, with what it has seen so far and what it counted.
struct Stage<'a> {
    transform: &'a Transform,
    /// Jobs that reached the stage (`first`'s count).
    seen: u64,
    /// `window`: the submission of the first job that reached it.
    origin: Option<f64>,
    /// `cap-gpus`: the cap, resolved against the cluster.
    cap: u32,
    /// `filter`'s statuses, lower-cased once.
    statuses: Option<Vec<String>>,
    report: ReadReport,
}

impl<'a> PerJob<'a> {
    /// A pipeline of `transforms`, every one of them per job ([`Transform::is_per_job`]).
    pub fn new(transforms: &'a [Transform], context: TransformContext) -> Result<Self, TransformError> {
        let mut stages = Vec::with_capacity(transforms.len());
        for transform in transforms {
            transform.validate()?;
            debug_assert!(transform.is_per_job(), "{} needs the whole trace", transform.name());
            let cap = match transform {
                Transform::CapGpus(GpuCap::Cluster(_)) => context.cluster_gpus,
                Transform::CapGpus(GpuCap::Gpus(n)) => n.get(),
                _ => u32::MAX,
            };
            let statuses = match transform {
                Transform::Filter(f) => f.status.as_ref().map(|s| s.iter().map(|x| x.to_lowercase()).collect()),
                _ => None,
            };
            stages.push(Stage { transform, seen: 0, origin: None, cap, statuses, report: ReadReport::default() });
        }
        Ok(Self { stages })
    }

    /// The job after every transform, or `None` when one drops it.
    pub fn apply(&mut self, mut job: TraceJob) -> Option<TraceJob> {
        for stage in &mut self.stages {
            if !stage.apply(&mut job) {
                return None;
            }
        }
        Some(job)
    }

    /// Adds each transform's counts to `report`, in list order.
    pub fn finish(self, report: &mut ReadReport) {
        for stage in self.stages {
            for count in stage.report.dropped {
                report.drop_rows(&count.step, &count.reason, count.rows);
            }
            for count in stage.report.adjusted {
                report.adjust_rows(&count.step, &count.reason, count.rows);
            }
        }
    }
}

impl Stage<'_> {
    /// Applies the transform to `job`; `false` when it drops the job.
    fn apply(&mut self, job: &mut TraceJob) -> bool {
        self.seen += 1;
        let step = self.transform.name();
        match self.transform {
            Transform::Window(w) => {
                let first = *self.origin.get_or_insert(job.submit_s);
                let start = first + w.start_h * 3600.0;
                if job.submit_s < start {
                    self.report.drop_row(step, "submitted before the window");
                    return false;
                }
                if w.end_h.is_some_and(|e| job.submit_s >= first + e * 3600.0) {
                    self.report.drop_row(step, "submitted after the window");
                    return false;
                }
                job.submit_s -= start;
                if let Some(d) = job.deadline_s.as_mut() {
                    *d -= start;
                }
            }
            Transform::First(n) => {
                if self.seen > n.get() {
                    self.report.drop_row(step, &format!("beyond the first {n} jobs"));
                    return false;
                }
            }
            Transform::Filter(f) => {
                if let Some(reason) = filter_reason(f, self.statuses.as_deref(), job) {
                    self.report.drop_row(step, &reason);
                    return false;
                }
            }
            Transform::CapGpus(_) => {
                if job.gpus > self.cap {
                    job.gpus = self.cap;
                    self.report.adjust_rows(step, &format!("GPU count capped at {}", self.cap), 1);
                }
            }
            Transform::RescaleArrivals(_) | Transform::RedrawDurations(_) | Transform::Sample(_) => {
                unreachable!("PerJob::new takes per-job transforms only")
            }
        }
        true
    }
}

/// Why `filter` drops `job`, if it does (`statuses` lower-cased).
fn filter_reason(f: &FilterParams, statuses: Option<&[String]>, job: &TraceJob) -> Option<String> {
    if (f.min_duration_s.is_some() || f.max_duration_s.is_some()) && job.duration_s.is_none() {
        Some("no duration".to_string())
    } else if let Some(lo) = f.min_duration_s.filter(|&lo| job.duration_s.is_some_and(|d| d < lo)) {
        Some(format!("duration below {lo} s"))
    } else if let Some(hi) = f.max_duration_s.filter(|&hi| job.duration_s.is_some_and(|d| d > hi)) {
        Some(format!("duration above {hi} s"))
    } else if let Some(lo) = f.min_gpus.filter(|&lo| job.gpus < lo) {
        Some(format!("fewer than {lo} GPUs"))
    } else if let Some(hi) = f.max_gpus.filter(|&hi| job.gpus > hi) {
        Some(format!("more than {hi} GPUs"))
    } else if f.gpus.as_ref().is_some_and(|g| !g.contains(&job.gpus)) {
        Some("GPU count not in the list".to_string())
    } else if let Some(keep) = statuses {
        match &job.status {
            None => Some("no status".to_string()),
            Some(s) if !keep.contains(&s.to_lowercase()) => Some(format!("status {s}")),
            Some(_) => None,
        }
    } else {
        None
    }
}

/// Scales submission offsets from the first job so that `n` jobs over the span arrive at
/// `target` jobs per hour (the rate `blox trace inspect` reports).
fn rescale_arrivals(jobs: &mut [TraceJob], target: f64, report: &mut ReadReport) -> Result<(), String> {
    let (Some(first), Some(last)) = (jobs.first().map(|j| j.submit_s), jobs.last().map(|j| j.submit_s)) else {
        return Ok(());
    };
    let span_h = (last - first) / 3600.0;
    if span_h <= 0.0 {
        return Err("every job is submitted at the same time, so there is no arrival rate to rescale".into());
    }
    let factor = (jobs.len() as f64 / span_h) / target;
    for job in jobs.iter_mut() {
        let scaled = first + (job.submit_s - first) * factor;
        if let Some(d) = job.deadline_s.as_mut() {
            *d += scaled - job.submit_s;
        }
        job.submit_s = scaled;
    }
    report.adjust_rows(
        "rescale-arrivals",
        &format!("inter-arrival gaps scaled by {factor:.4} to {target} jobs/hour"),
        jobs.len() as u64,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: &str, submit: f64, gpus: u32, duration: Option<f64>, status: Option<&str>) -> TraceJob {
        let mut j = TraceJob::new(id, submit, gpus);
        j.duration_s = duration;
        j.status = status.map(str::to_string);
        j
    }

    fn parse(yaml: &str) -> Result<Vec<Transform>, String> {
        serde_saphyr::from_str::<Vec<Transform>>(yaml).map_err(|e| e.to_string())
    }

    fn ctx() -> TransformContext {
        TransformContext { seed: 1, load: Some(2.0), cluster_gpus: 16 }
    }

    fn ids(jobs: &[TraceJob]) -> Vec<&str> {
        jobs.iter().map(|j| j.source_id.as_str()).collect()
    }

    #[test]
    fn parses_every_transform() {
        let t = parse(
            "- window: {start_h: 1, end_h: 2}\n- first: 10\n- filter: {min_duration_s: 60, gpus: [1, 2], status: [Pass]}\n- rescale-arrivals: {jobs_per_hour: load}\n- rescale-arrivals: {jobs_per_hour: 7.5}\n- cap-gpus: cluster\n- cap-gpus: 8\n- redraw-durations: blox\n- sample: {fraction: 0.5}\n",
        )
        .unwrap();
        assert_eq!(t.len(), 9);
        assert_eq!(t[3], Transform::RescaleArrivals(RescaleParams { jobs_per_hour: Rate::Load(LoadKeyword::Load) }));
        assert_eq!(t[4], Transform::RescaleArrivals(RescaleParams { jobs_per_hour: Rate::JobsPerHour(7.5) }));
        assert_eq!(t[5], Transform::CapGpus(GpuCap::Cluster(ClusterKeyword::Cluster)));
        assert_eq!(t[6], Transform::CapGpus(GpuCap::Gpus(NonZeroU32::new(8).unwrap())));
        assert!(t[3].needs_load() && !t[4].needs_load());
        assert!(parse("- first: 0\n").is_err());
        assert!(parse("- filter: {min_duration: 60}\n").unwrap_err().contains("min_duration"));
        assert!(parse("- shuffle: {}\n").unwrap_err().contains("shuffle"));
        assert!(parse("- cap-gpus: cluster-size\n").is_err());
    }

    #[test]
    fn window_keeps_the_span_and_shifts_it_to_zero() {
        let jobs = vec![
            job("a", 100.0, 1, Some(1.0), None),
            job("b", 3700.0, 1, Some(1.0), None),
            job("c", 7300.0, 1, Some(1.0), None),
        ];
        let mut report = ReadReport::default();
        let t = [Transform::Window(WindowParams { start_h: 1.0, end_h: Some(2.0) })];
        let out = apply(&t, jobs, ctx(), &mut report).unwrap();
        assert_eq!(ids(&out), ["b"]);
        assert_eq!(out[0].submit_s, 0.0);
        let reasons: Vec<(&str, u64)> = report.dropped.iter().map(|c| (c.reason.as_str(), c.rows)).collect();
        assert_eq!(reasons, [("submitted before the window", 1), ("submitted after the window", 1)]);
        assert_eq!(report.jobs_kept, 1);
    }

    #[test]
    fn filter_counts_each_reason() {
        let jobs = vec![
            job("short", 0.0, 1, Some(10.0), Some("Pass")),
            job("nodur", 1.0, 1, None, Some("Pass")),
            job("wide", 2.0, 32, Some(100.0), Some("Pass")),
            job("killed", 3.0, 1, Some(100.0), Some("Killed")),
            job("ok", 4.0, 2, Some(100.0), Some("pass")),
        ];
        let f = Transform::Filter(FilterParams {
            min_duration_s: Some(60.0),
            max_gpus: Some(16),
            status: Some(vec!["Pass".into()]),
            ..FilterParams::default()
        });
        let mut report = ReadReport::default();
        let out = apply(&[f], jobs, ctx(), &mut report).unwrap();
        assert_eq!(ids(&out), ["ok"]);
        let reasons: Vec<&str> = report.dropped.iter().map(|c| c.reason.as_str()).collect();
        assert_eq!(reasons, ["duration below 60 s", "no duration", "more than 16 GPUs", "status Killed"]);
    }

    #[test]
    fn rescale_hits_the_target_rate_and_moves_deadlines() {
        let mut jobs: Vec<TraceJob> =
            (0..5).map(|i| job(&i.to_string(), 1000.0 + 3600.0 * f64::from(i), 1, Some(1.0), None)).collect();
        jobs[4].deadline_s = Some(1000.0 + 4.0 * 3600.0 + 50.0);
        let t = [Transform::RescaleArrivals(RescaleParams { jobs_per_hour: Rate::Load(LoadKeyword::Load) })];
        let out = apply(&t, jobs, ctx(), &mut ReadReport::default()).unwrap();
        let stats = crate::trace::stats::TraceStats::of(&out, None);
        assert!((stats.arrivals_per_hour.unwrap() - 2.0).abs() < 1e-9);
        assert_eq!(out[0].submit_s, 1000.0);
        assert_eq!(out[4].deadline_s.unwrap() - out[4].submit_s, 50.0);
        let no_load = TransformContext { load: None, ..ctx() };
        let err = apply(
            &t,
            vec![job("a", 0.0, 1, None, None), job("b", 1.0, 1, None, None)],
            no_load,
            &mut ReadReport::default(),
        );
        assert_eq!(
            err.unwrap_err().to_string(),
            "transform `rescale-arrivals`: `jobs_per_hour: load` needs the spec's `loads:`"
        );
        let at_once = apply(
            &t,
            vec![job("a", 0.0, 1, None, None), job("b", 0.0, 1, None, None)],
            ctx(),
            &mut ReadReport::default(),
        );
        assert!(at_once.unwrap_err().message.contains("same time"));
    }

    #[test]
    fn first_cap_redraw_and_sample_are_seeded_and_counted() {
        let jobs: Vec<TraceJob> =
            (0..100).map(|i| job(&i.to_string(), f64::from(i), 1 + i % 40, Some(5.0), None)).collect();
        let t = [
            Transform::First(NonZeroU64::new(80).unwrap()),
            Transform::CapGpus(GpuCap::Cluster(ClusterKeyword::Cluster)),
            Transform::RedrawDurations(DurationModel::Blox),
            Transform::Sample(SampleParams { fraction: 0.5 }),
        ];
        let mut report = ReadReport::default();
        let out = apply(&t, jobs.clone(), ctx(), &mut report).unwrap();
        let again = apply(&t, jobs.clone(), ctx(), &mut ReadReport::default()).unwrap();
        assert_eq!(out, again);
        let other_seed = apply(&t, jobs, TransformContext { seed: 2, ..ctx() }, &mut ReadReport::default()).unwrap();
        assert_ne!(ids(&out), ids(&other_seed));
        assert!(out.iter().all(|j| j.gpus <= 16 && j.duration_s.unwrap() > 60.0 * 10f64.powf(1.5) - 1e-9));
        assert_eq!(report.dropped[0].rows, 20);
        assert_eq!(report.total_dropped() + report.jobs_kept, 100);
        // Jobs 15..=39 and 55..=79 of the first 80 ask for 1 + i % 40 > 16 GPUs: 2 x 24 (i % 40 >= 16).
        assert_eq!(report.adjusted[0].rows, 48);
    }

    #[test]
    fn invalid_parameters_are_errors() {
        let bad = [
            (
                Transform::Window(WindowParams { start_h: 2.0, end_h: Some(1.0) }),
                "end_h (1) must be greater than start_h (2)",
            ),
            (
                Transform::Filter(FilterParams { min_gpus: Some(4), max_gpus: Some(2), ..FilterParams::default() }),
                "min_gpus (4) is above max_gpus (2)",
            ),
            (Transform::Sample(SampleParams { fraction: 0.0 }), "fraction must be in (0, 1], got 0"),
            (
                Transform::RescaleArrivals(RescaleParams { jobs_per_hour: Rate::JobsPerHour(-1.0) }),
                "jobs_per_hour must be positive, got -1",
            ),
        ];
        for (t, message) in bad {
            assert_eq!(t.validate().unwrap_err().message, message);
        }
    }
}
