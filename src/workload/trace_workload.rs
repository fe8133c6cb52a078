//! `trace:` workloads: a real trace file, read in any known format, transformed, then numbered in
//! arrival order for the engine.

use super::transform::{self, Transform, TransformContext};
use super::{WorkloadContext, WorkloadError};
use crate::core::JobSpec;
use crate::data;
use crate::trace::{ReadReport, Trace, TraceFormat, TraceJob, read_trace};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Parameters of a `trace:` workload: exactly one of `path` and `dataset`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceParams {
    /// The trace file, relative to the spec file's directory unless absolute.
    #[serde(default)]
    pub path: Option<PathBuf>,
    /// A file of a public dataset, `DATASET/PATH` as `blox data list` names it (e.g.
    /// `itp-raw/raw/cluster05.csv`); fetched and verified into the data cache on first use.
    #[serde(default)]
    pub dataset: Option<String>,
    /// The file's format; recognised from its header when absent.
    #[serde(default)]
    pub format: Option<TraceFormat>,
    /// Applied in order; see [`Transform`].
    #[serde(default)]
    pub transforms: Vec<Transform>,
    /// Names the workload in run keys, tables and figures (default: `trace-<file stem>`).
    #[serde(default)]
    pub label: Option<String>,
}

/// A trace after reading and transforms: its jobs in submission order and everything that
/// happened to the file's rows on the way.
#[derive(Debug, Clone)]
pub struct LoadedTrace {
    pub source: PathBuf,
    pub format: TraceFormat,
    pub jobs: Vec<TraceJob>,
    pub report: ReadReport,
}

impl TraceParams {
    /// The strict blox CSV of a `csv:` workload, without transforms.
    pub fn csv(path: PathBuf) -> Self {
        Self {
            path: Some(path),
            dataset: None,
            format: Some(TraceFormat::BloxCsv),
            transforms: Vec::new(),
            label: None,
        }
    }

