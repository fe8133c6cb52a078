//! Synergy's round: the order sorts the runnable jobs, then each job in turn gets its GPUs, CPUs
//! and memory by the allocation mode, and a job allocated for a round is credited the whole
//! round's iterations at once and finishes at the round's end.
//!
//! Rule (`docs/synergy-semantics.md` §3-§5; Synergy `schedulers/*_synergy_new.py`,
//! `resources/cluster.py` and `jobs/job.py` at 1bb2bed). Every job leaves its resources at the end
//! of each 300 s round, so a round starts from an empty cluster:
//!
//! 1. sort the runnable list (kept from round to round, arrivals appended) by the order's key,
//!    stably; then every job's speedup goes back to its profile value (so keys saw last round's);
//! 2. a job that has not run for more than 1000 h since its last round ended (or since it
//!    arrived) is bumped for good: it sorts first from the next round on (not under FIFO);
//! 3. down the list, a job whose GPU count fits in the free GPUs is allocated by the mode; one
//!    that cannot be placed is skipped and later jobs may go ahead (LAS allocates only the jobs
//!    admitted by GPU count down its list, widest first under Tune);
//! 4. a job allocated is credited `floor(300 / (it / s))` iterations (capped at its total) with
//!    `s` its speedup in Greedy and Tune and 1 in the `fair` mode, and finishes at the round's
//!    end once they reach its total.
//!
//! Modes (§5): `fair` asks the GPU-proportional share of CPUs and memory; `greedy` asks the job's
//! best-case demand and skips the job if it does not fit; `tune` asks the best case, falls back to
//! the proportional share (speedup 1 for the round) and, if that does not fit either, takes the
//! excess CPUs and memory of jobs already placed on the servers it targets (they drop to their
//! proportional share and are credited at speedup 1 for the round), then tries once more. The
//! placement without `place` walks free GPUs in id order and takes each whose server still has
//! the per-GPU share, so a multi-GPU job may span servers; with `place` a multi-GPU job goes whole
//! onto the fitting server with the fewest free GPUs, else GPU by GPU onto the fullest fitting
//! servers. CPUs and memory are held in the core's [`Cluster`] beside the GPUs.

use super::AllocationMode;
use super::allocation::Allocator;
use super::demand::{Demand, ServerSize, demand};
use super::opt::{self, Cell, OptJob};
use super::order::{KeyInputs, Order, Totals};
use crate::core::{
    ActiveJob, Cluster, ClusterSpec, GpuId, HostShare, JobId, JobSlot, JobSpec, JobTable, Launch, PlacementDecisions,
    PolicyError, Quantum, RoundPolicy, SimTime,
};
use crate::profiles::synergy::{self, CpusPerGpu};
use std::cmp::{Ordering, Reverse};
use std::collections::HashMap;

/// Seconds without a round after which a job is bumped (Synergy's `1000 * 3600`).
const STARVATION_S: f64 = 1000.0 * 3600.0;

/// GPUs, CPUs and memory (GB), in that order: what Synergy places.
pub(super) type Amounts = [f64; 3];

/// What a run's cluster means to Synergy: one server's size, the proportional share per GPU,
/// the totals and the profile set measured for its CPUs per GPU.
#[derive(Debug, Clone)]
pub(super) struct Shape {
    server: ServerSize,
    pub(super) fair_per_gpu: Amounts,
    totals: Totals,
    profiles: CpusPerGpu,
    /// The proportional share's cell of the throughput matrices, which OPT's fairness floor
    /// reads; `None` where the share is not a cell.
    fair_cell: Option<Cell>,
}

impl Shape {
    /// Synergy's cluster model: identical servers with CPUs and memory, 3 to 6 CPUs per GPU (the
    /// ratios Synergy profiled).
    fn of(cluster: &ClusterSpec) -> Result<Self, String> {
        let node = cluster.identical_node().ok_or("Synergy's policies need identical nodes")?;
        let (Some(cpus), Some(memory_gb)) = (node.cpus, node.memory_gb) else {
            return Err("Synergy's policies need `cpus_per_node` and `memory_gb_per_node` in the cluster".into());
        };
        let profiles =
            (cpus % node.gpus == 0).then(|| CpusPerGpu::from_ratio(cpus / node.gpus)).flatten().ok_or_else(|| {
                format!(
                    "Synergy profiled 3, 4, 5 or 6 CPUs per GPU; this cluster has {cpus} CPUs for {} GPUs",
                    node.gpus
                )
            })?;
        let servers = cluster.nodes.len() as f64;
        let server = ServerSize { gpus: f64::from(node.gpus), cpus: f64::from(cpus), memory_gb };
        let fair_per_gpu = [1.0, server.cpus / server.gpus, server.memory_gb / server.gpus];
        Ok(Self {
            server,
            fair_per_gpu,
            fair_cell: Cell::fair(fair_per_gpu[1], fair_per_gpu[2]),
            totals: Totals { gpus: server.gpus * servers, cpus: server.cpus * servers, memory_gb: memory_gb * servers },
            profiles,
        })
    }
}

