//! The round frame every policy of Pollux's simulator shares (`docs/pollux-semantics.md` §2):
//! at each interval boundary the allocator maps every active job to a list of node ids (one per
//! GPU); a job whose list changed restarts (a launch, or a resize when it was running: 30 s
//! without progress either way, §3.6), one whose list emptied is preempted; then every job
//! holding GPUs is advanced over the interval by the job model, finishing at the second it
//! completes (`RoundTiming::FixedEndsInside`), slowed when it shares a node with another
//! distributed job (§3.7). The interval may span several of the engine's rounds (Figure 8b's
//! intervals in one spec): the frame then decides and advances at the interval's first round,
//! as the original steps a whole interval at once, and hands the engine each round's share.

use super::job::{Advance, BatchRule, SimJob};
use super::profile::{Application, Profiles};
use crate::core::{
    ActiveJob, Cluster, GpuId, JobId, JobSlot, JobSpec, JobTable, Launch, PlacementDecisions, PolicyError, Quantum,
    RoundPolicy, RoundTiming, SimTime,
};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// What an allocator sees of one active job.
pub struct JobView<'a> {
    pub spec: &'a JobSpec,
    pub sim: &'a SimJob,
    pub app: &'a Application,
    /// Its current allocation: one node id per GPU, grouped by node.
    pub alloc: &'a [u32],
}

/// The cluster as the original's policies see it: identical nodes.
#[derive(Debug, Clone, Copy)]
pub struct Nodes {
    pub count: usize,
    pub gpus_per_node: u32,
}

impl Nodes {
    pub fn total(&self) -> u32 {
        self.count as u32 * self.gpus_per_node
    }
}

/// A policy of the family: the allocation at each interval boundary.
pub trait Allocator: Send {
    /// How a new job chooses its batch under this policy.
    fn batch_rule(&self, spec: &JobSpec, app: &Application) -> Result<BatchRule, String>;

    /// Whether jobs learn a model of their own speed (Pollux's agents), which this policy reads.
    fn learns_throughput(&self) -> bool {
        false
    }

