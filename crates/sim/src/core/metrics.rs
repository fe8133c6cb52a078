//! What a run records: one row per tracked job, one row per round, and the run's summary.

use super::{JobId, JobLife, JobSpec, SimTime};

/// The life of one tracked job.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JobRecord {
    pub id: JobId,
    /// Submission time ([`crate::core::JobSpec::submitted`]), the start of JCT.
    pub arrival: SimTime,
    pub gpus: u32,
    pub work: f64,
    /// First launch; `None` if the job never ran before the run ended.
    pub first_start: Option<SimTime>,
    /// End of the job's first round of progress; Blox's responsiveness is this minus arrival.
    pub first_progress: Option<SimTime>,
    pub finish: Option<SimTime>,
    pub preemptions: u32,
    /// Times the job went on running on a changed allocation.
    pub resizes: u32,
    pub attained_service: f64,
    /// Whether a starvation rule promoted the job (the round engine's guard, Tiresias' knob).
    pub promoted: bool,
    /// Absolute deadline; `None` for best-effort jobs and jobs without one.
    pub deadline: Option<SimTime>,
    pub best_effort: bool,
    /// For jobs with a deadline: whether it was met (event policies: accepted and on time;
    /// `false` also for jobs declined at admission). `None` when unknown (unfinished).
    pub met_deadline: Option<bool>,
    /// GPUs held at completion (elastic jobs change size while running).
    pub final_gpus: Option<u32>,
}

impl JobRecord {
    /// The one way either engine turns a job into its record: identity and demand from its
    /// spec, what happened from its life; `final_gpus` is the size it held at the end, recorded
    /// when it finished. The deadline and its outcome are left out for best-effort jobs.
    pub fn of(spec: &JobSpec, life: &JobLife, final_gpus: u32) -> Self {
        let deadline = spec.deadline.filter(|_| !spec.best_effort);
        JobRecord {
            id: spec.id,
            arrival: spec.submitted,
            gpus: spec.gpus,
            work: spec.work,
            first_start: life.first_start,
            first_progress: life.first_progress,
            finish: life.finish,
            preemptions: life.preemptions,
            resizes: life.resizes,
            attained_service: life.attained_service,
            promoted: life.promoted,
            deadline,
            best_effort: spec.best_effort,
            met_deadline: deadline.and(life.late.map(|late| !late)),
            final_gpus: life.finish.map(|_| final_gpus),
        }
    }

    pub fn jct(&self) -> Option<f64> {
        self.finish.map(|f| f - self.arrival)
    }

    pub fn responsiveness(&self) -> Option<f64> {
        self.first_progress.map(|f| f - self.arrival)
    }
}

/// Cluster state after one round's decisions.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TimelineRow {
    pub time: SimTime,
    pub free_gpus: u32,
    /// GPUs asked for by all active jobs, running or queued (Blox `gpu_demand`).
    pub gpu_demand: u64,
    pub running: u32,
    /// Active jobs waiting for GPUs.
    pub queued: u32,
    /// Arrived jobs held back by admission control; `None` where admission decides at arrival
    /// and nothing waits for it (the event engine).
    pub admission_backlog: Option<u32>,
    pub preemptions: u32,
    /// Running jobs whose allocation changed at this decision.
    pub resizes: u32,
    /// `Σ T(g)/T(1)` over running jobs divided by the cluster's GPUs (ElasticFlow's `ce`);
    /// event-driven runs only.
    pub cluster_efficiency: Option<f64>,
    /// CPUs held by running jobs beside their GPUs (Synergy's family allocates them); `None`
    /// where the cluster does not give CPUs per node.
    pub cpus_in_use: Option<f64>,
    /// Memory (GB) held by running jobs; `None` where the cluster does not give memory per node.
    pub memory_gb_in_use: Option<f64>,
    /// Placement experiments (`placements` engine): GPU milli asked for by the requests offered
    /// so far, placed or failed. `None` on the other engines, as are the next three.
    pub arrived_gpu_milli: Option<u64>,
    /// GPU milli held by the placed requests.
    pub allocated_gpu_milli: Option<u64>,
    /// Idle GPU milli that the workload's typical requests cannot use (FGD's fragmentation
    /// measure, `docs/fgd-semantics.md` §3), to two decimals.
    pub fragmented_gpu_milli: Option<f64>,
    /// `fragmented_gpu_milli` as a percentage of the idle GPU milli, to two decimals.
    pub fragmentation_ratio: Option<f64>,
}

