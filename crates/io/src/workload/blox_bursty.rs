//! `blox-bursty`: the "small and large jobs" workload of Blox's Figure 15a.
//!
//! Source: `simulator_runner/simulator_dual_load_small_large.py` (`GetJobs`, `_clean_sim_job`,
//! `_clean_sim_job_second_work`) on top of `Workload.generate_next_job`; `docs/blox-semantics.md`
//! §6.3, §6.4 and §6.7.
//!
//! Rule: one Python `random` stream, seeded once with `seed`.
//! - Base jobs: Poisson arrivals at `λ` jobs/hour exactly as in `blox-philly-synthetic` (one
//!   `random()`, then the unused `randint(0, 8)` model class), then `randint(36000, 86400)`
//!   seconds of work (10-24 h), which replaces the trace duration. Every job asks for 1 GPU.
//! - Bursts: at every `t = m · burst_interval_s` (m = 0, 1, 2, ...) Blox injects
//!   `int(burst_multiplier · λ)` short jobs of `randint(600, 3600)` seconds each.
//!
//! Blox injects from inside `GetJobs(t)`, which its driver calls once per 300 s round; a burst
//! happens in the call whose `t % 14400 == 0`, after that call has handed out every base job with
//! arrival `<= t`. Here the bursts are a pure function of the stream instead, which is the same
//! thing as long as every burst time is a round boundary, i.e. **the round length divides
//! `burst_interval_s`** (Blox: 300 divides 14400). The generator does not know the round length;
//! a spec with, say, 7-minute rounds gets the bursts Blox would have produced with 5-minute rounds.
//!
//! Quirks kept, because they change which jobs exist, their numbers or the random stream:
//! - There is a burst at `t = 0`, so at λ = 9 jobs 0..=35 are short and base job 0 is id 36.
//! - A burst job is a copy of the *look-ahead* base job: the first base job arriving strictly
//!   after `t` (one arriving exactly at `t` is handed out before the burst). Its submit time is
//!   that job's arrival, in the future of `t`, and the copies take the ids right before it.
//! - If no base job arrives during a whole interval, the next burst copies the same look-ahead
//!   job again: bursts are never skipped or merged.
//! - The burst size truncates: `int(4 · 2.9) = 11`.
//! - Draw order: base job `j`'s three draws, then one `randint(600, 3600)` per copy of every
//!   burst that copies job `j`, then base job `j + 1`'s draws.
//!
//! - Blox hands the burst jobs to the scheduler at the burst time `t`, ahead of their submit time:
//!   a copy's `arrival` is `t` and its `submitted` is the copied job's arrival, so it can start
//!   (and even finish) before it was "submitted", and FIFO orders it by that later time.
//!
//! Quirks dropped:
//! - `GetJobs` also writes Blox's Philly counter onto the look-ahead job and advances it once per
//!   copy. Nothing observable depends on it: Blox renumbers jobs on admission
//!   (`JobState.job_counter`), every Philly entry is a 1-GPU job and the duration is replaced.
//! - As for `blox-philly-synthetic`, the stream is the one Blox sees with its Philly pickle cached.

use super::blox_synthetic::{draw_unused_model_class, poisson_inter_arrival_s};
use super::python_random::PyRandom;
use super::{JobStream, Workload, WorkloadContext, WorkloadError};
use crate::core::{JobId, JobSpec};
use crate::policies::Positive;
use crate::text::fmt_number;
use serde::{Deserialize, Serialize};
use std::num::NonZeroU64;

/// What `blox list` says about `blox-bursty`.
pub const SUMMARY: &str = "10-24 h 1-GPU jobs at the load plus int({burst_multiplier: 4} x load) short jobs every {burst_interval_s: 14400} (Blox Figure 15a)";

/// Parameters of `blox-bursty`; the defaults are Blox Figure 15a's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BurstyParams {
    /// Short jobs per burst per unit of load: a burst has `int(burst_multiplier x load)` jobs.
    #[serde(default = "default_burst_multiplier")]
    pub burst_multiplier: Positive,
    /// Seconds between bursts, the first at time 0; the round length must divide it.
    #[serde(default = "default_burst_interval_s")]
    pub burst_interval_s: NonZeroU64,
}

impl Default for BurstyParams {
    fn default() -> Self {
        Self { burst_multiplier: default_burst_multiplier(), burst_interval_s: default_burst_interval_s() }
    }
}

