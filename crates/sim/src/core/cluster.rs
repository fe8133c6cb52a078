//! The cluster: nodes of GPUs (with their type, CPUs and memory), which job holds each GPU, and
//! how much of each node's CPUs and memory jobs hold beside their GPUs.
//!
//! Both engines describe the machines the same way ([`ClusterSpec`]: one [`NodeSpec`] per node,
//! built from groups of identical nodes); what a GPU type means (its throughput tables) is
//! resolved through `crate::profiles` by the caller, so the core only carries the name. CPUs and
//! memory are held only by policies that allocate them (Synergy's family): a job's holding on a
//! node is a [`HostShare`], released with its GPUs.
//!
//! A GPU is held in one of three ways: whole by one owner (every engine's default); whole by an
//! owner and one guest co-located on it (space sharing: Gandiva, Gavel's packed pairs), counted
//! busy once; or in shares of [`MILLI_PER_GPU`] by any number of jobs, each holding some
//! milli-GPU (fractional requests: Alibaba's `gpu_milli`). A GPU with any share in use is not
//! free for a whole-GPU holder, and becomes free again when its last share is given back.

use super::{JobSlot, JobSpec};
use std::sync::Arc;

/// The capacity of one GPU in shares: a job asking for half a GPU holds 500.
pub const MILLI_PER_GPU: u32 = 1000;

/// Global GPU index, node-major: node 0 holds GPUs `0..gpus(0)`, node 1 the next ones, and so on
/// (Blox registers its 32 x 4 nodes the same way).
pub type GpuId = u32;

/// A GPU generation as profiles name it (`a100`, `t4`, ...). Cheap to clone: one per node.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GpuType(Arc<str>);

impl GpuType {
    #[inline]
    pub fn new(name: &str) -> Self {
        Self(Arc::from(name))
    }

    #[inline]
    pub fn name(&self) -> &str {
        &self.0
    }
}

impl Default for GpuType {
    /// `a100`, the type of specs that name none (ElasticFlow's default GPU).
    #[inline]
    fn default() -> Self {
        Self::new("a100")
    }
}

/// One machine of the cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeSpec {
    pub gpus: u32,
    pub gpu_type: GpuType,
    /// CPU cores; `None` where the run does not model CPUs (no policy allocates them).
    pub cpus: Option<u32>,
    /// Memory in GB; `None` where the run does not model memory.
    pub memory_gb: Option<f64>,
}

impl NodeSpec {
    /// A node of `gpus` GPUs of the default type, CPUs and memory not modelled.
    #[inline]
    pub fn with_gpus(gpus: u32) -> Self {
        Self { gpus, gpu_type: GpuType::default(), cpus: None, memory_gb: None }
    }
}

/// `count` identical nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeGroup {
    pub count: u32,
    pub node: NodeSpec,
}

/// The machines of a cluster, in registration order.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterSpec {
    pub nodes: Vec<NodeSpec>,
}

impl ClusterSpec {
    /// `nodes` identical machines with `gpus_per_node` GPUs each, of the default type.
    #[inline]
    pub fn uniform(nodes: u32, gpus_per_node: u32) -> Self {
        Self::from_groups(&[NodeGroup { count: nodes, node: NodeSpec::with_gpus(gpus_per_node) }])
    }

    /// The nodes of each group in turn (GPU ids follow this order).
    #[inline]
    pub fn from_groups(groups: &[NodeGroup]) -> Self {
        Self { nodes: groups.iter().flat_map(|g| std::iter::repeat_n(g.node.clone(), g.count as usize)).collect() }
    }

    #[inline]
    pub fn total_gpus(&self) -> u32 {
        self.nodes.iter().map(|n| n.gpus).sum()
    }

    /// The GPUs `job` could ever get here: all of them, or those of the models it accepts. A
    /// job asking for more can never run; the round engine drops it at arrival as unschedulable.
    #[inline]
    pub fn gpus_available_to(&self, job: &JobSpec) -> u32 {
        self.nodes.iter().filter(|n| job.accepts_model(&n.gpu_type)).map(|n| n.gpus).sum()
    }

    /// The node every node equals, for engines that need identical nodes; `None` if they differ
    /// or there are none.
    #[inline]
    pub fn identical_node(&self) -> Option<&NodeSpec> {
        let first = self.nodes.first()?;
        self.nodes.iter().all(|n| n == first).then_some(first)
    }
}

