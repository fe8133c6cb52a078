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

use super::AllocationMode;
use super::round::{Allocation, Amounts, JobStates, Shape};
use crate::core::{Cluster, GpuId, JobSlot, PolicyError, SimTime};
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};

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

    fn tune(&mut self, slot: JobSlot, now: SimTime) -> Result<Allocation, PolicyError> {
        let gpus = self.jobs[slot].gpus;
        let mut demand = self.jobs[slot].best_amounts();
        if let Some(allocation) = self.place(demand, gpus) {
            return Ok(allocation);
        }
        if let Some(fair) = self.fair_fallback(demand, gpus) {
            demand = fair;
            self.jobs[slot].speedup = 1.0;
        }
        if let Some(allocation) = self.place(demand, gpus) {
            return Ok(allocation);
        }
        self.take_from_peers(demand, gpus);
        self.place(demand, gpus).ok_or_else(|| {
            PolicyError(format!(
                "Synergy-Tune found no room for job {} ({gpus} GPUs) in the round at t = {now} s even after \
                 taking its peers' excess (the original exits here)",
                self.jobs[slot].id()
            ))
        })
    }

    /// Servers whose peers may give up resources, with the job's GPUs on each.
    fn peer_targets(&self, gpus: u32) -> Vec<(usize, u32)> {
        let nodes = self.cluster.node_count();
        if gpus > 1
            && let Some(node) = (0..nodes).find(|&n| self.cluster.free_on_node(n) >= gpus)
        {
            return vec![(node, gpus)];
        }
        let mut heap: BinaryHeap<Reverse<(u32, usize)>> = (0..nodes)
            .filter(|&n| self.cluster.free_on_node(n) > 0)
            .map(|n| Reverse((self.cluster.free_on_node(n), n)))
            .collect();
        let mut targets = Vec::new();
        let mut left = gpus;
        while left > 0 {
            let Some(Reverse((free, node))) = heap.pop() else { break };
            if free >= left {
                targets.push((node, left));
                break;
            }
            targets.push((node, free));
            left -= free;
        }
        targets
    }

    fn take_from_peers(&mut self, demand: Amounts, gpus: u32) {
        for (node, share_gpus) in self.peer_targets(gpus) {
            let free = [
                f64::from(self.cluster.free_on_node(node)),
                self.cluster.free_cpus(node),
                self.cluster.free_memory_gb(node),
            ];
            let ratio = f64::from(share_gpus) / f64::from(gpus);
            let mut need: Amounts = std::array::from_fn(|i| (demand[i] * ratio - free[i]).max(0.0));
            if need.iter().all(|&v| v == 0.0) {
                continue;
            }
            let mut peers = std::mem::take(&mut self.server_jobs[node]);
            let order_key = |peer: &JobSlot| {
                let allocation = self.jobs[*peer].allocation.as_ref().expect("placed this round");
                let totals = allocation.totals();
                (allocation.per_node.len(), -(totals[1] / totals[0]), -(totals[2] / totals[0]))
            };
            peers.sort_by(|a, b| {
                let (ka, kb) = (order_key(a), order_key(b));
                ka.0.cmp(&kb.0)
                    .then(ka.1.partial_cmp(&kb.1).unwrap_or(Ordering::Equal))
                    .then(ka.2.partial_cmp(&kb.2).unwrap_or(Ordering::Equal))
            });
            let mut victims = Vec::new();
            for &peer in &peers {
                let allocation = self.jobs[peer].allocation.as_ref().expect("placed this round");
                let here = allocation.gpus_on(node);
                let totals = allocation.totals();
                let share = here / totals[0];
                let fair = self.shape.fair_per_gpu;
                let excess: Amounts = std::array::from_fn(|i| (totals[i] * share - fair[i] * here).max(0.0));
                let left: Amounts = std::array::from_fn(|i| (need[i] - excess[i]).max(0.0));
                if left.iter().all(|&v| v == 0.0) {
                    victims.push(peer);
                    break;
                } else if left.iter().all(|&v| v > 0.0) {
                    continue;
                }
                victims.push(peer);
                need = left;
            }
            self.server_jobs[node] = peers;
            for peer in victims {
                self.readjust_peer(peer);
            }
        }
    }

    /// A peer gives up its excess: it keeps its GPUs at the proportional share (or its own demand
    /// if smaller), credited at speedup 1 instead of this round's credit.
    fn readjust_peer(&mut self, peer: JobSlot) {
        let old = self.jobs[peer].allocation.take().expect("placed this round");
        self.cluster.release(&old.gpus, peer);
        self.cluster.release_host(&old.host_shares());
        let job = &mut self.jobs[peer];
        job.roll_back(self.round_s);
        let gpus = job.gpus;
        let mut demand = job.best_amounts();
        let fallback = {
            let fair = self.fair_share(gpus);
            (0..3).any(|i| demand[i] > fair[i]).then_some([demand[0], fair[1], fair[2]])
        };
        let job = &mut self.jobs[peer];
        if let Some(fair) = fallback {
            demand = fair;
            job.speedup = 1.0;
        }
        let count = old.gpus.len() as f64;
        let per_node = old
            .per_node
            .iter()
            .map(|&(node, amounts)| {
                let share = amounts[0] / count;
                (node, [demand[0] * share, demand[1] * share, demand[2] * share])
            })
            .collect();
        let allocation = Allocation { gpus: old.gpus, per_node };
        job.credit(self.round_s, 1.0);
        self.commit(peer, &allocation);
        self.jobs[peer].allocation = Some(allocation);
    }

    fn commit(&mut self, slot: JobSlot, allocation: &Allocation) {
        self.cluster.assign(&allocation.gpus, slot);
        for share in allocation.host_shares() {
            self.cluster.hold(&share);
        }
    }

    /// Where `demand` (`[g, cpus, memory]` for the whole job) fits, by the run's placement.
    fn place(&mut self, demand: Amounts, gpus: u32) -> Option<Allocation> {
        let per_gpu: Amounts = std::array::from_fn(|i| demand[i] / demand[0]);
        let placed = if self.consolidate {
            self.place_consolidated(demand, per_gpu, gpus)
        } else {
            self.place_by_gpu_order(per_gpu, gpus)
        };
        self.hold.iter_mut().for_each(|h| *h = [0.0; 3]);
        placed
    }

    /// Whether `node`, less what this attempt set aside there, still has `amounts`.
    fn fits(&self, node: usize, amounts: &Amounts) -> bool {
        let hold = &self.hold[node];
        let free = [
            f64::from(self.cluster.free_on_node(node)) - hold[0],
            self.cluster.free_cpus(node) - hold[1],
            self.cluster.free_memory_gb(node) - hold[2],
        ];
        (0..3).all(|i| free[i] >= amounts[i])
    }

    fn set_aside(&mut self, node: usize, amounts: &Amounts, per_node: &mut Vec<(usize, Amounts)>) {
        add(&mut self.hold[node], amounts);
        match per_node.iter_mut().find(|(n, _)| *n == node) {
            Some((_, sum)) => add(sum, amounts),
            None => per_node.push((node, *amounts)),
        }
    }

    fn place_by_gpu_order(&mut self, per_gpu: Amounts, gpus: u32) -> Option<Allocation> {
        let mut chosen: Vec<GpuId> = Vec::with_capacity(gpus as usize);
        let mut per_node = Vec::new();
        for node in self.cluster.first_node_with_free()..self.cluster.node_count() {
            let free: Vec<GpuId> = self.cluster.free_gpus_on_node(node).collect();
            for gpu in free {
                // Nothing on this node changes until a GPU is taken here, so a node that does not
                // fit now does not fit for its later GPUs either.
                if !self.fits(node, &per_gpu) {
                    break;
                }
                chosen.push(gpu);
                self.set_aside(node, &per_gpu, &mut per_node);
                if chosen.len() == gpus as usize {
                    return Some(Allocation { gpus: chosen, per_node });
                }
            }
        }
        None
    }

    fn place_consolidated(&mut self, demand: Amounts, per_gpu: Amounts, gpus: u32) -> Option<Allocation> {
        let nodes: Vec<usize> = (self.cluster.first_node_with_free()..self.cluster.node_count())
            .filter(|&n| self.cluster.free_on_node(n) > 0)
            .collect();
        if gpus > 1 {
            let mut best: Option<(u32, usize)> = None;
            for &node in &nodes {
                let free = self.cluster.free_on_node(node);
                if self.fits(node, &demand) && best.is_none_or(|(f, _)| free < f) {
                    best = Some((free, node));
                }
            }
            if let Some((_, node)) = best {
                let chosen = self.cluster.free_gpus_on_node(node).take(gpus as usize).collect();
                return Some(Allocation { gpus: chosen, per_node: vec![(node, demand)] });
            }
        }
        let mut free: HashMap<usize, Vec<GpuId>> =
            nodes.iter().map(|&n| (n, self.cluster.free_gpus_on_node(n).collect())).collect();
        let mut heap: BinaryHeap<Reverse<(usize, usize)>> = free.iter().map(|(&n, g)| Reverse((g.len(), n))).collect();
        let mut chosen = Vec::with_capacity(gpus as usize);
        let mut per_node = Vec::new();
        while chosen.len() < gpus as usize {
            let Some(Reverse((_, node))) = heap.pop() else { break };
            if self.fits(node, &per_gpu) {
                self.set_aside(node, &per_gpu, &mut per_node);
                let left = free.get_mut(&node).expect("a node with free GPUs");
                chosen.push(left.pop().expect("a node in the heap has a free GPU"));
                if !left.is_empty() {
                    heap.push(Reverse((left.len(), node)));
                }
            }
        }
        (chosen.len() == gpus as usize).then_some(Allocation { gpus: chosen, per_node })
    }
}

fn add(sum: &mut Amounts, amounts: &Amounts) {
    for (s, a) in sum.iter_mut().zip(amounts) {
        *s += a;
    }
}
