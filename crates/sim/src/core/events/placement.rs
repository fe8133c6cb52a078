//! ElasticFlow's buddy ("elastic") placement and its rank cache (`CLUSTER.elastic_placement`,
//! `release_job_res`, `LOG.scheduling_result`; `docs/elasticflow-semantics.md` §2.6, §2.7).
//!
//! Nodes are grouped into node sets; a set is filed under a size class by its free GPU count, so
//! a job of `n` GPUs first tries a set of class `n`, then the first set of each larger class,
//! then opens a new set on the lowest free nodes, and the job takes the lowest free GPUs of its
//! set's nodes in the engine's [`Cluster`]. A set counts the GPUs its jobs hold (the original's
//! `util`), because its class lists are re-sorted by that at every placement; debug builds check
//! the count against the cluster. Placement never changes a job's speed; it
//! matters through the rank cache, which lets a job whose exact GPU ranks were already used since
//! the last restart pay only the base overhead.

use super::JobIdx;
use crate::core::{Cluster, GpuId, JobSlot};
use std::collections::HashSet;

/// The size classes (`node_g` keys) in the original's order.
pub const CLASSES: [u32; 16] = [1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 72, 88, 128, 256];

/// Index of a node set.
pub type SetId = usize;

/// Nodes that serve together. Who holds which of their GPUs is the engine's [`Cluster`]'s.
#[derive(Debug, Clone)]
struct NodeSet {
    nodes: Vec<u32>,
    /// Jobs in placement order.
    jobs: Vec<JobIdx>,
    /// GPUs its jobs hold (the original's `util`): what the cluster says of its nodes.
    load: u32,
    /// GPUs of its nodes.
    capacity: u32,
    /// The class tag (`num_gpus`): a new set keeps its first job's size even when filed
    /// elsewhere, which decides whether a release refiles it.
    tag: u32,
    /// Index into [`CLASSES`] of the list the set is filed in.
    filed: usize,
}

impl NodeSet {
    fn free(&self) -> u32 {
        self.capacity - self.load
    }

    /// Whether the count agrees with the cluster (for debug assertions).
    fn agrees_with(&self, cluster: &Cluster) -> bool {
        self.nodes.iter().map(|&n| cluster.free_on_node(n as usize)).sum::<u32>() == self.free()
    }
}

/// Node sets, class lists and the rank cache of one cluster of identical nodes; the GPUs
/// themselves are held in the engine's [`Cluster`], which every call reads or changes.
#[derive(Debug, Clone)]
pub struct BuddyPlacement {
    gpus_per_node: u32,
    /// Nodes in no set (all their GPUs free), lowest first.
    free_nodes: Vec<u32>,
    node_set: Vec<Option<SetId>>,
    sets: Vec<Option<NodeSet>>,
    vacant: Vec<SetId>,
    classes: [Vec<SetId>; CLASSES.len()],
    rank_cache: HashSet<(u32, u32)>,
    recorded: Vec<JobIdx>,
}

/// The class a set with `free` GPUs is filed under: the largest class dividing it.
fn class_for_free(free: u32) -> usize {
    CLASSES.iter().rposition(|&k| k <= free && free.is_multiple_of(k)).unwrap_or(0)
}

/// Python's stable sort of a class list by load (GPUs held), least loaded first.
fn sort_by_load(list: &mut [SetId], sets: &[Option<NodeSet>]) {
    list.sort_by_key(|&s| sets[s].as_ref().map_or(0, |s| s.load));
}

impl BuddyPlacement {
    pub fn new(nodes: u32, gpus_per_node: u32) -> Self {
        Self {
            gpus_per_node,
            free_nodes: (0..nodes).collect(),
            node_set: vec![None; nodes as usize],
            sets: Vec::new(),
            vacant: Vec::new(),
            classes: Default::default(),
            rank_cache: HashSet::new(),
            recorded: Vec::new(),
        }
    }

    fn set(&mut self, id: SetId) -> &mut NodeSet {
        self.sets[id].as_mut().expect("class lists only hold live node sets")
    }