/// The CPUs and memory one job holds on one node, beside its GPUs there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostShare {
    pub node: u32,
    pub cpus: f64,
    pub memory_gb: f64,
}

/// The owner of a GPU whose node is out of service: no job table reaches this slot.
const OFFLINE: JobSlot = JobSlot(u32::MAX);

/// The owner of a GPU set aside by [`Cluster::reserve`]: held, but by no job yet.
const RESERVED: JobSlot = JobSlot(u32::MAX - 1);

/// GPU ownership and CPU and memory holdings during a run.
///
/// A GPU has at most one owner and, when a policy space-shares it (Gavel's job pairs), one guest
/// running beside the owner; a shared GPU counts as busy once.
#[derive(Debug, Clone)]
pub struct Cluster {
    spec: ClusterSpec,
    node_first_gpu: Vec<GpuId>,
    gpu_node: Vec<u32>,
    owner: Vec<Option<JobSlot>>,
    guest: Vec<Option<JobSlot>>,
    /// Milli-GPU held on each GPU by jobs holding a share of it (0 on a free or whole-held GPU).
    shared_milli: Vec<u32>,
    /// GPUs with no owner and no share in use, per node and in all.
    free_per_node: Vec<u32>,
    free_total: u32,
    /// No node below this one has a free GPU, so first-free scans start here instead of at node
    /// 0 (on 2,500 busy nodes the scan from 0 dominated large runs).
    first_free_node: usize,
    /// CPUs and memory (GB) held on each node, and on all nodes together where every node
    /// models them (kept as jobs come and go: the timeline reads them every round).
    held_cpus: Vec<f64>,
    held_memory_gb: Vec<f64>,
    in_use: (Option<f64>, Option<f64>),
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
            guest: vec![None; total],
            shared_milli: vec![0; total],
            first_free_node: 0,
            held_cpus: vec![0.0; spec.nodes.len()],
            held_memory_gb: vec![0.0; spec.nodes.len()],
            in_use: (
                spec.nodes.iter().all(|n| n.cpus.is_some()).then_some(0.0),
                spec.nodes.iter().all(|n| n.memory_gb.is_some()).then_some(0.0),
            ),
            node_first_gpu,
            gpu_node,
            spec,
        }
    }

    #[inline]
    pub fn spec(&self) -> &ClusterSpec {
        &self.spec
    }

    #[inline]
    pub fn total_gpus(&self) -> u32 {
        self.owner.len() as u32
    }

    #[inline]
    pub fn free_gpus(&self) -> u32 {
        self.free_total
    }

    #[inline]
    pub fn node_count(&self) -> usize {
        self.spec.nodes.len()
    }

    #[inline]
    pub fn free_on_node(&self, node: usize) -> u32 {
        self.free_per_node[node]
    }

    /// The lowest node that may have a free GPU: every node below it is full.
    #[inline]
    pub fn first_node_with_free(&self) -> usize {
        self.first_free_node
    }

    /// Free GPUs of `node` (no owner, no share in use), lowest id first.
    #[inline]
    pub fn free_gpus_on_node(&self, node: usize) -> impl Iterator<Item = GpuId> + '_ {
        self.gpus_of_node(node).filter(|&g| self.owner[g as usize].is_none() && self.shared_milli[g as usize] == 0)
    }

    /// Every GPU of `node`, lowest id first.
    #[inline]
    pub fn gpus_of_node(&self, node: usize) -> std::ops::Range<GpuId> {
        let first = self.node_first_gpu[node];
        first..first + self.spec.nodes[node].gpus
    }

    /// Milli-GPU of `gpu` a share may still take: none on a GPU held whole (or out of service),
    /// [`MILLI_PER_GPU`] on a free one.
    #[inline]
    pub fn free_milli(&self, gpu: GpuId) -> u32 {
        match self.owner[gpu as usize] {
            Some(_) => 0,
            None => MILLI_PER_GPU - self.shared_milli[gpu as usize],
        }
    }

    /// `milli` of `gpu` (more than 0, at most [`Cluster::free_milli`]) go to a job that holds a
    /// share of it; a free GPU stops being free.
    pub fn assign_share(&mut self, gpu: GpuId, milli: u32) {
        let g = gpu as usize;
        debug_assert!(milli > 0 && milli <= self.free_milli(gpu), "GPU {gpu}: {milli} milli-GPU do not fit");
        if self.shared_milli[g] == 0 {
            self.take_from_free_pool(gpu);
        }
        self.shared_milli[g] += milli;
    }

    /// A job gives back its share of `milli` of `gpu`; the GPU is free again once no share is
    /// left.
    pub fn release_share(&mut self, gpu: GpuId, milli: u32) {
        let g = gpu as usize;
        debug_assert!(self.shared_milli[g] >= milli, "GPU {gpu}: more milli-GPU given back than held");
        self.shared_milli[g] -= milli;
        if self.shared_milli[g] == 0 {
            self.return_to_free_pool(gpu);
        }
    }

    /// Gives back what `job` holds of `gpus`: a GPU it holds whole (as owner or guest), or its
    /// share of `milli` of one it shares. The cluster knows which: a policy that places whole
    /// GPUs gives a job asking for a share a whole GPU.
    pub fn release_holding(&mut self, gpus: &[GpuId], milli: u32, job: JobSlot) {
        for &g in gpus {
            let i = g as usize;
            if self.owner[i] == Some(job) || self.guest[i] == Some(job) {
                self.release(&[g], job);
            } else {
                self.release_share(g, milli);
            }
        }
    }

    fn take_from_free_pool(&mut self, gpu: GpuId) {
        let node = self.gpu_node[gpu as usize] as usize;
        self.free_per_node[node] -= 1;
        self.free_total -= 1;
        while self.first_free_node < self.free_per_node.len() && self.free_per_node[self.first_free_node] == 0 {
            self.first_free_node += 1;
        }
    }

    #[inline]
    fn return_to_free_pool(&mut self, gpu: GpuId) {
        let node = self.gpu_node[gpu as usize] as usize;
        self.free_per_node[node] += 1;
        self.free_total += 1;
        self.first_free_node = self.first_free_node.min(node);
    }

    /// The node `gpu` belongs to.
    #[inline]
    pub fn node_of(&self, gpu: GpuId) -> usize {
        self.gpu_node[gpu as usize] as usize
    }

    /// CPUs of `node` nobody holds; unlimited where the spec does not model CPUs.
    #[inline]
    pub fn free_cpus(&self, node: usize) -> f64 {
        self.spec.nodes[node].cpus.map_or(f64::INFINITY, |c| f64::from(c) - self.held_cpus[node])
    }

    /// Memory (GB) of `node` nobody holds; unlimited where the spec does not model memory.
    #[inline]
    pub fn free_memory_gb(&self, node: usize) -> f64 {
        self.spec.nodes[node].memory_gb.map_or(f64::INFINITY, |m| m - self.held_memory_gb[node])
    }

    /// CPUs and memory (GB) held on all nodes together; `None` for a resource some node does
    /// not model.
    #[inline]
    pub fn host_in_use(&self) -> (Option<f64>, Option<f64>) {
        self.in_use
    }

    /// A job takes `share` of its node's CPUs and memory, which the caller has checked are free.
    #[inline]
    pub fn hold(&mut self, share: &HostShare) {
        let node = share.node as usize;
        self.held_cpus[node] += share.cpus;
        self.held_memory_gb[node] += share.memory_gb;
        self.count_in_use(share.cpus, share.memory_gb);
    }

    /// A job gives back its `shares`.
    pub fn release_host(&mut self, shares: &[HostShare]) {
        for share in shares {
            let node = share.node as usize;
            self.held_cpus[node] -= share.cpus;
            self.held_memory_gb[node] -= share.memory_gb;
            self.count_in_use(-share.cpus, -share.memory_gb);
        }
    }

    fn count_in_use(&mut self, cpus: f64, memory_gb: f64) {
        if let Some(total) = &mut self.in_use.0 {
            *total += cpus;
        }
        if let Some(total) = &mut self.in_use.1 {
            *total += memory_gb;
        }
    }

    #[inline]
    pub fn owner(&self, gpu: GpuId) -> Option<JobSlot> {
        self.owner[gpu as usize]
    }

    /// Gives `gpus` (all currently free) to `job`.
    pub fn assign(&mut self, gpus: &[GpuId], job: JobSlot) {
        for &g in gpus {
            debug_assert_eq!(self.shared_milli[g as usize], 0, "GPU {g} assigned whole while shared");
            let owner = &mut self.owner[g as usize];
            debug_assert!(owner.is_none(), "GPU {g} assigned twice");
            *owner = Some(job);
            self.free_per_node[self.gpu_node[g as usize] as usize] -= 1;
        }
        self.free_total -= gpus.len() as u32;
        while self.first_free_node < self.free_per_node.len() && self.free_per_node[self.first_free_node] == 0 {
            self.first_free_node += 1;
        }
    }

    /// Sets `gpus` (all currently free) aside: they count as busy but belong to no job (whole
    /// nodes a policy hands to groups of jobs, [`WholeNodes`]).
    #[inline]
    pub fn reserve(&mut self, gpus: &[GpuId]) {
        self.assign(gpus, RESERVED);
    }

    /// Gives back `gpus` set aside by [`Cluster::reserve`].
    #[inline]
    pub fn unreserve(&mut self, gpus: &[GpuId]) {
        self.release(gpus, RESERVED);
    }

    #[inline]
    fn is_whole_free(&self, node: usize) -> bool {
        self.free_per_node[node] == self.spec.nodes[node].gpus
    }

    /// Takes `node` out of service (live mode: its agent is gone): its free GPUs are held by no
    /// job and count as busy until [`Cluster::bring_online`]. The engine first releases the GPUs
    /// of the jobs that ran there.
    pub fn take_offline(&mut self, node: usize) {
        let first = self.node_first_gpu[node];
        for g in first..first + self.spec.nodes[node].gpus {
            debug_assert_eq!(self.shared_milli[g as usize], 0, "node {node} taken offline with GPU {g} shared");
            let owner = &mut self.owner[g as usize];
            debug_assert!(owner.is_none_or(|o| o == OFFLINE), "node {node} taken offline with GPU {g} in use");
            if owner.is_none() {
                *owner = Some(OFFLINE);
                self.free_per_node[node] -= 1;
                self.free_total -= 1;
            }
        }
        while self.first_free_node < self.free_per_node.len() && self.free_per_node[self.first_free_node] == 0 {
            self.first_free_node += 1;
        }
    }

    /// Returns `node`'s GPUs, taken out of service by [`Cluster::take_offline`], to the free pool.
    pub fn bring_online(&mut self, node: usize) {
        let first = self.node_first_gpu[node];
        for g in first..first + self.spec.nodes[node].gpus {
            let owner = &mut self.owner[g as usize];
            if *owner == Some(OFFLINE) {
                *owner = None;
                self.free_per_node[node] += 1;
                self.free_total += 1;
            }
        }
        self.first_free_node = self.first_free_node.min(node);
    }

    /// The job sharing `gpu` with its owner, if any.
    #[inline]
    pub fn guest(&self, gpu: GpuId) -> Option<JobSlot> {
        self.guest[gpu as usize]
    }

    /// Adds `job` as the guest of `gpus`, which all have an owner and no guest yet.
    pub fn share(&mut self, gpus: &[GpuId], job: JobSlot) {
        for &g in gpus {
            debug_assert!(self.owner[g as usize].is_some(), "GPU {g} shared while free");
            let guest = &mut self.guest[g as usize];
            debug_assert!(guest.is_none(), "GPU {g} shared twice");
            *guest = Some(job);
        }
    }

    /// `job` leaves `gpus`: a guest leaves its owner alone; an owner hands a shared GPU to its
    /// guest, and returns an unshared one to the free pool.
    pub fn release(&mut self, gpus: &[GpuId], job: JobSlot) {
        for &g in gpus {
            let g = g as usize;
            if self.guest[g] == Some(job) {
                self.guest[g] = None;
                continue;
            }
            debug_assert_eq!(self.owner[g], Some(job), "GPU {g} released by a job that does not hold it");
            if let Some(guest) = self.guest[g].take() {
                self.owner[g] = Some(guest);
                continue;
            }
            self.owner[g] = None;
            self.return_to_free_pool(g as GpuId);
        }
    }
}

