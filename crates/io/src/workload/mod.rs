//! Workloads: generators, and traces turned into job streams.
//!
//! Every workload is a lazy stream of [`JobSpec`]s sorted by arrival, with ids 0, 1, 2, ... in
//! emission order (Blox numbers jobs as it admits them, so tracked-id windows line up). The Blox
//! generators reproduce the artifact's Python `random` draws bit for bit ([`python_random`]), so
//! the same seed gives the same jobs as Blox's `random.seed(seed)`. Traces are read by
//! [`crate::trace`], transformed by [`transform`] and numbered in arrival order.
//!
//! [`WorkloadSpec`] is the registry: the spec parser, `blox list` and the runner all read it.

pub mod blox_bursty;
pub mod blox_synthetic;
pub mod elasticflow_generator;
pub mod gavel_generator;
pub use crate::core::python_random;
pub mod synergy_generator;
pub mod trace_workload;
pub mod transform;

pub use blox_bursty::BloxBursty;
pub use blox_synthetic::BloxPhillySynthetic;
pub use elasticflow_generator::ElasticflowGeneratorParams;
pub use gavel_generator::GavelGeneratorParams;
pub use python_random::PyRandom;
pub use synergy_generator::SynergyGeneratorParams;
pub use trace_workload::{CutShort, LoadedTrace, TraceJobs, TraceParams, check_simulable, describe_read};

use crate::core::JobSpec;
use crate::policies::{Entry, Positive};
use crate::trace::TraceError;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::num::NonZeroU64;
use std::path::{Path, PathBuf};

/// One entry of a spec's `workloads:` list, e.g. `blox-bursty: {burst_multiplier: 4}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum WorkloadSpec {
    BloxPhillySynthetic(PhillySyntheticParams),
    BloxBursty(BurstyParams),
    ElasticflowGenerator(ElasticflowGeneratorParams),
    GavelGenerator(GavelGeneratorParams),
    SynergyGenerator(SynergyGeneratorParams),
    Csv(CsvParams),
    Trace(TraceParams),
    PodList(PodListParams),
}

/// Parameters of `pod-list`: a placement experiment's requests (`engine: {mode: placements}`),
/// read from a pod-list file ([`crate::trace::pod_list`]) by `path` or `dataset`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PodListParams {
    /// The file, relative to the spec file's directory unless absolute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// A registered dataset file, `NAME/PATH`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<String>,
    /// The workload's name in tables and figures (default `pod-list-<file stem>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The requests, shuffled by the run's seed, are copied (or removed) at random until their
    /// GPU request is this multiple of the cluster's GPU capacity (FGD's `tune`; the paper: 1.3).
    /// Required unless `over_time`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tune_ratio: Option<Positive>,
    /// The pods arrive at their creation times and leave after the time they ran in the trace,
    /// instead of being offered one by one and staying ([`crate::core::placements::over_time`]):
    /// the list is the workload as traced, neither shuffled nor tuned.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub over_time: bool,
    /// Over time, every creation time divided by this (the pods' run times and how long they
    /// wait before their users delete them unchanged): 20 offers twenty times the traced load,
    /// as the traced cluster was far larger than its pods needed at any moment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrival_speedup: Option<Positive>,
}

impl PodListParams {
    /// Where the file is, as a policy input names it; `validate` ensures exactly one is given.
    pub fn source(&self) -> crate::policies::InputSource {
        match (&self.path, &self.dataset) {
            (Some(path), _) => crate::policies::InputSource::Path(path.clone()),
            (None, dataset) => crate::policies::InputSource::Dataset(dataset.clone().unwrap_or_default()),
        }
    }