/// Deadline outcomes of a run, ElasticFlow's metric: best-effort jobs are left out.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DeadlineStats {
    /// Jobs with a deadline whose outcome is known.
    pub deadline_jobs: u64,
    /// Jobs that met their deadline.
    pub accepted: u64,
    /// Jobs declined at admission or finished late.
    pub declined: u64,
    /// `accepted / (accepted + declined)`; `None` without deadline jobs.
    pub deadline_ratio: Option<f64>,
    /// Average JCT of finished best-effort jobs; `None` without any.
    pub best_effort_avg_jct: Option<f64>,
}

/// Aggregates of one run. JCT and responsiveness statistics cover finished tracked jobs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunSummary {
    pub tracked_jobs: u64,
    pub tracked_finished: u64,
    pub jobs_finished: u64,
    /// Jobs that could never run: wider than the cluster (or than its GPUs of the models they
    /// accept), dropped at arrival without a record, or rejected by their policy (recorded
    /// unfinished).
    pub jobs_unschedulable: u64,
    pub avg_jct: f64,
    pub median_jct: f64,
    pub p95_jct: f64,
    pub p99_jct: f64,
    pub avg_responsiveness: f64,
    /// Simulated time at which the run ended.
    pub makespan: SimTime,
    pub rounds: u64,
    pub preemptions: u64,
    pub resizes: u64,
    pub promoted_jobs: u64,
    /// Busy GPU-seconds over total GPU-seconds until the end of the run.
    pub gpu_utilization: f64,
    pub deadlines: DeadlineStats,
}

/// What an engine counts about a run besides its tracked jobs' records.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunTotals {
    pub tracked_jobs: u64,
    /// Jobs finished, tracked or not.
    pub jobs_finished: u64,
    pub jobs_unschedulable: u64,
    pub makespan: SimTime,
    /// Rounds (round engine) or decisions (event engine).
    pub rounds: u64,
    pub preemptions: u64,
    pub resizes: u64,
    /// GPU-seconds held by jobs.
    pub busy_gpu_seconds: f64,
    /// GPU-seconds the cluster offered over the run.
    pub capacity_gpu_seconds: f64,
}

impl RunSummary {
    /// The summary of `records`, taken in the order given (the engines' id order, which fixes
    /// the last bits of the means); see [`SummaryBuilder`].
    pub fn from_records(records: &[JobRecord], totals: RunTotals) -> Self {
        let mut builder = SummaryBuilder::default();
        records.iter().for_each(|r| builder.add(r));
        builder.finish(totals)
    }
}

/// The one definition of every per-run metric, fed one record at a time in id order so that a
/// run whose records stream to a file keeps only what the metrics need (a JCT per finished job
/// for the quantiles): JCT statistics over the finished records, responsiveness over finished
/// records that made progress, promotions and deadline outcomes from the records, utilisation as
/// busy over offered GPU-seconds; counts from the engine's [`RunTotals`].
#[derive(Debug, Clone, Default)]
pub struct SummaryBuilder {
    jcts: Vec<f64>,
    responsiveness: RunningMean,
    promoted: u64,
    accepted: u64,
    declined: u64,
    best_effort_jct: RunningMean,
}

impl SummaryBuilder {
    pub fn add(&mut self, record: &JobRecord) {
        if let Some(jct) = record.jct() {
            self.jcts.push(jct);
            if let Some(responsiveness) = record.responsiveness() {
                self.responsiveness.add(responsiveness);
            }
            if record.best_effort {
                self.best_effort_jct.add(jct);
            }
        }
        self.promoted += u64::from(record.promoted);
        match record.met_deadline {
            Some(true) => self.accepted += 1,
            Some(false) => self.declined += 1,
            None => {}
        }
    }

    pub fn finish(mut self, totals: RunTotals) -> RunSummary {
        let jcts = &mut self.jcts;
        jcts.sort_by(f64::total_cmp);
        let known = self.accepted + self.declined;
        RunSummary {
            tracked_jobs: totals.tracked_jobs,
            tracked_finished: jcts.len() as u64,
            jobs_finished: totals.jobs_finished,
            jobs_unschedulable: totals.jobs_unschedulable,
            avg_jct: mean(jcts),
            median_jct: quantile_sorted(jcts, 0.5),
            p95_jct: quantile_sorted(jcts, 0.95),
            p99_jct: quantile_sorted(jcts, 0.99),
            avg_responsiveness: self.responsiveness.mean(),
            makespan: totals.makespan,
            rounds: totals.rounds,
            preemptions: totals.preemptions,
            resizes: totals.resizes,
            promoted_jobs: self.promoted,
            gpu_utilization: totals.busy_gpu_seconds / totals.capacity_gpu_seconds,
            deadlines: DeadlineStats {
                deadline_jobs: known,
                accepted: self.accepted,
                declined: self.declined,
                deadline_ratio: (known > 0).then(|| self.accepted as f64 / known as f64),
                best_effort_avg_jct: (self.best_effort_jct.count > 0).then(|| self.best_effort_jct.mean()),
            },
        }
    }
}

