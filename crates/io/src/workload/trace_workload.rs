//! `trace:` workloads: a real trace file, read in any known format, transformed, then numbered in
//! arrival order for the engine.

use super::gavel_generator::{self, REFERENCE_GPU, ThroughputFile};
use super::transform::{self, PerJob, Transform, TransformContext};
use super::{JobStream, Workload};
use super::{WorkloadContext, WorkloadError};
use crate::core::{JobSpec, MILLI_PER_GPU};
use crate::data;
use crate::policies::InputSource;
use crate::profiles::gavel::{GavelThroughputs, JobKey};
use crate::trace::{Detection, ReadReport, Trace, TraceError, TraceFormat, TraceJob, read_trace, stream_trace};
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// What `blox list` says about `trace`.
pub const SUMMARY: &str =
    "a real trace by {path} or {dataset: name/file}, any format (`blox trace formats`), with {transforms: [...]}";
/// What `blox list` says about `csv`.
pub const CSV_SUMMARY: &str = "the trace {path} with columns job_id, arrival_s, gpus, duration_s and optional model";

/// Parameters of `csv`: blox's own strict CSV, without transforms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CsvParams {
    /// The trace file, relative to the spec file's directory unless absolute.
    pub path: PathBuf,
}

impl Workload for CsvParams {
    /// The file stem keeps labels short; two traces with one stem must be told apart by the spec
    /// author (the spec rejects duplicate labels).
    fn label(&self) -> Option<String> {
        let stem = self.path.file_stem();
        Some(format!(
            "csv-{}",
            stem.map_or_else(|| self.path.display().to_string(), |s| s.to_string_lossy().into_owned())
        ))
    }

    fn needs_load(&self) -> bool {
        false
    }

    fn reads(&self) -> Option<InputSource> {
        Some(InputSource::Path(self.path.clone()))
    }

    fn trace_params(&self) -> Option<TraceParams> {
        Some(TraceParams::csv(self.path.clone()))
    }

    fn jobs(&self, context: &WorkloadContext<'_>) -> Result<JobStream, WorkloadError> {
        Ok(JobStream::traced(TraceParams::csv(self.path.clone()).job_stream(context)?))
    }
}

impl Workload for TraceParams {
    fn label(&self) -> Option<String> {
        Some(TraceParams::label(self))
    }

    fn explicit_label(&self) -> Option<&str> {
        self.label.as_deref()
    }

    /// When a transform rescales arrivals to the grid's load.
    fn needs_load(&self) -> bool {
        self.transforms.iter().any(|t| t.needs_load())
    }

    fn validate(&self) -> Result<(), String> {
        TraceParams::validate(self)
    }

    fn reads(&self) -> Option<InputSource> {
        match (&self.path, &self.dataset) {
            (Some(path), _) => Some(InputSource::Path(path.clone())),
            (None, Some(reference)) => Some(InputSource::Dataset(reference.clone())),
            (None, None) => None,
        }
    }

    fn trace_params(&self) -> Option<TraceParams> {
        Some(self.clone())
    }