    fn validate(&self) -> Result<(), String> {
        if self.path.is_some() == self.dataset.is_some() {
            return Err("pod-list: give exactly one of `path` (a local file) and `dataset` (e.g. `fgd/openb_pod_list_default.csv`)".into());
        }
        match (self.tune_ratio, self.over_time) {
            (None, false) => {
                Err("pod-list: `tune_ratio` is required (the paper's experiments use 1.3), unless the pods \
                                  come and go at their traced times (`over_time: true`)"
                    .into())
            }
            (Some(_), true) => Err("pod-list: `tune_ratio` and `over_time: true` exclude each other: over time, the \
                                    workload is the trace as it happened, neither shuffled nor tuned"
                .into()),
            (_, false) if self.arrival_speedup.is_some() => {
                Err("pod-list: `arrival_speedup` speeds up pods that come and go (`over_time: true`)".into())
            }
            (Some(ratio), false) if ratio.0 > 100.0 => {
                Err(format!("pod-list: tune_ratio must be at most 100 (times the GPU capacity), got {}", ratio.0))
            }
            _ => Ok(()),
        }
    }

    fn label(&self) -> String {
        if let Some(label) = &self.label {
            return label.clone();
        }
        let source = self.path.clone().or_else(|| self.dataset.as_ref().map(PathBuf::from)).unwrap_or_default();
        format!("pod-list-{}", source.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default())
    }
}

/// Parameters of `blox-philly-synthetic`: none besides the grid's load and seed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhillySyntheticParams {}

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
    Positive(blox_bursty::DEFAULT_BURST_MULTIPLIER)
}

fn default_burst_interval_s() -> NonZeroU64 {
    NonZeroU64::new(blox_bursty::DEFAULT_BURST_INTERVAL_S).expect("the default burst interval is positive")
}

/// Parameters of `csv`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CsvParams {
    /// The trace file, relative to the spec file's directory unless absolute.
    pub path: PathBuf,
}

impl WorkloadSpec {
    pub const ALL: &[Entry] = &[
        Entry {
            name: "blox-philly-synthetic",
            summary: "1-GPU jobs, Gavel-like durations, Poisson arrivals at the load; exact Blox stream (Figures 6, 7, 12)",
        },
        Entry {
            name: "blox-bursty",
            summary: "10-24 h 1-GPU jobs at the load plus int({burst_multiplier: 4} x load) short jobs every {burst_interval_s: 14400} (Blox Figure 15a)",
        },
        Entry {
            name: "elasticflow-generator",
            summary: "ElasticFlow's generate_trace.py: {num_jobs} A100 jobs {lam_s} s apart on average, deadlines {min_ddl: 0.5}-{max_ddl: 1.5} x duration, {best_effort_share: 0} best-effort (Figures 9-11)",
        },
        Entry {
            name: "gavel-generator",
            summary: "Gavel's generate_job: {arrivals: static|poisson} (poisson at the load), {num_jobs}, {multi_gpu: false}, {job_table: head|osdi20}; steps from the V100 rates of gavel-throughputs",
        },
        Entry {
            name: "synergy-generator",
            summary: "Synergy's workload: {jobs: philly-single-gpu|synthetic} (the artifact's 1-GPU jobs, or 1-8 GPUs), Poisson arrivals at the load, models by {split: [20, 70, 10]} percent image/language/speech, iterations from the {cpus_per_gpu: 3} profile set, {num_jobs}",
        },
        Entry {
            name: "csv",
            summary: "the trace {path} with columns job_id, arrival_s, gpus, duration_s and optional model",
        },
        Entry {
            name: "pod-list",
            summary: "a placement experiment's requests (engine mode placements) from a pod list by {path} or {dataset: name/file}, tuned to {tune_ratio} x the cluster's GPU capacity, or arriving and leaving at their traced times with {over_time: true}",
        },
        Entry {
            name: "trace",
            summary: "a real trace by {path} or {dataset: name/file}, any format (`blox trace formats`), with {transforms: [...]}",
        },
    ];

