//! Workloads: generators, and traces turned into job streams.
//!
//! Every workload is a lazy stream of [`JobSpec`]s sorted by arrival, with ids 0, 1, 2, ... in
//! emission order (Blox numbers jobs as it admits them, so tracked-id windows line up). The Blox
//! generators reproduce the artifact's Python `random` draws bit for bit ([`python_random`]), so
//! the same seed gives the same jobs as Blox's `random.seed(seed)`. Traces are read by
//! [`crate::trace`], transformed by [`transform`] and numbered in arrival order.
//!
//! [`WorkloadSpec`] lists the kinds (the spec parser, `blox list` and the runner read it); each
//! kind answers the questions of [`Workload`] in its own file.

pub mod blox_bursty;
pub mod blox_synthetic;
pub mod elasticflow_generator;
pub mod gavel_generator;
pub mod pod_list;
pub mod pollux_generator;
pub use crate::core::python_random;
pub mod synergy_generator;
pub mod trace_workload;
pub mod transform;

pub use blox_bursty::{BloxBursty, BurstyParams};
pub use blox_synthetic::{BloxPhillySynthetic, PhillySyntheticParams};
pub use elasticflow_generator::ElasticflowGeneratorParams;
pub use gavel_generator::GavelGeneratorParams;
pub use pod_list::PodListParams;
pub use pollux_generator::PolluxGeneratorParams;
pub use python_random::PyRandom;
pub use synergy_generator::SynergyGeneratorParams;
pub use trace_workload::{CsvParams, CutShort, LoadedTrace, TraceJobs, TraceParams, check_simulable, describe_read};

use crate::core::{ClusterSpec, JobSpec};
use crate::policies::{Entry, InputSource};
use crate::trace::TraceError;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

/// What a kind of workload says about itself: one implementation per kind, beside its
/// generator or reader, and one line in [`workloads!`]'s list. The spec, the runner and
/// `blox validate` ask these questions and never name a kind.
pub trait Workload {
    /// How run keys, tables and figures tell it apart from other workloads of its kind (its
    /// `label:`, or parameters that differ from the defaults); `None`: the kind's name.
    fn label(&self) -> Option<String> {
        None
    }

    /// The `label:` the spec gives it, if it takes one and was given one.
    fn explicit_label(&self) -> Option<&str> {
        None
    }

    /// Whether it runs at an offered load (jobs per hour) from the grid's `loads`.
    fn needs_load(&self) -> bool;

    /// Whether its stream never ends, so that a run needs a tracking window or a horizon.
    fn is_endless(&self) -> bool {
        false
    }

    /// What serde cannot check: sources that exclude each other, ranges, valid transforms.
    fn validate(&self) -> Result<(), String> {
        Ok(())
    }

    /// The file or dataset it reads: fetched before the runs, hashed into run keys, and the
    /// size behind a sharded run's cost estimate.
    fn reads(&self) -> Option<InputSource> {
        None
    }

    /// The trace and transforms behind it, for workloads read from a trace.
    fn trace_params(&self) -> Option<TraceParams> {
        None
    }

    /// Jobs a run generates when a parameter fixes the number (`num_jobs`).
    fn job_count(&self) -> Option<u64> {
        None
    }

    /// Refuses parameters that make a run generate more than `max_jobs` jobs at the grid's
    /// highest load (beyond [`Workload::job_count`], which the caller checks).
    fn check_size(&self, _max_load: f64, _max_jobs: u64) -> Result<(), String> {
        Ok(())
    }

    /// Jobs per hour it offers at `load`, for the estimate of an endless run's jobs.
    fn jobs_per_hour(&self, load: f64) -> f64 {
        load
    }

    /// Refuses a round length it cannot run with.
    fn check_round(&self, _round_s: f64) -> Result<(), String> {
        Ok(())
    }

    /// Refuses a pairing with a cluster under a scheduler that would silently mean something
    /// else (a generator whose profiles assume another machine).
    fn check_pairing(&self, _pairing: &Pairing<'_>) -> Result<(), String> {
        Ok(())
    }

    /// The jobs of one run.
    fn jobs(&self, context: &WorkloadContext<'_>) -> Result<JobStream, WorkloadError>;
}

/// A workload paired with a cluster and a policy in a spec's grid.
#[derive(Debug, Clone, Copy)]
pub struct Pairing<'a> {
    pub cluster: &'a ClusterSpec,
    pub cluster_label: &'a str,
    /// The scheduler's registered name.
    pub scheduler: &'a str,
    pub policy_label: &'a str,
}

/// The workload kinds: a spec's `workloads:` entry is one of these (`NAME: {params}`), and
/// `blox list` shows them in this order. A new kind is its parameters type implementing
/// [`Workload`], with a `SUMMARY`, and one line here.
macro_rules! workloads {
    ($($variant:ident($params:ty) = $name:literal, $summary:expr;)*) => {
        /// One entry of a spec's `workloads:` list, e.g. `blox-bursty: {burst_multiplier: 4}`.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub enum WorkloadSpec {
            $(#[serde(rename = $name)] $variant($params),)*
        }

        impl WorkloadSpec {
            pub const ALL: &[Entry] = &[$(Entry { name: $name, summary: $summary },)*];

            pub fn name(&self) -> &'static str {
                match self {
                    $(WorkloadSpec::$variant(_) => $name,)*
                }
            }

            /// What its kind says about it.
            pub fn kind(&self) -> &dyn Workload {
                match self {
                    $(WorkloadSpec::$variant(params) => params,)*
                }
            }
        }
    };
}