/// Whole nodes set aside for a policy that hands them to groups of jobs taking turns on them
/// (Gandiva's node sets): the cluster knows those GPUs are in use, held by no job. The engine
/// lends its cluster through this interface alone ([`crate::core::events::EventSim::whole_nodes`]).
pub trait WholeNodes {
    /// Nodes all of whose GPUs are free.
    fn whole_free_nodes(&self) -> u32;
    /// Reserves the `count` lowest nodes all of whose GPUs are free; `None` (nothing reserved)
    /// when fewer are free.
    fn reserve_whole_nodes(&mut self, count: u32) -> Option<Vec<u32>>;
    /// Gives back whole `nodes` reserved by [`WholeNodes::reserve_whole_nodes`].
    fn unreserve_nodes(&mut self, nodes: &[u32]);
}

impl WholeNodes for Cluster {
    #[inline]
    fn whole_free_nodes(&self) -> u32 {
        (0..self.node_count()).filter(|&n| self.is_whole_free(n)).count() as u32
    }

    fn reserve_whole_nodes(&mut self, count: u32) -> Option<Vec<u32>> {
        let nodes: Vec<u32> =
            (0..self.node_count()).filter(|&n| self.is_whole_free(n)).take(count as usize).map(|n| n as u32).collect();
        if nodes.len() < count as usize {
            return None;
        }
        for &n in &nodes {
            self.reserve(&self.gpus_of_node(n as usize).collect::<Vec<_>>());
        }
        Some(nodes)
    }

