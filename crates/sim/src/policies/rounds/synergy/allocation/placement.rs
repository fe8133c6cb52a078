//! Synergy's two placements (docs/synergy-semantics.md §5.3-5.4; `Cluster._top_synergy_gpus`
//! and `allocate_synergy_placement` with `_top_synergy_gpus_placement` at 1bb2bed): free GPUs in
//! id order while their server has the per-GPU share, or consolidating (`+place`).

use super::{Allocator, add};
use crate::core::GpuId;
use crate::policies::rounds::synergy::round::{Allocation, Amounts};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

impl Allocator<'_> {
    /// Where `demand` (`[g, cpus, memory]` for the whole job) fits, by the run's placement.
    pub(super) fn place(&mut self, demand: Amounts, gpus: u32) -> Option<Allocation> {
        if self.no_room.contains(&(demand, gpus)) {
            return None;
        }
        let per_gpu: Amounts = std::array::from_fn(|i| demand[i] / demand[0]);
        let placed = if self.consolidate {
            self.place_consolidated(demand, per_gpu, gpus)
        } else {
            self.place_by_gpu_order(per_gpu, gpus)
        };
        self.hold.iter_mut().for_each(|h| *h = [0.0; 3]);
        if placed.is_none() {
            self.no_room.push((demand, gpus));
        }
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
            if self.cluster.free_on_node(node) == 0 || !self.fits(node, &per_gpu) {
                continue;
            }
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
