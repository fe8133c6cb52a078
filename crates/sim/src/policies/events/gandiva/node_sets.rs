//! Gandiva's node sets as ElasticFlow's simulator models them: `cluster.py`
//! `gandiva_placement`, `gandiva_node_set_adjust` (with `_expand` and `_shrink`) and
//! `time_slicing_execute` @ b3f5ea4 (`docs/elasticflow-semantics.md` §9.1, §9.2, §9.3).
//!
//! Nodes are grouped into node sets, each serving jobs of one size class (1, 2, 4, 8, ... GPUs;
//! the classes of the buddy placement, [`CLASSES`]). A set of `m = ceil(n / gpn)` nodes runs
//! `capacity = floor(m gpn / n)` jobs of class `n` at once; further jobs over-subscribe it and
//! wait for their turn (time slicing, driven by the policy). Each decision first re-balances the
//! nodes between classes in proportion to their GPU demand.
//!
//! A set's nodes are whole nodes set aside in the engine's cluster ([`WholeNodes`]: the lowest
//! free ones), so the cluster knows what is in use; which nodes they are changes no result (the
//! original charges gandiva's overheads without the rank cache), only how many are free.
//!
//! Quirks kept for fidelity (§9, §12 item 10): a set's `util` (jobs ever added) is never lowered
//! when jobs finish, only recomputed when its class is re-arranged, and the normal path admits a
//! job only while `util + 1 < capacity` (strict), so a set that once held many jobs keeps
//! refusing; a refused set rotates to the back of its class list unsorted; expansion re-arranges
//! its class only when the original's reused loop variable ends positive (never after a
//! successful last expansion of a single-node class); demands and occupations of all classes are
//! computed once per adjustment.

use crate::core::WholeNodes;
use crate::core::events::{CLASSES, JobIdx};

/// One node set: its jobs (those within `capacity` run, the rest wait their turn).
#[derive(Debug, Clone, PartialEq)]
pub struct NodeSet {
    /// Whole nodes set aside for the set.
    pub nodes: Vec<u32>,
    pub jobs: Vec<JobIdx>,
    /// Jobs that run at once.
    pub capacity: u32,
    /// Jobs added since the set was created or last re-arranged (never lowered on completion).
    util: u32,
}

impl NodeSet {
    fn new(nodes: Vec<u32>, capacity: u32) -> Self {
        Self { nodes, jobs: Vec::new(), capacity, util: 0 }
    }

    fn add(&mut self, job: JobIdx) {
        self.util += 1;
        self.jobs.push(job);
    }

    /// Jobs that run in the current step: the first `capacity` (at least 1, as a set spans
    /// enough nodes for one job of its class).
    pub fn running(&self) -> usize {
        self.jobs.len().min(self.capacity as usize)
    }
}

/// Python's stable sort of a class list by `util` (least loaded first).
fn sort_by_util(list: &mut [NodeSet]) {
    list.sort_by_key(|s| s.util);
}

/// The node sets of a cluster of identical nodes, by class (in [`CLASSES`] order).
#[derive(Debug, Clone)]
pub struct GandivaNodeSets {
    gpus_per_node: u32,
    total_gpus: u32,
    classes: [Vec<NodeSet>; CLASSES.len()],
}

impl GandivaNodeSets {
    pub fn new(nodes: u32, gpus_per_node: u32) -> Self {
        Self { gpus_per_node, total_gpus: nodes * gpus_per_node, classes: Default::default() }
    }

    /// Every set, by class then list order.
    pub fn sets(&self) -> impl Iterator<Item = &NodeSet> {
        self.classes.iter().flatten()
    }

    /// The class lists in [`CLASSES`] order, for time slicing.
    pub fn classes_mut(&mut self) -> &mut [Vec<NodeSet>; CLASSES.len()] {
        &mut self.classes
    }

    /// Nodes a set of class `gpus` spans.
    fn nodes_for(&self, gpus: u32) -> u32 {
        gpus.div_ceil(self.gpus_per_node)
    }

    /// A new, empty set of class `gpus` on free nodes; `None` when too few are free.
    fn open(&self, cluster: &mut impl WholeNodes, gpus: u32) -> Option<NodeSet> {
        let count = self.nodes_for(gpus);
        let nodes = cluster.reserve_whole_nodes(count)?;
        Some(NodeSet::new(nodes, count * self.gpus_per_node / gpus))
    }

    /// `gandiva_placement` (§9.1): `job` of `gpus` GPUs joins the first set of its class if it
    /// has room, else a new set, else over-subscribes the first set of its class. `None` when
    /// `gpus` is not a class (the original exits); `Some(false)` when the job has to wait.
    pub fn place(&mut self, cluster: &mut impl WholeNodes, job: JobIdx, gpus: u32) -> Option<bool> {
        let class = CLASSES.iter().position(|&k| k == gpus)?;
        if !self.classes[class].is_empty() {
            let mut set = self.classes[class].remove(0);
            let fits = set.util + 1 < set.capacity;
            if fits {
                set.add(job);
            }
            self.classes[class].push(set);
            if fits {
                sort_by_util(&mut self.classes[class]);
                return Some(true);
            }
        }
        if let Some(mut set) = self.open(cluster, gpus) {
            set.add(job);
            self.classes[class].push(set);
            sort_by_util(&mut self.classes[class]);
            return Some(true);
        }
        let list = &mut self.classes[class];
        if list.is_empty() {
            return Some(false);
        }
        let mut set = list.remove(0);
        set.add(job);
        list.push(set);
        sort_by_util(list);
        Some(true)
    }