    fn jobs(&self, context: &WorkloadContext<'_>) -> Result<JobStream, WorkloadError> {
        Ok(JobStream::traced(self.job_stream(context)?))
    }
}

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
        let mut trace = read_trace(&source, self.format)?;
        if let Some(mut durations) = GavelDurations::for_format(trace.format)? {
            for job in &mut trace.jobs {
                durations.fill(&source, job)?;
            }
            durations.report(&mut trace.report);
        }
        Ok((source, trace))
    }

    /// Whether runs can read this trace streaming: every transform decides job by job
    /// ([`Transform::is_per_job`]). The file must also be in submission order, which
    /// [`TraceParams::stream`] finds out.
    pub fn streams(&self) -> bool {
        self.transforms.iter().all(Transform::is_per_job)
    }

    /// Reads the trace at `source` one job at a time through the transforms (all per job, see
    /// [`TraceParams::streams`]), handing each kept job to `keep` in file order; holds no job.
    /// The report's `jobs_kept` counts the kept jobs; `in_order` says whether the file was in
    /// submission order (if not, the jobs were not either, and the stream is not what a run
    /// may replay).
    pub fn stream(
        &self,
        source: &Path,
        context: &WorkloadContext<'_>,
        keep: &mut dyn FnMut(TraceJob) -> Result<(), TraceError>,
    ) -> Result<crate::trace::StreamedTrace, WorkloadError> {
        let mut pipeline = PerJob::new(&self.transforms, transform_context(context))
            .map_err(|e| WorkloadError::Prepare(format!("{}: {e}", source.display())))?;
        let mut durations = match self.format_of(source) {
            Some(format) => GavelDurations::for_format(format)?,
            None => None,
        };
        let mut kept = 0u64;
        let mut read = stream_trace(source, self.format, &mut |mut job| {
            if let Some(durations) = &mut durations {
                durations.fill(source, &mut job)?;
            }
            match pipeline.apply(job) {
                Some(job) => {
                    kept += 1;
                    keep(job)
                }
                None => Ok(()),
            }
        })?;
        if let Some(durations) = &durations {
            durations.report(&mut read.report);
        }
        pipeline.finish(&mut read.report);
        read.report.jobs_kept = kept;
        Ok(read)
    }

    /// One run's jobs. A streamable trace ([`TraceParams::streams`]) in submission order is read
    /// twice without being held: once to check it (order, durations, not empty), then on a
    /// reader thread while the run pulls its jobs; any other trace is read whole and sorted.
    pub fn job_stream(&self, context: &WorkloadContext<'_>) -> Result<TraceJobs, WorkloadError> {
        if self.streams() {
            let source = self.local_path(context)?;
            let mut missing = 0u64;
            let checked = self.stream(&source, context, &mut |job| {
                missing += u64::from(job.duration_s.is_none());
                Ok(())
            })?;
            if checked.in_order {
                check_simulable(&source, checked.format, &checked.report, missing)?;
                return Ok(TraceJobs::streamed(self.clone(), source, context, checked.report.jobs_kept));
            }
        }
        let loaded = self.load(context)?;
        Ok(TraceJobs::Loaded(Box::new(loaded.into_job_stream()?)))
    }

    /// The file's format: the spec's, or the one its head shows; `None` when it shows none
    /// (reading the file then says why).
    fn format_of(&self, source: &Path) -> Option<TraceFormat> {
        if self.format.is_some() {
            return self.format;
        }
        let mut head = Vec::with_capacity(FORMAT_HEAD_BYTES);
        std::fs::File::open(source).ok()?.take(FORMAT_HEAD_BYTES as u64).read_to_end(&mut head).ok()?;
        match TraceFormat::detect(&head) {
            Detection::Format(format) => Some(format),
            _ => None,
        }
    }

    /// Applies the transforms to a trace [`TraceParams::read`] returned, for one grid point.
    pub fn transform(
        &self,
        source: PathBuf,
        trace: Trace,
        context: &WorkloadContext<'_>,
    ) -> Result<LoadedTrace, WorkloadError> {
        let mut report = trace.report;
        let jobs = transform::apply(&self.transforms, trace.jobs, transform_context(context), &mut report)
            .map_err(|e| WorkloadError::Prepare(format!("{}: {e}", source.display())))?;
        Ok(LoadedTrace { source, format: trace.format, jobs, report })
    }
}

impl LoadedTrace {
    /// What reading and transforming did, one line per reason, for `blox validate` and `blox run`.
    pub fn describe(&self, label: &str) -> String {
        describe_read(label, &self.source, self.format, &self.report)
    }

