//! Synergy's (OSDI'22) workload: `simulator/jobs/workload.py` `generate_next_job` and
//! `jobs/model_zoo.py` `get_job_class` (github.com/msr-fiddle/synergy @ 1bb2bed, MIT), reproducing
//! the original's Python `random` draws exactly; `docs/synergy-semantics.md` §1.4-§2.
//!
//! Rule, job `k` in order:
//! - arrival: the previous arrival (0 before job 0) plus `ceil(-ln(1 - random()) / rate · 3600)`
//!   seconds, `rate` the grid's load in jobs per hour;
//! - `philly-single-gpu` (the artifact check's workload): one GPU; duration = the `k`-th
//!   Gavel-like duration of a second stream seeded alike, which is what the original's cached
//!   Philly job list holds in single-GPU mode (the parser drew two numbers per kept job after
//!   `random.seed`, and the log decides nothing else; §8.2);
//! - `synthetic`: duration (`60 · 10^uniform(3, 4)` s if `random() >= 0.8`, else
//!   `60 · 10^uniform(1.5, 3)`), then GPUs (`u = uniform(0, 1)`: 8 if `u >= 0.95`, 4 from 0.8,
//!   2 from 0.7, else 1), both from the arrival stream;
//! - `randint(0, 9)`, drawn and discarded (the original keeps the stream aligned across
//!   assignment modes);
//! - model: the task whose target share (`split`, percent) most exceeds its share of the jobs so
//!   far (`split/100 − count/k`; the first of image, language, speech on ties, image for job 0),
//!   then that task's models round robin;
//! - iterations: `int(duration / iteration_s)` with the model's iteration time at the
//!   GPU-proportional share in the profile set of `cpus_per_gpu` ([`crate::profiles::synergy`]).
//!
//! A job's `work` is its iterations at that share (`iterations · iteration_s`), so blox's round
//! policies run this workload as any trace. Not offered: `--philly_arrival` and the multi-GPU
//! Philly list (they need the Philly log's job order, which is not public), `--small_trace`,
//! `--prioritize`.

use super::WorkloadError;
use super::python_random::PyRandom;
use super::{JobStream, Pairing, Workload, WorkloadContext};
use crate::core::JobSpec;
use crate::profiles::synergy::{self, CpusPerGpu, Task};
use serde::{Deserialize, Serialize};
use std::num::NonZeroUsize;

/// What `blox list` says about `synergy-generator`.
pub const SUMMARY: &str = "Synergy's workload: {jobs: philly-single-gpu|synthetic} (the artifact's 1-GPU jobs, or 1-8 GPUs), Poisson arrivals at the load, models by {split: [20, 70, 10]} percent image/language/speech, iterations from the {cpus_per_gpu: 3} profile set, {num_jobs}";

impl Workload for SynergyGeneratorParams {
    fn label(&self) -> Option<String> {
        Some(SynergyGeneratorParams::label(self))
    }

    fn explicit_label(&self) -> Option<&str> {
        self.label.as_deref()
    }

    fn needs_load(&self) -> bool {
        true
    }

    fn is_endless(&self) -> bool {
        SynergyGeneratorParams::is_endless(self)
    }

    fn validate(&self) -> Result<(), String> {
        SynergyGeneratorParams::validate(self)
    }

    fn job_count(&self) -> Option<u64> {
        self.num_jobs.map(|n| n.get() as u64)
    }

    /// Synergy's iterations come from the profile set of the workload's CPUs per GPU and run at
    /// the set of the cluster's: under a Synergy policy, a mismatch silently rescales every job.
    fn check_pairing(&self, pairing: &Pairing<'_>) -> Result<(), String> {
        let ratio = pairing.cluster.identical_node().and_then(|n| Some(n.cpus? / n.gpus.max(1)));
        match ratio {
            Some(ratio) if pairing.scheduler.starts_with("synergy-") && self.cpus_per_gpu != ratio => Err(format!(
                "synergy-generator draws iterations from the {} CPUs per GPU profiles, but cluster `{}` \
                 has {ratio} CPUs per GPU for policy `{}`; set `cpus_per_gpu: {ratio}` (or pair \
                 clusters and workloads with `zip_clusters_workloads: true`)",
                self.cpus_per_gpu, pairing.cluster_label, pairing.policy_label
            )),
            _ => Ok(()),
        }
    }

    fn jobs(&self, context: &WorkloadContext<'_>) -> Result<JobStream, WorkloadError> {
        let jobs_per_hour = context.jobs_per_hour("synergy-generator")?;
        Ok(JobStream::generated(job_stream(self, context.seed, jobs_per_hour)?))
    }
}

/// Where jobs' sizes and durations come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SynergyJobs {
    /// The artifact check's Philly-derived single-GPU jobs.
    #[default]
    PhillySingleGpu,
    /// The original's synthetic stream (multi-GPU, always).
    Synthetic,
}

