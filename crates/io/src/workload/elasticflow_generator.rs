//! ElasticFlow's synthetic trace generator (`ElasticFlow/trace_generator/generate_trace.py` with
//! `utils.generate_job` and `job_table.py`; github.com/pkusys/ElasticFlow == gudiandian/
//! ElasticFlow-artifact @ b3f5ea4, Apache-2.0), reproducing its Python `random` draws exactly.
//! It made the traces of ElasticFlow's Figures 9, 10 and 11 (`run_fig{9,10,11}.sh`).
//!
//! Rule (`trace_generator/generate_trace.py:14-39, 64-124` and `utils.py:45-161` at b3f5ea4), job
//! `i` in order, each draw from its own `random.Random` stream:
//! - GPUs (stream `seed + 3`): `r = uniform(0, 1)`; 2 if `0.83 <= r <= 0.86`, else 4 if
//!   `0.86 <= r <= 0.89`, else 8 if `0.89 <= r <= 0.99`, else 16 if `r >= 0.99`, else 1; then
//!   capped at `max_scale_factor` (ITP's size mix).
//! - Template (stream `seed`): one `choice` over 14 (model, global batch) pairs, [`JOB_TABLE`]
//!   (the original's redraw of non-distributed templates is on a path its script does not take,
//!   and every template is distributed anyway).
//! - Duration (stream `seed + 2`): `60 x 10^uniform(2.5, 4)` s if `random() >= 0.8`, else
//!   `60 x 10^uniform(1, 2.5)` s.
//! - Iterations: duration x A100 iterations/s of (model, batch, GPUs); the original asserts the
//!   rate exists and is positive, here that is [`GeneratorError::NotRunnable`].
//! - Arrival (stream `seed + 1`): job 0 at 0; then the previous arrival plus
//!   `-ln(1 - random()) x lam` (exponential, mean `lam` s); with `lam == 0` every job arrives at 0
//!   and the stream is not drawn.
//! - Deadline (fifth stream, below): arrival + `int(uniform(min_ddl, max_ddl) x duration)`;
//!   then best-effort when `uniform(0, 1) < best_effort_share` (ElasticFlow then ignores the
//!   deadline).
//!
//! The original draws the deadline factor and the best-effort flag from the global, unseeded
//! `random` module, so those traces cannot be reproduced. Here both come, in that order, from a
//! fifth stream seeded `seed + 4` (or `deadline_seed`), so every trace is a function of its parameters. Whenever
//! `min_ddl == max_ddl` and `best_effort_share == 0` (Figure 10) the fifth stream cannot show:
//! `uniform(a, a)` returns exactly `a` (it still draws) and `uniform(0, 1) < 0` is never true, so
//! the output equals the original's byte for byte.
//!
//! The CSV holds Python's `%d` of each float, which truncates toward zero; [`ElasticflowJob`]
//! keeps the unrounded floats, [`ElasticflowJob::to_trace_job`] the truncated values ElasticFlow's
//! simulator reads back.

use super::python_random::PyRandom;
use super::{JobStream, Workload, WorkloadContext};
use super::{LoadedTrace, WorkloadError};
use crate::core::JobSpec;
use crate::profiles::ThroughputTable;
use crate::trace::{ReadReport, TraceFormat, TraceJob};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::io::{self, Write};
use std::num::NonZeroUsize;
use std::path::PathBuf;

/// What `blox list` says about `elasticflow-generator`.
pub const SUMMARY: &str = "ElasticFlow's generate_trace.py: {num_jobs} A100 jobs {lam_s} s apart on average, deadlines {min_ddl: 0.5}-{max_ddl: 1.5} x duration, {best_effort_share: 0} best-effort (Figures 9-11)";

impl Workload for ElasticflowGeneratorParams {
    fn label(&self) -> Option<String> {
        Some(ElasticflowGeneratorParams::label(self))
    }

    fn explicit_label(&self) -> Option<&str> {
        self.label.as_deref()
    }

    fn needs_load(&self) -> bool {
        false
    }

    fn validate(&self) -> Result<(), String> {
        ElasticflowGeneratorParams::validate(self).map_err(|e| e.to_string())
    }

    fn job_count(&self) -> Option<u64> {
        Some(self.num_jobs.get() as u64)
    }

    fn jobs(&self, context: &WorkloadContext<'_>) -> Result<JobStream, WorkloadError> {
        Ok(JobStream::generated(job_stream(self, context.seed)?))
    }
}