/// Whether `cluster` can run Synergy's policies in `mode`, with the reason when not.
pub fn check_cluster(cluster: &ClusterSpec, mode: AllocationMode) -> Result<(), String> {
    let shape = Shape::of(cluster)?;
    if mode == AllocationMode::Opt && shape.fair_cell.is_none() {
        return Err(format!(
            "Synergy-OPT's throughput matrices have cells for 1, 2, 3, 4, 5, 6, 9, 12 or 24 CPUs and 20.83, 62.5, \
             125, 187.5 or 250 GB per GPU; this cluster's proportional share, {} CPUs and {} GB per GPU, is not one",
            shape.fair_per_gpu[1], shape.fair_per_gpu[2]
        ));
    }
    Ok(())
}

/// Where a job runs for one round: its GPUs and, per server in the order first used, the GPUs,
/// CPUs and memory it holds there.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Allocation {
    pub(super) gpus: Vec<GpuId>,
    pub(super) per_node: Vec<(usize, Amounts)>,
}

impl Allocation {
    /// GPUs, CPUs and memory over all servers (the original's `get_job_alloc_vector`).
    pub(super) fn totals(&self) -> Amounts {
        let mut sum = [self.gpus.len() as f64, 0.0, 0.0];
        for (_, a) in &self.per_node {
            sum[1] += a[1];
            sum[2] += a[2];
        }
        sum
    }

    pub(super) fn gpus_on(&self, node: usize) -> f64 {
        self.per_node.iter().find(|(n, _)| *n == node).map_or(0.0, |(_, a)| a[0])
    }

    pub(super) fn host_shares(&self) -> Vec<HostShare> {
        let mut shares: Vec<HostShare> = self
            .per_node
            .iter()
            .map(|&(node, a)| HostShare { node: node as u32, cpus: a[1], memory_gb: a[2] })
            .collect();
        shares.sort_by_key(|s| s.node);
        shares
    }
}

/// What Synergy tracks of one runnable job.
#[derive(Debug, Clone)]
pub(super) struct JobState {
    id: JobId,
    /// The model's class in the zoo.
    class: usize,
    arrival: f64,
    pub(super) gpus: u32,
    pub(super) best: Demand,
    iteration_s: f64,
    total: u64,
    executed: u64,
    /// Iterations before this round's credit, which Tune's peer adjustment rolls back to.
    before_round: u64,
    /// Seconds of rounds received.
    attained: f64,
    /// The speedup the job runs at this round; Tune's fallback sets it to 1.
    pub(super) speedup: f64,
    bumped: bool,
    /// End of the last round the job ran in.
    last_run_end: Option<f64>,
    pub(super) allocation: Option<Allocation>,
    seen_in_round: u64,
}

impl JobState {
    fn new(spec: &JobSpec, shape: &Shape) -> Result<Self, String> {
        let model = spec.model.as_deref().ok_or_else(|| format!("job {} has no model", spec.id))?;
        let class = synergy::MODELS.iter().position(|m| *m == model).ok_or_else(|| {
            format!("job {}: model `{model}` is not in Synergy's model zoo ({})", spec.id, synergy::MODELS.join(", "))
        })?;
        let profile = synergy::profile(class, shape.profiles);
        let best = demand(&profile, spec.gpus, &shape.server).map_err(|e| format!("job {}: {e}", spec.id))?;
        // Synergy turns a duration at the proportional share into iterations by truncation.
        let total = spec.iterations.unwrap_or(spec.work / profile.iteration_s) as u64;
        Ok(Self {
            id: spec.id,
            class,
            arrival: spec.submitted,
            gpus: spec.gpus,
            best,
            iteration_s: profile.iteration_s,
            total,
            executed: 0,
            before_round: 0,
            attained: 0.0,
            speedup: best.speedup,
            bumped: false,
            last_run_end: None,
            allocation: None,
            seen_in_round: 0,
        })
    }

    pub(super) fn id(&self) -> JobId {
        self.id
    }

    fn key_inputs(&self) -> KeyInputs {
        KeyInputs {
            arrival: self.arrival,
            gpus: f64::from(self.gpus),
            cpus: self.best.cpus,
            memory_gb: self.best.memory_gb,
            iteration_s: self.iteration_s,
            total: self.total,
            executed: self.executed,
            attained: self.attained,
            speedup: self.speedup,
        }
    }