/// Parameters of the `synergy-generator` workload; the seed and the rate come from the grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SynergyGeneratorParams {
    #[serde(default)]
    pub jobs: SynergyJobs,
    /// Percent of image, language and speech jobs (the original's `model_class_split`).
    #[serde(default = "default_split")]
    pub split: [u32; 3],
    /// The profile set whose iteration times turn durations into iterations: CPUs per GPU of the
    /// cluster, 3 (default, 24-CPU 8-GPU servers) to 6.
    #[serde(default = "default_cpus_per_gpu")]
    pub cpus_per_gpu: u32,
    /// Jobs to generate; endless without it.
    #[serde(default)]
    pub num_jobs: Option<NonZeroUsize>,
    /// Names the workload in tables and figures instead of the generated label.
    #[serde(default)]
    pub label: Option<String>,
}

fn default_split() -> [u32; 3] {
    [20, 70, 10]
}

fn default_cpus_per_gpu() -> u32 {
    3
}

impl SynergyGeneratorParams {
    /// `label` if set, else the job source and the options that differ from the defaults.
    pub fn label(&self) -> String {
        if let Some(label) = &self.label {
            return label.clone();
        }
        let mut label = match self.jobs {
            SynergyJobs::PhillySingleGpu => "synergy-philly-single-gpu".to_string(),
            SynergyJobs::Synthetic => "synergy-synthetic".to_string(),
        };
        if self.split != default_split() {
            label += &format!("-split{}-{}-{}", self.split[0], self.split[1], self.split[2]);
        }
        if self.cpus_per_gpu != default_cpus_per_gpu() {
            label += &format!("-cpu{}", self.cpus_per_gpu);
        }
        if let Some(n) = self.num_jobs {
            label += &format!("-{n}jobs");
        }
        label
    }

    pub fn is_endless(&self) -> bool {
        self.num_jobs.is_none()
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.split.iter().sum::<u32>() != 100 {
            let [a, b, c] = self.split;
            return Err(format!(
                "synergy-generator: `split` gives percent of image, language and speech jobs and must add up to 100 (it is {a} + {b} + {c})"
            ));
        }
        if CpusPerGpu::from_ratio(self.cpus_per_gpu).is_none() {
            return Err(format!(
                "synergy-generator: `cpus_per_gpu` must be 3, 4, 5 or 6 (Synergy's profile sets), not {}",
                self.cpus_per_gpu
            ));
        }
        Ok(())
    }
}

/// One generated job with the original's values.
#[derive(Debug, Clone, PartialEq)]
pub struct SynergyJob {
    pub index: usize,
    /// Whole seconds.
    pub arrival_s: f64,
    /// Class id in the zoo ([`synergy::MODELS`]).
    pub class: usize,
    pub gpus: u32,
    pub iterations: u64,
    /// Seconds per iteration at the GPU-proportional share.
    pub iteration_s: f64,
}

impl SynergyJob {
    pub fn to_job_spec(&self) -> JobSpec {
        JobSpec {
            id: self.index as u64,
            arrival: self.arrival_s,
            submitted: self.arrival_s,
            gpus: self.gpus,
            work: self.iterations as f64 * self.iteration_s,
            model: Some(synergy::MODELS[self.class].to_string()),
            iterations: Some(self.iterations as f64),
            iteration_s: Some(self.iteration_s),
            ..JobSpec::default()
        }
    }
}

/// `get_gavel_like_iter`: a duration in seconds (two draws).
fn gavel_like_duration(rng: &mut PyRandom) -> f64 {
    let exponent = if rng.random() >= 0.8 { rng.uniform(3.0, 4.0) } else { rng.uniform(1.5, 3.0) };
    60.0 * 10f64.powf(exponent)
}

/// `get_job_gpu_demand`.
fn synthetic_gpus(rng: &mut PyRandom) -> u32 {
    let u = rng.uniform(0.0, 1.0);
    if u >= 0.95 {
        8
    } else if u >= 0.8 {
        4
    } else if u >= 0.7 {
        2
    } else {
        1
    }
}

/// The generator's streams and the zoo's counts: an endless sequence of jobs.
pub struct Generator {
    jobs: SynergyJobs,
    split: [u32; 3],
    set: CpusPerGpu,
    jobs_per_hour: f64,
    /// The simulation's stream (arrivals, the discarded class draw, synthetic sizes).
    stream: PyRandom,
    /// The Philly parser's stream: the cached list's durations.
    durations: PyRandom,
    /// Jobs generated per task, and the next model of each task (round robin).
    per_task: [usize; 3],
    next_model: [usize; 3],
    next_index: usize,
    last_arrival_s: f64,
}

