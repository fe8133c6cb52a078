//! Gavel's (OSDI'20) job generator: `scheduler/utils.py` `generate_job` as `Scheduler.simulate`
//! calls it (github.com/stanford-futuredata/gavel @ c4fa400, MIT), reproducing its Python
//! `random` draws exactly; `docs/gavel-semantics.md` §2.
//!
//! Rule, job `i` in order, each attribute from the job stream (`random.Random(seed + 2)`):
//! - scale factor (GPUs), always drawn: `r = uniform(0, 1)`; 2 if `0.7 <= r <= 0.8`, else 4 if
//!   `0.8 <= r <= 0.95`, else 8 if `r >= 0.95`, else 1; forced to 1 afterwards unless
//!   `multi_gpu` (the draw is consumed either way);
//! - duration: `60 x 10^uniform(3, 4)` s if `random() >= 0.8`, else `60 x 10^uniform(1.5, 3)` s;
//! - template: `choice` over the 26 job types ([`JobTable`]), redrawn until the scale factor is 1
//!   or the template is distributed;
//! - steps: duration x the template's isolated V100 steps/s at that scale factor, unrounded (a
//!   zero or missing rate is an error naming the job, where the original asserts);
//! - arrival (`random.Random(seed + 3)`): job 0 at 0, then the previous arrival plus
//!   `-ln(1 - random()) / (1 / lam)` with `lam = 3600 / load` s (the grid's load in jobs per hour,
//!   as `run_sweep_continuous.py` sets it); with `arrivals: static` every job arrives at 0 and the
//!   stream is not drawn (`lam = 0`, the makespan runs).
//!
//! The job types' order changed after the paper (`A3C` moved behind `Recommendation` in commit
//! 19a0dd2); `choice` draws by index, so `job_table: osdi20` restores the order the published
//! runs used (§1.2) and `head` (default) is the code's. Not offered: priorities, SLOs and
//! `fixed_job_duration` (no figure uses them, and a job here has no fairness weight).
//!
//! A job's `work` is its duration at its scale factor on a V100 (its steps over the V100 rate,
//! which is the drawn duration), so blox's round policies run these jobs on a V100 cluster as
//! they run any trace; `iterations` are Gavel's steps and `model` its job type.

use super::WorkloadError;
use super::python_random::PyRandom;
use super::{JobStream, Workload, WorkloadContext};
use crate::core::JobSpec;
use crate::data;
use crate::policies::InputSource;
pub use crate::profiles::gavel::ThroughputFile;
use crate::profiles::gavel::{GavelThroughputs, JobKey};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::num::NonZeroUsize;

/// What `blox list` says about `gavel-generator`.
pub const SUMMARY: &str = "Gavel's generate_job: {arrivals: static|poisson} (poisson at the load), {num_jobs}, {multi_gpu: false}, {job_table: head|osdi20}; steps from the V100 rates of gavel-throughputs";

impl Workload for GavelGeneratorParams {
    fn label(&self) -> Option<String> {
        Some(GavelGeneratorParams::label(self))
    }

    fn explicit_label(&self) -> Option<&str> {
        self.label.as_deref()
    }

    fn needs_load(&self) -> bool {
        GavelGeneratorParams::needs_load(self)
    }

    fn is_endless(&self) -> bool {
        GavelGeneratorParams::is_endless(self)
    }

    fn validate(&self) -> Result<(), String> {
        GavelGeneratorParams::validate(self)
    }

    /// The throughput table its steps come from.
    fn reads(&self) -> Option<InputSource> {
        Some(InputSource::Dataset(self.throughputs.dataset_reference().to_string()))
    }

    fn job_count(&self) -> Option<u64> {
        self.num_jobs.map(|n| n.get() as u64)
    }

    fn jobs(&self, context: &WorkloadContext<'_>) -> Result<JobStream, WorkloadError> {
        let jobs_per_hour =
            if self.arrivals == Arrivals::Poisson { context.jobs_per_hour("gavel-generator")? } else { 0.0 };
        let table = read_throughputs(self.throughputs)?;
        Ok(JobStream::generated(job_stream(self, context.seed, jobs_per_hour, &table)?))
    }
}

