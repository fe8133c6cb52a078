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
//! The Blox rule in full, with blox's differences: `docs/blox-semantics.md` §3.3.

use super::priority_walk::{GpuChooser, PriorityWalk};
use crate::core::{Cluster, GpuId, JobSlot, JobSpec, JobTable, Placement, PlacementDecisions};
use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "consolidated",
    kind: Kind::Placement,
    engine: Engine::Rounds,
    summary: "fewest nodes per job (exact fit, then best fit), preempting like scattered",
    options: &[],
    source: "Blox placement/placement.py _consolidated_placement, extended to multi-node jobs as Tiresias' YARN-style consolidation",
    placement: None,
    parse: &|node| without_options(node, || Built::Placement(Box::new(Consolidated::default()))),
};

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
    fn choose(&self, cluster: &Cluster, job: &JobSpec, out: &mut Vec<GpuId>) -> bool {
        let needed = job.gpus;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{ClusterSpec, NodeSpec};

    fn cluster(free: &[u32]) -> Cluster {
        // Nodes of 4 GPUs with the first `4 - free[n]` GPUs of node n taken.
        let mut c = Cluster::new(ClusterSpec { nodes: free.iter().map(|_| NodeSpec::with_gpus(4)).collect() });
        for (n, &f) in free.iter().enumerate() {
            let taken: Vec<GpuId> = (0..4 - f).map(|g| n as GpuId * 4 + g).collect();
            c.assign(&taken, JobSlot(99));
        }
        c
    }

    fn choose(c: &Cluster, needed: u32) -> Option<Vec<GpuId>> {
        let mut out = Vec::new();
        FewestNodes.choose(c, &JobSpec { gpus: needed, ..JobSpec::default() }, &mut out).then_some(out)
    }

    #[test]
    fn prefers_an_exact_fit_then_the_tightest_node() {
        let c = cluster(&[4, 3, 2, 1]);
        assert_eq!(choose(&c, 2), Some(vec![10, 11]), "exact fit on node 2");
        assert_eq!(choose(&c, 3), Some(vec![5, 6, 7]), "exact fit on node 1");
        let c = cluster(&[4, 3, 1, 1]);
        assert_eq!(choose(&c, 2), Some(vec![5, 6]), "node 1 (3 free) is tighter than node 0 (4 free)");
    }

    #[test]
    fn waits_rather_than_fragment_a_job_that_fits_one_node() {
        let c = cluster(&[2, 2, 1]);
        assert_eq!(choose(&c, 3), None);
    }

    #[test]
    fn wide_jobs_take_whole_free_nodes_plus_the_best_fit_remainder() {
        let c = cluster(&[4, 3, 4, 2]);
        // 6 GPUs: whole nodes 0 and 2 would give 8 > 6, so one whole node (0) plus 2 from node 3.
        assert_eq!(choose(&c, 6), Some(vec![0, 1, 2, 3, 14, 15]));
        assert_eq!(choose(&c, 8), Some(vec![0, 1, 2, 3, 8, 9, 10, 11]));
        assert_eq!(choose(&cluster(&[3, 3, 3]), 6), None, "no free node to anchor a wide job");
    }
}