fn default_burst_multiplier() -> Positive {
    Positive(DEFAULT_BURST_MULTIPLIER)
}

fn default_burst_interval_s() -> NonZeroU64 {
    NonZeroU64::new(DEFAULT_BURST_INTERVAL_S).expect("the default burst interval is positive")
}

impl Workload for BurstyParams {
    fn label(&self) -> Option<String> {
        (*self != BurstyParams::default())
            .then(|| format!("blox-bursty-x{}-every{}s", self.burst_multiplier.0, self.burst_interval_s))
    }

    fn needs_load(&self) -> bool {
        true
    }

    fn is_endless(&self) -> bool {
        true
    }

    /// A burst is generated whole.
    fn check_size(&self, max_load: f64, max_jobs: u64) -> Result<(), String> {
        if self.burst_multiplier.0 * max_load > max_jobs as f64 {
            return Err(format!(
                "blox-bursty: burst_multiplier {} x load {} gives bursts of more than {max_jobs} jobs, the most a run generates",
                fmt_number(self.burst_multiplier.0),
                fmt_number(max_load)
            ));
        }
        Ok(())
    }

    fn jobs_per_hour(&self, load: f64) -> f64 {
        load + (self.burst_multiplier.0 * load).floor() * 3600.0 / self.burst_interval_s.get() as f64
    }

    fn check_round(&self, round_s: f64) -> Result<(), String> {
        let interval = self.burst_interval_s.get() as f64;
        if (interval / round_s).fract() != 0.0 {
            return Err(format!(
                "blox-bursty injects bursts at round boundaries: its burst_interval_s ({interval}) must be a multiple of engine.round_s ({round_s})"
            ));
        }
        Ok(())
    }

    fn jobs(&self, context: &WorkloadContext<'_>) -> Result<JobStream, WorkloadError> {
        let jobs_per_hour = context.jobs_per_hour("blox-bursty")?;
        Ok(JobStream::generated(BloxBursty::new(
            context.seed,
            jobs_per_hour,
            self.burst_multiplier.0,
            self.burst_interval_s.get(),
        )))
    }
}

/// Blox's burst size per unit of load: `int(4 * current_load)` jobs per burst.
pub const DEFAULT_BURST_MULTIPLIER: f64 = 4.0;
/// Blox's burst period: `simulator_time % 14400 == 0`, every 4 hours.
pub const DEFAULT_BURST_INTERVAL_S: u64 = 14_400;

const BASE_WORK_S: (i64, i64) = (36_000, 86_400);
const BURST_WORK_S: (i64, i64) = (600, 3_600);

/// Infinite, lazily generated job stream; see the module documentation for the rule.
pub struct BloxBursty {
    rng: PyRandom,
    jobs_per_hour: f64,
    jobs_per_burst: u64,
    burst_interval_s: u64,
    /// Earliest burst time not yet assigned to a look-ahead base job.
    next_burst_s: u64,
    last_arrival_s: u64,
    /// The generated base job whose burst copies are being emitted: `(arrival_s, work_s)`.
    lookahead: Option<(u64, f64)>,
    /// Time of the first burst that copies the look-ahead job.
    first_burst_s: u64,
    copies_total: u64,
    copies_left: u64,
    next_id: JobId,
}

impl BloxBursty {
    /// # Panics
    /// If `jobs_per_hour` or `burst_multiplier` is not a positive finite number, or
    /// `burst_interval_s` is 0.
    pub fn new(seed: u64, jobs_per_hour: f64, burst_multiplier: f64, burst_interval_s: u64) -> Self {
        assert!(
            jobs_per_hour.is_finite() && jobs_per_hour > 0.0,
            "jobs_per_hour must be positive, got {jobs_per_hour}"
        );
        assert!(
            burst_multiplier.is_finite() && burst_multiplier > 0.0,
            "burst_multiplier must be positive, got {burst_multiplier}"
        );
        assert!(burst_interval_s > 0, "burst_interval_s must be positive");
        Self {
            rng: PyRandom::seed(seed),
            jobs_per_hour,
            jobs_per_burst: (burst_multiplier * jobs_per_hour) as u64,
            burst_interval_s,
            next_burst_s: 0,
            last_arrival_s: 0,
            lookahead: None,
            first_burst_s: 0,
            copies_total: 0,
            copies_left: 0,
            next_id: 0,
        }
    }