    #[inline]
    fn unreserve_nodes(&mut self, nodes: &[u32]) {
        for &n in nodes {
            self.unreserve(&self.gpus_of_node(n as usize).collect::<Vec<_>>());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_expand_in_order_and_identical_nodes_are_recognised() {
        let k80 = NodeSpec { gpus: 4, gpu_type: GpuType::new("k80"), cpus: Some(24), memory_gb: Some(500.0) };
        let v100 = NodeSpec { gpus: 8, gpu_type: GpuType::new("v100"), ..k80.clone() };
        let spec = ClusterSpec::from_groups(&[
            NodeGroup { count: 2, node: k80.clone() },
            NodeGroup { count: 1, node: v100.clone() },
        ]);
        assert_eq!(spec.nodes, [k80.clone(), k80.clone(), v100]);
        assert_eq!(spec.total_gpus(), 16);
        assert_eq!(spec.identical_node(), None);
        assert_eq!(ClusterSpec::from_groups(&[NodeGroup { count: 3, node: k80.clone() }]).identical_node(), Some(&k80));
        let c = Cluster::new(spec);
        assert_eq!(c.free_gpus_on_node(2).collect::<Vec<_>>(), (8..16).collect::<Vec<_>>());
    }

    #[test]
    fn an_offline_node_offers_no_gpu_until_it_is_back() {
        let mut c = Cluster::new(ClusterSpec::uniform(2, 2));
        c.take_offline(0);
        assert_eq!((c.free_gpus(), c.free_on_node(0), c.first_node_with_free()), (2, 0, 1));
        assert_eq!(c.free_gpus_on_node(0).count(), 0);
        c.take_offline(0);
        assert_eq!(c.free_gpus(), 2, "taking a node offline twice changes nothing");
        c.bring_online(0);
        assert_eq!((c.free_gpus(), c.first_node_with_free()), (4, 0));
        assert_eq!(c.free_gpus_on_node(0).collect::<Vec<_>>(), vec![0, 1]);
    }

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
        c.assign(&[0, 1, 2, 3], JobSlot(8));
        assert_eq!(c.first_node_with_free(), 1, "node 0 is full");
        c.assign(&[5, 7], JobSlot(9));
        assert_eq!(c.first_node_with_free(), 2, "nodes 0 and 1 are full");
        c.release(&[4, 6], JobSlot(7));
        c.release(&[5, 7], JobSlot(9));
        c.release(&[0, 1, 2, 3], JobSlot(8));
        assert_eq!(c.first_node_with_free(), 0);
        assert_eq!(c.free_gpus(), 12);
        assert_eq!(c.owner(6), None);
    }

    #[test]
    fn reserved_gpus_and_whole_nodes_are_busy_for_no_job_until_given_back() {
        let mut c = Cluster::new(ClusterSpec::uniform(4, 2));
        c.assign(&[2], JobSlot(0));
        assert_eq!(c.whole_free_nodes(), 3);
        assert_eq!(c.reserve_whole_nodes(2), Some(vec![0, 2]), "the lowest whole free nodes; node 1 is in use");
        assert_eq!((c.free_gpus(), c.whole_free_nodes()), (3, 1));
        assert_eq!(c.reserve_whole_nodes(2), None, "one whole node left");
        assert_eq!(c.free_gpus(), 3, "a refused reservation takes nothing");
        c.unreserve_nodes(&[2]);
        assert_eq!((c.free_gpus(), c.whole_free_nodes(), c.owner(4)), (5, 2, None));
        c.reserve(&[3]);
        assert_eq!((c.free_on_node(1), c.first_node_with_free()), (0, 2));
        c.unreserve(&[3]);
        assert_eq!((c.free_on_node(1), c.first_node_with_free()), (1, 1));
    }

    #[test]
    fn cpus_and_memory_are_held_per_node_and_unlimited_where_not_modelled() {
        let node = NodeSpec { gpus: 8, gpu_type: GpuType::default(), cpus: Some(24), memory_gb: Some(500.0) };
        let mut c = Cluster::new(ClusterSpec::from_groups(&[NodeGroup { count: 2, node }]));
        let shares =
            [HostShare { node: 1, cpus: 12.0, memory_gb: 125.0 }, HostShare { node: 1, cpus: 1.5, memory_gb: 62.5 }];
        shares.iter().for_each(|s| c.hold(s));
        assert_eq!((c.free_cpus(1), c.free_memory_gb(1), c.free_cpus(0)), (10.5, 312.5, 24.0));
        assert_eq!(c.host_in_use(), (Some(13.5), Some(187.5)));
        c.release_host(&shares);
        assert_eq!((c.free_cpus(1), c.free_memory_gb(1)), (24.0, 500.0));
        let plain = Cluster::new(ClusterSpec::uniform(1, 4));
        assert_eq!((plain.free_cpus(0), plain.free_memory_gb(0)), (f64::INFINITY, f64::INFINITY));
        assert_eq!(plain.node_of(3), 0);
        assert_eq!(plain.host_in_use(), (None, None));
    }

    #[test]
    fn shares_of_a_gpu_add_up_to_one_gpu_and_free_it_when_all_are_given_back() {
        let mut c = Cluster::new(ClusterSpec::uniform(2, 2));
        c.assign_share(1, 500);
        c.assign_share(1, 300);
        assert_eq!((c.free_milli(1), c.free_gpus(), c.free_on_node(0)), (200, 3, 1), "a shared GPU is not free");
        assert_eq!(c.free_gpus_on_node(0).collect::<Vec<_>>(), vec![0], "whole holders skip it");
        c.assign_share(0, 1000);
        assert_eq!((c.free_on_node(0), c.first_node_with_free()), (0, 1), "a whole share fills a GPU");
        c.assign(&[2], JobSlot(4));
        assert_eq!(c.free_milli(2), 0, "a GPU held whole has no room for a share");
        c.release_holding(&[1], 500, JobSlot(1));
        assert_eq!((c.free_milli(1), c.free_gpus()), (700, 1));
        c.release_holding(&[1], 300, JobSlot(2));
        assert_eq!((c.free_milli(1), c.free_gpus(), c.first_node_with_free()), (1000, 2, 0), "free once empty");
        c.release_holding(&[2], MILLI_PER_GPU, JobSlot(4));
        assert_eq!((c.free_gpus(), c.free_milli(0)), (3, 0), "a whole share still holds GPU 0");
    }

    #[test]
    fn a_shared_gpu_is_busy_until_both_jobs_leave() {
        let mut c = Cluster::new(ClusterSpec::uniform(1, 2));
        c.assign(&[0], JobSlot(1));
        c.share(&[0], JobSlot(2));
        assert_eq!((c.owner(0), c.guest(0), c.free_gpus()), (Some(JobSlot(1)), Some(JobSlot(2)), 1));
        c.release(&[0], JobSlot(1));
        assert_eq!((c.owner(0), c.guest(0), c.free_gpus()), (Some(JobSlot(2)), None, 1), "the guest takes over");
        c.share(&[0], JobSlot(3));
        c.release(&[0], JobSlot(3));
        assert_eq!((c.owner(0), c.guest(0), c.free_gpus()), (Some(JobSlot(2)), None, 1), "a guest leaves alone");
        c.release(&[0], JobSlot(2));
        assert_eq!((c.owner(0), c.free_gpus(), c.first_node_with_free()), (None, 2, 0));
    }
}
