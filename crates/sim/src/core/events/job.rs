//! A job as the event-driven policies track it: iterations rather than seconds, a GPU count that
//! changes at every decision, an allocation plan and a planned end. Jobs with ElasticFlow's
//! throughput curve can be resized; jobs without one run whole at their own size ([`Speed`]).

use super::step::Allocation;
use crate::core::{GpuId, JobLife, JobSpec, RunError, SimTime};
use crate::profiles::{ScalingCurve, ThroughputTable};

/// Index of a job in the run's job vector (submission order).
pub type JobIdx = usize;

/// The models ElasticFlow's `models.get_model` knows. The original runs any other name as
/// `resnet50` (`docs/elasticflow-semantics.md` §1.1); in blox such a job has no curve, and the
/// policies that need one refuse it, naming it and its model, since a silent substitute makes
/// every number of the run wrong (no published ElasticFlow trace has another name, so the
/// reproductions are unaffected).
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

/// How fast a job runs, which decides the policies that can run it.
#[derive(Debug, Clone)]
pub enum Speed {
    /// Measured at several GPU counts: elastic policies may resize the job.
    Scaling(Scaling),
    /// No throughput curve: the job runs only on the GPUs it asks for, at `iteration_s` seconds
    /// per iteration (whole-job policies count its progress against the trace's duration).
    /// `no_curve` says why it has no curve, for the policies that need one.
    Solo { iteration_s: f64, no_curve: String },
}

/// A job's measured scaling: ElasticFlow's curve for its model and global batch.
#[derive(Debug, Clone)]
pub struct Scaling {
    pub curve: ScalingCurve,
    /// Largest GPU count the job may get (§1.3: the largest measured level, at most 64 and at
    /// most the global batch).
    pub max_gpus: u32,
}

impl Scaling {
    /// The GPU counts the job can run at, ascending (ElasticFlow's levels).
    pub fn levels(&self) -> impl Iterator<Item = u32> + '_ {
        self.curve.levels()
    }

    /// The largest level of at most `gpus` GPUs (`last_level(job, gpus + 1)` without the
    /// `max_gpus` cap), 0 if none.
    pub fn level_within(&self, gpus: i64) -> u32 {
        self.levels().take_while(|&g| i64::from(g) <= gpus).last().unwrap_or(0)
    }
}

/// One job of an event-driven run: the workload's spec, what the run accounts for it (shared
/// with the round engine) and the state event policies plan with.
#[derive(Debug, Clone)]
pub struct EventJob {
    /// Identity, demand, deadline and profile. `best_effort` is also set for jobs without a
    /// deadline (ElasticFlow's rule: they are never late nor counted).
    pub spec: JobSpec,
    pub life: JobLife,
    pub speed: Speed,
    /// Iterations left (a job without a curve or an iteration count does one per second).
    pub iter_left: f64,
    /// GPUs held now.
    pub gpus: u32,
    pub allocations: Allocation,
    /// Planned end; the early-finish rule of `run_all_jobs` may overwrite it.
    pub end_time: SimTime,
    /// Unaligned planned end, for planners that align `end_time` to the slot grid (MSS).
    pub real_end_time: Option<SimTime>,
    /// Seconds of the next progress step lost to reconfiguration.
    pub overhead: f64,
    pub status: JobStatus,
    /// The GPUs it holds in the engine's cluster (the engine's placement chose them); empty when
    /// unplaced.
    pub held: Vec<GpuId>,
    /// Whether the placement had used this job's placement before, at the last decision (a
    /// cached configuration restarts cheaper: ElasticFlow's rank cache).
    pub in_cache: bool,
}

impl EventJob {
    /// The job of `spec`, with its curve from `table` when it has one (see [`Speed`]).
    pub fn new(mut spec: JobSpec, table: &ThroughputTable) -> Self {
        spec.best_effort |= spec.deadline.is_none();
        let (speed, iterations) = match measured(&spec, table) {
            Ok((scaling, iterations)) => (Speed::Scaling(scaling), iterations),
            Err(no_curve) => {
                let (iterations, iteration_s) = solo(&spec);
                (Speed::Solo { iteration_s, no_curve }, iterations)
            }
        };
        Self {
            spec,
            life: JobLife::default(),
            speed,
            iter_left: iterations,
            gpus: 0,
            allocations: Allocation::default(),
            end_time: 0.0,
            real_end_time: None,
            overhead: 0.0,
            status: JobStatus::Arrived,
            held: Vec::new(),
            in_cache: false,
        }
    }

    /// Absolute deadline; infinite for best-effort jobs.
    pub fn deadline(&self) -> SimTime {
        self.spec.deadline.filter(|_| !self.spec.best_effort).unwrap_or(f64::INFINITY)
    }

    /// The job's measured scaling, or an error naming the job and why it has none.
    /// Why the job has no throughput curve to be resized along, if it has none.
    pub fn require_curve(&self) -> Result<(), String> {
        match &self.speed {
            Speed::Scaling(_) => Ok(()),
            Speed::Solo { no_curve, .. } => Err(no_curve.clone()),
        }
    }