    pub fn name(&self) -> &'static str {
        match self {
            WorkloadSpec::BloxPhillySynthetic(_) => "blox-philly-synthetic",
            WorkloadSpec::BloxBursty(_) => "blox-bursty",
            WorkloadSpec::ElasticflowGenerator(_) => "elasticflow-generator",
            WorkloadSpec::GavelGenerator(_) => "gavel-generator",
            WorkloadSpec::SynergyGenerator(_) => "synergy-generator",
            WorkloadSpec::Csv(_) => "csv",
            WorkloadSpec::Trace(_) => "trace",
            WorkloadSpec::PodList(_) => "pod-list",
        }
    }

    /// Distinguishes the workloads of one spec in run keys and result tables: the name, plus the
    /// parameters when they differ from the defaults.
    pub fn label(&self) -> String {
        match self {
            WorkloadSpec::BloxBursty(p) if *p != BurstyParams::default() => {
                format!("blox-bursty-x{}-every{}s", p.burst_multiplier.0, p.burst_interval_s)
            }
            // The file stem keeps labels short; two traces with one stem must be told apart by
            // the spec author (the spec rejects duplicate labels).
            WorkloadSpec::Csv(p) => {
                format!(
                    "csv-{}",
                    p.path
                        .file_stem()
                        .map_or_else(|| p.path.display().to_string(), |s| s.to_string_lossy().into_owned())
                )
            }
            WorkloadSpec::Trace(p) => p.label(),
            WorkloadSpec::PodList(p) => p.label(),
            WorkloadSpec::ElasticflowGenerator(p) => p.label(),
            WorkloadSpec::GavelGenerator(p) => p.label(),
            WorkloadSpec::SynergyGenerator(p) => p.label(),
            _ => self.name().to_string(),
        }
    }

    /// The `label:` the spec gives the workload, if it gives one.
    pub fn explicit_label(&self) -> Option<&str> {
        match self {
            WorkloadSpec::Trace(p) => p.label.as_deref(),
            WorkloadSpec::PodList(p) => p.label.as_deref(),
            WorkloadSpec::ElasticflowGenerator(p) => p.label.as_deref(),
            WorkloadSpec::GavelGenerator(p) => p.label.as_deref(),
            WorkloadSpec::SynergyGenerator(p) => p.label.as_deref(),
            _ => None,
        }
    }

    /// Whether the workload runs at an offered load (jobs per hour) from the grid: generators
    /// always, traces when a transform rescales arrivals to the load.
    pub fn needs_load(&self) -> bool {
        match self {
            WorkloadSpec::BloxPhillySynthetic(_) | WorkloadSpec::BloxBursty(_) | WorkloadSpec::SynergyGenerator(_) => {
                true
            }
            WorkloadSpec::ElasticflowGenerator(_) | WorkloadSpec::Csv(_) | WorkloadSpec::PodList(_) => false,
            WorkloadSpec::GavelGenerator(p) => p.needs_load(),
            WorkloadSpec::Trace(p) => p.transforms.iter().any(|t| t.needs_load()),
        }
    }

    /// Whether the stream never ends (generators), so a run needs a tracking window or horizon.
    pub fn is_endless(&self) -> bool {
        match self {
            WorkloadSpec::BloxPhillySynthetic(_) | WorkloadSpec::BloxBursty(_) => true,
            WorkloadSpec::GavelGenerator(p) => p.is_endless(),
            WorkloadSpec::SynergyGenerator(p) => p.is_endless(),
            _ => false,
        }
    }

    /// Checks what serde cannot: a trace names exactly one source and valid transforms.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            WorkloadSpec::Trace(p) => p.validate(),
            WorkloadSpec::PodList(p) => p.validate(),
            WorkloadSpec::ElasticflowGenerator(p) => p.validate().map_err(|e| e.to_string()),
            WorkloadSpec::GavelGenerator(p) => p.validate(),
            WorkloadSpec::SynergyGenerator(p) => p.validate(),
            _ => Ok(()),
        }
    }

    /// The trace and transforms behind a `csv:` or `trace:` workload; `None` for generators.
    pub fn trace_params(&self) -> Option<TraceParams> {
        match self {
            WorkloadSpec::Csv(p) => Some(TraceParams::csv(p.path.clone())),
            WorkloadSpec::Trace(p) => Some(p.clone()),
            _ => None,
        }
    }

    /// The trace behind a trace workload, read and transformed for `context`; `None` for
    /// generators.
    pub fn trace(&self, context: &WorkloadContext<'_>) -> Option<Result<LoadedTrace, WorkloadError>> {
        match self {
            WorkloadSpec::Csv(p) => Some(TraceParams::csv(p.path.clone()).load(context)),
            WorkloadSpec::Trace(p) => Some(p.load(context)),
            _ => None,
        }
    }

    /// The job stream of one run. Generators are infinite and need `context.load`; traces
    /// resolve a relative path against `context.base_dir`.
    pub fn jobs(&self, context: &WorkloadContext<'_>) -> Result<JobStream, WorkloadError> {
        let (load, seed) = (context.load, context.seed);
        let jobs_per_hour = || match load {
            None => Err(WorkloadError::MissingLoad { workload: self.name() }),
            Some(l) if !(l.is_finite() && l > 0.0) => {
                Err(WorkloadError::InvalidLoad { workload: self.name(), load: l })
            }
            Some(l) => Ok(l),
        };
        let generated =
            |jobs: Box<dyn Iterator<Item = JobSpec> + Send>| JobStream { jobs, cut_short: CutShort::default() };
        let traced = |jobs: TraceJobs| JobStream { cut_short: jobs.cut_short(), jobs: Box::new(jobs) };
        Ok(match self {
            WorkloadSpec::BloxPhillySynthetic(_) => {
                generated(Box::new(BloxPhillySynthetic::new(seed, jobs_per_hour()?)))
            }
            WorkloadSpec::BloxBursty(p) => generated(Box::new(BloxBursty::new(
                seed,
                jobs_per_hour()?,
                p.burst_multiplier.0,
                p.burst_interval_s.get(),
            ))),
            WorkloadSpec::ElasticflowGenerator(p) => generated(Box::new(elasticflow_generator::job_stream(p, seed)?)),
            WorkloadSpec::GavelGenerator(p) => {
                let jobs_per_hour = if p.needs_load() { jobs_per_hour()? } else { 0.0 };
                let table = gavel_generator::read_throughputs(p.throughputs)?;
                generated(Box::new(gavel_generator::job_stream(p, seed, jobs_per_hour, &table)?))
            }
            WorkloadSpec::SynergyGenerator(p) => {
                generated(Box::new(synergy_generator::job_stream(p, seed, jobs_per_hour()?)?))
            }
            WorkloadSpec::Csv(p) => traced(TraceParams::csv(p.path.clone()).job_stream(context)?),
            WorkloadSpec::Trace(p) => traced(p.job_stream(context)?),
            WorkloadSpec::PodList(_) => {
                return Err(WorkloadError::Prepare(
                    "a `pod-list` workload is a placement experiment's requests, not a job stream: run it with \
                     `engine: {mode: placements}`"
                        .into(),
                ));
            }
        })
    }
}