    /// The engine's jobs: ids 0, 1, ... in submission order, work = duration at the trace's GPU
    /// count. Fails when some job has no duration (formats that count iterations only need a
    /// throughput model to become simulable).
    pub fn into_job_stream(self) -> Result<impl Iterator<Item = JobSpec> + Send, WorkloadError> {
        let missing = self.jobs.iter().filter(|j| j.duration_s.is_none()).count() as u64;
        check_simulable(
            &self.source,
            self.format,
            &ReadReport { jobs_kept: self.jobs.len() as u64, ..self.report },
            missing,
        )?;
        Ok(self.jobs.into_iter().enumerate().map(|(i, job)| job_spec(i as u64, job)))
    }
}

fn transform_context(context: &WorkloadContext<'_>) -> TransformContext {
    TransformContext { seed: context.seed, load: context.load, cluster_gpus: context.cluster_gpus }
}

/// What reading and transforming a trace did, one line per reason, for `blox validate` and
/// `blox run`.
pub fn describe_read(label: &str, source: &Path, format: TraceFormat, r: &ReadReport) -> String {
    let mut text = format!(
        "{label}: {} format, {} rows read, {} jobs kept ({})\n",
        format.name(),
        r.rows_read,
        r.jobs_kept,
        source.display()
    );
    for (what, counts) in [("dropped", &r.dropped), ("adjusted", &r.adjusted)] {
        for c in counts {
            text += &format!("  {what} {} ({}: {})\n", c.rows, c.step, c.reason);
        }
    }
    text
}

/// Fails when some kept job has no duration (formats that count iterations only need a
/// throughput model to become simulable; formats whose work is an application's training target
/// need none, [`TraceFormat::work_from_application`]) or no job is kept.
pub fn check_simulable(
    source: &Path,
    format: TraceFormat,
    report: &ReadReport,
    missing: u64,
) -> Result<(), WorkloadError> {
    if missing > 0 && !format.work_from_application() {
        return Err(WorkloadError::Prepare(format!(
            "{}: {missing} of {} jobs have no duration (the `{}` format counts work in iterations or not at all); \
             add `redraw-durations` to draw them, or use a trace with durations",
            source.display(),
            report.jobs_kept,
            format.name()
        )));
    }
    if report.jobs_kept == 0 {
        return Err(WorkloadError::Prepare(format!(
            "{}: no job is left to simulate ({} rows read, {} dropped)",
            source.display(),
            report.rows_read,
            report.total_dropped()
        )));
    }
    Ok(())
}

/// The engine's job `i` (ids 0, 1, ... in submission order): work = duration at the trace's GPU
/// count.
pub fn job_spec(i: u64, job: TraceJob) -> JobSpec {
    JobSpec {
        id: i,
        arrival: job.submit_s,
        submitted: job.submit_s,
        gpus: job.gpus,
        gpu_milli: job
            .gpu_share
            .map(|share| (share * f64::from(MILLI_PER_GPU)).round() as u32)
            .filter(|&milli| milli > 0 && milli < MILLI_PER_GPU),
        gpu_models: Vec::new(),
        cpus: None,
        memory_gb: None,
        work: job.duration_s.unwrap_or_default(),
        model: job.model,
        deadline: job.deadline_s,
        iterations: job.iterations,
        batch_size: job.batch_size,
        best_effort: job.best_effort.unwrap_or(false),
        iteration_s: job.stages.map(|stages| stages.iteration_s),
        stage_times: job.stages.map(|stages| vec![stages.storage_cpu_s, stages.gpu_s, stages.network_s]),
        priority: job.priority,
    }
}

/// Bytes of a file's head that show its format (as many as the trace readers look at).
const FORMAT_HEAD_BYTES: usize = 64 * 1024;

/// Durations of a Gavel trace's jobs, which give steps, not seconds: a job runs its
/// `total_steps` at its job type's V100 throughput in Gavel's simulation oracle, as
/// `gavel-generator` defines its jobs' work (there: steps = duration x V100 rate), so that every
/// policy can run it; Gavel's own policies count its steps.
struct GavelDurations {
    oracle: GavelThroughputs,
    filled: u64,
}