    /// Draws the next base job and counts the bursts whose look-ahead job it is.
    fn draw_base_job(&mut self) -> (u64, f64) {
        self.last_arrival_s += poisson_inter_arrival_s(&mut self.rng, self.jobs_per_hour);
        draw_unused_model_class(&mut self.rng);
        let work = self.rng.randint(BASE_WORK_S.0, BASE_WORK_S.1) as f64;
        // Bursts at next_burst_s, next_burst_s + interval, ... before this arrival all copy this job.
        let bursts = self.last_arrival_s.saturating_sub(self.next_burst_s).div_ceil(self.burst_interval_s);
        self.first_burst_s = self.next_burst_s;
        self.next_burst_s += bursts * self.burst_interval_s;
        self.copies_total = bursts * self.jobs_per_burst;
        self.copies_left = self.copies_total;
        (self.last_arrival_s, work)
    }
}

impl Iterator for BloxBursty {
    type Item = JobSpec;

    fn next(&mut self) -> Option<JobSpec> {
        let (arrival_s, base_work) = match self.lookahead {
            Some(job) => job,
            None => {
                let job = self.draw_base_job();
                self.lookahead = Some(job);
                job
            }
        };
        // A copy is handed over at its burst's time, ahead of its submission time.
        let (release_s, work) = if self.copies_left > 0 {
            let burst = (self.copies_total - self.copies_left) / self.jobs_per_burst;
            self.copies_left -= 1;
            (
                self.first_burst_s + burst * self.burst_interval_s,
                self.rng.randint(BURST_WORK_S.0, BURST_WORK_S.1) as f64,
            )
        } else {
            self.lookahead = None;
            (arrival_s, base_work)
        };
        let job = JobSpec {
            id: self.next_id,
            arrival: release_s as f64,
            submitted: arrival_s as f64,
            gpus: 1,
            work,
            ..JobSpec::default()
        };
        self.next_id += 1;
        Some(job)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(arrival_s, work_s)` of the first `n` jobs.
    fn first_jobs(
        seed: u64,
        jobs_per_hour: f64,
        burst_multiplier: f64,
        burst_interval_s: u64,
        n: usize,
    ) -> Vec<(f64, f64)> {
        let jobs: Vec<JobSpec> =
            BloxBursty::new(seed, jobs_per_hour, burst_multiplier, burst_interval_s).take(n).collect();
        assert!(jobs.iter().enumerate().all(|(k, j)| j.id == k as JobId && j.gpus == 1));
        assert!(jobs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
        jobs.iter().map(|j| (j.submitted, j.work)).collect()
    }

    fn is_burst(work: f64) -> bool {
        work <= BURST_WORK_S.1 as f64
    }

    #[test]
    fn figure_15a_stream_at_load_9_matches_the_artifact() {
        let jobs = first_jobs(1, 9.0, DEFAULT_BURST_MULTIPLIER, DEFAULT_BURST_INTERVAL_S, 4001);
        // Burst at t = 0: 36 copies of base job 0 (arrival 58), then base job 0 itself.
        let burst_work: Vec<f64> = jobs[..36].iter().map(|j| j.1).collect();
        assert_eq!(
            burst_work[..8],
            [1082.0, 2629.0, 2441.0, 2534.0, 3268.0, 2154.0, 1459.0, 984.0],
            "first copies' durations"
        );
        assert_eq!(burst_work[35], 1508.0);
        assert!(jobs[..36].iter().all(|j| j.0 == 58.0));
        let base: Vec<(f64, f64)> = jobs[36..45].to_vec();
        assert_eq!(
            base,
            [
                (58.0, 52716.0),
                (636.0, 72232.0),
                (743.0, 80357.0),
                (842.0, 54991.0),
                (1887.0, 72467.0),
                (2909.0, 48183.0),
                (3307.0, 43922.0),
                (3851.0, 63663.0),
                (4135.0, 55881.0)
            ]
        );
        assert_eq!(jobs[3000], (593183.0, 45438.0));
        assert_eq!(jobs[4000], (782874.0, 65771.0));
        assert_eq!(jobs.iter().filter(|j| is_burst(j.1)).count(), 1980);
    }

    #[test]
    fn bursts_copy_the_first_base_job_after_each_interval() {
        let jobs = first_jobs(1, 9.0, DEFAULT_BURST_MULTIPLIER, DEFAULT_BURST_INTERVAL_S, 640);
        let burst_starts: Vec<usize> =
            (0..jobs.len()).filter(|&k| is_burst(jobs[k].1) && (k == 0 || !is_burst(jobs[k - 1].1))).collect();
        assert_eq!(burst_starts, [0, 67, 155, 230, 295, 374, 454, 523, 599]);
        // Copies are handed over at their burst's time, ahead of their submission.
        let specs: Vec<JobSpec> =
            BloxBursty::new(1, 9.0, DEFAULT_BURST_MULTIPLIER, DEFAULT_BURST_INTERVAL_S).take(640).collect();
        for (m, &k) in burst_starts.iter().enumerate() {
            let burst_time = (m as u64 * DEFAULT_BURST_INTERVAL_S) as f64;
            assert!(specs[k..k + 36].iter().all(|j| j.arrival == burst_time && j.submitted > burst_time));
            assert_eq!(specs[k + 36].arrival, specs[k + 36].submitted);
        }
        for &k in &burst_starts {
            let burst_end = k + 36;
            assert!(jobs[k..burst_end].iter().all(|j| is_burst(j.1) && j.0 == jobs[burst_end].0));
            assert!(!is_burst(jobs[burst_end].1), "the copied base job follows its copies");
        }
    }

    #[test]
    fn a_base_job_arriving_exactly_at_a_burst_is_handed_out_before_it() {
        let jobs = first_jobs(1, 9.0, DEFAULT_BURST_MULTIPLIER, DEFAULT_BURST_INTERVAL_S, 10383);
        // 2044800 = 142 x 14400: that job is admitted by the same GetJobs call, then the burst
        // copies the next job (arrival 2044938).
        assert_eq!(jobs[10343..10346], [(2044570.0, 70609.0), (2044800.0, 79297.0), (2044938.0, 1112.0)]);
        assert_eq!(jobs[10380..10383], [(2044938.0, 3311.0), (2044938.0, 68749.0), (2045027.0, 38564.0)]);
    }

    #[test]
    fn sparse_loads_repeat_the_same_lookahead_and_truncate_the_burst_size() {
        // λ = 0.3: int(4 · 0.3) = 1 copy per burst, and gaps longer than 4 h are common.
        let jobs = first_jobs(1, 0.3, DEFAULT_BURST_MULTIPLIER, DEFAULT_BURST_INTERVAL_S, 12);
        assert_eq!(
            jobs,
            [
                (1732.0, 1082.0),
                (1732.0, 52716.0),
                (9941.0, 66949.0),
                (22594.0, 2598.0),
                (22594.0, 42151.0),
                (22940.0, 64361.0),
                (34161.0, 2424.0),
                (34161.0, 81602.0),
                (37878.0, 74741.0),
                // Bursts at 43200, 57600 and 72000 s all copy the job arriving at 72743 s.
                (72743.0, 691.0),
                (72743.0, 704.0),
                (72743.0, 3260.0)
            ]
        );
        // λ = 2.9: int(11.6) = 11 copies at t = 0.
        let jobs = first_jobs(1, 2.9, DEFAULT_BURST_MULTIPLIER, DEFAULT_BURST_INTERVAL_S, 13);
        assert_eq!(jobs.iter().take_while(|j| is_burst(j.1)).count(), 11);
        assert_eq!(jobs[10..], [(180.0, 2196.0), (180.0, 52716.0), (884.0, 81602.0)]);
    }

    #[test]
    fn custom_seed_multiplier_and_interval_match_the_artifact_logic() {
        // int(1 · 6) = 6 copies every hour.
        let jobs = first_jobs(7, 6.0, 1.0, 3600, 20);
        assert_eq!(
            jobs,
            [
                (235.0, 3266.0),
                (235.0, 797.0),
                (235.0, 896.0),
                (235.0, 2794.0),
                (235.0, 985.0),
                (235.0, 2097.0),
                (235.0, 61875.0),
                (760.0, 50070.0),
                (783.0, 63405.0),
                (827.0, 72113.0),
                (1159.0, 50630.0),
                (1757.0, 73821.0),
                (2286.0, 50488.0),
                (2315.0, 54979.0),
                (2641.0, 43719.0),
                (3149.0, 80695.0),
                (3269.0, 60405.0),
                (3331.0, 72986.0),
                (3368.0, 68533.0),
                (4053.0, 2507.0)
            ]
        );
    }
}