    /// `gandiva_node_set_adjust` (§9.2): each class with jobs gets its share of the cluster by
    /// GPU demand (at most its demand); classes under their share open sets on free nodes,
    /// classes over it give sets back.
    pub fn adjust(&mut self, cluster: &mut impl WholeNodes) {
        let mut demand = [0u64; CLASSES.len()];
        let mut occupied = [0u64; CLASSES.len()];
        for (c, list) in self.classes.iter().enumerate() {
            let jobs: usize = list.iter().map(|s| s.jobs.len()).sum();
            demand[c] = u64::from(CLASSES[c]) * jobs as u64;
            occupied[c] = u64::from(self.gpus_per_node) * list.iter().map(|s| s.nodes.len() as u64).sum::<u64>();
        }
        let total: u64 = demand.iter().sum();
        if total == 0 {
            return;
        }
        for c in 0..CLASSES.len() {
            if demand[c] == 0 {
                continue;
            }
            let share = (demand[c] as f64 / total as f64 * f64::from(self.total_gpus)).floor() as i64;
            let target = share.min(demand[c] as i64);
            let diff = target - occupied[c] as i64;
            let k = i64::from(CLASSES[c]);
            if diff > 0 {
                self.expand(cluster, c, (diff + k - 1) / k);
            } else if diff < 0 {
                self.shrink(cluster, c, (-diff + k - 1) / k);
            }
        }
    }

    /// `gandiva_node_set_expand`: up to `count` empty sets for class index `c`, then (see the
    /// module doc) possibly a re-arrangement of the class's jobs over all its sets.
    fn expand(&mut self, cluster: &mut impl WholeNodes, c: usize, count: i64) {
        let gpus = CLASSES[c];
        let nodes = self.nodes_for(gpus);
        let mut last_opened = false;
        for _ in 0..count {
            let set = self.open(cluster, gpus);
            last_opened = set.is_some();
            self.classes[c].extend(set);
        }
        // The original's loop variable ends at `nodes - 1` after a successful last attempt and
        // at `count` (> 0) after a failed one; it re-arranges when that is positive.
        let rearrange = if last_opened { nodes > 1 } else { count > 0 };
        if !rearrange {
            return;
        }
        let list = &mut self.classes[c];
        let mut jobs = Vec::new();
        for set in list.iter_mut().filter(|s| !s.jobs.is_empty()) {
            jobs.append(&mut set.jobs);
            set.util = 0;
        }
        for job in jobs {
            list[0].add(job);
            sort_by_util(list);
        }
    }

    /// `gandiva_node_set_shrink`: gives back the first `count` sets of class index `c` (keeping
    /// at least one) and moves their jobs, one at a time, to the least-loaded remaining set.
    fn shrink(&mut self, cluster: &mut impl WholeNodes, c: usize, count: i64) {
        let list = &mut self.classes[c];
        let count = count.min(list.len() as i64 - 1).max(0) as usize;
        let mut jobs = Vec::new();
        for set in list.drain(..count) {
            jobs.extend(set.jobs);
            cluster.unreserve_nodes(&set.nodes);
        }
        for job in jobs {
            list[0].add(job);
            sort_by_util(list);
        }
    }

    /// Drops the sets left without jobs after a time-slicing step, returning their nodes;
    /// whether any was dropped (which makes the policy retry waiting jobs).
    pub fn release_empty(&mut self, cluster: &mut impl WholeNodes) -> bool {
        let mut released = false;
        for list in &mut self.classes {
            list.retain(|s| {
                if s.jobs.is_empty() {
                    cluster.unreserve_nodes(&s.nodes);
                    released = true;
                }
                !s.jobs.is_empty()
            });
        }
        released
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Cluster, ClusterSpec};

    fn jobs(p: &GandivaNodeSets, gpus: u32) -> Vec<Vec<JobIdx>> {
        let c = CLASSES.iter().position(|&k| k == gpus).unwrap();
        p.classes[c].iter().map(|s| s.jobs.clone()).collect()
    }

    /// Node sets on `nodes` nodes of `gpn` GPUs and the cluster they take nodes from.
    fn setup(nodes: u32, gpn: u32) -> (GandivaNodeSets, Cluster) {
        (GandivaNodeSets::new(nodes, gpn), Cluster::new(ClusterSpec::uniform(nodes, gpn)))
    }