impl GavelDurations {
    /// The oracle for a trace of `format` (read from the `gavel-throughputs` dataset), or `None`
    /// for formats that give durations.
    fn for_format(format: TraceFormat) -> Result<Option<Self>, WorkloadError> {
        if format != TraceFormat::Gavel {
            return Ok(None);
        }
        let oracle = gavel_generator::read_throughputs(ThroughputFile::Simulation)?;
        Ok(Some(Self { oracle, filled: 0 }))
    }

    /// Gives `job` from `file` its V100 duration; an error when its job type has no positive
    /// V100 throughput at its GPU count.
    fn fill(&mut self, file: &Path, job: &mut TraceJob) -> Result<(), TraceError> {
        let (Some(steps), Some(job_type), None) = (job.iterations, &job.model, job.duration_s) else { return Ok(()) };
        let key = JobKey { job_type: job_type.clone(), scale_factor: job.gpus };
        match self.oracle.isolated(REFERENCE_GPU, &key) {
            Some(rate) if rate > 0.0 => {
                job.duration_s = Some(steps / rate);
                self.filled += 1;
                Ok(())
            }
            _ => Err(TraceError {
                file: file.to_owned(),
                line: None,
                column: None,
                message: format!(
                    "job `{}`: job type `{job_type}` at {} GPU(s) has no {REFERENCE_GPU} throughput in Gavel's \
                     table ({}), so its steps give no duration",
                    job.source_id,
                    job.gpus,
                    ThroughputFile::Simulation.dataset_reference()
                ),
            }),
        }
    }

    fn report(&self, report: &mut ReadReport) {
        if self.filled > 0 {
            report.adjust_rows(
                "gavel",
                "duration = total_steps at the job type's V100 throughput (Gavel's simulation oracle)",
                self.filled,
            );
        }
    }
}

/// Jobs a reader thread hands over at a time (one wake-up of the run per batch, not per job)...
const STREAM_BATCH: usize = 1024;
/// ... and batches it keeps ready ahead of the run.
const STREAM_AHEAD: usize = 4;

/// A trace workload's jobs for one run: loaded whole, or streamed from a reader thread.
pub enum TraceJobs {
    Loaded(Box<dyn Iterator<Item = JobSpec> + Send>),
    Streamed(StreamedJobs),
}

/// Jobs a reader thread streams from the file while the run pulls them. If reading fails part
/// way (the file changed since it was checked, a disk error), the stream ends early and the
/// failure is kept for the run to report ([`TraceJobs::cut_short`]): a run is never silently
/// shorter than its trace.
pub struct StreamedJobs {
    batches: Receiver<Vec<JobSpec>>,
    batch: std::vec::IntoIter<JobSpec>,
    reader: Option<JoinHandle<Result<(), WorkloadError>>>,
    cut_short: CutShort,
}

/// Why a streamed trace ended before its file did, once it has; shared between the stream and
/// the run that pulls it.
#[derive(Debug, Clone, Default)]
pub struct CutShort(Arc<Mutex<Option<String>>>);

impl CutShort {
    pub fn reason(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn set(&self, reason: String) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(reason);
    }
}

/// The emit error a reader thread returns once the run no longer wants jobs (it ended before
/// the trace did): not a failure.
const RUN_ENDED: &str = "the run took no more jobs";