    pub fn scaling(&self) -> Result<&Scaling, RunError> {
        match &self.speed {
            Speed::Scaling(scaling) => Ok(scaling),
            Speed::Solo { no_curve, .. } => Err(RunError::InvalidJob { id: self.spec.id, reason: no_curve.clone() }),
        }
    }

    /// Iterations per second at `gpus`, or an error naming the job when unmeasured (a job
    /// without a curve runs only at its own size).
    pub fn rate(&self, gpus: u32) -> Result<f64, RunError> {
        let rate = match &self.speed {
            Speed::Scaling(scaling) => scaling.curve.iterations_per_s(gpus),
            Speed::Solo { iteration_s, .. } => (gpus == self.spec.gpus).then(|| 1.0 / iteration_s),
        };
        rate.ok_or_else(|| RunError::InvalidJob {
            id: self.spec.id,
            reason: format!("no measured throughput at {gpus} GPUs"),
        })
    }
}

/// The curve of `spec` in `table` and its iteration count, or why there is none: what an
/// elastic policy needs, checked in this order.
fn measured(spec: &JobSpec, table: &ThroughputTable) -> Result<(Scaling, f64), String> {
    let iterations =
        spec.iterations.ok_or("has no iteration count (event policies run jobs by iterations)".to_string())?;
    let batch = spec.batch_size.ok_or("has no global batch size".to_string())?;
    let model = spec.model.as_deref().ok_or("has no model name".to_string())?;
    if !KNOWN_MODELS.contains(&model) {
        return Err(format!(
            "model `{model}` is not one of ElasticFlow's models ({}); the original would silently run it as resnet50",
            KNOWN_MODELS.join(", ")
        ));
    }
    let curve = table.curve(model, batch).ok_or_else(|| {
        format!("the throughput table `{}` has no curve for {model} at global batch {batch}", table.source())
    })?;
    let max_gpus = curve
        .levels()
        .filter(|&g| g <= 64 && g <= batch)
        .last()
        .ok_or_else(|| format!("{model} at global batch {batch} runs at no GPU count of `{}`", table.source()))?;
    Ok((Scaling { curve: curve.clone(), max_gpus }, iterations))
}

/// Iterations and seconds per iteration of a job without a curve: the trace's solo iteration
/// time when it has one, else its duration spread over its iterations; without an iteration
/// count, progress counts in seconds (one iteration per second of work).
fn solo(spec: &JobSpec) -> (f64, f64) {
    match spec.iterations.filter(|&n| n > 0.0) {
        Some(n) => (n, spec.iteration_s.unwrap_or(spec.work / n)),
        None => (spec.work, 1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(model: &str, iterations: Option<f64>, iteration_s: Option<f64>) -> JobSpec {
        JobSpec {
            id: 3,
            gpus: 4,
            work: 600.0,
            model: Some(model.into()),
            batch_size: Some(256),
            iterations,
            iteration_s,
            ..JobSpec::default()
        }
    }

    #[test]
    fn a_job_with_a_curve_scales_along_it() {
        let job = EventJob::new(spec("resnet50", Some(1000.0), None), ThroughputTable::elasticflow_a100());
        let scaling = job.scaling().unwrap();
        assert_eq!((scaling.max_gpus, scaling.level_within(7)), (64, 4));
        assert!(job.rate(8).unwrap() > job.rate(1).unwrap());
        // Without a deadline the job is best-effort: never late, left out of deadline metrics.
        assert!(job.spec.best_effort && job.deadline().is_infinite());
    }

    #[test]
    fn a_job_without_a_curve_runs_whole_at_its_solo_speed() {
        let table = ThroughputTable::elasticflow_a100();
        let muri = EventJob::new(spec("resnet18", Some(1000.0), Some(0.5)), table);
        assert_eq!((muri.iter_left, muri.rate(4).unwrap()), (1000.0, 2.0));
        assert_eq!(muri.rate(8).unwrap_err().to_string(), "job 3: no measured throughput at 8 GPUs");
        let refused = muri.scaling().unwrap_err().to_string();
        assert!(refused.starts_with("job 3: model `resnet18` is not one of ElasticFlow's models (vgg16,"), "{refused}");
        // Without the trace's iteration time the duration is spread over the iterations; without
        // iterations, progress counts in seconds.
        assert_eq!(EventJob::new(spec("resnet18", Some(1000.0), None), table).rate(4).unwrap(), 1.0 / 0.6);
        let seconds = EventJob::new(spec("resnet18", None, None), table);
        assert_eq!((seconds.iter_left, seconds.rate(4).unwrap()), (600.0, 1.0));
        // A known model at a batch the table lacks has no curve either.
        let unmeasured = EventJob::new(JobSpec { batch_size: Some(3), ..spec("bert", Some(1.0), None) }, table);
        assert_eq!(
            unmeasured.scaling().unwrap_err().to_string(),
            "job 3: the throughput table `elasticflow-a100.csv` has no curve for bert at global batch 3"
        );
    }
}
