//! Synergy-Tune (`+tune`, `Cluster._tune`, `_get_underutilized_servers`, `_reallocate_peer` at
//! 1bb2bed; docs/synergy-semantics.md §5.5): the best case, else the proportional share at
//! speedup 1, else the excess CPUs and memory of the jobs already placed on the target servers,
//! then one more try; the rule is stated in the parent module's doc.

use super::Allocator;
use crate::core::{JobSlot, PolicyError, SimTime};
use crate::policies::rounds::synergy::round::{Allocation, Amounts};
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

impl Allocator<'_> {
    pub(super) fn tune(&mut self, slot: JobSlot, now: SimTime) -> Result<Allocation, PolicyError> {
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
        self.no_room.clear();
        self.jobs[peer].roll_back(self.round_s);
        let (gpus, best) = (self.jobs[peer].gpus, self.jobs[peer].best_amounts());
        let fallback = self.fair_fallback(best, gpus);
        let job = &mut self.jobs[peer];
        if fallback.is_some() {
            job.speedup = 1.0;
        }
        let demand = fallback.unwrap_or(best);
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
}