/// `job_table.JobTable`: (model, global batch), in the original's order, which `choice` indexes.
pub const JOB_TABLE: [(&str, u32); 14] = [
    ("resnet50", 64),
    ("resnet50", 128),
    ("resnet50", 256),
    ("vgg16", 64),
    ("vgg16", 128),
    ("vgg16", 256),
    ("inception3", 64),
    ("inception3", 128),
    ("gpt2", 128),
    ("gpt2", 256),
    ("bert", 128),
    ("bert", 64),
    ("deepspeech2", 64),
    ("deepspeech2", 32),
];

/// The CSV header `generate_trace.py` writes.
pub const CSV_HEADER: &str = "job_id,submit_time,iteration,model_name,ddl,batch_size,num_gpu,duration,best_effort";

/// Parameters of `generate_trace.py`, defaults as there; the seed comes from the run's grid.
/// Multi-GPU jobs are always on (`--generate-multi-gpu-jobs` defaults to true and cannot be
/// switched off) and priorities off, as in every run script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ElasticflowGeneratorParams {
    /// `--num_jobs`.
    pub num_jobs: NonZeroUsize,
    /// `--lam`: mean inter-arrival time in seconds; 0 submits every job at time 0.
    pub lam_s: f64,
    /// `--min_ddl`: smallest deadline as a multiple of the job's duration.
    #[serde(default = "default_min_ddl")]
    pub min_ddl: f64,
    /// `--max_ddl`: largest deadline as a multiple of the job's duration.
    #[serde(default = "default_max_ddl")]
    pub max_ddl: f64,
    /// `--best_effort_percentage`: probability that a job is best-effort, in [0, 1].
    #[serde(default)]
    pub best_effort_share: f64,
    /// `--max_scale_factor`: cap on a job's GPUs (the draw never exceeds 16).
    #[serde(default = "default_max_scale_factor")]
    pub max_scale_factor: u32,
    /// Seed of the deadline and best-effort draws (default: the run's seed + 4). Varying it
    /// alone gives other draws of what the original left unseeded, on the same jobs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_seed: Option<u64>,
    /// Name in tables and figures instead of the one built from the parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

fn default_min_ddl() -> f64 {
    0.5
}

fn default_max_ddl() -> f64 {
    1.5
}

fn default_max_scale_factor() -> u32 {
    16
}

impl ElasticflowGeneratorParams {
    /// `num_jobs` jobs `lam_s` seconds apart on average, other parameters at their defaults.
    pub fn new(num_jobs: NonZeroUsize, lam_s: f64) -> Self {
        Self {
            num_jobs,
            lam_s,
            min_ddl: default_min_ddl(),
            max_ddl: default_max_ddl(),
            best_effort_share: 0.0,
            max_scale_factor: default_max_scale_factor(),
            deadline_seed: None,
            label: None,
        }
    }

    /// Names the workload in run keys, tables and figures: `label` if set, else job count and
    /// `lam` always and the other parameters when not default.
    pub fn label(&self) -> String {
        if let Some(label) = &self.label {
            return label.clone();
        }
        let mut label = format!("elasticflow-generator-{}jobs-{}lam", self.num_jobs, self.lam_s);
        if (self.min_ddl, self.max_ddl) != (default_min_ddl(), default_max_ddl()) {
            label += &format!("-ddl{}-{}", self.min_ddl, self.max_ddl);
        }
        if self.best_effort_share != 0.0 {
            label += &format!("-be{}", self.best_effort_share);
        }
        if self.max_scale_factor != default_max_scale_factor() {
            label += &format!("-max{}gpus", self.max_scale_factor);
        }
        if let Some(seed) = self.deadline_seed {
            label += &format!("-ddlseed{seed}");
        }
        label
    }

    /// What the original would also reject or turn into nonsense: a negative or infinite `lam`,
    /// deadline factors that are negative or reversed, a share outside [0, 1], a cap of 0 GPUs.
    pub fn validate(&self) -> Result<(), GeneratorError> {
        let invalid = |m: String| Err(GeneratorError::Invalid(m));
        if !(self.lam_s.is_finite() && self.lam_s >= 0.0) {
            return invalid(format!("lam_s must be a number of seconds >= 0, got {}", self.lam_s));
        }
        if !(self.min_ddl.is_finite()
            && self.max_ddl.is_finite()
            && 0.0 <= self.min_ddl
            && self.min_ddl <= self.max_ddl)
        {
            return invalid(format!("need 0 <= min_ddl <= max_ddl, got {} and {}", self.min_ddl, self.max_ddl));
        }
        if !(0.0..=1.0).contains(&self.best_effort_share) {
            return invalid(format!("best_effort_share must be in [0, 1], got {}", self.best_effort_share));
        }
        if self.max_scale_factor == 0 {
            return invalid("max_scale_factor must be at least 1".into());
        }
        Ok(())
    }
}