impl Generator {
    /// The stream for `seed` at `jobs_per_hour`; an error when `params` are not valid
    /// ([`SynergyGeneratorParams::validate`]).
    pub fn new(params: &SynergyGeneratorParams, seed: u64, jobs_per_hour: f64) -> Result<Self, String> {
        params.validate()?;
        let set = CpusPerGpu::from_ratio(params.cpus_per_gpu).expect("validate checks the ratio");
        Ok(Self {
            jobs: params.jobs,
            split: params.split,
            set,
            jobs_per_hour,
            stream: PyRandom::seed(seed),
            durations: PyRandom::seed(seed),
            per_task: [0; 3],
            next_model: [0; 3],
            next_index: 0,
            last_arrival_s: 0.0,
        })
    }

    /// `get_job_class` under the `OVERALL` assignment.
    fn next_task(&self) -> usize {
        let total = self.next_index;
        let priority = |t: usize| {
            if total == 0 { 0.0 } else { f64::from(self.split[t]) / 100.0 - self.per_task[t] as f64 / total as f64 }
        };
        // `sorted(..., reverse=True)[0]`: the first of the highest (stable on ties).
        (1..3).fold(0, |best, t| if priority(t) > priority(best) { t } else { best })
    }

    pub fn next_job(&mut self) -> SynergyJob {
        let gap_h = -(1.0 - self.stream.random()).ln() / self.jobs_per_hour;
        let arrival_s = self.last_arrival_s + (gap_h * 60.0 * 60.0).ceil();
        let (duration_s, gpus) = match self.jobs {
            SynergyJobs::PhillySingleGpu => (gavel_like_duration(&mut self.durations), 1),
            SynergyJobs::Synthetic => {
                let duration = gavel_like_duration(&mut self.stream);
                (duration, synthetic_gpus(&mut self.stream))
            }
        };
        self.stream.randint(0, 9);
        let task = self.next_task();
        let models = Task::ALL[task].models();
        let class = models[self.next_model[task] % models.len()];
        self.next_model[task] += 1;
        self.per_task[task] += 1;
        let iteration_s = synergy::profile(class, self.set).iteration_s;
        let job = SynergyJob {
            index: self.next_index,
            arrival_s,
            class,
            gpus,
            // Python's `int()` truncates toward zero; durations are positive.
            iterations: (duration_s / iteration_s) as u64,
            iteration_s,
        };
        self.next_index += 1;
        self.last_arrival_s = arrival_s;
        job
    }
}

impl Iterator for Generator {
    type Item = SynergyJob;

    fn next(&mut self) -> Option<SynergyJob> {
        Some(self.next_job())
    }
}

/// The `synergy-generator` workload's jobs for one grid point (`jobs_per_hour` positive, as the
/// grid checks): `num_jobs` of them, or endless.
pub fn job_stream(
    params: &SynergyGeneratorParams,
    seed: u64,
    jobs_per_hour: f64,
) -> Result<impl Iterator<Item = JobSpec> + Send + use<>, WorkloadError> {
    let generator = Generator::new(params, seed, jobs_per_hour).map_err(WorkloadError::Prepare)?;
    let limit = params.num_jobs.map_or(usize::MAX, NonZeroUsize::get);
    Ok(generator.take(limit).map(|job| job.to_job_spec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(jobs: SynergyJobs) -> SynergyGeneratorParams {
        SynergyGeneratorParams { jobs, split: default_split(), cpus_per_gpu: 3, num_jobs: None, label: None }
    }

    #[test]
    fn first_jobs_of_the_artifact_workload() {
        // docs/synergy-semantics.md Appendix D (the original's values).
        let jobs: Vec<SynergyJob> =
            Generator::new(&params(SynergyJobs::PhillySingleGpu), 42, 9.0).unwrap().take(3).collect();
        let seen: Vec<(f64, &str, u64)> =
            jobs.iter().map(|j| (j.arrival_s, synergy::MODELS[j.class], j.iterations)).collect();
        assert_eq!(seen, [(409.0, "alexnet", 3447), (951.0, "gnmt", 34181), (1053.0, "transformer", 29317)]);
    }

    #[test]
    fn split_must_add_up_and_profile_set_exist() {
        let mut p = params(SynergyJobs::Synthetic);
        p.split = [20, 70, 20];
        assert!(p.validate().unwrap_err().contains("add up to 100"));
        p.split = [100, 0, 0];
        p.cpus_per_gpu = 8;
        assert!(p.validate().unwrap_err().contains("3, 4, 5 or 6"));
        p.cpus_per_gpu = 4;
        assert_eq!(p.validate(), Ok(()));
        assert_eq!(p.label(), "synergy-synthetic-split100-0-0-cpu4");
        p.cpus_per_gpu = 7;
        assert!(Generator::new(&p, 0, 1.0).is_err(), "a library caller gets the error too");
    }
}