    /// Places `job` on `gpus` GPUs: they are assigned to it in `cluster` and written to `held`
    /// (empty before). `None` when it does not fit or `gpus` is not a class (the original exits
    /// or fails an assertion there).
    pub fn place(&mut self, cluster: &mut Cluster, job: JobIdx, gpus: u32, held: &mut Vec<GpuId>) -> Option<SetId> {
        let own = CLASSES.iter().position(|&k| k == gpus)?;
        if !self.classes[own].is_empty() {
            let s = self.classes[own].remove(0);
            if self.fits(s, gpus) {
                return Some(self.add_to(cluster, s, job, gpus, own, held));
            }
            self.classes[own].push(s);
        }
        for larger in (own + 1..CLASSES.len()).rev() {
            if self.classes[larger].is_empty() {
                continue;
            }
            let s = self.classes[larger].remove(0);
            if self.fits(s, gpus) {
                return Some(self.add_to(cluster, s, job, gpus, own, held));
            }
            self.classes[larger].push(s);
        }
        let needed = gpus.div_ceil(self.gpus_per_node) as usize;
        if needed > self.free_nodes.len() {
            return None;
        }
        let nodes: Vec<u32> = self.free_nodes.drain(..needed).collect();
        let id = self.vacant.pop().unwrap_or(self.sets.len());
        for &n in &nodes {
            self.node_set[n as usize] = Some(id);
        }
        let capacity = needed as u32 * self.gpus_per_node;
        let set = NodeSet { nodes, jobs: Vec::new(), load: 0, capacity, tag: gpus, filed: own };
        if id == self.sets.len() {
            self.sets.push(Some(set));
        } else {
            self.sets[id] = Some(set);
        }
        self.take_gpus(cluster, id, job, gpus, held);
        let set = self.set(id);
        let free = set.free();
        let filed = if free > 0 { class_for_free(free) } else { own };
        set.filed = filed;
        self.classes[filed].push(id);
        sort_by_load(&mut self.classes[own], &self.sets);
        sort_by_load(&mut self.classes[filed], &self.sets);
        Some(id)
    }

    fn fits(&mut self, s: SetId, gpus: u32) -> bool {
        self.set(s).free() >= gpus
    }

    /// Gives `job` the lowest free GPUs of set `s`, node by node.
    fn take_gpus(&mut self, cluster: &mut Cluster, s: SetId, job: JobIdx, gpus: u32, held: &mut Vec<GpuId>) {
        debug_assert!(held.is_empty(), "job {job} is placed twice");
        let set = self.sets[s].as_mut().expect("a placed set is live");
        for &n in &set.nodes {
            let wanted = gpus as usize - held.len();
            held.extend(cluster.free_gpus_on_node(n as usize).take(wanted));
        }
        cluster.assign(held, JobSlot(job as u32));
        set.jobs.push(job);
        set.load += gpus;
        debug_assert!(set.agrees_with(cluster), "node set {s} miscounts its GPUs");
    }

    /// Adds `job` to set `s` (taken out of its list) and refiles the set by its free count; a
    /// full set goes to the job's own class.
    fn add_to(
        &mut self,
        cluster: &mut Cluster,
        s: SetId,
        job: JobIdx,
        gpus: u32,
        own: usize,
        held: &mut Vec<GpuId>,
    ) -> SetId {
        self.take_gpus(cluster, s, job, gpus, held);
        let set = self.set(s);
        let free = set.free();
        let filed = if free > 0 {
            let class = class_for_free(free);
            set.tag = CLASSES[class];
            class
        } else {
            own
        };
        set.filed = filed;
        self.classes[filed].push(s);
        sort_by_load(&mut self.classes[own], &self.sets);
        sort_by_load(&mut self.classes[filed], &self.sets);
        s
    }

    /// Takes `job` out of set `s`: its GPUs (`held`, emptied) go back to `cluster`; an emptied
    /// set returns its nodes.
    pub fn release(&mut self, cluster: &mut Cluster, s: SetId, job: JobIdx, held: &mut Vec<GpuId>) {
        cluster.release(held, JobSlot(job as u32));
        let released = held.len() as u32;
        held.clear();
        let Some(set) = self.sets.get_mut(s).and_then(Option::as_mut) else { return };
        set.load -= released;
        debug_assert!(set.agrees_with(cluster), "node set {s} miscounts its GPUs");
        if let Some(k) = set.jobs.iter().position(|&j| j == job) {
            set.jobs.remove(k);
        }
        let (load, free, tag, filed) = (set.load, set.free(), set.tag, set.filed);
        if load == 0 {
            self.classes[filed].retain(|&x| x != s);
            if let Some(set) = self.sets[s].take() {
                for &n in &set.nodes {
                    self.node_set[n as usize] = None;
                }
                self.free_nodes.extend(set.nodes);
            }
            self.free_nodes.sort_unstable();
            self.vacant.push(s);
        } else if free > 0 && free != tag {
            let class = class_for_free(free);
            self.classes[filed].retain(|&x| x != s);
            let set = self.set(s);
            set.tag = CLASSES[class];
            set.filed = class;
            self.classes[class].push(s);
            sort_by_load(&mut self.classes[class], &self.sets);
        }
    }

    /// Forgets every rank set used so far (on restart rounds).
    pub fn clear_rank_cache(&mut self) {
        self.rank_cache.clear();
    }

