//! `blox-philly-synthetic`: the workload of Blox's Figures 6 and 7, generated without the trace.
//!
//! Rule (`docs/blox-semantics.md` §6.2-6.4): every job asks for 1 GPU; job `k`'s duration is
//! `get_gavel_like_iter()` (`workload/utils.py`) evaluated on the `(2k+1)`-th and `(2k+2)`-th
//! `random()` outputs after `random.seed(seed)`; arrivals come from a second, fresh
//! `random.seed(seed)` stream where each job draws `random()` for
//! `poisson_next_arrival_time(λ)` and then one `randint(0, 8)` for `ModelZoo.get_job_class`
//! (unused by the simulator, but it advances the stream).
//!
//! Why two streams: Blox draws the durations while it parses the Philly trace into a pickle, then
//! (pickle cached) re-seeds and draws the arrivals in `Workload.generate_next_job`. The Philly
//! trace only supplies the number of jobs (~31.7k) and their order; Blox would wrap around after
//! the last one (`jobs[job_id % total_jobs]`). This generator never wraps: it keeps drawing fresh
//! durations, which no Blox figure can tell apart because none reaches that many jobs.
//!
//! Quirk dropped: in a directory without the pickle, Blox's very first configuration parses the
//! trace itself, so its arrivals start after the durations' draws. Every later configuration uses
//! the fresh stream reproduced here.

use super::python_random::PyRandom;
use super::{JobStream, Workload, WorkloadContext, WorkloadError};
use crate::core::{JobId, JobSpec};
use serde::{Deserialize, Serialize};

/// What `blox list` says about `blox-philly-synthetic`.
pub const SUMMARY: &str =
    "1-GPU jobs, Gavel-like durations, Poisson arrivals at the load; exact Blox stream (Figures 6, 7, 12)";

/// Parameters of `blox-philly-synthetic`: none besides the grid's load and seed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhillySyntheticParams {}

impl Workload for PhillySyntheticParams {
    fn needs_load(&self) -> bool {
        true
    }

    fn is_endless(&self) -> bool {
        true
    }

    fn jobs(&self, context: &WorkloadContext<'_>) -> Result<JobStream, WorkloadError> {
        let jobs_per_hour = context.jobs_per_hour("blox-philly-synthetic")?;
        Ok(JobStream::generated(BloxPhillySynthetic::new(context.seed, jobs_per_hour)))
    }
}

/// Infinite, lazily generated job stream; see the module documentation for the rule.
pub struct BloxPhillySynthetic {
    durations: PyRandom,
    arrivals: PyRandom,
    jobs_per_hour: f64,
    last_arrival_s: u64,
    next_id: JobId,
}

impl BloxPhillySynthetic {
    /// # Panics
    /// If `jobs_per_hour` is not a positive finite number.
    pub fn new(seed: u64, jobs_per_hour: f64) -> Self {
        assert!(
            jobs_per_hour.is_finite() && jobs_per_hour > 0.0,
            "jobs_per_hour must be positive, got {jobs_per_hour}"
        );
        Self {
            durations: PyRandom::seed(seed),
            arrivals: PyRandom::seed(seed),
            jobs_per_hour,
            last_arrival_s: 0,
            next_id: 0,
        }
    }
}

impl Iterator for BloxPhillySynthetic {
    type Item = JobSpec;

    fn next(&mut self) -> Option<JobSpec> {
        self.last_arrival_s += poisson_inter_arrival_s(&mut self.arrivals, self.jobs_per_hour);
        draw_unused_model_class(&mut self.arrivals);
        let job = JobSpec {
            id: self.next_id,
            arrival: self.last_arrival_s as f64,
            submitted: self.last_arrival_s as f64,
            gpus: 1,
            work: gavel_like_duration_s(&mut self.durations),
            ..JobSpec::default()
        };
        self.next_id += 1;
        Some(job)
    }
}

/// Blox `poisson_next_arrival_time`: whole seconds until the next arrival, `ceil(-ln(1-u)/λ·60·60)`,
/// with Python's order of operations so the `ceil` sees the same float.
pub(super) fn poisson_inter_arrival_s(rng: &mut PyRandom, jobs_per_hour: f64) -> u64 {
    let hours = -(1.0 - rng.random()).ln() / jobs_per_hour;
    (hours * 60.0 * 60.0).ceil() as u64
}