impl TraceJobs {
    /// Streams `params`' trace at `source`, which the check found to hold `expected` jobs.
    fn streamed(params: TraceParams, source: PathBuf, context: &WorkloadContext<'_>, expected: u64) -> Self {
        let (load, seed, base_dir, cluster_gpus) =
            (context.load, context.seed, context.base_dir.to_owned(), context.cluster_gpus);
        let (sender, batches): (SyncSender<Vec<JobSpec>>, _) = sync_channel(STREAM_AHEAD);
        let reader = std::thread::spawn(move || {
            let context = WorkloadContext { load, seed, base_dir: &base_dir, cluster_gpus };
            let run_ended = || TraceError { file: source.clone(), line: None, column: None, message: RUN_ENDED.into() };
            let mut batch = Vec::with_capacity(STREAM_BATCH);
            let mut next_id = 0;
            let read = params.stream(&source, &context, &mut |job| {
                batch.push(job_spec(next_id, job));
                next_id += 1;
                if batch.len() == STREAM_BATCH {
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(STREAM_BATCH));
                    sender.send(full).map_err(|_| run_ended())?;
                }
                Ok(())
            })?;
            if !batch.is_empty() {
                sender.send(batch).map_err(|_| run_ended())?;
            }
            if !read.in_order || next_id != expected {
                return Err(WorkloadError::Prepare(format!(
                    "{}: the file changed while the run read it ({expected} jobs in submission order when checked, \
                     {next_id} now{})",
                    source.display(),
                    if read.in_order { "" } else { ", out of order" }
                )));
            }
            Ok(())
        });
        TraceJobs::Streamed(StreamedJobs {
            batches,
            batch: Vec::new().into_iter(),
            reader: Some(reader),
            cut_short: CutShort::default(),
        })
    }

    /// Set when a streamed trace could not be read to its end: the run that pulled it must fail.
    pub fn cut_short(&self) -> CutShort {
        match self {
            TraceJobs::Loaded(_) => CutShort::default(),
            TraceJobs::Streamed(s) => s.cut_short.clone(),
        }
    }
}

impl Iterator for TraceJobs {
    type Item = JobSpec;

    fn next(&mut self) -> Option<JobSpec> {
        match self {
            TraceJobs::Loaded(jobs) => jobs.next(),
            TraceJobs::Streamed(s) => loop {
                if let Some(job) = s.batch.next() {
                    return Some(job);
                }
                let Ok(batch) = s.batches.recv() else {
                    s.finish();
                    break None;
                };
                s.batch = batch.into_iter();
            },
        }
    }
}

impl StreamedJobs {
    /// The end of the stream: the reader read the file to its end, or failed.
    fn finish(&mut self) {
        let failure = match self.reader.take().map(JoinHandle::join) {
            Some(Ok(Err(WorkloadError::Trace(e)))) if e.message == RUN_ENDED => None,
            Some(Ok(Err(e))) => Some(e.to_string()),
            Some(Err(_)) => Some("the trace reader thread panicked".into()),
            Some(Ok(Ok(()))) | None => None,
        };
        if let Some(failure) = failure {
            self.cut_short.set(failure);
        }
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

    fn params(transforms: &str) -> TraceParams {
        serde_saphyr::from_str(&format!("{{path: t.csv, transforms: {transforms}}}")).unwrap()
    }

    fn context(dir: &Path) -> WorkloadContext<'_> {
        WorkloadContext { load: None, seed: 1, base_dir: dir, cluster_gpus: 6 }
    }

    /// `n` jobs of blox-csv, a job every 10 s, 1-8 GPUs, 100-1,000 s.
    fn write_trace(dir: &Path, n: u64, shuffle_first_two: bool) {
        let mut text = String::from("job_id,arrival_s,gpus,duration_s\n");
        for i in 0..n {
            let arrival = if shuffle_first_two && i < 2 { 10 * (1 - i) } else { 10 * i };
            text += &format!("j{i},{arrival},{},{}\n", 1 + i % 8, 100 + (i * 37) % 900);
        }
        std::fs::write(dir.join("t.csv"), text).unwrap();
    }

    fn streamed(jobs: &TraceJobs) -> bool {
        matches!(jobs, TraceJobs::Streamed(_))
    }