/// One run's jobs, pulled lazily: a generator, a trace loaded whole, or a trace a reader thread
/// streams ([`TraceJobs`]).
pub struct JobStream {
    jobs: Box<dyn Iterator<Item = JobSpec> + Send>,
    cut_short: CutShort,
}

impl JobStream {
    /// Set when a streamed trace ended before its file did (see [`TraceJobs`]); a run that
    /// pulled this stream fails with the reason.
    pub fn cut_short(&self) -> CutShort {
        self.cut_short.clone()
    }
}

impl Iterator for JobStream {
    type Item = JobSpec;

    fn next(&mut self) -> Option<JobSpec> {
        self.jobs.next()
    }
}

/// What a workload may depend on besides its own parameters: the grid point and the spec's place.
#[derive(Debug, Clone, Copy)]
pub struct WorkloadContext<'a> {
    pub load: Option<f64>,
    pub seed: u64,
    /// Relative trace paths are relative to this directory (the spec file's).
    pub base_dir: &'a Path,
    /// GPUs of the run's cluster (for `cap-gpus: cluster`).
    pub cluster_gpus: u32,
}

/// Why a workload could not produce its jobs.
#[derive(Debug)]
pub enum WorkloadError {
    MissingLoad {
        workload: &'static str,
    },
    InvalidLoad {
        workload: &'static str,
        load: f64,
    },
    Trace(TraceError),
    /// A transform or the conversion to jobs failed; the message names the trace.
    Prepare(String),
}