/// One generated job with the original's unrounded values.
#[derive(Debug, Clone, PartialEq)]
pub struct ElasticflowJob {
    /// Row number, the CSV's `job_id`.
    pub index: usize,
    pub submit_s: f64,
    pub iterations: f64,
    pub model: &'static str,
    /// Absolute deadline; the CSV carries it for best-effort jobs too.
    pub deadline_s: f64,
    /// Global batch size.
    pub batch_size: u32,
    pub gpus: u32,
    /// Run time at `gpus` GPUs.
    pub duration_s: f64,
    pub best_effort: bool,
}

impl ElasticflowJob {
    /// The job as the `elasticflow` trace reader reads its CSV row: values truncated as `%d`
    /// writes them, no deadline for best-effort jobs.
    pub fn to_trace_job(&self) -> TraceJob {
        let mut job = TraceJob::new(self.index.to_string(), self.submit_s.trunc(), self.gpus);
        job.duration_s = Some(self.duration_s.trunc());
        job.iterations = Some(self.iterations.trunc());
        job.model = Some(self.model.to_string());
        job.batch_size = Some(self.batch_size);
        job.deadline_s = (!self.best_effort).then(|| self.deadline_s.trunc());
        job.best_effort = Some(self.best_effort);
        job
    }
}

/// Generates `params.num_jobs` jobs for `seed` with iterations from `table` (ElasticFlow uses
/// [`ThroughputTable::elasticflow_a100`]; its T4 table has none of the templates' models).
pub fn generate(
    params: &ElasticflowGeneratorParams,
    seed: u64,
    table: &ThroughputTable,
) -> Result<Vec<ElasticflowJob>, GeneratorError> {
    params.validate()?;
    if seed > u64::MAX - 4 {
        let message = format!("the seed must be at most {} (the generator also uses seed + 4)", u64::MAX - 4);
        return Err(GeneratorError::Invalid(message));
    }
    let mut templates = PyRandom::seed(seed);
    let mut arrivals = PyRandom::seed(seed + 1);
    let mut durations = PyRandom::seed(seed + 2);
    let mut sizes = PyRandom::seed(seed + 3);
    let mut deadlines = PyRandom::seed(params.deadline_seed.unwrap_or(seed + 4));
    let mut jobs = Vec::with_capacity(params.num_jobs.get());
    let mut submit_s = 0.0;
    for index in 0..params.num_jobs.get() {
        let gpus = draw_gpus(&mut sizes).min(params.max_scale_factor);
        let &(model, batch_size) = templates.choice(&JOB_TABLE);
        let duration_s = draw_duration_s(&mut durations);
        let rate = table.curve(model, batch_size).and_then(|c| c.iterations_per_s(gpus)).ok_or_else(|| {
            GeneratorError::NotRunnable { job: index, model, batch_size, gpus, table: table.source().to_string() }
        })?;
        if index > 0 && params.lam_s > 0.0 {
            submit_s += -(1.0 - arrivals.random()).ln() * params.lam_s;
        }
        let deadline_s = submit_s + (deadlines.uniform(params.min_ddl, params.max_ddl) * duration_s).trunc();
        let best_effort = deadlines.uniform(0.0, 1.0) < params.best_effort_share;
        let job = ElasticflowJob {
            index,
            submit_s,
            iterations: duration_s * rate,
            model,
            deadline_s,
            batch_size,
            gpus,
            duration_s,
            best_effort,
        };
        if ![job.submit_s, job.iterations, job.deadline_s].iter().all(|x| x.is_finite()) {
            return Err(GeneratorError::NotFinite { job: index });
        }
        jobs.push(job);
    }
    Ok(jobs)
}

/// `generate_scale_factor`: ITP's GPU-count mix, boundaries inclusive and tested in this order.
fn draw_gpus(rng: &mut PyRandom) -> u32 {
    let r = rng.uniform(0.0, 1.0);
    if (0.83..=0.86).contains(&r) {
        2
    } else if (0.86..=0.89).contains(&r) {
        4
    } else if (0.89..=0.99).contains(&r) {
        8
    } else if r >= 0.99 {
        16
    } else {
        1
    }
}

