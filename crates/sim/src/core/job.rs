//! Jobs as a workload describes them ([`JobSpec`]), what both engines account for each of them
//! ([`JobLife`]) and how the round engine tracks them ([`ActiveJob`]).

use super::{GpuId, GpuType, HostShare, MILLI_PER_GPU, Quantum, SimTime};

/// Identifier of a job within one workload, in arrival (emission) order from 0.
///
/// Blox numbers jobs in admission order; with FIFO admission queues that is the arrival order, so
/// tracked-id windows such as 3000..=4000 mean the same jobs here and in Blox.
pub type JobId = u64;

/// One job as the workload submits it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JobSpec {
    pub id: JobId,
    /// Time the job is handed to the cluster, in seconds: the first decision at or after it sees
    /// the job. Workloads are sorted by it.
    pub arrival: SimTime,
    /// Time JCT, responsiveness and FIFO order count from. Equal to `arrival` except where a
    /// workload hands jobs over ahead of their submission (Blox's bursty generator does).
    pub submitted: SimTime,
    /// GPUs the job asks for (gang-scheduled: all or nothing).
    pub gpus: u32,
    /// The share of each of its GPUs a job asks for when it needs less than whole GPUs, in
    /// milli-GPU (more than 0, below [`MILLI_PER_GPU`]): Alibaba's `gpu_milli`. `None` for
    /// whole GPUs. Policies that place whole GPUs give such a job whole GPUs.
    pub gpu_milli: Option<u32>,
    /// The GPU models the job may run on (Alibaba's `gpu_spec`, e.g. `V100M16|V100M32`); empty
    /// for any.
    pub gpu_models: Vec<GpuType>,
    /// CPUs (cores; fractional: Alibaba's milli-CPU / 1000) and memory (GB) the job asks for
    /// beside its GPUs, when the workload gives them; a job with CPUs and no GPU is a CPU-only
    /// job. Policies that allocate host resources hold them as [`HostShare`]s.
    pub cpus: Option<f64>,
    pub memory_gb: Option<f64>,
    /// Work to do, in seconds of running at the profiled speed (Blox: iterations of 1 s each).
    pub work: f64,
    /// Model name when the workload knows it.
    pub model: Option<String>,
    /// Absolute deadline in seconds, when the workload has one.
    pub deadline: Option<SimTime>,
    /// Training iterations, for policies that run jobs by throughput curves (ElasticFlow).
    pub iterations: Option<f64>,
    /// Global batch size, which selects the job's throughput curve.
    pub batch_size: Option<u32>,
    /// A job without a deadline that deadline metrics leave out (ElasticFlow's best-effort jobs).
    pub best_effort: bool,
    /// Seconds per iteration when the job runs alone on its `gpus`, when the trace measures it
    /// (Muri); event policies run a job without a throughput curve at this speed.
    pub iteration_s: Option<f64>,
    /// Seconds per iteration spent in each resource stage, in the trace's stage order (Muri:
    /// data loading and CPU preprocessing, GPU compute, network synchronisation), which decides
    /// how jobs interleave when they share GPUs.
    pub stage_times: Option<Vec<f64>>,
    /// The scheduling class the trace gives the job (Muri's traces: 0 resource-guaranteed, 1
    /// opportunistic, which the `antman` policy schedules by).
    pub priority: Option<u32>,
}

impl JobSpec {
    /// Whether the job may run on GPUs of `model`.
    #[inline]
    pub fn accepts_model(&self, model: &GpuType) -> bool {
        self.gpu_models.is_empty() || self.gpu_models.contains(model)
    }

    /// Milli-GPU the job holds of each of its GPUs: [`MILLI_PER_GPU`] unless it asks for a
    /// share of one.
    #[inline]
    pub fn milli_per_gpu(&self) -> u32 {
        self.gpu_milli.unwrap_or(MILLI_PER_GPU)
    }
}

/// What happens to a job over a run, accounted the same way by both engines so that a record
/// field and the metric built on it mean one thing ([`crate::core::JobRecord::of`]).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct JobLife {
    /// Time the job was first launched.
    pub first_start: Option<SimTime>,
    /// Time at which the job first made progress (Blox counts responsiveness to this instant;
    /// the event engine does not track it).
    pub first_progress: Option<SimTime>,
    /// Time the job completed.
    pub finish: Option<SimTime>,
    /// Times the job lost its GPUs to another job.
    pub preemptions: u32,
    /// Times the job kept running on a changed allocation (more or fewer GPUs, other GPUs):
    /// elastic and goodput-adaptive policies resize jobs, which is not a preemption.
    pub resizes: u32,
    /// Seconds the job has held GPUs (Blox `attained_service`, not GPU-weighted); the event
    /// engine counts the span from first start to finish.
    pub attained_service: f64,
    /// Work done so far, in the units of [`JobSpec::work`] (event policies that count whole-job
    /// progress in seconds against the trace's duration use it too).
    pub executed_work: f64,
    /// Set once a starvation rule promoted the job (the round engine's guard, Tiresias' knob).
    pub promoted: bool,
    /// Whether the job missed its deadline, once known: judged when it finishes, or set when
    /// admission declines it.
    pub late: Option<bool>,
}