/// Blox `ModelZoo.get_job_class` draws `randint(0, 8)` for every job whatever the assignment mode;
/// the class never reaches the simulator, but the draw shifts everything after it.
pub(super) fn draw_unused_model_class(rng: &mut PyRandom) {
    rng.randint(0, 8);
}

/// Blox `get_gavel_like_iter`: with probability 0.2 (`random() >= 0.8`) `60·10^U(3,4)` seconds,
/// else `60·10^U(1.5,3)`; always two `random()` draws.
pub(crate) fn gavel_like_duration_s(rng: &mut PyRandom) -> f64 {
    let exponent = if rng.random() >= 0.8 { rng.uniform(3.0, 4.0) } else { rng.uniform(1.5, 3.0) };
    60.0 * 10f64.powf(exponent)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_jobs(jobs_per_hour: f64, n: usize) -> Vec<JobSpec> {
        BloxPhillySynthetic::new(1, jobs_per_hour).take(n).collect()
    }

    #[test]
    fn durations_match_blox_pickle_for_seed_1() {
        let jobs = first_jobs(6.0, 4001);
        let work = |k: usize| jobs[k].work;
        let head: Vec<f64> = (0..6).map(work).collect();
        assert_eq!(
            head,
            [
                35424.3471980879,
                4578.832840173429,
                8961.647300188555,
                28922.529791391702,
                2092.533720166135,
                162524.30527674948
            ]
        );
        let tracked_head: Vec<f64> = (3000..3005).map(work).collect();
        assert_eq!(
            tracked_head,
            [13863.779955709033, 17851.440612336763, 193179.22828737547, 46668.91370961197, 9527.941946490291]
        );
        assert_eq!(work(4000), 447003.8977034927);
        // Python: sum(D[3000:4001]) / 1001 / 3600 (left-to-right float sum, as here).
        let tracked_mean_h = jobs[3000..=4000].iter().map(|j| j.work).sum::<f64>() / 1001.0 / 3600.0;
        assert_eq!(tracked_mean_h, 15.671528067246562);
    }

    #[test]
    fn durations_do_not_depend_on_load() {
        let at = |load| first_jobs(load, 50).into_iter().map(|j| j.work).collect::<Vec<_>>();
        assert_eq!(at(1.0), at(9.0));
    }

    #[test]
    fn arrivals_match_blox_for_loads_1_6_9() {
        let cases: [(f64, [f64; 6], f64, f64); 3] = [
            (1.0, [520.0, 1581.0, 6734.0, 10530.0, 10885.0, 18942.0], 10_585_199.0, 14_093_589.0),
            (6.0, [87.0, 264.0, 1123.0, 1756.0, 1816.0, 3159.0], 1_765_449.0, 2_350_593.0),
            (9.0, [58.0, 176.0, 749.0, 1171.0, 1211.0, 2107.0], 1_177_464.0, 1_567_736.0),
        ];
        for (load, head, a3000, a4000) in cases {
            let jobs = first_jobs(load, 4001);
            let arrivals: Vec<f64> = jobs[..6].iter().map(|j| j.arrival).collect();
            assert_eq!(arrivals, head, "load {load}");
            assert_eq!(jobs[3000].arrival, a3000, "load {load}");
            assert_eq!(jobs[4000].arrival, a4000, "load {load}");
        }
    }

    #[test]
    fn jobs_are_single_gpu_numbered_in_order_and_sorted() {
        let jobs = first_jobs(9.0, 1000);
        assert!(jobs.iter().enumerate().all(|(k, j)| j.id == k as JobId && j.gpus == 1));
        assert!(jobs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
        assert!(jobs.iter().all(|j| j.arrival.fract() == 0.0 && j.model.is_none() && j.deadline.is_none()));
    }

    #[test]
    fn other_seeds_match_python() {
        // Python: random.seed(7); D = [gavel() for _ in range(3)]; random.seed(7); arrivals at λ=2.5
        let jobs = BloxPhillySynthetic::new(7, 2.5).take(3).collect::<Vec<_>>();
        let work: Vec<f64> = jobs.iter().map(|j| j.work).collect();
        let arrivals: Vec<f64> = jobs.iter().map(|j| j.arrival).collect();
        assert_eq!(work, [3194.6627013836405, 2436.720294504149, 6709.414543697452]);
        assert_eq!(arrivals, [564.0, 1288.0, 1397.0]);
    }
}