/// `generate_duration`: log-uniform seconds, 20% long (10^2.5-10^4 min), 80% short (10-10^2.5 min).
fn draw_duration_s(rng: &mut PyRandom) -> f64 {
    let exponent = if rng.random() >= 0.80 { rng.uniform(2.5, 4.0) } else { rng.uniform(1.0, 2.5) };
    60.0 * 10f64.powf(exponent)
}

/// Writes `jobs` exactly as `generate_trace.py` does: [`CSV_HEADER`], then one `%d`-formatted
/// row per job, each line ending in `\n`.
pub fn write_csv(mut out: impl Write, jobs: &[ElasticflowJob]) -> io::Result<()> {
    let mut text = String::with_capacity(CSV_HEADER.len() + 1 + jobs.len() * 48);
    text.push_str(CSV_HEADER);
    text.push('\n');
    for j in jobs {
        text += &format!(
            "{},{},{},{},{},{},{},{},{}\n",
            j.index,
            percent_d(j.submit_s),
            percent_d(j.iterations),
            j.model,
            percent_d(j.deadline_s),
            j.batch_size,
            j.gpus,
            percent_d(j.duration_s),
            u8::from(j.best_effort)
        );
    }
    out.write_all(text.as_bytes())
}

/// Python's `'%d' % x` for a finite float: `int(x)` (toward zero) in full decimal. Rust's fixed
/// formatting of an integral `f64` is exact; adding 0.0 turns `-0.0` into `0`.
fn percent_d(x: f64) -> String {
    format!("{:.0}", x.trunc() + 0.0)
}

/// The `elasticflow-generator` workload's jobs: the A100 trace for `seed`, numbered as a
/// `trace:` workload numbers the written CSV.
pub fn job_stream(
    params: &ElasticflowGeneratorParams,
    seed: u64,
) -> Result<impl Iterator<Item = JobSpec> + Send + use<>, WorkloadError> {
    let jobs = generate(params, seed, ThroughputTable::elasticflow_a100())
        .map_err(|e| WorkloadError::Prepare(format!("elasticflow-generator: {e}")))?;
    let report = ReadReport { rows_read: jobs.len() as u64, jobs_kept: jobs.len() as u64, ..ReadReport::default() };
    LoadedTrace {
        source: PathBuf::from(params.label()),
        format: TraceFormat::Elasticflow,
        jobs: jobs.iter().map(ElasticflowJob::to_trace_job).collect(),
        report,
    }
    .into_job_stream()
}

/// Why the generator could not produce a trace.
#[derive(Debug, Clone, PartialEq)]
pub enum GeneratorError {
    Invalid(String),
    /// The table has no positive rate for a drawn job (the original fails an assertion).
    NotRunnable {
        job: usize,
        model: &'static str,
        batch_size: u32,
        gpus: u32,
        table: String,
    },
    /// Times or iterations overflowed (an absurd `lam_s` or throughput).
    NotFinite {
        job: usize,
    },
}

impl fmt::Display for GeneratorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GeneratorError::Invalid(message) => f.write_str(message),
            GeneratorError::NotRunnable { job, model, batch_size, gpus, table } => write!(
                f,
                "job {job}: the throughput table `{table}` has no rate for {model} at global batch {batch_size} on {gpus} GPUs"
            ),
            GeneratorError::NotFinite { job } => write!(f, "job {job}: a time or iteration count overflowed"),
        }
    }
}