impl JobLife {
    /// The job completed at `at`; `late` says whether that missed its deadline.
    #[inline]
    pub fn finish(&mut self, at: SimTime, late: bool) {
        self.finish = Some(at);
        self.late = Some(late);
    }
}

/// Index of a job in the [`JobTable`]; stable while the job is active.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JobSlot(pub u32);

/// A job admitted to the cluster and not yet finished: its spec, the accounting both engines
/// share (`life`), and what only the round engine tracks.
#[derive(Debug, Clone)]
pub struct ActiveJob {
    pub spec: JobSpec,
    pub life: JobLife,
    /// Last decision time at which the job ran, was launched or was preempted; before its first
    /// one, a round before its admission (Blox counts the admission round as waited).
    pub last_scheduled: SimTime,
    /// GPUs the job holds; empty while it waits.
    pub gpus: Vec<GpuId>,
    /// CPUs and memory the job holds beside its GPUs, per node; empty unless its policy
    /// allocates them.
    pub host: Vec<HostShare>,
    /// Seconds of the next round lost to launch/restore overhead.
    pub pending_overhead: f64,
    /// While the job runs: what the current round does for it, fixed when the round started.
    pub quantum: Quantum,
    /// When the current round's quantum started.
    pub quantum_start: SimTime,
}

impl ActiveJob {
    /// A job admitted at `now` in a simulation with rounds of `round` seconds.
    pub fn admitted(spec: JobSpec, now: SimTime, round: f64) -> Self {
        Self {
            spec,
            life: JobLife::default(),
            last_scheduled: now - round,
            gpus: Vec::new(),
            host: Vec::new(),
            pending_overhead: 0.0,
            quantum: Quantum::default(),
            quantum_start: now,
        }
    }

    /// Whether the job holds something: GPUs, or CPUs and memory for a CPU-only job.
    #[inline]
    pub fn is_running(&self) -> bool {
        !self.gpus.is_empty() || !self.host.is_empty()
    }

    #[inline]
    pub fn remaining_work(&self) -> f64 {
        self.spec.work - self.life.executed_work
    }
}

/// The active jobs, addressed by [`JobSlot`]; finished jobs leave holes that later arrivals reuse.
#[derive(Debug, Default)]
pub struct JobTable {
    slots: Vec<Option<ActiveJob>>,
    vacant: Vec<u32>,
    len: usize,
}

impl JobTable {
    pub fn insert(&mut self, job: ActiveJob) -> JobSlot {
        self.len += 1;
        match self.vacant.pop() {
            Some(i) => {
                self.slots[i as usize] = Some(job);
                JobSlot(i)
            }
            None => {
                self.slots.push(Some(job));
                JobSlot(self.slots.len() as u32 - 1)
            }
        }
    }

    #[inline]
    pub fn remove(&mut self, slot: JobSlot) -> ActiveJob {
        let job = self.slots[slot.0 as usize].take().expect("removing a vacant job slot");
        self.vacant.push(slot.0);
        self.len -= 1;
        job
    }

    /// Whether `slot` holds an active job.
    #[inline]
    pub fn contains(&self, slot: JobSlot) -> bool {
        self.slots.get(slot.0 as usize).is_some_and(Option::is_some)
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Active jobs in slot order (not priority order).
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = (JobSlot, &ActiveJob)> {
        self.slots.iter().enumerate().filter_map(|(i, j)| j.as_ref().map(|j| (JobSlot(i as u32), j)))
    }

    #[inline]
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (JobSlot, &mut ActiveJob)> {
        self.slots.iter_mut().enumerate().filter_map(|(i, j)| j.as_mut().map(|j| (JobSlot(i as u32), j)))
    }
}

impl std::ops::Index<JobSlot> for JobTable {
    type Output = ActiveJob;
    #[inline]
    fn index(&self, slot: JobSlot) -> &ActiveJob {
        self.slots[slot.0 as usize].as_ref().expect("vacant job slot")
    }
}

impl std::ops::IndexMut<JobSlot> for JobTable {
    #[inline]
    fn index_mut(&mut self, slot: JobSlot) -> &mut ActiveJob {
        self.slots[slot.0 as usize].as_mut().expect("vacant job slot")
    }
}