    pub(super) fn best_amounts(&self) -> Amounts {
        [f64::from(self.gpus), self.best.cpus, self.best.memory_gb]
    }

    /// A round's progress at `rate` times the proportional share's speed, credited when the job
    /// is allocated (`Job.allocate`; OPT's `allocate_round`): the job's speedup in Greedy and
    /// Tune, 1 in the `fair` mode and for Tune's re-allocated peers, the matrix cell under OPT.
    pub(super) fn credit(&mut self, round_s: f64, rate: f64) {
        let iteration_s = self.iteration_s / rate;
        self.before_round = self.executed;
        self.attained += round_s;
        self.executed = (self.executed + (round_s / iteration_s).floor() as u64).min(self.total);
    }

    /// Takes back this round's credit (`Job.deallocate(revert_iter=True)`).
    pub(super) fn roll_back(&mut self, round_s: f64) {
        self.attained = (self.attained - round_s).max(0.0);
        self.executed = self.before_round;
    }
}

/// Synergy's state of the runnable jobs, by the engine's slot (a round touches every job several
/// times, so slots, not hashed ids, address them).
#[derive(Default)]
pub(super) struct JobStates {
    by_slot: Vec<Option<JobState>>,
    slot_of: HashMap<JobId, JobSlot>,
}

impl JobStates {
    fn get_by_id(&self, id: JobId) -> Option<&JobState> {
        self.slot_of.get(&id).and_then(|slot| self.by_slot[slot.0 as usize].as_ref())
    }

    /// The state of the job in `slot`, made for `spec` if the slot holds another job's or none.
    fn sync(&mut self, slot: JobSlot, spec: &JobSpec, shape: &Shape) -> Result<&mut JobState, String> {
        let i = slot.0 as usize;
        if self.by_slot.len() <= i {
            self.by_slot.resize_with(i + 1, || None);
        }
        if self.by_slot[i].as_ref().is_none_or(|s| s.id != spec.id) {
            if let Some(old) = self.by_slot[i].take() {
                self.slot_of.remove(&old.id);
            }
            self.by_slot[i] = Some(JobState::new(spec, shape)?);
            self.slot_of.insert(spec.id, slot);
        }
        Ok(self.by_slot[i].as_mut().expect("just set"))
    }

    /// Forgets the jobs not seen in `round` (they left the engine).
    fn retain_seen(&mut self, round: u64) {
        for entry in &mut self.by_slot {
            if entry.as_ref().is_some_and(|s| s.seen_in_round != round) {
                let old = entry.take().expect("checked");
                self.slot_of.remove(&old.id);
            }
        }
    }
}

impl std::ops::Index<JobSlot> for JobStates {
    type Output = JobState;
    fn index(&self, slot: JobSlot) -> &JobState {
        self.by_slot[slot.0 as usize].as_ref().expect("a runnable job's state")
    }
}

impl std::ops::IndexMut<JobSlot> for JobStates {
    fn index_mut(&mut self, slot: JobSlot) -> &mut JobState {
        self.by_slot[slot.0 as usize].as_mut().expect("a runnable job's state")
    }
}

/// Synergy's round decision for one order and allocation mode.
pub struct SynergyRound {
    order: Order,
    mode: AllocationMode,
    consolidate: bool,
    round_s: f64,
    shape: Result<Shape, String>,
    jobs: JobStates,
    round: u64,
    last_decision: Option<SimTime>,
    /// The sort's keys, reused from round to round.
    sort_scratch: Vec<(bool, f64, f64, JobSlot)>,
}

impl SynergyRound {
    pub fn new(order: Order, mode: AllocationMode, consolidate: bool, cluster: &ClusterSpec, round_s: f64) -> Self {
        Self {
            order,
            mode,
            consolidate,
            round_s,
            shape: Shape::of(cluster),
            jobs: JobStates::default(),
            round: 0,
            last_decision: None,
            sort_scratch: Vec::new(),
        }
    }

    /// What changed, for the engine: a job that keeps its GPUs, CPUs and memory continues; one
    /// that lost or changed them is preempted (and launched again where it got others).
    fn report(&self, jobs: &JobTable, order: &[JobSlot], decisions: &mut PlacementDecisions) {
        for &slot in order {
            let job = &jobs[slot];
            let allocation = self.jobs[slot].allocation.as_ref();
            let same = allocation.is_some_and(|a| a.gpus == job.gpus && a.host_shares() == job.host);
            if job.is_running() && !same {
                decisions.preempt.push(slot);
            }
            if let Some(a) = allocation.filter(|_| !same) {
                decisions.launch.push(Launch { job: slot, gpus: a.gpus.clone(), host: a.host_shares() });
            }
        }
    }

