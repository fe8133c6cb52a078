//! An elastic job as the event-driven policies track it: iterations rather than seconds, a GPU
//! count that changes at every decision, an allocation plan and a planned end.

use super::placement::SetId;
use super::step::Allocation;
use crate::core::{JobId, JobSpec, RunError, SimTime};
use crate::profiles::{ScalingCurve, ThroughputTable};

/// Index of a job in the run's job vector (submission order).
pub type JobIdx = usize;

/// The models ElasticFlow's `models.get_model` knows. The original runs any other name as
/// `resnet50` (`docs/elasticflow-semantics.md` §1.1); blox refuses such a job instead, naming it
/// and its model, since a silent substitute makes every number of the run wrong (no published
/// trace has another name, so the reproductions are unaffected).
pub const KNOWN_MODELS: [&str; 11] = [
    "vgg16",
    "resnet50",
    "inception3",
    "bert",
    "gpt2",
    "deepspeech2",
    "cifar10",
    "imagenet",
    "ncf",
    "yolov3",
    "resnet50_cifar10",
];

/// Where a job is in its life (ElasticFlow's job lists).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobStatus {
    /// Not yet seen by a decision.
    Arrived,
    /// Runnable, never started.
    Pending,
    /// Started (it may hold 0 GPUs for a while).
    Running,
    Finished,
    /// Refused at admission.
    Declined,
}

/// One job of an event-driven run.
#[derive(Debug, Clone)]
pub struct ElasticJob {
    pub id: JobId,
    pub submit: SimTime,
    /// GPUs the trace asks for (non-elastic baselines run at this size).
    pub requested_gpus: u32,
    /// Run time at `requested_gpus`, in seconds (non-elastic baselines count progress in it).
    pub duration: f64,
    /// Absolute deadline; infinite for best-effort jobs, which are never late nor counted.
    pub ddl: SimTime,
    pub best_effort: bool,
    /// The trace's model name as given (ElasticFlow's per-model size caps read it before the
    /// unknown-name fallback) and the global batch size.
    pub model: String,
    pub batch_size: u32,
    pub curve: ScalingCurve,
    /// Largest GPU count the job may get (§1.3: the largest measured level, at most 64 and at
    /// most the global batch).
    pub max_gpus: u32,
    pub iterations: f64,
    pub iter_left: f64,
    /// GPUs held now.
    pub gpus: u32,
    pub allocations: Allocation,
    /// Planned end; the early-finish rule of `run_all_jobs` may overwrite it.
    pub end_time: SimTime,
    /// Unaligned planned end, for planners that align `end_time` to the slot grid (MSS).
    pub real_end_time: Option<SimTime>,
    pub start_time: Option<SimTime>,
    /// Seconds of the next progress step lost to reconfiguration.
    pub overhead: f64,
    /// Seconds of progress, for the non-elastic baselines that count time against `duration`
    /// rather than iterations.
    pub executed: f64,
    pub preemptions: u32,
    /// Times a starvation rule moved the job back to the top queue (Tiresias' `promote`).
    pub promotions: u32,
    pub status: JobStatus,
    pub node_set: Option<SetId>,
    pub in_cache: bool,
    /// Whether the job missed its deadline, once finished or declined.
    pub late: Option<bool>,
}

impl ElasticJob {
    /// The job of `spec` with its curve from `table`; fails, naming the job, when the spec lacks
    /// what an elastic policy needs or the table has no curve for it.
    pub fn new(spec: &JobSpec, table: &ThroughputTable) -> Result<Self, RunError> {
        let invalid = |reason: String| RunError::InvalidJob { id: spec.id, reason };
        let iterations = spec
            .iterations
            .ok_or_else(|| invalid("has no iteration count (event policies run jobs by iterations)".into()))?;
        let batch = spec.batch_size.ok_or_else(|| invalid("has no global batch size".into()))?;
        let model = spec.model.as_deref().ok_or_else(|| invalid("has no model name".into()))?;
        if !KNOWN_MODELS.contains(&model) {
            return Err(invalid(format!(
                "model `{model}` is not one of ElasticFlow's models ({}); the original would silently run it as resnet50",
                KNOWN_MODELS.join(", ")
            )));
        }
        let known = model;
        let curve = table.curve(known, batch).ok_or_else(|| {
            invalid(format!(
                "the throughput table `{}` has no curve for {known} at global batch {batch}",
                table.source()
            ))
        })?;
        let max_gpus = curve.levels().filter(|&g| g <= 64 && g <= batch).last().ok_or_else(|| {
            invalid(format!("{known} at global batch {batch} runs at no GPU count of `{}`", table.source()))
        })?;
        let best_effort = spec.best_effort || spec.deadline.is_none();
        Ok(Self {
            id: spec.id,
            submit: spec.submitted,
            requested_gpus: spec.gpus,
            duration: spec.work,
            ddl: if best_effort { f64::INFINITY } else { spec.deadline.unwrap_or(f64::INFINITY) },
            best_effort,
            model: model.to_owned(),
            batch_size: batch,
            curve: curve.clone(),
            max_gpus,
            iterations,
            iter_left: iterations,
            gpus: 0,
            allocations: Allocation::default(),
            end_time: 0.0,
            real_end_time: None,
            start_time: None,
            overhead: 0.0,
            executed: 0.0,
            preemptions: 0,
            promotions: 0,
            status: JobStatus::Arrived,
            node_set: None,
            in_cache: false,
            late: None,
        })
    }

    /// Iterations per second at `gpus`, or an error naming the job when unmeasured.
    pub fn rate(&self, gpus: u32) -> Result<f64, RunError> {
        self.curve.iterations_per_s(gpus).ok_or_else(|| RunError::InvalidJob {
            id: self.id,
            reason: format!("no measured throughput at {gpus} GPUs"),
        })
    }

    /// The largest level of at most `gpus` GPUs (`last_level(job, gpus + 1)` without the
    /// `max_gpus` cap), 0 if none.
    pub fn level_within(&self, gpus: i64) -> u32 {
        self.curve.levels().take_while(|&g| i64::from(g) <= gpus).last().unwrap_or(0)
    }
}