/// The V100 rates define a job's steps (`reference_worker_type='v100'`).
pub const REFERENCE_GPU: &str = "v100";

/// One of Gavel's job templates: its job type and whether it may span several GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Template {
    pub job_type: &'static str,
    pub distributed: bool,
}

const fn template(job_type: &'static str, distributed: bool) -> Template {
    Template { job_type, distributed }
}

/// `job_table.JobTable` at c4fa400.
pub const HEAD_TABLE: [Template; 26] = [
    template("ResNet-18 (batch size 16)", true),
    template("ResNet-18 (batch size 32)", true),
    template("ResNet-18 (batch size 64)", true),
    template("ResNet-18 (batch size 128)", true),
    template("ResNet-18 (batch size 256)", true),
    template("ResNet-50 (batch size 16)", true),
    template("ResNet-50 (batch size 32)", true),
    template("ResNet-50 (batch size 64)", true),
    template("ResNet-50 (batch size 128)", true),
    template("Transformer (batch size 16)", true),
    template("Transformer (batch size 32)", true),
    template("Transformer (batch size 64)", true),
    template("Transformer (batch size 128)", true),
    template("Transformer (batch size 256)", true),
    template("LM (batch size 5)", true),
    template("LM (batch size 10)", true),
    template("LM (batch size 20)", true),
    template("LM (batch size 40)", true),
    template("LM (batch size 80)", true),
    template("Recommendation (batch size 512)", false),
    template("Recommendation (batch size 1024)", false),
    template("Recommendation (batch size 2048)", false),
    template("Recommendation (batch size 4096)", false),
    template("Recommendation (batch size 8192)", false),
    template("A3C", false),
    template("CycleGAN", false),
];

/// Which order of the templates `choice` indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum JobTable {
    /// The code's order at c4fa400.
    #[default]
    Head,
    /// The order when the paper's runs were made: `A3C` right after `Transformer (batch size 256)`.
    Osdi20,
}

impl JobTable {
    pub fn templates(self) -> [Template; 26] {
        match self {
            JobTable::Head => HEAD_TABLE,
            JobTable::Osdi20 => {
                let mut table = HEAD_TABLE;
                // Move A3C (index 24) to index 14, shifting LM and Recommendation back by one.
                table[14..25].rotate_right(1);
                table
            }
        }
    }
}

/// When jobs arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Arrivals {
    /// Every job at time 0 (Gavel's static makespan runs); needs `num_jobs`.
    Static,
    /// A Poisson process at the grid's load (jobs per hour).
    Poisson,
}

/// Parameters of the `gavel-generator` workload; the seed comes from the grid, and with Poisson
/// arrivals the rate is the grid's load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GavelGeneratorParams {
    pub arrivals: Arrivals,
    /// Jobs to generate: required for static arrivals; with Poisson arrivals the stream ends after
    /// this many, or never.
    #[serde(default)]
    pub num_jobs: Option<NonZeroUsize>,
    /// `--generate-multi-gpu-jobs`: scale factors 1-8; otherwise every job has one GPU.
    #[serde(default)]
    pub multi_gpu: bool,
    #[serde(default)]
    pub job_table: JobTable,
    #[serde(default)]
    pub throughputs: ThroughputFile,
    /// Names the workload in tables and figures instead of the generated label.
    #[serde(default)]
    pub label: Option<String>,
}

impl GavelGeneratorParams {
    /// `label` if set, else the arrivals, job count and the options that differ from defaults.
    pub fn label(&self) -> String {
        if let Some(label) = &self.label {
            return label.clone();
        }
        let mut label = match self.arrivals {
            Arrivals::Static => "gavel-static".to_string(),
            Arrivals::Poisson => "gavel-poisson".to_string(),
        };
        if let Some(n) = self.num_jobs {
            label += &format!("-{n}jobs");
        }
        if self.multi_gpu {
            label += "-multigpu";
        }
        if self.job_table == JobTable::Osdi20 {
            label += "-osdi20";
        }
        if self.throughputs == ThroughputFile::PhysicalCluster {
            label += "-physical";
        }
        label
    }