    /// Synergy-OPT (§6): every job admitted by GPU count runs, with the CPUs and memory per GPU
    /// of its cell in the round's program ([`opt::solve`]) and its speed there from its matrix.
    /// OPT respects the cluster's totals only, not a server's: jobs take free GPUs in id order
    /// and hold their CPUs and memory on those GPUs' nodes, so a node may hold more than it has.
    fn allocate_by_program(
        &mut self,
        admitted: &[JobSlot],
        cluster: &mut Cluster,
        shape: &Shape,
    ) -> Result<(), PolicyError> {
        if admitted.is_empty() {
            return Ok(());
        }
        let fair = shape.fair_cell.ok_or_else(|| PolicyError("OPT needs the proportional share as a cell".into()))?;
        let program: Vec<OptJob> = admitted
            .iter()
            .map(|&slot| OptJob { gpus: self.jobs[slot].gpus, tput: synergy::tput(self.jobs[slot].class) })
            .collect();
        let cells = opt::solve(&program, shape.totals.cpus, shape.totals.memory_gb, fair).map_err(PolicyError)?;
        let free: Vec<GpuId> =
            (0..cluster.node_count()).flat_map(|n| cluster.free_gpus_on_node(n).collect::<Vec<_>>()).collect();
        let mut next = 0;
        for (&slot, cell) in admitted.iter().zip(cells) {
            let job = &mut self.jobs[slot];
            let gpus = free[next..next + job.gpus as usize].to_vec();
            next += gpus.len();
            let mut per_node: Vec<(usize, Amounts)> = Vec::new();
            for &gpu in &gpus {
                let node = cluster.node_of(gpu);
                match per_node.last_mut() {
                    Some((n, count)) if *n == node => count[0] += 1.0,
                    _ => per_node.push((node, [1.0, 0.0, 0.0])),
                }
            }
            for (_, amounts) in &mut per_node {
                amounts[1] = amounts[0] * cell.cpus_per_gpu();
                amounts[2] = amounts[0] * cell.mem_gb_per_gpu();
            }
            let allocation = Allocation { gpus, per_node };
            cluster.assign(&allocation.gpus, slot);
            for share in allocation.host_shares() {
                cluster.hold(&share);
            }
            job.credit(self.round_s, synergy::tput(job.class)[cell.cpu_row][cell.mem_col]);
            job.allocation = Some(allocation);
        }
        Ok(())
    }

    /// Step 1: the sort, stable over last round's list, with the bump first where the order has it.
    fn sort(&mut self, now: SimTime, order: &mut [JobSlot], shape: &Shape) {
        let fair = self.mode == AllocationMode::Fair;
        let mut keyed = std::mem::take(&mut self.sort_scratch);
        keyed.clear();
        keyed.extend(order.iter().map(|slot| {
            let job = &self.jobs[*slot];
            let bumped = self.order.uses_bump() && job.bumped;
            (!bumped, self.order.key(&job.key_inputs(), now, fair, &shape.totals), job.arrival, *slot)
        }));
        let cmp = |a: f64, b: f64| a.partial_cmp(&b).unwrap_or(Ordering::Equal);
        keyed.sort_by(|a, b| a.0.cmp(&b.0).then(cmp(a.1, b.1)).then(cmp(a.2, b.2)));
        for (dst, src) in order.iter_mut().zip(&keyed) {
            *dst = src.3;
        }
        self.sort_scratch = keyed;
    }
}

