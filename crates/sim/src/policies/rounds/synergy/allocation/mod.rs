//! Synergy's allocation modes and its two placements: how one job gets GPUs, CPUs and memory in
//! a round.
//!
//! Rules (`docs/synergy-semantics.md` §5; Synergy `resources/cluster.py` at 1bb2bed):
//!
//! * **fair** (`+fair`): the GPU-proportional share of CPUs and memory per GPU, credited at
//!   speedup 1. **greedy** (no suffix): the job's best-case demand; if it does not fit the job
//!   waits this round, even with GPUs free (quirk 4). **tune** (`+tune`, `_tune`): the best case;
//!   else, if it asks more than the proportional share, the proportional share at speedup 1; else
//!   peers give up their excess and the proportional share is tried once more (the original exits
//!   if that fails; blox stops the run with an error naming the job).
//! * **Peers** (`_get_underutilized_servers`, `_reallocate_peer`): the target servers are the
//!   first server with enough free GPUs for a multi-GPU job, else the servers with the fewest free
//!   GPUs until the job's GPUs are covered. On each target whose free CPUs or memory fall short of
//!   the job's share there, the jobs placed on it this round are sorted (in place, stably) by the
//!   servers they span, then CPUs and memory per GPU, most first, and taken in that order until
//!   their excess over the proportional share covers the need. Each such peer is released,
//!   its round's credit rolled back, and re-placed on the same GPUs at its proportional share
//!   (or its own demand, if smaller), credited at speedup 1 (quirk 13).
//! * **Placement by GPU order** (`_top_synergy_gpus`): free GPUs in id order, each taken while its
//!   server still holds the per-GPU share; a multi-GPU job may span servers (quirk 5).
//!   **Consolidating placement** (`+place`, `allocate_synergy_placement`): a multi-GPU job goes
//!   whole onto the fitting server with the fewest free GPUs; otherwise (and for one GPU) GPU by
//!   GPU from a heap of servers by free GPUs, fewest first, a server that does not fit dropped.
//!
//! Every amount Synergy's profiles produce is a multiple of 1/8, so the sums here are exact and
//! equal the original's bit for bit.

mod placement;
mod tune;

use super::AllocationMode;
use super::round::{Allocation, Amounts, JobStates, Shape};
use crate::core::{Cluster, JobSlot, PolicyError, SimTime};

/// One round's allocation state.
pub(super) struct Allocator<'a> {
    cluster: &'a mut Cluster,
    jobs: &'a mut JobStates,
    shape: &'a Shape,
    mode: AllocationMode,
    consolidate: bool,
    round_s: f64,
    /// Jobs placed on each server this round, in placement order: Tune's peers.
    server_jobs: Vec<Vec<JobSlot>>,
    /// Amounts set aside on each server during one placement attempt.
    hold: Vec<Amounts>,
    /// Demands (whole job, GPUs) that found no room since the cluster last changed: they find
    /// none again, so the many jobs waiting with the same demand are not placed one by one.
    no_room: Vec<(Amounts, u32)>,
}

impl<'a> Allocator<'a> {
    pub(super) fn new(
        cluster: &'a mut Cluster,
        jobs: &'a mut JobStates,
        shape: &'a Shape,
        mode: AllocationMode,
        consolidate: bool,
        round_s: f64,
    ) -> Self {
        let nodes = cluster.node_count();
        Self {
            cluster,
            jobs,
            shape,
            mode,
            consolidate,
            round_s,
            server_jobs: vec![Vec::new(); nodes],
            hold: vec![[0.0; 3]; nodes],
            no_room: Vec::new(),
        }
    }

    pub(super) fn cluster_is_full(&self) -> bool {
        self.cluster.free_gpus() == 0
    }

    /// Allocates the job in `slot` by the mode if its GPUs are free in number, or leaves it
    /// waiting.
    pub(super) fn allocate(&mut self, slot: JobSlot, now: SimTime) -> Result<(), PolicyError> {
        let job = &self.jobs[slot];
        let gpus = job.gpus;
        if gpus > self.cluster.free_gpus() {
            return Ok(());
        }
        let placed = match self.mode {
            AllocationMode::Fair => self.place(self.fair_share(gpus), gpus),
            AllocationMode::Greedy => self.place(job.best_amounts(), gpus),
            AllocationMode::Tune => Some(self.tune(slot, now)?),
            AllocationMode::Opt => unreachable!("OPT solves the round as one program"),
        };
        if let Some(allocation) = placed {
            self.commit(slot, &allocation);
            for &(node, _) in &allocation.per_node {
                self.server_jobs[node].push(slot);
            }
            let job = &mut self.jobs[slot];
            let rate = if self.mode == AllocationMode::Fair { 1.0 } else { job.speedup };
            job.credit(self.round_s, rate);
            job.allocation = Some(allocation);
        }
        Ok(())
    }

    /// `[g, cpus, memory]` at the GPU-proportional share.
    fn fair_share(&self, gpus: u32) -> Amounts {
        let g = f64::from(gpus);
        let fair = self.shape.fair_per_gpu;
        [fair[0] * g, fair[1] * g, fair[2] * g]
    }

    /// `_make_fair_share`: the proportional share if `demand` asks more than it anywhere.
    fn fair_fallback(&self, demand: Amounts, gpus: u32) -> Option<Amounts> {
        let fair = self.fair_share(gpus);
        (0..3).any(|i| demand[i] > fair[i]).then_some([demand[0], fair[1], fair[2]])
    }

    fn commit(&mut self, slot: JobSlot, allocation: &Allocation) {
        self.no_room.clear();
        self.cluster.assign(&allocation.gpus, slot);
        for share in allocation.host_shares() {
            self.cluster.hold(&share);
        }
    }
}

fn add(sum: &mut Amounts, amounts: &Amounts) {
    for (s, a) in sum.iter_mut().zip(amounts) {
        *s += a;
    }
}