    #[test]
    fn a_set_takes_jobs_below_capacity_then_new_sets_then_over_subscription() {
        // 2 nodes of 4 GPUs: a 1-GPU set runs 4 jobs but admits only 3 (strict `<`).
        let (mut p, mut c) = setup(2, 4);
        for j in 0..3 {
            assert_eq!(p.place(&mut c, j, 1), Some(true));
        }
        assert_eq!(jobs(&p, 1), [vec![0, 1, 2]]);
        assert_eq!((c.free_gpus(), c.whole_free_nodes()), (4, 1), "a set holds its whole node in the cluster");
        // The fourth opens the second node; sets are kept least loaded first.
        assert_eq!(p.place(&mut c, 3, 1), Some(true));
        assert_eq!(jobs(&p, 1), [vec![3], vec![0, 1, 2]]);
        assert_eq!(c.whole_free_nodes(), 0);
        // A 4-GPU job finds no set and no node: it waits.
        assert_eq!(p.place(&mut c, 4, 4), Some(false));
        p.place(&mut c, 5, 1);
        p.place(&mut c, 6, 1);
        assert_eq!(jobs(&p, 1), [vec![0, 1, 2], vec![3, 5, 6]]);
        // Both sets refuse (util 3); the first rotates back unsorted, so the other one is
        // over-subscribed.
        assert_eq!(p.place(&mut c, 7, 1), Some(true));
        assert_eq!(jobs(&p, 1), [vec![0, 1, 2], vec![3, 5, 6, 7]]);
        assert_eq!(p.place(&mut c, 8, 3), None, "3 GPUs is not a class");
    }

    #[test]
    fn multi_node_classes_run_one_job_per_set() {
        let (mut p, mut c) = setup(4, 4);
        assert_eq!(p.place(&mut c, 0, 8), Some(true));
        assert_eq!(p.classes[3][0].capacity, 1);
        assert_eq!(p.classes[3][0].nodes, [0, 1], "the lowest whole free nodes");
        assert_eq!(c.whole_free_nodes(), 2);
        assert_eq!(p.classes[3][0].running(), 1);
    }

    #[test]
    fn adjustment_shares_nodes_by_demand() {
        // 4 nodes of 4: one 1-GPU set with 3 jobs (demand 3, occupies 4 GPUs) and one 4-GPU set.
        let (mut p, mut c) = setup(4, 4);
        for j in 0..3 {
            p.place(&mut c, j, 1);
        }
        p.place(&mut c, 3, 4);
        // Demands 1: 3, 4: 4 of 7; shares floor(3/7 16) = 6 -> min(6, 3) = 3 < 4: shrink by
        // ceil(1/1) = 1, but a class keeps one set. 4: floor(4/7 16) = 9 -> 4 = occupied.
        p.adjust(&mut c);
        assert_eq!((jobs(&p, 1).len(), jobs(&p, 4).len(), c.whole_free_nodes()), (1, 1, 2));
        // An 8-GPU set spans the 2 free nodes.
        assert_eq!(p.place(&mut c, 4, 8), Some(true));
        assert_eq!(c.whole_free_nodes(), 0);
    }

    #[test]
    fn expansion_rearranges_multi_node_classes_and_shrinking_moves_jobs() {
        // 8 nodes of 4, 6 of them taken elsewhere. Class 8 (2 nodes per set): 3 jobs
        // over-subscribe one set.
        let (mut p, mut c) = setup(8, 4);
        let elsewhere = c.reserve_whole_nodes(6).unwrap();
        for j in 0..3 {
            p.place(&mut c, j, 8);
        }
        assert_eq!(jobs(&p, 8), [vec![0, 1, 2]]);
        c.unreserve_nodes(&elsewhere);
        // Demand 24 of 24 -> target min(32, 24) = 24, occupied 8: expand by 2 sets of 2 nodes,
        // then re-arrange (loop variable 1 > 0): one job per set.
        // Each job goes to the least-loaded set, the stable sort keeping earlier sets first.
        p.adjust(&mut c);
        assert_eq!(jobs(&p, 8), [vec![2], vec![1], vec![0]]);
        assert_eq!(c.whole_free_nodes(), 2);

        // Single-node class: a successful last expansion does not re-arrange.
        let (mut q, mut c) = setup(4, 4);
        let elsewhere = c.reserve_whole_nodes(3).unwrap();
        for j in 0..2 {
            q.place(&mut c, j, 4);
        }
        c.unreserve_nodes(&elsewhere);
        q.adjust(&mut c);
        assert_eq!(jobs(&q, 4), [vec![0, 1], vec![]]);
        // The empty set is released by the next time-slicing step.
        assert!(q.release_empty(&mut c));
        assert_eq!((jobs(&q, 4).len(), c.whole_free_nodes()), (1, 3));

        // Shrinking: a class over its share gives back sets and re-homes their jobs.
        let (mut r, mut c) = setup(4, 4);
        r.place(&mut c, 0, 4);
        r.place(&mut c, 1, 4);
        r.classes[2][0].jobs.clear();
        // One job left (demand 4) on 8 GPUs: shrink by 1 set; its job moves to the other set.
        r.classes[2].swap(0, 1);
        r.adjust(&mut c);
        assert_eq!(jobs(&r, 4), [vec![1]]);
        assert_eq!(c.whole_free_nodes(), 3);
        assert_eq!(c.free_gpus(), 12, "the nodes of a given-back set are free again");
    }
}