    /// Every active job's new allocation (node ids, one per GPU; empty for none), in `jobs`'
    /// order, which is arrival order. `now` is the boundary in whole seconds.
    fn allocate(&mut self, now: i64, jobs: &[JobView<'_>], nodes: Nodes) -> Result<Vec<Vec<u32>>, String>;
}

struct Tracked {
    sim: SimJob,
    alloc: Vec<u32>,
    /// What the current interval does to it, `None` while it holds no GPUs.
    advance: Option<Advance>,
}

/// A [`RoundPolicy`] running one allocator of the family over the shared job model.
pub struct PolluxFrame<A> {
    profiles: Arc<Profiles>,
    allocator: A,
    interval: i64,
    interference: f64,
    /// Seconds since the current interval began, at the current round.
    into_interval: i64,
    /// Active jobs by id: arrival order, which is the original's job order.
    tracked: BTreeMap<JobId, Tracked>,
}

impl<A: Allocator> PolluxFrame<A> {
    /// `interval` is the time between decisions in whole seconds, a multiple of the engine's
    /// round; `interference` the progress lost by a distributed job on a node that hosts another
    /// distributed job.
    pub fn new(profiles: Arc<Profiles>, allocator: A, interval: i64, interference: f64) -> Self {
        Self { profiles, allocator, interval, interference, into_interval: 0, tracked: BTreeMap::new() }
    }

    fn track_new_jobs(&mut self, jobs: &JobTable, order: &[JobSlot]) -> Result<(), PolicyError> {
        for &slot in order {
            let spec = &jobs[slot].spec;
            if self.tracked.contains_key(&spec.id) {
                continue;
            }
            let model = spec.model.as_deref().unwrap_or("");
            let app = self.profiles.index(model).ok_or_else(|| {
                PolicyError(format!(
                    "job {}: application `{model}` has no Pollux profile (expected one of {})",
                    spec.id,
                    self.profiles.applications.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", ")
                ))
            })?;
            let rule = self
                .allocator
                .batch_rule(spec, &self.profiles.applications[app])
                .map_err(|e| PolicyError(format!("job {}: {e}", spec.id)))?;
            self.tracked.insert(
                spec.id,
                Tracked {
                    sim: SimJob::new(app, rule, self.allocator.learns_throughput()),
                    alloc: Vec::new(),
                    advance: None,
                },
            );
        }
        Ok(())
    }
}

/// GPUs per node of an allocation list, consecutive equal ids forming one entry (§2.2).
pub fn placement_of(alloc: &[u32]) -> Vec<u32> {
    let mut placement: Vec<u32> = Vec::new();
    for (i, node) in alloc.iter().enumerate() {
        if i > 0 && alloc[i - 1] == *node {
            *placement.last_mut().expect("a previous entry") += 1;
        } else {
            placement.push(1);
        }
    }
    placement
}

impl<A: Allocator> RoundPolicy for PolluxFrame<A> {
    fn decide(
        &mut self,
        now: SimTime,
        jobs: &JobTable,
        order: &mut [JobSlot],
        cluster: &mut Cluster,
        decisions: &mut PlacementDecisions,
    ) -> Result<(), PolicyError> {
        // Between decisions the allocation and the interval's advance stand.
        let seconds = now.round() as i64;
        self.into_interval = seconds.rem_euclid(self.interval);
        if self.into_interval != 0 {
            return Ok(());
        }
        let slots: BTreeMap<JobId, JobSlot> = order.iter().map(|&slot| (jobs[slot].spec.id, slot)).collect();
        self.tracked.retain(|id, _| slots.contains_key(id));
        self.track_new_jobs(jobs, order)?;
        let spec = cluster.spec();
        let nodes = Nodes { count: cluster.node_count(), gpus_per_node: spec.nodes.first().map_or(0, |n| n.gpus) };
        let views: Vec<JobView<'_>> = self
            .tracked
            .iter()
            .map(|(id, t)| JobView {
                spec: &jobs[slots[id]].spec,
                sim: &t.sim,
                app: &self.profiles.applications[t.sim.app],
                alloc: &t.alloc,
            })
            .collect();
        let mut allocs = self.allocator.allocate(seconds, &views, nodes).map_err(PolicyError)?;
        drop(views);
        // Give back the GPUs of every job whose list changed, then place the new lists.
        for ((id, tracked), new) in self.tracked.iter().zip(&allocs) {
            let job = &jobs[slots[id]];
            if *new != tracked.alloc && !job.gpus.is_empty() {
                cluster.release_holding(&job.gpus, job.spec.milli_per_gpu(), slots[id]);
            }
        }
        for ((id, tracked), new) in self.tracked.iter_mut().zip(allocs.iter_mut()) {
            if *new == tracked.alloc {
                continue;
            }
            let slot = slots[id];
            let running = !jobs[slot].gpus.is_empty();
            let app = &self.profiles.applications[tracked.sim.app];
            tracked.alloc = std::mem::take(new);
            tracked.sim.reallocate(app, placement_of(&tracked.alloc));
            if tracked.alloc.is_empty() {
                if running {
                    decisions.preempt.push(slot);
                }
                continue;
            }
            let mut gpus: Vec<GpuId> = Vec::with_capacity(tracked.alloc.len());
            for &node in &tracked.alloc {
                let gpu = cluster.free_gpus_on_node(node as usize).next().ok_or_else(|| {
                    PolicyError(format!("job {id}: node {node} has no free GPU left for its allocation"))
                })?;
                cluster.assign(&[gpu], slot);
                gpus.push(gpu);
            }
            let launch = Launch::gpus(slot, gpus);
            if running { decisions.resize.push(launch) } else { decisions.launch.push(launch) }
        }
        // Interference (§3.7): a node hosting two distributed jobs slows every distributed job
        // on it for the whole interval.
        let mut distributed_on: BTreeMap<u32, u32> = BTreeMap::new();
        let spans: Vec<BTreeSet<u32>> = self.tracked.values().map(|t| t.alloc.iter().copied().collect()).collect();
        for span in spans.iter().filter(|s| s.len() > 1) {
            for &node in span {
                *distributed_on.entry(node).or_default() += 1;
            }
        }
        let interval = self.interval;
        for (tracked, span) in self.tracked.values_mut().zip(&spans) {
            if tracked.alloc.is_empty() {
                tracked.advance = None;
                continue;
            }
            let hot = span.len() > 1 && span.iter().any(|n| distributed_on.get(n).is_some_and(|&c| c > 1));
            let slowdown = if hot { self.interference } else { 0.0 };
            let app = &self.profiles.applications[tracked.sim.app];
            let advance = tracked.sim.advance(app, interval, slowdown).map_err(|e| {
                PolicyError(format!(
                    "{}: no step time for placement {:?} at per-GPU batch {} (outside the profile)",
                    app.name, e.placement, e.local_bsz
                ))
            })?;
            tracked.advance = Some(advance);
        }
        Ok(())
    }

