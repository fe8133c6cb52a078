//! Summary statistics of a trace, as `blox trace inspect` prints them.
//!
//! Quantiles interpolate linearly between order statistics (NumPy's default), so they compare
//! directly with numbers computed by `numpy.percentile` or pandas in the papers' notebooks.

use super::TraceJob;
use crate::core::metrics::quantile_sorted;
use serde::Serialize;
use std::collections::BTreeMap;

/// What a trace contains: size mix, durations, arrivals and the load it offers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceStats {
    pub jobs: u64,
    /// Jobs per GPU count, ascending.
    pub gpu_mix: BTreeMap<u32, u64>,
    pub mean_gpus: f64,
    /// Durations of the jobs that have one; `None` when no job does (iteration-only formats).
    pub duration_s: Option<Distribution>,
    /// Share of GPU-time (GPUs x duration) in jobs of 8 or more GPUs.
    pub gpu_time_share_8_plus: Option<f64>,
    pub first_submit_s: f64,
    pub last_submit_s: f64,
    /// Jobs per hour over the arrival span; `None` when every job arrives at once.
    pub arrivals_per_hour: Option<f64>,
    /// GPU-seconds of work over GPU-seconds of capacity during the arrival span, for the
    /// cluster size asked for; `None` without a size, durations or a span.
    pub offered_load: Option<f64>,
    pub jobs_with_iterations: u64,
    pub jobs_with_deadline: u64,
    pub best_effort_jobs: u64,
    /// Jobs per model, most frequent first, then by name.
    pub models: Vec<ModelCount>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelCount {
    pub model: String,
    pub jobs: u64,
}

/// Quantiles and moments of a sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Distribution {
    pub count: u64,
    pub mean: f64,
    pub min: f64,
    pub p10: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

impl Distribution {
    /// `None` for an empty sample.
    pub fn of(mut values: Vec<f64>) -> Option<Distribution> {
        if values.is_empty() {
            return None;
        }
        values.sort_by(f64::total_cmp);
        let q = |p: f64| quantile_sorted(&values, p);
        Some(Distribution {
            count: values.len() as u64,
            mean: values.iter().sum::<f64>() / values.len() as f64,
            min: values[0],
            p10: q(0.10),
            p50: q(0.50),
            p90: q(0.90),
            p99: q(0.99),
            max: values[values.len() - 1],
        })
    }
}

impl TraceStats {
    /// Statistics of `jobs`; `cluster_gpus` sizes the offered load.
    pub fn of(jobs: &[TraceJob], cluster_gpus: Option<u32>) -> TraceStats {
        let mut gpu_mix = BTreeMap::new();
        for job in jobs {
            *gpu_mix.entry(job.gpus).or_insert(0) += 1;
        }
        let n = jobs.len() as f64;
        let durations: Vec<f64> = jobs.iter().filter_map(|j| j.duration_s).collect();
        let gpu_time = |filter: &dyn Fn(&TraceJob) -> bool| -> f64 {
            jobs.iter().filter(|j| filter(j)).filter_map(|j| j.duration_s.map(|d| d * f64::from(j.gpus))).sum()
        };
        let total_gpu_time = gpu_time(&|_| true);
        let first = jobs.iter().map(|j| j.submit_s).fold(f64::INFINITY, f64::min);
        let last = jobs.iter().map(|j| j.submit_s).fold(f64::NEG_INFINITY, f64::max);
        let span = if jobs.is_empty() { 0.0 } else { last - first };
        let mut by_model: BTreeMap<&str, u64> = BTreeMap::new();
        for model in jobs.iter().filter_map(|j| j.model.as_deref()) {
            *by_model.entry(model).or_insert(0) += 1;
        }
        let mut models: Vec<ModelCount> =
            by_model.into_iter().map(|(model, jobs)| ModelCount { model: model.to_string(), jobs }).collect();
        models.sort_by(|a, b| b.jobs.cmp(&a.jobs).then_with(|| a.model.cmp(&b.model)));
        TraceStats {
            jobs: jobs.len() as u64,
            gpu_mix,
            mean_gpus: if jobs.is_empty() { 0.0 } else { jobs.iter().map(|j| f64::from(j.gpus)).sum::<f64>() / n },
            duration_s: Distribution::of(durations),
            gpu_time_share_8_plus: (total_gpu_time > 0.0).then(|| gpu_time(&|j| j.gpus >= 8) / total_gpu_time),
            first_submit_s: if jobs.is_empty() { 0.0 } else { first },
            last_submit_s: if jobs.is_empty() { 0.0 } else { last },
            arrivals_per_hour: (span > 0.0).then(|| n / (span / 3600.0)),
            offered_load: match cluster_gpus {
                Some(g) if g > 0 && span > 0.0 && total_gpu_time > 0.0 => Some(total_gpu_time / (span * f64::from(g))),
                _ => None,
            },
            jobs_with_iterations: jobs.iter().filter(|j| j.iterations.is_some()).count() as u64,
            jobs_with_deadline: jobs.iter().filter(|j| j.deadline_s.is_some()).count() as u64,
            best_effort_jobs: jobs.iter().filter(|j| j.best_effort == Some(true)).count() as u64,
            models,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(submit: f64, gpus: u32, duration: Option<f64>) -> TraceJob {
        let mut j = TraceJob::new("x", submit, gpus);
        j.duration_s = duration;
        j
    }

    #[test]
    fn quantiles_interpolate_like_numpy() {
        // numpy.percentile([1, 2, 3, 4], [10, 50, 90, 99]) = [1.3, 2.5, 3.7, 3.97]
        let d = Distribution::of(vec![4.0, 1.0, 3.0, 2.0]).unwrap();
        assert!((d.p10 - 1.3).abs() < 1e-12 && (d.p50 - 2.5).abs() < 1e-12);
        assert!((d.p90 - 3.7).abs() < 1e-12 && (d.p99 - 3.97).abs() < 1e-12);
        assert_eq!((d.min, d.max, d.mean, d.count), (1.0, 4.0, 2.5, 4));
        assert_eq!(Distribution::of(vec![]), None);
    }

    #[test]
    fn mix_span_rate_and_offered_load() {
        let jobs = [job(0.0, 1, Some(3600.0)), job(1800.0, 8, Some(900.0)), job(3600.0, 1, None)];
        let s = TraceStats::of(&jobs, Some(4));
        assert_eq!(s.gpu_mix, BTreeMap::from([(1, 2), (8, 1)]));
        assert_eq!(s.arrivals_per_hour, Some(3.0));
        // (3600 x 1 + 900 x 8) GPU-s over 3600 s x 4 GPUs
        assert_eq!(s.offered_load, Some(10800.0 / 14400.0));
        assert_eq!(s.gpu_time_share_8_plus, Some(7200.0 / 10800.0));
        assert_eq!(s.duration_s.unwrap().count, 2);
        let at_once = TraceStats::of(&[job(5.0, 1, Some(1.0))], Some(4));
        assert_eq!((at_once.arrivals_per_hour, at_once.offered_load), (None, None));
    }
}