    /// Per-job transforms give the same jobs and the same report read streaming as read whole.
    #[test]
    fn a_streamed_trace_equals_the_loaded_one() {
        let dir = tempfile::tempdir().unwrap();
        write_trace(dir.path(), 5000, false);
        let params = params(
            "[{window: {start_h: 0.5, end_h: 12}}, {filter: {min_duration_s: 150, max_gpus: 7}}, {cap-gpus: cluster}, {first: 3000}]",
        );
        assert!(params.streams());
        let context = context(dir.path());
        let loaded = params.load(&context).unwrap();
        let jobs = params.job_stream(&context).unwrap();
        assert!(streamed(&jobs));
        let streamed_jobs: Vec<JobSpec> = jobs.collect();
        let whole: Vec<JobSpec> = loaded.clone().into_job_stream().unwrap().collect();
        assert_eq!(streamed_jobs, whole);
        assert!(whole.len() > 2000 && whole.iter().all(|j| j.gpus <= 6), "the transforms did something");
        let read = params.stream(&dir.path().join("t.csv"), &context, &mut |_| Ok(())).unwrap();
        assert_eq!(read.report, loaded.report);
    }

    /// A file out of submission order is read whole and sorted, as before streaming existed;
    /// transforms that need the whole trace never stream.
    #[test]
    fn traces_out_of_order_or_with_whole_trace_transforms_are_loaded() {
        let dir = tempfile::tempdir().unwrap();
        write_trace(dir.path(), 50, true);
        let jobs = params("[]").job_stream(&context(dir.path())).unwrap();
        assert!(!streamed(&jobs));
        let arrivals: Vec<f64> = jobs.map(|j| j.arrival).take(3).collect();
        assert_eq!(arrivals, [0.0, 10.0, 20.0]);
        write_trace(dir.path(), 50, false);
        let rescaled = params("[{rescale-arrivals: {jobs_per_hour: 60}}]");
        assert!(!rescaled.streams());
        assert!(!streamed(&rescaled.job_stream(&context(dir.path())).unwrap()));
    }

    /// A file that changes under a streaming run ends the stream early with the reason kept, so
    /// the run fails instead of silently simulating fewer jobs; a run that stops pulling before
    /// the trace ends is no failure.
    #[test]
    fn a_stream_cut_short_says_why_and_an_early_end_is_no_failure() {
        let dir = tempfile::tempdir().unwrap();
        write_trace(dir.path(), 100_000, false);
        let jobs = params("[]").job_stream(&context(dir.path())).unwrap();
        let cut_short = jobs.cut_short();
        // The reader waits a few batches ahead; the file's last bytes are far beyond them.
        let path = dir.path().join("t.csv");
        let length = std::fs::metadata(&path).unwrap().len();
        let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(length - 12)).unwrap();
        std::io::Write::write_all(&mut file, b"x,oops,1,1\n\n").unwrap();
        drop(file);
        let count = jobs.count();
        assert!(count < 100_000, "{count} jobs");
        let reason = cut_short.reason().expect("the stream says why it ended");
        assert!(reason.contains("t.csv:"), "{reason}");

        // Shortened to whole rows: every row still reads, but the count no longer matches.
        write_trace(dir.path(), 100_000, false);
        let jobs = params("[]").job_stream(&context(dir.path())).unwrap();
        let cut_short = jobs.cut_short();
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let ninety_thousand_rows = text.match_indices('\n').nth(90_000).unwrap().0 + 1;
        file.set_len(ninety_thousand_rows as u64).unwrap();
        assert_eq!(jobs.count(), 90_000);
        let reason = cut_short.reason().expect("the stream says why it ended");
        assert!(reason.contains("100000 jobs in submission order when checked, 90000 now"), "{reason}");

        write_trace(dir.path(), 100_000, false);
        let mut jobs = params("[]").job_stream(&context(dir.path())).unwrap();
        let cut_short = jobs.cut_short();
        assert_eq!(jobs.next().map(|j| j.id), Some(0));
        drop(jobs);
        assert_eq!(cut_short.reason(), None);
    }
}