workloads! {
    BloxPhillySynthetic(PhillySyntheticParams) = "blox-philly-synthetic", blox_synthetic::SUMMARY;
    BloxBursty(BurstyParams) = "blox-bursty", blox_bursty::SUMMARY;
    ElasticflowGenerator(ElasticflowGeneratorParams) = "elasticflow-generator", elasticflow_generator::SUMMARY;
    GavelGenerator(GavelGeneratorParams) = "gavel-generator", gavel_generator::SUMMARY;
    PolluxGenerator(PolluxGeneratorParams) = "pollux-generator", pollux_generator::SUMMARY;
    SynergyGenerator(SynergyGeneratorParams) = "synergy-generator", synergy_generator::SUMMARY;
    Csv(CsvParams) = "csv", trace_workload::CSV_SUMMARY;
    PodList(PodListParams) = "pod-list", pod_list::SUMMARY;
    Trace(TraceParams) = "trace", trace_workload::SUMMARY;
}

impl WorkloadSpec {
    /// Distinguishes the workloads of one spec in run keys and result tables: the name, plus the
    /// parameters when they differ from the defaults.
    pub fn label(&self) -> String {
        self.kind().label().unwrap_or_else(|| self.name().to_string())
    }

    /// The `label:` the spec gives the workload, if it gives one.
    pub fn explicit_label(&self) -> Option<&str> {
        self.kind().explicit_label()
    }

    /// Whether the workload runs at an offered load (jobs per hour) from the grid: generators
    /// always, traces when a transform rescales arrivals to the load.
    pub fn needs_load(&self) -> bool {
        self.kind().needs_load()
    }

    /// Whether the stream never ends (generators), so a run needs a tracking window or horizon.
    pub fn is_endless(&self) -> bool {
        self.kind().is_endless()
    }

    /// Checks what serde cannot: a trace names exactly one source and valid transforms.
    pub fn validate(&self) -> Result<(), String> {
        self.kind().validate()
    }

    /// The file or dataset the workload reads.
    pub fn reads(&self) -> Option<InputSource> {
        self.kind().reads()
    }

    /// Refuses a workload that would generate more than `max_jobs` jobs in a run at the grid's
    /// highest load `max_load`.
    pub fn check_size(&self, max_load: f64, max_jobs: u64) -> Result<(), String> {
        if let Some(count) = self.kind().job_count().filter(|&n| n > max_jobs) {
            return Err(format!("{}: num_jobs is {count}; a run generates at most {max_jobs} jobs", self.name()));
        }
        self.kind().check_size(max_load, max_jobs)
    }

    /// The trace and transforms behind a `csv:` or `trace:` workload; `None` for generators.
    pub fn trace_params(&self) -> Option<TraceParams> {
        self.kind().trace_params()
    }

    /// The trace behind a trace workload, read and transformed for `context`; `None` for
    /// generators.
    pub fn trace(&self, context: &WorkloadContext<'_>) -> Option<Result<LoadedTrace, WorkloadError>> {
        self.trace_params().map(|params| params.load(context))
    }

    /// The job stream of one run. Generators are infinite and need `context.load`; traces
    /// resolve a relative path against `context.base_dir`.
    pub fn jobs(&self, context: &WorkloadContext<'_>) -> Result<JobStream, WorkloadError> {
        self.kind().jobs(context)
    }
}

/// One run's jobs, pulled lazily: a generator, a trace loaded whole, or a trace a reader thread
/// streams ([`TraceJobs`]).
pub struct JobStream {
    jobs: Box<dyn Iterator<Item = JobSpec> + Send>,
    cut_short: CutShort,
}

impl JobStream {
    /// The endless or finite stream of a generator.
    pub fn generated(jobs: impl Iterator<Item = JobSpec> + Send + 'static) -> Self {
        JobStream { jobs: Box::new(jobs), cut_short: CutShort::default() }
    }

    /// The jobs of a trace, which may be cut short by a reader thread.
    pub fn traced(jobs: TraceJobs) -> Self {
        JobStream { cut_short: jobs.cut_short(), jobs: Box::new(jobs) }
    }

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

impl WorkloadContext<'_> {
    /// The grid's load for `workload`, which generates jobs at it: a positive number of jobs
    /// per hour, or an error naming the workload.
    pub fn jobs_per_hour(&self, workload: &'static str) -> Result<f64, WorkloadError> {
        match self.load {
            None => Err(WorkloadError::MissingLoad { workload }),
            Some(l) if !(l.is_finite() && l > 0.0) => Err(WorkloadError::InvalidLoad { workload, load: l }),
            Some(l) => Ok(l),
        }
    }
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
    use crate::policies::Positive;
    use std::num::NonZeroU64;

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
        assert_eq!(WorkloadSpec::ALL.len(), 9);
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