    pub fn needs_load(&self) -> bool {
        self.arrivals == Arrivals::Poisson
    }

    pub fn is_endless(&self) -> bool {
        self.num_jobs.is_none()
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.arrivals == Arrivals::Static && self.num_jobs.is_none() {
            return Err("gavel-generator: static arrivals need `num_jobs` (every job arrives at 0)".into());
        }
        Ok(())
    }
}

/// One generated job with the original's values.
#[derive(Debug, Clone, PartialEq)]
pub struct GavelJob {
    pub index: usize,
    pub arrival_s: f64,
    pub job_type: &'static str,
    pub scale_factor: u32,
    /// Gavel's `total_steps`: duration x V100 steps/s, unrounded.
    pub steps: f64,
    /// The drawn duration in seconds (on a V100, at the scale factor).
    pub duration_s: f64,
}

impl GavelJob {
    /// The job as blox runs it: GPUs = scale factor, work = the V100 duration, iterations =
    /// Gavel's steps.
    pub fn to_job_spec(&self) -> JobSpec {
        JobSpec {
            id: self.index as u64,
            arrival: self.arrival_s,
            submitted: self.arrival_s,
            gpus: self.scale_factor,
            work: self.duration_s,
            model: Some(self.job_type.to_string()),
            iterations: Some(self.steps),
            iteration_s: Some(self.duration_s / self.steps),
            ..JobSpec::default()
        }
    }
}

/// Why the generator cannot run: a template it may draw has no positive V100 rate.
#[derive(Debug, Clone, PartialEq)]
pub struct NotRunnable {
    pub job_type: &'static str,
    pub scale_factor: u32,
}

impl fmt::Display for NotRunnable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the throughput table has no positive {REFERENCE_GPU} rate for `{}` at scale factor {}, which the generator may draw",
            self.job_type, self.scale_factor
        )
    }
}

impl std::error::Error for NotRunnable {}

/// Scale factors a job may have.
const SCALE_FACTORS: [u32; 4] = [1, 2, 4, 8];

/// The generator's two streams and state: an endless sequence of jobs, drawn one at a time.
pub struct Generator {
    templates: [Template; 26],
    /// V100 steps/s per template (same index) and scale factor (index in [`SCALE_FACTORS`]).
    rates: [[f64; 4]; 26],
    multi_gpu: bool,
    /// Seconds between arrivals on average; 0 for static arrivals (no draw).
    lam_s: f64,
    jobs: PyRandom,
    arrivals: PyRandom,
    next_index: usize,
    next_arrival_s: f64,
}

impl Generator {
    /// The stream for `seed` (at most `u64::MAX - 3`) at `jobs_per_hour` (used by Poisson
    /// arrivals only). Fails when a
    /// template the parameters can draw has no positive V100 rate in `table`, so that every job
    /// drawn afterwards can be made.
    pub fn new(
        params: &GavelGeneratorParams,
        seed: u64,
        jobs_per_hour: f64,
        table: &GavelThroughputs,
    ) -> Result<Self, NotRunnable> {
        let templates = params.job_table.templates();
        let mut rates = [[0.0; 4]; 26];
        for (template, rates) in templates.iter().zip(rates.iter_mut()) {
            for (k, &scale_factor) in SCALE_FACTORS.iter().enumerate() {
                let drawable = scale_factor == 1 || (params.multi_gpu && template.distributed);
                if !drawable {
                    continue;
                }
                let key = JobKey { job_type: template.job_type.to_string(), scale_factor };
                rates[k] = table
                    .isolated(REFERENCE_GPU, &key)
                    .filter(|&r| r > 0.0)
                    .ok_or(NotRunnable { job_type: template.job_type, scale_factor })?;
            }
        }
        let lam_s = match params.arrivals {
            Arrivals::Static => 0.0,
            Arrivals::Poisson => 3600.0 / jobs_per_hour,
        };
        Ok(Self {
            templates,
            rates,
            multi_gpu: params.multi_gpu,
            lam_s,
            jobs: PyRandom::seed(seed + 2),
            arrivals: PyRandom::seed(seed + 3),
            next_index: 0,
            next_arrival_s: 0.0,
        })
    }