    /// Walks the nodes in id order as the scheduling log does and reports, for each placed job
    /// reached, whether its GPU ranks (a contiguous range starting at the number of GPU cells
    /// already written) were used before since the last restart; then records them.
    pub fn visit_ranks(&mut self, gpus_of: impl Fn(JobIdx) -> u32, mut cached: impl FnMut(JobIdx, bool)) {
        let gpn = self.gpus_per_node;
        let mut cell = 0u32;
        self.recorded.clear();
        for node in 0..self.node_set.len() {
            let Some(s) = self.node_set[node] else {
                cell += gpn;
                continue;
            };
            let Some(set) = self.sets[s].as_ref() else { continue };
            if CLASSES[set.filed] >= gpn {
                if let Some(&first) = set.jobs.first()
                    && !self.recorded.contains(&first)
                {
                    cached(first, !self.rank_cache.insert((cell, gpus_of(first))));
                    self.recorded.push(first);
                }
                cell += gpn;
            } else {
                let mut used = 0;
                for &job in &set.jobs {
                    let g = gpus_of(job);
                    cached(job, !self.rank_cache.insert((cell, g)));
                    cell += g;
                    used += g;
                }
                cell += gpn.saturating_sub(used);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ClusterSpec;

    /// A buddy placement on `nodes` x `gpn` GPUs with room for `jobs` jobs' holdings.
    fn setup(nodes: u32, gpn: u32, jobs: usize) -> (BuddyPlacement, Cluster, Vec<Vec<GpuId>>) {
        (BuddyPlacement::new(nodes, gpn), Cluster::new(ClusterSpec::uniform(nodes, gpn)), vec![Vec::new(); jobs])
    }

    #[test]
    fn sizes_pack_into_node_sets_and_free_counts_follow() {
        let (mut p, mut c, mut held) = setup(4, 8, 7);
        // 16 GPUs: a new 2-node set, full, filed under class 16.
        let a = p.place(&mut c, 0, 16, &mut held[0]).unwrap();
        assert_eq!(c.free_gpus(), 16);
        assert_eq!(held[0], (0..16).collect::<Vec<_>>(), "the set's nodes 0 and 1, held in the cluster");
        // 4 GPUs: no class-4 set, no larger set with room: a new node; 4 free -> class 4.
        let b = p.place(&mut c, 1, 4, &mut held[1]).unwrap();
        assert_ne!(a, b);
        // Another 4 fills that node.
        assert_eq!(p.place(&mut c, 2, 4, &mut held[2]), Some(b));
        assert_eq!(held[2], [20, 21, 22, 23]);
        // 2 then 1: a new node, filed under 2 (6 free), then under 1 (5 free).
        let d = p.place(&mut c, 3, 2, &mut held[3]).unwrap();
        assert_eq!(p.place(&mut c, 4, 1, &mut held[4]), Some(d));
        assert_eq!(c.free_gpus(), 32 - 16 - 8 - 3);
        // Nothing left for 16 GPUs; 3 GPUs is not a class.
        assert_eq!((p.place(&mut c, 5, 16, &mut held[5]), p.place(&mut c, 6, 3, &mut held[6])), (None, None));
        assert!(held[5].is_empty() && held[6].is_empty(), "a refused job holds nothing");
        p.release(&mut c, a, 0, &mut held[0]);
        assert_eq!(c.free_gpus(), 21);
        assert_eq!(p.place(&mut c, 5, 16, &mut held[5]), Some(a), "the freed nodes are reused");
        for (set, job) in [(d, 3), (d, 4), (b, 1), (b, 2), (a, 5)] {
            p.release(&mut c, set, job, &mut held[job]);
        }
        assert_eq!(c.free_gpus(), 32);
        assert!((0..32).all(|g| c.owner(g).is_none()));
    }

    #[test]
    fn ranks_are_cached_until_cleared() {
        let (mut p, mut c, mut held) = setup(2, 8, 3);
        for (j, gpus) in [(0, 8), (1, 4), (2, 2)] {
            p.place(&mut c, j, gpus, &mut held[j]);
        }
        let gpus = |j: JobIdx| [8, 4, 2][j];
        let mut seen = Vec::new();
        p.visit_ranks(gpus, |j, c| seen.push((j, c)));
        assert_eq!(seen, [(0, false), (1, false), (2, false)]);
        seen.clear();
        p.visit_ranks(gpus, |j, c| seen.push((j, c)));
        assert_eq!(seen, [(0, true), (1, true), (2, true)]);
        p.clear_rank_cache();
        seen.clear();
        p.visit_ranks(gpus, |j, c| seen.push((j, c)));
        assert!(seen.iter().all(|&(_, c)| !c));
    }
}
