//! ElasticFlow's buddy ("elastic") placement and its rank cache (`CLUSTER.elastic_placement`,
//! `release_job_res`, `LOG.scheduling_result`; `docs/elasticflow-semantics.md` §2.6, §2.7).
//!
//! Nodes are grouped into node sets; a set is filed under a size class by its free GPU count, so
//! a job of `n` GPUs first tries a set of class `n`, then the first set of each larger class,
//! then opens a new set on the lowest free nodes. Placement never changes a job's speed; it
//! matters through the rank cache, which lets a job whose exact GPU ranks were already used since
//! the last restart pay only the base overhead.

use super::JobIdx;
use std::collections::HashSet;

/// The size classes (`node_g` keys) in the original's order.
pub const CLASSES: [u32; 16] = [1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 72, 88, 128, 256];

/// Index of a node set.
pub type SetId = usize;

#[derive(Debug, Clone)]
struct NodeSet {
    nodes: Vec<u32>,
    /// Jobs in placement order.
    jobs: Vec<JobIdx>,
    capacity: u32,
    util: u32,
    /// The class tag (`num_gpus`): a new set keeps its first job's size even when filed
    /// elsewhere, which decides whether a release refiles it.
    tag: u32,
    /// Index into [`CLASSES`] of the list the set is filed in.
    filed: usize,
}

/// Node sets, class lists and the rank cache of one cluster of identical nodes.
#[derive(Debug, Clone)]
pub struct BuddyPlacement {
    gpus_per_node: u32,
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

fn sort_by_util(list: &mut [SetId], sets: &[Option<NodeSet>]) {
    list.sort_by_key(|&s| sets[s].as_ref().map_or(0, |s| s.util));
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

    pub fn gpus_per_node(&self) -> u32 {
        self.gpus_per_node
    }

    /// Free GPUs (`check_free_gpu`).
    pub fn free_gpus(&self) -> u32 {
        let in_sets: u32 = self.sets.iter().flatten().map(|s| s.capacity - s.util).sum();
        in_sets + self.free_nodes.len() as u32 * self.gpus_per_node
    }

    fn set(&mut self, id: SetId) -> &mut NodeSet {
        self.sets[id].as_mut().expect("class lists only hold live node sets")
    }

    /// Places `job` on `gpus` GPUs; `None` when it does not fit or `gpus` is not a class (the
    /// original exits or fails an assertion there).
    pub fn place(&mut self, job: JobIdx, gpus: u32) -> Option<SetId> {
        let own = CLASSES.iter().position(|&k| k == gpus)?;
        if !self.classes[own].is_empty() {
            let s = self.classes[own].remove(0);
            if self.fits(s, gpus) {
                return Some(self.add_to(s, job, gpus, own));
            }
            self.classes[own].push(s);
        }
        for larger in (own + 1..CLASSES.len()).rev() {
            if self.classes[larger].is_empty() {
                continue;
            }
            let s = self.classes[larger].remove(0);
            if self.fits(s, gpus) {
                return Some(self.add_to(s, job, gpus, own));
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
        let free = capacity - gpus;
        let filed = if free > 0 { class_for_free(free) } else { own };
        let set = Some(NodeSet { nodes, jobs: vec![job], capacity, util: gpus, tag: gpus, filed });
        if id == self.sets.len() {
            self.sets.push(set);
        } else {
            self.sets[id] = set;
        }
        self.classes[filed].push(id);
        sort_by_util(&mut self.classes[own], &self.sets);
        sort_by_util(&mut self.classes[filed], &self.sets);
        Some(id)
    }

    fn fits(&mut self, s: SetId, gpus: u32) -> bool {
        let set = self.set(s);
        set.util + gpus <= set.capacity
    }

    /// Adds `job` to set `s` (taken out of its list) and refiles the set by its free count; a
    /// full set goes to the job's own class.
    fn add_to(&mut self, s: SetId, job: JobIdx, gpus: u32, own: usize) -> SetId {
        let gpn = self.gpus_per_node;
        let set = self.set(s);
        set.util += gpus;
        set.jobs.push(job);
        let free = set.nodes.len() as u32 * gpn - set.util;
        let filed = if free > 0 {
            let class = class_for_free(free);
            set.tag = CLASSES[class];
            class
        } else {
            own
        };
        set.filed = filed;
        self.classes[filed].push(s);
        sort_by_util(&mut self.classes[own], &self.sets);
        sort_by_util(&mut self.classes[filed], &self.sets);
        s
    }

    /// Takes `job`, holding `gpus` GPUs, out of set `s`; an emptied set returns its nodes.
    pub fn release(&mut self, s: SetId, job: JobIdx, gpus: u32) {
        let Some(set) = self.sets.get_mut(s).and_then(Option::as_mut) else { return };
        set.util = set.util.saturating_sub(gpus);
        if let Some(k) = set.jobs.iter().position(|&j| j == job) {
            set.jobs.remove(k);
        }
        let (util, free, tag, filed) = (set.util, set.capacity - set.util, set.tag, set.filed);
        if util == 0 {
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
            sort_by_util(&mut self.classes[class], &self.sets);
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

    #[test]
    fn sizes_pack_into_node_sets_and_free_counts_follow() {
        let mut p = BuddyPlacement::new(4, 8);
        // 16 GPUs: a new 2-node set, full, filed under class 16.
        let a = p.place(0, 16).unwrap();
        assert_eq!(p.free_gpus(), 16);
        // 4 GPUs: no class-4 set, no larger set with room: a new node; 4 free -> class 4.
        let b = p.place(1, 4).unwrap();
        assert_ne!(a, b);
        // Another 4 fills that node.
        assert_eq!(p.place(2, 4), Some(b));
        // 2 then 1: a new node, filed under 2 (6 free), then under 1 (5 free).
        let c = p.place(3, 2).unwrap();
        assert_eq!(p.place(4, 1), Some(c));
        assert_eq!(p.free_gpus(), 32 - 16 - 8 - 3);
        // Nothing left for 16 GPUs; 3 GPUs is not a class.
        assert_eq!((p.place(5, 16), p.place(6, 3)), (None, None));
        p.release(a, 0, 16);
        assert_eq!(p.free_gpus(), 21);
        assert_eq!(p.place(5, 16), Some(a), "the freed nodes are reused");
        p.release(c, 3, 2);
        p.release(c, 4, 1);
        p.release(b, 1, 4);
        p.release(b, 2, 4);
        p.release(a, 5, 16);
        assert_eq!(p.free_gpus(), 32);
    }

    #[test]
    fn ranks_are_cached_until_cleared() {
        let mut p = BuddyPlacement::new(2, 8);
        p.place(0, 8);
        p.place(1, 4);
        p.place(2, 2);
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