impl RoundPolicy for SynergyRound {
    fn decide(
        &mut self,
        now: SimTime,
        jobs: &JobTable,
        order: &mut [JobSlot],
        cluster: &mut Cluster,
        decisions: &mut PlacementDecisions,
    ) -> Result<(), PolicyError> {
        let shape = self.shape.clone().map_err(PolicyError)?;
        self.round += 1;
        let last_round_end = self.last_decision.map(|t| t + self.round_s);
        self.last_decision = Some(now);

        // Every job left its resources at the end of the last round.
        for &slot in order.iter() {
            let job = &jobs[slot];
            if job.is_running() {
                cluster.release(&job.gpus, slot);
                cluster.release_host(&job.host);
            }
            let state = self.jobs.sync(slot, &job.spec, &shape).map_err(PolicyError)?;
            if state.allocation.take().is_some() {
                state.last_run_end = last_round_end;
            }
            state.seen_in_round = self.round;
        }
        self.jobs.retain_seen(self.round);

        self.sort(now, order, &shape);
        let mut admitted_by_count = Vec::new();
        let mut uncounted = cluster.free_gpus();
        for slot in order.iter() {
            let job = &mut self.jobs[*slot];
            job.speedup = job.best.speedup;
            if job.gpus <= uncounted {
                admitted_by_count.push(*slot);
                uncounted -= job.gpus;
            }
            if now - job.last_run_end.unwrap_or(job.arrival) > STARVATION_S {
                job.bumped = true;
            }
        }
        if self.order == Order::Las && self.mode == AllocationMode::Tune {
            admitted_by_count.sort_by_key(|&slot| Reverse(self.jobs[slot].gpus));
        }
        let candidates: &[JobSlot] =
            if self.order == Order::Las || self.mode == AllocationMode::Opt { &admitted_by_count } else { order };

        if self.mode == AllocationMode::Opt {
            self.allocate_by_program(candidates, cluster, &shape)?;
            self.report(jobs, order, decisions);
            return Ok(());
        }
        let mut allocator = Allocator::new(cluster, &mut self.jobs, &shape, self.mode, self.consolidate, self.round_s);
        for &slot in candidates {
            if allocator.cluster_is_full() {
                // No job asks for fewer than one GPU: the rest of the list waits.
                break;
            }
            allocator.allocate(slot, now)?;
        }

        self.report(jobs, order, decisions);
        Ok(())
    }

    fn quantum(&self, job: &ActiveJob, _cluster: &Cluster, round_seconds: f64) -> Quantum {
        let Some(state) = self.jobs.get_by_id(job.spec.id) else { return Quantum::default() };
        let iterations = state.executed - state.before_round;
        Quantum {
            work: iterations as f64 * state.iteration_s,
            seconds: round_seconds,
            overhead: 0.0,
            completes: state.executed >= state.total,
            abandons: false,
        }
    }

    /// The starvation bump, where the order reads it.
    fn promoted(&self, job: &ActiveJob) -> Option<bool> {
        Some(self.order.uses_bump() && self.jobs.get_by_id(job.spec.id).is_some_and(|s| s.bumped))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::engine::{Engine, Policies, RunConfig, Tracking};
    use crate::core::{GpuType, NodeGroup, NodeSpec, TimelineRow};
    use crate::policies::rounds::admission::accept_all::AcceptAll;

    /// Three 1-GPU alexnet jobs (best case 12 CPUs, 125 GB, speedup 2.94) on one 8-GPU server
    /// with 24 CPUs: the first round's timeline under `mode`.
    fn first_round(mode: AllocationMode) -> TimelineRow {
        let node = NodeSpec { gpus: 8, gpu_type: GpuType::default(), cpus: Some(24), memory_gb: Some(500.0) };
        let cluster = ClusterSpec::from_groups(&[NodeGroup { count: 1, node }]);
        let config = RunConfig {
            cluster: cluster.clone(),
            round_seconds: 300.0,
            tracking: Tracking::All,
            horizon: Some(300.0),
            starvation_guard: None,
            record_timeline: true,
        };
        let decision = Box::new(SynergyRound::new(Order::Fifo, mode, false, &cluster, 300.0));
        let policies = Policies { admission: Box::new(AcceptAll), decision, overhead: None };
        let jobs = (0..3).map(|id| JobSpec {
            id,
            gpus: 1,
            work: 60_000.0,
            iterations: Some(100_000.0),
            model: Some("alexnet".into()),
            ..JobSpec::default()
        });
        let out = Engine::new(config, policies, jobs).unwrap().run().unwrap();
        out.timeline[0]
    }

    #[test]
    fn greedy_leaves_a_gpu_idle_and_tune_takes_a_peers_excess() {
        // Greedy: two jobs take all 24 CPUs; the third does not fit and waits beside idle GPUs.
        let greedy = first_round(AllocationMode::Greedy);
        assert_eq!((greedy.running, greedy.cpus_in_use, greedy.memory_gb_in_use), (2, Some(24.0), Some(250.0)));
        // Tune: the third falls back to the proportional share (3 CPUs, 62.5 GB), which is not
        // free either, so job 0 drops to its proportional share and the third fits.
        let tune = first_round(AllocationMode::Tune);
        assert_eq!((tune.running, tune.cpus_in_use, tune.memory_gb_in_use), (3, Some(18.0), Some(250.0)));
        let fair = first_round(AllocationMode::Fair);
        assert_eq!((fair.running, fair.cpus_in_use, fair.memory_gb_in_use), (3, Some(9.0), Some(187.5)));
    }
}
