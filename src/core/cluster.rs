//! The cluster: nodes of GPUs, and which job holds each GPU.
//!
//! A node is a struct rather than a count so that GPU types, CPUs, memory and switches can be
//! added per node later without changing how policies walk the cluster.

use super::JobSlot;

/// Global GPU index, node-major: node 0 holds GPUs `0..gpus(0)`, node 1 the next ones, and so on
/// (Blox registers its 32 x 4 nodes the same way).
pub type GpuId = u32;

/// One machine of the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeSpec {
    pub gpus: u32,
}

/// The machines of a cluster, in registration order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterSpec {
    pub nodes: Vec<NodeSpec>,
}

impl ClusterSpec {
    /// `nodes` identical machines with `gpus_per_node` GPUs each.
    pub fn uniform(nodes: u32, gpus_per_node: u32) -> Self {
        Self { nodes: (0..nodes).map(|_| NodeSpec { gpus: gpus_per_node }).collect() }
    }

    pub fn total_gpus(&self) -> u32 {
        self.nodes.iter().map(|n| n.gpus).sum()
    }
}

/// GPU ownership during a run.
#[derive(Debug, Clone)]
pub struct Cluster {
    spec: ClusterSpec,
    node_first_gpu: Vec<GpuId>,
    gpu_node: Vec<u32>,
    owner: Vec<Option<JobSlot>>,
    free_per_node: Vec<u32>,
    free_total: u32,
}

impl Cluster {
    pub fn new(spec: ClusterSpec) -> Self {
        let mut node_first_gpu = Vec::with_capacity(spec.nodes.len());
        let mut gpu_node = Vec::new();
        for (n, node) in spec.nodes.iter().enumerate() {
            node_first_gpu.push(gpu_node.len() as GpuId);
            gpu_node.extend(std::iter::repeat_n(n as u32, node.gpus as usize));
        }
        let total = gpu_node.len();
        Self {
            free_per_node: spec.nodes.iter().map(|n| n.gpus).collect(),
            free_total: total as u32,
            owner: vec![None; total],
            node_first_gpu,
            gpu_node,
            spec,
        }
    }

    pub fn spec(&self) -> &ClusterSpec {
        &self.spec
    }

    pub fn total_gpus(&self) -> u32 {
        self.owner.len() as u32
    }

    pub fn free_gpus(&self) -> u32 {
        self.free_total
    }

    pub fn node_count(&self) -> usize {
        self.spec.nodes.len()
    }

    pub fn free_on_node(&self, node: usize) -> u32 {
        self.free_per_node[node]
    }

    /// Free GPUs of `node`, lowest id first.
    pub fn free_gpus_on_node(&self, node: usize) -> impl Iterator<Item = GpuId> + '_ {
        let first = self.node_first_gpu[node];
        let count = self.spec.nodes[node].gpus;
        (first..first + count).filter(|&g| self.owner[g as usize].is_none())
    }

    pub fn owner(&self, gpu: GpuId) -> Option<JobSlot> {
        self.owner[gpu as usize]
    }

    /// Gives `gpus` (all currently free) to `job`.
    pub fn assign(&mut self, gpus: &[GpuId], job: JobSlot) {
        for &g in gpus {
            let owner = &mut self.owner[g as usize];
            debug_assert!(owner.is_none(), "GPU {g} assigned twice");
            *owner = Some(job);
            self.free_per_node[self.gpu_node[g as usize] as usize] -= 1;
        }
        self.free_total -= gpus.len() as u32;
    }

    /// Returns `gpus` to the free pool.
    pub fn release(&mut self, gpus: &[GpuId]) {
        for &g in gpus {
            let owner = &mut self.owner[g as usize];
            debug_assert!(owner.is_some(), "GPU {g} released while free");
            *owner = None;
            self.free_per_node[self.gpu_node[g as usize] as usize] += 1;
        }
        self.free_total += gpus.len() as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_ids_are_node_major_and_free_counts_follow_assignments() {
        let mut c = Cluster::new(ClusterSpec::uniform(3, 4));
        assert_eq!(c.total_gpus(), 12);
        assert_eq!(c.free_gpus_on_node(1).collect::<Vec<_>>(), vec![4, 5, 6, 7]);
        c.assign(&[4, 6], JobSlot(7));
        assert_eq!(c.free_on_node(1), 2);
        assert_eq!(c.free_gpus(), 10);
        assert_eq!(c.owner(6), Some(JobSlot(7)));
        assert_eq!(c.free_gpus_on_node(1).collect::<Vec<_>>(), vec![5, 7]);
        c.release(&[4, 6]);
        assert_eq!(c.free_gpus(), 12);
        assert_eq!(c.owner(6), None);
    }
}