impl fmt::Display for WorkloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkloadError::MissingLoad { workload } => {
                write!(f, "workload `{workload}` generates jobs at a load: give it a load in jobs per hour")
            }
            WorkloadError::InvalidLoad { workload, load } => {
                write!(f, "workload `{workload}`: the load must be a positive number of jobs per hour, got {load}")
            }
            WorkloadError::Trace(e) => e.fmt(f),
            WorkloadError::Prepare(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for WorkloadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WorkloadError::Trace(e) => Some(e),
            _ => None,
        }
    }
}

impl From<TraceError> for WorkloadError {
    fn from(e: TraceError) -> Self {
        WorkloadError::Trace(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Workloads {
        workloads: Vec<WorkloadSpec>,
    }

    fn parse(yaml: &str) -> Result<Vec<WorkloadSpec>, String> {
        serde_saphyr::from_str::<Workloads>(yaml).map(|w| w.workloads).map_err(|e| e.to_string())
    }

    #[test]
    fn parses_every_variant_with_defaults() {
        let specs = parse(
            "workloads:\n  - blox-philly-synthetic: {}\n  - blox-bursty: {}\n  - blox-bursty: {burst_multiplier: 2.5, burst_interval_s: 3600}\n  - csv: {path: traces/small.csv}\n  - synergy-generator: {}\n",
        )
        .unwrap();
        assert_eq!(
            specs,
            [
                WorkloadSpec::BloxPhillySynthetic(PhillySyntheticParams {}),
                WorkloadSpec::BloxBursty(BurstyParams::default()),
                WorkloadSpec::BloxBursty(BurstyParams {
                    burst_multiplier: Positive(2.5),
                    burst_interval_s: NonZeroU64::new(3600).unwrap()
                }),
                WorkloadSpec::Csv(CsvParams { path: "traces/small.csv".into() }),
                WorkloadSpec::SynergyGenerator(SynergyGeneratorParams {
                    jobs: synergy_generator::SynergyJobs::PhillySingleGpu,
                    split: [20, 70, 10],
                    cpus_per_gpu: 3,
                    num_jobs: None,
                    label: None
                }),
            ]
        );
        let labels: Vec<String> = specs.iter().map(WorkloadSpec::label).collect();
        assert_eq!(
            labels,
            [
                "blox-philly-synthetic",
                "blox-bursty",
                "blox-bursty-x2.5-every3600s",
                "csv-small",
                "synergy-philly-single-gpu"
            ]
        );
        let names: Vec<&str> = specs.iter().map(WorkloadSpec::name).collect();
        assert!(names.iter().all(|n| WorkloadSpec::ALL.iter().any(|e| e.name == *n)));
        assert_eq!(WorkloadSpec::ALL.len(), 8);
    }

    #[test]
    fn elasticflow_generator_is_figure_10_at_its_parameters() {
        let spec = parse("workloads:\n  - elasticflow-generator: {num_jobs: 100, lam_s: 1500, min_ddl: 1.5}\n")
            .unwrap()
            .remove(0);
        assert_eq!(
            (spec.name(), spec.label(), spec.needs_load(), spec.is_endless()),
            ("elasticflow-generator", "elasticflow-generator-100jobs-1500lam-ddl1.5-1.5".to_string(), false, false)
        );
        assert!(WorkloadSpec::ALL.iter().any(|e| e.name == spec.name()));
        let jobs: Vec<JobSpec> = spec.jobs(&context(None, Path::new("."))).unwrap().collect();
        assert_eq!(jobs.len(), 100);
        // The first rows of the artifact's 100jobs_1500lam.csv (seed 1).
        assert_eq!(
            jobs.iter()
                .take(2)
                .map(|j| (j.id, j.arrival, j.gpus, j.work, j.model.as_deref(), j.deadline))
                .collect::<Vec<_>>(),
            [(0, 0.0, 1, 3930.0, Some("resnet50"), Some(5896.0)), (1, 4686.0, 1, 4830.0, Some("gpt2"), Some(11932.0))]
        );
        assert!(parse("workloads:\n  - elasticflow-generator: {num_jobs: 0, lam_s: 1}\n").is_err());
        assert!(parse("workloads:\n  - elasticflow-generator: {num_jobs: 5}\n").unwrap_err().contains("lam_s"));
        let reversed =
            parse("workloads:\n  - elasticflow-generator: {num_jobs: 5, lam_s: 1, min_ddl: 2}\n").unwrap().remove(0);
        let err = reversed.jobs(&context(None, Path::new("."))).err().unwrap().to_string();
        assert_eq!(err, "elasticflow-generator: need 0 <= min_ddl <= max_ddl, got 2 and 1.5");
    }

    #[test]
    fn rejects_unknown_workloads_and_parameters() {
        assert!(parse("workloads:\n  - philly: {}\n").unwrap_err().contains("philly"));
        assert!(parse("workloads:\n  - blox-philly-synthetic: {seed: 3}\n").unwrap_err().contains("seed"));
        assert!(parse("workloads:\n  - blox-bursty: {burst_interval: 60}\n").unwrap_err().contains("burst_interval"));
        assert!(parse("workloads:\n  - csv: {}\n").unwrap_err().contains("path"));
        assert!(parse("workloads:\n  - blox-bursty: {burst_interval_s: 0}\n").is_err());
        assert!(parse("workloads:\n  - blox-bursty: {burst_multiplier: -1}\n").is_err());
    }

    fn context(load: Option<f64>, base_dir: &Path) -> WorkloadContext<'_> {
        WorkloadContext { load, seed: 1, base_dir, cluster_gpus: 16 }
    }

    #[test]
    fn generators_need_a_positive_load() {
        let synthetic = WorkloadSpec::BloxPhillySynthetic(PhillySyntheticParams {});
        assert!(synthetic.needs_load());
        let missing = synthetic.jobs(&context(None, Path::new("."))).err().unwrap();
        assert_eq!(
            missing.to_string(),
            "workload `blox-philly-synthetic` generates jobs at a load: give it a load in jobs per hour"
        );
        let zero =
            WorkloadSpec::BloxBursty(BurstyParams::default()).jobs(&context(Some(0.0), Path::new("."))).err().unwrap();
        assert_eq!(
            zero.to_string(),
            "workload `blox-bursty`: the load must be a positive number of jobs per hour, got 0"
        );
    }

    #[test]
    fn streams_are_the_generators() {
        let synthetic = WorkloadSpec::BloxPhillySynthetic(PhillySyntheticParams {});
        let arrivals: Vec<f64> =
            synthetic.jobs(&context(Some(9.0), Path::new("."))).unwrap().take(3).map(|j| j.arrival).collect();
        assert_eq!(arrivals, [58.0, 176.0, 749.0]);
        let bursty = WorkloadSpec::BloxBursty(BurstyParams::default());
        let first_base = bursty.jobs(&context(Some(9.0), Path::new("."))).unwrap().nth(36).unwrap();
        assert_eq!((first_base.id, first_base.arrival, first_base.work), (36, 58.0, 52716.0));
    }

    #[test]
    fn csv_paths_are_relative_to_the_base_dir() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("traces")).unwrap();
        std::fs::write(dir.path().join("traces/small.csv"), "job_id,arrival_s,gpus,duration_s\n0,0,2,60\n1,30,1,90\n")
            .unwrap();
        let csv = WorkloadSpec::Csv(CsvParams { path: "traces/small.csv".into() });
        assert!(!csv.needs_load());
        let jobs: Vec<JobSpec> = csv.jobs(&context(None, dir.path())).unwrap().collect();
        assert_eq!(jobs.iter().map(|j| (j.id, j.gpus)).collect::<Vec<_>>(), [(0, 2), (1, 1)]);
        let missing =
            WorkloadSpec::Csv(CsvParams { path: "nope.csv".into() }).jobs(&context(None, dir.path())).err().unwrap();
        assert!(missing.to_string().contains("nope.csv: cannot read the trace"), "{missing}");
    }

    #[test]
    fn trace_workloads_detect_the_format_transform_and_number_jobs_by_arrival() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("itp.csv"),
            "job_id,submission_time,duration,num_gpu\nb,7200,60,32\na,0,30,1\nc,10800,90,2\nd,14400,10,1\n",
        )
        .unwrap();
        let spec = parse(
            "workloads:\n  - trace:\n      path: itp.csv\n      transforms: [{filter: {min_duration_s: 20}}, {cap-gpus: cluster}, {rescale-arrivals: {jobs_per_hour: load}}]\n",
        )
        .unwrap()
        .remove(0);
        assert_eq!(
            (spec.name(), spec.label(), spec.needs_load(), spec.is_endless()),
            ("trace", "trace-itp".to_string(), true, false)
        );
        let jobs: Vec<JobSpec> = spec.jobs(&context(Some(1.0), dir.path())).unwrap().collect();
        // `d` is too short; `a, b, c` arrive at 1 job/h over 3 h, so load 1 leaves them and load 2 halves the gaps.
        assert_eq!(
            jobs.iter().map(|j| (j.id, j.gpus, j.arrival, j.work)).collect::<Vec<_>>(),
            [(0, 1, 0.0, 30.0), (1, 16, 7200.0, 60.0), (2, 2, 10800.0, 90.0)]
        );
        let twice: Vec<f64> = spec.jobs(&context(Some(2.0), dir.path())).unwrap().map(|j| j.arrival).collect();
        assert_eq!(twice, [0.0, 3600.0, 5400.0]);
    }

    #[test]
    fn traces_without_durations_are_an_error_naming_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let header = crate::trace::write::CANONICAL_COLUMNS.join(",");
        let row = format!("j0,107,6{}", ",".repeat(crate::trace::write::CANONICAL_COLUMNS.len() - 3));
        std::fs::write(dir.path().join("w.csv"), format!("{header}\n{row}\n")).unwrap();
        let spec = parse("workloads:\n  - trace: {path: w.csv}\n").unwrap().remove(0);
        let err = spec.jobs(&context(None, dir.path())).err().unwrap().to_string();
        assert!(err.contains("1 of 1 jobs have no duration") && err.contains("redraw-durations"), "{err}");
        let redrawn =
            parse("workloads:\n  - trace: {path: w.csv, transforms: [redraw-durations: blox]}\n").unwrap().remove(0);
        assert_eq!(redrawn.jobs(&context(None, dir.path())).unwrap().count(), 1);
    }

    /// A Pollux workload has no durations by design: its work is the application's training
    /// target, which the policy's job model decides; its jobs keep model, GPUs and batch size.
    #[test]
    fn pollux_workloads_run_without_durations() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("w.csv"),
            "name,time,application,num_replicas,batch_size\ncifar10-0,107,cifar10,6,2048\n",
        )
        .unwrap();
        let spec = parse("workloads:\n  - trace: {path: w.csv}\n").unwrap().remove(0);
        let jobs: Vec<JobSpec> = spec.jobs(&context(None, dir.path())).unwrap().collect();
        let job = &jobs[0];
        assert_eq!((job.model.as_deref(), job.gpus, job.batch_size, job.work), (Some("cifar10"), 6, Some(2048), 0.0));
    }
}
