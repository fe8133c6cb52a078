//! `scattered`: Blox's default "Place" policy.
//!
//! Rule: take the job's GPUs from the free ones in node order, lowest GPU id first, spreading over
//! as many nodes as needed; launch/preempt by priority as in [`super::priority_walk`].
//! Source: Blox `placement/placement.py` (`_scattered_placement`). Blox's version succeeds only if
//! the running count hits the demand exactly after some node (taking up to `n` GPUs per node can
//! overshoot and fail, e.g. 2 GPUs wanted, nodes with 1 and 2 free); blox takes exactly the GPUs it
//! needs. The two agree for 1-GPU jobs, the only kind Blox's figures use.
//! The Blox rule in full, with blox's differences: `docs/blox-semantics.md` §3.2.

use super::priority_walk::{GpuChooser, PriorityWalk};
use crate::core::{Cluster, GpuId, JobSlot, JobSpec, JobTable, Placement, PlacementDecisions};
use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "scattered",
    kind: Kind::Placement,
    engine: Engine::Rounds,
    summary: "first free GPUs in node order, preempting lowest-priority jobs",
    options: &[],
    source: "Blox \"Place\" (placement/placement.py _scattered_placement)",
    placement: None,
    parse: &|node| without_options(node, || Built::Placement(Box::new(Scattered::default()))),
};

#[derive(Default)]
pub struct Scattered {
    walk: PriorityWalk,
}

struct FirstFree;

impl GpuChooser for FirstFree {
    fn choose(&self, cluster: &Cluster, job: &JobSpec, out: &mut Vec<GpuId>) -> bool {
        let needed = job.gpus;
        out.clear();
        if cluster.free_gpus() < needed {
            return false;
        }
        for node in cluster.first_node_with_free()..cluster.node_count() {
            if cluster.free_on_node(node) == 0 {
                continue;
            }
            let missing = needed as usize - out.len();
            out.extend(cluster.free_gpus_on_node(node).take(missing));
            if out.len() == needed as usize {
                return true;
            }
        }
        unreachable!("free GPU count and per-node free counts disagree")
    }
}

impl Placement for Scattered {
    fn place(&mut self, jobs: &JobTable, order: &[JobSlot], cluster: &mut Cluster, decisions: &mut PlacementDecisions) {
        self.walk.place(&FirstFree, jobs, order, cluster, decisions);
    }
}
