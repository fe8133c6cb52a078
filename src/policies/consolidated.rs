//! `consolidated`: put each job on as few nodes as possible.
//!
//! Rule: a job that fits in one node goes to a node whose free GPUs match its demand exactly,
//! else to the node with the fewest free GPUs that still fits it (best fit, lowest node id on
//! ties). A job wider than every node takes completely free nodes in node order, plus the best-
//! fitting node for the remainder. If no such set exists the job waits, even when enough GPUs are
//! free in fragments. Launch/preempt by priority as in [`super::priority_walk`].
//! Source: Blox `placement/placement.py` (`_consolidated_placement`: exact fit, then the smallest
//! node with enough GPUs; Blox's fallback is dead code through a misspelt variable, so Blox
//! effectively places only on exact fits) extended to multi-node jobs in the way of Tiresias'
//! YARN-style consolidation.

use super::priority_walk::{GpuChooser, PriorityWalk};
use crate::core::{Cluster, GpuId, JobSlot, JobTable, Placement, PlacementDecisions};

#[derive(Default)]
pub struct Consolidated {
    walk: PriorityWalk,
}

struct FewestNodes;

/// The node with the fewest free GPUs that still has `needed`, lowest id on ties.
fn best_fit(cluster: &Cluster, needed: u32, excluded: &[usize]) -> Option<usize> {
    (0..cluster.node_count())
        .filter(|n| cluster.free_on_node(*n) >= needed && !excluded.contains(n))
        .min_by_key(|&n| (cluster.free_on_node(n), n))
}

impl GpuChooser for FewestNodes {
    fn choose(&self, cluster: &Cluster, needed: u32, out: &mut Vec<GpuId>) -> bool {
        out.clear();
        if cluster.free_gpus() < needed || needed == 0 {
            return false;
        }
        let widest = cluster.spec().nodes.iter().map(|n| n.gpus).max().unwrap_or(0);
        if needed <= widest {
            let Some(node) = best_fit(cluster, needed, &[]) else { return false };
            out.extend(cluster.free_gpus_on_node(node).take(needed as usize));
            return true;
        }
        let mut remaining = needed;
        let mut used = Vec::new();
        for node in 0..cluster.node_count() {
            let size = cluster.spec().nodes[node].gpus;
            if size > 0 && size <= remaining && cluster.free_on_node(node) == size {
                out.extend(cluster.free_gpus_on_node(node));
                used.push(node);
                remaining -= size;
            }
        }
        if remaining > 0 {
            let Some(node) = best_fit(cluster, remaining, &used) else {
                out.clear();
                return false;
            };
            out.extend(cluster.free_gpus_on_node(node).take(remaining as usize));
        }
        true
    }
}

impl Placement for Consolidated {
    fn place(&mut self, jobs: &JobTable, order: &[JobSlot], cluster: &mut Cluster, decisions: &mut PlacementDecisions) {
        self.walk.place(&FewestNodes, jobs, order, cluster, decisions);
    }
}