/// A mean summed in arrival order from the same starting value as `Iterator::sum`, so that it
/// equals [`mean`] of the same values bit for bit.
#[derive(Debug, Clone)]
struct RunningMean {
    sum: f64,
    count: u64,
}

impl Default for RunningMean {
    fn default() -> Self {
        Self { sum: std::iter::empty::<f64>().sum(), count: 0 }
    }
}

impl RunningMean {
    fn add(&mut self, value: f64) {
        self.sum += value;
        self.count += 1;
    }

    fn mean(&self) -> f64 {
        if self.count == 0 { f64::NAN } else { self.sum / self.count as f64 }
    }
}

/// Where a run's job records go, in id order, as each becomes final: the jobs table being
/// written (the runner), or a vector. Implemented outside the core, which only calls it.
pub trait RecordSink {
    /// Takes the next record; an error (e.g. a full disk) ends the run.
    fn push(&mut self, record: JobRecord) -> Result<(), String>;
}

impl RecordSink for Vec<JobRecord> {
    fn push(&mut self, record: JobRecord) -> Result<(), String> {
        Vec::push(self, record);
        Ok(())
    }
}

/// A run's summary and timeline; its job records went to a [`RecordSink`].
#[derive(Debug, Clone, PartialEq)]
pub struct RunTables {
    pub summary: RunSummary,
    pub timeline: Vec<TimelineRow>,
}

impl RunTables {
    /// With the records a vector sink collected, as one [`RunOutput`].
    pub fn with_jobs(self, jobs: Vec<JobRecord>) -> RunOutput {
        RunOutput { summary: self.summary, jobs, timeline: self.timeline }
    }
}

/// Everything one run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutput {
    pub summary: RunSummary,
    pub jobs: Vec<JobRecord>,
    pub timeline: Vec<TimelineRow>,
}

/// Mean of `values`, NaN when empty.
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.iter().sum::<f64>() / values.len() as f64
}

/// Quantile `q` in [0, 1] of sorted `values` with linear interpolation between closest ranks
/// (the default of numpy, pandas and DuckDB's `quantile_cont`), NaN when empty.
pub fn quantile_sorted(values: &[f64], q: f64) -> f64 {
    match values.len() {
        0 => f64::NAN,
        1 => values[0],
        n => {
            let pos = q * (n - 1) as f64;
            let lo = pos.floor() as usize;
            let hi = pos.ceil() as usize;
            values[lo] + (values[hi] - values[lo]) * (pos - lo as f64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_keeps_deadline_outcomes_for_deadline_jobs_only() {
        let spec = JobSpec { id: 1, submitted: 10.0, gpus: 2, work: 50.0, deadline: Some(100.0), ..JobSpec::default() };
        let mut life = JobLife { first_start: Some(20.0), ..JobLife::default() };
        let waiting = JobRecord::of(&spec, &life, 2);
        assert_eq!((waiting.finish, waiting.met_deadline, waiting.final_gpus), (None, None, None));
        life.finish(120.0, true);
        let late = JobRecord::of(&spec, &life, 4);
        assert_eq!((late.jct(), late.met_deadline, late.final_gpus), (Some(110.0), Some(false), Some(4)));
        let best_effort = JobRecord::of(&JobSpec { best_effort: true, ..spec }, &life, 4);
        assert_eq!((best_effort.deadline, best_effort.met_deadline), (None, None));
    }

    #[test]
    fn quantiles_interpolate_like_numpy() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile_sorted(&v, 0.5), 2.5);
        assert_eq!(quantile_sorted(&v, 0.0), 1.0);
        assert_eq!(quantile_sorted(&v, 1.0), 4.0);
        assert!((quantile_sorted(&v, 0.95) - 3.85).abs() < 1e-12);
        assert!(quantile_sorted(&[], 0.5).is_nan());
        assert_eq!(mean(&v), 2.5);
    }
}