    /// `generate_job`, then the next arrival.
    pub fn next_job(&mut self) -> GavelJob {
        let r = self.jobs.uniform(0.0, 1.0);
        let drawn = if (0.7..=0.8).contains(&r) {
            1
        } else if (0.8..=0.95).contains(&r) {
            2
        } else if r >= 0.95 {
            3
        } else {
            0
        };
        let exponent =
            if self.jobs.random() >= 0.8 { self.jobs.uniform(3.0, 4.0) } else { self.jobs.uniform(1.5, 3.0) };
        let duration_s = 60.0 * 10f64.powf(exponent);
        let size = if self.multi_gpu { drawn } else { 0 };
        let index = loop {
            // `choice(JobTable)`: an index below the table's length.
            let index = self.jobs.randbelow(self.templates.len() as u64) as usize;
            if size == 0 || self.templates[index].distributed {
                break index;
            }
        };
        let job = GavelJob {
            index: self.next_index,
            arrival_s: self.next_arrival_s,
            job_type: self.templates[index].job_type,
            scale_factor: SCALE_FACTORS[size],
            steps: duration_s * self.rates[index][size],
            duration_s,
        };
        if self.lam_s != 0.0 {
            let delta = -(1.0 - self.arrivals.random()).ln() / (1.0 / self.lam_s);
            self.next_arrival_s += delta;
        }
        self.next_index += 1;
        job
    }
}

impl Iterator for Generator {
    type Item = GavelJob;

    fn next(&mut self) -> Option<GavelJob> {
        Some(self.next_job())
    }
}

/// The throughput file of the `gavel-throughputs` dataset, fetched (quietly) when not cached.
pub fn read_throughputs(file: ThroughputFile) -> Result<GavelThroughputs, WorkloadError> {
    let reference = file.dataset_reference();
    let fail = |e: String| WorkloadError::Prepare(format!("gavel-generator: dataset `{reference}`: {e}"));
    let path = data::FetchOptions::from_env(None)
        .and_then(|options| data::resolve(reference, &data::FetchOptions { quiet: true, ..options }))
        .map_err(|e| fail(e.to_string()))?;
    let text = std::fs::read_to_string(&path).map_err(|e| fail(format!("{}: {e}", path.display())))?;
    GavelThroughputs::parse(&text, &path.display().to_string()).map_err(|e| fail(e.to_string()))
}