    pub fn label(&self) -> String {
        self.label.clone().unwrap_or_else(|| {
            let file = match (&self.path, &self.dataset) {
                (Some(path), _) => path.clone(),
                (None, Some(reference)) => PathBuf::from(reference),
                (None, None) => PathBuf::new(),
            };
            let stem =
                file.file_stem().map_or_else(|| file.display().to_string(), |s| s.to_string_lossy().into_owned());
            format!("trace-{stem}")
        })
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.path.is_some() == self.dataset.is_some() {
            return Err(
                "a trace needs exactly one of `path` (a file) and `dataset` (e.g. `itp-raw/raw/cluster05.csv`)".into(),
            );
        }
        for t in &self.transforms {
            t.validate().map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// The local file: the path against the spec's directory, or the dataset file in the cache
    /// (fetched and verified first when it is not there, quietly: the CLI fetches a spec's
    /// datasets once, with progress, before its runs start).
    pub fn local_path(&self, context: &WorkloadContext<'_>) -> Result<PathBuf, WorkloadError> {
        match (&self.path, &self.dataset) {
            (Some(path), _) => Ok(context.base_dir.join(path)),
            (None, Some(reference)) => data::FetchOptions::from_env(None)
                .and_then(|options| data::resolve(reference, &data::FetchOptions { quiet: true, ..options }))
                .map_err(|e| WorkloadError::Prepare(format!("dataset `{reference}`: {e}"))),
            (None, None) => Err(WorkloadError::Prepare("a trace needs `path` or `dataset`".into())),
        }
    }

    /// Reads the trace and applies the transforms for one grid point.
    pub fn load(&self, context: &WorkloadContext<'_>) -> Result<LoadedTrace, WorkloadError> {
        let (source, trace) = self.read(context)?;
        self.transform(source, trace, context)
    }

    /// The trace as read, before transforms, and the local file it came from; with
    /// [`TraceParams::transform`], several grid points share one read.
    pub fn read(&self, context: &WorkloadContext<'_>) -> Result<(PathBuf, Trace), WorkloadError> {
        let source = self.local_path(context)?;
        let trace = read_trace(&source, self.format)?;
        Ok((source, trace))
    }

    /// Applies the transforms to a trace [`TraceParams::read`] returned, for one grid point.
    pub fn transform(
        &self,
        source: PathBuf,
        trace: Trace,
        context: &WorkloadContext<'_>,
    ) -> Result<LoadedTrace, WorkloadError> {
        let mut report = trace.report;
        let transform_context =
            TransformContext { seed: context.seed, load: context.load, cluster_gpus: context.cluster_gpus };
        let jobs = transform::apply(&self.transforms, trace.jobs, transform_context, &mut report)
            .map_err(|e| WorkloadError::Prepare(format!("{}: {e}", source.display())))?;
        Ok(LoadedTrace { source, format: trace.format, jobs, report })
    }
}

impl LoadedTrace {
    /// What reading and transforming did, one line per reason, for `blox validate` and `blox run`.
    pub fn describe(&self, label: &str) -> String {
        let r = &self.report;
        let mut text = format!(
            "{label}: {} format, {} rows read, {} jobs kept ({})\n",
            self.format.name(),
            r.rows_read,
            self.jobs.len(),
            self.source.display()
        );
        for (what, counts) in [("dropped", &r.dropped), ("adjusted", &r.adjusted)] {
            for c in counts {
                text += &format!("  {what} {} ({}: {})\n", c.rows, c.step, c.reason);
            }
        }
        text
    }

    /// The engine's jobs: ids 0, 1, ... in submission order, work = duration at the trace's GPU
    /// count. Fails when some job has no duration (formats that count iterations only need a
    /// throughput model to become simulable).
    pub fn into_job_stream(self) -> Result<impl Iterator<Item = JobSpec> + Send, WorkloadError> {
        let missing = self.jobs.iter().filter(|j| j.duration_s.is_none()).count();
        if missing > 0 {
            return Err(WorkloadError::Prepare(format!(
                "{}: {missing} of {} jobs have no duration (the `{}` format counts work in iterations or not at all); \
                 add `redraw-durations` to draw them, or use a trace with durations",
                self.source.display(),
                self.jobs.len(),
                self.format.name()
            )));
        }
        if self.jobs.is_empty() {
            return Err(WorkloadError::Prepare(format!(
                "{}: no job is left to simulate ({} rows read, {} dropped)",
                self.source.display(),
                self.report.rows_read,
                self.report.total_dropped()
            )));
        }
        Ok(self.jobs.into_iter().enumerate().map(|(i, job)| JobSpec {
            id: i as u64,
            arrival: job.submit_s,
            submitted: job.submit_s,
            gpus: job.gpus,
            work: job.duration_s.unwrap_or_default(),
            model: job.model,
            deadline: job.deadline_s,
            iterations: job.iterations,
            batch_size: job.batch_size,
            best_effort: job.best_effort.unwrap_or(false),
            iteration_s: job.stages.map(|stages| stages.iteration_s),
            stage_times: job.stages.map(|stages| vec![stages.storage_cpu_s, stages.gpu_s, stages.network_s]),
            priority: job.priority,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::StageTimes;

    #[test]
    fn a_muri_job_keeps_its_solo_iteration_time_and_stage_times() {
        let mut job = TraceJob::new("7", 30.0, 2);
        job.duration_s = Some(600.0);
        job.iterations = Some(1000.0);
        job.stages = Some(StageTimes { iteration_s: 0.59, storage_cpu_s: 0.1, gpu_s: 0.45, network_s: 0.05 });
        let trace = LoadedTrace {
            source: PathBuf::from("t.csv"),
            format: TraceFormat::Muri,
            jobs: vec![job],
            report: ReadReport::default(),
        };
        let spec = trace.into_job_stream().unwrap().next().unwrap();
        assert_eq!((spec.iteration_s, spec.stage_times), (Some(0.59), Some(vec![0.1, 0.45, 0.05])));
    }
}