    /// A job needs an application the profiles describe and what the allocator's batch rule
    /// reads (the workload's batch size for the baselines).
    fn computes_work(&self) -> bool {
        true
    }

    fn check_job(&self, job: &JobSpec) -> Result<(), String> {
        let model = job.model.as_deref().ok_or("the workload gives no application (model)")?;
        let app = self.profiles.index(model).ok_or_else(|| {
            let names: Vec<&str> = self.profiles.applications.iter().map(|a| a.name.as_str()).collect();
            format!("application `{model}` has no Pollux profile (expected one of {})", names.join(", "))
        })?;
        self.allocator.batch_rule(job, &self.profiles.applications[app]).map(drop)
    }

    /// This round's share of the interval's advance: its seconds, and the interval's progress
    /// (with the completion, if any) in the round where the interval's work ends.
    fn quantum(&self, job: &ActiveJob, _cluster: &Cluster, round_seconds: f64) -> Quantum {
        let Some(advance) = self.tracked.get(&job.spec.id).and_then(|t| t.advance) else {
            return Quantum::default();
        };
        let (start, end) = (self.into_interval, self.into_interval + round_seconds.round() as i64);
        let until = advance.completed_after.unwrap_or(self.interval);
        let last = until <= end;
        Quantum {
            work: if last { advance.progress } else { 0.0 },
            seconds: (until.min(end) - start).max(0) as f64,
            overhead: 0.0,
            completes: last && advance.completed_after.is_some(),
            abandons: false,
        }
    }

    fn timing(&self) -> RoundTiming {
        RoundTiming::FixedEndsInside
    }
}

/// Places `count` GPUs for one job the way both baselines do: repeatedly on the node with the
/// most free GPUs (lowest id on ties), as many as fit there. `free` is per node and updated.
pub fn most_free_first(free: &mut [u32], count: u32) -> Vec<u32> {
    let mut alloc = Vec::with_capacity(count as usize);
    while (alloc.len() as u32) < count {
        let (node, &available) = free
            .iter()
            .enumerate()
            .fold(None, |best: Option<(usize, &u32)>, (n, f)| match best {
                Some((_, b)) if *b >= *f => best,
                _ => Some((n, f)),
            })
            .expect("a cluster has nodes");
        let take = available.min(count - alloc.len() as u32);
        assert!(take > 0, "placing {count} GPUs on a cluster without them");
        alloc.extend(std::iter::repeat_n(node as u32, take as usize));
        free[node] -= take;
    }
    alloc
}

/// Node lists for GPU counts dealt without placement (`counts`, one per job of `jobs`): a job
/// whose count is unchanged keeps its list, so it does not restart; the others, fewest GPUs
/// first (arrival order on ties), are placed by `place` on what is left, as both count-dealing
/// policies (Optimus+Oracle, AFS) do, with their own node choice.
pub fn keep_or_place(
    jobs: &[JobView<'_>],
    counts: &[u32],
    nodes: Nodes,
    mut place: impl FnMut(&mut [u32], u32) -> Vec<u32>,
) -> Vec<Vec<u32>> {
    let mut allocs: Vec<Vec<u32>> = jobs
        .iter()
        .zip(counts)
        .map(|(j, &k)| if j.alloc.len() as u32 == k { j.alloc.to_vec() } else { Vec::new() })
        .collect();
    let mut free = free_per_node(nodes, allocs.iter().map(Vec::as_slice));
    let mut by_count: Vec<usize> = (0..jobs.len()).collect();
    by_count.sort_by_key(|&i| counts[i]);
    for i in by_count {
        if counts[i] > 0 && allocs[i].is_empty() {
            allocs[i] = place(&mut free, counts[i]);
        }
    }
    allocs
}

/// Free GPUs per node once `kept` allocations hold theirs.
pub fn free_per_node<'a>(nodes: Nodes, kept: impl IntoIterator<Item = &'a [u32]>) -> Vec<u32> {
    let mut free = vec![nodes.gpus_per_node; nodes.count];
    for alloc in kept {
        for &node in alloc {
            free[node as usize] -= 1;
        }
    }
    free
}