/// The `gavel-generator` workload's jobs for one grid point: `num_jobs` of them, or endless.
pub fn job_stream(
    params: &GavelGeneratorParams,
    seed: u64,
    jobs_per_hour: f64,
    table: &GavelThroughputs,
) -> Result<impl Iterator<Item = JobSpec> + Send + use<>, WorkloadError> {
    if seed > u64::MAX - 3 {
        let message = format!("gavel-generator: the seed must be at most {} (it also uses seed + 3)", u64::MAX - 3);
        return Err(WorkloadError::Prepare(message));
    }
    let generator = Generator::new(params, seed, jobs_per_hour, table)
        .map_err(|e| WorkloadError::Prepare(format!("gavel-generator: {e}")))?;
    let limit = params.num_jobs.map_or(usize::MAX, NonZeroUsize::get);
    Ok(generator.take(limit).map(|job| job.to_job_spec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(arrivals: Arrivals, num_jobs: Option<usize>) -> GavelGeneratorParams {
        GavelGeneratorParams {
            arrivals,
            num_jobs: num_jobs.and_then(NonZeroUsize::new),
            multi_gpu: false,
            job_table: JobTable::Head,
            throughputs: ThroughputFile::Simulation,
            label: None,
        }
    }

    /// A table with every template at scale factor 1 on the V100, 10 steps/s (and 5 at 2-8 for
    /// the distributed ones when `multi_gpu_rates`).
    fn table(multi_gpu_rates: bool) -> GavelThroughputs {
        let mut rows = Vec::new();
        for t in HEAD_TABLE {
            rows.push(format!("\"('{}', 1)\": {{\"null\": 10.0}}", t.job_type));
            if multi_gpu_rates && t.distributed {
                for sf in [2, 4, 8] {
                    rows.push(format!("\"('{}', {sf})\": {{\"null\": 5.0}}", t.job_type));
                }
            }
        }
        GavelThroughputs::parse(&format!("{{\"v100\": {{{}}}}}", rows.join(",")), "t.json").unwrap()
    }

    #[test]
    fn the_paper_order_has_a3c_after_the_transformers() {
        let paper = JobTable::Osdi20.templates();
        assert_eq!(paper[13].job_type, "Transformer (batch size 256)");
        assert_eq!(paper[14].job_type, "A3C");
        assert_eq!(paper[15].job_type, "LM (batch size 5)");
        assert_eq!(paper[24].job_type, "Recommendation (batch size 8192)");
        assert_eq!(paper[25].job_type, "CycleGAN");
        let mut sorted: Vec<_> = paper.iter().map(|t| t.job_type).collect();
        let mut head: Vec<_> = HEAD_TABLE.iter().map(|t| t.job_type).collect();
        sorted.sort_unstable();
        head.sort_unstable();
        assert_eq!(sorted, head, "a permutation");
    }

    /// Static arrivals put every job at 0 and need a job count; single-GPU mode forces one GPU
    /// after the scale-factor draw; steps are the duration at the V100 rate.
    #[test]
    fn static_single_gpu_jobs() {
        assert!(params(Arrivals::Static, None).validate().unwrap_err().contains("need `num_jobs`"));
        let p = params(Arrivals::Static, Some(50));
        assert_eq!(p.validate(), Ok(()));
        assert_eq!((p.label(), p.needs_load(), p.is_endless()), ("gavel-static-50jobs".to_string(), false, false));
        let jobs: Vec<JobSpec> = job_stream(&p, 0, 0.0, &table(false)).unwrap().collect();
        assert_eq!(jobs.len(), 50);
        for (i, job) in jobs.iter().enumerate() {
            assert_eq!((job.id, job.arrival, job.gpus), (i as u64, 0.0, 1));
            assert_eq!(job.iterations, Some(job.work * 10.0));
            assert!((60.0 * 10f64.powf(1.5)..=60.0 * 1e4).contains(&job.work), "{}", job.work);
        }
    }

    /// Poisson arrivals at the load: increasing times, about `3600 / load` s apart on average,
    /// endless without a job count.
    #[test]
    fn poisson_arrivals_follow_the_load() {
        let p = params(Arrivals::Poisson, None);
        assert!(p.needs_load() && p.is_endless());
        let jobs: Vec<JobSpec> = job_stream(&p, 3, 6.0, &table(false)).unwrap().take(4000).collect();
        assert!(jobs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
        let mean_gap = jobs[3999].arrival / 3999.0;
        assert!((mean_gap - 600.0).abs() < 30.0, "{mean_gap}");
    }

    /// Multi-GPU mode needs a rate for every distributed template at 2, 4 and 8 GPUs, and
    /// refuses a table without them before drawing; single-GPU mode does not.
    #[test]
    fn a_table_without_the_drawable_rates_is_refused() {
        let mut p = params(Arrivals::Static, Some(10));
        p.multi_gpu = true;
        let Err(err) = Generator::new(&p, 0, 0.0, &table(false)) else { panic!("a table without 2-GPU rates") };
        assert_eq!(err, NotRunnable { job_type: "ResNet-18 (batch size 16)", scale_factor: 2 });
        assert!(err.to_string().contains("no positive v100 rate for `ResNet-18 (batch size 16)` at scale factor 2"));
        let sizes: Vec<u32> = job_stream(&p, 0, 0.0, &table(true)).unwrap().map(|j| j.gpus).collect();
        assert!(sizes.iter().all(|s| [1, 2, 4, 8].contains(s)) && sizes.iter().any(|&s| s > 1), "{sizes:?}");
        assert!(job_stream(&p, u64::MAX, 0.0, &table(true)).is_err(), "seed + 3 must not wrap");
    }
}