impl std::error::Error for GeneratorError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(num_jobs: usize, lam_s: f64) -> ElasticflowGeneratorParams {
        ElasticflowGeneratorParams::new(NonZeroUsize::new(num_jobs).unwrap(), lam_s)
    }

    fn csv(jobs: &[ElasticflowJob]) -> String {
        let mut out = Vec::new();
        write_csv(&mut out, jobs).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn percent_d_truncates_toward_zero_like_python() {
        // Python: '%d' % x for each x
        let cases = [
            (3.7, "3"),
            (-3.7, "-3"),
            (-0.5, "0"),
            (1e20, "100000000000000000000"),
            (2f64.powi(70), "1180591620717411303424"),
        ];
        for (x, expected) in cases {
            assert_eq!(percent_d(x), expected, "{x}");
        }
    }

    #[test]
    fn figure_10_first_rows() {
        let mut p = params(4, 1500.0);
        p.min_ddl = 1.5;
        let jobs = generate(&p, 1, ThroughputTable::elasticflow_a100()).unwrap();
        assert_eq!(
            csv(&jobs),
            "job_id,submit_time,iteration,model_name,ddl,batch_size,num_gpu,duration,best_effort\n\
             0,0,7246,resnet50,5896,256,1,3930,0\n1,4686,19793,gpt2,11932,256,1,4830,0\n\
             2,9116,2274,deepspeech2,10244,32,1,752,0\n3,9203,17316,deepspeech2,25437,64,1,10823,0\n"
        );
        assert_eq!(jobs[0].iterations, jobs[0].duration_s * 1.843374951404324);
    }

    #[test]
    fn the_fifth_stream_only_shows_with_a_deadline_range_or_best_effort() {
        let table = ThroughputTable::elasticflow_a100();
        let mut fixed = params(50, 900.0);
        (fixed.min_ddl, fixed.max_ddl) = (1.2, 1.2);
        let a = generate(&fixed, 7, table).unwrap();
        assert!(a.iter().all(|j| !j.best_effort && j.deadline_s == j.submit_s + (1.2 * j.duration_s).trunc()));
        let ranged = generate(&params(50, 900.0), 7, table).unwrap();
        assert!(ranged.iter().zip(&a).all(|(r, f)| (r.submit_s, r.gpus, r.model) == (f.submit_s, f.gpus, f.model)));
        assert!(ranged.iter().any(|r| r.deadline_s != r.submit_s + (1.2 * r.duration_s).trunc()));
        let mut all_be = params(50, 900.0);
        all_be.best_effort_share = 1.0;
        let be = generate(&all_be, 7, table).unwrap();
        assert!(be.iter().all(|j| j.best_effort && j.to_trace_job().deadline_s.is_none()));
        assert_eq!(
            be.iter().map(|j| j.deadline_s).collect::<Vec<_>>(),
            ranged.iter().map(|j| j.deadline_s).collect::<Vec<_>>()
        );
        let mut half = params(200, 900.0);
        half.best_effort_share = 0.5;
        let n = generate(&half, 7, table).unwrap().iter().filter(|j| j.best_effort).count();
        assert!((70..130).contains(&n), "{n} of 200 best-effort");
    }

    #[test]
    fn lam_zero_submits_everything_at_zero_and_the_cap_limits_gpus() {
        let mut p = params(300, 0.0);
        p.max_scale_factor = 4;
        let jobs = generate(&p, 0, ThroughputTable::elasticflow_a100()).unwrap();
        assert!(jobs.iter().all(|j| j.submit_s == 0.0 && j.gpus <= 4));
        assert!(jobs.iter().any(|j| j.gpus == 4));
        let uncapped = generate(&params(300, 0.0), 0, ThroughputTable::elasticflow_a100()).unwrap();
        assert!(uncapped.iter().any(|j| j.gpus == 8));
    }

    #[test]
    fn invalid_parameters_and_missing_rates_are_errors() {
        let table = ThroughputTable::elasticflow_a100();
        let mut p = params(3, 10.0);
        p.min_ddl = 2.0;
        assert_eq!(generate(&p, 0, table).unwrap_err().to_string(), "need 0 <= min_ddl <= max_ddl, got 2 and 1.5");
        let mut p = params(3, -1.0);
        assert!(generate(&p, 0, table).unwrap_err().to_string().starts_with("lam_s must be"));
        p.lam_s = 1.0;
        p.best_effort_share = 1.5;
        assert!(generate(&p, 0, table).unwrap_err().to_string().starts_with("best_effort_share"));
        p.best_effort_share = 0.0;
        p.max_scale_factor = 0;
        assert!(generate(&p, 0, table).unwrap_err().to_string().starts_with("max_scale_factor"));
        p.max_scale_factor = 16;
        assert!(generate(&p, u64::MAX, table).is_err());
        assert_eq!(
            generate(&p, 1, ThroughputTable::elasticflow_t4()).unwrap_err().to_string(),
            "job 0: the throughput table `elasticflow-t4.csv` has no rate for resnet50 at global batch 256 on 1 GPUs"
        );
    }

    #[test]
    fn labels_name_non_default_parameters() {
        let mut p = params(100, 1500.0);
        assert_eq!(p.label(), "elasticflow-generator-100jobs-1500lam");
        p.min_ddl = 1.5;
        p.best_effort_share = 0.3;
        p.max_scale_factor = 8;
        assert_eq!(p.label(), "elasticflow-generator-100jobs-1500lam-ddl1.5-1.5-be0.3-max8gpus");
    }
}
